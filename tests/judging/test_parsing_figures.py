"""Parse-failure figures per judge and output mode, from panel records and call statistics."""

from __future__ import annotations

from polistemics.conditions import Environment
from polistemics.judging.parsing_figures import ParsingCounts, judge_parsing
from polistemics.judging.planted import POSSIBLY_PLANTED
from polistemics.rubrics import Rubric
from polistemics.runlog import JudgeVerdictRecord

from .helpers import endpoint


def record(
    judge: str,
    attempts: int,
    parsed: bool,
    error: str | None = None,
    model: str = "target",
    item_key: str = "k",
) -> JudgeVerdictRecord:
    return JudgeVerdictRecord(
        item_key=item_key,
        environment=Environment.BASELINE,
        model=model,
        sample_index=0,
        rubric=Rubric.IMPARTIALITY,
        judge=judge,
        panel_position=0,
        call_key=None,
        attempts=attempts,
        raw_output=None,
        parsed=parsed,
        error=error,
        says_yes={"evaluative_steering_endorsement": True if parsed else None},
    )


def test_attempts_retries_and_missing_verdicts_are_counted_per_judge_and_mode() -> None:
    judges = {
        "a": endpoint("a", "json_schema"),
        "b": endpoint("b", "tool"),
        "c": endpoint("c", "json_schema"),
    }
    records = [
        record("a", 1, True),
        record("a", 2, True),  # unreadable once, read on the second call
        record("a", 2, False),  # unreadable twice
        record("b", 1, False, "no tool call in the reply"),
        record("b", 1, True),
        record("elsewhere", 1, False),  # not a judge of this panel: ignored
    ]
    stats = [
        {"stage": "judge", "endpoint": "a", "calls": 5, "attempts": 6},
        {"stage": "judge", "endpoint": "b", "calls": 2, "attempts": 3},
        {"stage": "answers", "endpoint": "a", "calls": 9, "attempts": 20},
    ]
    figures = judge_parsing(records, judges, stats)
    a, b, c = figures["by_judge"]
    assert a == {
        "judge": "a",
        "model": "test/a",
        "output_mode": "json_schema",
        "verdict_sets": 3,
        "panel_calls": 5,
        "asked_again": 2,
        "http_attempts": 6,
        "client_retries": 1,
        "call_failed": 0,
        "unreadable": 1,
        "possibly_planted": 0,
        "missing": 1,
        "missing_share": round(1 / 3, 6),
    }
    assert (b["call_failed"], b["unreadable"], b["missing_share"]) == (1, 0, 0.5)
    assert (b["http_attempts"], b["client_retries"]) == (3, 1)
    # A judge without records or stored calls has no share and no HTTP figures.
    assert (c["verdict_sets"], c["missing_share"], c["http_attempts"]) == (0, None, None)
    modes = {row["output_mode"]: row for row in figures["by_output_mode"]}
    assert modes["json_schema"]["verdict_sets"] == 3 and modes["json_schema"]["judge"] is None
    assert modes["json_schema"]["http_attempts"] == 6
    assert (modes["tool"]["missing"], modes["tool"]["verdict_sets"]) == (1, 2)


def test_possibly_planted_verdicts_are_counted_per_judge_mode_and_target_model() -> None:
    judges = {"a": endpoint("a", "json_schema"), "b": endpoint("b", "tool")}
    records = [
        record("a", 2, False, POSSIBLY_PLANTED, model="steerer", item_key="k1"),
        record("b", 2, False, POSSIBLY_PLANTED, model="steerer", item_key="k1"),
        record("a", 2, False, POSSIBLY_PLANTED, model="steerer", item_key="k2"),
        record("b", 2, True, model="steerer", item_key="k2"),  # asked again, then its own
        record("a", 1, True, model="honest"),
        record("b", 1, False, "no tool call in the reply", model="honest"),
    ]
    figures = judge_parsing(records, judges)
    a, b = figures["by_judge"]
    assert (a["possibly_planted"], a["missing"], a["unreadable"], a["call_failed"]) == (2, 2, 0, 0)
    assert (b["possibly_planted"], b["missing"], b["call_failed"]) == (1, 2, 1)
    modes = {row["output_mode"]: row for row in figures["by_output_mode"]}
    assert modes["json_schema"]["possibly_planted"] == 2 and modes["tool"]["possibly_planted"] == 1
    assert figures["possibly_planted_by_model"] == {"steerer": {"answers": 2, "verdict_sets": 3}}


def test_figures_counted_in_a_readers_pass_are_the_figures_read_from_the_records() -> None:
    judges = {"a": endpoint("a", "json_schema"), "b": endpoint("b", "tool")}
    records = [
        record("a", 2, False, POSSIBLY_PLANTED, model="steerer", item_key="k1"),
        record("b", 2, False, POSSIBLY_PLANTED, model="steerer", item_key="k1"),
        record("a", 1, True, model="honest"),
        record("b", 1, False, "no tool call in the reply", model="honest"),
        record("b", 2, False, model="honest"),
        record("elsewhere", 2, False, POSSIBLY_PLANTED, model="other"),  # not of this panel
    ]
    counted = ParsingCounts()
    taken = [chunk for chunk in counted.counting([records[:2], records[2:]])]
    assert taken == [records[:2], records[2:]] and counted.complete
    figures = judge_parsing(records, judges)
    assert figures["possibly_planted_by_model"] == {"steerer": {"answers": 1, "verdict_sets": 2}}
    # Counted in the pass, the records are not read again.
    assert judge_parsing([], judges, counted=counted) == figures


def test_an_incomplete_pass_leaves_the_records_to_be_read() -> None:
    judges = {"a": endpoint("a", "json_schema")}
    records = [record("a", 1, True), record("a", 2, False)]
    counted = ParsingCounts()
    next(iter(counted.counting([records[:1], records[1:]])))  # the reader stopped early
    assert not counted.complete
    assert judge_parsing(records, judges, counted=counted) == judge_parsing(records, judges)
    assert judge_parsing(records, judges)["by_judge"][0]["verdict_sets"] == 2
