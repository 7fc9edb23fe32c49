"""The run log: every record a run persists, ``run.json`` as a model, and ``RunDir``, which
names every file of a run directory and reads and writes each with its type.

The bottom layer of everything that reads or writes a run directory: the stages (environments,
answers, judging, coding), scoring, compare, annotate, report and run import their persisted
records and files from here, and it imports none of them, nor the model client layer (``llm``,
which takes the store's file name from here): only the common records (``records``,
``conditions``, ``rubrics``) and the path and file helpers (``.importlinter``,
``tests/runlog/test_layers.py``).

- ``items``: ``EnvironmentItem`` and its ``Chunk`` (what every stage from the environments on
  reads); ``release_io``: items read from and written to the release format
  (``ground_truth.jsonl``);
- ``answers``: ``Answer`` (``answers.jsonl``), ``ProbeAnswer`` (``prior_probe.jsonl``);
- ``verdicts``: ``JudgeVerdictRecord`` (``judges.jsonl``), ``RepeatVerdictRecord``
  (``judge_repeats.jsonl``); ``judge_records``: ``JudgeRecords``, a study's judge records held
  by column (what a run and ``RunDir.read_judge_records`` keep instead of 100,000 objects);
- ``codes``: ``StanceCodeRecord``, ``CodedStance`` (``stance_codes.jsonl``);
- ``pushback``: ``PushbackTurn``, ``Pressure`` (``pushback.jsonl``; issue 30);
- ``manifest``: ``RunManifest`` (``run.json``, read tolerantly);
- ``layout``: the file names; ``rundir``: ``RunDir``; ``read``, ``write``, ``tables``: the fast
  readers and writers it uses (``tables`` with pandas, imported only when a table is used).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polistemics.lazy_exports import exported_on_first_use

if TYPE_CHECKING:
    from polistemics.runlog.answers import Answer, ProbeAnswer
    from polistemics.runlog.codes import CodedStance, StanceCodeRecord
    from polistemics.runlog.items import Chunk, EnvironmentItem
    from polistemics.runlog.judge_records import JudgeRecords, fields_of
    from polistemics.runlog.layout import (
        ANSWERS_FILE,
        CELLS_FILE,
        EVIDENCE_FILE,
        JUDGES_FILE,
        MANIFEST_FILE,
        PRIOR_PROBE_FILE,
        REPEATS_FILE,
        STANCE_CODES_FILE,
        STORE_FILE,
        SUMMARY_FILE,
        SWAPPED_ITEMS_FILE,
        VARIANT_FOLDERS,
        is_run_dir,
    )
    from polistemics.runlog.manifest import (
        ElectionRecord,
        FlipRow,
        Invocation,
        JudgeParsing,
        JudgeParsingRow,
        JudgeRepeats,
        JudgingRecord,
        ManifestConfig,
        ModelRecord,
        RunManifest,
        Unreadable,
    )
    from polistemics.runlog.pushback import Pressure, PushbackTurn
    from polistemics.runlog.read import RunFileError
    from polistemics.runlog.rundir import RunDir
    from polistemics.runlog.verdicts import JudgeVerdictRecord, RepeatVerdictRecord
    from polistemics.runlog.write import judge_record_lines, write_jsonl, write_lines

# Public name -> its module, imported on first use: a command that needs one of them does
# not load every module of the package (and their libraries) with it.
_EXPORTS = {
    "Answer": "polistemics.runlog.answers",
    "ANSWERS_FILE": "polistemics.runlog.layout",
    "CELLS_FILE": "polistemics.runlog.layout",
    "Chunk": "polistemics.runlog.items",
    "CodedStance": "polistemics.runlog.codes",
    "ElectionRecord": "polistemics.runlog.manifest",
    "EnvironmentItem": "polistemics.runlog.items",
    "EVIDENCE_FILE": "polistemics.runlog.layout",
    "fields_of": "polistemics.runlog.judge_records",
    "FlipRow": "polistemics.runlog.manifest",
    "Invocation": "polistemics.runlog.manifest",
    "is_run_dir": "polistemics.runlog.layout",
    "judge_record_lines": "polistemics.runlog.write",
    "JudgeParsing": "polistemics.runlog.manifest",
    "JudgeParsingRow": "polistemics.runlog.manifest",
    "JudgeRecords": "polistemics.runlog.judge_records",
    "JudgeRepeats": "polistemics.runlog.manifest",
    "JUDGES_FILE": "polistemics.runlog.layout",
    "JudgeVerdictRecord": "polistemics.runlog.verdicts",
    "JudgingRecord": "polistemics.runlog.manifest",
    "MANIFEST_FILE": "polistemics.runlog.layout",
    "ManifestConfig": "polistemics.runlog.manifest",
    "ModelRecord": "polistemics.runlog.manifest",
    "Pressure": "polistemics.runlog.pushback",
    "PRIOR_PROBE_FILE": "polistemics.runlog.layout",
    "ProbeAnswer": "polistemics.runlog.answers",
    "PushbackTurn": "polistemics.runlog.pushback",
    "REPEATS_FILE": "polistemics.runlog.layout",
    "RepeatVerdictRecord": "polistemics.runlog.verdicts",
    "RunDir": "polistemics.runlog.rundir",
    "RunFileError": "polistemics.runlog.read",
    "RunManifest": "polistemics.runlog.manifest",
    "STANCE_CODES_FILE": "polistemics.runlog.layout",
    "StanceCodeRecord": "polistemics.runlog.codes",
    "STORE_FILE": "polistemics.runlog.layout",
    "SUMMARY_FILE": "polistemics.runlog.layout",
    "SWAPPED_ITEMS_FILE": "polistemics.runlog.layout",
    "Unreadable": "polistemics.runlog.manifest",
    "VARIANT_FOLDERS": "polistemics.runlog.layout",
    "write_jsonl": "polistemics.runlog.write",
    "write_lines": "polistemics.runlog.write",
}

__all__ = [
    "ANSWERS_FILE",
    "CELLS_FILE",
    "EVIDENCE_FILE",
    "JUDGES_FILE",
    "MANIFEST_FILE",
    "PRIOR_PROBE_FILE",
    "REPEATS_FILE",
    "STANCE_CODES_FILE",
    "STORE_FILE",
    "SUMMARY_FILE",
    "SWAPPED_ITEMS_FILE",
    "VARIANT_FOLDERS",
    "Answer",
    "Chunk",
    "CodedStance",
    "ElectionRecord",
    "EnvironmentItem",
    "FlipRow",
    "Invocation",
    "JudgeParsing",
    "JudgeParsingRow",
    "JudgeRepeats",
    "JudgeRecords",
    "fields_of",
    "JudgeVerdictRecord",
    "JudgingRecord",
    "ManifestConfig",
    "ModelRecord",
    "Pressure",
    "ProbeAnswer",
    "PushbackTurn",
    "RepeatVerdictRecord",
    "RunDir",
    "RunFileError",
    "RunManifest",
    "StanceCodeRecord",
    "Unreadable",
    "is_run_dir",
    "judge_record_lines",
    "write_jsonl",
    "write_lines",
]


__getattr__ = exported_on_first_use(__name__, _EXPORTS)
