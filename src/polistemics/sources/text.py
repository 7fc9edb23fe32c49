"""Small text clean-ups shared by the source readers."""

from __future__ import annotations

import re

_SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+([.,;:?!])")


def clean_statement(text: str) -> str:
    """Trim, and drop stray spaces before punctuation ('afgeschaft .' -> 'afgeschaft.')."""
    return _SPACE_BEFORE_PUNCTUATION.sub(r"\1", text).strip()


def collapse_whitespace(text: str) -> str:
    """Join lines and indentation left over from HTML source into single spaces."""
    return " ".join(text.split())


def rationale_or_none(text: str | None) -> str | None:
    """None for missing or blank rationales, else the text trimmed."""
    if text is None:
        return None
    text = text.strip()
    return text or None
