"""rope_viz.scaling against Hugging Face transformers' ROPE_INIT_FUNCTIONS and against the
formulas written out here in float64 (never against output of the code under test)."""

from __future__ import annotations

import itertools
import math

import pytest
import torch
from transformers import LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb
from transformers.utils import logging as hf_logging

from rope_viz import ROPE_SCALINGS, apply_rope, scaled_inv_freq

hf_logging.set_verbosity_error()  # transformers warns about unusual but valid test grids

# HF computes base ** (2i/d) in float32: the exponent's rounding gives a relative error up to
# about 2^-24 * ln(base) * 2 ~ 1.4e-6 for base 1e6; everything else is float32 arithmetic.
RTOL = 3e-6
MEASURED: dict[str, float] = {}


def _record(kind: str, value: float) -> None:
    MEASURED[kind] = max(MEASURED.get(kind, 0.0), value)


def hf_config(dim, base, params, max_position_embeddings, **extra):
    """A LlamaConfig in transformers 5.x form: rope_parameters carries rope_theta."""
    rope_parameters = dict(params, rope_theta=base)
    return LlamaConfig(hidden_size=dim * 2, num_attention_heads=2, head_dim=dim,
                       max_position_embeddings=max_position_embeddings, rope_parameters=rope_parameters, **extra)


def hf_inv_freq(dim, base, params, max_position_embeddings, seq_len=None):
    config = hf_config(dim, base, params, max_position_embeddings)
    rope_type = config.rope_parameters["rope_type"]
    if rope_type == "default":
        return LlamaRotaryEmbedding.compute_default_rope_parameters(config)
    return ROPE_INIT_FUNCTIONS[rope_type](config, "cpu", seq_len=seq_len)


