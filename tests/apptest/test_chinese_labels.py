"""Chinese pages say everything in Chinese: on every topic page, opened in Chinese, no English word is left
in a chart title, an axis title, a subplot title, a legend name, an animation frame's title, a \\text{}
label of a formula, a metric's label or a knob's label. Symbols and names are allowed (RoPE, softmax, d,
base, ...)."""

import json
import re

import pytest

from explorer.pure.sitemap import TOPICS
from explorer.pure.views.engines_today import CARD
from support.apptest import charts, opened

KNOBS = ("slider", "select_slider", "selectbox", "multiselect", "radio", "checkbox", "toggle", "number_input",
         "text_input", "button")
# names and symbols that stay as they are in Chinese text
ALLOWED = {"rope", "softmax", "alibi", "elu", "relu", "base", "toeplitz", "float32", "float64", "cos", "sin", "exp",
           "mod", "max", "min", "re", "im", "rad", "cpu", "cuda", "gpu", "mps", "sub", "sup", "br", "phi", "theta",
           "pi", "ms", "log", "ln", "id", "qk", "pe", "bi", "zw", "iz", "arg", "logit", "roformer", "ntk", "yarn",
           "llama",
           "nope", "xpos", "t5", "bfloat16", "float16", "bf16", "fp16", "fp32", "fp64",
           "l2",  # the L2 norm, a symbol
           # model names stay as their makers write them
           "smollm2", "smollm3", "deepseek", "v3", "qwen", "qwen3", "gemma", "kimi", "mistral", "ministral", "glm"}
# the kit's presets and the engines it checks are names as their makers write them ("Phi-3-mini-128k-instruct (July
# 2024 update)", "MLX-LM"), kept whole in the engines card's chart titles; longest first, so a name inside another goes
_RECORDED = json.loads(CARD.read_text(encoding="utf-8"))
NAMES = re.compile("|".join(re.escape(name) for name in sorted(
    {row["preset"] for row in _RECORDED["presets"]} | set(_RECORDED["engines"]), key=len, reverse=True)))
WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")
# markup, LaTeX commands (\\top, \\max) and identifiers with an underscore (W_q, max_distance) are not words
NOT_WORDS = re.compile(r"<[^>]+>|\\[A-Za-z]+|[A-Za-z0-9]*_[A-Za-z0-9_{}]*")
LANGUAGE_SWITCH = "Language / 语言"  # the switch names itself in both languages, so that either reader finds it


def english_words(text: str) -> list[str]:
    text = NAMES.sub(" ", (text or "").replace("<br>", " "))
    return [w for w in WORD.findall(NOT_WORDS.sub(" ", text)) if w.lower() not in ALLOWED]


def latex_labels(source: str) -> list[str]:
    """The contents of every \\text{...} in a LaTeX source (one level of braces)."""
    return re.findall(r"\\text\{((?:[^{}]|\\[{}])*)\}", source)


def chart_labels(spec: dict) -> list[str]:
    layout = spec.get("layout", {})
    labels = [(layout.get("title") or {}).get("text", "")]
    for name, axis in layout.items():
        if re.fullmatch(r"[xy]axis\d*", name) and isinstance(axis, dict):
            labels.append((axis.get("title") or {}).get("text", ""))
    labels += [note.get("text", "") for note in layout.get("annotations", [])]
    for trace in spec.get("data", []):
        if trace.get("showlegend", True) is not False:
            labels.append(trace.get("name", ""))
        labels.append(((trace.get("colorbar") or {}).get("title") or {}).get("text", ""))
    labels += [((frame.get("layout") or {}).get("title") or {}).get("text", "") for frame in spec.get("frames", [])]
    return labels


@pytest.mark.parametrize("page", TOPICS)
def test_no_english_word_in_chinese_labels(page):
    at = opened(page, lang="zh")
    left = {}
    for key, spec in charts(at).items():
        for label in chart_labels(spec):
            if english_words(label):
                left[f"chart {key}: {label}"] = english_words(label)
    for formula in at.get("latex") if hasattr(at, "get") else []:
        for label in latex_labels(formula.value):
            if english_words(label):
                left[f"formula: {label}"] = english_words(label)
    for metric in at.metric:
        if english_words(metric.label):
            left[f"metric: {metric.label}"] = english_words(metric.label)
    for kind in KNOBS:
        for knob in at.get(kind):
            if knob.label != LANGUAGE_SWITCH and english_words(knob.label):
                left[f"{kind}: {knob.label}"] = english_words(knob.label)
    assert not left, left


def test_the_check_finds_english():
    assert english_words("残差 Residual") == ["Residual"]
    assert english_words(r"长度 $|z| \\to |z|$，W_q 与 max_distance") == []
    assert latex_labels(r"\text{V rotated:}\ o_m = \text{旋转}") == ["V rotated:", "旋转"]
    assert english_words("RoPE 与 softmax，base = 10,000，d = 64") == []
