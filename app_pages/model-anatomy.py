"""Model anatomy: one to three real models (presets or a pasted config.json) layer by layer: where RoPE turns
and where nothing does, which attention each layer runs, its base and rotated dims, the query temperature,
latent attention's shared rotated key, and the traps, each with its numbers."""

import streamlit as st

import explorer as ui
from explorer.app.glossary import glossary
from explorer.app.place import bullets, metric_row, paragraphs, say, table
from explorer.app.panels import model_anatomy as panels
from explorer.pure.views import model_anatomy as view

PAGE = "model_anatomy"
def length(n: int) -> str:
    return f"{n:,}"


# the first screen: the title, the knobs (the paste box folded) and the layer strip; the introduction follows
st.title(ui.t(f"{PAGE}.title"))
top = st.columns(4)
with st.expander(ui.t("model_anatomy.paste_header"), icon=":material/content_paste:"):
    config_text = ui.knob(PAGE, "config")
pasted = panels.pasted_shown(config_text)  # a shown paste takes a place: the menus say which preset it left out


names: tuple = ()
for i in (1, 2, 3):
    names += (ui.knob(PAGE, f"model{i}", where=top[i - 1], format_func=panels.menu_option(names, pasted)),)
context = ui.knob(PAGE, "context", where=top[3], format_func=length)
data = panels.anatomy(names, config_text, context)
if data.refused is not None:  # answered next to the box, not at the top of the page
    st.warning(ui.t("model_anatomy.config_refused", detail=data.refused), icon=":material/block:")
if data.dropped:
    dropped = ui.t("common.list_sep").join(data.dropped)
    st.info(ui.t("model_anatomy.presets_dropped", names=dropped, most=view.MAX_MODELS), icon=":material/info:")
models = data.models
if not models:
    st.info(ui.t("model_anatomy.no_models"))
    st.stop()
labels = [say(model.label) for model in models]


ui.chart(panels.strip(names, config_text, context), key="strip")
st.caption(ui.t("model_anatomy.strip_caption"))
ui.explain(ui.t(f"{PAGE}.intro"))
for model in models:
    st.markdown(say(model.summary))
    if model.learned:
        st.caption(say(model.learned))
    if model.unchecked:
        st.info(ui.t("model_anatomy.unchecked"))

st.subheader(ui.t("model_anatomy.wavelength_header"))
ui.chart(panels.wavelengths(names, config_text, context), key="wavelengths")
st.markdown(ui.t("model_anatomy.wavelength_text"))
for label, model in zip(labels, models):
    for kind in model.kinds:
        st.caption(ui.t("model_anatomy.kind_line", name=label, kind=ui.t(f"model_anatomy.kind_{kind.attention}"),
                        count=kind.count, base=ui.format_base(kind.base), rope_type=kind.rope_type,
                        rotary_dim=kind.rotary_dim, head_dim=kind.head_dim, layout=kind.layout,
                        factor=f"{kind.attention_factor:.4f}", shortest=f"{kind.shortest:,.1f}",
                        longest=f"{kind.longest:,.0f}"))

st.subheader(ui.t("model_anatomy.temperature_header"))
if data.temperature is None:
    st.markdown(ui.t("model_anatomy.no_temperature"))
else:
    ui.chart(panels.temperature(names, config_text, context), key="temperature")
st.markdown(ui.t("model_anatomy.temperature_text"))
st.latex(r"s(m) = 1 + a\,\ln\!\Big(1 + \Big\lfloor \frac{m + 1}{F} \Big\rfloor\Big),\qquad "
         r"s'(m) = 1 + \beta\,\ln\!\Big(1 + \Big\lfloor \frac{m}{L} \Big\rfloor\Big)")

st.subheader(ui.t("model_anatomy.mla_header"))
latent = [(label, model.latent) for label, model in zip(labels, models) if model.latent is not None]
for label, metrics in latent:
    st.markdown(ui.t("model_anatomy.mla_model", name=label))
    metric_row(metrics)
st.markdown(ui.t("model_anatomy.mla_text" if latent else "model_anatomy.no_mla"))

if any(model.compressed for model in models):  # DeepSeek-V4: where its compressed keys turn, its output turned back
    st.subheader(ui.t("model_anatomy.compressed_header"))
    st.markdown(ui.t("model_anatomy.compressed_text"))
    for index, model in enumerate(models):
        for kind in model.compressed or ():
            ui.chart(panels.compressed(names, config_text, context, index, kind.rate),
                     key=f"compressed{index}_{kind.rate}")
            paragraphs(row.line for row in kind.rows)
    st.subheader(ui.t("model_anatomy.derotation_header"))
    st.markdown(ui.t("model_anatomy.derotation_text"))
    for label, model in ((label, model) for label, model in zip(labels, models) if model.derotation):
        st.markdown(ui.t("model_anatomy.mla_model", name=label))
        table(view.derotation_columns(model.derotation))

st.subheader(ui.t("model_anatomy.traps_header"))
for label, model in zip(labels, models):
    st.markdown(ui.t("model_anatomy.mla_model", name=label))
    bullets(model.traps)
st.markdown(ui.t("model_anatomy.transformers_note"))
glossary("pair", "wavelength")
ui.questions(PAGE)
