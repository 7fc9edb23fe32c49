"""How a run's files are written (``RunDir`` calls these with its paths).

Only given rows are written here: what they hold (scores, summaries) is computed by the stages
above (``scoring.run_scores``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import IO

from polistemics.conditions import Environment, Variant
from polistemics.paths import replacing
from polistemics.rubrics import Rubric
from polistemics.runlog.answers import Answer, ProbeAnswer
from polistemics.runlog.codes import StanceCodeRecord
from polistemics.runlog.items import EnvironmentItem
from polistemics.runlog.judge_records import fields_of
from polistemics.runlog.layout import (
    ITEMS_FILE,
    OUTPUTS_FILE,
    PRIOR_PROBE_FILE,
    PUSHBACK_CODES_FILE,
    PUSHBACK_FILE,
    PUSHBACK_JUDGES_FILE,
    REPEATS_FILE,
    STANCE_CODES_FILE,
    SWAPPED_ITEMS_FILE,
    VARIANT_FOLDERS,
    mechanism_export_folder,
    release_folder,
)
from polistemics.runlog.pushback import PushbackTurn
from polistemics.runlog.release_io import write_items
from polistemics.runlog.verdicts import JudgeVerdictRecord, RepeatVerdictRecord

_JSON_LINE = json.JSONEncoder(ensure_ascii=False, sort_keys=True)  # one encoder for all rows


def write_jsonl(path: Path, rows: Iterable[dict]) -> int:
    return write_lines(path, (_JSON_LINE.encode(row) for row in rows))


def answer_line(answer: Answer) -> str:
    """One answer as ``answers.jsonl`` holds it."""
    return _JSON_LINE.encode(answer.model_dump(mode="json"))


def write_lines(path: Path, lines: Iterable[str]) -> int:
    """One line per item of ``lines`` (without their newline); returns how many. Written to a
    new file renamed into place (``paths.replacing``: never torn, untouched when the same)."""
    count = 0
    with replacing(path) as temporary, temporary.open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(line + "\n")
            count += 1
    return count


# What judge_record_lines writes directly; another model falls back to the general encoder.
_JUDGE_RECORD_FIELDS = {
    "attempts": int,
    "call_key": str | None,
    "environment": Environment,
    "error": str | None,
    "item_key": str,
    "judge": str,
    "model": str,
    "panel_position": int,
    "parsed": bool,
    "raw_output": str | None,
    "rubric": Rubric,
    "sample_index": int,
    "says_yes": dict[str, bool | None],
}
_text = json.encoder.encode_basestring  # the function json.dumps quotes strings with


def judge_record_lines(records: Iterable[JudgeVerdictRecord]) -> Iterator[str]:
    """Each record as ``json.dumps(record.model_dump(mode="json"), ensure_ascii=False,
    sort_keys=True)`` writes it, about three times faster (a paper-scale run has 100,000):
    the fields in key order, each value formatted as json formats it."""
    fields = {name: info.annotation for name, info in JudgeVerdictRecord.model_fields.items()}
    if fields != _JUDGE_RECORD_FIELDS:
        yield from (_JSON_LINE.encode(record.model_dump(mode="json")) for record in records)
        return
    verdicts: dict[tuple, str] = {}  # few distinct says_yes: each encoded once
    for r in fields_of(records):
        says_yes = tuple(r.says_yes.items())
        encoded = verdicts.get(says_yes)
        if encoded is None:
            encoded = verdicts[says_yes] = _JSON_LINE.encode(r.says_yes)
        yield (
            f'{{"attempts": {r.attempts!r}, "call_key": {_optional(r.call_key)}, '
            f'"environment": {_text(r.environment.value)}, "error": {_optional(r.error)}, '
            f'"item_key": {_text(r.item_key)}, "judge": {_text(r.judge)}, '
            f'"model": {_text(r.model)}, "panel_position": {r.panel_position!r}, '
            f'"parsed": {"true" if r.parsed else "false"}, '
            f'"raw_output": {_optional(r.raw_output)}, "rubric": {_text(r.rubric.value)}, '
            f'"sample_index": {r.sample_index!r}, "says_yes": {encoded}}}'
        )


def _optional(text: str | None) -> str:
    return "null" if text is None else _text(text)


def write_summary(path: Path, summaries: list[dict]) -> Path:
    """``scores/summary.json``: the given per model x variant scores, as one indented list."""
    with replacing(path) as temporary:
        temporary.write_text(json.dumps(summaries, indent=2), encoding="utf-8")
    return path


def release_outputs_row(answer: Answer, item: EnvironmentItem) -> dict:
    """One answer in the release's ``outputs.jsonl`` shape."""
    return {
        "observation_id": item.observation_id,
        "statement_id": item.statement_id,
        "party_id": item.party_id,
        "model_id": answer.model,
        "prompt_variation": "default",
        "run_index": answer.sample_index,
        "predicted_stance": None,
        "predicted_explanation": answer.text,
        "latency_ms": answer.latency_ms,
        "tokens_input": answer.input_tokens,
        "tokens_output": answer.output_tokens,
        "cost_usd": answer.cost,
        "status": "success" if answer.ok else "error",
        "error_message": answer.error,
        "refusal_type": "refusal" if answer.refusal else "none",
        "ie_name": item.environment.value,
        "condition_id": f"{item.environment.value}__{'anonymized' if item.variant is Variant.ANONYMIZED else 'real'}"
        f"__{item.output_language}__none",
    }


def release_folders(
    run_dir: Path, items: list[EnvironmentItem]
) -> list[tuple[Path, list[EnvironmentItem]]]:
    """Per election and variant with items: its release folder and those items."""
    folders = []
    for election_id in sorted({item.election_id for item in items}):
        for variant in VARIANT_FOLDERS:
            chosen = [i for i in items if i.election_id == election_id and i.variant is variant]
            if chosen:
                folders.append((release_folder(run_dir, election_id, variant), chosen))
    return folders


def write_release_answers(
    run_dir: Path, items: list[EnvironmentItem], answers: Iterable[Answer]
) -> list[Path]:
    """``ground_truth.jsonl`` and ``outputs.jsonl`` of every release folder (no scores needed).
    The answers are read once, each written to its item's folder as it comes (``answers`` may
    be a file read as it is iterated: ``runlog.spool``)."""
    by_key = {item.key: item for item in items}
    written = []
    with ExitStack() as stack:
        handles: dict[str, IO[str]] = {}
        for folder, chosen in release_folders(run_dir, items):
            folder.mkdir(parents=True, exist_ok=True)
            write_items(chosen, folder / ITEMS_FILE)
            temporary = stack.enter_context(replacing(folder / OUTPUTS_FILE))
            handle = stack.enter_context(temporary.open("w", encoding="utf-8"))
            handles.update((item.key, handle) for item in chosen)
            written.append(folder)
        for answer in answers:
            handle = handles.get(answer.item_key)
            if handle is not None:
                row = release_outputs_row(answer, by_key[answer.item_key])
                handle.write(_JSON_LINE.encode(row) + "\n")
    return written


def write_swapped_items(run_dir: Path, swapped: list[EnvironmentItem]) -> list[Path]:
    """``swapped_items.jsonl``: the swapped-order Contradictory items (issue 16; answered and
    coded, never judged, so in no release folder's items). Removed when there are none."""
    return _write_or_remove(run_dir / SWAPPED_ITEMS_FILE, swapped)


def write_prior_probe(
    run_dir: Path, probes: list[ProbeAnswer], elections: Iterable[str]
) -> list[Path]:
    """``prior_probe.jsonl`` and each election's probe answers copied to ``exports/<election>/``
    beside the release formats, for ``elections`` and every election probed. A file the run has
    no rows for is removed (no stale rows from an earlier config)."""
    written = _write_or_remove(run_dir / PRIOR_PROBE_FILE, probes)
    for election_id in sorted({*elections, *(p.election_id for p in probes)}):
        mine = [p for p in probes if p.election_id == election_id]
        written.extend(
            _write_or_remove(mechanism_export_folder(run_dir, election_id) / PRIOR_PROBE_FILE, mine)
        )
    return written


def write_stance_codes(
    run_dir: Path,
    codes: list[StanceCodeRecord],
    items: Iterable[EnvironmentItem],
    elections: Iterable[str],
) -> list[Path]:
    """``stance_codes.jsonl`` and each election's codes copied to ``exports/<election>/``, for
    ``elections`` and every election coded (``items``, swapped ones included, tell an answer
    code's election). A file the run has no rows for is removed."""
    election_of = {item.key: item.election_id for item in items}
    written = _write_or_remove(run_dir / STANCE_CODES_FILE, codes)
    by_election: dict[str | None, list[StanceCodeRecord]] = {}
    for code in codes:
        by_election.setdefault(_code_election(code, election_of), []).append(code)
    for election_id in sorted({*elections, *(e for e in by_election if e is not None)}):
        folder = mechanism_export_folder(run_dir, election_id)
        written.extend(
            _write_or_remove(folder / STANCE_CODES_FILE, by_election.get(election_id, []))
        )
    return written


def write_repeat_records(run_dir: Path, records: list[RepeatVerdictRecord]) -> list[Path]:
    """``judge_repeats.jsonl``: every repeat call's verdicts (the panel's are in
    ``judges.jsonl``). Removed when there are none (repeat judging off)."""
    return _write_or_remove(run_dir / REPEATS_FILE, records)


def write_pushback(
    run_dir: Path,
    turns: list[PushbackTurn],
    verdicts: list[JudgeVerdictRecord],
    codes: list[StanceCodeRecord],
) -> list[Path]:
    """The pushback files (issue 30), each removed when it has no rows."""
    return [
        *_write_or_remove(run_dir / PUSHBACK_FILE, turns),
        *_write_or_remove(run_dir / PUSHBACK_JUDGES_FILE, verdicts),
        *_write_or_remove(run_dir / PUSHBACK_CODES_FILE, codes),
    ]


def _code_election(code: StanceCodeRecord, election_of: dict[str, str]) -> str | None:
    if code.kind == "probe":
        return code.subject_key.split("|")[1]  # prior|<election>|<party>|<statement>
    return election_of.get(code.subject_key)


def _write_or_remove(path: Path, rows: list) -> list[Path]:
    if not rows:
        path.unlink(missing_ok=True)
        return []
    write_jsonl(path, (row.model_dump(mode="json") for row in rows))
    return [path]
