"""`python -m bench core`: the cost of every apply_rope method and layout, as a multiple of a copy.

For each size, every candidate (x.clone(), the common eager rotate_half formulation, apply_rope with
each method and layout, and each branch of the fast path that the device can run) is timed in
rounds: one sample of each per round, the order rotated from round to round, and each ratio taken
within a round before the median over rounds. On a shared, noisy machine this keeps the ratios
honest where absolute times are not. A sample queues calls back to back and waits for the device
once at the end (launch latency overlaps the work, as in a model); beside it stand the latency of
one call waited for alone and the host's share of a queued call (near 1: launch-bound).

A copy moves the tensor through memory once (read x, write a fresh tensor), so its time is the
memory-bandwidth limit. Targets, from (1, 32, 4096, 128) up:
- CPU, float32: the fast path at most 1.3x a copy and at least 3x faster than rotate_half;
- CUDA, float32 / bfloat16 / float16: the fast path at most 1.15x a copy, and queries and keys rotated
  in one call no slower than Liger's kernel and the transformers formula under torch.compile (3%
  for noise); at (1, 32, 1024, 128) at most 2.0x a copy;
- everywhere, from (1, 32, 4096, 128) up: apply_rope's branch is the fastest one measured (5% for noise),
  so the choice per device rests on this table.
The fused kernel is compiled beforehand (rope_viz.kernels.warm_up, timed and reported), never inside
a timed call. Liger (`pip install liger-kernel`) is optional: without it the bench says so and leaves
its column out.
"""

from __future__ import annotations

import math
import statistics
import time
from importlib import metadata

import torch

from rope_viz import METHODS, apply_rope, apply_rope_qk, kernels
from rope_viz.device import describe, synchronize
from rope_viz.frequencies import rope_tables

SIZES = ((1, 8, 512, 64), (1, 32, 1024, 128), (1, 32, 4096, 128))
CUDA_SIZES = ((1, 32, 1024, 128), (1, 32, 4096, 128), (4, 32, 8192, 128))
LAYOUTS = ("interleaved", "half")
TARGET_SHAPE = (1, 32, 4096, 128)  # this size and larger ones carry the bandwidth targets
SMALL_SHAPE = (1, 32, 1024, 128)  # launch-bound on a GPU: a looser target
TARGETS = {"cpu": {"copy": 1.3, "speedup": 3.0}, "cuda": {"copy": 1.15, "small_copy": 2.0}}
NOISE = {"rivals": 1.03, "branch": 1.05}  # "no slower than" allows this much measurement noise
# The matrix method multiplies by a dense (r x r) matrix per position, broadcast over the heads:
# beyond this many matrix entries in the product it takes minutes and gigabytes, so it is skipped.
MATRIX_MAX_ENTRIES = 1 << 27
MIN_SAMPLE_S = 0.02  # each sample queues calls until they last about this long
NEW_SEQ_LENGTHS = (1000, 3333, 4097)  # unseen shapes for the compiled kernel: must not recompile


def _rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def _rotate_half_baseline(x):
    """The Hugging Face formulation with full-width tables computed beforehand, as a model does."""
    cos, sin = rope_tables(None, x.shape[-2], x.shape[-1], 10000.0, torch.float32, x.device)
    cos, sin = torch.cat((cos, cos), dim=-1).to(x.dtype), torch.cat((sin, sin), dim=-1).to(x.dtype)
    return lambda: x * cos + _rotate_half(x) * sin


def _branches(x, layout) -> dict:
    """Every branch of apply_rope(method="fast") that can take x here: name -> zero-argument callable."""
    cos, sin = rope_tables(None, x.shape[-2], x.shape[-1], 10000.0, torch.float32, x.device)
    found = {"eager": lambda: kernels.rope_eager(x, cos, sin, layout)}
    if x.numel() >= kernels.COMPILED_MIN_ELEMENTS and kernels.rope_compiled(x, cos, sin, layout) is not None:
        found["compiled"] = lambda: kernels.rope_compiled(x, cos, sin, layout)
    if x.is_cuda:
        from rope_viz import triton_rope  # imported only where it compiles for a GPU

        if triton_rope.usable(x):
            found["triton"] = lambda: triton_rope.rope_triton(x, cos, sin, layout)
    return found


