"""bench core's targets, on made-up tables: the CUDA rules run only where a GPU is, so their logic is
checked here, where none is."""

import pytest

from bench import core


def row(name, ratio, *, layout="half", method="fast", branch="-", seconds=None):
    return {"name": name, "layout": layout, "method": method, "branch": branch, "ratio_to_copy": ratio,
            "median_s": ratio if seconds is None else seconds, "speedup_vs_rotate_half": 4.0}


def size(device, shape, rows, dtype="bfloat16"):
    return {"device": device, "dtype": dtype, "shape": list(shape), "rows": rows}


def fast_rows(interleaved, half, **others):
    rows = [row("copy", 1.0, method="copy"),
            row("fast/interleaved", interleaved, layout="interleaved", branch="triton"),
            row("fast/half", half, branch="triton")]
    rows += [row(f"fast-{branch}/half", ratio, branch=branch) for branch, ratio in others.items()]
    return rows


def test_cuda_large_sizes_must_stay_within_1_15x_a_copy():
    checks = core.size_targets(size("cuda", (1, 32, 4096, 128), fast_rows(1.10, 1.20)))
    copy_checks = {c["what"]: c for c in checks if c["what"].endswith("x copy")}
    assert [c["limit"] for c in copy_checks.values()] == [1.15, 1.15]
    assert [c["pass"] for c in copy_checks.values()] == [True, False]


def test_cuda_small_size_has_the_looser_2x_target():
    checks = core.size_targets(size("cuda", (1, 32, 1024, 128), fast_rows(1.9, 2.1)))
    assert [(c["limit"], c["pass"]) for c in checks] == [(2.0, True), (2.0, False)]


def test_the_branch_taken_must_be_the_fastest_measured_within_noise():
    slower = core.size_targets(size("cuda", (4, 32, 8192, 128), fast_rows(1.05, 1.10, eager=3.0, compiled=1.00)))
    branch = [c for c in slower if "fastest other branch" in c["what"]]
    assert len(branch) == 1 and not branch[0]["pass"] and branch[0]["value"] == pytest.approx(1.10)
    faster = core.size_targets(size("cuda", (4, 32, 8192, 128), fast_rows(1.05, 1.04, eager=3.0, compiled=1.00)))
    assert all(c["pass"] for c in faster if "fastest other branch" in c["what"])


def test_cpu_targets_only_at_the_large_float32_size():
    assert core.size_targets(size("cpu", (1, 32, 1024, 128), fast_rows(1.5, 1.5), dtype="float32")) == []
    large = core.size_targets(size("cpu", (1, 32, 4096, 128), fast_rows(1.2, 1.4), dtype="float32"))
    copy = [c["pass"] for c in large if c["what"].endswith("x copy")]
    assert copy == [True, False]


def qk_rows(fast_seconds, liger_seconds, compiled_seconds):
    rows = [row("copy q, k", 1.0, method="copy", seconds=1.0)]
    for layout in core.LAYOUTS:
        for name in (f"fast-qk/{layout}", f"fast-qk-inplace/{layout}"):
            rows.append(row(name, fast_seconds, layout=layout))
    rows += [row("transformers/half", 5.0, method="transformers", branch="eager"),
             row("transformers-compiled/half", compiled_seconds, method="transformers", branch="compiled"),
             row("liger/half", liger_seconds, method="liger", branch="in place")]
    return rows


def test_q_and_k_must_be_no_slower_than_liger_and_compiled_transformers():
    fine = core.qk_targets(size("cuda", (1, 32, 4096, 128), qk_rows(1.02, 1.00, 1.30)))
    assert fine and all(c["pass"] for c in fine)
    assert not any("transformers/half" in c["what"] for c in fine)  # eager transformers is no rival
    behind = core.qk_targets(size("cuda", (1, 32, 4096, 128), qk_rows(1.10, 1.00, 1.30)))
    failed = [c["what"] for c in behind if not c["pass"]]
    assert len(failed) == 4 and all("liger/half" in what for what in failed)


def test_q_and_k_targets_apply_on_cuda_from_the_target_size_only():
    assert core.qk_targets(size("cpu", (1, 32, 4096, 128), qk_rows(9.0, 1.0, 1.0))) == []
    assert core.qk_targets(size("cuda", (1, 32, 1024, 128), qk_rows(9.0, 1.0, 1.0))) == []
