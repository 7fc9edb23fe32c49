"""Progress: plain lines per stage when stderr is not a terminal (CI, ``| tee``)."""

from __future__ import annotations

from polistemics.llm.progress import PlainLines, StageProgress, declare_total
from polistemics.llm.types import CallResult


def result(*, ok: bool = True, cached: bool = False) -> CallResult:
    return CallResult(
        key="k",
        endpoint="e",
        model="m",
        status="ok" if ok else "error",
        input_tokens=10,
        output_tokens=5,
        cost=0.001,
        cached=cached,
    )


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_plain_lines_give_done_total_errors_and_eta() -> None:
    clock, lines = Clock(), []
    plain = PlainLines(lines.append, clock=clock)
    plain.stage("answer").total = 10
    plain.add("answer", result(cached=True))  # a cache hit: no time, not in the rate
    clock.now += 10
    plain.add("answer", result())
    clock.now += 10
    plain.add("answer", result(ok=False))
    plain.tick()
    # 2 calls made in 20 s: 10 s a call, 7 calls left
    assert lines == [
        "progress answer: 3/10 done (1 cached), 1 errors, 45 tokens, $0.0030, "
        "elapsed 0:20, ETA 1:10"
    ]
    plain.tick()
    assert len(lines) == 1  # nothing new, no new line


def test_a_stage_without_total_or_calls_made_has_no_eta_and_finished_stages_say_so() -> None:
    clock, lines = Clock(), []
    plain = PlainLines(lines.append, clock=clock)
    plain.add("standardise", result())
    plain.tick()
    assert lines[-1].startswith("progress standardise: 1/? done")
    assert lines[-1].endswith("ETA unknown")
    plain.stage("judge").total = 2
    plain.add("judge", result())
    clock.now += 65
    plain.add("judge", result())  # the last call prints at once, without a tick
    assert lines[-1] == (
        "progress judge: 2/2 done (0 cached), 0 errors, 30 tokens, $0.0020, finished in 1:05"
    )


def test_the_ticker_thread_prints_while_calls_run() -> None:
    lines: list[str] = []
    plain = PlainLines(lines.append, interval=0.01)
    plain.start()
    try:
        plain.add("answer", result())
        for _ in range(500):  # the thread ticks on its own (bounded wait, not a timing check)
            if lines:
                break
            plain._stop.wait(0.01)
    finally:
        plain.stop()
    assert lines and lines[0].startswith("progress answer: 1/? done")


def test_stage_progress_uses_plain_lines_when_stderr_is_not_a_terminal(capsys) -> None:
    with StageProgress() as progress:  # pytest's stderr is not a terminal
        assert progress.lines is not None
        declare_total([object(), progress], "answer", 2)
        progress("answer", result())
        progress("answer", result())
    err = capsys.readouterr().err
    assert "progress answer: 2/2 done" in err and "finished in" in err
    with StageProgress(quiet=True) as quiet:
        quiet("answer", result())
    assert quiet.lines is None and capsys.readouterr().err == ""
