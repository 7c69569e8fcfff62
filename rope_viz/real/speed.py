"""The precision of the interventions' matmuls, chosen by timing this host, never assumed.

bfloat16 matmuls are a speed-up only on a CPU with bfloat16 instructions (avx512_bf16, AMX): on one with AVX2 only,
torch runs them many times slower than float32 (a (256, 576) x (576, 1536) matmul on two threads: 3.7 ms in float32,
383 ms in bfloat16 on an AVX2-only AMD EPYC; 2.1 ms and 0.6 ms on a CPU with avx512_bf16). So at the first
intervention a model runs in a process, `interventions_precision` times that model's own matmul shapes (one layer's
query projection and MLP, BENCH_ROWS rows) in both precisions, each the best of a few tries (a few milliseconds), and
keeps the answer for the process.

The rule (`choose`): bfloat16 only where it takes at most BF16_SHARE (2/3) of float32's time, and only where torch
dispatches AVX512 kernels or better (`torch.backends.cpu.get_cpu_capability()`: a CPU it runs at AVX2 has no bfloat16
instructions, so a timing that says otherwise is noise). A third saved is outside the noise of the best of TRIES
tries, and bfloat16 costs some accuracy (a trap's loss moves by hundredths of a nat), which only a clear gain pays
for. On the CPUs measured the cases are far apart: bfloat16 at a quarter to a third of float32's time with
avx512_bf16, several times float32's without. On a machine busy with other work single tries scatter by 10x, so each
time is the best of TRIES.

Threads are not tuned here: torch uses one per core this process may run on (its default).
ROPE_VIZ_PRECISION=float32 or bfloat16 sets the precision by hand (a benchmark, or a host whose timing misleads)."""

from __future__ import annotations

import os
import platform
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import torch

PRECISION_ENV = "ROPE_VIZ_PRECISION"
BF16_SHARE = 2 / 3   # bfloat16's time at most this share of float32's
BENCH_ROWS = 128     # rows of the timed matmuls
TRIES = 15           # each precision's time: the best of this many tries (a busy machine)
BUDGET_S = 1.5      # no try begins past this, once 3 are done (once per model and process)
CLEARLY_SLOWER = 3.0  # a try where bfloat16 takes this many times float32's best ends the timing (a slow CPU)
NARROW = ("DEFAULT", "NO AVX", "AVX2", "ZVECTOR", "SVE256")  # capabilities of CPUs without bfloat16 instructions
LAYER_WEIGHTS = ("attn_q", "ffn_up")  # the attention's and the MLP's shapes (most of a layer's cost)


class Choice(NamedTuple):
    """The precision chosen, and the seconds each took on the timed shapes (None where it was set by hand)."""
    precision: str
    float32_s: float | None
    bfloat16_s: float | None


def choose(float32_s: float, bfloat16_s: float, capability: str) -> str:
    """"bfloat16" where it takes at most BF16_SHARE of float32's time and torch's CPU capability
    (torch.backends.cpu.get_cpu_capability()) is AVX512 or above, else "float32"."""
    for name, value in (("float32_s", float32_s), ("bfloat16_s", bfloat16_s)):
        if not value > 0:
            raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
    wide = capability not in NARROW
    return "bfloat16" if wide and bfloat16_s <= BF16_SHARE * float32_s else "float32"


def by_hand() -> str | None:
    """$ROPE_VIZ_PRECISION (None when unset); a ValueError naming the variable when it is not a precision."""
    raw = os.environ.get(PRECISION_ENV)
    if raw is None:
        return None
    if raw not in ("float32", "bfloat16"):
        raise ValueError(f"{PRECISION_ENV}={raw!r} must be float32 or bfloat16")
    return raw


