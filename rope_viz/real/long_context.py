"""A real model past its trained context: RoPE scaling applied at inference, measured by the loss on a long
natural text (by position bucket) and by passkey retrieval (a number hidden in filler, asked for at the end).

    lm = rope_viz.real_model("smollm2-135m")                  # trained to 8,192 positions
    layers = scaled_layers(lm, "yarn", 2.0)                   # every rotary layer scaled by YaRN, factor 2
    ids, answer = passkey_prompt(lm, 4096, 0.5, 51234)        # ~4k tokens, the key halfway in
    passkey_score(lm, ids, answer, layers)                    # {"correct": ..., "mean_logprob": ..., ...}
    bucket_means(lm.next_token_losses(text_ids, layers=layers), 1024)

Methods are named as rope_viz.ROPE_TYPES names them ("none" keeps the model's own layers); each scaled layer keeps
the model's trained context as max_position_embeddings (dynamic NTK grows its base past it) and YaRN's
original_max_position_embeddings, as transformers reads a config whose rope_scaling is added at inference.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time

import torch

from .._checks import check_int, check_real

METHODS = ("none", "linear", "ntk", "dynamic", "yarn")
FILLER = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again."
QUESTION = "What is the pass key? The pass key is"


def _needle(key: int) -> str:
    return f"The pass key is {key}. Remember it. {key} is the pass key."


def scaled_layers(lm, method: str, factor: float) -> tuple:
    """lm's layers (lm.rope.layers) with every rotary layer scaled by `method` (one of METHODS) and `factor`
    (>= 1); "none" returns lm.rope.layers itself."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    factor = check_real(factor, "factor", at_least=1)
    if method == "none":
        return lm.rope.layers
    out = []
    for layer in lm.rope.layers:
        if not layer.rotary:
            out.append(layer)
            continue
        if layer.rope_scaling is not None:
            raise ValueError(f"layer {layer.index} of {lm.label} is already scaled ({layer.rope_type}); "
                             "scaled_layers starts from plain RoPE")
        params = {"rope_type": method, "factor": float(factor)}
        if method == "yarn":
            params["original_max_position_embeddings"] = layer.max_position_embeddings
        out.append(dataclasses.replace(layer, rope_type=method, rope_scaling=params))
    return tuple(out)


def rotation_key(layers, seq_len: int) -> tuple:
    """What the rotation of every layer is at seq_len tokens (frequencies and attention factor): two methods with
    equal keys turn every query and key alike (dynamic NTK equals plain RoPE up to the trained context)."""
    key = []
    for layer in layers:
        inv_freq, attention_factor = layer.inv_freq(seq_len=seq_len)
        key.append((tuple(inv_freq.tolist()), attention_factor))
    return tuple(key)


