"""Check your understanding: two or three short questions at the end of a topic page, answered in place.

A page ends with `ui.questions(PAGE, **knob_values)`. Its questions are declared here, in `QUESTIONS`,
and their text lives in explorer/pure/text/<lang>/quiz.toml under `<page>_<name>` (the question), `<page>_<name>_why`
(the one-line explanation) and, for a question in words, `<page>_<name>_1` (the right answer), `_2`, `_3`, ...
(wrong ones). Every one of them is a format string (a literal brace is doubled, as in `$e^{{i\\theta}}$`)
and Markdown with $...$ math; the values filled in go through `explorer.pure.safe_text.shown`, so anything that
is not plainly a number shows as text. A question with numbers is generated from the page's own knobs: its
`numbers` function computes the right answer with the core (`rope_viz`) and plausible wrong ones (other pairs' values, a
sign slip, a forgotten factor), so the answer is right for every knob setting.

The visitor's choice lives only in the session's widget state (a radio with no preselection): it is never
written to the link, and nothing is stored anywhere else. Options are shown in a fixed order that does
not always put the right answer first.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field
from collections.abc import Callable

import streamlit as st

from rope_viz import alibi_slopes, angles, decay_bound, spacing, wavelengths
from rope_viz.axial import patch_grid
from rope_viz.complex2d import complex_multiply, from_polar, to_polar
from rope_viz.toy import TrainConfig
from rope_viz.toy.runner import GRID4_ARCH

from explorer.pure.safe_text import AppText, shown
from explorer.app.session import t
from explorer.pure.text import STRINGS

OPTIONS = 4  # choices shown for a question with numbers
GRID4_DIM, GRID4_BASE = GRID4_ARCH["d_model"] // GRID4_ARCH["n_heads"], TrainConfig().base  # the designs page's models
FALLBACKS = (math.pi, 2 * math.pi, 0.5, 2.0, 10.0)  # wrong choices of last resort, when the knobs make the others equal


@dataclass(frozen=True)
class Numbers:
    """A question with numbers: the values its text needs, the right answer and the wrong candidates in
    order of preference (the first that look different once formatted are used), and the format."""

    values: dict
    answer: float
    wrong: tuple
    format: str = "{:,.4g}"

    def options(self) -> tuple[tuple[str, ...], int]:
        """(the formatted options, all different, right one first; the index of the right one = 0)."""
        shown = [self.format.format(self.answer + 0.0)]
        for candidate in (*self.wrong, *FALLBACKS):
            label = self.format.format(candidate + 0.0)  # + 0.0: no "-0"
            if math.isfinite(candidate) and label not in shown:
                shown.append(label)
            if len(shown) == OPTIONS:
                break
        return tuple(shown), 0


@dataclass(frozen=True)
class Question:
    """One question of a page: `name` names its text; `numbers`, for a question with numbers, takes the
    page's knob values and returns its `Numbers`."""

    name: str
    numbers: Callable[..., Numbers] | None = field(default=None)


@dataclass(frozen=True)
class Asked:
    """A question as shown: its text, its options, which one is right, and why."""

    key: str
    prompt: str
    options: tuple[str, ...]
    answer: int
    why: str


# --- the questions with numbers: right answers from the core, wrong ones plausible ---------------------

def full_turn(dim: int, base: float, **_) -> Numbers:
    """Positions a pair needs for a full turn, 2π/θ_i, for a pair a quarter of the way down (pair 8 at d = 64)."""
    waves = wavelengths(dim, base).tolist()
    pair = len(waves) // 4
    others = [waves[j] for j in (pair + 1, pair - 1, pair + 2, pair - 2, 0, len(waves) - 1) if 0 <= j < len(waves)]
    theta = 2 * math.pi / waves[pair]
    return Numbers({"dim": dim, "base": f"{base:,.0f}", "i": pair}, waves[pair],
                   (*others, theta, waves[pair] / (2 * math.pi), waves[pair] * 2), "{:,.1f}")


def relative_angle(m: int, n: int, dim: int, base: float, pair: int, **_) -> Numbers:
    """The angle left between the key at n and the query at m for one pair: (n − m)·θ_pair."""
    turned = angles([n - m, m + n, m, n], dim, base)[:, pair].tolist()
    return Numbers({"m": m, "n": n, "i": pair}, turned[0], (-turned[0], *turned[1:], turned[0] + 1.0), "{:.4f}")


