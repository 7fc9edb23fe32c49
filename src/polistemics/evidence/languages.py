"""Language names and codes accepted by the evidence checks."""

from __future__ import annotations

from polistemics.records import LANGUAGE_NAMES

SUPPORTED = ("de", "nl", "en")


class UnsupportedLanguage(ValueError):
    """The evidence checks have no rules for this language."""


def language_code(language: str) -> str:
    """'German', 'german' or 'de' -> 'de'; anything without rules here is an error."""
    wanted = language.strip().lower()
    for code, name in LANGUAGE_NAMES.items():
        if wanted in (code, name.lower()):
            if code not in SUPPORTED:
                break
            return code
    raise UnsupportedLanguage(
        f"no sentence, pronoun or intensifier rules for language '{language}' "
        f"(supported: {', '.join(SUPPORTED)})"
    )
