"""`python -m bench core`: the cost of every apply_rope method and layout, as a multiple of a copy.

For each size, every candidate (x.clone(), the common eager rotate_half formulation, and
apply_rope with each method and layout) is timed in rounds: one sample of each per round, the
order rotated from round to round, and each ratio taken within a round before the median over
rounds. On a shared, noisy machine this keeps the ratios honest where absolute times are not.

A copy moves the tensor through memory once (read x, write a fresh tensor), so its time is the
memory-bandwidth limit: the fast path's target is at most 1.3x a copy (1.1x the aim) on the
largest size, and at least 3x faster than rotate_half. The fused kernel is compiled beforehand
(rope_viz.kernels.warm_up, timed and reported), never inside a timed call. Runs on the CPU in
float32, and on CUDA when present in float32 and bfloat16 with achieved bandwidth in GB/s.
"""

from __future__ import annotations

import statistics
import time

import torch

from rope_viz import METHODS, apply_rope, kernels, time_call
from rope_viz.frequencies import rope_tables

SIZES = ((1, 8, 512, 64), (1, 32, 1024, 128), (1, 32, 4096, 128))
LAYOUTS = ("interleaved", "half")
TARGET_SHAPE = (1, 32, 4096, 128)
TARGET_COPY_RATIO = 1.3
TARGET_SPEEDUP = 3.0
# The matrix method multiplies by a dense (r x r) matrix per position, broadcast over the heads:
# beyond this many matrix entries in the product it takes minutes and gigabytes, so it is skipped.
MATRIX_MAX_ENTRIES = 1 << 27
MIN_SAMPLE_S = 0.02  # each sample repeats a short call until it lasts this long
NEW_SEQ_LENGTHS = (1000, 3333, 4097)  # unseen shapes for the compiled kernel: must not recompile


def _rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def _rotate_half_baseline(x):
    """The Hugging Face formulation with full-width tables computed beforehand, as a model does."""
    cos, sin = rope_tables(None, x.shape[-2], x.shape[-1], 10000.0, torch.float32, x.device)
    cos, sin = torch.cat((cos, cos), dim=-1).to(x.dtype), torch.cat((sin, sin), dim=-1).to(x.dtype)
    return lambda: x * cos + _rotate_half(x) * sin


def _fast_branch(x, layout) -> str:
    """Which branch apply_rope(method="fast") takes for x: "triton" (CUDA), "compiled" or "eager"."""
    if x.is_cuda:
        from rope_viz import triton_rope  # imported only where it compiles for a GPU

        if triton_rope.usable(x):
            return "triton"
    if x.numel() < kernels.COMPILED_MIN_ELEMENTS:
        return "eager"
    cos, sin = rope_tables(None, x.shape[-2], x.shape[-1], 10000.0, torch.float32, x.device)
    return "eager" if kernels.rope_compiled(x, cos, sin, layout) is None else "compiled"


def _candidates(x):
    """name -> (method, layout, branch, zero-argument callable); plus the methods skipped, with why."""
    found = {"copy": ("copy", "-", "-", x.clone), "rotate_half": ("rotate_half", "half", "-", _rotate_half_baseline(x))}
    skipped = []
    matrix_entries = x.numel() * x.shape[-1]
    for method in METHODS:
        if method == "matrix" and matrix_entries > MATRIX_MAX_ENTRIES:
            skipped.append({"method": method, "why": f"{matrix_entries:,} matrix entries over the benchmark's "
                                                     f"{MATRIX_MAX_ENTRIES:,}"})
            continue
        for layout in LAYOUTS:
            branch = _fast_branch(x, layout) if method == "fast" else "-"
            found[f"{method}/{layout}"] = (method, layout, branch,
                                           lambda m=method, lay=layout: apply_rope(x, method=m, layout=lay))
    for layout in LAYOUTS:  # the eager branch alone, where apply_rope takes the compiled one
        if found[f"fast/{layout}"][2] == "compiled":
            cos, sin = rope_tables(None, x.shape[-2], x.shape[-1], 10000.0, torch.float32, x.device)
            found[f"fast-eager/{layout}"] = ("fast", layout, "eager",
                                             lambda lay=layout, c=cos, s=sin: kernels.rope_eager(x, c, s, lay))
    return found, skipped


def _time_rounds(fns: dict, device: torch.device, rounds: int) -> dict[str, list[float]]:
    names = list(fns)
    for fn in fns.values():
        fn()
    samples = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            samples[name].append(time_call(fns[name], device=device, repeat=1, warmup=0, min_time=MIN_SAMPLE_S))
    return samples


def measure_size(shape, device: torch.device, dtype: torch.dtype, rounds: int) -> dict:
    """One size: a row per candidate with its median time, ratio to copy and speedup over rotate_half."""
    x = torch.randn(shape, device=device).to(dtype)
    found, skipped = _candidates(x)
    samples = _time_rounds({name: entry[3] for name, entry in found.items()}, device, rounds)
    moved_bytes = 2 * x.numel() * x.element_size()  # read x once, write the result once

    def per_round(name, other):
        return statistics.median(a / b for a, b in zip(samples[name], samples[other]))

    rows = []
    for name, (method, layout, branch, _) in found.items():
        seconds = statistics.median(samples[name])
        rows.append({"name": name, "method": method, "layout": layout, "branch": branch, "median_s": seconds,
                     "ratio_to_copy": per_round(name, "copy"),
                     "speedup_vs_rotate_half": per_round("rotate_half", name),
                     "gb_per_s": moved_bytes / seconds / 1e9})
    return {"device": str(device), "dtype": str(dtype).removeprefix("torch."), "shape": list(shape),
            "rounds": rounds, "rows": rows, "skipped": skipped}