def product_length(a: float, b: float, w_mod: float, w_angle: int, **_) -> Numbers:
    """|z·w| for the page's z = a + bi and w = |w| e^{i angle}: the lengths multiply."""
    w = from_polar(w_mod, math.radians(w_angle))
    length = to_polar(complex_multiply((a, b), w))[0]
    z_length = to_polar((a, b))[0]
    return Numbers({"a": a, "b": b, "w_mod": w_mod, "w_angle": w_angle}, length,
                   (z_length + w_mod, z_length, abs(a * w[0] + b * w[1]), length ** 2, length + 1.0), "{:.3f}")


def first_coordinate(q1: float, q2: float, theta: float, m: int, **_) -> Numbers:
    """The first entry of q = [q1, q2] turned by m·θ (the worked example): q1 cos mθ − q2 sin mθ."""
    from explorer.pure.views.implementation_forms import worked_rotation

    turned = worked_rotation(q1, q2, theta, m)
    once = worked_rotation(q1, q2, theta, 1)  # the position forgotten
    cos, sin = turned.cos, turned.sin
    return Numbers({"q1": q1, "q2": q2, "theta": theta, "m": m}, turned.result[0],
                   (q1 * cos + q2 * sin, turned.result[1], once.result[0], -turned.result[0],
                    turned.result[0] + 1.0), "{:.4f}")


def bound_at_zero(dim: int, base: float, **_) -> Numbers:
    """RoFormer's decay bound at distance 0, (d/2 + 1)/2, for the page's d."""
    at_zero = float(decay_bound(dim, base, [0])[0])
    return Numbers({"dim": dim}, at_zero, (dim / 2, dim / 4, 1.0, float(dim), at_zero + 1.0), "{:,.1f}")


def bf16_gap(start: int, **_) -> Numbers:
    """The gap between neighbouring bfloat16 numbers around the staircase's first position: spacing(start)."""
    position = max(int(start), 1)  # position 0 has no neighbours below it: ask about position 1 instead
    gap = spacing(position, "bfloat16")
    return Numbers({"start": f"{position:,}"}, gap,
                   (spacing(position, "float32"), spacing(position, "float16"), gap / 2, gap * 2, 1.0), "{:,.4g}")


def raster_rows(width: int, height: int, **_) -> Numbers:
    """In raster order (row by row), the ids of two vertically adjacent patches differ by the image's width."""
    rows, cols = patch_grid(2, width)
    ids = {(int(r), int(c)): j for j, (r, c) in enumerate(zip(rows.tolist(), cols.tolist()))}
    step = ids[(1, 0)] - ids[(0, 0)]
    return Numbers({"width": width, "height": height}, step,
                   (1, height, width + 1, width - 1, width * height), "{:,.0f}")


def alibi_first_slope(heads: int, **_) -> Numbers:
    """ALiBi's slope for head 1, the steepest, with the page's number of heads."""
    slopes = alibi_slopes(heads).tolist()
    return Numbers({"heads": heads}, slopes[0],
                   (2 ** (-8 / heads), *slopes[1:2], slopes[-1], 1 / heads, 2 ** -8, 1 / 2 ** heads), "{:.4g}")


