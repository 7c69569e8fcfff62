"""Landing page: what RoPE is, and what each page shows."""

import streamlit as st

import explorer as ui
from explorer.pages import PAGES, script

ui.enter()
ui.page_header("home")
st.latex(r"\langle R_m q,\; R_n k\rangle \;=\; q^{\top} R_{n-m}\, k")
st.subheader(ui.t("home.pages"))
for name, _, _ in PAGES[1:]:
    st.page_link(script(name), label=f"**{ui.t(f'{name}.nav')}**: {ui.t(f'home.page_{name}')}")
st.info(ui.t("home.start"))
