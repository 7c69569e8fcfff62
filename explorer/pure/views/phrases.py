"""What a view says, in no language yet: a Phrase is a text key and its arguments (numbers, strings, or
Phrases, put into words first; a tuple of Phrases is listed); a Metric is a label, a formatted value and an
optional tooltip. Views return them so that the claims they make are tested without Streamlit; the page turns
them into text in the visitor's language (explorer.app.place)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Phrase:
    key: str
    args: dict = field(default_factory=dict)


def phrase(key: str, **args) -> Phrase:
    return Phrase(key, args)


def counted(key: str, count: int, **args) -> Phrase:
    """The text `key`, or `<key>_one` when `count` is 1: a sentence that names a count agrees with it
    (every language has both keys; one without grammatical number writes them alike)."""
    return Phrase(f"{key}_one" if count == 1 else key, args)


@dataclass(frozen=True)
class Metric:
    label: Phrase
    value: str | Phrase
    help: Phrase | None = None


def metric(label: str, value: str | Phrase, help: Phrase | None = None, **args) -> Metric:
    """A Metric labelled by the text `label` (with `args`)."""
    return Metric(Phrase(label, args), value, help)
