"""Landing page: what RoPE is, a way into the lesson, and a card for every topic."""

import streamlit as st

import explorer as ui
from explorer.pure.sitemap import PAGES, TOPICS, script
from explorer.app.panels import frequency_clocks as clocks

CARDS_PER_ROW = 3  # Streamlit stacks the columns on a narrow screen
# the clocks shown in motion at once, which the browser plays (no server round-trip): four pairs of a d = 64
# head, from the fastest to a slow one
DIM, BASE, POSITIONS, PAIRS, START = 64, 10000.0, 64, (0, 2, 8, 16), 10

st.title(ui.t("home.title"))
# the way into the lesson, right under the title: on the first screen of a projector (1280x720) and of a
# phone (where the stylesheet draws the clocks right under the title, explorer.app.presenter)
st.markdown(ui.t("home.lesson_intro"))
with st.container(border=True, key="lesson_start"):
    st.page_link(script(TOPICS[0]), label=f"**{ui.t('home.start_lesson')}** · {ui.t(f'{TOPICS[0]}.nav')}",
                 icon=":material/play_circle:", help=ui.t("home.start_lesson_help"))
ui.chart(clocks.clock_figure(DIM, BASE, POSITIONS, PAIRS, START, title="home.motion_title"), key="motion")
ui.explain(ui.t("home.intro"))
st.latex(r"\langle R_m q,\; R_n k\rangle \;=\; q^{\top} R_{n-m}\, k")

st.subheader(ui.t("home.contents"))
topics = [(name, icon) for name, url, icon in PAGES if url]
for row in range(0, len(topics), CARDS_PER_ROW):
    for column, (name, icon) in zip(st.columns(CARDS_PER_ROW), topics[row: row + CARDS_PER_ROW]):
        with column.container(border=True, height="stretch"):
            st.page_link(script(name), label=f"**{ui.t(f'{name}.nav')}**", icon=icon, width="stretch")
            st.caption(ui.t(f"{name}.card"))
st.info(ui.t("home.start"))
