"""Will the run fit on the disk? The bytes a run will write, estimated from its call plan, against
the free space of the run directory's file system (issue 32: a study too large for the disk
space left is refused before its first call, with the estimate).

The estimate counts only the calls not yet in the run store (a resume needs little), each with:

- its row in the store: a fixed part, the prompt compressed (zlib level 1, about 1.5 bytes per
  input token) and the reply (4 characters per output token, as the plan counts tokens), times
  SQLite's page and index overhead;
- an answer's files: its line in ``answers.jsonl``, its share of the exports, of
  ``scores/cells.csv`` and of the report's item browser, with the answer text in 3 of them;
- any other call's record line (``judges.jsonl``, ``evidence.jsonl``, the task records), with
  its reply;

plus the report, tables and run files every run writes whatever its size. The constants were
measured on finished paper-scale studies (``benchmarks/paper_scale.py``, docs/benchmarks.md
"Disk space"); there the test server's replies are shorter than the plan's output estimates,
so the estimate was 1.1-1.3 times the bytes written: it errs on the side of refusing.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from polistemics.answers.generate import STAGE as ANSWER_STAGE
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.store import RunStore
from polistemics.run.config import RunConfig
from polistemics.run.plan import PlanRow, plan_study
from polistemics.runlog import STORE_FILE
from polistemics.sources.scope import ScopedElection

# Measured on the 1x and 4x paper-scale studies (104,755 and 422,107 calls, 12,753 and 51,369
# answers; docs/benchmarks.md "Disk space").
STORE_ROW_BYTES = 190  # key, hashes, names, parameters, numbers: per stored call
STORE_BYTES_PER_INPUT_TOKEN = 1.5  # the prompt, zlib-compressed
CHARS_PER_OUTPUT_TOKEN = 4  # the reply, as text (the plan's tokens are characters / 4)
STORE_OVERHEAD = 1.4  # the file's size over its rows' payload (pages, the key index)
ANSWER_FILE_BYTES = 5_400  # answers.jsonl, exports, cells.csv, the report (without the text)
ANSWER_TEXT_COPIES = 3  # answers.jsonl, exports' outputs.jsonl, the item browser
RECORD_BYTES = 480  # a judge record (or another call's record line) without its reply
RUN_FIXED_BYTES = 2_000_000  # the report's figures and tables, tables/, run.json

CHECK_KEY = "check_disk_space"
OVERRIDE_HINT = (
    "free space on that disk or choose another run directory (--out), or skip this check with "
    f"--no-check-disk-space (config key {CHECK_KEY} = false)"
)


class DiskSpaceError(RuntimeError):
    """The run would write more than the disk has free; the message gives both and the way on."""


@dataclass(frozen=True)
class DiskEstimate:
    """A run's bytes to write (``needed``), its new calls and answers, and the free space of the
    file system that holds ``folder`` (the run directory or its nearest existing parent)."""

    needed: int
    new_calls: int
    new_answers: int
    free: int
    folder: Path

    @property
    def fits(self) -> bool:
        return self.needed <= self.free

    def line(self) -> str:
        """The dry run's line."""
        verdict = "fits" if self.fits else "does NOT fit: the run would be refused"
        return (
            f"disk: about {_size(self.needed)} to write ({self.new_calls:,} new calls, "
            f"{self.new_answers:,} new answers); {_size(self.free)} free on {self.folder}: "
            f"{verdict}"
        )

    def refusal(self) -> str:
        return (
            f"not enough disk space: this run would write about {_size(self.needed)} "
            f"({self.new_calls:,} new calls, {self.new_answers:,} new answers), but only "
            f"{_size(self.free)} is free on {self.folder}; {OVERRIDE_HINT}"
        )


def is_answer_stage(stage: str) -> bool:
    """Call stages whose calls are answers (with exports, cells and an item-browser entry)."""
    return stage == ANSWER_STAGE or stage.endswith(f"_{ANSWER_STAGE}")


def estimate_bytes(rows: Iterable[PlanRow], *, fixed: bool = True) -> int:
    """The bytes the plan's new calls will write (``fixed``: plus what every run writes)."""
    store = 0.0
    files = float(RUN_FIXED_BYTES if fixed else 0)
    for row in rows:
        new = row.new
        if new <= 0:
            continue
        # The plan's token totals are over the new calls already.
        reply_chars = row.output_tokens * CHARS_PER_OUTPUT_TOKEN
        store += (
            new * STORE_ROW_BYTES + row.input_tokens * STORE_BYTES_PER_INPUT_TOKEN + reply_chars
        )
        if is_answer_stage(row.stage):
            files += new * ANSWER_FILE_BYTES + ANSWER_TEXT_COPIES * reply_chars
        else:
            files += new * RECORD_BYTES + reply_chars
    return round(store * STORE_OVERHEAD + files)


def existing_folder(path: Path) -> Path:
    """``path`` or its nearest parent that exists (a new run directory is not there yet)."""
    path = Path(path).absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def estimate_for(rows: list[PlanRow], run_dir: Path) -> DiskEstimate:
    """The estimate of ``rows`` against the free space where ``run_dir`` is (or will be)."""
    folder = existing_folder(run_dir)
    new_calls = sum(max(0, r.new) for r in rows)
    return DiskEstimate(
        # A run with nothing to call rewrites its files at about their size: no fixed part.
        needed=estimate_bytes(rows, fixed=new_calls > 0),
        new_calls=new_calls,
        new_answers=sum(max(0, r.new) for r in rows if is_answer_stage(r.stage)),
        free=shutil.disk_usage(folder).free,
        folder=folder,
    )


def check_disk_space(
    config: RunConfig,
    elections: list[ScopedElection],
    endpoints: dict[str, ModelEndpoint],
    run_dir: Path,
) -> DiskEstimate | None:
    """Raise ``DiskSpaceError`` when the run would not fit; the estimate otherwise (None when
    the config turns the check off). Planned first as if the store were empty (no replay of
    the store: cheap); only a study that would not fit so is planned again against the store,
    so that a resume counts just the calls it still has to make."""
    if not getattr(config, CHECK_KEY):
        return None
    rows, _ = plan_study(config, elections, endpoints, None)
    estimate = estimate_for(rows, run_dir)
    store_path = Path(run_dir) / STORE_FILE
    if not estimate.fits and store_path.is_file():
        store = RunStore(store_path)
        try:
            rows, _ = plan_study(config, elections, endpoints, store)
        finally:
            store.close()
        estimate = estimate_for(rows, run_dir)
    if not estimate.fits:
        raise DiskSpaceError(estimate.refusal())
    return estimate


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if abs(n) < 1000:
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1000
    return f"{n:,.1f} TB"
