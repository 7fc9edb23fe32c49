"""Readable names and the paper's orderings for everything the report shows.

Environments use the Table 1 labels, rubrics their names and F/I/EC abbreviations, sub-questions
their App. F codes with titles. Sub-question blocks follow the paper's party figures (Fig. 13:
F, EC, I). How numbers are written is ``formatting.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import pandas as pd

from polistemics.conditions import ENVIRONMENT_ORDER, Environment, Variant
from polistemics.report.view import Column
from polistemics.rubrics import BY_KEY, SUB_QUESTIONS, Rubric, SubQuestion

RUBRIC_ORDER: tuple[Rubric, ...] = (
    Rubric.FAITHFULNESS,
    Rubric.IMPARTIALITY,
    Rubric.EPISTEMIC_CALIBRATION,
)
# Fig. 13 and the ablation heatmaps separate rubric blocks in this order.
PARTY_FIGURE_RUBRICS: tuple[Rubric, ...] = (
    Rubric.FAITHFULNESS,
    Rubric.EPISTEMIC_CALIBRATION,
    Rubric.IMPARTIALITY,
)
VARIANT_LABELS = {
    Variant.FULL.value: "Full (real labels, native language)",
    Variant.ANONYMIZED.value: "Anonymised labels",
    Variant.ENGLISH.value: "English output",
}


def environment_label(value: str) -> str:
    return Environment(value).label


def rubric_label(value: str) -> str:
    return Rubric(value).label


def sub_question(key: str) -> SubQuestion:
    return BY_KEY[key]


def sub_question_label(key: str) -> str:
    """``F1 Position Representation``."""
    sq = BY_KEY[key]
    return f"{sq.code} {sq.title}"


def sub_question_order(keys: Iterable[str], rubrics: Iterable[Rubric] = RUBRIC_ORDER) -> list[str]:
    """Keys grouped by rubric in the given block order, App. F order within a block."""
    wanted = set(keys)
    return [sq.key for r in rubrics for sq in SUB_QUESTIONS if sq.rubric is r and sq.key in wanted]


def order_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows in the paper's order of whichever of variant, environment, rubric and sub-question
    the table has (then as they were)."""
    ranks = {
        "variant": {v.value: i for i, v in enumerate(Variant)},
        "environment": {e.value: i for i, e in enumerate(ENVIRONMENT_ORDER)},
        "rubric": {r.value: i for i, r in enumerate(RUBRIC_ORDER)},
        "sub_question": {sq.key: i for i, sq in enumerate(SUB_QUESTIONS)},
    }
    keys = [
        c
        for c in ("election_id", "variant", "rubric", "sub_question", "environment")
        if c in frame.columns
    ]
    if frame.empty or not keys:
        return frame
    sort_keys = {}
    for column in keys:
        rank = ranks.get(column)
        sort_keys[f"__{column}"] = (
            frame[column].map(rank).fillna(99) if rank else frame[column].astype(str)
        )
    ordered = frame.assign(**sort_keys).sort_values(list(sort_keys), kind="stable")
    return ordered.drop(columns=list(sort_keys)).reset_index(drop=True)


def variant_label(value: str) -> str:
    """The one display name of a variant on every page, table and figure (``full`` -> ``Full
    (real labels, native language)``); an unknown id as it is."""
    return VARIANT_LABELS.get(value, value)


# Every table with a variant column shows it through this column (a frozen Column is safe to
# reuse), so no table prints the bare id ("anon") where another prints its name.
VARIANT_COLUMN = Column("Variant", lambda r: variant_label(r["variant"]))

_SHORT_WORD = 3  # letter-only parts this short are acronyms: "gpt" -> "GPT", "tk" -> "TK"


