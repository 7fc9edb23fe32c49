"""The item browser's data: every answer with its context, final verdicts and each judge's raw
verdicts, as compact JSON embedded in the page.

Long texts (statements, context chunks, answers, raw judge outputs) are stored once in a string
table and referenced by index; contexts are shared by all models' answers to an item. Per answer,
``c`` holds the final (majority) verdict per sub-question in ``SUB_QUESTIONS`` order (``P``
pass, ``F`` fail, ``-`` not scored) and each judge record's ``y`` its raw Yes/No per
sub-question (``Y``, ``N``, ``?`` unreadable, ``-`` not asked). With stance codes (issue 16),
``cs`` is the answer's coded stance (or why it has none: ``no_majority``, ``missing``,
``not_coded``; None: not in a coded environment) and ``ps`` the model's closed-book prior on the
party x statement (``Agree``/``Disagree``/``Neutral``; None: no committed prior or no probe).

At most ``max_answers`` answers are embedded (default 20,000: the paper's ~13k answers fit);
beyond that a seeded random sample is kept and the page says how many were left out.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from functools import cache

import numpy as np
import pandas as pd

from polistemics.conditions import ALL_ENVIRONMENTS, COMPOSITIONS, ENVIRONMENT_ORDER, Variant
from polistemics.report.defaults import DEFAULT_MAX_ANSWERS
from polistemics.report.inputs import (
    AnswerView,
    JudgeRecordSource,
    answer_texts,
)
from polistemics.report.labels import ModelLabels, variant_label
from polistemics.report.verdict_source import records_of_answers
from polistemics.rubrics import SUB_QUESTIONS, Rubric
from polistemics.runlog import JudgeVerdictRecord, fields_of
from polistemics.scoring.cells import first_rows, group_ids
from polistemics.scoring.verdict_table import panel_judge_id

_SQ_INDEX = {sq.key: i for i, sq in enumerate(SUB_QUESTIONS)}
_RUBRICS = list(Rubric)
_RUBRIC_INDEX = {rubric: i for i, rubric in enumerate(_RUBRICS)}
_ENV_INDEX = {env.value: i for i, env in enumerate(ENVIRONMENT_ORDER)}
_VARIANTS = list(Variant)
_VARIANT_INDEX = {variant: i for i, variant in enumerate(_VARIANTS)}

AnswerKey = tuple[str, str, str, str, int]  # model, environment, variant, observation, sample


class _Strings:
    def __init__(self) -> None:
        self.table: list[str] = []
        self._index: dict[str, int] = {}

    def add(self, text: str | None) -> int | None:
        if text is None:
            return None
        index = self._index.get(text)
        if index is None:
            index = self._index[text] = len(self.table)
            self.table.append(text)
        return index


_ANSWER_COLUMNS = ["model", "environment", "variant", "observation_id", "sample_index"]


def final_verdicts(cells: pd.DataFrame) -> dict[AnswerKey, str]:
    """Per answer, the ``P``/``F``/``-`` string over all sub-questions (answers in order of
    first appearance; a repeated cell: its last row counts)."""
    slots = cells["sub_question"].map(_SQ_INDEX)
    known = slots.notna().to_numpy()
    if not known.any():
        return {}
    rows = cells.loc[known, [*_ANSWER_COLUMNS, "passed"]]
    answer, n_answers = group_ids([rows[c] for c in _ANSWER_COLUMNS])
    cell = answer * len(SUB_QUESTIONS) + slots[known].to_numpy(dtype="int64")
    last = ~pd.Series(cell).duplicated(keep="last").to_numpy()  # one row per cell, the last
    marks = np.full(n_answers * len(SUB_QUESTIONS), "-", dtype="<U1")
    marks[cell[last]] = np.where(rows["passed"].to_numpy(dtype=bool)[last], "P", "F")
    first = rows.iloc[first_rows(answer)]
    columns = [first[c].tolist() for c in _ANSWER_COLUMNS]
    columns[-1] = [int(sample) for sample in columns[-1]]
    keys = zip(*columns, strict=True)
    return dict(zip(keys, marks.view(f"<U{len(SUB_QUESTIONS)}").tolist(), strict=True))


def _cells_of(cells: pd.DataFrame, answers: list[AnswerView]) -> pd.DataFrame:
    """The cells of these answers (model, environment, variant, observation, sample)."""
    keys = {
        (a.model, a.item.environment.value, a.item.variant.value, a.item.observation_id)
        + (a.sample_index,)
        for a in answers
    }
    rows = zip(*(cells[c].to_numpy() for c in _ANSWER_COLUMNS), strict=True)
    return cells[np.fromiter((row in keys for row in rows), dtype=bool, count=len(cells))]


@cache
def _says(verdicts: tuple[tuple[str, bool | None], ...]) -> str:
    """A record's ``says_yes`` items as ``Y``/``N``/``?``/``-`` per sub-question (few distinct
    ones exist, hence the cache)."""
    marks = ["-"] * len(SUB_QUESTIONS)
    for key, says_yes in verdicts:
        slot = _SQ_INDEX.get(key)
        if slot is not None:
            marks[slot] = "?" if says_yes is None else ("Y" if says_yes else "N")
    return "".join(marks)


# What the page shows of one judge record: rubric index, panel seat, judge id, raw output,
# Yes/No marks, error (held per answer instead of the record: a study's records are not all
# kept as objects at once).
JudgeRow = tuple[int, int, str, str | None, str, str | None]


def _judge_row(record: JudgeVerdictRecord) -> JudgeRow:
    return (
        _RUBRIC_INDEX[record.rubric],
        record.panel_position,
        panel_judge_id(record),
        record.raw_output,
        _says(tuple(record.says_yes.items())),
        record.error,
    )


def _judge_rows(records: list[JudgeRow], judges: dict[str, int], strings: _Strings) -> list[list]:
    """Per judge record of one answer (by rubric, then panel seat): rubric, judge, raw output,
    Yes/No marks and error."""
    rows = []
    for rubric, _, judge, raw_output, marks, error in sorted(records, key=lambda r: r[:2]):
        rows.append(
            [
                rubric,
                judges.setdefault(judge, len(judges)),
                strings.add(raw_output),
                marks,
                strings.add(error),
            ]
        )
    return rows


def _disagree(judge_marks: Iterable[str]) -> bool:
    """Whether the judges gave different parsed answers to some sub-question."""
    yes = no = 0
    for marks in judge_marks:
        said_yes, said_no = _yes_no_bits(marks)
        yes, no = yes | said_yes, no | said_no
    return bool(yes & no)


@cache
def _yes_no_bits(marks: str) -> tuple[int, int]:
    """The sub-questions a ``_says`` string answers Yes, and No, as bit sets."""
    return (
        sum(1 << slot for slot, mark in enumerate(marks) if mark == "Y"),
        sum(1 << slot for slot, mark in enumerate(marks) if mark == "N"),
    )


def _sample(answers: list[AnswerView], limit: int, seed: int) -> list[AnswerView]:
    def rank(answer: AnswerView) -> str:
        text = f"{seed}|{answer.model}|{answer.item.key}|{answer.sample_index}"
        return hashlib.sha256(text.encode()).hexdigest()

    keep = {id(a) for a in sorted(answers, key=rank)[:limit]}
    return [a for a in answers if id(a) in keep]


def _records_of(
    records: Iterable[JudgeVerdictRecord] | None, answers: set[tuple[str, str]]
) -> Iterable[JudgeVerdictRecord]:
    """The judge records to look through for these answers (item key, model): of a file, those
    of the answers only (``verdict_source.records_of_answers``); else all as they are."""
    if isinstance(records, JudgeRecordSource):
        found = records_of_answers(records, answers)
        if found is not None:
            return found
    return fields_of(records or [])


def browser_payload(
    answers: list[AnswerView],
    cells: pd.DataFrame,
    judge_records: Iterable[JudgeVerdictRecord] | None,
    labels: ModelLabels,
    *,
    max_answers: int = DEFAULT_MAX_ANSWERS,
    seed: int = 0,
    stances: dict[tuple[str, str, int], tuple[str | None, str | None]] | None = None,
) -> dict:
    """The JSON-ready dict the page's script reads (see the module docstring). ``stances``: per
    (item key, model, sample), the coded stance and prior (None: the run coded no stances)."""
    total = len(answers)
    chosen = answers if total <= max_answers else _sample(answers, max_answers, seed)
    chosen = sorted(
        chosen,
        key=lambda a: (
            a.model,
            _ENV_INDEX.get(a.item.environment.value, 99),
            _VARIANT_INDEX[a.item.variant],
            a.item.party_name,
            a.item.observation_id,
            a.sample_index,
        ),
    )
    # a sample's final verdicts from its answers' cells alone (not a copy of every cell)
    verdicts = final_verdicts(cells if len(chosen) == total else _cells_of(cells, chosen))
    # The judge rows of the answers shown only (a 4x study has 427,000 records, 20,000 shown).
    by_answer: dict[tuple[str, str, int], list[JudgeRow]] = {
        (a.item.key, a.model, a.sample_index): [] for a in chosen
    }
    for record in _records_of(judge_records, {(key, model) for key, model, _ in by_answer}):
        rows_of = by_answer.get((record.item_key, record.model, record.sample_index))
        if rows_of is not None:
            rows_of.append(_judge_row(record))

    # The six, then the compositions (issue 30) the answers hold: one more environment each.
    shown = {a.item.environment for a in chosen}
    environments = [*ALL_ENVIRONMENTS, *(e for e in COMPOSITIONS if e in shown)]
    strings = _Strings()
    models = sorted({a.model for a in chosen})
    model_index = {model: i for i, model in enumerate(models)}
    parties: dict[str, int] = {}
    party_rows: list[list[str]] = []
    judges: dict[str, int] = {}
    contexts: dict[tuple, int] = {}
    rows = []
    # the shown answers' texts (a run's are read from its answers file, in one pass)
    for answer, text in zip(chosen, answer_texts(chosen), strict=True):
        item = answer.item
        if item.party_id not in parties:
            parties[item.party_id] = len(party_rows)
            party_rows.append([item.party_id, item.party_name])
        context = tuple(
            (strings.add(c.text), "d" if c.role == "distractor" else "t") for c in item.chunks
        )
        context_index = contexts.setdefault(context, len(contexts))
        key = (
            answer.model,
            item.environment.value,
            item.variant.value,
            item.observation_id,
            answer.sample_index,
        )
        judge_rows = _judge_rows(
            by_answer.get((item.key, answer.model, answer.sample_index), []), judges, strings
        )
        coded, prior = (stances or {}).get(
            (item.key, answer.model, answer.sample_index), (None, None)
        )
        rows.append(
            {
                "m": model_index[answer.model],
                "e": environments.index(item.environment),
                "v": _VARIANT_INDEX[item.variant],
                "p": parties[item.party_id],
                "o": item.observation_id,
                "n": answer.sample_index,
                "q": strings.add(item.statement_text),
                "l": item.party_label,
                "x": context_index,
                "a": strings.add(text),
                "f": strings.add(answer.error),
                "s": item.stance_label.value,
                "t": item.judged_expected_stance.value if item.environment.conclusive else None,
                "g": item.vague_mode,
                "c": verdicts.get(key, "-" * len(SUB_QUESTIONS)),
                "j": judge_rows,
                "d": 1 if _disagree(r[3] for r in judge_rows) else 0,
                "k": 1 if answer.truncated else 0,
                "cs": coded,
                "ps": prior,
            }
        )
    return {
        "total": total,
        "embedded": len(rows),
        "hasJudges": judge_records is not None,
        "hasStances": stances is not None,
        "models": [[m, labels(m)] for m in models],
        "environments": [[e.value, e.label] for e in environments],
        "variants": [[v.value, variant_label(v.value)] for v in _VARIANTS],
        "rubrics": [[r.value, r.label, r.abbreviation] for r in _RUBRICS],
        "subQuestions": [
            [sq.key, sq.code, sq.title, _RUBRICS.index(sq.rubric), sq.question]
            for sq in SUB_QUESTIONS
        ],
        "yesPasses": [
            "".join(
                ("Y" if sq.yes_passes(env) else "N") if sq.is_active(env) else "-"
                for sq in SUB_QUESTIONS
            )
            for env in environments
        ],
        "parties": party_rows,
        "judges": list(judges),
        "contexts": [list(map(list, context)) for context in contexts],
        "strings": strings.table,
        "items": rows,
    }


def embed_json(payload: object) -> str:
    """JSON safe inside ``<script type="application/json">``: no ``<``, ``>``, ``&`` or line
    separators appear literally, so no text can close the element or start markup."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )
