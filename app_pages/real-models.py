"""RoPE in real models: SmolLM2-135M and Gemma 3 270M read a text (an example or the visitor's own); every number is
measured in the model: predictions, attention, relativity, where heads look, rotary pairs' shares, the traps."""

import streamlit as st

import explorer as ui
from explorer.app.place import bullets, knob_row, metric_row, named, paragraphs, say
from explorer.app.panels import real_models as panels
from explorer.pure.views import real_models as view
from explorer.pure.views.phrases import metric
from explorer.app import host
from rope_viz.real import SOURCES, installed, loaded
from rope_viz.real.measure import PRECISION_START

PAGE = "real_models"
st.title(ui.t(f"{PAGE}.title"))
name, example = knob_row(PAGE, "model", "example", model={"format_func": lambda n: SOURCES[n].label},
                         example={"format_func": named("real_models.example_")})
with st.expander(ui.t("real_models.own_header"), icon=":material/edit_note:"):
    own = ui.knob(PAGE, "text")
    st.button(ui.t("real_models.apply_text"), help=ui.t("real_models.apply_text_help"), icon=":material/check:",
              key="real_models_apply")  # its click ends the box's editing, and the rerun reads the text
with panels.body(name, own, example):  # another view starts afresh: the last one's results vanish at once
    label, spare = SOURCES[name].label, host.spare_memory_bytes() / 1e9
    fits = loaded(name) or spare >= view.NEEDS_GB[name]
    ready = installed(name) and fits
    tokens = len(panels.reading(name, own).ids) if own.strip() and ready else view.MIN_TOKENS
    if tokens < view.MIN_TOKENS:
        st.warning(ui.t("real_models.too_short" if tokens != 1 else "real_models.too_short_one", tokens=tokens,
                        least=view.MIN_TOKENS), icon=":material/short_text:")
    text = own if own.strip() and tokens >= view.MIN_TOKENS else view.EXAMPLES[example]
    if not installed(name):
        st.warning(ui.t("real_models.missing", model=label, pip=SOURCES[name].pip), icon=":material/download:")
    elif not fits:
        st.warning(ui.t("real_models.no_memory", model=label, need=f"{view.NEEDS_GB[name]:.2f}", spare=f"{spare:.2f}"),
                   icon=":material/memory:")
    if not ready and not panels.available(name, text):
        st.stop()
    reading = recorded.reading if (recorded := panels.record(name, text)) else panels.reading(name, text)
    if text == own:
        st.caption(ui.t("real_models.own_used"))
    said = panels.section("said", name, text)
    if reading.cut:
        st.info(ui.t("real_models.cut", chars=f"{reading.chars:,}", tokens=f"{reading.tokens:,}",
                     max_chars=f"{view.MAX_CHARS:,}", max_tokens=view.MAX_TOKENS, kept=len(reading.ids),
                     last=view.token_label(said.tokens[-1], 24)), icon=":material/content_cut:")

    layers_facts = panels.facts(name, text)
    layers, heads = len(layers_facts), panels.heads(name, text)
    with st.container(key="knobs_first"):  # on a phone and a projector too, the map's knobs stay above it
        layer, head = knob_row(PAGE, "layer", "head", layer={"hi": layers - 1}, head={"hi": heads - 1})
    if ready:
        panels.attention_map(name, reading.ids, layer)
        ui.chart(panels.attention(name, text, layer, head), key="attention")
        st.caption(ui.t("real_models.map_caption"))
    st.markdown(say(view.summary(said)))
    ui.explain(ui.t(f"{PAGE}.intro", model=label))
    with st.expander(ui.t("real_models.table_header"), icon=":material/table:"):
        st.dataframe(panels.predictions_table(name, text), hide_index=True, height=320)

    st.subheader(ui.t("real_models.strip_header"))
    ui.chart(panels.strip(name, text), key="strip")
    paragraphs(view.anatomy_lines(layers_facts))

    st.subheader(ui.t("real_models.roles_header"))
    looks = panels.section("looks", name, text)
    ui.chart(panels.roles(name, text), key="roles")
    st.markdown(say(view.roles_line(looks)))
    ui.chart(panels.offsets(name, text, layer), key="offsets")
    st.markdown(say(view.profile_line(looks, layers_facts, layer)))
    st.caption(ui.t("real_models.bound_caption", reach=view.MAX_OFFSET))

    st.subheader(ui.t("real_models.shares_header"))
    ui.chart(panels.shares(name, text, layer), key="shares")
    if len(view.by_kind(looks, layers_facts)) > 1:
        ui.chart(panels.kinds(name, text), key="kinds")
    paragraphs(view.shares_lines(looks, layers_facts, layer))

    st.subheader(ui.t("real_models.relativity_header"))
    shift = ui.knob(PAGE, "shift", format_func=lambda v: f"{v:,}")
    r = panels.relativity_at(name, text, shift if ready else view.SHIFT)
    metric_row([metric("real_models.residual_shift", f"{r.residual_shift:.1e}"),
                metric("real_models.residual_doubled", f"{r.residual_doubled:.2f}"),
                metric("real_models.loss_doubled", view.loss_text(r.loss_doubled), loss=view.loss_text(r.loss)),
                metric("real_models.top1_doubled", f"{r.top1_doubled:.0%}")])
    paragraphs(view.relativity_lines(r))
    st.markdown(ui.t("real_models.relativity_text"))

    st.subheader(ui.t("real_models.traps_header"))
    asked = ui.knob(PAGE, "traps") or text != own or not ready or not panels.traps_on_demand(name, text)
    if text == own and ((few := host.cores()) < view.MIN_CORES or not asked):
        st.info(panels.skipped_line(name, text, few), icon=":material/speed:")
        ui.questions(PAGE)
        st.stop()
    done = panels.section("interventions", name, text)
    metric_row([metric("real_models.loss_all", view.loss_text(done.stopped.loss), precision=done.precision),
                metric("real_models.loss_fastest", view.loss_text(done.stopped.fastest)),
                metric("real_models.loss_slowest", view.loss_text(done.stopped.slowest))])
    paragraphs(view.stopped_lines(done.stopped))
    trap_layer = ui.knob(PAGE, "trap_layer", hi=layers - 1)
    live = trap_layer != view.TRAP_LAYER and ready
    no_rope = panels.without_rope_in(name, reading.ids, trap_layer) if live else None
    shown_layer = trap_layer if live or trap_layer == view.TRAP_LAYER else view.TRAP_LAYER
    ui.chart(panels.traps(name, text, shown_layer, no_rope), key="traps")
    bullets(view.trap_line(trap, shown_layer) for trap in view.traps(done, no_rope) if trap.trap != "none")
    st.markdown(ui.t("real_models.traps_text", start=f"{PRECISION_START:,}", precision=done.precision))

    st.subheader(ui.t("real_models.long_header"))
    panels.past_the_context(name)
    spacing = ui.knob(PAGE, "spacing")
    if spacing > 1 and ready:
        spaced = panels.spaced_losses(name, reading.ids, spacing)
        metric_row([metric("real_models.unspaced", view.loss_text(done.stopped.loss)),
                    *(metric(f"real_models.method_{method}", view.loss_text(loss)) for method, loss in spaced.items())])
    st.markdown(ui.t("real_models.spaced_text", spacing=spacing, last=f"{(len(reading.ids) - 1) * spacing:,}")
                if spacing > 1 else ui.t("real_models.spaced_text_off"))
    ui.questions(PAGE)