def compile_report(device: torch.device, dtypes) -> dict:
    """Warm the compiled kernels (timed), then time the first call at unseen sequence lengths."""
    start = time.perf_counter()
    ready = kernels.warm_up(device, dtypes)
    report = {"device": str(device), "ready": ready, "warm_up_s": time.perf_counter() - start, "new_shapes": []}
    if not ready:
        return report
    report["compiled_layouts"] = [lay for lay in LAYOUTS if kernels.compiled_ready(device, torch.float32, lay)]
    for seq in NEW_SEQ_LENGTHS:
        x = torch.randn(1, 8, seq, 128, device=device)
        cos, sin = rope_tables(None, seq, 128, 10000.0, torch.float32, device)
        for layout in report["compiled_layouts"]:
            start = time.perf_counter()
            out = kernels.rope_compiled(x, cos, sin, layout)
            report["new_shapes"].append({"shape": list(x.shape), "layout": layout, "compiled": out is not None,
                                         "first_call_s": time.perf_counter() - start})
    return report


def _targets(result: dict) -> list[dict]:
    rows = {row["name"]: row for row in result["rows"]}
    checks = []
    for layout in LAYOUTS:
        row = rows[f"fast/{layout}"]
        checks.append({"what": f"fast/{layout} <= {TARGET_COPY_RATIO}x copy", "value": row["ratio_to_copy"],
                       "pass": row["ratio_to_copy"] <= TARGET_COPY_RATIO})
        checks.append({"what": f"fast/{layout} >= {TARGET_SPEEDUP}x faster than rotate_half",
                       "value": row["speedup_vs_rotate_half"], "pass": row["speedup_vs_rotate_half"] >= TARGET_SPEEDUP})
    return checks


def _devices_and_dtypes():
    yield torch.device("cpu"), (torch.float32,)
    if torch.cuda.is_available():
        yield torch.device("cuda"), (torch.float32, torch.bfloat16)


def run(rounds: int = 7) -> dict:
    """Every device and size; prints the tables as it goes and returns everything for the JSON file."""
    result = {"torch": torch.__version__, "threads": torch.get_num_threads(), "compile": [], "sizes": [],
              "targets": []}
    if not torch.cuda.is_available():
        print("no CUDA device: CPU only (CUDA bandwidth not measured)")
    for device, dtypes in _devices_and_dtypes():
        report = compile_report(device, dtypes)
        result["compile"].append(report)
        print(format_compile(report))
        for dtype in dtypes:
            for shape in SIZES:
                size = measure_size(shape, device, dtype, rounds)
                result["sizes"].append(size)
                print(format_size(size))
                if tuple(shape) == TARGET_SHAPE and device.type == "cpu":
                    checks = _targets(size)
                    result["targets"].extend(checks)
                    print("\n".join(f"  [{'PASS' if c['pass'] else 'FAIL'}] {c['what']}: {c['value']:.2f}"
                                    for c in checks))
    return result


def format_compile(report: dict) -> str:
    if not report["ready"]:
        return f"{report['device']}: torch.compile UNAVAILABLE here ({report['warm_up_s']:.1f} s): eager only"
    eager = [lay for lay in LAYOUTS if lay not in report["compiled_layouts"]]
    lines = [f"{report['device']}: warm_up in {report['warm_up_s']:.1f} s; float32 compiled: "
             f"{', '.join(report['compiled_layouts'])}"
             + (f"; eager by design (one pass already): {', '.join(eager)}" if eager else "")]
    lines += [f"  first call at unseen shape {tuple(s['shape'])} {s['layout']}: "
              f"{'compiled' if s['compiled'] else 'RECOMPILE NEEDED: ran eagerly'}, {s['first_call_s'] * 1e3:.1f} ms"
              for s in report["new_shapes"]]
    return "\n".join(lines)


def format_size(size: dict) -> str:
    head = f"\n{size['device']} {size['dtype']} {tuple(size['shape'])}, median of {size['rounds']} rounds"
    lines = [head, f"  {'candidate':24s} {'branch':9s} {'median ms':>10s} {'x copy':>7s} {'vs rot_half':>11s} "
                   f"{'GB/s':>7s}"]
    for row in size["rows"]:
        lines.append(f"  {row['name']:24s} {row['branch']:9s} {row['median_s'] * 1e3:10.2f} "
                     f"{row['ratio_to_copy']:7.2f} {row['speedup_vs_rotate_half']:10.2f}x {row['gb_per_s']:7.1f}")
    lines += [f"  skipped {s['method']}: {s['why']}" for s in size["skipped"]]
    return "\n".join(lines)
