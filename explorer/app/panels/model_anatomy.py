"""Model anatomy's cached reading and labelled figures: the layer strip of every chosen model, each kind of
layer's wavelengths, the query temperature and DeepSeek-V4's compressed key blocks; and the model menus' option
names, which say when a paste leaves a preset out."""

from __future__ import annotations

from dataclasses import asdict

from explorer.app.cache import cached, figure
from explorer.pure.figures import block_rows, layer_strip, line_chart
from explorer.pure.knobs import format_base
from explorer.app.place import say
from explorer.app.session import plain, t
from explorer.pure.views import model_anatomy as view

anatomy = cached(view.anatomy, max_entries=16)
pasted_shown = cached(view.pasted_shown, max_entries=16)


def menu_option(earlier: tuple, pasted: object):
    """A model menu's format_func: an option it would leave out for want of a place is marked as not shown."""
    def said(value: str) -> str:
        if value == view.NONE:
            return t("model_anatomy.none")
        shown_here = value in view.presets_shown((*earlier, value), pasted)
        return value if shown_here else plain("model_anatomy.not_shown_option", name=value)
    return said


def numbers(names: tuple, config_text: str, context: int) -> list[str]:
    return [say(model.number) for model in anatomy(names, config_text, context).models]


@figure
def strip(names: tuple, config_text: str, context: int):
    found = anatomy(names, config_text, context).strip
    assert found is not None, "the page draws the strip only when a model is shown"
    kinds = {kind: t(f"model_anatomy.kind_{kind}") for kind in found.kind_order}
    scales = {t("model_anatomy.strip_base"): (found.bases, {v: format_base(v) for v in found.base_values}),
              t("model_anatomy.strip_dims"): (found.dims, {float(v): str(v) for v in found.dim_values})}
    return layer_strip(found.kinds, kinds, scales, kind_title=t("model_anatomy.strip_attention"),
                       nothing=t("model_anatomy.strip_no_rope"), x=found.layers,
                       y=numbers(names, config_text, context), title=t("model_anatomy.strip_title"),
                       x_title=t("model_anatomy.layer_axis"))


@figure
def compressed(names: tuple, config_text: str, context: int, index: int, rate: int):
    """DeepSeek-V4's blocks of `rate` tokens for model `index`: where each compressed key is rotated."""
    model = anatomy(names, config_text, context).models[index]
    kind = next(kind for kind in model.compressed or () if kind.rate == rate)
    legend = {part: t(f"model_anatomy.compressed_{part}") for part in ("block", "rotated", "query", "offset")}
    return block_rows([asdict(row) for row in kind.rows], names=legend, x_title=t("model_anatomy.compressed_x"),
                      title=t("model_anatomy.compressed_title", name=numbers(names, config_text, context)[index],
                              rate=rate, kind=t(f"model_anatomy.kind_{kind.attention}")),
                      y_title=t("model_anatomy.compressed_y"))


@figure
def wavelengths(names: tuple, config_text: str, context: int):
    """Each kind of rotary layer's wavelength per pair, for every chosen model, beside the context."""
    curves = anatomy(names, config_text, context).wavelengths
    context_name = t("model_anatomy.context_line", n=context)
    series = {say(label): values for label, values in curves.series}
    return line_chart(curves.pairs, {**series, context_name: curves.context},
                      title=t("model_anatomy.wavelength_title"), x_title=t("model_anatomy.pair_axis"),
                      y_title=t("model_anatomy.wavelength_axis"), log_y=True, dashed=(context_name,))


@figure
def temperature(names: tuple, config_text: str, context: int):
    """The query scale against the position, for every chosen model that has one (the page draws it only
    when one does)."""
    temp = anatomy(names, config_text, context).temperature
    assert temp is not None, "the page draws the temperature only when a model scales its queries"
    return line_chart(temp.positions, {say(label): values for label, values in temp.series},
                      title=t("model_anatomy.temperature_title", n=context),
                      x_title=t("model_anatomy.position_axis"), y_title=t("model_anatomy.scale_axis"))
