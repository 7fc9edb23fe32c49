"""Progress per stage: done/total, cache hits, errors, tokens, cost, ETA.

On a terminal, Rich draws one bar per stage. When stderr is not a terminal (CI, ``make demo |
tee``) bars cannot show, so a plain line per active stage is printed every ``interval`` seconds
instead, and a last one when the stage ends. Rich's own non-terminal output prints nothing until
the end, hence the small ticker thread here.

What the numbers mean:

- A stage's total is the calls it declared (``declare_total``, ``declare_more``): first tries.
  Calls past it (a check that failed and asked again) are shown as retries.
- The ETA counts only calls that will really be made. A stage that knows how many of its calls
  are not in the store yet declares them (``new``); otherwise the calls left are assumed to be
  cached in the share seen so far. The time per call is measured over the calls made (a cache
  hit takes no time), from when the stage's first call was sent.
- A stage whose calls are checked and asked again when a check fails (standardisation, Vague
  generation) reports each checked try through a ``TryHook`` (``try_hook``): whether it was a
  retry, and whether a retry will follow. Its total is then items, and the calls it will make
  are the items times the calls per item observed so far (first tries plus the retries asked
  for, over the first tries checked). A retry counts from when it is asked for, not when its
  result arrives: with many calls at once the first tries all come in before any retry.
- A stage ends when its declared calls are all in (and no retry can follow), when every item of
  a stage that reports its tries is finished, or when the run's stage that made them ends
  (``end_stages``); its time is from its first call to its last result, never to whenever the
  line happens to be printed.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from polistemics.llm.types import CallResult

PLAIN_INTERVAL = 20.0  # seconds between plain progress lines (the issue asks for 15-30 s)


class TryHook(Protocol):
    """Called once a try's output has been checked: ``retry`` when the try was itself a retry,
    ``again`` when its check failed and the call will be asked again (the item is not
    finished)."""

    def __call__(self, *, retry: bool, again: bool) -> None: ...


@dataclass
class StageStats:
    done: int = 0
    cached: int = 0
    errors: int = 0
    tokens: int = 0
    cost: float = 0.0
    total: int | None = None  # declared calls (first tries)
    new: int | None = None  # of the declared calls, those not in the store (None: unknown)
    retries: bool = False  # calls past ``total`` may follow, so reaching it does not end it
    busy: float = 0.0  # seconds of the stage's closed spans (a stage may run per election)
    opened: float | None = None  # when the current span's first call was sent
    last: float | None = None  # clock time of the latest result
    ended: bool = False
    # Reported by a stage's ``TryHook`` (all 0 for a stage that does not report its tries):
    first_checked: int = 0  # items whose first try has been checked
    asked_again: int = 0  # retries asked for (a check failed and another try follows)
    finished: int = 0  # items done with: accepted, or out of tries

    def add(self, result: CallResult, now: float) -> None:
        if self.opened is None:  # a new span: from when this call was sent
            self.opened = now if result.cached else now - result.latency_ms / 1000
            self.ended = False
        self.done += 1
        self.cached += result.cached
        self.errors += not result.ok
        self.tokens += result.input_tokens + result.output_tokens
        self.cost += result.cost or 0.0
        self.last = now

    @property
    def made(self) -> int:
        return self.done - self.cached

    @property
    def reports_tries(self) -> bool:
        return self.first_checked > 0

    def tried(self, *, retry: bool, again: bool) -> None:
        self.first_checked += not retry
        self.asked_again += again
        self.finished += not again

    @property
    def complete(self) -> bool:
        """Every declared call is in and no retry can follow (for a stage that reports its
        tries: every item is finished)."""
        if self.total is None:
            return False
        if self.reports_tries:
            return self.finished >= self.total
        return self.done >= self.total and not self.retries

    def close(self) -> None:
        """The span ends at the latest result; the stage ends unless declared calls are missing
        (a later election's span will come)."""
        if self.opened is not None and self.last is not None:
            self.busy += self.last - self.opened
        self.opened = None
        items_in = self.finished if self.reports_tries else self.done
        self.ended = self.total is None or items_in >= self.total

    def elapsed(self, now: float) -> float:
        return self.busy + (now - self.opened if self.opened is not None else 0.0)

    def calls_left(self) -> float | None:
        """Calls still to be made (cache hits excluded)."""
        if self.total is None:
            return None
        if self.reports_tries:
            # Items times the calls per item seen so far (retries counted once asked for).
            per_item = (self.first_checked + self.asked_again) / self.first_checked
            left = max(0.0, self.total * per_item - self.done)
            return left * self.made / self.done if self.done else left
        if self.new is not None:
            return max(0, self.new - self.made)
        if self.done == 0:
            return None
        return max(0, self.total - self.done) * self.made / self.done

    def eta(self, now: float) -> float | None:
        """Seconds left at the rate of the calls made so far (cache hits take no time)."""
        left = self.calls_left()
        if left is None or self.made <= 0:
            return None
        return self.elapsed(now) / self.made * left


def _clock_text(seconds: float) -> str:
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def eta_text(stats: StageStats, now: float) -> str:
    if stats.ended:
        return f"finished in {_clock_text(stats.busy)}"
    eta = stats.eta(now)
    return f"ETA {'unknown' if eta is None else _clock_text(eta)}"


def plain_line(stage: str, stats: StageStats, now: float) -> str:
    """``progress answer: 12/40 done (3 cached), 0 errors, 1,234 tokens, $0.0000, ETA 1:30``."""
    if stats.total is None:
        count = f"{stats.done:,}/?"
    elif stats.done > stats.total:
        count = f"{stats.total:,}/{stats.total:,} + {stats.done - stats.total:,} retries"
    else:
        count = f"{stats.done:,}/{stats.total:,}"
    tail = eta_text(stats, now)
    if not stats.ended:
        tail = f"elapsed {_clock_text(stats.elapsed(now))}, {tail}"
    return (
        f"progress {stage}: {count} done ({stats.cached:,} cached), "
        f"{stats.errors:,} errors, {stats.tokens:,} tokens, ${stats.cost:.4f}, {tail}"
    )


class StageTracker:
    """Every stage's counts, thread-safe (results arrive on the event loop, lines are printed
    from the ticker thread)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.stats: dict[str, StageStats] = {}
        self.lock = threading.Lock()

    def stage(self, stage: str) -> StageStats:
        return self.stats.setdefault(stage, StageStats())

    def declare(self, stage: str, calls: int, *, new: int | None, retries: bool, add: bool) -> None:
        with self.lock:
            stats = self.stage(stage)
            if add and stats.total is not None:
                stats.total += calls
                stats.new = None if new is None or stats.new is None else stats.new + new
            else:
                stats.total, stats.new = calls, new
            stats.retries = retries
            if stats.done < stats.total:
                stats.ended = False  # more calls to come (the next election's)

    def add(self, stage: str, result: CallResult) -> bool:
        """Counts a result; True when it completed the stage."""
        with self.lock:
            stats = self.stage(stage)
            stats.add(result, self.clock())
            return self._close_if_complete(stats)

    def tried(self, stage: str, *, retry: bool, again: bool) -> bool:
        """Counts a checked try; True when it completed the stage."""
        with self.lock:
            stats = self.stage(stage)
            stats.tried(retry=retry, again=again)
            return stats.opened is not None and self._close_if_complete(stats)

    @staticmethod
    def _close_if_complete(stats: StageStats) -> bool:
        if stats.complete:
            stats.close()
            return True
        return False

    def end_all(self) -> None:
        with self.lock:
            for stats in self.stats.values():
                if stats.opened is not None:
                    stats.close()


class PlainLines:
    """The non-terminal form: ``tick()`` prints a line for each stage that changed since its last
    line (and ended stages once); a thread calls it every ``interval`` seconds."""

    def __init__(
        self,
        write: Callable[[str], None],
        *,
        interval: float = PLAIN_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
        tracker: StageTracker | None = None,
    ):
        self.write, self.interval = write, interval
        self.tracker = tracker or StageTracker(clock)
        # stage -> (done, retries asked, ended) at its last line
        self._printed: dict[str, tuple[int, int, bool]] = {}
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def stats(self) -> dict[str, StageStats]:
        return self.tracker.stats

    def stage(self, stage: str) -> StageStats:
        return self.tracker.stage(stage)

    def add(self, stage: str, result: CallResult) -> None:
        if self.tracker.add(stage, result):
            self.tick()  # the stage's last line at once, not up to ``interval`` later

    def tried(self, stage: str, *, retry: bool, again: bool) -> None:
        if self.tracker.tried(stage, retry=retry, again=again):
            self.tick()

    def end_stages(self) -> None:
        """The run's stage is over: every open stage ends, with its last line now."""
        self.tracker.end_all()
        self.tick()

    def tick(self) -> None:
        with self._write_lock:  # lines in order, each stage's state printed once
            now = self.tracker.clock()
            with self.tracker.lock:
                lines = []
                for stage, stats in self.stats.items():
                    state = (stats.done, stats.asked_again, stats.ended)
                    if stats.done == 0 or self._printed.get(stage) == state:
                        continue
                    self._printed[stage] = state
                    lines.append(plain_line(stage, stats, now))
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
        self.end_stages()  # stages nobody ended (a command without run stages)

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
        interval: float | None = None,  # seconds between plain lines (``PLAIN_INTERVAL``)
        clock: Callable[[], float] = time.monotonic,
    ):
        """``plain`` forces (True) or forbids (False) plain lines; by default they are used
        exactly when stderr is not a terminal."""
        self.quiet = quiet
        if plain is None:
            plain = not sys.stderr.isatty()
        self.tracker = StageTracker(clock)
        self.lines: PlainLines | None = None
        if plain and not quiet:
            stream = sys.stderr
            self.lines = PlainLines(
                lambda line: print(line, file=stream, flush=True),
                interval=PLAIN_INTERVAL if interval is None else interval,
                tracker=self.tracker,
            )
        self._bars = not quiet and self.lines is None
        self._progress = Progress(
            TextColumn("{task.description:<12}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(
                "cached {task.fields[cached]} · errors {task.fields[errors]} · "
                "tokens {task.fields[tokens]} · ${task.fields[cost]:.4f} · {task.fields[eta]}"
            ),
            console=console or Console(stderr=True),
            disable=not self._bars,
        )
        self._tasks: dict[str, int] = {}

    def __enter__(self) -> StageProgress:
        if self.lines is not None:
            self.lines.start()
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.end_stages()
        self._progress.stop()
        if self.lines is not None:
            self.lines.stop()

    def set_total(
        self,
        stage: str,
        total: int,
        *,
        new: int | None = None,
        retries: bool = False,
        add: bool = False,
    ) -> None:
        """Declare how many calls a stage will make (cached ones included; first tries when
        ``retries``), and of them ``new``: those not in the store. ``add`` adds to an earlier
        declaration (a stage run per election)."""
        self.tracker.declare(stage, total, new=new, retries=retries, add=add)
        if self._bars:
            self._progress.update(self._task(stage), total=self.tracker.stage(stage).total)

    def end_stages(self) -> None:
        """The run's stage that made the calls is over: its call stages end."""
        if self.lines is not None:
            self.lines.end_stages()
        else:
            self.tracker.end_all()
        if self._bars:
            for stage in self._tasks:
                self._update_bar(stage)

    def tried(self, stage: str, *, retry: bool, again: bool) -> None:
        """A checked try of ``stage`` (see ``TryHook``)."""
        if self.lines is not None:
            self.lines.tried(stage, retry=retry, again=again)
            return
        self.tracker.tried(stage, retry=retry, again=again)
        if self._bars:
            self._update_bar(stage)

    def __call__(self, stage: str, result: CallResult) -> None:
        if self.lines is not None:
            self.lines.add(stage, result)
            return
        if self.quiet:
            return  # nothing is drawn: spare the ~1,000 updates a second of a large run
        self.tracker.add(stage, result)
        self._update_bar(stage)

    def _update_bar(self, stage: str) -> None:
        stats = self.tracker.stage(stage)
        self._progress.update(
            self._task(stage),
            completed=stats.done,
            total=max(stats.total, stats.done) if stats.total is not None else None,
            cached=stats.cached,
            errors=stats.errors,
            tokens=stats.tokens,
            cost=stats.cost,
            eta=eta_text(stats, self.tracker.clock()),
        )

    def _task(self, stage: str) -> int:
        if stage not in self._tasks:
            self._tasks[stage] = self._progress.add_task(
                stage, total=None, cached=0, errors=0, tokens=0, cost=0.0, eta="ETA unknown"
            )
        return self._tasks[stage]