def compare(kind, dim, base, params, max_position_embeddings, seq_len=None):
    expected, expected_factor = hf_inv_freq(dim, base, params, max_position_embeddings, seq_len)
    got, got_factor = scaled_inv_freq(dim, base, params, max_position_embeddings=max_position_embeddings,
                                      seq_len=seq_len)
    assert got.dtype == torch.float64 and got.shape == (dim // 2,)
    rel = ((got - expected.double()).abs() / expected.double().abs()).max().item()
    _record(kind, rel)
    _record(kind + " attention_factor", abs(got_factor - float(expected_factor)))
    assert rel < RTOL, (kind, dim, base, params, seq_len, rel)
    assert got_factor == pytest.approx(float(expected_factor), rel=1e-12, abs=1e-12)


DIMS = (8, 64, 128)
BASES = (10000.0, 500000.0, 1e6)
CONTEXTS = (2048, 8192)


def _cases(dim, context):
    half = dim // 2
    ramp = [1.0 + 0.37 * i for i in range(half)]
    yield "default", {"rope_type": "default"}, None
    for factor in (0.5, 2.0, 8.0):
        yield "linear", {"rope_type": "linear", "factor": factor}, None
    for factor, seq_len in itertools.product((1.5, 4.0), (None, 1, context, 3 * context + 5)):
        yield "dynamic", {"type": "dynamic", "factor": factor}, seq_len
    yield "yarn", {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": context // 4}, None
    yield "yarn", {"rope_type": "yarn", "factor": 40.0, "original_max_position_embeddings": context // 2,
                   "beta_fast": 16, "beta_slow": 2, "mscale": 0.707, "mscale_all_dim": 1.0}, None
    yield "yarn", {"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": context,
                   "truncate": False, "attention_factor": 0.9}, None
    yield "yarn", {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": context // 8,
                   "mscale": 1.0, "mscale_all_dim": 0.0}, None  # falsy mscale_all_dim: plain m(s)
    yield "yarn", {"rope_type": "yarn", "factor": None, "original_max_position_embeddings": context // 4}, None
    yield "yarn", {"rope_type": "yarn", "factor": 0.5, "original_max_position_embeddings": context}, None
    yield "llama3", {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": context // 4}, None
    yield "llama3", {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 2.0, "high_freq_factor": 8.0,
                     "original_max_position_embeddings": context // 2}, None
    for seq_len in (None, 1, context // 4, context // 4 + 1, context):
        yield "longrope", {"rope_type": "longrope", "short_factor": ramp[::-1], "long_factor": ramp,
                           "original_max_position_embeddings": context // 4}, seq_len
    yield "longrope", {"rope_type": "longrope", "short_factor": ramp, "long_factor": ramp[::-1], "factor": 6.0,
                       "original_max_position_embeddings": context // 4}, context
    yield "longrope", {"rope_type": "longrope", "short_factor": ramp, "long_factor": ramp, "factor": 2.0,
                       "attention_factor": 1.3, "original_max_position_embeddings": context}, None
    yield "longrope", {"type": "longrope", "short_factor": ramp, "long_factor": ramp, "factor": 0.75,
                       "original_max_position_embeddings": context}, None


@pytest.mark.parametrize("dim,base,context", list(itertools.product(DIMS, BASES, CONTEXTS)))
def test_every_type_matches_transformers(dim, base, context):
    for kind, params, seq_len in _cases(dim, context):
        compare(kind, dim, base, params, context, seq_len)


def test_original_context_defaults_to_max_position_embeddings_like_transformers():
    for params in ({"rope_type": "yarn", "factor": 4.0},
                   {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0},
                   {"rope_type": "longrope", "short_factor": [1.0] * 32, "long_factor": [2.0] * 32, "factor": 4.0}):
        compare(params["rope_type"], 64, 10000.0, params, 4096)


# ----------------------------------------------------------------------------- independent formulas

def theta(dim, base):
    return [base ** (-2.0 * i / dim) for i in range(dim // 2)]


def close(got, expected, rel=1e-13):
    assert len(got) == len(expected)
    for a, b in zip(got.tolist(), expected):
        assert a == pytest.approx(b, rel=rel, abs=0.0)


@pytest.mark.parametrize("dim,base,factor", [(8, 10000.0, 4.0), (128, 500000.0, 8.0), (96, 1e6, 2.5)])
def test_linear_and_ntk_formulas(dim, base, factor):
    got, a = scaled_inv_freq(dim, base, {"rope_type": "linear", "factor": factor})
    close(got, [t / factor for t in theta(dim, base)])
    assert a == 1.0
    got, a = scaled_inv_freq(dim, base, {"rope_type": "ntk", "factor": factor})
    close(got, theta(dim, base * factor ** (dim / (dim - 2))), rel=1e-12)
    assert a == 1.0
    # static NTK: the slowest pair is slowed by exactly the factor, the fastest is unchanged
    assert got[-1].item() == pytest.approx(theta(dim, base)[-1] / factor, rel=1e-12)
    assert got[0].item() == 1.0


@pytest.mark.parametrize("dim,base,factor,length,context",
                         [(64, 10000.0, 2.0, 10000, 4096), (128, 5e5, 4.0, 100, 8192)])
def test_dynamic_formula(dim, base, factor, length, context):
    n = max(length, context)
    new_base = base * (factor * n / context - (factor - 1)) ** (dim / (dim - 2))
    got, a = scaled_inv_freq(dim, base, {"rope_type": "dynamic", "factor": factor},
                             max_position_embeddings=context, seq_len=length)
    close(got, theta(dim, new_base), rel=1e-12)
    assert a == 1.0


def llama3_by_hand(dim, base, factor, low, high, original):
    out = []
    for t in theta(dim, base):
        wavelen = 2 * math.pi / t
        if wavelen < original / high:
            out.append(t)
        elif wavelen > original / low:
            out.append(t / factor)
        else:
            g = (original / wavelen - low) / (high - low)
            out.append((1 - g) * t / factor + g * t)
    return out


@pytest.mark.parametrize("dim,base,factor,low,high,original",
                         [(128, 500000.0, 8.0, 1.0, 4.0, 8192), (64, 10000.0, 32.0, 1.0, 4.0, 2048),
                          (96, 1e6, 4.0, 2.0, 8.0, 4096)])
def test_llama3_formula(dim, base, factor, low, high, original):
    params = {"rope_type": "llama3", "factor": factor, "low_freq_factor": low, "high_freq_factor": high,
              "original_max_position_embeddings": original}
    got, a = scaled_inv_freq(dim, base, params)
    close(got, llama3_by_hand(dim, base, factor, low, high, original), rel=1e-12)
    assert a == 1.0


def yarn_by_hand(dim, base, factor, original, beta_fast=32.0, beta_slow=1.0, mscale=None, mscale_all_dim=None,
                 truncate=True):
    def c(r):
        return dim * math.log(original / (r * 2 * math.pi)) / (2 * math.log(base))

    low, high = c(beta_fast), c(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    out = []
    for i, t in enumerate(theta(dim, base)):
        ramp = min(max((i - low) / (high - low), 0.0), 1.0)
        out.append(ramp * t / factor + (1 - ramp) * t)

    def m(s, k):
        return 1.0 if s <= 1 else 0.1 * k * math.log(s) + 1.0

    a = m(factor, mscale) / m(factor, mscale_all_dim) if mscale and mscale_all_dim else m(factor, 1.0)
    return out, a


@pytest.mark.parametrize("dim,base,factor,original,extra", [
    (128, 1e6, 4.0, 32768, {}),                                         # Qwen2.5 + YaRN
    (64, 10000.0, 40.0, 4096, {"mscale": 1.0, "mscale_all_dim": 1.0}),  # DeepSeek-V3
    (64, 10000.0, 40.0, 4096, {"mscale": 0.707, "mscale_all_dim": 1.0, "beta_fast": 8.0, "beta_slow": 0.5}),
    (128, 10000.0, 16.0, 2048, {"truncate": False}),
])
def test_yarn_formula(dim, base, factor, original, extra):
    params = dict({"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": original}, **extra)
    expected, expected_a = yarn_by_hand(dim, base, factor, original, **extra)
    got, a = scaled_inv_freq(dim, base, params)
    close(got, expected, rel=1e-12)
    assert a == pytest.approx(expected_a, rel=1e-15)


def test_published_attention_factors():
    # YaRN's 0.1 ln s + 1 for s = 4 (Qwen2.5 advice), DeepSeek-V3's exactly 1, Phi-3's sqrt(1 + ln 32 / ln 4096)
    assert scaled_inv_freq(128, 1e6, {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768})[1] \
        == pytest.approx(1 + 0.1 * math.log(4))
    assert scaled_inv_freq(64, 1e4, {"type": "yarn", "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                                     "original_max_position_embeddings": 4096})[1] == 1.0
    lr = {"type": "longrope", "short_factor": [1.0] * 48, "long_factor": [2.0] * 48,
          "original_max_position_embeddings": 4096}
    assert scaled_inv_freq(96, 1e4, lr, max_position_embeddings=131072)[1] == pytest.approx(math.sqrt(1 + 5 / 12))


def test_longrope_switches_factor_lists_past_the_original_context():
    params = {"rope_type": "longrope", "short_factor": [1.0] * 4, "long_factor": [2.0, 3.0, 4.0, 5.0],
              "original_max_position_embeddings": 100, "factor": 4.0}
    plain = theta(8, 10000.0)
    for seq_len, factors in ((None, [1.0] * 4), (100, [1.0] * 4), (101, [2.0, 3.0, 4.0, 5.0])):
        got, _ = scaled_inv_freq(8, 10000.0, params, seq_len=seq_len)
        close(got, [t / f for t, f in zip(plain, factors)])


# ----------------------------------------------------------------------------- apply_rope vs Hugging Face

def hf_rotary_step(q, k, config, positions):
    rotary = LlamaRotaryEmbedding(config)
    position_ids = torch.as_tensor(positions).reshape(1, -1)
    cos, sin = rotary(q, position_ids)
    return apply_rotary_pos_emb(q, k, cos, sin)


@pytest.mark.parametrize("params", [
    {"rope_type": "linear", "factor": 4.0},
    {"rope_type": "dynamic", "factor": 4.0},
    {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 512},
    {"rope_type": "yarn", "factor": 40.0, "original_max_position_embeddings": 256, "mscale": 0.707,
     "mscale_all_dim": 1.0},
    {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
     "original_max_position_embeddings": 256},
    {"rope_type": "longrope", "short_factor": [1.0 + 0.05 * i for i in range(32)],
     "long_factor": [1.0 + 0.9 * i for i in range(32)], "original_max_position_embeddings": 256},
])
@pytest.mark.parametrize("positions", [[0, 1, 7, 100, 255], [0, 3, 256, 1000, 2047], [3000, 4095, 5000, 9000, 12345]])
def test_apply_rope_matches_transformers_rotary_step(params, positions):
    dim, context, base = 64, 2048, 10000.0
    torch.manual_seed(len(positions) + positions[-1])
    q = torch.randn(1, 3, len(positions), dim)
    k = torch.randn(1, 3, len(positions), dim)
    config = hf_config(dim, base, params, context)
    q_hf, k_hf = hf_rotary_step(q, k, config, positions)
    for method in ("fast", "pairs", "matrix", "complex"):
        q_ours = apply_rope(q, positions, base=base, layout="half", method=method, rope_scaling=params,
                            max_position_embeddings=context)
        k_ours = apply_rope(k, positions, base=base, layout="half", method=method, rope_scaling=params,
                            max_position_embeddings=context)
        # HF multiplies float32 angles m * theta (m up to 12345): about |m| * 2^-24 rad of rounding.
        atol = 2e-6 * max(positions) ** 0.5 + 3e-3 * max(positions) / 4096
        err = max((q_ours - q_hf).abs().max().item(), (k_ours - k_hf).abs().max().item())
        _record("apply_rope " + params["rope_type"], err)
        assert err < atol, (params, positions, method, err)


def test_apply_rope_scaled_equals_the_float64_formula():
    """x' = a (x cos(m theta') + partner sin(m theta')) written out per pair, half layout."""
    params = {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 64}
    dim, base, positions = 16, 10000.0, [0.0, 5.0, 63.0, 500.0]
    expected_theta, a = yarn_by_hand(dim, base, 8.0, 64)
    x = torch.randn(len(positions), dim, dtype=torch.float64)
    got = apply_rope(x, positions, base=base, layout="half", rope_scaling=params)
    half = dim // 2
    for row, m in enumerate(positions):
        for i, t in enumerate(expected_theta):
            c, s = math.cos(m * t), math.sin(m * t)
            x1, x2 = x[row, i].item(), x[row, i + half].item()
            assert got[row, i].item() == pytest.approx(a * (x1 * c - x2 * s), abs=1e-12)
            assert got[row, i + half].item() == pytest.approx(a * (x1 * s + x2 * c), abs=1e-12)


def test_apply_rope_with_explicit_inv_freq_and_attention_factor():
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    freqs = [0.5, 0.25, 0.125, 0.0625]
    got = apply_rope(x, base=10000.0, layout="interleaved", method="pairs", inv_freq=freqs, attention_factor=1.5)
    for m in range(5):
        for i, t in enumerate(freqs):
            c, s = math.cos(m * t), math.sin(m * t)
            a, b = x[..., m, 2 * i], x[..., m, 2 * i + 1]
            torch.testing.assert_close(got[..., m, 2 * i], 1.5 * (a * c - b * s), rtol=0, atol=1e-12)
            torch.testing.assert_close(got[..., m, 2 * i + 1], 1.5 * (a * s + b * c), rtol=0, atol=1e-12)


def test_apply_rope_without_scaling_is_unchanged():
    x = torch.randn(3, 6, 32)
    assert torch.equal(apply_rope(x, rope_scaling=None), apply_rope(x))


# ----------------------------------------------------------------------------- validation

@pytest.mark.parametrize("params,match", [
    ({"rope_type": "quadratic"}, "rope_type"),
    ({"rope_type": 3}, "rope_type"),
    ("linear", "dict"),
    ({"rope_type": "linear"}, "factor"),
    ({"rope_type": "linear", "factor": 0}, "factor"),
    ({"rope_type": "linear", "factor": -2.0}, "factor"),
    ({"rope_type": "linear", "factor": float("nan")}, "factor"),
    ({"rope_type": "linear", "factor": float("inf")}, "factor"),
    ({"rope_type": "linear", "factor": True}, "factor"),
    ({"rope_type": "linear", "factor": "2"}, "factor"),
    ({"rope_type": "linear", "factor": 2.0, "low_freq_factor": 1.0}, "low_freq_factor"),
    ({"rope_type": "ntk", "factor": 2.0, "surprise": 1}, "surprise"),
    ({"rope_type": "dynamic", "factor": 2.0}, "max_position_embeddings"),
    ({"rope_type": "yarn", "factor": 4.0}, "original_max_position_embeddings"),
    ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 0}, "original_max_position_embeddings"),
    ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096.5},
     "original_max_position_embeddings"),
    ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096, "beta_fast": 0},
     "beta_fast"),
    ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096, "beta_fast": 1,
      "beta_slow": 32}, "beta_fast"),
    ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096, "truncate": "yes"},
     "truncate"),
    ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096, "mscale": -1},
     "mscale"),
    ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096, "attention_factor": 0},
     "attention_factor"),
    ({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192},
     "high_freq_factor"),
    ({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 4.0, "high_freq_factor": 2.0,
      "original_max_position_embeddings": 8192}, "high_freq_factor"),
    ({"rope_type": "proportional", "partial_rotary_factor": 1.5}, "partial_rotary_factor"),
    ({"rope_type": "proportional", "partial_rotary_factor": 0.25, "factor": 0}, "factor"),
    ({"rope_type": "longrope", "long_factor": [1.0] * 4, "original_max_position_embeddings": 8}, "short_factor"),
    ({"rope_type": "longrope", "short_factor": [1.0] * 3, "long_factor": [1.0] * 4,
      "original_max_position_embeddings": 8}, "short_factor"),
    ({"rope_type": "longrope", "short_factor": [1.0] * 4, "long_factor": [1.0] * 5,
      "original_max_position_embeddings": 8}, "long_factor"),
    ({"rope_type": "longrope", "short_factor": [1.0, 0.0, 1.0, 1.0], "long_factor": [1.0] * 4,
      "original_max_position_embeddings": 8}, "short_factor"),
    ({"rope_type": "longrope", "short_factor": [1.0, "x", 1.0, 1.0], "long_factor": [1.0] * 4,
      "original_max_position_embeddings": 8}, "short_factor"),
    ({"rope_type": "longrope", "short_factor": "1111", "long_factor": [1.0] * 4,
      "original_max_position_embeddings": 8}, "short_factor"),
    ({"rope_type": "longrope", "short_factor": [1.0] * 4, "long_factor": [1.0, float("nan"), 1.0, 1.0],
      "original_max_position_embeddings": 8}, "long_factor"),
])
def test_bad_scaling_raises_value_error_naming_the_key(params, match):
    with pytest.raises(ValueError, match=match):
        scaled_inv_freq(8, 10000.0, params)


