"""Export and import of the annotation sample and labels as JSONL (format: docs/annotation.md).

Export writes one ``{"type": "item", ...}`` line per sample item, with everything an external
tool needs to show it blind (context, question, answer, sub-question wordings), then one
``{"type": "label", ...}`` line per stored label. Nothing in it is derived from the judge panel:
the stratum ("...|agreed" / "...|split") and the sampling weight (split strata are oversampled,
so their weights are smaller) would tell an annotator whether the judges agreed, so they go to a
separate design file (``design_lines``) that annotators never need; the statistics read them from
the run's store anyway. Import reads label lines (``type`` may be omitted; item and design lines
are passed over, so an export can be fed back, old exports with ``stratum`` included), checks
each one and commits each good one on its own; every refused line is reported with its number
and reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from polistemics.annotate.item_view import RunViews
from polistemics.annotate.store import AnnotationStore, Label, LabelRefused, SampleItem
from polistemics.tasks import PARTY_POSITION

FORMAT_VERSION = 2  # 2: item lines hold nothing derived from the panel (no stratum, no weight)
_LABEL_FIELDS = {"type", "annotator", "sample_id", "sub_question", "says_yes", "note", "given_at"}
_IGNORED_FIELDS = {"source", "format"}  # written by export, set anew on import
_PASSED_OVER = {"item", "design"}  # lines of an export or a design file, not labels
# Fields of the annotator-facing export that are not the item's content; a test checks that none
# of them (nor anything else in an item line) is derived from the panel.
EXPORT_ITEM_FIELDS = ("type", "format", "sample_id", "annotators_wanted")
_YES = {"yes": True, "no": False}


class RefusedLine(BaseModel):
    model_config = ConfigDict(frozen=True)

    line: int
    reason: str


class ImportReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    committed: int
    items_passed_over: int
    refused: list[RefusedLine]


def item_line(sample_item: SampleItem, views: RunViews) -> dict:
    """What an annotator (or their tool) is shown of one item: its content as the judges got it,
    and how many annotators it wants (drawn at random, independent of the panel). No stratum,
    weight, model or verdict."""
    content = views.view(sample_item).content
    # An item of the paper's task is exported as before tasks existed (issue 29).
    paper = content.task == PARTY_POSITION
    return {
        "type": "item",
        "format": FORMAT_VERSION,
        "sample_id": sample_item.sample_id,
        "annotators_wanted": sample_item.annotators_wanted,
        **content.model_dump(
            mode="json", exclude={"sample_id", *(("task", "task_label") if paper else ())}
        ),
    }


def design_line(sample_item: SampleItem) -> dict:
    """The sampling design of one item, for analysis only (not for annotators): its stratum,
    whether the judges agreed, and its weight (inverse inclusion probability)."""
    return {
        "type": "design",
        "format": FORMAT_VERSION,
        "sample_id": sample_item.sample_id,
        "stratum": sample_item.stratum,
        "judges_agreed": sample_item.judges_agreed,
        "weight": sample_item.weight,
        "annotators_wanted": sample_item.annotators_wanted,
    }


def design_lines(run_dir: Path | str) -> Iterator[str]:
    """The run's sampling design, one JSONL line per sample item (without newlines)."""
    with AnnotationStore.open(run_dir) as store:
        sample = store.sample()
    for sample_item in sample:
        yield json.dumps(design_line(sample_item), ensure_ascii=False)


def label_line(label: Label) -> dict:
    return {
        "type": "label",
        "annotator": label.annotator,
        "sample_id": label.sample_id,
        "sub_question": label.sub_question,
        "says_yes": "Yes" if label.says_yes else "No",
        "note": label.note,
        "given_at": label.given_at.isoformat(),
        "source": label.source,
    }


def export_lines(run_dir: Path | str) -> Iterator[str]:
    """The run's sample items, then its labels, as JSONL lines (without newlines)."""
    with AnnotationStore.open(run_dir) as store:
        sample = store.sample()
        labels = store.labels()
    views = RunViews.load(run_dir, sample)
    for sample_item in sample:
        yield json.dumps(item_line(sample_item, views), ensure_ascii=False)
    for label in labels:
        yield json.dumps(label_line(label), ensure_ascii=False)


