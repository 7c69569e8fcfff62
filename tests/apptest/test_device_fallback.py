"""Where pages compute: on the CPU even beside a GPU; and a device that fails mid-run: the page is redone on
the CPU, with a notice instead of a traceback."""

import torch

import explorer.app.session
import rope_viz.device
from support.apptest import chart_specs, open_page


def test_failing_device_falls_back_to_cpu(monkeypatch):
    # "meta" tensors have shapes but no data: the first copy to numpy fails, as a broken GPU would
    monkeypatch.setattr(explorer.app.session, "requested_device", lambda: torch.device("meta"))
    explorer.app.session._server_device.clear()
    try:
        at = open_page("relative_attention", {"seq": 64})
        assert not at.exception, [e.value for e in at.exception]
        assert any("CPU" in w.value for w in at.warning)
        assert len(chart_specs(at)) >= 3
        assert "cpu" in " ".join(c.value for c in at.sidebar.caption).lower()
    finally:
        explorer.app.session._server_device.clear()


def test_pages_compute_on_the_cpu_beside_a_gpu(monkeypatch):
    monkeypatch.setattr(rope_viz.device, "_available", lambda kind: True)  # CUDA and MPS, as far as it knows
    monkeypatch.delenv("ROPE_VIZ_DEVICE", raising=False)
    explorer.app.session._server_device.clear()
    try:
        at = open_page("implementation_forms", {})
        assert not at.exception, [e.value for e in at.exception]
        captions = " ".join(c.value for c in at.sidebar.caption).lower()
        assert "cpu" in captions and "cuda" not in captions
    finally:
        explorer.app.session._server_device.clear()