def full_turns(dim: int = GRID4_DIM, base: float = GRID4_BASE, train_len: int = GRID4_ARCH["train_len"],
               **_) -> Numbers:
    """How many pairs of a head complete a full turn within the training length: wavelength ≤ train_len − 1
    (the page passes its shipped four-layer models' d, base and training length; the grid's by default)."""
    waves = wavelengths(dim, base).tolist()
    turned = sum(w <= train_len - 1 for w in waves)
    return Numbers({"dim": dim, "base": f"{base:,.0f}", "n": train_len, "pairs": len(waves)}, turned,
                   (len(waves) // 4, turned + 1, len(waves), turned - 1, sum(w <= 2 * train_len for w in waves)),
                   "{:,.0f}")


QUESTIONS: dict[str, tuple[Question, ...]] = {
    "complex_numbers": (Question("times_i"), Question("product_length", product_length), Question("conjugate")),
    "frequency_clocks": (Question("fastest"), Question("full_turn", full_turn), Question("length")),
    "phase_cancellation": (Question("shift_both"), Question("relative_angle", relative_angle), Question("transpose")),
    "relative_attention": (Question("shift_all"), Question("diagonals"), Question("causal")),
    "implementation_forms": (Question("first_coordinate", first_coordinate), Question("values"), Question("layouts")),
    "rope_vs_sinusoidal": (Question("cross_terms"), Question("pe_product")),
    "long_term_decay": (Question("bound_at_zero", bound_at_zero), Question("monotone")),
    "linear_attention": (Question("denominator"), Question("cost")),
    "long_context": (Question("pi_wavelength"), Question("ntk_fastest")),
    "model_anatomy": (Question("no_rope_layers"), Question("layout"), Question("latent_key")),
    "real_models": (Question("shift"), Question("precision_start")),
    "precision": (Question("bf16_gap", bf16_gap), Question("collapse")),
    "images_and_video": (Question("raster_rows", raster_rows), Question("axial_shift")),
    "distance_biases": (Question("alibi_first_slope", alibi_first_slope), Question("shift_both")),
    "trained_models": (Question("inference_scaling"), Question("nope_order")),
    "rope_designs": (Question("full_turns", full_turns), Question("quarter"), Question("layout")),
}


def _order(key: str, count: int) -> list[int]:
    """A fixed shuffle of `count` options for question `key`: the right answer (index 0) moves around."""
    first = zlib.crc32(key.encode()) % count
    return [(first + j) % count for j in range(count)][::-1] if count > 2 else [first, 1 - first]


def _said(key: str, lang: str, **values) -> AppText:
    """The quiz text `quiz.<key>` in `lang`: the app's own Markdown, each value filled in as text."""
    return AppText(STRINGS[lang][f"quiz.{key}"].format(**{name: shown(v) for name, v in values.items()}))


def _word_options(key: str, lang: str) -> tuple[str, ...]:
    options, j = [], 1
    while f"quiz.{key}_{j}" in STRINGS[lang]:
        options.append(_said(f"{key}_{j}", lang))
        j += 1
    return tuple(options)


def ask(page: str, question: Question, knobs: dict, lang: str) -> Asked:
    """The question in `lang` for these knob values (pure: no Streamlit, for the tests as well). Its texts
    are the app's own (`AppText`): a box that fills them in keeps their Markdown and math."""
    key = f"{page}_{question.name}"
    if question.numbers is not None:
        numbers = question.numbers(**knobs)
        options, _ = numbers.options()
        options, values = tuple(AppText(option) for option in options), numbers.values
    else:
        options, values = _word_options(key, lang), {}
    order = _order(key, len(options))
    return Asked(key=key, prompt=_said(key, lang, **values), options=tuple(options[j] for j in order),
                 answer=order.index(0), why=_said(f"{key}_why", lang, answer=options[0], **values))


def questions(page: str, **knobs) -> None:
    """The page's questions, each a radio with no preselection and, once answered, the verdict and why."""
    from explorer.app.session import lang

    asked_here = QUESTIONS.get(page, ())
    if not asked_here:
        return
    st.subheader(t("quiz.header"))
    for question in asked_here:
        asked = ask(page, question, knobs, lang())
        # the knob values (and the language) are part of the key: a new question starts unanswered
        signature = "_".join(str(v) for v in (lang(), *asked.options))
        key = f"quiz.{asked.key}.{zlib.crc32(signature.encode())}"
        choice = st.radio(asked.prompt, asked.options, index=None, key=key)
        if choice is None:
            continue
        verdict(asked, asked.options.index(choice))


def verdict(asked: Asked, chosen: int) -> None:
    """The box under an answered question: right or not, the right answer, and why (the app's Markdown
    and math; a value that is not the app's own text in its place would show as text)."""
    if chosen == asked.answer:
        st.success(t("quiz.right", why=asked.why), icon=":material/check_circle:")
    else:
        st.error(t("quiz.wrong", answer=asked.options[asked.answer], why=asked.why), icon=":material/cancel:")
