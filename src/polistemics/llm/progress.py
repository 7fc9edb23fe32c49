"""Progress bars per stage: done/total, cache hits, errors, tokens, cost, ETA."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from polistemics.llm.types import CallResult


class StageProgress:
    """Listens to the client's results and draws one bar per stage (nothing when quiet)."""

    def __init__(self, *, quiet: bool = False, console: Console | None = None):
        self.quiet = quiet or not sys.stderr.isatty()
        self._progress = Progress(
            TextColumn("{task.description:<12}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(
                "cached {task.fields[cached]} · errors {task.fields[errors]} · "
                "tokens {task.fields[tokens]} · ${task.fields[cost]:.4f}"
            ),
            TimeRemainingColumn(),
            console=console or Console(stderr=True),
            disable=self.quiet,
        )
        self._tasks: dict[str, int] = {}
        self._stats: dict[str, dict] = {}

    def __enter__(self) -> StageProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def set_total(self, stage: str, total: int) -> None:
        """Declare how many calls a stage will make (cached ones included)."""
        task = self._task(stage)
        self._progress.update(task, total=total)

    def __call__(self, stage: str, result: CallResult) -> None:
        if self.quiet:
            return  # nothing is drawn: spare the ~1,000 updates a second of a large run
        stats = self._stats.setdefault(stage, {"cached": 0, "errors": 0, "tokens": 0, "cost": 0.0})
        stats["cached"] += result.cached
        stats["errors"] += not result.ok
        stats["tokens"] += result.input_tokens + result.output_tokens
        stats["cost"] += result.cost or 0.0
        self._progress.update(self._task(stage), advance=1, **stats)

    def _task(self, stage: str) -> int:
        if stage not in self._tasks:
            self._tasks[stage] = self._progress.add_task(
                stage, total=None, cached=0, errors=0, tokens=0, cost=0.0
            )
        return self._tasks[stage]
