"""RoPE Explorer: the router. Page config, the sidebar (language, device, share link), navigation."""

# Plotly imports pandas lazily while it validates a figure: import it whole here, before any page runs,
# so that sessions building their first figures at the same time never see it half-imported.
import pandas  # noqa: F401
import streamlit as st
import torch

import ui
from rope_viz import i18n
from rope_viz.device import describe
from ui.pages import PAGES

st.set_page_config(page_title="RoPE Explorer", page_icon="🌀", layout="wide")
notice_slot = ui.begin_run()
with st.sidebar:
    ui.knob("app", ui.LANG_KNOB, "Language / 语言", format_func=i18n.LANG_NAMES.get)
page = st.navigation([
    st.Page(f"pages/{name}.py", title=ui.t(f"{name}.nav"), icon=icon, url_path=url or None, default=not url)
    for name, url, icon in PAGES
])
with st.sidebar:
    st.caption(ui.t("common.device", device=describe(ui.device())))
if ui.device_fell_back():
    ui.notice(ui.t("common.device_fallback"))
if ui.gpu_failed():
    ui.notice(ui.t("common.gpu_fallback"))
try:
    page.run()
except (torch.OutOfMemoryError, RuntimeError, NotImplementedError):
    # a GPU out of memory, a driver error or an operator the device lacks: redo the run on the CPU
    if not ui.fall_back_to_cpu():
        raise
    st.rerun()
ui.finish_run(notice_slot)