@pytest.mark.parametrize("kwargs,match", [
    ({"dim": 7}, "dim"), ({"dim": 0}, "dim"), ({"base": 0.0}, "base"), ({"base": float("nan")}, "base"),
    ({"max_position_embeddings": 0}, "max_position_embeddings"),
    ({"max_position_embeddings": 1 << 40}, "max_position_embeddings"),
    ({"seq_len": 0}, "seq_len"), ({"seq_len": 2.5}, "seq_len"),
])
def test_bad_arguments_raise(kwargs, match):
    args = dict({"dim": 8, "base": 10000.0, "rope_scaling": {"rope_type": "linear", "factor": 2.0}}, **kwargs)
    with pytest.raises(ValueError, match=match):
        scaled_inv_freq(args.pop("dim"), args.pop("base"), args.pop("rope_scaling"), **args)


def test_ntk_needs_more_than_one_pair():
    with pytest.raises(ValueError, match="rotary_dim > 2"):
        scaled_inv_freq(2, 10000.0, {"rope_type": "ntk", "factor": 2.0})


def test_apply_rope_rejects_conflicting_frequency_arguments():
    x = torch.randn(4, 8)
    with pytest.raises(ValueError, match="not both"):
        apply_rope(x, rope_scaling={"rope_type": "linear", "factor": 2.0}, inv_freq=[1.0] * 4)
    with pytest.raises(ValueError, match="inv_freq"):
        apply_rope(x, inv_freq=[1.0] * 3)
    with pytest.raises(ValueError, match="inv_freq"):
        apply_rope(x, inv_freq=[1.0, 1.0, float("inf"), 1.0])
    with pytest.raises(ValueError, match="attention_factor"):
        apply_rope(x, inv_freq=[1.0] * 4, attention_factor=-1.0)
    with pytest.raises(ValueError, match="attention_factor"):
        apply_rope(x, rope_scaling={"rope_type": "linear", "factor": 2.0}, attention_factor=2.0)
    with pytest.raises(ValueError, match="factor"):
        apply_rope(x, rope_scaling={"rope_type": "linear", "factor": -2.0})