def _progress_listeners(listeners: list) -> list[StageProgress]:
    return [listener for listener in listeners if isinstance(listener, StageProgress)]


def declare_total(
    listeners: list, stage: str, total: int, *, new: int | None = None, retries: bool = False
) -> None:
    """Tell the progress display among a client's listeners how many calls a stage makes
    (``new``: how many of them are not in the store; ``retries``: first tries only, a failed
    check may ask again)."""
    for listener in _progress_listeners(listeners):
        listener.set_total(stage, total, new=new, retries=retries)


def declare_more(
    listeners: list, stage: str, calls: int, *, new: int | None = None, retries: bool = False
) -> None:
    """``declare_total`` for a stage that runs per election: adds ``calls`` to its total."""
    for listener in _progress_listeners(listeners):
        listener.set_total(stage, calls, new=new, retries=retries, add=True)


def try_hook(listeners: list, stage: str) -> TryHook:
    """The ``TryHook`` of a stage whose calls are checked and asked again: it tells the progress
    display among a client's listeners about each checked try."""
    progress = _progress_listeners(listeners)

    def hook(*, retry: bool, again: bool) -> None:
        for listener in progress:
            listener.tried(stage, retry=retry, again=again)

    return hook


def end_stages(listeners: list) -> None:
    """The run's stage is over: the progress display ends its call stages' lines (their time is
    up to their last result)."""
    for listener in _progress_listeners(listeners):
        listener.end_stages()
