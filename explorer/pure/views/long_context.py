"""The long-context page's view: a model's RoPE (a preset or a pasted config), every scaling method's
frequencies at a target length, the angles never seen in training, expected scores past the trained
length, YaRN's attention factor on softmax sharpness and the dynamic-NTK cache mismatch."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from explorer.pure.knobs import format_base
from rope_viz import max_elements, model_rope, preset, scaled_inv_freq, wavelengths
from rope_viz.analysis import distance_grid, empirical_decay
from rope_viz.device import to_numpy
from rope_viz.long_context import (largest_angles, mixed_frequency_scores, pair_bands, row_scores, scale_factors,
                                   softmax_entropy, unseen_pairs)

from explorer.pure.views.phrases import Metric, Phrase, metric, phrase
from explorer.pure.questions import Question

METHODS = ("linear", "ntk", "dynamic", "yarn", "llama3", "longrope")
DECAY_POINTS = 256  # distances at which the expected scores are evaluated
ROW_KEYS = 4096  # the softmax row: at most this many keys
TRAP_POINTS = 256  # cached keys drawn in the dynamic-NTK chart
MAX_SAMPLES = 128  # the top of the page's samples knob (explorer.pure.knobs)


class Setting(NamedTuple):
    """Everything the scaling curves depend on: the model (resolve_model's plain values), the target and
    trained lengths, the factor s, YaRN's betas and Llama 3's band factors."""
    model: dict
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


def resolve_model(preset_name: str, config_text: str) -> dict:
    """The RoPE of a pasted config (when `config_text` holds one), else of the preset, as plain values.

    A pasted config is read and checked completely before the page uses it; a refused one leaves the
    preset in its place, and `refused` says why: ("invalid", the core's ValueError message), ("overflow",
    the exception's name: a number too large for a float power or product) or ("too_large", (the
    config's rotary size, `max_rotary_dim()`)); None when nothing was refused.
    original: the trained context L (the scaling's original_max_position_embeddings, else
    max_position_embeddings); scaling: the model's own rope_scaling as a plain dict, or None."""
    refused, model = None, None
    if config_text.strip():
        try:
            model = _plain_model(model_rope(config_text))
        except ValueError as err:
            refused = ("invalid", str(err))
        except (ArithmeticError, RecursionError) as err:
            refused = ("overflow", type(err).__name__)
        if model is not None and model["rotary_dim"] > max_rotary_dim():
            refused, model = ("too_large", (model["rotary_dim"], max_rotary_dim())), None
    pasted = model is not None
    if model is None:
        model = _plain_model(preset(preset_name))
    return {**model, "refused": refused, "pasted": pasted}


def _plain_model(model) -> dict:
    """A ModelRoPE as the plain values the page uses, each read once (so a bad one raises here)."""
    model.inv_freq()  # a model with no rotary layer at all (BERT) raises ValueError here
    scaling = None if model.rope_scaling is None else {
        key: list(value) if isinstance(value, tuple) else value for key, value in model.rope_scaling.items()}
    original = (scaling or {}).get("original_max_position_embeddings") or model.max_position_embeddings or 4096
    return {"name": model.name, "model_type": model.model_type, "head_dim": model.head_dim,
            "rotary_dim": model.rotary_dim, "base": model.base,
            "rope_type": model.rope_type, "max_pos": model.max_position_embeddings, "original": int(original),
            "scaling": scaling}


def method_scalings(model: dict, target: int, original: int, factor: float, beta_fast: float, beta_slow: float,
                    low_freq: float, high_freq: float) -> dict:
    """{method: (rope_scaling dict, max_position_embeddings, seq_len)} for every method this model can run
    at `target` (LongRoPE only with the model's own factor lists), and "model": the config's own scaling
    untouched by the sliders, when the config scales with one of METHODS."""
    common = {"factor": factor, "original_max_position_embeddings": original}
    out = {
        "linear": ({"rope_type": "linear", "factor": factor}, None, None),
        "ntk": ({"rope_type": "ntk", "factor": factor}, None, None),
        "dynamic": ({"rope_type": "dynamic", "factor": factor}, original, target),
        "yarn": ({"rope_type": "yarn", **common, "beta_fast": beta_fast, "beta_slow": beta_slow}, None, None),
        "llama3": ({"rope_type": "llama3", **common, "low_freq_factor": low_freq, "high_freq_factor": high_freq},
                   None, None),
    }
    scaling = model["scaling"] or {}
    if model["rope_type"] == "longrope":
        out["longrope"] = ({"rope_type": "longrope", **common, "short_factor": scaling["short_factor"],
                            "long_factor": scaling["long_factor"]}, None, target)
    if model["scaling"] is not None and model["rope_type"] in METHODS:
        # the model's own: its config's factor, bands, betas and attention factor, as transformers runs it
        out["model"] = (model["scaling"], model["max_pos"], target)
    return out


def scaling_curves(model: dict, target: int, original: int, factor: float, beta_fast: float, beta_slow: float,
                   low_freq: float, high_freq: float) -> dict:
    """Per pair and per method: scale factor theta_i / theta_i', wavelength, bands of pairs, the largest
    angle reached at `target` (capped at 2 pi) and how many pairs turn further than in training.

    Methods the model cannot run (e.g. NTK with a rotary size of 2) land in `skipped` with the reason."""
    dim, base = model["rotary_dim"], model["base"]
    plain, _ = scaled_inv_freq(dim, base)
    out = {"pairs": np.arange(dim // 2, dtype=np.float32), "plain_wavelength": to_numpy(wavelengths(dim, base)),
           "trained_angle": to_numpy(largest_angles(plain, original)),
           "plain_angle": to_numpy(largest_angles(plain, target)),
           "plain_unseen": int(unseen_pairs(plain, original, plain, target).sum()),
           "methods": {}, "skipped": {}, "factor": factor, "original": original, "target": target}
    for name, (scaling, max_pos, seq_len) in method_scalings(model, target, original, factor, beta_fast, beta_slow,
                                                             low_freq, high_freq).items():
        try:
            freqs, attention_factor = scaled_inv_freq(dim, base, scaling, max_position_embeddings=max_pos,
                                                      seq_len=seq_len)
        except (ValueError, ArithmeticError) as err:  # e.g. a float power past 1e308 in a model's scaling
            out["skipped"][name] = str(err) or type(err).__name__
            continue
        ratio = scale_factors(plain, freqs)
        out["methods"][name] = {
            "inv_freq": freqs.tolist(), "attention_factor": attention_factor,
            "factors": to_numpy(ratio), "wavelength": to_numpy(2 * np.pi / freqs),
            "bands": pair_bands(ratio, factor), "angle": to_numpy(largest_angles(freqs, target)),
            "unseen": int(unseen_pairs(plain, original, freqs, target).sum()),
        }
    return out


def score_grid(target: int):
    """The distances of the expected scores: up to DECAY_POINTS from 0 to target, log-spaced (integers, so
    the first decades hold fewer)."""
    return distance_grid(target, DECAY_POINTS, log=True)


def score_points(target: int) -> int:
    """How many distances the expected scores are drawn at (the caption's count)."""
    return len(score_grid(target))


def expected_scores(dim: int, base: float, inv_freqs: dict, target: int, samples: int, seed: int) -> dict:
    """Mean q . R_r k (entries uniform in [0, 1); `free` independent, `tied` q = k) at up to DECAY_POINTS
    distances from 0 to target, spaced evenly on a log axis, plain RoPE ("plain") and each method of
    `inv_freqs` ({name: list})."""
    grid = score_grid(target)
    out = {"distances": to_numpy(grid), "free": {}, "tied": {}}
    for name, freqs in {"plain": None, **inv_freqs}.items():
        for kind, tied in (("free", False), ("tied", True)):
            out[kind][name] = to_numpy(empirical_decay(dim, base, grid, samples=samples, seed=seed, tied=tied,
                                                       inv_freq=freqs))
    return out


def softmax_row(dim: int, inv_freq: list, attention_factor: float, target: int, seed: int) -> dict:
    """One query at the last of n = min(target, ROW_KEYS) positions against keys at every position, YaRN's
    frequencies, without and with the attention factor (which multiplies every logit by its square): the
    entropy of the softmax weights, e^entropy (the number of equal weights with that entropy), and the share
    of the weight held by the k largest, k = 1..n ("ranks"; "share_<name>", float32, rising to 1; a flat
    row's is k / n, "share_flat")."""
    n = min(target, ROW_KEYS)
    keys = np.arange(n, dtype=np.float64)
    ranks = np.arange(1, n + 1)
    out = {"keys": n, "ranks": ranks.astype(np.float32), "log_n": float(np.log(n)),
           "share_flat": (ranks / n).astype(np.float32), "attention_factor": attention_factor}
    for name, factor in (("without", 1.0), ("with", attention_factor)):
        scores = row_scores(dim, n - 1, keys, inv_freq, attention_factor=factor, seed=seed)
        out[f"entropy_{name}"] = float(softmax_entropy(scores))
        out[f"effective_{name}"] = float(np.exp(out[f"entropy_{name}"]))
        out[f"share_{name}"] = to_numpy(scores.softmax(dim=-1).sort(descending=True).values.cumsum(dim=0))
    return out


def dynamic_trap(dim: int, base: float, original: int, factor: float, prompt: int, target: int, samples: int,
                 seed: int) -> dict:
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
    return {"distances": to_numpy(query - keys), "cached": to_numpy(cached), "consistent": to_numpy(consistent),
            "max_shift": float(shift.max()), "relative": float(shift.max() / consistent.abs().max()),
            "worst_distance": int(query - keys[int(shift.argmax())]),
            "same_frequencies": bool((query_freqs == key_freqs).all())}


def method_phrase(name: str) -> Phrase:
    """A method's name in legends, tables and notices ("model": the config's own scaling)."""
    return phrase(f"long_context.method_{name}")


def refusal(model: dict, preset_name: str) -> Phrase | None:
    """Why a pasted config was not used (resolve_model's `refused`), said next to its box; None if it was."""
    if model["refused"] is None:
        return None
    reason, detail = model["refused"]
    if reason == "too_large":
        return phrase("long_context.config_too_large", rotary_dim=detail[0], limit=detail[1], samples=MAX_SAMPLES,
                      points=DECAY_POINTS, preset=preset_name)
    return phrase(f"long_context.config_{reason}", detail=detail, preset=preset_name)


def model_line(model: dict) -> Phrase:
    """The model in one line: its name, where it comes from and its RoPE."""
    return phrase("long_context.model_line", name=model["name"], head_dim=model["head_dim"],
                  rotary_dim=model["rotary_dim"], base=format_base(model["base"]), rope_type=model["rope_type"],
                  original=model["original"], source=phrase("long_context.source_pasted" if model["pasted"]
                                                            else "long_context.source_preset"))


def focus_for(choice: str, curves: dict, rope_type: str) -> tuple[str, Phrase | None]:
    """The method drawn strong, and a notice when the chosen one cannot run here. "model" means the
    config's own scaling (its rope_type when the sliders' version is all there is); a method the model
    lacks (LongRoPE without factor lists, a method that failed for this model) or a rope type that is no
    method of this page (Gemma 4's "proportional", which sets which pairs turn and stretches nothing) gives
    way to YaRN, else to the first method there is, and the notice says which case it is."""
    methods = curves["methods"]
    focus = choice if choice != "model" else "model" if "model" in methods else rope_type
    if focus in methods or focus == "default":
        return focus, None
    fallback = "yarn" if "yarn" in methods else next(iter(methods), "default")
    instead = method_phrase(fallback) if fallback in METHODS else fallback
    if focus in curves["skipped"]:
        notice = phrase("long_context.focus_skipped", method=method_phrase(focus), instead=instead)
    elif focus == "longrope":
        notice = phrase("long_context.focus_missing", instead=instead)
    else:
        notice = phrase("long_context.focus_own_type", rope_type=focus, instead=instead)
    return fallback, notice


def _band(indices: list) -> Phrase:
    if not indices:
        return phrase("long_context.band_none")
    return phrase("long_context.band_range", count=len(indices), first=indices[0], last=indices[-1])


def band_table(curves: dict) -> dict:
    """Per method, how many pairs are left alone, interpolated and blended, and the attention factor:
    columns (header text key -> cells) for explorer.app.layout.table."""
    methods = curves["methods"]
    columns = {"long_context.band_method": [method_phrase(name) for name in methods]}
    for band in ("kept", "interpolated", "blended"):
        columns[f"long_context.band_{band}"] = [_band(m["bands"][band]) for m in methods.values()]
    columns["long_context.band_factor"] = [f"{m['attention_factor']:.4f}" for m in methods.values()]
    return columns


def wavelength_result(curves: dict) -> Phrase:
    """How many pairs of plain RoPE never complete a turn within the trained length."""
    return phrase("long_context.wavelength_result", longer=int((curves["plain_wavelength"] > curves["original"]).sum()),
                  pairs=len(curves["pairs"]), original=curves["original"])


def unseen_metrics(curves: dict) -> list[Metric]:
    """Pairs that turn further at the target than in training: plain RoPE, then each method."""
    pairs = len(curves["pairs"])
    out = [metric("long_context.unseen_plain", phrase("long_context.unseen_value", count=curves["plain_unseen"],
                                                        pairs=pairs))]
    out += [metric("long_context.unseen_method", phrase("long_context.unseen_value", count=m["unseen"], pairs=pairs),
                   method=method_phrase(name)) for name, m in curves["methods"].items()]
    return out


def entropy_metrics(row: dict) -> list[Metric]:
    """The softmax row's entropy without and with the attention factor, beside a flat row's ln n."""
    return [metric("long_context.entropy_without", f"{row['entropy_without']:.3f}"),
            metric("long_context.entropy_with", f"{row['entropy_with']:.3f}"),
            metric("long_context.entropy_flat", f"{row['log_n']:.3f}")]


def entropy_result(row: dict) -> Phrase:
    a = row["attention_factor"]
    return phrase("long_context.entropy_result", a=a, a2=a ** 2, without=row["entropy_without"],
                  with_=row["entropy_with"], n=row["keys"], keys_without=row["effective_without"],
                  keys_with=row["effective_with"])


def trap_args(setting: Setting, curves: dict, prompt: int, samples: int, seed: int) -> tuple | None:
    """dynamic_trap's arguments for this setting, or None when the comparison cannot be drawn (no
    dynamic NTK for this model, or a prompt not shorter than the target)."""
    model = setting.model
    if prompt >= setting.target or "dynamic" not in curves["methods"]:
        return None
    return (model["rotary_dim"], model["base"], setting.original, setting.factor, prompt, setting.target, samples,
            seed)


def trap_reading(trap: dict, args: tuple) -> tuple[list[Metric], Phrase]:
    """The cache trap's largest score shift (absolute and relative) and its sentence."""
    _dim, _base, original, _factor, prompt, target, _samples, _seed = args
    metrics = [metric("long_context.trap_shift", f"{trap['max_shift']:.3g}"),
               metric("long_context.trap_relative", f"{trap['relative']:.1%}")]
    said = phrase("long_context.trap_same" if trap["same_frequencies"] else "long_context.trap_result",
                  prompt=prompt, target=target, original=original, shift=trap["max_shift"],
                  relative=trap["relative"], distance=trap["worst_distance"])
    return metrics, said


# The questions that end the page (explorer.pure.questions).
QUIZ = (Question("pi_wavelength"), Question("ntk_fastest"))
