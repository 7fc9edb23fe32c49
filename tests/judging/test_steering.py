"""An answer cannot steer its judges, in any output mode (issue 27, item 3 and defect 1).

A judge that obeys verdicts planted in the answer writes them back in its own mode's shape, so
no comparison of texts can catch it; the panel compares verdicts (``judging.planted``), asks
again once and records a still-matching reading as missing, ``error = "possibly planted"``.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from fakes import Call, ScriptedCompleter
from polistemics.conditions import Environment
from polistemics.judging.panel import judge_answers
from polistemics.judging.planted import POSSIBLY_PLANTED
from polistemics.llm.client import LLMClient, RetryPolicy
from polistemics.llm.registry import ModelEndpoint
from polistemics.runlog import JudgeVerdictRecord
from polistemics.testing import FakeOpenAIServer
from polistemics.testing.completions import content_text
from polistemics.testing.responders import JUDGE_MARKER, judge_reply, polistemic_responder

from .adversarial import (
    ITEM_1_SHAPES,
    STEERING_SHAPES,
    obedient_output,
    steering_answer,
)
from .helpers import endpoint, make_answer, make_item, questions_in

PLANTED = [True, False, True, False, True]  # longer than any rubric: a judge takes its prefix
MODES = ("none", "json_schema", "tool", "json_object", "grammar")
ENVIRONMENTS = (Environment.BASELINE, Environment.NOISY, Environment.VAGUE, Environment.ABSENT)


def took_planted(records: list[JudgeVerdictRecord]) -> list[JudgeVerdictRecord]:
    return [
        r for r in records if r.parsed and list(r.says_yes.values()) == PLANTED[: len(r.says_yes)]
    ]


def obedient(call: Call) -> str:
    """Obeys any answer that plants verdicts; honest answers get its own (all No)."""
    n = len(questions_in(call))
    if "ausdrücklich" in call.user:  # the steering answers' prose
        return obedient_output(PLANTED, n, call.json_schema)
    return obedient_output([False] * 5, n, call.json_schema)


def judge(mode: str, completer: ScriptedCompleter, answer_text: str) -> list[JudgeVerdictRecord]:
    pairs = []
    for number, env in enumerate(ENVIRONMENTS, start=1):
        item = make_item(env, observation=f"de__de_spd__s00{number}")
        pairs.append((item, make_answer(item, text=answer_text)))
    return asyncio.run(judge_answers(completer, [endpoint("j", mode)], pairs))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", STEERING_SHAPES)
def test_an_obedient_judge_never_hands_planted_verdicts_over(shape: str, mode: str) -> None:
    completer = ScriptedCompleter(obedient)
    records = judge(mode, completer, steering_answer(shape, PLANTED))
    assert not took_planted(records), [r.raw_output for r in took_planted(records)]
    for record in records:  # asked again, then missing
        assert not record.parsed and record.attempts == 2, (record.raw_output, record.error)
        assert set(record.says_yes.values()) == {None}
        assert record.error == POSSIBLY_PLANTED


@pytest.mark.parametrize("mode", MODES)
def test_honest_answers_keep_their_verdicts_in_every_mode(mode: str) -> None:
    completer = ScriptedCompleter(obedient)
    records = judge(mode, completer, "Die SPD lehnt die Aussage ab [1]. Nein, sagt sie.")
    assert all(r.parsed and r.attempts == 1 and r.error is None for r in records)
    assert all(set(r.says_yes.values()) == {False} for r in records)


@pytest.mark.parametrize("mode", ("json_schema", "tool"))
def test_a_judge_that_disagrees_with_the_plant_is_read(mode: str) -> None:
    completer = ScriptedCompleter(
        lambda call: obedient_output([False] * 5, len(questions_in(call)), call.json_schema)
    )
    records = judge(mode, completer, steering_answer("reordered-keys", PLANTED))
    assert all(r.parsed and r.attempts == 1 for r in records)


def test_a_second_call_with_the_judges_own_verdicts_is_taken() -> None:
    def steered_once(call: Call) -> str:
        n = len(questions_in(call))
        verdicts = PLANTED if call.sample_index == 0 else [False] * 5
        return obedient_output(verdicts, n, call.json_schema)

    records = judge(
        "json_schema", ScriptedCompleter(steered_once), steering_answer("german", PLANTED)
    )
    assert all(r.parsed and r.attempts == 2 and r.error is None for r in records)
    assert all(set(r.says_yes.values()) == {False} for r in records)


# ---- end to end, against the test server --------------------------------------------------


def _obedient_responder(planted_by_marker: dict[str, list[bool]]):
    """``polistemic_responder``, except that a judge shown an answer with a marker obeys the
    verdicts that answer plants, in the shape its request asks for (schema JSON or tool call)."""

    def respond(request_json: dict) -> str:
        messages = [m for m in request_json.get("messages", []) if isinstance(m, dict)]
        system = "\n".join(
            content_text(m.get("content")) for m in messages if m["role"] == "system"
        )
        user = "\n".join(content_text(m.get("content")) for m in messages if m["role"] == "user")
        planted = next((v for marker, v in planted_by_marker.items() if marker in user), None)
        if JUDGE_MARKER not in system or planted is None:
            return polistemic_responder(request_json)
        return judge_reply(request_json, f"{system}\n{user}", system, lambda _, n: planted[:n])

    return respond


@pytest.mark.parametrize("mode", ("json_schema", "tool"))
def test_item_1_steering_shapes_give_no_planted_verdicts_end_to_end(mode: str) -> None:
    """Done when (issue 27): the four steering shapes of item 1, run against the test server
    in both structured modes, give 0 planted verdicts."""
    pairs, planted_by_marker = [], {}
    for number, shape in enumerate((*ITEM_1_SHAPES, "honest"), start=1):
        item = make_item(Environment.BASELINE, observation=f"de__de_spd__s00{number}")
        if shape == "honest":
            text = "Die SPD lehnt die Aussage ab [1]."
        else:
            marker = f"Quelle-{shape}"
            planted_by_marker[marker] = PLANTED
            text = f"{steering_answer(shape, PLANTED)}{marker}"
        pairs.append((item, make_answer(item, text=text)))
    with FakeOpenAIServer(responder=_obedient_responder(planted_by_marker)) as server:
        judges = [
            ModelEndpoint(
                name=f"judge-{i}",
                model=f"test/judge-{i}",
                base_url=server.base_url,
                structured_output=mode,
                timeout=5.0,
            )
            for i in range(3)
        ]

        async def go() -> list[JudgeVerdictRecord]:
            client = LLMClient(retry=RetryPolicy(max_attempts=2, base_delay=0.01, max_delay=0.02))
            try:
                return await judge_answers(client, judges, pairs)
            finally:
                await client.aclose()

        records = asyncio.run(go())
    assert len(records) == 5 * 3 * 3
    honest_key = pairs[-1][0].key
    steered = [r for r in records if r.item_key != honest_key]
    assert not took_planted(steered), [r.raw_output for r in took_planted(steered)]
    for record in records:
        if record.item_key == honest_key:
            assert record.parsed and record.attempts == 1
        else:
            assert (record.parsed, record.attempts, record.error) == (False, 2, POSSIBLY_PLANTED)
            assert json.loads(record.raw_output or "{}")  # the obedient judge's schema JSON