def passkey_prompt(lm, length: int, depth: float, key: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(ids, answer): the token ids of a passkey-retrieval prompt of about `length` tokens (never more) and those
    of the answer " <key>". The filler sentences repeat, "The pass key is <key>. Remember it. <key> is the pass
    key." stands after a fraction `depth` (0 to 1) of them, and the prompt ends with the question
    "What is the pass key? The pass key is". key: a whole number of 1 to 9 digits."""
    length = check_int(length, "length", minimum=64)
    depth = check_real(depth, "depth", at_least=0)
    if depth > 1:
        raise ValueError(f"depth must lie in [0, 1], got {depth}")
    key = check_int(key, "key", minimum=0)
    if key >= 10 ** 9:
        raise ValueError(f"key must have at most 9 digits, got {key}")
    unit = lm.encode(" " + FILLER).numel()
    units = (length - lm.encode(f"{FILLER} {_needle(key)} {QUESTION}").numel()) // unit + 1
    if units < 1:
        raise ValueError(f"length {length} is too short for a passkey prompt")
    while True:  # the joined text may tokenize a little longer than its parts: drop filler until it fits
        before = round(depth * units)
        text = " ".join([FILLER] * before + [_needle(key)] + [FILLER] * (units - before) + [QUESTION])
        ids = lm.encode(text)
        if ids.numel() <= length or units == 1:
            break
        units -= 1
    full = lm.encode(f"{text} {key}")
    if not torch.equal(full[:ids.numel()], ids):
        raise ValueError(f"{lm.label}'s tokenizer merges the answer into the question; cannot score it")
    return ids, full[ids.numel():]


def passkey_score(lm, ids, answer, layers=None) -> dict:
    """The answer teacher-forced after the prompt: its tokens' log-probabilities (nats), their mean, the greedy
    choice at each answer position and whether greedy decoding gives the whole answer ("correct"). Only the
    last len(answer) rows get logits."""
    ids, answer = torch.as_tensor(ids), torch.as_tensor(answer)
    if answer.dim() != 1 or answer.numel() == 0:
        raise ValueError(f"answer must be a non-empty 1-D tensor of token ids, got shape {tuple(answer.shape)}")
    seq = torch.cat([ids, answer[:-1]])
    logits = lm.forward(seq, layers=layers, rows=slice(-answer.numel(), None)).logits
    log_probs = torch.log_softmax(logits.double(), dim=-1)
    token = log_probs.gather(1, answer[:, None])[:, 0]
    greedy = log_probs.argmax(dim=-1)
    return {"correct": bool(torch.equal(greedy, answer)), "mean_logprob": float(token.mean()),
            "token_logprobs": [float(v) for v in token], "greedy": lm.decode(greedy), "answer": lm.decode(answer),
            "tokens": int(seq.numel())}


def bucket_means(losses, bucket: int) -> list[dict]:
    """Mean loss (nats) per bucket of `bucket` positions: losses[i] is the loss of predicting token i + 1 from the
    i + 1 tokens up to position i, and bucket k holds positions k*bucket .. (k+1)*bucket - 1 (the last may be
    shorter)."""
    losses = torch.as_tensor(losses, dtype=torch.float64)
    bucket = check_int(bucket, "bucket", minimum=1)
    if losses.dim() != 1 or losses.numel() == 0:
        raise ValueError(f"losses must be a non-empty 1-D tensor, got shape {tuple(losses.shape)}")
    out = []
    for start in range(0, losses.numel(), bucket):
        part = losses[start:start + bucket]
        mean = float(part.mean())
        out.append({"start": start, "stop": start + part.numel(), "mean_nats": mean,
                    "perplexity": math.exp(mean)})
    return out


def _loss_cell(lm, ids, layers, bucket: int) -> dict:
    return {"buckets": bucket_means(lm.next_token_losses(ids, layers=layers), bucket)}


def _cell(layers, seq_len: int, done: dict, compute, *args) -> dict:
    """compute(*args, layers) timed, or the result of an earlier method whose rotation at seq_len is the same."""
    key = rotation_key(layers, seq_len)
    if key in done:
        method, result = done[key]
        kept = {name: value for name, value in result.items() if name not in ("cpu_seconds", "wall_seconds")}
        return kept | {"same_rotation_as": method}
    cpu, wall = time.process_time(), time.perf_counter()
    result = compute(*args, layers)
    result |= {"cpu_seconds": round(time.process_time() - cpu, 2), "wall_seconds": round(time.perf_counter() - wall, 2)}
    return result


def run_grid(lm, *, methods=METHODS, factor: float, lengths, depths, past_depths, loss_ids, bucket: int,
             seed: int = 0, progress=None) -> dict:
    """The loss by bucket of `bucket` positions on loss_ids (None: none), and passkey retrieval at every length with
    every depth (past_depths for lengths beyond lm.context), for every method at `factor`. Cells whose rotation equals
    an earlier method's are not recomputed (they name it in "same_rotation_as"). progress(what, cell, so_far)
    is called after each cell."""
    for method in methods:
        scaled_layers(lm, method, factor)  # checks method and factor before any long forward
    rng = random.Random(seed)
    keys = {(length, depth): rng.randrange(10_000, 100_000) for length in lengths
            for depth in (past_depths if length > lm.context else depths)}
    out: dict[str, dict] = {"loss": {}, "passkey": {m: {} for m in methods}}
    done: dict = {}
    for method in methods if loss_ids is not None else ():
        layers = scaled_layers(lm, method, factor)
        cell = _cell(layers, loss_ids.numel(), done, lambda ids, scaled: _loss_cell(lm, ids, scaled, bucket),
                     loss_ids)
        done.setdefault(rotation_key(layers, loss_ids.numel()), (method, cell))
        out["loss"][method] = cell
        if progress:
            progress(f"loss {method}", cell, out)
    for (length, depth), key in keys.items():
        ids, answer = passkey_prompt(lm, length, depth, key)
        done = {}
        for method in methods:
            layers = scaled_layers(lm, method, factor)
            seq_len = ids.numel() + answer.numel() - 1
            cell = _cell(layers, seq_len, done, passkey_score, lm, ids, answer)
            done.setdefault(rotation_key(layers, seq_len), (method, cell))
            out["passkey"][method].setdefault(str(length), {})[str(depth)] = {**cell, "key": key}
            if progress:
                progress(f"passkey {method} {length} {depth}", cell, out)
    return out
