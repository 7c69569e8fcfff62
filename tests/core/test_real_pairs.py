"""rope_viz.real.pairs: the norms of each query, key and value coordinate, the sink heads and the first token's norm,
and one intervention (the massive coordinates replaced by their mean), checked against transformers' own model from
the same GGUF file with hooks on its projections (SmolLM2: q_proj, k_proj, v_proj; Gemma 3: q_norm, k_norm, v_proj,
the queries and keys as they enter the rotation) and its eager attention weights; the boundary pair, the massive
criterion and the pair of each coordinate against hand-written loops in float64.

Each reference model is loaded once (about a minute for Gemma on two busy cores); the text is short (about 130
tokens).
Measured (transformers 5.24, SmolLM2 on the text below): coordinate norms within 2e-4 relative, first-token weights
within 1e-5, the loss with the massive coordinates replaced within 1e-4 nats.
"""

from __future__ import annotations

import functools
import math

import pytest
import torch

from rope_viz import real_model
from rope_viz.real import pairs
from support.real_models import SHORT_TEXT

slow = pytest.mark.slow
GEMMA, SMOLLM = "gemma-3-270m", "smollm2-135m"
TEXT = SHORT_TEXT[:600]


# ----------------------------------------------------------------------------- formulas, by hand

@pytest.mark.parametrize("rotary_dim, base, trained", [(64, 1e5, 8192), (256, 1e4, 512), (256, 1e6, 32768),
                                                       (8, 10.0, 10**9), (16, 1e4, 1)])
