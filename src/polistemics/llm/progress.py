"""Progress per stage: done/total, cache hits, errors, tokens, cost, ETA.

On a terminal, Rich draws one bar per stage. When stderr is not a terminal (CI, ``make demo |
tee``) bars cannot show, so a plain line per active stage is printed every ``interval`` seconds
instead, and a last one when the stage's calls are all in. Rich's own non-terminal output prints
nothing until the end, hence the small ticker thread here.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from polistemics.llm.types import CallResult

PLAIN_INTERVAL = 20.0  # seconds between plain progress lines (the issue asks for 15-30 s)


@dataclass
class StageStats:
    done: int = 0
    cached: int = 0
    errors: int = 0
    tokens: int = 0
    cost: float = 0.0
    total: int | None = None
    started: float | None = None  # clock time of the first result

    def add(self, result: CallResult, now: float) -> None:
        if self.started is None:
            self.started = now
        self.done += 1
        self.cached += result.cached
        self.errors += not result.ok
        self.tokens += result.input_tokens + result.output_tokens
        self.cost += result.cost or 0.0

    @property
    def finished(self) -> bool:
        return self.total is not None and self.done >= self.total

    def eta(self, now: float) -> float | None:
        """Seconds left at the rate of the calls made so far (cache hits take no time)."""
        made = self.done - self.cached
        if self.total is None or self.started is None or made <= 0:
            return None
        return max(0.0, (now - self.started) / made * (self.total - self.done))


def _clock_text(seconds: float) -> str:
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def plain_line(stage: str, stats: StageStats, now: float, *, over: bool = False) -> str:
    """``progress answer: 12/40 done (3 cached), 0 errors, 1,234 tokens, $0.0000, ETA 1:30``."""
    total = "?" if stats.total is None else f"{stats.total:,}"
    elapsed = _clock_text(now - stats.started) if stats.started is not None else "0:00"
    if stats.finished or over:
        tail = f"finished in {elapsed}"
    else:
        eta = stats.eta(now)
        tail = f"elapsed {elapsed}, ETA {'unknown' if eta is None else _clock_text(eta)}"
    return (
        f"progress {stage}: {stats.done:,}/{total} done ({stats.cached:,} cached), "
        f"{stats.errors:,} errors, {stats.tokens:,} tokens, ${stats.cost:.4f}, {tail}"
    )


class PlainLines:
    """The non-terminal form: ``tick()`` prints a line for each stage that changed since its last
    line (and finished stages once); a thread calls it every ``interval`` seconds."""

    def __init__(
        self,
        write: Callable[[str], None],
        *,
        interval: float = PLAIN_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.write, self.interval, self.clock = write, interval, clock
        self.stats: dict[str, StageStats] = {}
        self._printed: dict[str, tuple[int, bool]] = {}  # stage -> (done, final) at its last line
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def stage(self, stage: str) -> StageStats:
        return self.stats.setdefault(stage, StageStats())

    def add(self, stage: str, result: CallResult) -> None:
        with self._lock:
            stats = self.stage(stage)
            stats.add(result, self.clock())
            finished = stats.finished
        if finished:
            self.tick()  # the stage's last line at once, not up to ``interval`` later

    def tick(self, *, over: bool = False) -> None:
        """``over``: the client is closing, so every stage has ended."""
        now = self.clock()
        with self._lock:
            lines = []
            for stage, stats in self.stats.items():
                state = (stats.done, stats.finished or over)
                if stats.done == 0 or self._printed.get(stage) == state:
                    continue
                self._printed[stage] = state
                lines.append(plain_line(stage, stats, now, over=over))
        for line in lines:
            self.write(line)

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="progress-lines", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.tick(over=True)  # where every stage ended

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.tick()


class StageProgress:
    """Listens to the client's results: bars on a terminal, plain lines otherwise, nothing when
    quiet."""

    def __init__(
        self,
        *,
        quiet: bool = False,
        console: Console | None = None,
        plain: bool | None = None,
        interval: float = PLAIN_INTERVAL,
    ):
        """``plain`` forces (True) or forbids (False) plain lines; by default they are used
        exactly when stderr is not a terminal."""
        self.quiet = quiet
        if plain is None:
            plain = not sys.stderr.isatty()
        self.lines: PlainLines | None = None
        if plain and not quiet:
            stream = sys.stderr
            self.lines = PlainLines(
                lambda line: print(line, file=stream, flush=True), interval=interval
            )
        self._bars = not quiet and self.lines is None
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
            disable=not self._bars,
        )
        self._tasks: dict[str, int] = {}
        self._stats: dict[str, dict] = {}

    def __enter__(self) -> StageProgress:
        if self.lines is not None:
            self.lines.start()
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()
        if self.lines is not None:
            self.lines.stop()

    def set_total(self, stage: str, total: int) -> None:
        """Declare how many calls a stage will make (cached ones included)."""
        if self.lines is not None:
            self.lines.stage(stage).total = total
        if self._bars:
            self._progress.update(self._task(stage), total=total)

    def __call__(self, stage: str, result: CallResult) -> None:
        if self.lines is not None:
            self.lines.add(stage, result)
        if not self._bars:
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


def declare_total(listeners: list, stage: str, total: int) -> None:
    """Tell the progress display among a client's listeners how many calls a stage makes."""
    for listener in listeners:
        if isinstance(listener, StageProgress):
            listener.set_total(stage, total)
