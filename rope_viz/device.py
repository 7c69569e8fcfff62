"""Where tensors live: CUDA when available, then Apple's MPS, else the CPU."""

from __future__ import annotations

import os

import numpy as np
import torch

ENV_VAR = "ROPE_VIZ_DEVICE"


def _available(kind: str) -> bool:
    if kind == "cuda":
        return torch.cuda.is_available()
    if kind == "mps":
        return bool(getattr(torch.backends, "mps", None)) and torch.backends.mps.is_available()
    return kind == "cpu"


def requested_device() -> torch.device | None:
    """The device ROPE_VIZ_DEVICE=cpu|cuda|cuda:N|mps names, or None when it is unset; a ValueError
    when it names no device, or one this machine does not have."""
    wanted = os.environ.get(ENV_VAR, "").strip().lower()
    if not wanted:
        return None
    kind = wanted.split(":", 1)[0]
    if kind not in ("cpu", "cuda", "mps"):
        raise ValueError(f"{ENV_VAR}={wanted!r} is not a device; use cpu, cuda, cuda:N or mps")
    if not _available(kind):
        raise ValueError(f"{ENV_VAR}={wanted!r} asks for a device this machine does not have")
    return torch.device(wanted)


def get_device() -> torch.device:
    """The fastest device here: ROPE_VIZ_DEVICE when set, else CUDA, then MPS, else the CPU."""
    requested = requested_device()
    if requested is not None:
        return requested
    for kind in ("cuda", "mps"):
        if _available(kind):
            return torch.device(kind)
    return torch.device("cpu")


def describe(device: torch.device) -> str:
    """A short human-readable name, with the GPU model for CUDA."""
    if device.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(device)})"
    return device.type


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()


def to_numpy(t: torch.Tensor) -> np.ndarray:
    """A float32, C-contiguous numpy copy for plotting (complex tensors are refused)."""
    if t.is_complex():
        raise ValueError("to_numpy takes real tensors; pass .real, .imag or .abs() of a complex one")
    return np.array(t.detach().to("cpu", torch.float32).numpy(), order="C")  # always a copy
