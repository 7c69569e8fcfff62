"""Synthetic tasks whose answers depend on position in two opposite ways.

recall (induction: find the previous occurrence of the current token, output what followed it).
    A segment S of s distinct tokens appears twice, with random filler before, between and after
    the copies; filler never uses a token of S. At every token of the second copy except its last,
    the answer is the token that followed that token's previous occurrence (in the first copy),
    i.e. the next token of S. The segment length (4 .. 16 tokens, fewer in very short sequences)
    and the gap are random, so the two copies are a varying distance apart, up to nearly the whole
    sequence at every length: the answer is found by
    *content*, at any distance, and no fixed offset gives it. Position is needed only locally (a
    head that knows "the token just before me"): the classic two-layer induction circuit.
offset (local copy): the answer at position t is the token at t - k (k = 3 by default). Content
    is irrelevant, only the relative offset matters: the purest test of whether an encoding lets
    the model say "exactly k back" at positions it never saw during training.
passkey (retrieval from a long context, as long-context models are judged): filler tokens, one
    KEY marker at a depth drawn uniformly from every place it fits, the value right after it, and
    the QUERY marker as the last token. The one answer, at the last position, is the value. KEY
    and QUERY appear nowhere else, so the answer is recoverable from the tokens alone; filler and
    values share the other tokens, so only the KEY marker says which token is the value.

Each generator returns `tokens` (batch, length) and `targets` (batch, length) with IGNORE (-100)
wherever nothing is asked; the loss and the accuracy count only the other positions.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .._checks import check_choice, check_int

TASKS = ("recall", "offset")             # the two-layer grid (rope_viz/toy/shipped/grid.json)
TASK_NAMES = TASKS + ("passkey",)        # every task; the four-layer grid trains all three
IGNORE = -100


@dataclass(frozen=True)
class TaskSpec:
    """Vocabulary of a task: `vocab_size` tokens, all used as content.

    recall: the segment takes s <= 16 distinct tokens, the filler draws from the others.
    offset: uniform tokens; the answer is `offset` places back.
    passkey: tokens vocab_size - 2 and vocab_size - 1 are the KEY and QUERY markers, the others
        filler and values.
    """

    name: str
    vocab_size: int
    offset: int = 3

    def min_length(self) -> int:
        return {"recall": 8, "offset": self.offset + 1, "passkey": 3}[self.name]


    @property
    def key_token(self) -> int:
        return self.vocab_size - 2

    @property
    def query_token(self) -> int:
        return self.vocab_size - 1


_SPECS = {"recall": TaskSpec("recall", 64), "offset": TaskSpec("offset", 32), "passkey": TaskSpec("passkey", 32)}


def task_spec(name: str) -> TaskSpec:
    """The TaskSpec used for `name` (one of TASK_NAMES)."""
    check_choice(name, "task", TASK_NAMES)
    return _SPECS[name]


def recall_segment_range(length: int) -> tuple[int, int]:
    """Smallest and largest segment length s of a recall sequence of `length` tokens."""
    return min(4, length // 4), min(16, length // 2)


def _recall(spec: TaskSpec, batch: int, length: int, gen: torch.Generator):
    lo, hi = recall_segment_range(length)
    seg = torch.randint(lo, hi + 1, (batch, 1), generator=gen)
    free = length - 2 * seg
    before = (torch.rand(batch, 1, generator=gen) * (free + 1)).long()           # filler before copy 1
    between = (torch.rand(batch, 1, generator=gen) * (free - before + 1)).long()  # filler between copies
    first, second = before, before + seg + between
    perm = torch.rand(batch, spec.vocab_size, generator=gen).argsort(dim=1)
    # segment = perm[:, :s]; filler draws from perm[:, hi:], never a segment token
    filler = torch.randint(hi, spec.vocab_size, (batch, length), generator=gen)
    tokens = perm.gather(1, filler)
    j = torch.arange(length)
    in_first = (j >= first) & (j < first + seg)
    in_second = (j >= second) & (j < second + seg)
    tokens = torch.where(in_first, perm.gather(1, (j - first).clamp(0, hi - 1)), tokens)
    tokens = torch.where(in_second, perm.gather(1, (j - second).clamp(0, hi - 1)), tokens)
    scored = (j >= second) & (j < second + seg - 1)
    answer = perm.gather(1, (j - second + 1).clamp(0, hi - 1))
    targets = torch.where(scored, answer, torch.full_like(tokens, IGNORE))
    return tokens, targets


def _offset(spec: TaskSpec, batch: int, length: int, gen: torch.Generator):
    tokens = torch.randint(0, spec.vocab_size, (batch, length), generator=gen)
    targets = torch.full((batch, length), IGNORE, dtype=torch.long)
    targets[:, spec.offset:] = tokens[:, : length - spec.offset]
    return tokens, targets


def passkey_depth(length: int, key_position) -> float:
    """Where a KEY marker at `key_position` lies in a passkey sequence of `length` tokens: 0 at the
    first token, 1 at the last place it fits (length - 3, just before the value and the QUERY)."""
    return key_position / (length - 3) if length > 3 else 0.0


def _passkey(spec: TaskSpec, batch: int, length: int, gen: torch.Generator):
    tokens = torch.randint(0, spec.key_token, (batch, length), generator=gen)
    key = torch.randint(0, length - 2, (batch, 1), generator=gen)  # uniform over 0 .. length - 3
    j = torch.arange(length)
    tokens = torch.where(j == key, spec.key_token, tokens)
    tokens[:, -1] = spec.query_token
    targets = torch.full((batch, length), IGNORE, dtype=torch.long)
    targets[:, -1] = tokens.gather(1, key + 1)[:, 0]
    return tokens, targets


_GENERATORS = {"recall": _recall, "offset": _offset, "passkey": _passkey}


def make_batch(task: str, batch: int, length: int, *, generator: torch.Generator | None = None,
               seed: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """`batch` fresh sequences of `length` tokens for `task`: (tokens, targets), both int64.

    targets[b, t] is the answer expected from the model's output at position t, or IGNORE.
    Pass a torch.Generator (advanced by the call) or a seed; the same seed gives the same batch.
    """
    spec = task_spec(task)
    batch = check_int(batch, "batch", minimum=1)
    length = check_int(length, "length", minimum=spec.min_length())
    if generator is None:
        generator = torch.Generator().manual_seed(0 if seed is None else check_int(seed, "seed"))
    return _GENERATORS[task](spec, batch, length, generator)