def _split_id(value: str) -> list[str]:
    """``"qwen3_6_flash"`` -> ``["qwen3", "6", "flash"]``; ``"bundestagswahl2025"`` ->
    ``["bundestagswahl", "2025"]`` (a year glued to a word is split off)."""
    parts = [p for p in re.split(r"[_\-\s/]+", value) if p]
    split: list[str] = []
    for part in parts:
        glued = re.fullmatch(r"([A-Za-z]{2,})((?:19|20)\d\d)", part)
        split.extend(glued.groups() if glued else [part])
    return split


def _word(part: str) -> str:
    if part.isalpha() and part.islower():
        return part.upper() if len(part) <= _SHORT_WORD else part.capitalize()
    return part[:1].upper() + part[1:] if part[:1].islower() else part


def humanised_model(model: str) -> str:
    """A readable name for a model id without a display name: ``gpt_5_4`` -> ``GPT-5.4``,
    ``claude_sonnet_4_6`` -> ``Claude Sonnet 4.6``, ``qwen3_6_flash`` -> ``Qwen3.6 Flash``.
    Runs of number parts become a version (``5.4``); a short acronym joins its version with a
    hyphen. Ids already written with dots (``gpt-5.4``) keep their own spelling otherwise."""
    words: list[str] = []
    for part in _split_id(model):
        if part.isdigit() and words and re.search(r"\d$", words[-1]):
            words[-1] += f".{part}"  # 5 4 -> 5.4, qwen3 6 -> qwen3.6
        elif part[:1].isdigit() and words and words[-1].isupper() and words[-1].isalpha():
            words[-1] += f"-{part}"  # GPT 5 -> GPT-5
        else:
            words.append(_word(part))
    return " ".join(words) or model


def humanised_election(election_id: str) -> str:
    """``bundestagswahl2025`` -> ``Bundestagswahl 2025``, ``nl_tk2025`` -> ``NL TK 2025``."""
    return " ".join(_word(p) for p in _split_id(election_id)) or election_id


class ModelLabels:
    """Display names for models and elections: ``--label ID=NAME`` first, then the registry's
    ``display_name`` of a model and the source's title of an election.

    ``labels(model)`` is the page's name for a model (the id itself unless a label was given);
    ``display(model)`` and ``election(id, country)`` are the figures' and LaTeX tables' names: a
    label, else the display name or title, else a readable name (``humanised_model``,
    ``humanised_election``), never a raw id."""

    def __init__(
        self,
        labels: Mapping[str, str] | None = None,
        election_titles: Mapping[str, str] | None = None,
        display_names: Mapping[str, str] | None = None,
    ):
        self._labels = dict(labels or {})
        self._titles = _named(election_titles)
        self._names = _named(display_names)

    def __call__(self, model: str) -> str:
        return self._labels.get(model, model)

    def display(self, model: str) -> str:
        """A figure's name for ``model``: its label, else its display name, else
        ``humanised_model``."""
        return self._labels.get(model) or self._names.get(model) or humanised_model(model)

    def named_election(self, election_id: str) -> str | None:
        """An election's label or source title; None when neither is known."""
        return self._labels.get(election_id) or self._titles.get(election_id)

    def election(self, election_id: str, country: str | None = None) -> str:
        """A figure's name for an election: its label, else its source's title, else
        ``humanised_election`` with the country in front (``DE: Bundestagswahl 2025``)."""
        named = self.named_election(election_id)
        if named is not None:
            return named
        name = humanised_election(election_id)
        if country and not name.upper().startswith(country.upper()) and _real_country(country):
            return f"{country.upper()}: {name}"
        return name


def _named(names: Mapping[str, str] | None) -> dict[str, str]:
    """Names given, on one line; blank ones left out."""
    return {k: " ".join(v.split()) for k, v in (names or {}).items() if v and v.strip()}


def _real_country(code: str) -> bool:
    """False for ISO 3166's user-assigned codes (AA, QM-QZ, XA-XZ, ZZ: the demo's ``XX``)."""
    code = code.strip().upper()
    if len(code) != 2:
        return bool(code)
    return not (code in ("AA", "ZZ") or code[0] == "X" or (code[0] == "Q" and code[1] >= "M"))