def _taken_branch(branches: dict) -> str:
    """The branch apply_rope takes, given the ones that can run: Triton, else compiled, else eager."""
    return next(name for name in ("triton", "compiled", "eager") if name in branches)


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
            branches = _branches(x, layout) if method == "fast" else {}
            taken = _taken_branch(branches) if branches else "-"
            found[f"{method}/{layout}"] = (method, layout, taken,
                                           lambda m=method, lay=layout: apply_rope(x, method=m, layout=lay))
            for name, call in branches.items():  # the other branches alone, for the choice between them
                if name != taken:
                    found[f"fast-{name}/{layout}"] = ("fast", layout, name, call)
    return found, skipped


def _sample(fn, device: torch.device) -> tuple[float, float, float]:
    """(seconds per call queued back to back, host seconds per queued call, seconds of one call alone)."""
    synchronize(device)
    start = time.perf_counter()
    fn()
    synchronize(device)
    alone = time.perf_counter() - start
    calls = max(1, min(2000, math.ceil(MIN_SAMPLE_S / max(alone, 1e-7))))
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    host = time.perf_counter() - start
    synchronize(device)
    return (time.perf_counter() - start) / calls, host / calls, alone


def _time_rounds(fns: dict, device: torch.device, rounds: int) -> dict[str, list[tuple[float, float, float]]]:
    names = list(fns)
    for fn in fns.values():
        fn()
    samples = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            samples[name].append(_sample(fns[name], device))
    return samples


def _rows(found: dict, samples: dict, moved_bytes: int, copy: str, baseline: str | None) -> list[dict]:
    """A row per candidate: median times, ratio to `copy` and speed-up over `baseline`, per round."""
    def per_round(name, other):
        return statistics.median(a[0] / b[0] for a, b in zip(samples[name], samples[other]))

    rows = []
    for name, (method, layout, branch, _) in found.items():
        queued = statistics.median(s[0] for s in samples[name])
        rows.append({"name": name, "method": method, "layout": layout, "branch": branch, "median_s": queued,
                     "one_call_s": statistics.median(s[2] for s in samples[name]),
                     "host_share": statistics.median(min(s[1] / s[0], 1.0) for s in samples[name]),
                     "ratio_to_copy": per_round(name, copy),
                     "speedup_vs_rotate_half": per_round(baseline, name) if baseline else None,
                     "gb_per_s": moved_bytes / queued / 1e9})
    return rows


def measure_size(shape, device: torch.device, dtype: torch.dtype, rounds: int) -> dict:
    """One size: a row per candidate with its median time, ratio to copy and speedup over rotate_half."""
    x = torch.randn(shape, device=device).to(dtype)
    found, skipped = _candidates(x)
    samples = _time_rounds({name: entry[3] for name, entry in found.items()}, device, rounds)
    moved_bytes = 2 * x.numel() * x.element_size()  # read x once, write the result once
    return {"device": str(device), "dtype": str(dtype).removeprefix("torch."), "shape": list(shape),
            "rounds": rounds, "rows": _rows(found, samples, moved_bytes, "copy", "rotate_half"), "skipped": skipped}


