"""`python -m bench conformance`: how long the RoPE conformance kit takes for three presets.

Per preset, the median over rounds of: writing the probe file (probe inputs for every kind of layer and the
safetensors bytes), judging the reference's answers (every kind passes: no candidate is tried), and judging
answers with a bug planted (the failing kind is compared with every known bug). The planted answers come
from rope_viz.conformance.planted, computed before the clock starts. Wall-clock times on a shared machine
are noisy: compare the columns with each other, not across runs. Each preset is timed with torch's default
thread count and with one thread: the probe's tensors are small (hundreds of rows), and on a busy machine
waiting for a second thread costs more than the work.
"""

from __future__ import annotations

import statistics
import time

import torch

from rope_viz import conformance
from rope_viz.conformance.verify import as_answer

PRESETS = (("Llama-3.1-8B", "scaling"), ("google/gemma-3-1b-it", "base"), ("DeepSeek-V3", "rotated_dims"))


def _answers(probe, fn) -> dict:
    return {(i, role): as_answer(fn(getattr(s, role), s.positions, s.layer), getattr(s, role).shape, role)
            for i, s in enumerate(probe.sets) for role in conformance.ROLES}


def _timed(rounds: int, call, *args) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        call(*args)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def run(rounds: int = 3) -> dict:
    rows = []
    default_threads = torch.get_num_threads()
    print(f"{'preset':<24}{'threads':>8}{'kinds':>6}{'probe rows':>12}{'file MB':>9}{'probe s':>9}"
          f"{'verify pass s':>15}{'verify bug s':>14}  diagnosis")
    try:
        for name, bug in PRESETS:
            probe = conformance.make_probe(name)
            reference = _answers(probe, conformance.reference(probe))
            planted = _answers(probe, conformance.planted(probe, bug))
            report = conformance.judge(probe, planted)
            found = next(f"{v.bug} ({v.detail})" for v in report.verdicts if not v.ok)
            for threads in sorted({default_threads, 1}, reverse=True):
                torch.set_num_threads(threads)
                row = {"preset": name, "threads": threads, "kinds": len(probe.kinds),
                       "rows": sum(len(s.query) for s in probe.sets), "file_bytes": len(conformance.probe_bytes(probe)),
                       "probe_s": _timed(rounds, conformance.probe_bytes, name),
                       "verify_pass_s": _timed(rounds, conformance.judge, probe, reference),
                       "verify_bug_s": _timed(rounds, conformance.judge, probe, planted), "planted": bug,
                       "diagnosis": found}
                rows.append(row)
                print(f"{name:<24}{threads:>8}{row['kinds']:>6}{row['rows']:>12}{row['file_bytes'] / 1e6:>9.2f}"
                      f"{row['probe_s']:>9.2f}{row['verify_pass_s']:>15.2f}{row['verify_bug_s']:>14.2f}  {found}",
                      flush=True)
    finally:
        torch.set_num_threads(default_threads)
    return {"default_threads": default_threads, "rounds": rounds, "rows": rows, "targets": []}
