"""The name of every file of a run directory (``RunDir`` joins them to a run's root).

- ``store.sqlite``: the SQLite store (``llm.store``; ``llm.session`` opens it here): every model
  call and, beside them, the human annotation sample and labels (``annotate.store``);
- ``run.json``: what the run was and what it cost (``run/manifest.py`` writes it);
- ``batches/``: the files of a run's batches while they are sent and read (``llm.batch.spool``;
  each is removed once uploaded or read);
- ``scores/cells.csv``: every majority-voted cell (the input of all scores and the report);
- ``scores/summary.json``: per model and variant, EMI, Adherence Indices and rubric scores;
- ``judges.jsonl``, ``answers.jsonl``, ``evidence.jsonl``: raw stage outputs, every judge's
  verdict included; ``judge_repeats.jsonl``: repeat judging's verdicts (never scored);
- ``stance_codes.jsonl``, ``prior_probe.jsonl``, ``swapped_items.jsonl``: the mechanism stages
  (issue 16): every coder seat's reading, the closed-book probe answers, and the swapped-order
  Contradictory items (answered and coded, never judged: they are in no release export's items);
- ``pushback.jsonl``, ``pushback_judges.jsonl``, ``pushback_codes.jsonl``: pushback turns
  (issue 30): the conversations, the second answers' verdicts, both answers' stance codes;
- ``exports/<election>/``: the authors' release formats (``ground_truth.jsonl``,
  ``outputs.jsonl``, ``scores/<rubric>/aggregated_scores.jsonl`` and ``scoring_config.json``;
  ablations in ``anon_v1/`` and ``en_v1/``), so results can be exchanged with the paper's data
  (``scoring.release`` reads and writes the authors' folders by the same names).
"""

from __future__ import annotations

from pathlib import Path

from polistemics.conditions import Variant
from polistemics.paths import check_name, inside

__all__ = [
    "AGGREGATED_SCORES_FILE",
    "ANSWERS_FILE",
    "BATCH_FOLDER",
    "CELLS_FILE",
    "EVIDENCE_FILE",
    "EXPORTS_FOLDER",
    "ITEMS_FILE",
    "ITEM_SCORES_FILE",
    "JUDGES_FILE",
    "MANIFEST_FILE",
    "OUTPUTS_FILE",
    "PRIOR_PROBE_FILE",
    "PUSHBACK_CODES_FILE",
    "PUSHBACK_FILE",
    "PUSHBACK_JUDGES_FILE",
    "RELEASE_SCORES_FOLDER",
    "REPEATS_FILE",
    "SCORING_CONFIG_FILE",
    "STANCE_CODES_FILE",
    "STORE_FILE",
    "SUMMARY_FILE",
    "SWAPPED_ITEMS_FILE",
    "TABLES_FOLDER",
    "VARIANT_FOLDERS",
    "is_run_dir",
    "mechanism_export_folder",
    "release_folder",
    "release_item_files",
]
STORE_FILE = "store.sqlite"
MANIFEST_FILE = "run.json"
BATCH_FOLDER = "batches"
CELLS_FILE = Path("scores") / "cells.csv"
SUMMARY_FILE = Path("scores") / "summary.json"
TABLES_FOLDER = "tables"  # the run's analysis and score tables (analyses.run_tables)
EVIDENCE_FILE = "evidence.jsonl"
ANSWERS_FILE = "answers.jsonl"
JUDGES_FILE = "judges.jsonl"
REPEATS_FILE = "judge_repeats.jsonl"
STANCE_CODES_FILE = "stance_codes.jsonl"
PRIOR_PROBE_FILE = "prior_probe.jsonl"
EXPORTS_FOLDER = "exports"
SWAPPED_ITEMS_FILE = "swapped_items.jsonl"
# Pushback turns (issue 30): the conversations, the second answers' verdicts and both answers'
# stance codes (``runlog.pushback``); never scored.
PUSHBACK_FILE = "pushback.jsonl"
PUSHBACK_JUDGES_FILE = "pushback_judges.jsonl"
PUSHBACK_CODES_FILE = "pushback_codes.jsonl"
# A release folder (``exports/<election>/[anon_v1|en_v1]``, or the authors' experiment folder):
# its items, its answers and, per rubric, ``scores/<rubric>/`` with the aggregated verdicts (or
# the single-run ones) and the scoring config.
ITEMS_FILE = "ground_truth.jsonl"
OUTPUTS_FILE = "outputs.jsonl"
RELEASE_SCORES_FOLDER = "scores"
AGGREGATED_SCORES_FILE = "aggregated_scores.jsonl"
ITEM_SCORES_FILE = "item_scores.jsonl"
SCORING_CONFIG_FILE = "scoring_config.json"
VARIANT_FOLDERS = {Variant.FULL: "", Variant.ANONYMIZED: "anon_v1", Variant.ENGLISH: "en_v1"}


def is_run_dir(path: Path) -> bool:
    """A finished run: its directory has ``scores/cells.csv``."""
    return (Path(path) / CELLS_FILE).is_file()


def release_folder(run_dir: Path, election_id: str, variant: Variant) -> Path:
    """``exports/<election>/[anon_v1|en_v1]``; an id that would lead out of the run is refused."""
    return (
        inside(run_dir, EXPORTS_FOLDER, check_name(election_id, "election id"))
        / (VARIANT_FOLDERS[variant])
    )


def mechanism_export_folder(run_dir: Path, election_id: str) -> Path:
    """``exports/<election>/``: where an election's codes and probe answers are copied, beside
    the release formats."""
    return release_folder(run_dir, election_id, Variant.FULL)


def release_item_files(run_dir: Path) -> list[Path]:
    """Every ``exports/<election>/[anon_v1|en_v1/]ground_truth.jsonl``, sorted."""
    return sorted((Path(run_dir) / EXPORTS_FOLDER).glob(f"*/**/{ITEMS_FILE}"))
