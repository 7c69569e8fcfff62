"""A device that fails mid-run: the page is redone on the CPU, with a notice instead of a traceback."""

import torch

import explorer.session
from support.apptest import chart_specs, open_page


def test_failing_device_falls_back_to_cpu(monkeypatch):
    # "meta" tensors have shapes but no data: the first copy to numpy fails, as a broken GPU would
    monkeypatch.setattr(explorer.session, "get_device", lambda: torch.device("meta"))
    explorer.session._server_device.clear()
    try:
        at = open_page("relative", {"seq": 64})
        assert not at.exception, [e.value for e in at.exception]
        assert any("CPU" in w.value for w in at.warning)
        assert len(chart_specs(at)) >= 3
        assert "cpu" in " ".join(c.value for c in at.sidebar.caption).lower()
    finally:
        explorer.session._server_device.clear()
