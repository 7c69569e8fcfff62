"""RoPE scaling for long context: the inverse frequencies of real models, Hugging Face's way.

`scaled_inv_freq(dim, base, rope_scaling)` returns `(inv_freq, attention_factor)`, the same pair
that Hugging Face transformers' `ROPE_INIT_FUNCTIONS` compute from a model config (transformers
5.x, `modeling_rope_utils.py`), in float64. `rope_scaling` is the config's dict, e.g.
`{"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
"original_max_position_embeddings": 8192}`; the older key `type` is read like `rope_type`.

The attention factor multiplies cos and sin (so every attention logit q.k is scaled by its
square); it is 1.0 except for YaRN and LongRoPE.

Below, theta_i = base^(-2i/d) are the unscaled frequencies (`rope_viz.frequencies.inv_freq`),
d the rotary dimension, s the scaling factor, L the original (pre-training) context length and
lambda_i = 2*pi / theta_i the wavelength of pair i.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import torch

from ._checks import check_dim, check_int, check_positive, check_real
from .frequencies import inv_freq as _unscaled_inv_freq

# Keys each type reads (besides rope_type/type). A 5.x `rope_parameters` dict also carries
# rope_theta and partial_rotary_factor: they are accepted here and ignored (the caller passes
# base and dim; `rope_viz.models.model_rope` reads them).
_CARRIED_KEYS = frozenset({"rope_type", "type", "rope_theta", "partial_rotary_factor"})
_KEYS = {
    "default": frozenset(),
    "linear": frozenset({"factor"}),
    "ntk": frozenset({"factor"}),
    "ntk_alpha": frozenset({"alpha"}),
    "dynamic": frozenset({"factor"}),
    "yarn": frozenset({"factor", "original_max_position_embeddings", "attention_factor", "beta_fast",
                       "beta_slow", "mscale", "mscale_all_dim", "truncate"}),
    "longrope": frozenset({"factor", "original_max_position_embeddings", "attention_factor",
                           "short_factor", "long_factor"}),
    "llama3": frozenset({"factor", "original_max_position_embeddings", "low_freq_factor",
                         "high_freq_factor"}),
    "proportional": frozenset({"factor"}),
}
# Older names of the same method (Phi-3's first 128k release called LongRoPE "su").
_ALIASES = {"su": "longrope"}
MAX_CONTEXT = 1 << 26  # largest context length (positions) accepted from a config


# ----------------------------------------------------------------------------- value checks

def _where(key: str) -> str:
    return f"rope_scaling[{key!r}]"


def _real(params: Mapping, key: str, *, positive: bool = True, default=None, allow_zero: bool = False):
    """A finite real number (not a bool) from params, or `default` when the key is absent/None."""
    value = params.get(key)
    if value is None:
        return default
    if not positive:
        return check_real(value, _where(key))
    return check_real(value, _where(key), at_least=0) if allow_zero else check_positive(value, _where(key))


def _required(params: Mapping, key: str, rope_type: str, **kwargs):
    value = _real(params, key, **kwargs)
    if value is None:
        raise ValueError(f"{_where(key)} is required for rope_type {rope_type!r} (a finite number > 0)")
    return value


def _context(value, name: str) -> int:
    value = check_int(value, name, minimum=1)
    if value > MAX_CONTEXT:
        raise ValueError(f"{name} must be an integer between 1 and {MAX_CONTEXT:,}, got {value:,}")
    return value


def _original_context(params: Mapping, rope_type: str, max_position_embeddings) -> int:
    """L: original_max_position_embeddings, else max_position_embeddings (Hugging Face's default)."""
    value = params.get("original_max_position_embeddings")
    if value is None:
        if max_position_embeddings is None:
            raise ValueError(f"{_where('original_max_position_embeddings')} (or max_position_embeddings) "
                             f"is required for rope_type {rope_type!r}")
        return max_position_embeddings
    return _context(value, _where("original_max_position_embeddings"))


def _factor_or_ratio(params: Mapping, rope_type: str, max_position_embeddings, original: int) -> float:
    """s: `factor`, else max_position_embeddings / L (DeepSeek's and Phi-3's convention)."""
    factor = _real(params, "factor")
    if factor is None:
        if max_position_embeddings is None:
            raise ValueError(f"{_where('factor')} (or max_position_embeddings) is required for rope_type {rope_type!r}")
        factor = max_position_embeddings / original
    return factor


def _factor_list(params: Mapping, key: str, half: int) -> torch.Tensor:
    value = params.get(key)
    if value is None:
        raise ValueError(f"{_where(key)} is required for rope_type 'longrope' (a list of {half} numbers > 0)")
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ValueError(f"{_where(key)} must be a list of {half} numbers > 0, got {type(value).__name__}")
    if len(value) != half:
        raise ValueError(f"{_where(key)} must hold rotary_dim/2 = {half} numbers, got {len(value)}")
    return torch.tensor([check_positive(item, f"{_where(key)}[{i}]") for i, item in enumerate(value)],
                        dtype=torch.float64)


# ----------------------------------------------------------------------------- one function per type

def _default(dim, base, params, max_position_embeddings, seq_len):
    """Plain RoPE: theta_i = base^(-2i/d); attention factor 1."""
    return _unscaled_inv_freq(dim, base, dtype=torch.float64), 1.0


def _linear(dim, base, params, max_position_embeddings, seq_len):
    """Position interpolation (Chen et al. 2023; kaiokendev): theta_i' = theta_i / s, i.e. every
    position m is read as m / s. Attention factor 1."""
    factor = _required(params, "factor", "linear")
    return _unscaled_inv_freq(dim, base, dtype=torch.float64) / factor, 1.0


def _ntk_base(dim: int, base: float, stretch: float, rope_type: str) -> float:
    if dim <= 2:
        raise ValueError(f"rope_type {rope_type!r} needs rotary_dim > 2 (its exponent is d/(d-2)), got {dim}")
    return base * stretch ** (dim / (dim - 2))


def _ntk(dim, base, params, max_position_embeddings, seq_len):
    """Static NTK-aware scaling (bloc97): a larger base, base' = base * s^(d/(d-2)), so the slowest
    pair is interpolated by s while the fastest pairs barely change. Attention factor 1."""
    factor = _required(params, "factor", "ntk")
    return _unscaled_inv_freq(dim, _ntk_base(dim, base, factor, "ntk"), dtype=torch.float64), 1.0


def _ntk_alpha(dim, base, params, max_position_embeddings, seq_len):
    """HunYuan's NTK-alpha (transformers' "ntk_alpha", which its files label "dynamic" with an alpha): the
    static NTK base with alpha in place of s, base' = base * alpha^(d/(d-2)), fixed whatever the length.
    Attention factor 1."""
    alpha = _required(params, "alpha", "ntk_alpha")
    return _unscaled_inv_freq(dim, _ntk_base(dim, base, alpha, "ntk_alpha"), dtype=torch.float64), 1.0


def _dynamic(dim, base, params, max_position_embeddings, seq_len):
    """Dynamic NTK (emozilla): the NTK base grows with the current length n = max(seq_len, M),
    M = max_position_embeddings: base' = base * (s * n / M - (s - 1))^(d/(d-2)). Equal to plain
    RoPE up to n = M (seq_len None means n = M). Attention factor 1."""
    factor = _required(params, "factor", "dynamic")
    if max_position_embeddings is None:
        raise ValueError("max_position_embeddings is required for rope_type 'dynamic'")
    length = max_position_embeddings if seq_len is None else max(seq_len, max_position_embeddings)
    stretch = factor * length / max_position_embeddings - (factor - 1)
    return _unscaled_inv_freq(dim, _ntk_base(dim, base, stretch, "dynamic"), dtype=torch.float64), 1.0


def _yarn_mscale(scale: float, mscale: float = 1.0) -> float:
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def _yarn(dim, base, params, max_position_embeddings, seq_len):
    """YaRN (Peng et al. 2023): interpolate the slow pairs, keep the fast ones, ramp in between.

    With L the original context, beta_fast (default 32) and beta_slow (default 1), the pair index
    that turns r times over L is c(r) = d * ln(L / (2*pi*r)) / (2 ln base); low = floor(c(beta_fast)),
    high = ceil(c(beta_slow)) (no rounding when truncate is false), clamped to [0, d-1].
    ramp_i = clamp((i - low) / (high - low), 0, 1) and theta_i' = ramp_i * theta_i / s +
    (1 - ramp_i) * theta_i. Attention factor: `attention_factor` if given; else, when mscale and
    mscale_all_dim are both non-zero, m(s, mscale) / m(s, mscale_all_dim), otherwise m(s, 1), with
    m(s, k) = 0.1 k ln s + 1 for s > 1 and 1 for s <= 1. A missing factor is
    max_position_embeddings / L (DeepSeek's convention).
    """
    original = _original_context(params, "yarn", max_position_embeddings)
    factor = _factor_or_ratio(params, "yarn", max_position_embeddings, original)
    mscale = _real(params, "mscale", allow_zero=True)
    mscale_all_dim = _real(params, "mscale_all_dim", allow_zero=True)
    attention_factor = _real(params, "attention_factor")
    if attention_factor is None:
        if mscale and mscale_all_dim:
            attention_factor = _yarn_mscale(factor, mscale) / _yarn_mscale(factor, mscale_all_dim)
        else:
            attention_factor = _yarn_mscale(factor)
    beta_fast = _real(params, "beta_fast", default=32.0)
    beta_slow = _real(params, "beta_slow", default=1.0)
    if beta_fast < beta_slow:
        raise ValueError(f"{_where('beta_fast')} must be >= beta_slow; "
                         f"got beta_fast={beta_fast}, beta_slow={beta_slow}")
    truncate = params.get("truncate", True)
    if not isinstance(truncate, bool):
        raise ValueError(f"{_where('truncate')} must be true or false, got {truncate!r}")
    if base == 1.0:
        raise ValueError("base must differ from 1 for rope_type 'yarn' (its ramp divides by ln(base))")

    def correction_dim(rotations: float) -> float:
        return dim * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001  # Hugging Face's guard against a zero-width ramp
    ramp = ((torch.arange(dim // 2, dtype=torch.float64) - low) / (high - low)).clamp(0, 1)
    theta = _unscaled_inv_freq(dim, base, dtype=torch.float64)
    return theta / factor * ramp + theta * (1 - ramp), float(attention_factor)


def _longrope(dim, base, params, max_position_embeddings, seq_len):
    """LongRoPE (Ding et al. 2024; Phi-3): one rescale factor per pair, theta_i' = theta_i / f_i,
    with f = long_factor when seq_len > L (the original context) and f = short_factor otherwise
    (seq_len None counts as short). Attention factor: `attention_factor` if given, else
    sqrt(1 + ln s / ln L) for s > 1 and 1 for s <= 1, where s = factor, or
    max_position_embeddings / L when factor is absent."""
    half = dim // 2
    original = _original_context(params, "longrope", max_position_embeddings)
    short_factor = _factor_list(params, "short_factor", half)
    long_factor = _factor_list(params, "long_factor", half)
    factor = _factor_or_ratio(params, "longrope", max_position_embeddings, original)
    attention_factor = _real(params, "attention_factor")
    if attention_factor is None:
        if factor <= 1.0:
            attention_factor = 1.0
        elif original < 2:
            raise ValueError(f"{_where('original_max_position_embeddings')} must be >= 2 for the LongRoPE "
                             f"attention factor sqrt(1 + ln s / ln L), got {original}")
        else:
            attention_factor = math.sqrt(1 + math.log(factor) / math.log(original))
    rescale = long_factor if seq_len is not None and seq_len > original else short_factor
    return _unscaled_inv_freq(dim, base, dtype=torch.float64) / rescale, float(attention_factor)


def _llama3(dim, base, params, max_position_embeddings, seq_len):
    """Llama 3.1: by wavelength lambda_i against L / low_freq_factor and L / high_freq_factor.
    lambda_i < L / high_freq_factor: theta_i kept; lambda_i > L / low_freq_factor: theta_i / s;
    in between: (1 - g) * theta_i / s + g * theta_i with g = (L / lambda_i - low_freq_factor) /
    (high_freq_factor - low_freq_factor). Attention factor 1."""
    factor = _required(params, "factor", "llama3")
    low_freq_factor = _required(params, "low_freq_factor", "llama3")
    high_freq_factor = _required(params, "high_freq_factor", "llama3")
    if high_freq_factor < low_freq_factor:
        raise ValueError(f"{_where('high_freq_factor')} must be >= low_freq_factor; got "
                         f"high_freq_factor={high_freq_factor}, low_freq_factor={low_freq_factor}")
    original = _original_context(params, "llama3", max_position_embeddings)
    theta = _unscaled_inv_freq(dim, base, dtype=torch.float64)
    wavelen = 2 * math.pi / theta
    if high_freq_factor == low_freq_factor:  # Llama 4 Scout: no band between kept and scaled pairs
        return torch.where(wavelen < original / high_freq_factor, theta, theta / factor), 1.0
    smooth = (original / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    blended = (1 - smooth) * theta / factor + smooth * theta
    scaled = torch.where(wavelen > original / low_freq_factor, theta / factor, blended)
    return torch.where(wavelen < original / high_freq_factor, theta, scaled), 1.0


def _proportional(dim, base, params, max_position_embeddings, seq_len):
    """Proportional RoPE (Gemma 4's global layers): d is the whole head, p = partial_rotary_factor
    (default 1) and only the first n = floor(p * d / 2) pairs turn, at theta_i = base^(-2i/d) with the
    whole head's exponents; the other d/2 - n pairs get frequency 0 (they pass through unrotated).
    Every frequency is divided by `factor` (default 1). Returns d/2 entries. Attention factor 1."""
    fraction = _real(params, "partial_rotary_factor", default=1.0)
    if fraction > 1:
        raise ValueError(f"{_where('partial_rotary_factor')} must be in (0, 1], got {fraction}")
    factor = _real(params, "factor", default=1.0)
    theta = _unscaled_inv_freq(dim, base, dtype=torch.float64)
    theta[int(fraction * dim // 2):] = 0.0
    return theta / factor, 1.0


ROPE_SCALINGS = {
    "default": _default,
    "linear": _linear,
    "ntk": _ntk,
    "ntk_alpha": _ntk_alpha,
    "dynamic": _dynamic,
    "yarn": _yarn,
    "longrope": _longrope,
    "llama3": _llama3,
    "proportional": _proportional,
}
"""Registry: rope type name -> function(dim, base, params, max_position_embeddings, seq_len)
returning (inv_freq float64, attention_factor); each docstring states its formula. A new type is one more
entry (`ROPE_SCALINGS["mine"] = fn`); its function reads the keys it needs from params."""

ROPE_TYPES = tuple(ROPE_SCALINGS)


def rope_type_of(rope_scaling) -> str:
    """The rope type a rope_scaling dict names (`rope_type`, else `type`, else "default"), checked."""
    if rope_scaling is None:
        return "default"
    if not isinstance(rope_scaling, Mapping):
        raise ValueError(f"rope_scaling must be a dict (or None), got {type(rope_scaling).__name__}")
    name = rope_scaling.get("rope_type", rope_scaling.get("type"))
    if name is None:
        return "default"
    if not isinstance(name, str) or _ALIASES.get(name, name) not in ROPE_SCALINGS:
        allowed = ", ".join(map(repr, ROPE_TYPES + tuple(_ALIASES)))
        raise ValueError(f"rope_scaling['rope_type'] must be one of {allowed}; got {name!r}")
    return _ALIASES.get(name, name)


def scaled_inv_freq(dim: int, base: float = 10000.0, rope_scaling: Mapping | None = None, *,
                    max_position_embeddings: int | None = None,
                    seq_len: int | None = None) -> tuple[torch.Tensor, float]:
    """(inv_freq, attention_factor) of a scaled RoPE, as Hugging Face's ROPE_INIT_FUNCTIONS.

    dim: the rotary dimension d (even); inv_freq has d/2 entries, float64.
    rope_scaling: Hugging Face's dict (None or {} for plain RoPE). Types: default, linear, ntk
        (static NTK-aware, base * s^(d/(d-2))), ntk_alpha (the same with alpha for s), dynamic, yarn,
        longrope ("su" is read as longrope), llama3, proportional (d/2 entries, 0 past the turning
        fraction); see
        ROPE_SCALINGS for each formula. Absent keys take Hugging Face's
        defaults; original_max_position_embeddings defaults to max_position_embeddings.
    max_position_embeddings: the model's context length M (needed by dynamic, and by yarn /
        longrope / llama3 when the dict omits original_max_position_embeddings or factor).
    seq_len: the current sequence length (max position + 1): dynamic grows its base past M,
        longrope switches to long_factor past the original context.

    Cos and sin are multiplied by attention_factor (Hugging Face's `attention_scaling`).
    """
    dim = check_dim(dim)
    base = check_positive(base, "base")
    if max_position_embeddings is not None:
        max_position_embeddings = _context(max_position_embeddings, "max_position_embeddings")
    if seq_len is not None:
        seq_len = check_int(seq_len, "seq_len", minimum=1)
    rope_type = rope_type_of(rope_scaling)
    params = rope_scaling or {}
    keys = _KEYS.get(rope_type)  # None for a type registered in ROPE_SCALINGS without a key list: it reads its own
    unknown = set(params) - _CARRIED_KEYS - keys if keys is not None else set()
    if unknown:
        allowed = ", ".join(sorted(keys | {"rope_type"}))  # type: ignore[operator]  # keys is set when unknown is
        raise ValueError(f"rope_scaling has keys {sorted(map(str, unknown))} that rope_type {rope_type!r} "
                         f"does not use; allowed: {allowed}")
    inv_freq, attention_factor = ROPE_SCALINGS[rope_type](dim, base, params, max_position_embeddings, seq_len)
    if not bool(torch.isfinite(inv_freq).all()) or not math.isfinite(attention_factor):
        raise ValueError(f"rope_scaling {dict(params)!r} gives non-finite frequencies for dim={dim}, base={base}")
    return inv_freq, float(attention_factor)
