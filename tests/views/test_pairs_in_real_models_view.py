"""The pairs page's view without a model: the ratios and counts it draws against hand-written loops, every claim's
verdict turned by planted numbers (so no verdict is written in), the record read back as written, and the shipped
record's entries all present and in step with the examples."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from explorer.pure.text import STRINGS
from explorer.pure.views import pairs_in_real_models as view
from explorer.pure.views.real_models import EXAMPLES, Reading
from rope_viz.real import pairs as core

LAYERS, HEADS, KV, DIM = 4, 3, 1, 16
PAIRS = DIM // 2


def planted(*, massive_pair: int | None = 5, value_massive: bool = False, previous: float = 0.8,
            first: float = 0.6, kinds=("full_attention",) * LAYERS, boundary: int = 5) -> core.Pairs:
    """A measurement with one massive key and query coordinate in `massive_pair` of every layer (half layout)."""
    generator = torch.Generator().manual_seed(0)
    q = 1 + 0.1 * torch.rand(LAYERS, HEADS, DIM, generator=generator, dtype=torch.float64)
    k = 1 + 0.1 * torch.rand(LAYERS, KV, DIM, generator=generator, dtype=torch.float64)
    v = 1 + 0.1 * torch.rand(LAYERS, KV, DIM, generator=generator, dtype=torch.float64)
    if massive_pair is not None:
        q[..., massive_pair] = k[..., massive_pair] = 50.0
    if value_massive:
        v[..., 0] = 50.0  # as often as in the queries and keys
    shares = torch.full((LAYERS, HEADS, PAIRS), 1.0 / PAIRS, dtype=torch.float64)
    shares[0, 0] = torch.tensor([0.5, 0.3, 0.05, 0.05, 0.025, 0.025, 0.025, 0.025])  # a fast-pair head
    prev = torch.full((LAYERS, HEADS), 0.1, dtype=torch.float64)
    prev[0, 0] = previous
    shares[1:, :, -2:] += 0.1  # the other heads lean on the slowest pairs
    shares = shares / shares.sum(-1, keepdim=True)
    norm = torch.tensor([1.0, 2.0, 40.0] + [41.0] * (LAYERS - 2), dtype=torch.float64)
    return core.Pairs(q, k, v, q.float().mean(-1), k.float().mean(-1),
                      torch.full((LAYERS, HEADS), first, dtype=torch.float64), prev, shares, norm,
                      torch.full((LAYERS + 1,), 2.0, dtype=torch.float64), core.dim_pairs(DIM, DIM, "half"),
                      (boundary,) * LAYERS, tuple(kinds))


def fray(*, inside: float = 0.6, past: float = 0.1, cos_inside: float = 0.4, cos_past: float = 0.2,
         trained: int = 512) -> dict:
    """One attention kind's sinks just inside and past its trained length (core.frayed)."""
    return {"trained": trained, "own": 0.8, "inside": {"back": trained, "share": inside, "cosine": cos_inside},
            "past": {"back": 2 * trained, "share": past, "cosine": cos_past}}


def effects(*, copy_rise: float = 2.0, recall_rise: float = 0.2, nope_rise: float = 0.01, sink_rise: float = 3.0,
            random_rise: float = 0.05, below: int = 1, frayed: dict | None = None) -> core.Effects:
    def row(base: float, massive: float) -> dict:
        return {"none": base, "massive": base + massive, "random": base + random_rise,
                "nope_below": base + nope_rise, "sink_mlp": base + sink_rise}
    return core.Effects(row(3.0, 0.5), row(0.3, copy_rise), row(1.0, recall_rise), 8, {"full_attention": below}, 1,
                        {"full_attention": fray(**(frayed or {}))})


def found(p: core.Pairs | None = None, e: core.Effects | None = None) -> view.Found:
    p = p or planted()
    return view.Found("smollm2-135m", "SmolLM2", Reading((1, 2, 3), 10, 10, 3), (1e4,) * LAYERS,
                      (512,) * LAYERS, p, e or effects())


def test_by_pair_takes_the_larger_coordinate_of_each_pair():
    ratio = np.random.default_rng(0).random((2, DIM)).astype(np.float32)
    pairs = core.dim_pairs(DIM, DIM, "half")
    found_ = view.by_pair(ratio, pairs)
    for h in range(2):
        for i in range(PAIRS):
            assert found_[h, i] == max(ratio[h, i], ratio[h, i + PAIRS])


def test_massive_by_pair_counts_heads_per_pair():
    p = planted()
    counts = view.massive_by_pair(p, "queries", "full_attention")
    assert counts[5] == LAYERS * HEADS and counts.sum() == counts[5]
    assert view.massive_by_pair(p, "values", "full_attention").sum() == 0


def test_every_claim_holds_on_numbers_that_meet_it():
    assert [c.verdict for c in view.claims(found())] == ["holds"] * 6


