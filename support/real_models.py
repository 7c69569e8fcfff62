"""What the real-model tests share: their texts, and transformers' own run of each model from the same GGUF file
(the independent reference for rope_viz.real).

The reference is transformers' GGUF loader and its eager float32 attention: it reads and dequantises the GGUF file
itself and never imports rope_viz.real's converted copy, so a wrong conversion, norm, mask or rotation in
rope_viz.real shows as a difference.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

# A text longer than Gemma 3's sliding window (512 tokens): three paragraphs, then the first two again, so that
# the last part can be predicted by copying from far back (what a broken position signal spoils first).
_FIRST = (
    "Rotary position embedding gives a transformer its sense of order without adding anything to the tokens. "
    "Before two tokens compare their query and key, each of those vectors is cut into pairs of numbers, and every "
    "pair is turned like the hand of a clock by an angle that grows with the token's position. The first pairs turn "
    "quickly, the last ones very slowly, so that near and far distances are both told apart. Because both vectors "
    "are turned, their dot product sees only the difference between the two angles, which is the distance between "
    "the tokens: the same words score the same way at the start of a book and in its last chapter. "
)
_SECOND = (
    "Engineers like this property for practical reasons too. Nothing has to be learned for the positions, the "
    "rotation costs a few multiplications per number, and a cache of keys stays valid while the text grows, since "
    "a key is turned once, at the position where it was written. When a model must read longer documents than it "
    "saw in training, the slowest pairs are the trouble: they never completed a turn during training, so a new "
    "angle looks like nothing the model has met. Scaling methods such as linear interpolation, NTK-aware bases and "
    "YaRN stretch or slow down those pairs so that long inputs fall back into familiar angles. "
)
_THIRD = (
    "Small models make all of this easy to watch. One can shift every position by a thousand and see that the "
    "predictions do not move, double every position and see them fall apart, or stop a single pair from turning "
    "and measure how much the model depended on it. Gemma 3 mixes local layers, which look back over a window of "
    "five hundred and twelve tokens with a small base, and global layers, which see the whole text with a base of "
    "one million. SmolLM2 uses one base in every layer and reads its pairs in the half layout, first half against "
    "second half, which is how most checkpoints on the Hugging Face hub store them today. "
)
LONG_TEXT = _FIRST + _SECOND + _THIRD + _FIRST + _SECOND
"""About 640 tokens for either model (past Gemma 3's 512-token window); natural English about RoPE."""
SHORT_TEXT = _FIRST + _FIRST
"""About 280 tokens: one paragraph twice, so that its second half can be predicted by copying from the first."""

ENGLISH = "The capital of France is Paris. Rotary embeddings turn pairs of numbers by angles!"
CHINESE = "旋转位置编码把查询和键的每一对分量按位置转过一个角度，注意力因此只看相对距离。"


@dataclass(frozen=True)
class Reference:
    """What transformers makes of one model: its tokenizer's ids for each text given, and its float32 logits
    (seq, vocab) on the ids of `long_text` (its own tokenizer's)."""

    ids: dict
    logits: torch.Tensor


def transformers_reference(name: str, long_text: str, texts: tuple = ()) -> Reference:
    """transformers' own model and tokenizer for rope_viz.real's `name`, loaded from the same GGUF file (float32,
    eager attention): the logits on `long_text` and the ids of `long_text` and of each of `texts`. The model is
    dropped before returning; only the logits stay."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rope_viz.real.weights import gguf_path

    path = gguf_path(name)
    tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch.float32,
                                                 attn_implementation="eager")
    ids = {text: tokenizer(text)["input_ids"] for text in (long_text, *texts)}
    with torch.inference_mode():
        logits = model(torch.tensor([ids[long_text]])).logits[0].float()
    return Reference(ids, logits)



@dataclass(frozen=True)
class Gap:
    """How two (seq, vocab) logits of the same ids differ: top1 (seq,) argmax of each, losses (seq - 1,) float64
    next-token losses of each (nats, written out here: logsumexp minus the target's logit), max_log_softmax the
    largest |log-softmax difference| over every position and vocabulary entry."""

    top1: tuple
    losses: tuple
    max_log_softmax: float


def gap(ours: torch.Tensor, theirs: torch.Tensor, ids, rows: int = 128) -> Gap:
    """Gap between two logits on ids, in float64, a block of `rows` positions at a time (a 262k vocabulary)."""
    ids = torch.as_tensor(ids)
    worst, losses = 0.0, ([], [])
    for start in range(0, ids.numel(), rows):
        block = slice(start, start + rows)
        targets = ids[start + 1:start + rows + 1]  # one fewer in the last block: the last position has none
        pair = []
        for logits, out in zip((ours, theirs), losses):
            scores = logits[block].double()
            log_probs = scores - torch.logsumexp(scores, dim=-1, keepdim=True)
            out.append(-log_probs[torch.arange(targets.numel()), targets])
            pair.append(log_probs)
        worst = max(worst, float((pair[0] - pair[1]).abs().max()))
    return Gap((ours.argmax(-1), theirs.argmax(-1)), tuple(torch.cat(out) for out in losses), worst)
