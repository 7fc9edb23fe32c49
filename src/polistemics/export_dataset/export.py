"""The whole export: read a run (``RunDir``), build the tables, redact keys, write the folder.

Only the output folder is written: its table folders and the card are made with
``paths.output_folder`` (a link in the way is refused) and each file is written as a new file
renamed into place. No API key reaches a file: every text is passed through the client layer's
``Redactor`` with the keys that the run's endpoints read from the environment (the run's files
are redacted already; this holds for a run directory someone else wrote, too).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polistemics import __version__
from polistemics.export_dataset import tables
from polistemics.export_dataset.card import CardFacts, data_files, render_card
from polistemics.export_dataset.parquet import require_pyarrow, write_table
from polistemics.llm.redact import Redactor
from polistemics.paths import inside, output_folder, write_text_replacing
from polistemics.runlog import EnvironmentItem, RunDir, RunManifest

CARD_FILE = "README.md"


class ExportError(ValueError):
    """The run cannot be exported as asked (not a run, or a table asked for is missing)."""


@dataclass
class DatasetExport:
    """What was written: rows per table, and every file."""

    folder: Path
    rows: dict[str, int] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)


def export_dataset(
    run_dir: Path | str,
    out: Path | str,
    *,
    answers: bool = False,
    verdicts: bool = False,
    license: str = "unknown",
) -> DatasetExport:
    """Write the run's items and ground truth (and, when asked, answers and verdicts) to ``out``.

    Refused (``UnsafePathError``) where a link would be written through; ``ExportError`` when the
    run has no items, or lacks the answers or verdicts asked for.
    """
    run = RunDir(run_dir)
    items = run.read_items()
    if not items:
        raise ExportError(
            f"{run.root} has no environment items (exports/<election>/ground_truth.jsonl): "
            "is it a finished run directory?"
        )
    by_key = {item.key: item for item in items}
    built: dict[str, list[dict[str, Any]]] = {
        tables.ITEMS: tables.item_rows(items),
        tables.GROUND_TRUTH: tables.ground_truth_rows(items, run.read_evidence()),
    }
    if answers:
        answer_records = run.read_answers()
        if answer_records is None:
            raise ExportError(f"{run.answers} is missing: the run has no answers to export")
        built[tables.ANSWERS] = tables.answer_rows(answer_records, by_key)
    if verdicts:
        judge_records = run.read_judge_records()
        if judge_records is None or not run.cells.is_file():
            raise ExportError(
                f"{run.root} lacks {run.judges.name} or {run.cells.relative_to(run.root)}: "
                "the run has no verdicts to export"
            )
        built[tables.VERDICTS] = tables.verdict_rows(run.read_cells())
        built[tables.PANEL_VERDICTS] = tables.panel_rows(judge_records)

    require_pyarrow()  # after the run's checks: a wrong folder is said first
    manifest = run.read_manifest()
    redact = _redactor(manifest)
    folder = output_folder(out, built)
    result = DatasetExport(folder=Path(out))
    for config, rows in built.items():
        clean = [_redacted(row, redact) for row in rows]
        path = inside(folder, data_files(config).replace("*", "00000-of-00001"))
        write_table(path, config, clean)
        result.rows[config] = len(clean)
        result.files.append(path)
    card = render_card(_facts(items, manifest, result.rows, license, run))
    result.files.append(write_text_replacing(inside(folder, CARD_FILE), redact(card)))
    return result


def _facts(
    items: list[EnvironmentItem],
    manifest: RunManifest | None,
    rows: dict[str, int],
    license: str,
    run: RunDir,
) -> CardFacts:
    config = manifest.config if manifest is not None else None
    return CardFacts(
        name=(config.name if config is not None and config.name else run.root.name),
        license=license,
        rows=rows,
        languages=sorted({item.language for item in items} | {i.output_language for i in items}),
        elections=sorted({item.election_id for item in items}),
        environments=sorted({item.environment.value for item in items}),
        variants=sorted({item.variant.value for item in items}),
        targets=list(config.targets or []) if config is not None else [],
        judges=list(config.judges or []) if config is not None else [],
        version=__version__,
    )


def _redactor(manifest: RunManifest | None) -> Callable[[str], str]:
    """Redaction of the keys that the run's endpoints read from this environment."""
    redactor = Redactor()
    for record in (manifest.models or {}).values() if manifest is not None else ():
        variable = record.api_key_env if record is not None else None
        secret = os.environ.get(variable) if variable else None
        if secret:
            redactor.add(secret)
    return redactor


def _redacted(value: Any, redact: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {name: _redacted(inner, redact) for name, inner in value.items()}
    if isinstance(value, list):
        return [_redacted(inner, redact) for inner in value]
    return value


__all__ = ["CARD_FILE", "DatasetExport", "ExportError", "export_dataset"]