@pytest.mark.parametrize("claim, p, e, expected", [
    ("massive", dict(value_massive=True), {}, "partly"),
    ("massive", {}, dict(copy_rise=0.1, recall_rise=2.0), "partly"),
    ("massive", dict(massive_pair=None), dict(copy_rise=0.0), "not"),
    ("where", dict(massive_pair=PAIRS - 1, boundary=2), {}, "not"),
    ("where", dict(massive_pair=1), {}, "not"),
    ("band", {}, dict(nope_rise=1.0), "partly"),
    ("band", dict(massive_pair=None), dict(nope_rise=1.0), "not"),
    ("band", {}, dict(below=0, nope_rise=0.0), "partly"),  # nothing below the band: untried, not held
    ("positional", dict(previous=0.1), {}, "partly"),
    ("sink", dict(first=0.1), {}, "partly"),
    ("sink", dict(first=0.1), dict(sink_rise=0.1), "not"),
    ("frayed", {}, dict(frayed=dict(past=0.58)), "partly"),  # the share falls by less than a tenth
    ("frayed", {}, dict(frayed=dict(cos_past=0.39)), "partly"),
    ("frayed", {}, dict(frayed=dict(past=0.7, cos_past=0.5)), "not"),  # both rise past the trained length
    ("frayed", {}, dict(frayed=dict(inside=0.0, past=0.0, cos_past=0.5)), "not"),  # no sink inside: nothing breaks
])
def test_a_claim_turns_with_the_numbers(claim, p, e, expected):
    claims = view.claims(found(planted(**p), effects(**e)))
    said = {c.name.removesuffix("_none").removesuffix("_nothing"): c for c in claims}
    assert said[claim].verdict == expected, said[claim]


def test_the_spike_layer_multiplies_the_first_token_norm_most():
    p = planted()
    norms = torch.tensor([1.0, 50.0, 100.0, 1000.0, 1900.0], dtype=torch.float64)  # x50 in layer 0, +900 in layer 3
    p = core.Pairs(**{**p.__dict__, "first_norm": norms})
    ratios = [float(norms[i + 1] / norms[i]) for i in range(LAYERS)]
    assert p.spike_layer == ratios.index(max(ratios)) == 0


def test_gemma_like_layers_are_judged_kind_by_kind():
    kinds = ("sliding_attention",) * 3 + ("full_attention",)
    p = planted(kinds=kinds)
    p = core.Pairs(**{**p.__dict__, "boundaries": (5, 5, 5, 1)})
    claim = view.claim_where(found(p))
    assert claim.checks == (True, False) and claim.verdict == "partly"
    assert [part.key.split(".")[-1] for part in claim.sentence.args["parts"]] == ["where_part"] * 2


def test_frayed_is_judged_kind_by_kind_with_its_numbers_in_the_sentence():
    kinds = ("sliding_attention",) * 3 + ("full_attention",)
    e = effects()
    e = core.Effects(**{**e.__dict__, "frayed": {"sliding_attention": fray(),
                                                 "full_attention": fray(inside=0.9, past=0.9, cos_inside=0.2,
                                                                        cos_past=0.19, trained=32768)}})
    claim = view.claim_frayed(found(planted(kinds=kinds), e))
    assert claim.checks == (True, True, False, False) and claim.verdict == "partly"
    local, global_ = claim.sentence.args["parts"]
    assert (local.args["inside"], local.args["past"], local.args["cos_inside"]) == ("60%", "10%", "0.40")
    assert (global_.args["trained"], global_.args["past_back"], global_.args["cos_past"]) == ("32,768", "65,535",
                                                                                              "0.19")


def test_every_claim_sentence_has_its_text_in_both_languages():
    for claim in view.claims(found()):
        for lang in ("en", "zh"):
            strings = STRINGS[lang]
            assert claim.sentence.key in strings and claim.sentence.args["verdict"].key in strings
            strings[claim.sentence.key].format(**{k: "x" for k in claim.sentence.args})


def test_the_record_reads_back_as_written(tmp_path):
    f = found()
    back = view.from_json(json.loads(json.dumps(view.to_json(f))))
    for key in view.KEPT:
        torch.testing.assert_close(getattr(back.pairs, key), getattr(f.pairs, key).to(getattr(back.pairs, key).dtype),
                                   rtol=1e-4, atol=0)
    assert back.effects == f.effects and back.pairs.boundaries == f.pairs.boundaries
    assert [c.verdict for c in view.claims(back)] == [c.verdict for c in view.claims(f)]


def test_an_entry_for_an_old_text_is_left_out(tmp_path):
    path = tmp_path / "pairs.json"
    entry = view.to_json(found())
    path.write_text(json.dumps({"command": view.COMMAND, "entries": [
        {"name": "smollm2-135m", "example": "prose", "text": "not the example", "found": entry},
        {"name": "smollm2-135m", "example": "code", "text": EXAMPLES["code"], "found": entry}]}))
    assert list(view.shipped(path)) == [("smollm2-135m", "code")]


def test_the_shipped_record_is_complete():
    doc = json.loads(view.SHIPPED.read_text(encoding="utf-8"))
    assert doc["command"] == view.COMMAND
    recorded = view.shipped()
    assert ("smollm2-135m", "prose") in recorded and ("gemma-3-270m", "prose") in recorded
    for (name, _), f in recorded.items():
        p = f.pairs
        layers = len(p.kinds)
        assert p.queries.shape[0] == p.keys.shape[0] == p.values.shape[0] == p.first.shape[0] == layers
        assert p.first_norm.shape == (layers + 1,)
        assert set(f.effects.text) == set(core.INTERVENTIONS)
        assert set(f.effects.frayed) == set(p.kinds)
        for kind, x in f.effects.frayed.items():
            layer = p.kinds.index(kind)
            assert (x["inside"]["back"], x["past"]["back"]) == (f.trained[layer], core.FAR * f.trained[layer])
            rows = [i for i, k in enumerate(p.kinds) if k == kind]
            assert x["own"] == pytest.approx(float((p.first[rows] >= core.SINK).double().mean()))
        assert all(math.isfinite(v) for task in (f.effects.text, f.effects.copy, f.effects.recall)
                   for v in task.values())
        for i, (kind, base, trained) in enumerate(zip(p.kinds, f.bases, f.trained)):
            expected = next(j for j in range(200) if 2 * math.pi * base ** (2 * j / (2 * (int(p.pairs.max()) + 1)))
                            > trained)
            assert p.boundaries[i] == expected, (name, i, kind)
