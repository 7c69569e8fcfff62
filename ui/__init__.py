"""Streamlit glue shared by the pages: language, URL-backed knobs, notices, charts."""

from .params import BoolKnob, ChoiceKnob, FloatKnob, IntKnob, IntSetKnob, NumberChoiceKnob
from .state import (
    LANG_KNOB,
    begin_run,
    cached,
    chart,
    device,
    device_fell_back,
    fall_back_to_cpu,
    finish_run,
    gpu_failed,
    knob,
    lang,
    notice,
    page_header,
    t,
)

__all__ = ["BoolKnob", "ChoiceKnob", "FloatKnob", "IntKnob", "IntSetKnob", "LANG_KNOB", "NumberChoiceKnob",
           "begin_run", "cached", "chart", "device", "device_fell_back", "fall_back_to_cpu", "finish_run",
           "gpu_failed", "knob", "lang", "notice", "page_header", "t"]
