"""A RoPE conformance kit for inference engines: probe inputs per kind of layer, a verdict per kind, and the
known bug that best explains a failure.

    report = rope_viz.conformance.verify("Llama-3.1-8B", fn)   # fn(x, positions, layer) -> rotated x
    report.ok, report.verdicts[0].bug
    rope_viz.conformance.write_probe("Llama-3.1-8B", "probe.safetensors")   # for an engine outside Python
    report = rope_viz.conformance.verify_file("Llama-3.1-8B", "answers.safetensors")
    rope_viz.conformance.assert_conforms("Llama-3.1-8B", fn, layout="interleaved")   # in a test: the table on failure

The files are safetensors, read only through the `safetensors` package (the [toy] extra), imported when a
file is read or written. `python -m rope_viz.conformance probe|verify` is the command line;
`check_gguf` (and `python -m rope_viz.conformance gguf`) reads a GGUF file's RoPE as llama.cpp will run it.
Engines: `rope_viz.conformance.engines.vllm_rotary` / `mlx_rotary` rotate as vLLM's and MLX-LM's own model files
do (each engine imported only there), and `python -m rope_viz.conformance engines` writes the report card of every
preset through each engine (rope_viz.conformance.card).
"""

from .bugs import BUG_CLASSES, LAYOUT_HINT, BugClass, applicable, candidates, pairs_of_bugs, planted, reference
from .files import MAX_FILE_BYTES, answers_bytes, probe_bytes, read_answers, verify_file, write_probe
from .gguf_file import (GGUFHeader, GGUFLayer, GGUFReport, check_gguf, compare_layer, llama_cpp_layers,
                        read_header)
from .probe import ROLES, Kind, Probe, ProbeSet, declare_layout, kinds, load_model, make_probe
from .verify import Profile, Report, Verdict, assert_conforms, judge, verify

__all__ = ["BUG_CLASSES", "BugClass", "GGUFHeader", "GGUFLayer", "GGUFReport", "Kind", "LAYOUT_HINT",
           "MAX_FILE_BYTES", "Probe", "ProbeSet", "Profile", "ROLES", "Report", "Verdict", "answers_bytes",
           "applicable", "assert_conforms", "candidates", "check_gguf", "compare_layer", "declare_layout", "judge",
           "kinds", "llama_cpp_layers", "load_model", "make_probe", "pairs_of_bugs", "planted", "probe_bytes",
           "read_answers", "read_header", "reference", "verify", "verify_file", "write_probe"]
