"""Landing page: what RoPE is, a way into the lesson, and a card for every topic."""

import streamlit as st

import explorer as ui
from explorer.pages import PAGES, TOPICS, script

CARDS_PER_ROW = 3  # Streamlit stacks the columns on a narrow screen

ui.enter()
ui.page_header("home")
st.latex(r"\langle R_m q,\; R_n k\rangle \;=\; q^{\top} R_{n-m}\, k")
st.markdown(ui.t("home.lesson_intro"))
with st.container(border=True, key="lesson_start"):
    st.page_link(script(TOPICS[0]), label=f"**{ui.t('home.start_lesson')}** · {ui.t(f'{TOPICS[0]}.nav')}",
                 icon=":material/play_circle:", help=ui.t("home.start_lesson_help"))

st.subheader(ui.t("home.contents"))
topics = [(name, icon) for name, url, icon in PAGES if url]
for row in range(0, len(topics), CARDS_PER_ROW):
    for column, (name, icon) in zip(st.columns(CARDS_PER_ROW), topics[row: row + CARDS_PER_ROW]):
        with column.container(border=True, height="stretch"):
            st.page_link(script(name), label=f"**{ui.t(f'{name}.nav')}**", icon=icon, width="stretch")
            st.caption(ui.t(f"home.page_{name}"))
st.info(ui.t("home.start"))