def _rivals(q, k) -> tuple[dict, list[dict]]:
    """Other libraries' RoPE for queries and keys (half layout), as models call them, and the ones absent."""
    found, absent = {}, []
    cos, sin = rope_tables(None, q.shape[-2], q.shape[-1], 10000.0, torch.float32, q.device)
    cos, sin = (torch.cat((t, t), dim=-1).to(q.dtype).unsqueeze(0) for t in (cos, sin))  # (1, seq, dim)
    try:
        from transformers.models.llama.modeling_llama import apply_rotary_pos_emb
    except ImportError as err:
        absent.append({"method": "transformers", "why": f"not installed ({err}); pip install transformers"})
    else:
        # specialised to each shape and dtype, as a model's compiled forward is; one compilation per size
        torch._dynamo.config.recompile_limit = max(torch._dynamo.config.recompile_limit, 64)
        compiled = torch.compile(apply_rotary_pos_emb, dynamic=False)
        found["transformers/half"] = ("transformers", "half", "eager", lambda: apply_rotary_pos_emb(q, k, cos, sin))
        found["transformers-compiled/half"] = ("transformers", "half", "compiled", lambda: compiled(q, k, cos, sin))
    if not q.is_cuda:
        absent.append({"method": "liger", "why": "Liger's kernel runs on CUDA only"})
        return found, absent
    try:
        from liger_kernel.transformers.rope import liger_rotary_pos_emb
    except ImportError as err:
        absent.append({"method": "liger", "why": f"not installed ({err}); pip install liger-kernel"})
    else:
        found["liger/half"] = ("liger", "half", "in place", lambda: liger_rotary_pos_emb(q, k, cos, sin))
    return found, absent


def measure_qk(shape, device: torch.device, dtype: torch.dtype, rounds: int) -> dict:
    """Queries and keys of one size rotated together: apply_rope_qk (out of place and in place) beside
    transformers' apply_rotary_pos_emb (eager and compiled) and Liger's kernel, against copying both."""
    q, k = (torch.randn(shape, device=device).to(dtype) for _ in range(2))
    found = {"copy q, k": ("copy", "-", "-", lambda: (q.clone(), k.clone()))}
    for layout in LAYOUTS:
        found[f"fast-qk/{layout}"] = ("fast", layout, "-", lambda lay=layout: apply_rope_qk(q, k, layout=lay))
        found[f"fast-qk-inplace/{layout}"] = ("fast", layout, "in place",
                                              lambda lay=layout: apply_rope_qk(q, k, layout=lay, inplace=True))
    rivals, absent = _rivals(q, k)
    found.update(rivals)
    samples = _time_rounds({name: entry[3] for name, entry in found.items()}, device, rounds)
    moved_bytes = 4 * q.numel() * q.element_size()
    return {"device": str(device), "dtype": str(dtype).removeprefix("torch."), "shape": list(shape),
            "rounds": rounds, "rows": _rows(found, samples, moved_bytes, "copy q, k", None), "skipped": absent}


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


def _check(what: str, value: float, limit: float, *, at_least: bool = False) -> dict:
    return {"what": what, "value": value, "limit": limit, "pass": value >= limit if at_least else value <= limit}


def _large(shape) -> bool:
    return math.prod(shape) >= math.prod(TARGET_SHAPE)


def size_targets(size: dict) -> list[dict]:
    """The targets one size of one device and dtype must meet (see the module docstring)."""
    rows = {row["name"]: row for row in size["rows"]}
    where = f"{size['device']} {size['dtype']} {tuple(size['shape'])}"
    kind = torch.device(size["device"]).type
    checks = []
    for layout in LAYOUTS:
        fast = rows[f"fast/{layout}"]
        others = [row for row in size["rows"] if row["name"].startswith("fast-") and row["layout"] == layout]
        if others and _large(size["shape"]):
            best = min(others, key=lambda row: row["ratio_to_copy"])
            checks.append(_check(f"{where} fast/{layout} ({fast['branch']}) vs the fastest other branch "
                                 f"({best['branch']}), at most {NOISE['branch']}x",
                                 fast["ratio_to_copy"] / best["ratio_to_copy"], NOISE["branch"]))
        if kind == "cpu" and _large(size["shape"]) and size["dtype"] == "float32":
            checks.append(_check(f"{where} fast/{layout} x copy", fast["ratio_to_copy"], TARGETS["cpu"]["copy"]))
            checks.append(_check(f"{where} fast/{layout} speed-up over rotate_half", fast["speedup_vs_rotate_half"],
                                 TARGETS["cpu"]["speedup"], at_least=True))
        if kind == "cuda":
            limit = TARGETS["cuda"]["copy" if _large(size["shape"]) else "small_copy"]
            checks.append(_check(f"{where} fast/{layout} x copy", fast["ratio_to_copy"], limit))
    return checks


