"""The long-context page's view: a model's RoPE (a preset or a pasted config), every scaling method's
frequencies at a target length, the angles never seen in training, expected scores past the trained
length, YaRN's attention factor on softmax sharpness and the dynamic-NTK cache mismatch."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np
import torch

from explorer.pure.knobs import format_base
from rope_viz import ModelRoPE, max_elements, model_rope, preset, scaled_inv_freq, wavelengths
from rope_viz.analysis import distance_grid, empirical_decay
from rope_viz.device import to_numpy
from rope_viz.long_context import (largest_angles, mixed_frequency_scores, pair_bands, row_scores, scale_factors,
                                   softmax_entropy, unseen_pairs)

from explorer.pure.views.phrases import Metric, Phrase, metric, phrase
from explorer.pure.questions import Question

# the charts the page draws at its defaults, by key, in order (read by tests/apptest/test_every_page.py)
CHARTS = ("factors", "wavelengths", "angles", "scores_free", "scores_tied", "softmax_row", "dynamic_trap")

METHODS = ("linear", "ntk", "dynamic", "yarn", "llama3", "longrope")
DECAY_POINTS = 256  # distances at which the expected scores are evaluated
ROW_KEYS = 4096  # the softmax row: at most this many keys
TRAP_POINTS = 256  # cached keys drawn in the dynamic-NTK chart
MAX_SAMPLES = 128  # the top of the page's samples knob (explorer.pure.knobs)
UNSTATED_CONTEXT = 4_096  # the trained length taken for a config that states none


class Refusal(NamedTuple):
    """Why a pasted config was not used: reason "invalid" (detail: the core's ValueError message),
    "overflow" (detail: the exception's name, for a number too large for a float power or product) or
    "too_large" (the config's rotary size `rotary_dim` is past `limit`, max_rotary_dim())."""
    reason: str
    detail: str = ""
    rotary_dim: int = 0
    limit: int = 0


@dataclass(frozen=True)
class PageModel:
    """The RoPE the page works with, as plain values read once from a ModelRoPE (a preset's or a pasted
    config's). original: the trained context L (the scaling's original_max_position_embeddings, else
    max_position_embeddings, else UNSTATED_CONTEXT); max_pos: max_position_embeddings as the config states
    it; scaling: the model's own rope_scaling as a plain dict (lists for its factor lists), or None;
    pasted: whether a pasted config is used; refused: why a pasted one was not, or None."""
    name: str
    model_type: str | None
    head_dim: int
    rotary_dim: int
    base: float
    rope_type: str
    max_pos: int | None
    original: int
    scaling: dict[str, Any] | None
    pasted: bool = False
    refused: Refusal | None = None


class Setting(NamedTuple):
    """Everything the scaling curves depend on: the model, the target and trained lengths, the factor s,
    YaRN's betas and Llama 3's band factors."""
    model: PageModel
    target: int
    original: int
    factor: float
    beta_fast: float
    beta_slow: float
    low_freq: float
    high_freq: float


def max_rotary_dim() -> int:
    """The largest rotary size this page computes: its expected scores and its dynamic-NTK chart take
    samples x points x rotary_dim numbers, at most MAX_SAMPLES x max(DECAY_POINTS, TRAP_POINTS) x this,
    within the core's element budget (4,096 with the default budget)."""
    return max_elements() // (MAX_SAMPLES * max(DECAY_POINTS, TRAP_POINTS))


def resolve_model(preset_name: str, config_text: str) -> PageModel:
    """The RoPE of a pasted config (when `config_text` holds one), else of the preset.

    A pasted config is read and checked completely before the page uses it; a refused one leaves the
    preset in its place, and `refused` says why."""
    refused, model = None, None
    if config_text.strip():
        try:
            model = _page_model(model_rope(config_text))
        except ValueError as err:
            refused = Refusal("invalid", str(err))
        except (ArithmeticError, RecursionError) as err:
            refused = Refusal("overflow", type(err).__name__)
        if model is not None and model.rotary_dim > max_rotary_dim():
            refused, model = Refusal("too_large", rotary_dim=model.rotary_dim, limit=max_rotary_dim()), None
    if model is not None:
        return replace(model, pasted=True)
    return replace(_page_model(preset(preset_name)), refused=refused)


def _page_model(model: ModelRoPE) -> PageModel:
    """A ModelRoPE as the plain values the page uses, each read once (so a bad one raises here)."""
    model.inv_freq()  # a model with no rotary layer at all (BERT) raises ValueError here
    scaling: dict[str, Any] | None = None if model.rope_scaling is None else {
        key: list(value) if isinstance(value, tuple) else value for key, value in model.rope_scaling.items()}
    original = ((scaling or {}).get("original_max_position_embeddings") or model.max_position_embeddings
                or UNSTATED_CONTEXT)
    assert model.base is not None  # a model with a rotary layer has a base
    return PageModel(name=model.name, model_type=model.model_type, head_dim=model.head_dim,
                     rotary_dim=model.rotary_dim, base=model.base, rope_type=model.rope_type,
                     max_pos=model.max_position_embeddings, original=int(original), scaling=scaling)


class MethodScaling(NamedTuple):
    """How one method is run: the rope_scaling it is given, and the max_position_embeddings and seq_len
    scaled_inv_freq takes with it (None where the method needs none)."""
    rope_scaling: dict
    max_position_embeddings: int | None = None
    seq_len: int | None = None


def method_scalings(model: PageModel, target: int, original: int, factor: float, beta_fast: float,
                    beta_slow: float, low_freq: float, high_freq: float) -> dict[str, MethodScaling]:
    """{method: its MethodScaling} for every method this model can run at `target` (LongRoPE only with the
    model's own factor lists), and "model": the config's own scaling untouched by the sliders, when the
    config scales with one of METHODS."""
    common = {"factor": factor, "original_max_position_embeddings": original}
    out = {
        "linear": MethodScaling({"rope_type": "linear", "factor": factor}),
        "ntk": MethodScaling({"rope_type": "ntk", "factor": factor}),
        "dynamic": MethodScaling({"rope_type": "dynamic", "factor": factor}, original, target),
        "yarn": MethodScaling({"rope_type": "yarn", **common, "beta_fast": beta_fast, "beta_slow": beta_slow}),
        "llama3": MethodScaling({"rope_type": "llama3", **common, "low_freq_factor": low_freq,
                                 "high_freq_factor": high_freq}),
    }
    scaling = model.scaling or {}
    if model.rope_type == "longrope":
        out["longrope"] = MethodScaling({"rope_type": "longrope", **common, "short_factor": scaling["short_factor"],
                                         "long_factor": scaling["long_factor"]}, None, target)
    if model.scaling is not None and model.rope_type in METHODS:
        # the model's own: its config's factor, bands, betas and attention factor, as transformers runs it
        out["model"] = MethodScaling(model.scaling, model.max_pos, target)
    return out


@dataclass(frozen=True)
class MethodCurves:
    """One method's frequencies and what they do, per pair: inv_freq (float64, as the core computed them),
    attention_factor, factors theta_i / theta_i', wavelength and the largest angle reached at the target
    (float32, for drawing), bands (pairs kept, interpolated, blended) and unseen (how many pairs turn
    further at the target than in training)."""
    inv_freq: np.ndarray
    attention_factor: float
    factors: np.ndarray
    wavelength: np.ndarray
    bands: dict[str, list[int]]
    angle: np.ndarray
    unseen: int


@dataclass(frozen=True)
class ScalingCurves:
    """Plain RoPE and every method at a setting: pairs (float32 indices, for drawing); plain RoPE's
    wavelength, largest angle within the trained length and at the target, and its unseen pairs; methods:
    {method: MethodCurves}; skipped: {method the model cannot run: the reason}; the setting's factor,
    trained length `original` and `target`."""
    pairs: np.ndarray
    plain_wavelength: np.ndarray
    trained_angle: np.ndarray
    plain_angle: np.ndarray
    plain_unseen: int
    methods: dict[str, MethodCurves]
    skipped: dict[str, str]
    factor: float
    original: int
    target: int


def scaling_curves(model: PageModel, target: int, original: int, factor: float, beta_fast: float,
                   beta_slow: float, low_freq: float, high_freq: float) -> ScalingCurves:
    """Per pair and per method: scale factor theta_i / theta_i', wavelength, bands of pairs, the largest
    angle reached at `target` (capped at 2 pi) and how many pairs turn further than in training.

    Methods the model cannot run (e.g. NTK with a rotary size of 2) land in `skipped` with the reason."""
    dim, base = model.rotary_dim, model.base
    plain, _ = scaled_inv_freq(dim, base)
    methods: dict[str, MethodCurves] = {}
    skipped: dict[str, str] = {}
    for name, (scaling, max_pos, seq_len) in method_scalings(model, target, original, factor, beta_fast, beta_slow,
                                                             low_freq, high_freq).items():
        try:
            freqs, attention_factor = scaled_inv_freq(dim, base, scaling, max_position_embeddings=max_pos,
                                                      seq_len=seq_len)
        except (ValueError, ArithmeticError) as err:  # e.g. a float power past 1e308 in a model's scaling
            skipped[name] = str(err) or type(err).__name__
            continue
        ratio = scale_factors(plain, freqs)
        methods[name] = MethodCurves(
            inv_freq=freqs.detach().to("cpu", torch.float64).numpy(), attention_factor=attention_factor,
            factors=to_numpy(ratio), wavelength=to_numpy(2 * np.pi / freqs),
            bands=pair_bands(ratio, factor), angle=to_numpy(largest_angles(freqs, target)),
            unseen=int(unseen_pairs(plain, original, freqs, target).sum()),
        )
    return ScalingCurves(pairs=np.arange(dim // 2, dtype=np.float32),
                         plain_wavelength=to_numpy(wavelengths(dim, base)),
                         trained_angle=to_numpy(largest_angles(plain, original)),
                         plain_angle=to_numpy(largest_angles(plain, target)),
                         plain_unseen=int(unseen_pairs(plain, original, plain, target).sum()),
                         methods=methods, skipped=skipped, factor=factor, original=original, target=target)


def score_grid(target: int):
    """The distances of the expected scores: up to DECAY_POINTS from 0 to target, log-spaced (integers, so
    the first decades hold fewer)."""
    return distance_grid(target, DECAY_POINTS, log=True)


def score_points(target: int) -> int:
    """How many distances the expected scores are drawn at (the caption's count)."""
    return len(score_grid(target))


@dataclass(frozen=True)
class ExpectedScores:
    """Mean scores at `distances` (float32), {"plain" or a method: float32 curve}: `free` with q and k
    independent, `tied` with q = k."""
    distances: np.ndarray
    free: dict[str, np.ndarray]
    tied: dict[str, np.ndarray]


def expected_scores(dim: int, base: float, inv_freqs: dict[str, np.ndarray], target: int, samples: int,
                    seed: int) -> ExpectedScores:
    """Mean q . R_r k (entries uniform in [0, 1); `free` independent, `tied` q = k) at up to DECAY_POINTS
    distances from 0 to target, spaced evenly on a log axis, plain RoPE ("plain") and each method of
    `inv_freqs` ({name: its frequencies})."""
    grid = score_grid(target)
    curves: dict[str, dict[str, np.ndarray]] = {"free": {}, "tied": {}}
    for name, freqs in {"plain": None, **inv_freqs}.items():
        for kind, tied in (("free", False), ("tied", True)):
            curves[kind][name] = to_numpy(empirical_decay(dim, base, grid, samples=samples, seed=seed, tied=tied,
                                                          inv_freq=freqs))
    return ExpectedScores(distances=to_numpy(grid), free=curves["free"], tied=curves["tied"])


@dataclass(frozen=True)
class SoftmaxRow:
    """One query against `keys` keys, without and with the attention factor: the entropy of the softmax
    weights, e^entropy (`effective`: the number of equal weights with that entropy) and `share`, the share
    of the weight held by the k largest at each of `ranks` (k = 1..n, float32, rising to 1); a flat row's
    entropy is log_n and its share k / n (share_flat)."""
    keys: int
    ranks: np.ndarray
    log_n: float
    share_flat: np.ndarray
    attention_factor: float
    entropy_without: float
    entropy_with: float
    effective_without: float
    effective_with: float
    share_without: np.ndarray
    share_with: np.ndarray


def softmax_row(dim: int, inv_freq: np.ndarray, attention_factor: float, target: int, seed: int) -> SoftmaxRow:
    """One query at the last of n = min(target, ROW_KEYS) positions against keys at every position, YaRN's
    frequencies, without and with the attention factor (which multiplies every logit by its square)."""
    n = min(target, ROW_KEYS)
    keys = np.arange(n, dtype=np.float64)
    ranks = np.arange(1, n + 1)
    entropy, share = {}, {}
    for name, factor in (("without", 1.0), ("with", attention_factor)):
        scores = row_scores(dim, n - 1, keys, inv_freq, attention_factor=factor, seed=seed)
        entropy[name] = float(softmax_entropy(scores))
        share[name] = to_numpy(scores.softmax(dim=-1).sort(descending=True).values.cumsum(dim=0))
    return SoftmaxRow(keys=n, ranks=ranks.astype(np.float32), log_n=float(np.log(n)),
                      share_flat=(ranks / n).astype(np.float32), attention_factor=attention_factor,
                      entropy_without=entropy["without"], entropy_with=entropy["with"],
                      effective_without=float(np.exp(entropy["without"])),
                      effective_with=float(np.exp(entropy["with"])),
                      share_without=share["without"], share_with=share["with"])


@dataclass(frozen=True)
class DynamicTrap:
    """The cache trap's mean tied scores against the distance (float32): with the cached keys and with
    keys re-rotated consistently; the largest shift between them, absolute and relative to the largest
    consistent score, the distance where it is largest, and whether prompt and target share frequencies."""
    distances: np.ndarray
    cached: np.ndarray
    consistent: np.ndarray
    max_shift: float
    relative: float
    worst_distance: int
    same_frequencies: bool


def dynamic_trap(dim: int, base: float, original: int, factor: float, prompt: int, target: int, samples: int,
                 seed: int) -> DynamicTrap:
    """Dynamic NTK with a key cache: keys at positions 0..prompt-1 were rotated with the frequencies of
    length `prompt`, the query at target - 1 with those of length `target`. Mean tied score (q = k) against
    the distance, cached against consistent (keys re-rotated with the query's frequencies)."""
    scaling = {"rope_type": "dynamic", "factor": factor}
    query_freqs, _ = scaled_inv_freq(dim, base, scaling, max_position_embeddings=original, seq_len=target)
    key_freqs, _ = scaled_inv_freq(dim, base, scaling, max_position_embeddings=original, seq_len=prompt)
    keys = distance_grid(prompt - 1, TRAP_POINTS) if prompt > 1 else distance_grid(1, 2)[:1]
    query = target - 1
    cached = mixed_frequency_scores(dim, query, keys, query_freqs, key_freqs, samples=samples, tied=True, seed=seed)
    consistent = mixed_frequency_scores(dim, query, keys, query_freqs, query_freqs, samples=samples, tied=True,
                                        seed=seed)
    shift = (cached - consistent).abs()
    return DynamicTrap(distances=to_numpy(query - keys), cached=to_numpy(cached),
                       consistent=to_numpy(consistent), max_shift=float(shift.max()),
                       relative=float(shift.max() / consistent.abs().max()),
                       worst_distance=int(query - keys[int(shift.argmax())]),
                       same_frequencies=bool((query_freqs == key_freqs).all()))


def method_phrase(name: str) -> Phrase:
    """A method's name in legends, tables and notices ("model": the config's own scaling)."""
    return phrase(f"long_context.method_{name}")


def refusal(model: PageModel, preset_name: str) -> Phrase | None:
    """Why a pasted config was not used (resolve_model's `refused`), said next to its box; None if it was."""
    refused = model.refused
    if refused is None:
        return None
    if refused.reason == "too_large":
        return phrase("long_context.config_too_large", rotary_dim=refused.rotary_dim, limit=refused.limit,
                      samples=MAX_SAMPLES, points=DECAY_POINTS, preset=preset_name)
    return phrase(f"long_context.config_{refused.reason}", detail=refused.detail, preset=preset_name)


def model_line(model: PageModel) -> Phrase:
    """The model in one line: its name, where it comes from and its RoPE."""
    return phrase("long_context.model_line", name=model.name, head_dim=model.head_dim,
                  rotary_dim=model.rotary_dim, base=format_base(model.base), rope_type=model.rope_type,
                  original=model.original, source=phrase("long_context.source_pasted" if model.pasted
                                                         else "long_context.source_preset"))


class Focus(NamedTuple):
    """The method drawn strong, and a notice when the chosen one gave way to it (else None)."""
    method: str
    notice: Phrase | None


def focus_for(choice: str, curves: ScalingCurves, rope_type: str) -> Focus:
    """The method drawn strong, and a notice when the chosen one cannot run here. "model" means the
    config's own scaling (its rope_type when the sliders' version is all there is); a method the model
    lacks (LongRoPE without factor lists, a method that failed for this model) or a rope type that is no
    method of this page (Gemma 4's "proportional", which sets which pairs turn and stretches nothing) gives
    way to YaRN, else to the first method there is, and the notice says which case it is."""
    methods = curves.methods
    focus = choice if choice != "model" else "model" if "model" in methods else rope_type
    if focus in methods or focus == "default":
        return Focus(focus, None)
    fallback = "yarn" if "yarn" in methods else next(iter(methods), "default")
    instead = method_phrase(fallback) if fallback in METHODS else fallback
    if focus in curves.skipped:
        notice = phrase("long_context.focus_skipped", method=method_phrase(focus), instead=instead)
    elif focus == "longrope":
        notice = phrase("long_context.focus_missing", instead=instead)
    else:
        notice = phrase("long_context.focus_own_type", rope_type=focus, instead=instead)
    return Focus(fallback, notice)


def _band(indices: list[int]) -> Phrase:
    if not indices:
        return phrase("long_context.band_none")
    return phrase("long_context.band_range", count=len(indices), first=indices[0], last=indices[-1])


def band_table(curves: ScalingCurves) -> dict[str, list]:
    """Per method, how many pairs are left alone, interpolated and blended, and the attention factor:
    columns (header text key -> cells) for explorer.app.place.table."""
    methods = curves.methods
    columns: dict[str, list] = {"long_context.band_method": [method_phrase(name) for name in methods]}
    for band in ("kept", "interpolated", "blended"):
        columns[f"long_context.band_{band}"] = [_band(m.bands[band]) for m in methods.values()]
    columns["long_context.band_factor"] = [f"{m.attention_factor:.4f}" for m in methods.values()]
    return columns


def wavelength_result(curves: ScalingCurves) -> Phrase:
    """How many pairs of plain RoPE never complete a turn within the trained length."""
    return phrase("long_context.wavelength_result", longer=int((curves.plain_wavelength > curves.original).sum()),
                  pairs=len(curves.pairs), original=curves.original)


def unseen_metrics(curves: ScalingCurves) -> list[Metric]:
    """Pairs that turn further at the target than in training: plain RoPE, then each method."""
    pairs = len(curves.pairs)
    out = [metric("long_context.unseen_plain", phrase("long_context.unseen_value", count=curves.plain_unseen,
                                                        pairs=pairs))]
    out += [metric("long_context.unseen_method", phrase("long_context.unseen_value", count=m.unseen, pairs=pairs),
                   method=method_phrase(name)) for name, m in curves.methods.items()]
    return out


def entropy_metrics(row: SoftmaxRow) -> list[Metric]:
    """The softmax row's entropy without and with the attention factor, beside a flat row's ln n."""
    return [metric("long_context.entropy_without", f"{row.entropy_without:.3f}"),
            metric("long_context.entropy_with", f"{row.entropy_with:.3f}"),
            metric("long_context.entropy_flat", f"{row.log_n:.3f}")]


def entropy_result(row: SoftmaxRow) -> Phrase:
    a = row.attention_factor
    return phrase("long_context.entropy_result", a=a, a2=a ** 2, without=row.entropy_without,
                  with_=row.entropy_with, n=row.keys, keys_without=row.effective_without,
                  keys_with=row.effective_with)


class TrapSetting(NamedTuple):
    """dynamic_trap's arguments, in its order: the cache trap at one setting."""
    dim: int
    base: float
    original: int
    factor: float
    prompt: int
    target: int
    samples: int
    seed: int


def trap_args(setting: Setting, curves: ScalingCurves, prompt: int, samples: int, seed: int) -> TrapSetting | None:
    """dynamic_trap's arguments for this setting, or None when the comparison cannot be drawn (no
    dynamic NTK for this model, or a prompt not shorter than the target)."""
    if prompt >= setting.target or "dynamic" not in curves.methods:
        return None
    return TrapSetting(setting.model.rotary_dim, setting.model.base, setting.original, setting.factor, prompt,
                       setting.target, samples, seed)


class TrapReading(NamedTuple):
    """The cache trap's metrics and its sentence."""
    metrics: list[Metric]
    result: Phrase


def trap_reading(trap: DynamicTrap, args: TrapSetting) -> TrapReading:
    """The cache trap's largest score shift (absolute and relative) and its sentence."""
    metrics = [metric("long_context.trap_shift", f"{trap.max_shift:.3g}"),
               metric("long_context.trap_relative", f"{trap.relative:.1%}")]
    said = phrase("long_context.trap_same" if trap.same_frequencies else "long_context.trap_result",
                  prompt=args.prompt, target=args.target, original=args.original, shift=trap.max_shift,
                  relative=trap.relative, distance=trap.worst_distance)
    return TrapReading(metrics, said)


# The questions that end the page (explorer.pure.questions).
QUIZ = (Question("pi_wavelength"), Question("ntk_fastest"))
