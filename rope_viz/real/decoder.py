"""A real pretrained model run by this library's own small decoder, in float32 on the CPU.

The two blocks are the ones the models were trained with: Llama's (RMSNorm, grouped-query attention, SiLU-gated
MLP) for SmolLM2, and Gemma 3's (four RMSNorms per layer, RMSNorm on each query and key head before the rotation,
embeddings times sqrt(hidden_size), tanh-GELU-gated MLP, sliding-window layers) for Gemma 3. The rotation inside
each layer is that layer's `LayerRoPE.rotate`, read from the model's config by `rope_viz.model_rope`: what Model
anatomy describes is what runs here, and an intervention is a changed LayerRoPE (`dataclasses.replace(layer,
layout="interleaved")`, `rotary=False`, another `base`, `stopped_pairs`, `recipe`).

Masks are by index: a query at index i sees keys j <= i (and i - j < sliding_window in sliding layers), whatever
positions the rotation is given, so shifting every position changes nothing but the angles.

Precision: every pass is float32 by default (what the tests compare with transformers). `precision="bfloat16"` runs
the projections, the MLP and the output head as bfloat16 matmuls (float32 accumulation; the weights rounded to
bfloat16 on the fly, so no second copy is kept) while the norms, the rotation, the attention and the losses stay
float32: on a CPU with bfloat16 instructions (avx512_bf16, AMX) the head of Gemma 3 (262,144 x 640 per token) takes
a fifth of its float32 time. It is for numbers whose meaning survives that rounding (a trap's loss moving by nats),
never for the relativity residual (float rounding itself).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import NamedTuple

import torch
import torch.nn.functional as F

from .._checks import check_integer_positions
from ..models import LayerRoPE, ModelRoPE, model_rope
from ..scaling import MAX_CONTEXT
from . import weights as _weights

QUERY_BLOCK = 512  # queries per attention block: a 16k-token forward keeps (heads, 512, 16k) scores at a time
VOCAB_BLOCK = 4096
"""Embedding rows turned to float at a time for the tied output head: 10 MB for Gemma 3 in float32, with (rows, 4,096)
logits. Blocks this small stay in the allocator's reused memory and near the cache: at 256 tokens, against 32,768-row
blocks (84 MB, fresh pages each time) a float32 pass of Gemma 3 took 1.06 s instead of 1.62 s and the page's peak
memory was 270 MB lower."""
LOGIT_CELLS = 256 * VOCAB_BLOCK  # many rows at once (passes run together) take narrower blocks: 4 MB of logits
PRECISIONS = {"float32": torch.float32, "bfloat16": torch.bfloat16}
_checks = threading.local()  # this thread's check between a pass's steps (checkpoints)


@contextmanager
def checkpoints(check: Callable[[], None]) -> Iterator[None]:
    """Inside the block, every pass this thread runs calls check() before each decoder layer and each block of the
    output head: whoever runs a long computation for someone else (a server's queue of jobs) stops it there when it is
    no longer wanted, by raising from check (the model's lock is released as the exception leaves). Outside such a
    block nothing is called."""
    previous = getattr(_checks, "check", None)
    _checks.check = check
    try:
        yield
    finally:
        _checks.check = previous


def _checkpoint() -> None:
    check = getattr(_checks, "check", None)
    if check is not None:
        check()


@dataclass
class Forward:
    """What one forward pass returns: logits (seq, vocab) float32, and for the layers asked for, the attention
    weights (heads, seq, seq), the queries (heads, seq, head_dim) and keys (kv_heads, seq, head_dim) before
    ("raw") and after the rotation, the values (kv_heads, seq, head_dim), and the residual stream after the layer
    (seq, hidden_size)."""

    logits: torch.Tensor
    attention: dict = field(default_factory=dict)
    queries: dict = field(default_factory=dict)
    keys: dict = field(default_factory=dict)
    raw_queries: dict = field(default_factory=dict)
    raw_keys: dict = field(default_factory=dict)
    values: dict = field(default_factory=dict)
    residual: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Edit:
    """Changes to a pass's activations, for interventions on what the model computes rather than on its rotation.

    queries / keys: {layer: (mask, fill)}, each (heads or kv_heads, head_dim): the coordinates of the unrotated
    queries / keys (after Gemma's per-head norm) where mask is True are replaced by fill, at every token.
    mlp_off: {layer: token indices} whose MLP output is removed (not added to the residual stream) in that layer."""

    queries: dict = field(default_factory=dict)
    keys: dict = field(default_factory=dict)
    mlp_off: dict = field(default_factory=dict)


class Variant(NamedTuple):
    """One pass's changes, for the calls that run several passes of one text together (variant_losses,
    variant_hidden_states): positions (1-D whole numbers, default 0 .. seq-1), layers (one LayerRoPE per decoder
    layer, default the model's own), query_shift (as in RealModel.forward), edit (an Edit of its activations)."""

    positions: object = None
    layers: Sequence[LayerRoPE] | None = None
    query_shift: int = 0
    edit: Edit | None = None


class RealModel:
    """A pretrained model loaded from its converted copy (see rope_viz.real.weights).

    name, label, source; config: its config.json as transformers builds it from the GGUF file; rope: its RoPE layer
    by layer (a ModelRoPE). encode / decode / token_texts use the model's own tokenizer (as transformers wrote it).
    logits and forward run one pass at a time per instance (a lock), as sessions of one server share the instance."""

    def __init__(self, name: str):
        from safetensors.torch import load_file
        from tokenizers import Tokenizer
        from transformers.convert_slow_tokenizer import bytes_to_unicode

        self.source = _weights.source(name)
        self.name, self.label = self.source.name, self.source.label
        folder = _weights.converted(name)
        self.config = json.loads((folder / "config.json").read_text())
        self.rope: ModelRoPE = model_rope(self.config)
        # the tokenizer transformers wrote, read by the `tokenizers` library itself: the same ids and texts (checked
        # against transformers' own tokenizer by the tests), without the Python copies of the vocabulary and the
        # merges transformers' wrapper adds (170 MB for Gemma 3's 262,144 tokens and 514,906 merges)
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer" / "tokenizer.json"))
        self._w = load_file(str(folder / "weights.safetensors"))
        byte_level = type(self.tokenizer.decoder).__name__ == "ByteLevel"  # GPT-2's bytes-to-characters table
        self._byte_of = {char: byte for byte, char in bytes_to_unicode().items()} if byte_level else {}
        self.gemma = self.config["model_type"].startswith("gemma3")
        self.heads = self.config["num_attention_heads"]
        self.kv_heads = self.config["num_key_value_heads"]
        self.head_dim = self.config.get("head_dim") or self.config["hidden_size"] // self.heads
        self.eps = float(self.config["rms_norm_eps"])
        self.window = self.config.get("sliding_window")
        self.scale = float(self.config.get("query_pre_attn_scalar") or self.head_dim) ** -0.5
        self.context = int(self.config["max_position_embeddings"])
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ text
    def encode(self, text: str) -> torch.Tensor:
        """The token ids of text (1-D int64), with BOS where the model's tokenizer adds one (Gemma; SmolLM2 adds
        none)."""
        if not isinstance(text, str):
            raise ValueError(f"text must be a str, got {type(text).__name__}")
        return torch.tensor(self.tokenizer.encode(text).ids, dtype=torch.int64)

    def decode(self, ids) -> str:
        return self.tokenizer.decode(torch.as_tensor(ids).tolist(), skip_special_tokens=False)

    def token_texts(self, ids) -> list[str]:
        """Each token's text, plain strings to be shown as text. A character the tokenizer splits over several byte
        tokens (SmolLM2 reads most Chinese characters as two or three) is shown on each of them with the token's
        place in it (a character c of three tokens: "c(1/3)", "c(2/3)", "c(3/3)"); the bytes of a character the
        text does not finish are shown as bytes ("<0xE6>")."""
        pieces = [self._token_bytes(i) for i in torch.as_tensor(ids).tolist()]
        texts: list[str] = []
        start = 0
        for end in range(1, len(pieces) + 1):
            text = _utf8(b"".join(pieces[start:end]))
            if text is None and end < len(pieces):
                continue  # a character still open: the next token may finish it
            count = end - start
            texts += [_part(text, k, count) for k in range(1, count + 1)] if text is not None else \
                [_hex(piece) for piece in pieces[start:end]]
            start = end
        return texts

    def next_token_texts(self, ids, next_ids) -> list[str]:
        """The text of next_ids[i] read right after ids[: i + 1] (the model's guess there), labelled as token_texts
        labels a token: one that finishes the character ids[i] left open is that character with its place in it,
        one that opens a character is its bytes."""
        pieces = [self._token_bytes(i) for i in torch.as_tensor(ids).tolist()]
        open_run: list[bytes] = []  # the tokens of a character still open after ids[: i + 1]
        texts = []
        for piece, guess in zip(pieces, torch.as_tensor(next_ids).tolist()):
            open_run = [] if _utf8(b"".join(open_run + [piece])) is not None else open_run + [piece]
            guessed = self._token_bytes(guess)
            text = _utf8(b"".join(open_run + [guessed]))
            texts.append(_part(text, len(open_run) + 1, len(open_run) + 1) if text is not None else _hex(guessed))
        return texts

    def _token_bytes(self, token_id: int) -> bytes:
        """The bytes a token stands for: a byte-level token's own bytes (GPT-2's byte-to-character table), a
        byte-fallback token's byte ("<0xE6>"), else its text decoded alone."""
        token = self.tokenizer.id_to_token(int(token_id))
        if self._byte_of and isinstance(token, str) and all(c in self._byte_of for c in token):
            return bytes(self._byte_of[c] for c in token)
        if isinstance(token, str) and (found := re.fullmatch(r"<0x([0-9A-Fa-f]{2})>", token)):
            return bytes([int(found.group(1), 16)])
        return self.tokenizer.decode([int(token_id)], skip_special_tokens=False).encode("utf-8")

    def layer_weights(self, layer: int, names: Sequence[str]) -> list[torch.Tensor]:
        """The float32 weight matrices `names` ("attn_q", "ffn_up", ...) of decoder layer `layer`."""
        return [self._w[f"blk.{self._layer_index(layer)}.{name}.weight"] for name in names]

    # ------------------------------------------------------------------ forward
    def logits(self, ids, positions=None, layers: Sequence[LayerRoPE] | None = None) -> torch.Tensor:
        """(seq, vocab) float32 next-token logits of the model's forward pass in float32.

        positions: 1-D whole-number positions, one per token (default 0 .. seq-1); masks stay by index.
        layers: one LayerRoPE per decoder layer used instead of self.rope.layers (an intervention)."""
        return self.forward(ids, positions, layers).logits

    def forward(self, ids, positions=None, layers: Sequence[LayerRoPE] | None = None, *,
                capture: Sequence[int] = (), rows: slice | None = None, query_shift: int = 0,
                stop_after: int | None = None) -> Forward:
        """The forward pass, keeping the attention weights and the queries and keys of the layers in capture.
        rows: the positions whose logits are computed (default all; a long input's last few save the head's cost).
        query_shift: queries turn at their position plus this many steps while keys keep theirs (a cache whose
        positions are off by one: every offset the model sees is wrong by query_shift).
        stop_after: run the layers up to this one only (what capture keeps of them is the same) and compute no
        logits (an empty tensor)."""
        with self._lock, torch.inference_mode():
            last = None if stop_after is None else self._layer_index(stop_after)
            hidden, out = self._hidden(ids, [Variant(positions, layers, query_shift)], capture, last=last)
            if last is None:
                out.logits = self._head(hidden[0, rows if rows is not None else slice(None)])
        return out

    def hidden_states(self, ids, positions=None, layers: Sequence[LayerRoPE] | None = None) -> torch.Tensor:
        """(seq, hidden_size) float32: the last norm's output, what the output head reads (arguments as logits)."""
        return self.variant_hidden_states(ids, [Variant(positions, layers)])[0]

    def variant_hidden_states(self, ids, variants: Sequence[Variant], precision: str = "float32") -> torch.Tensor:
        """(len(variants), seq, hidden_size) float32: hidden_states of several passes of one text, run together (each
        weight matrix read once for all of them)."""
        dtype = _precision(precision)
        with self._lock, torch.inference_mode():
            return self._hidden(ids, variants, (), dtype=dtype)[0]

    def head_blocks(self, hidden: torch.Tensor, precision: str = "float32") -> Iterator[tuple[int, torch.Tensor]]:
        """The output head a block of the vocabulary at a time: (first token id, (rows, block) float32 logits), so
        that a caller reducing them (a loss, a top-k, a largest difference) never holds (rows, vocab) logits (268 MB
        for Gemma 3 at 256 tokens) and each block of a Q8 table is turned to float once for every row."""
        dtype = _precision(precision)
        if "output.weight" in self._w:
            with torch.inference_mode():
                logits = self._linear(hidden, "output.weight", dtype)
            yield 0, logits
            return
        x = hidden.to(dtype)
        block = max(VOCAB_BLOCK // 8, min(VOCAB_BLOCK, LOGIT_CELLS // max(1, x.shape[0])))
        for start in range(0, self.config["vocab_size"], block):
            _checkpoint()
            with torch.inference_mode():  # never yield inside it: the mode would stay on in the caller's thread
                logits = (x @ self._embedding(slice(start, start + block), dtype).T).float()
            yield start, logits

    def next_token_losses(self, ids, positions=None, layers: Sequence[LayerRoPE] | None = None, *,
                          query_shift: int = 0, precision: str = "float32") -> torch.Tensor:
        """(seq - 1,) float64: -log p(ids[i + 1] | ids[: i + 1]) in nats at every position i, the head applied a
        block at a time so a long input never holds (seq, vocab) logits. query_shift as in forward; precision:
        "float32", or "bfloat16" for the matmuls (see the module's docstring)."""
        return self.variant_losses(ids, [Variant(positions, layers, query_shift)], precision)[0]

    def variant_losses(self, ids, variants: Sequence[Variant], precision: str = "float32") -> torch.Tensor:
        """(len(variants), seq - 1) float64: next_token_losses of several passes of one text, run together: each
        weight matrix and each block of the output head is read once for all of them."""
        hidden = self.variant_hidden_states(ids, variants, precision)
        target = self._ids(ids)[1:]
        seen = OnlineSoftmax(target.repeat(len(variants)))
        for start, logits in self.head_blocks(hidden[:, :-1].reshape(-1, hidden.shape[-1]), precision):
            seen.update(start, logits)
        return seen.losses().view(len(variants), -1)

    def _hidden(self, ids, variants: Sequence[Variant], capture, *, dtype=torch.float32, last=None):
        ids = self._ids(ids)
        seq = ids.numel()
        if not variants:
            raise ValueError("variants must hold at least one Variant")
        default = torch.arange(seq, dtype=torch.float64)
        runs = []
        for v in variants:
            pos = default if v.positions is None else check_integer_positions(v.positions, maximum=MAX_CONTEXT)
            if pos.shape != (seq,):
                raise ValueError(f"positions must hold one whole number per token ({seq}), got shape "
                                 f"{tuple(pos.shape)}")
            shift = v.query_shift
            if isinstance(shift, bool) or not isinstance(shift, int) or not 0 <= shift <= seq:
                raise ValueError(f"query_shift must be a whole number in [0, {seq}], got {shift!r}")
            if v.edit is not None and not isinstance(v.edit, Edit):
                raise ValueError(f"edit must be an Edit or None, got {type(v.edit).__name__}")
            runs.append((pos, self._layers(v.layers)[:None if last is None else last + 1], shift, v.edit))
        for i, together in enumerate(zip(*(layers for _, layers, _, _ in runs))):
            if len({_mask(layer) for layer in together}) > 1:
                raise ValueError(f"layer {i}: variants run together must share its attention kind and window")
        capture = {self._layer_index(i) for i in capture}
        return self._run(ids, runs, capture, dtype)

    def _ids(self, ids) -> torch.Tensor:
        ids = torch.as_tensor(ids)
        vocab = self.config["vocab_size"]
        if ids.dim() != 1 or ids.numel() == 0 or ids.dtype not in (torch.int32, torch.int64):
            raise ValueError(f"ids must be a non-empty 1-D integer tensor, got {ids.dtype} {tuple(ids.shape)}")
        if int(ids.min()) < 0 or int(ids.max()) >= vocab:
            raise ValueError(f"ids must lie in [0, {vocab}) for {self.label}")
        return ids.to(torch.int64)

    def _layers(self, layers) -> tuple:
        if layers is None:
            return self.rope.layers
        layers = tuple(layers)
        count = len(self.rope.layers)
        if len(layers) != count or not all(isinstance(layer, LayerRoPE) for layer in layers):
            raise ValueError(f"layers must be {count} LayerRoPE (one per decoder layer of {self.label}), "
                             f"got {len(layers)} items")
        for own, layer in zip(self.rope.layers, layers):
            if layer.head_dim != own.head_dim:
                raise ValueError(f"layer {own.index}: head_dim must stay {own.head_dim}, got {layer.head_dim}")
        return layers

    def _layer_index(self, index) -> int:
        count = len(self.rope.layers)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
            raise ValueError(f"capture must hold layer indices in [0, {count}), got {index!r}")
        return index

    def _norm(self, x: torch.Tensor, name: str) -> torch.Tensor:
        # both models' RMSNorm in float32; the GGUF's Gemma norm weights already hold 1 + w
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self._w[name]

    def _linear(self, x: torch.Tensor, name: str, dtype: torch.dtype) -> torch.Tensor:
        """x @ W.T for the weight `name`, in float32 or as a bfloat16 matmul whose result is float32 again."""
        if dtype == torch.float32:
            return x @ self._w[name].T
        return (x.to(dtype) @ self._w[name].to(dtype).T).float()

    def _run(self, ids, runs, capture, dtype) -> tuple[torch.Tensor, Forward]:
        """runs: (positions, layers, query_shift, edit) per pass, all on the same ids; the passes go through each layer
        together as a batch, each rotated by its own layers and changed by its own edit. What capture keeps is the
        first pass's."""
        seq, batch = ids.numel(), len(runs)
        h = self.embedding_output(ids)
        h = h.expand(batch, *h.shape).contiguous()
        out = Forward(logits=torch.empty(0))
        index = torch.arange(seq)
        for i in range(len(runs[0][1])):
            _checkpoint()
            p = f"blk.{i}."
            x = self._norm(h, p + "attn_norm.weight")
            q = self._linear(x, p + "attn_q.weight", dtype).view(batch, seq, self.heads, self.head_dim)
            k = self._linear(x, p + "attn_k.weight", dtype).view(batch, seq, self.kv_heads, self.head_dim)
            v = self._linear(x, p + "attn_v.weight", dtype).view(batch, seq, self.kv_heads, self.head_dim)
            q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
            if self.gemma:
                q, k = self._norm(q, p + "attn_q_norm.weight"), self._norm(k, p + "attn_k_norm.weight")
            q, k = _edited(q, k, i, [run[3] for run in runs])
            if i in capture:
                out.raw_queries[i], out.raw_keys[i], out.values[i] = q[0], k[0], v[0]
            q, k = self._rotate(q, k, [(layers[i], pos, shift) for pos, layers, shift, _ in runs])
            if i in capture:
                out.queries[i], out.keys[i] = q[0], k[0]
            attended, weights = self._attend(q, k, v, index, _mask(runs[0][1][i])[1], keep=i in capture)
            if i in capture:
                out.attention[i] = weights[0]
            a = self._linear(attended.transpose(1, 2).reshape(batch, seq, self.heads * self.head_dim),
                             p + "attn_output.weight", dtype)
            if self.gemma:
                a = self._norm(a, p + "post_attention_norm.weight")
            h = h + a
            x = self._norm(h, p + "ffn_norm.weight")
            gate = self._linear(x, p + "ffn_gate.weight", dtype)
            gate = F.gelu(gate, approximate="tanh") if self.gemma else F.silu(gate)
            m = self._linear(gate * self._linear(x, p + "ffn_up.weight", dtype), p + "ffn_down.weight", dtype)
            if self.gemma:
                m = self._norm(m, p + "post_ffw_norm.weight")
            for b, run in enumerate(runs):
                if run[3] is not None and i in run[3].mlp_off:
                    m[b, list(run[3].mlp_off[i])] = 0.0
            h = h + m
            if i in capture:
                out.residual[i] = h[0]
        return self._norm(h, "output_norm.weight"), out

    @staticmethod
    def _rotate(q, k, turns) -> tuple[torch.Tensor, torch.Tensor]:
        """q (batch, heads, seq, d) and k (batch, kv_heads, seq, d), pass b turned by turns[b] = (its LayerRoPE, its
        positions, its query shift); passes that turn alike are turned together."""
        groups: dict = {}
        for b, (layer, pos, shift) in enumerate(turns):
            groups.setdefault((id(layer), id(pos), shift), []).append(b)
        if len(groups) == 1:
            layer, pos, shift = turns[0]
            return layer.rotate(q, pos + shift), layer.rotate(k, pos)
        q, k = q.clone(), k.clone()
        for members in groups.values():
            layer, pos, shift = turns[members[0]]
            q[members], k[members] = layer.rotate(q[members], pos + shift), layer.rotate(k[members], pos)
        return q, k

    def embedding_output(self, ids) -> torch.Tensor:
        """(seq, hidden_size) float32: the residual stream before the first layer (Gemma's embeddings times
        sqrt(hidden_size))."""
        h = self._embedding(self._ids(ids))
        if self.gemma:
            h = h * torch.tensor(self.config["hidden_size"] ** 0.5, dtype=torch.float32)
        return h

    def _embedding(self, rows, dtype: torch.dtype = torch.float32) -> torch.Tensor:
        """Rows of the token embedding in float32 or bfloat16 (a Q8_0 table is kept as int8 values and per-block
        scales: each block of values times its scale, as a view, with no repeated copy of the scales)."""
        if "token_embd.weight" in self._w:
            return self._w["token_embd.weight"][rows].to(dtype)
        values, scale = self._w["token_embd.q8"][rows], self._w["token_embd.scale"][rows]
        blocks = values.to(dtype).view(*values.shape[:-1], scale.shape[-1], -1) * scale.to(dtype)[..., None]
        return blocks.view(values.shape)

    def _head(self, hidden: torch.Tensor) -> torch.Tensor:
        """(rows, vocab) float32 logits: the output projection, or the embedding (tied)."""
        return torch.cat([logits for _, logits in self.head_blocks(hidden)], dim=-1)

    def _attend(self, q, k, v, index, window, *, keep: bool):
        """Causal (and sliding-window) softmax attention by index, on (batch, heads, seq, head_dim) queries and
        (batch, kv_heads, seq, head_dim) keys and values: PyTorch's fused kernel where nothing is kept and every
        earlier key is seen (5x faster than blocks at 4,096 tokens here, equal within 1e-6), else in blocks of
        QUERY_BLOCK queries."""
        if not keep and not window:
            fused = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=self.scale, enable_gqa=True)
            return fused, None
        group = self.heads // self.kv_heads
        k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
        outputs, kept = [], []
        for start in range(0, q.shape[2], QUERY_BLOCK):
            rows = index[start:start + QUERY_BLOCK]
            stop = int(rows[-1]) + 1
            lo = max(0, int(rows[0]) - window + 1) if window else 0
            cols = index[lo:stop]
            scores = q[:, :, start:start + rows.numel()] @ k[:, :, lo:stop].transpose(-1, -2) * self.scale
            allowed = cols[None, :] <= rows[:, None]
            if window:
                allowed &= rows[:, None] - cols[None, :] < window
            weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
            outputs.append(weights @ v[:, :, lo:stop])
            if keep:
                full = weights.new_zeros(*weights.shape[:-1], q.shape[2])
                full[..., lo:stop] = weights
                kept.append(full)
        return torch.cat(outputs, dim=2), (torch.cat(kept, dim=2) if keep else None)


def _edited(q: torch.Tensor, k: torch.Tensor, layer: int, edits: list) -> tuple[torch.Tensor, torch.Tensor]:
    """q (batch, heads, seq, d) and k (batch, kv_heads, seq, d) with each pass's Edit of this layer applied."""
    if not any(e is not None and (layer in e.queries or layer in e.keys) for e in edits):
        return q, k
    q, k = q.clone(), k.clone()
    for b, e in enumerate(edits):
        for x, changes in ((q, e.queries if e else {}), (k, e.keys if e else {})):
            if layer in changes:
                mask, fill = changes[layer]
                x[b] = torch.where(mask[:, None, :], fill[:, None, :].to(x.dtype), x[b])
    return q, k


def _mask(layer: LayerRoPE) -> tuple[str, int | None]:
    """A layer's attention kind and the window its mask keeps (None: every earlier key)."""
    return layer.attention, layer.window if layer.attention == "sliding_attention" else None


def _utf8(data: bytes) -> str | None:
    """data as text, or None when it ends inside a character (bytes a later token may finish)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        if err.reason == "unexpected end of data":
            return None
        return data.decode("utf-8", errors="replace")


def _part(text: str, k: int, count: int) -> str:
    return text if count == 1 else f"{text}({k}/{count})"  # no space: a token label shows spaces


def _hex(piece: bytes) -> str:
    return "".join(f"<0x{b:02X}>" for b in piece)


def _precision(precision: str) -> torch.dtype:
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {tuple(PRECISIONS)}, got {precision!r}")
    return PRECISIONS[precision]


class OnlineSoftmax:
    """Per-row statistics of logits seen a block of the vocabulary at a time (head_blocks): the largest logit and
    its token id, the log-sum-exp (float64: each block's float32 exponentials summed in float64 and rescaled to the
    running largest logit), and the logit of each row's target token (targets: one id per row, or None)."""

    def __init__(self, targets: torch.Tensor | None = None, rows: int | None = None):
        count = targets.numel() if targets is not None else int(rows or 0)
        self.targets = targets
        self.top = torch.full((count,), float("-inf"))
        self.top_id = torch.zeros(count, dtype=torch.int64)
        self.sum = torch.zeros(count, dtype=torch.float64)
        self.target = torch.zeros(count)

    def update(self, start: int, logits: torch.Tensor) -> None:
        best, where = logits.max(dim=-1)
        top = torch.maximum(self.top, best)
        self.sum = self.sum * torch.exp((self.top - top).double()) + \
            torch.exp(logits - top[:, None]).sum(dim=-1, dtype=torch.float64)
        self.top_id = torch.where(best > self.top, where + start, self.top_id)
        self.top = top
        if self.targets is not None:
            inside = (self.targets >= start) & (self.targets < start + logits.shape[-1])
            rows = inside.nonzero()[:, 0]
            self.target[rows] = logits[rows, self.targets[rows] - start]

    def lse(self) -> torch.Tensor:
        return self.top.double() + self.sum.log()

    def losses(self) -> torch.Tensor:
        """(rows,) float64: -log p(target) in nats."""
        return self.lse() - self.target.double()

    def top_prob(self) -> torch.Tensor:
        """(rows,) float64: the probability of the most likely token."""
        return torch.exp(self.top.double() - self.lse())


def log_sum_exp(logits: torch.Tensor) -> torch.Tensor:
    """(rows,) float64 log sum exp of each row of float32 logits: the exponentials in float32 (each within 1e-7 of
    its value), their sum in float64. A float64 copy of Gemma 3's 262,144 logits per row took 12 times as long (1.23
    s against 0.10 s per 256 rows here) for digits no number on the page shows."""
    logits = logits.float()
    top = logits.max(dim=-1, keepdim=True).values
    return top[:, 0].double() + torch.exp(logits - top).sum(dim=-1, dtype=torch.float64).log()


def next_token_losses(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """-log softmax(logits[i])[targets[i]] in nats (float64), one per row: the loss of predicting each next token
    (logits (n, vocab) at positions 0..n-1 and targets the n tokens that follow them); see log_sum_exp."""
    chosen = logits.float().gather(1, targets[:, None].to(torch.int64))[:, 0]
    return log_sum_exp(logits) - chosen.double()


_MODELS: dict = {}
_LOADING = threading.Lock()


def loaded(name: str) -> bool:
    """Whether the real model `name` is already loaded in this process."""
    return name in _MODELS


def real_model(name: str) -> RealModel:
    """The real model `name` (one of rope_viz.real.NAMES: "gemma-3-270m", "smollm2-135m"), loaded once per process
    and shared. ValueError naming the pip package and its install command when its weights are not installed."""
    _weights.source(name)
    with _LOADING:
        if name not in _MODELS:
            _MODELS[name] = RealModel(name)
        return _MODELS[name]