def qk_targets(size: dict) -> list[dict]:
    """On CUDA: q and k in one call at most 1.15x copying both, and no slower than each rival measured."""
    if torch.device(size["device"]).type != "cuda" or not _large(size["shape"]):
        return []
    rows = {row["name"]: row for row in size["rows"]}
    where = f"{size['device']} {size['dtype']} {tuple(size['shape'])}"
    rivals = [row for row in size["rows"] if row["method"] in ("liger", "transformers") and row["branch"] != "eager"]
    checks = []
    for layout in LAYOUTS:
        for name in (f"fast-qk/{layout}", f"fast-qk-inplace/{layout}"):
            checks.append(_check(f"{where} {name} x copying q and k", rows[name]["ratio_to_copy"],
                                 TARGETS["cuda"]["copy"]))
            checks += [_check(f"{where} {name} vs {rival['name']}, at most {NOISE['rivals']}x",
                              rows[name]["median_s"] / rival["median_s"], NOISE["rivals"]) for rival in rivals]
    return checks


def _devices_and_dtypes():
    yield torch.device("cpu"), (torch.float32,), SIZES
    if torch.cuda.is_available():
        yield torch.device("cuda"), (torch.float32, torch.bfloat16, torch.float16), CUDA_SIZES


def _versions() -> dict:
    """The installed version of each package the numbers depend on (None: absent)."""
    versions = {}
    for name in ("torch", "triton", "transformers", "liger-kernel"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def run(rounds: int = 7) -> dict:
    """Every device and size; prints the tables as it goes and returns everything for the JSON file."""
    versions = _versions()
    result = {**versions, "threads": torch.get_num_threads(), "devices": [], "compile": [], "sizes": [], "qk": [],
              "targets": []}
    print(", ".join(f"{name} {version or 'absent'}" for name, version in versions.items()))
    if not torch.cuda.is_available():
        print("no CUDA device: CPU only (CUDA bandwidth not measured)")
    for device, dtypes, sizes in _devices_and_dtypes():
        result["devices"].append(describe(device))
        report = compile_report(device, dtypes)
        result["compile"].append(report)
        print(describe(device))
        print(format_compile(report))
        for dtype in dtypes:
            for shape in sizes:
                size = measure_size(shape, device, dtype, rounds)
                result["sizes"].append(size)
                checks = size_targets(size)
                if device.type == "cuda" or tuple(shape) == TARGET_SHAPE:
                    qk = measure_qk(shape, device, dtype, rounds)
                    result["qk"].append(qk)
                    checks += qk_targets(qk)
                    print(format_size(size) + "\n" + format_size(qk))
                else:
                    print(format_size(size))
                result["targets"].extend(checks)
                print("\n".join(f"  [{'PASS' if c['pass'] else 'FAIL'}] {c['what']}: {c['value']:.2f} "
                                f"(limit {c['limit']})" for c in checks))
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
    lines = [head, f"  {'candidate':28s} {'branch':9s} {'queued ms':>10s} {'1 call ms':>10s} {'host':>5s} "
                   f"{'x copy':>7s} {'vs rot_half':>11s} {'GB/s':>7s}"]
    for row in size["rows"]:
        speedup = "-" if row["speedup_vs_rotate_half"] is None else f"{row['speedup_vs_rotate_half']:.2f}x"
        lines.append(f"  {row['name']:28s} {row['branch']:9s} {row['median_s'] * 1e3:10.3f} "
                     f"{row['one_call_s'] * 1e3:10.3f} {row['host_share']:5.2f} {row['ratio_to_copy']:7.2f} "
                     f"{speedup:>11s} {row['gb_per_s']:7.1f}")
    lines += [f"  skipped {s['method']}: {s['why']}" for s in size["skipped"]]
    return "\n".join(lines)