def test_registry_has_one_documented_function_per_type():
    assert set(ROPE_SCALINGS) == {"default", "linear", "ntk", "ntk_alpha", "dynamic", "yarn", "longrope", "llama3",
                                  "proportional"}
    for function in ROPE_SCALINGS.values():
        assert function.__doc__ and ("theta" in function.__doc__ or "base" in function.__doc__)


def test_report_measured_differences(capsys):
    """Runs last in this file: prints the largest differences measured against transformers."""
    assert MEASURED, "the comparisons above recorded nothing"
    with capsys.disabled():
        for kind, value in sorted(MEASURED.items()):
            print(f"\n  max difference vs transformers, {kind}: {value:.3g}", end="")
    assert all(value < 1e-2 for value in MEASURED.values())


@pytest.mark.parametrize("dim,base,fraction,factor", [(512, 1e6, 0.25, 1.0), (256, 1e4, 0.5, 1.0),
                                                      (128, 5e5, 0.3, 2.0), (64, 1e4, 1.0, 1.0)])
def test_proportional_matches_transformers(dim, base, fraction, factor):
    """Gemma 4's global layers: only the first floor(p*d/2) pairs turn, with the whole head's exponents."""
    params = {"rope_type": "proportional", "partial_rotary_factor": fraction, "factor": factor}
    config = LlamaConfig(hidden_size=dim * 2, num_attention_heads=2, head_dim=dim,
                         rope_parameters=dict(params, rope_theta=base))
    expected, expected_factor = ROPE_INIT_FUNCTIONS["proportional"](config, "cpu")
    ours, attention_factor = scaled_inv_freq(dim, base, params)
    turning = int(fraction * dim // 2)
    assert ours.shape == expected.shape == (dim // 2,)
    assert torch.equal(ours[turning:], torch.zeros(dim // 2 - turning, dtype=torch.float64))
    by_hand = torch.tensor([base ** (-2 * i / dim) / factor for i in range(turning)], dtype=torch.float64)
    torch.testing.assert_close(ours[:turning], by_hand, rtol=1e-13, atol=0)
    torch.testing.assert_close(ours, expected.double(), rtol=RTOL, atol=0)
    assert attention_factor == expected_factor == 1.0


def test_llama3_with_equal_band_factors_matches_transformers():
    """Llama 4 Scout: low_freq_factor = high_freq_factor = 1 (transformers warns and runs it)."""
    params = {"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0, "high_freq_factor": 1.0,
              "original_max_position_embeddings": 8192}
    expected, _ = hf_inv_freq(128, 5e5, params, 131072)
    ours, _ = scaled_inv_freq(128, 5e5, params, max_position_embeddings=131072)
    theta = torch.tensor([5e5 ** (-2 * i / 128) for i in range(64)], dtype=torch.float64)
    by_hand = torch.where(2 * math.pi / theta < 8192, theta, theta / 16)
    torch.testing.assert_close(ours, by_hand, rtol=1e-13, atol=0)
    torch.testing.assert_close(ours, expected.double(), rtol=RTOL, atol=0)


def test_a_type_registered_in_the_registry_is_used_with_its_own_keys(monkeypatch):
    def halved(dim, base, params, max_position_embeddings, seq_len):
        theta = torch.tensor([base ** (-2 * i / dim) for i in range(dim // 2)], dtype=torch.float64)
        return theta / params["divisor"], 1.0

    monkeypatch.setitem(ROPE_SCALINGS, "divided", halved)
    inv_freq, factor = scaled_inv_freq(8, 10000.0, {"rope_type": "divided", "divisor": 2.0})
    assert inv_freq.tolist() == pytest.approx([0.5, 0.05, 0.005, 0.0005]) and factor == 1.0
