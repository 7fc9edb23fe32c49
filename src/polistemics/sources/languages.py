"""Language names used in prompts, and the ISO 639-1 codes sources give."""

from __future__ import annotations

from pathlib import Path

from polistemics.records import LANGUAGE_NAMES
from polistemics.sources.errors import SourceError

LANGUAGES: dict[str, str] = {
    **LANGUAGE_NAMES,
    "bg": "Bulgarian",
    "ca": "Catalan",
    "cs": "Czech",
    "da": "Danish",
    "el": "Greek",
    "es": "Spanish",
    "et": "Estonian",
    "eu": "Basque",
    "fi": "Finnish",
    "fy": "Frisian",
    "ga": "Irish",
    "hr": "Croatian",
    "hu": "Hungarian",
    "is": "Icelandic",
    "it": "Italian",
    "lb": "Luxembourgish",
    "lt": "Lithuanian",
    "lv": "Latvian",
    "mt": "Maltese",
    "no": "Norwegian",
    "pl": "Polish",
    "pt": "Portuguese",
    "rm": "Romansh",
    "ro": "Romanian",
    "sk": "Slovak",
    "sl": "Slovenian",
    "sv": "Swedish",
    "tr": "Turkish",
    "uk": "Ukrainian",
}


def resolve_language(
    value: str,
    *,
    path: Path | str | None = None,
    record: str | None = None,
    field: str | None = None,
) -> tuple[str, str]:
    """(name, code) for an ISO 639-1 code or an English language name, case-insensitively."""
    key = value.strip().lower()
    if key in LANGUAGES:
        return LANGUAGES[key], key
    for code, name in LANGUAGES.items():
        if name.lower() == key:
            return name, code
    raise SourceError(
        f"unknown language {value!r}; use an ISO 639-1 code or one of: "
        + ", ".join(sorted(LANGUAGES.values())),
        path=path,
        record=record,
        field=field,
    )
