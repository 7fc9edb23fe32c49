"""Export and import of the annotation sample and labels as JSONL (format: docs/annotation.md).

Export writes one ``{"type": "item", ...}`` line per sample item, with everything an external
tool needs to show it blind (context, question, answer, sub-question wordings), then one
``{"type": "label", ...}`` line per stored label. Import reads label lines (``type`` may be
omitted; item lines are passed over, so an export can be fed back), checks each one and commits
each good one on its own; every refused line is reported with its number and reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from polistemics.annotate.item_view import RunViews
from polistemics.annotate.store import AnnotationStore, Label, LabelRefused, SampleItem

FORMAT_VERSION = 1
_LABEL_FIELDS = {"type", "annotator", "sample_id", "sub_question", "says_yes", "note", "given_at"}
_IGNORED_FIELDS = {"source", "format"}  # written by export, set anew on import
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
    content = views.view(sample_item).content
    return {
        "type": "item",
        "format": FORMAT_VERSION,
        "sample_id": sample_item.sample_id,
        "stratum": sample_item.stratum,
        "weight": sample_item.weight,
        "annotators_wanted": sample_item.annotators_wanted,
        **content.model_dump(mode="json", exclude={"sample_id"}),
    }


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


def write_export(run_dir: Path | str, out: Path) -> int:
    """Write the export to ``out``; returns the number of lines."""
    count = 0
    with Path(out).open("w", encoding="utf-8") as handle:
        for line in export_lines(run_dir):
            handle.write(line + "\n")
            count += 1
    return count


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
    """Commit one parsed line; None for an item line (passed over)."""
    if not isinstance(row, dict):
        raise LabelRefused("the line is not a JSON object")
    kind = row.get("type", "label")
    if kind == "item":
        return None
    if kind != "label":
        raise LabelRefused(f'unknown line type {kind!r:.40} (expected "label" or "item")')
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