def time_shapes(weights: list[torch.Tensor], clock: Callable[[], float] = time.perf_counter,
                rows: int = BENCH_ROWS) -> tuple[float, float]:
    """(float32 seconds, bfloat16 seconds): `rows` rows times W.T for every weight W, each precision the best of
    TRIES tries after one untimed call (it reads the weights in and lets oneDNN build its kernels). The weights are
    rounded to bfloat16 before the clock starts: the decoder rounds them once per matmul of all the passes together
    (thousands of rows), a cost that does not depend on the CPU's instructions."""
    generator = torch.Generator().manual_seed(0)
    inputs = {torch.float32: [torch.randn(rows, w.shape[1], generator=generator) for w in weights]}
    inputs[torch.bfloat16] = [x.to(torch.bfloat16) for x in inputs[torch.float32]]
    matrices = {torch.float32: [w.T for w in weights], torch.bfloat16: [w.to(torch.bfloat16).T for w in weights]}

    def once(dtype: torch.dtype) -> float:
        start = clock()
        with torch.inference_mode():
            for x, w in zip(inputs[dtype], matrices[dtype]):
                x @ w
        return clock() - start

    for dtype in matrices:
        with torch.inference_mode():
            for x, w in zip(inputs[dtype], matrices[dtype]):
                x[:1] @ w
    best = {torch.float32: float("inf"), torch.bfloat16: float("inf")}
    began = clock()
    for attempt in range(TRIES):
        if attempt >= 3 and clock() - began > BUDGET_S:
            break
        for dtype in best:
            best[dtype] = min(best[dtype], once(dtype))
        if best[torch.bfloat16] > CLEARLY_SLOWER * best[torch.float32]:
            break
    return best[torch.float32], best[torch.bfloat16]


def cpu_kind(cpuinfo: Path = Path("/proc/cpuinfo")) -> dict:
    """The CPU as a figure measured on it is labelled: its model name, whether it has bfloat16 instructions
    (avx512_bf16 or AMX) and torch's CPU capability (what ATen dispatches: "AVX2" under
    ATEN_CPU_CAPABILITY=avx2 whatever the CPU)."""
    try:
        lines = cpuinfo.read_text().splitlines()
    except OSError:
        lines = []
    model = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")),
                 platform.processor())
    flags = set(next((line.split(":", 1)[1].split() for line in lines if line.startswith("flags")), []))
    return {"model": model, "bf16_instructions": bool(flags & {"avx512_bf16", "amx_bf16"}),
            "torch_capability": torch.backends.cpu.get_cpu_capability(),
            "forced": {k: os.environ[k] for k in ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA") if k in os.environ}}


def cpu_label(kind: dict | None = None) -> str:
    """How a table names the CPU it was measured on: "CPU <model>, torch capability <capability>", with the
    variables that forced it (kind: cpu_kind()'s dict, this host's by default)."""
    kind = cpu_kind() if kind is None else kind
    forced = f" (forced: {', '.join(f'{k}={v}' for k, v in kind['forced'].items())})" if kind["forced"] else ""
    return f"CPU {kind['model']}, torch capability {kind['torch_capability']}{forced}"


_CHOSEN: dict[str, Choice] = {}
_TIMED: dict[str, tuple[float, float]] = {}
_LOCK = threading.Lock()


def timings(lm) -> tuple[float, float]:
    """(float32 seconds, bfloat16 seconds) of `lm`'s timed shapes on this host (time_shapes), timed once per process."""
    with _LOCK:
        if lm.name not in _TIMED:
            _TIMED[lm.name] = time_shapes(lm.layer_weights(0, LAYER_WEIGHTS))
        return _TIMED[lm.name]


def interventions_precision(lm) -> Choice:
    """The precision of `lm`'s intervention passes in this process: set by hand, else timed once (see the module)."""
    if lm.name not in _CHOSEN:
        hand = by_hand()
        if hand is not None:
            choice = Choice(hand, None, None)
        else:
            float32_s, bfloat16_s = timings(lm)
            choice = Choice(choose(float32_s, bfloat16_s, torch.backends.cpu.get_cpu_capability()), float32_s,
                            bfloat16_s)
        with _LOCK:
            _CHOSEN.setdefault(lm.name, choice)
    return _CHOSEN[lm.name]


ALL_WEIGHTS = ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down")


def forward_s(lm, tokens: int, *, layers: int | None = None, head: bool = True, precision: str = "float32") -> float:
    """The expected seconds of one forward pass of `tokens` tokens through the first `layers` layers (default all)
    and the output head, from this host's timed shapes: their seconds times the pass's multiply-adds over theirs
    (the norms, rotations and attention left out: a first estimate, which the queue corrects by what runs)."""
    float32_s, bfloat16_s = timings(lm)
    timed = BENCH_ROWS * sum(w.numel() for w in lm.layer_weights(0, LAYER_WEIGHTS))
    per_layer = sum(w.numel() for w in lm.layer_weights(0, ALL_WEIGHTS))
    count = len(lm.rope.layers) if layers is None else layers
    work = tokens * (count * per_layer + (lm.config["vocab_size"] * lm.config["hidden_size"] if head else 0))
    return (bfloat16_s if precision == "bfloat16" else float32_s) * work / timed
