"""One colour per concept across pages: an encoding, a scaling method, a scheme, the query or the key is drawn in
the same colour on every page that shows it (explorer.pure.figures.style.CONCEPTS), and in both languages."""

import pytest

from explorer.pure import text
from explorer.pure.figures.style import CONCEPTS, PALETTE, concept_color
from support.apptest import charts, opened

pytestmark = pytest.mark.slow

# (page, {concept: the text key of its legend name on that page})
PAGES = (
    (
        "long_context",
        {
            "rope": "long_context.plain_series",
            "linear": "long_context.method_linear",
            "ntk": "long_context.method_ntk",
            "yarn": "long_context.method_yarn",
            "llama3": "long_context.method_llama3",
        },
    ),
    (
        "trained_models",
        {
            "rope": "trained_models.enc_rope",
            "sinusoidal": "trained_models.enc_sinusoidal",
            "alibi": "trained_models.enc_alibi",
            "nope": "trained_models.enc_nope",
        },
    ),
    (
        "rope_designs",
        {
            "rope": "rope_designs.scheme_rope",
            "nope": "rope_designs.scheme_nope",
            "alibi": "rope_designs.scheme_alibi",
            "p-rope": "rope_designs.scheme_p-rope",
            "local-rope+global-nope": "rope_designs.scheme_local-rope+global-nope",
        },
    ),
    ("distance_biases", {"rope": "distance_biases.rope_series", "nope": "distance_biases.nope_series"}),
    (
        "rope_vs_sinusoidal",
        {"rope": "rope_vs_sinusoidal.norm_rope", "sinusoidal": "rope_vs_sinusoidal.norm_sinusoidal"},
    ),
    (
        "phase_cancellation",
        {
            "query": "phase_cancellation.query_name",
            "key": "phase_cancellation.key_name",
            "offset": "phase_cancellation.both_series",
        },
    ),
    ("complex_numbers", {"query": "complex_numbers.z_name", "rope": "complex_numbers.rotor_name"}),
    ("frequency_clocks", {"query": "frequency_clocks.before"}),
    ("implementation_forms", {"query": "implementation_forms.worked_before"}),
)


def test_concepts_that_meet_in_a_chart_never_share_a_colour():
    meetings = {"trained_models": ("rope", "sinusoidal", "alibi", "nope", "pi", "ntk", "yarn"),
                "long context": ("rope", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope", "model"),
                "distance_biases": ("rope", "sinusoidal", "alibi", "nope", "t5", "xpos"),
                "rope_designs": ("rope", "nope", "alibi", "nope-every-4th", "nope-every-4th+temperature",
                            "local-rope+global-nope", "p-rope", "partial-rope")}
    for where, together in meetings.items():
        assert len({CONCEPTS[name] for name in together}) == len(together), where


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_draws_a_concept_in_its_colour(lang):
    seen = {}
    for page, legend_keys in PAGES:
        at = opened(page, lang=lang)
        drawn = [(trace.get("name"), trace.get("line", {}).get("color")) for spec in charts(at).values()
                 for trace in spec["data"] if trace.get("line", {}).get("color")]
        for concept, key in legend_keys.items():
            name = text.text(key, lang)
            colours = {colour for trace_name, colour in drawn if trace_name == name}
            assert colours == {concept_color(concept)}, (page, concept, name, colours)
            seen.setdefault(concept, set()).add(page)
    assert len(seen["rope"]) == 6 and len(seen["query"]) == 4  # one red for RoPE, one orange for the query
    # the query and the key never take a palette colour, so no series drawn by its order looks like them
    assert not {concept_color("query"), concept_color("key")} & set(PALETTE)
    assert concept_color("query") != concept_color("key")