def write_lines(lines: Iterable[str], out: Path) -> int:
    """Write JSONL ``lines`` to ``out``; returns their number."""
    count = 0
    with Path(out).open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(line + "\n")
            count += 1
    return count


def write_export(run_dir: Path | str, out: Path) -> int:
    """Write the (blind) export to ``out``; returns the number of lines."""
    return write_lines(export_lines(run_dir), out)


def write_design(run_dir: Path | str, out: Path) -> int:
    """Write the sampling design (stratum, weight per item) to ``out``; returns the lines."""
    return write_lines(design_lines(run_dir), out)


def _says_yes(value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _YES:
        return _YES[value.strip().lower()]
    raise LabelRefused(f'says_yes must be "Yes", "No", true or false, not {value!r:.40}')


def _given_at(value: object) -> datetime | None:
    if value is None:
        return None
    try:
        when = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise LabelRefused(f"given_at must be an ISO-8601 time with a time zone, not {value!r:.40}")
    try:
        return when.astimezone(UTC)  # stored in UTC: a time at the calendar's edge may not fit
    except OverflowError:
        raise LabelRefused(f"given_at is out of range in UTC: {value!r:.40}") from None


def import_label(store: AnnotationStore, row: object, annotator: str | None) -> Label | None:
    """Commit one parsed line; None for an item or design line (passed over, whatever fields it
    has: exports of format 1 carried ``stratum`` and ``weight``)."""
    if not isinstance(row, dict):
        raise LabelRefused("the line is not a JSON object")
    kind = row.get("type", "label")
    if kind in _PASSED_OVER:
        return None
    if kind != "label":
        raise LabelRefused(f'unknown line type {kind!r:.40} (expected "label", "item" or "design")')
    unknown = sorted(set(row) - _LABEL_FIELDS - _IGNORED_FIELDS)
    if unknown:
        raise LabelRefused(f"unknown field(s): {', '.join(repr(f)[:40] for f in unknown)}")
    missing = [f for f in ("sample_id", "sub_question", "says_yes") if f not in row]
    if "annotator" not in row and annotator is None:
        missing.insert(0, "annotator (or --annotator)")
    if missing:
        raise LabelRefused(f"missing field(s): {', '.join(missing)}")
    return store.add_label(
        row.get("annotator", annotator),
        row["sample_id"],
        row["sub_question"],
        _says_yes(row["says_yes"]),
        note=row.get("note"),
        source="import",
        given_at=_given_at(row.get("given_at")),
    )


def import_lines(
    store: AnnotationStore, lines: Iterable[bytes], annotator: str | None = None
) -> ImportReport:
    committed = passed_over = 0
    refused: list[RefusedLine] = []
    for number, raw in enumerate(lines, start=1):
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            refused.append(RefusedLine(line=number, reason="the line is not UTF-8 text"))
            continue
        if not text:
            continue
        try:
            row = json.loads(text)
            label = import_label(store, row, annotator)
        except json.JSONDecodeError as exc:
            refused.append(RefusedLine(line=number, reason=f"invalid JSON ({exc.msg})"))
        except RecursionError:  # hostile input nested deeper than the decoder's stack
            refused.append(RefusedLine(line=number, reason="invalid JSON (nested too deeply)"))
        except LabelRefused as exc:
            refused.append(RefusedLine(line=number, reason=exc.reason))
        else:
            if label is None:
                passed_over += 1
            else:
                committed += 1
    return ImportReport(committed=committed, items_passed_over=passed_over, refused=refused)


def import_file(run_dir: Path | str, path: Path, annotator: str | None = None) -> ImportReport:
    """Import the label lines of ``path`` into the run's store."""
    with AnnotationStore.open(run_dir) as store, Path(path).open("rb") as handle:
        return import_lines(store, handle, annotator)
