"""Device choice, numpy conversion, CPU fallback and timing."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import rope_viz.device
from rope_viz.device import describe, get_device, requested_device, to_numpy


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.int64])
def test_to_numpy_float32_c_contiguous(dtype):
    t = torch.arange(12, dtype=torch.float64).reshape(3, 4).to(dtype).T  # non-contiguous view
    assert not t.is_contiguous()
    a = to_numpy(t)
    assert isinstance(a, np.ndarray)
    assert a.dtype == np.float32
    assert a.flags["C_CONTIGUOUS"]
    assert a.shape == (4, 3)
    assert a.tolist() == [[float(4 * c + r) for c in range(3)] for r in range(4)]


def test_to_numpy_detaches_and_copies():
    t = torch.ones(2, 3, requires_grad=True)
    a = to_numpy(t)
    a[0, 0] = 5.0
    assert t[0, 0].item() == 1.0


def test_to_numpy_refuses_complex():
    with pytest.raises(ValueError, match="complex"):
        to_numpy(torch.zeros(3, dtype=torch.complex64))


@pytest.mark.parametrize("value", ["cpu", "CPU", " cpu "])
def test_get_device_env_cpu(monkeypatch, value):
    monkeypatch.setenv("ROPE_VIZ_DEVICE", value)
    assert get_device() == torch.device("cpu")


@pytest.mark.parametrize("value", ["tpu", "gpu", "cuda0x", "bogus"])
def test_get_device_env_bogus(monkeypatch, value):
    monkeypatch.setenv("ROPE_VIZ_DEVICE", value)
    with pytest.raises(ValueError, match="ROPE_VIZ_DEVICE") as err:
        get_device()
    assert value in str(err.value) and "cpu" in str(err.value)  # the value and what is allowed


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_get_device_env_missing_cuda(monkeypatch):
    monkeypatch.setenv("ROPE_VIZ_DEVICE", "cuda")
    with pytest.raises(ValueError, match="ROPE_VIZ_DEVICE"):
        get_device()


def test_get_device_automatic(monkeypatch):
    monkeypatch.delenv("ROPE_VIZ_DEVICE", raising=False)
    dev = get_device()
    assert isinstance(dev, torch.device)
    if torch.cuda.is_available():
        assert dev.type == "cuda"
    elif not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        assert dev.type == "cpu"


def test_requested_device_is_none_unless_the_variable_names_one(monkeypatch):
    monkeypatch.setattr(rope_viz.device, "_available", lambda kind: True)  # as on a machine with CUDA
    monkeypatch.delenv("ROPE_VIZ_DEVICE", raising=False)
    assert requested_device() is None
    assert get_device() == torch.device("cuda")  # heavy work would go there
    monkeypatch.setenv("ROPE_VIZ_DEVICE", "cuda:1")
    assert requested_device() == torch.device("cuda:1") == get_device()


def test_describe_cpu():
    assert describe(torch.device("cpu")) == "cpu"