def test_boundary_pair_by_hand(rotary_dim, base, trained):
    expected = next((i for i in range(rotary_dim // 2)
                     if 2 * math.pi * base ** (2 * i / rotary_dim) > trained), rotary_dim // 2)
    assert pairs.boundary_pair(rotary_dim, base, trained) == expected


def test_boundary_pairs_of_the_two_models():
    assert pairs.boundary_pair(64, 1e5, 8192) == 20  # SmolLM2
    assert pairs.boundary_pair(256, 1e4, 512) == 62  # Gemma 3's local layers
    assert pairs.boundary_pair(256, 1e6, 32768) == 80  # and its global ones


@pytest.mark.parametrize("trained", [0, -3, 2.5, True])
def test_boundary_pair_refuses_bad_lengths(trained):
    with pytest.raises(ValueError, match="trained must be"):
        pairs.boundary_pair(64, 1e4, trained)


def test_massive_by_hand():
    norms = torch.rand(3, 4, 16, dtype=torch.float64) + 0.5
    norms[1, 2, 5] = 200.0
    found = pairs.massive(norms)
    for index in torch.cartesian_prod(torch.arange(3), torch.arange(4), torch.arange(16)).tolist():
        a, b, c = index
        mean = sum(float(norms[a, b, j]) for j in range(16)) / 16
        assert bool(found[a, b, c]) == (float(norms[a, b, c]) > 5 * mean)
    assert found.sum() == 1


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_dim_pairs_and_pair_norms_by_hand(layout):
    dims = pairs.dim_pairs(8, 8, layout)
    expected = [0, 1, 2, 3, 0, 1, 2, 3] if layout == "half" else [0, 0, 1, 1, 2, 2, 3, 3]
    assert dims.tolist() == expected
    norms = torch.arange(1.0, 9.0, dtype=torch.float64)
    found = pairs.pair_norms(norms, dims)
    for i in range(4):
        members = [float(norms[j]) for j in range(8) if expected[j] == i]
        assert math.isclose(float(found[i]), math.sqrt(sum(x * x for x in members)))
    assert pairs.dim_pairs(6, 4, "half", rotated_from=2).tolist() == [-1, -1, 0, 1, 0, 1]


def test_random_control_keeps_the_counts_and_avoids_the_massive():
    found = torch.zeros(2, 3, 10, dtype=torch.bool)
    found[0, 1, [2, 7]] = True
    found[1, 0, 4] = True
    chosen = pairs._random_like(found, 0)
    assert torch.equal(chosen.sum(-1), found.sum(-1)) and not (chosen & found).any()


def test_first_back_by_hand():
    assert pairs.first_back(5, 100).tolist() == [0, 96, 97, 98, 99]  # the last token 99 positions after the first
    assert pairs.first_back(5, 5).tolist() == pairs.first_back(5, 2).tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="back must be"):
        pairs.first_back(5, 0)


def test_first_key_cosines_by_hand():
    generator = torch.Generator().manual_seed(1)
    q, k = torch.randn(4, 6, 8, generator=generator), torch.randn(2, 6, 8, generator=generator)
    found = pairs.first_key_cosines(q, k)
    for h in range(4):
        key = [float(x) for x in k[h // 2, 0]]
        cosines = []
        for m in range(1, 6):
            query = [float(x) for x in q[h, m]]
            dot = sum(a * b for a, b in zip(query, key))
            cosines.append(dot / math.sqrt(sum(a * a for a in query) * sum(b * b for b in key)))
        assert math.isclose(float(found[h]), sum(cosines) / 5, rel_tol=1e-9, abs_tol=1e-12)


# ----------------------------------------------------------------------------- against transformers

@functools.lru_cache(maxsize=2)
def loaded(name: str):
    """transformers' model from the GGUF file the app reads (float32, eager attention), loaded once."""
    from transformers import AutoModelForCausalLM

    from rope_viz.real.weights import gguf_path

    path = gguf_path(name)
    return AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch.float32,
                                                attn_implementation="eager")


def reference(name: str, ids: list[int], fills: dict | None = None, positions: torch.Tensor | None = None):
    """transformers' model on ids (float32, eager): per layer the norms over tokens of each query, key and value
    coordinate (as they enter the rotation), the attention weights, the hidden states, and the mean loss; fills:
    {layer: (query mask, query fill, key mask, key fill)} written into the projections' outputs by hooks;
    positions: the tokens' position ids (default 0 .. seq - 1)."""
    model = loaded(name)
    config = model.config
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    gemma = config.model_type.startswith("gemma3")
    seen: dict = {"q": {}, "k": {}, "v": {}}

    def hook(kind, layer):
        heads_first = gemma and kind != "v"  # Gemma's q_norm / k_norm see (batch, heads, seq, head_dim)

        def keep(module, args, output):
            x = output if heads_first else output.view(output.shape[0], output.shape[1], -1, head_dim)
            if fills and layer in fills and kind != "v":
                mask, fill = fills[layer][0 if kind == "q" else 1]
                x = torch.where(mask[:, None] if heads_first else mask, fill[:, None] if heads_first else fill, x)
                output = x.reshape(output.shape)
            seen[kind][layer] = x[0].double().norm(dim=1 if heads_first else 0)  # (heads, head_dim)
            return output
        return keep

    handles = []
    for i, block in enumerate(model.model.layers):
        attn = block.self_attn
        q, k = (attn.q_norm, attn.k_norm) if gemma else (attn.q_proj, attn.k_proj)
        handles += [q.register_forward_hook(hook("q", i)), k.register_forward_hook(hook("k", i)),
                    attn.v_proj.register_forward_hook(hook("v", i))]
    tensor = torch.tensor([ids])
    with torch.inference_mode():
        out = model(tensor, output_attentions=True, output_hidden_states=True,
                    position_ids=None if positions is None else positions[None])
    for handle in handles:
        handle.remove()
    log_probs = torch.log_softmax(out.logits[0].double(), -1)
    loss = float(-log_probs[:-1].gather(1, tensor[0, 1:, None]).mean())
    layers = range(len(model.model.layers))
    return ({kind: torch.stack([seen[kind][i] for i in layers]) for kind in seen},
            [a[0].double() for a in out.attentions], [h[0].double() for h in out.hidden_states], loss)


@pytest.fixture(scope="module", params=[SMOLLM, GEMMA])
def both(request):
    lm = real_model(request.param)
    ids = lm.encode(TEXT)
    return lm, ids, pairs.measure(lm, ids), reference(request.param, ids.tolist())


@slow
def test_norms_as_transformers(both):
    lm, ids, found, (norms, _, _, _) = both
    for kind, ours in (("q", found.queries), ("k", found.keys), ("v", found.values)):
        theirs = norms[kind]
        assert ours.shape == theirs.shape, (kind, ours.shape, theirs.shape)
        torch.testing.assert_close(ours, theirs, rtol=2e-3, atol=1e-3 * float(theirs.mean()), msg=kind)
    assert pairs.massive(found.keys).any()  # the text has massive key coordinates to compare


@slow
def test_sink_heads_and_first_norm_as_transformers(both):
    lm, ids, found, (_, attentions, hidden, _) = both
    first = torch.stack([a[:, 1:, 0].mean(-1) for a in attentions])  # (layers, heads)
    torch.testing.assert_close(found.first, first, rtol=0, atol=1e-4)
    shares = torch.tensor([sum(float(w) >= pairs.SINK for w in row) / len(row) for row in first.tolist()],
                          dtype=torch.float64)
    torch.testing.assert_close(found.sink_shares(), shares, rtol=0, atol=0)
    # transformers' last hidden state is after the final norm: the layers before it
    theirs = torch.stack([h[0].norm() for h in hidden[:-1]])
    torch.testing.assert_close(found.first_norm[:-1], theirs, rtol=1e-3, atol=1e-3)


@slow
def test_massive_replaced_by_mean_as_transformers():
    """One intervention, in the cheaper model: the loss with every massive query and key coordinate replaced by its
    mean over the text, ours against transformers' with the same values written by hooks."""
    lm = real_model(SMOLLM)
    ids = lm.encode(TEXT)
    found = pairs.measure(lm, ids)
    q, k = pairs.massive(found.queries), pairs.massive(found.keys)
    fills = {i: ((q[i], found.query_means[i].float()), (k[i], found.key_means[i].float()))
             for i in range(q.shape[0])}
    ours, plain = lm.variant_losses(ids, [pairs.edits(lm, found)["massive"], pairs.edits(lm, found)["none"]],
                                    "float32").mean(-1).tolist()
    *_, theirs = reference(lm.name, ids.tolist(), fills)
    assert ours > plain + 0.05  # the intervention changes something
    assert abs(ours - theirs) < 1e-3, (ours, theirs)


@slow
@pytest.mark.parametrize("name", [SMOLLM, GEMMA])
def test_sinks_past_the_trained_length_as_transformers(name):
    """The sink shares with the first token just inside and twice past each kind's trained length, ours against
    transformers' attention weights with the same position ids (its masks by index, as ours); 64 tokens."""
    lm = real_model(name)
    ids = lm.encode(TEXT)[:64]
    found = pairs.measure(lm, ids)
    got = pairs.frayed(lm, ids, found)
    assert set(got) == set(found.kinds)
    for kind, x in got.items():
        rows = [i for i, k in enumerate(found.kinds) if k == kind]
        for where in ("inside", "past"):
            positions = pairs.first_back(ids.numel(), x[where]["back"])
            _, attentions, _, _ = reference(name, ids.tolist(), positions=positions)
            first = torch.stack([a[:, 1:, 0].mean(-1) for a in attentions])[rows]
            assert not torch.allclose(first, found.first[rows], atol=1e-3)  # the positions change the weights
            assert x[where]["share"] == float((first >= pairs.SINK).double().mean()), (kind, where)
