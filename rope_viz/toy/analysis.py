"""What a trained toy model does with each rotation frequency, and what the wrong pair layout does.

After Barbero et al. (ICLR 2025, "Round and Round We Go! What makes Rotary Positional Encodings
useful?"), who found that Gemma 7B keeps its largest query and key norms in the lowest-frequency
pairs (semantic channels) and builds its sharp positional heads from the highest frequencies:

pair_norms            per layer, head and pair, the mean norm of the query and key pair (a, b)
                      over a batch of sequences (taken before the rotation, which keeps it).
offset_profile        per layer and head, the mean attention weight at each offset i - j.
positional_heads      the heads that put at least `threshold` of their weight at one fixed offset.
pair_contributions    which pairs a head leans on at an offset: each pair's share of the score at
                      that offset minus its mean score over all the keys a query sees.
without_low_frequencies  the speeds of the layers with the slowest pairs stopped (p-RoPE at
                      inference), to pass as `rope_freqs` to the model or to the functions here.
with_layout           the same weights read with the other pair layout (interleaved <-> half), the
                      mix-up of porting a model between Meta's and Hugging Face's conventions.
accuracy_by_position  accuracy against the position of each answer (for passkey: the KEY's place).

Pairs are numbered as the layer rotates them (`layer_pairs`): pair 0 is the fastest; in a layer
without rotation, or past the rotated share, the speed is 0.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import torch

from .._checks import check_choice, check_int, check_real
from ..frequencies import inv_freq as plain_inv_freq
from ..frequencies import pair_indices
from .model import ModelConfig, ToyTransformer, layer_plan, proportional_inv_freq
from .tasks import IGNORE, task_spec
from .training import eval_batches


def _check_model(model) -> ToyTransformer:
    if not isinstance(model, ToyTransformer):
        raise ValueError(f"model must be a ToyTransformer, got {type(model).__name__}")
    return model


def _as_tokens(tokens) -> torch.Tensor:
    t = torch.as_tensor(np.asarray(tokens) if not isinstance(tokens, torch.Tensor) else tokens)
    if t.dim() == 1:
        t = t[None]
    if t.dim() != 2 or t.numel() == 0 or t.is_floating_point():
        raise ValueError(f"tokens must be integer token ids (seq,) or (batch, seq), got shape {tuple(t.shape)}")
    return t.long()


def layer_pairs(config: ModelConfig, layer: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(first, second, speed): the two coordinates of each of the d_head/2 pairs of a head in
    `layer`, as that layer rotates them, and each pair's trained speed (float64, 0 = not rotated)."""
    plan, d = layer_plan(config, layer), config.d_head
    if plan.rotation == "partial":
        r = d // 4
        a, b = pair_indices(r, config.layout)
        a2, b2 = pair_indices(d - r, config.layout)
        speeds = torch.cat((plain_inv_freq(r, config.base, dtype=torch.float64), torch.zeros((d - r) // 2,
                                                                                            dtype=torch.float64)))
        return torch.cat((a, a2 + r)), torch.cat((b, b2 + r)), speeds
    a, b = pair_indices(d, config.layout)
    if plan.rotation is None:
        return a, b, torch.zeros(d // 2, dtype=torch.float64)
    if plan.rotation == "proportional":
        return a, b, proportional_inv_freq(d, config.base)
    return a, b, plain_inv_freq(d, config.base, dtype=torch.float64)


@torch.no_grad()
def _layer_inputs(model: ToyTransformer, tokens: torch.Tensor, rope_freqs) -> list[torch.Tensor]:
    """The input of every layer's attention (after its LayerNorm), by forward hooks."""
    inputs, hooks = [], []
    for block in model.blocks:
        hooks.append(block.attn.register_forward_pre_hook(lambda _m, args: inputs.append(args[0])))
    was_training = model.training
    model.eval()
    try:
        model(tokens.to(next(model.parameters()).device), rope_freqs=rope_freqs)
    finally:
        for hook in hooks:
            hook.remove()
        model.train(was_training)
    return inputs


@torch.no_grad()
def pair_norms(model: ToyTransformer, tokens) -> dict:
    """Mean query and key pair norms: {"q", "k"} each float64 (layers, heads, pairs), and "speed"
    (layers, pairs), the speed of each pair (0: not rotated). The mean runs over every sequence
    and position of `tokens` ((seq,) or (batch, seq)); norms are those before the rotation (which
    keeps them) and before a query temperature."""
    model = _check_model(model)
    t = _as_tokens(tokens)
    c = model.config
    q_out: list[torch.Tensor]
    k_out: list[torch.Tensor]
    q_out, k_out, speeds = [], [], []
    for layer, x in enumerate(_layer_inputs(model, t, None)):
        q, k, _v = model.blocks[layer].attn.qkv(x).double().unflatten(-1, (3, c.n_heads, c.d_head)).unbind(-3)
        a, b, speed = layer_pairs(c, layer)
        for store, z in ((q_out, q), (k_out, k)):
            norms = torch.sqrt(z[..., a] ** 2 + z[..., b] ** 2)  # (batch, seq, heads, pairs)
            store.append(norms.mean(dim=(0, 1)))
        speeds.append(speed)
    return {"q": torch.stack(q_out).cpu().numpy(), "k": torch.stack(k_out).cpu().numpy(),
            "speed": torch.stack(speeds).numpy()}


def offset_profile(maps, max_offset: int) -> np.ndarray:
    """Mean attention weight at offsets 0..max_offset: float64 (layers, heads, max_offset + 1).

    maps: attention weights (layers, heads, seq, seq) or (batch, layers, heads, seq, seq), rows =
    queries. Only the queries i >= max_offset count, so that every offset is there for each."""
    w = np.asarray(maps, dtype=np.float64)
    if w.ndim == 4:
        w = w[None]
    if w.ndim != 5 or w.shape[-1] != w.shape[-2]:
        raise ValueError(f"maps must be (layers, heads, seq, seq) or (batch, layers, heads, seq, seq), "
                         f"got shape {w.shape}")
    seq = w.shape[-1]
    max_offset = check_int(max_offset, "max_offset")
    if max_offset >= seq:
        raise ValueError(f"max_offset must be below the sequence length {seq}, got {max_offset}")
    rows = np.arange(max_offset, seq)
    out = np.stack([w[..., rows, rows - d].mean(axis=(0, -1)) for d in range(max_offset + 1)], axis=-1)
    return out


def positional_heads(profile, threshold: float = 0.5) -> list[dict]:
    """The heads of an offset_profile that put at least `threshold` of their weight at one offset:
    [{"layer", "head", "offset", "weight"}], strongest first."""
    p = np.asarray(profile, dtype=np.float64)
    if p.ndim != 3:
        raise ValueError(f"profile must be (layers, heads, offsets), got shape {p.shape}")
    threshold = check_real(threshold, "threshold", above=0.0)
    found = []
    for layer in range(p.shape[0]):
        for head in range(p.shape[1]):
            offset = int(p[layer, head].argmax())
            weight = float(p[layer, head, offset])
            if weight >= threshold:
                found.append({"layer": layer, "head": head, "offset": offset, "weight": weight})
    return sorted(found, key=lambda h: -h["weight"])


@torch.no_grad()
def pair_contributions(model: ToyTransformer, tokens, layer: int, head: int, offset: int, *,
                       rope_freqs=None) -> np.ndarray:
    """Which pairs head `head` of `layer` leans on to pick the key `offset` places back: float64
    (pairs,), for each pair (numbered as layer_pairs) its part of the score q_i . k_(i-offset)
    minus its mean part over all the keys j <= i the query sees (window and all), averaged over
    queries i >= offset and sequences, divided by the sum of these margins over the pairs
    (so the shares sum to 1; a negative share pulls against the offset)."""
    model = _check_model(model)
    t = _as_tokens(tokens)
    c = model.config
    layer = check_int(layer, "layer")
    if layer >= c.n_layers:
        raise ValueError(f"layer must be an integer from 0 to {c.n_layers - 1}, got {layer}")
    head = check_int(head, "head")
    if head >= c.n_heads:
        raise ValueError(f"head must be an integer from 0 to {c.n_heads - 1}, got {head}")
    offset = check_int(offset, "offset")
    seq = t.shape[1]
    if offset >= seq:
        raise ValueError(f"offset must be below the sequence length {seq}, got {offset}")
    attn = model.blocks[layer].attn
    x = _layer_inputs(model, t, rope_freqs)[layer]
    q, k, _v = attn.project(x, rope_freqs)
    q, k = q[:, head].double(), k[:, head].double()  # (batch, seq, d_head)
    a, b, _speed = layer_pairs(c, layer)
    # part[p, i, j] of the score: the pair's two coordinates of q_i . k_j
    part = (q[..., a].unsqueeze(2) * k[..., a].unsqueeze(1) + q[..., b].unsqueeze(2) * k[..., b].unsqueeze(1))
    seen = torch.isfinite(attn.bias(seq, x.device, torch.float64)[head])  # (seq, seq): keys each query sees
    rows = torch.arange(offset, seq)
    at_offset = part[:, rows, rows - offset]  # (batch, rows, pairs)
    mean_seen = (part * seen[None, :, :, None]).sum(2) / seen.sum(1)[None, :, None]
    margin = (at_offset - mean_seen[:, rows]).mean(dim=(0, 1))
    total = margin.sum()
    if float(total.abs()) == 0.0:
        return margin.cpu().numpy()
    return (margin / total).cpu().numpy()


def without_low_frequencies(config: ModelConfig, removed: float) -> tuple[torch.Tensor, float]:
    """(inv_freq, attention_factor) for `rope_freqs`: the layers' speeds with the slowest `removed`
    share of all pairs at speed 0, the others unchanged (Barbero et al.'s truncation, applied to a
    trained model at inference). For a p-rope model, whose slowest three quarters are already 0, a
    removed share below 0.75 changes nothing."""
    removed = check_real(removed, "removed", at_least=0.0)
    if removed >= 1:
        raise ValueError(f"removed must be a share from 0 to below 1, got {removed}")
    rotations = {layer_plan(config, layer).rotation for layer in range(config.n_layers)} - {None}
    if not rotations or not rotations <= {"full", "proportional"}:
        raise ValueError(f"without_low_frequencies needs layers that rotate every pair or the fastest ones; "
                         f"encoding={config.encoding!r} does not")
    keep = 1.0 - removed
    if "proportional" in rotations:
        keep = min(keep, float(proportional_inv_freq(config.d_head, config.base).gt(0).float().mean()))
    return proportional_inv_freq(config.d_head, config.base, keep), 1.0


def with_layout(model: ToyTransformer, layout: str) -> ToyTransformer:
    """A copy of `model` with the same weights whose layers pair coordinates by `layout`
    ("interleaved": (2i, 2i+1); "half": (i, i + d/2)), in eval mode on the model's device."""
    model = _check_model(model)
    check_choice(layout, "layout", ("interleaved", "half"))
    other = ToyTransformer(replace(model.config, layout=layout))
    other.load_state_dict(model.state_dict())
    return other.to(next(model.parameters()).device).eval()


@torch.no_grad()
def accuracy_by_position(model: ToyTransformer, task: str, length: int, *, sequences: int = 128,
                         seed: int = 0, rope_freqs=None) -> dict:
    """Accuracy against position on the evaluation sequences of `evaluate` (same seed, same
    sequences): {"position", "correct", "total", "accuracy"}, int64 arrays and float64 accuracy
    (NaN where nothing was scored), one entry per position 0..length - 1. The position is that of
    the answer; for passkey, that of the KEY marker (the depth the value was planted at)."""
    model = _check_model(model)
    correct = np.zeros(check_int(length, "length", minimum=task_spec(task).min_length()), dtype=np.int64)
    total = np.zeros_like(correct)
    key = task_spec(task).key_token
    for tokens, targets, logits in eval_batches(model, task, length, sequences=sequences, seed=seed,
                                                rope_freqs=rope_freqs):
        scored = targets != IGNORE
        hit = (logits.argmax(-1) == targets) & scored
        if task == "passkey":
            where = (tokens == key).long().argmax(-1)
            np.add.at(correct, where.cpu().numpy(), hit.any(-1).cpu().numpy().astype(np.int64))
            np.add.at(total, where.cpu().numpy(), 1)
        else:
            correct += hit.sum(0).cpu().numpy()
            total += scored.sum(0).cpu().numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = np.where(total > 0, correct / np.maximum(total, 1), np.nan)
    return {"position": np.arange(len(total)), "correct": correct, "total": total, "accuracy": accuracy}
