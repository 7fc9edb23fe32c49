from __future__ import annotations

import asyncio
import random

import pytest

from fakes import Call, Script, ScriptedCompleter, call_key
from polistemics.answers.generate import AnswerInputError, answer_items, is_refusal
from polistemics.conditions import Environment
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.types import BudgetExceeded, CallResult
from polistemics.records import Stance
from polistemics.runlog import Answer
from polistemics.runlog.items import Chunk, EnvironmentItem


def item(observation: str, env: Environment = Environment.BASELINE) -> EnvironmentItem:
    chunks = (
        []
        if env is Environment.ABSENT
        else [
            Chunk(
                text="SPD unterstützt das.",
                role="target",
                party_id="de_spd",
                statement_id="de__s001",
            )
        ]
    )
    return EnvironmentItem(
        observation_id=observation,
        election_id="de",
        party_id="de_spd",
        party_name="SPD",
        party_anonymized="Party C",
        statement_id="de__s001",
        statement_text="Mehr Windkraft.",
        stance_label=Stance.AGREE,
        environment=env,
        language="German",
        output_language="German",
        chunks=chunks,
    )


def stand_in_messages(it: EnvironmentItem) -> list[dict]:
    """Stand-in for environments.task_prompt.task_messages (tests only)."""
    return [{"role": "system", "content": "ctx"}, {"role": "user", "content": it.key}]


def target(name: str, temperature: float = 0.0) -> ModelEndpoint:
    return ModelEndpoint(name=name, model=f"test/{name}", temperature=temperature)


ANSWER_USAGE = {
    "finish_reason": "stop",
    "input_tokens": 120,
    "output_tokens": 40,
    "reasoning_tokens": 5,
    "cost": 0.0012,
    "latency_ms": 850.0,
}


def echo(call: Call) -> str:
    """A distinct text per endpoint, prompt and sample."""
    return f"{call.endpoint.name} on {call.user} #{call.sample_index}"


def fake_completer(script: Script = echo) -> ScriptedCompleter:
    """Answers with ``script(call)`` after a small random wait, so replies finish out of order."""
    rng = random.Random(3)
    return ScriptedCompleter(script, delay=lambda call: rng.random() / 500, usage=ANSWER_USAGE)


def run(completer, targets, items, **kw) -> list[Answer]:
    kw.setdefault("messages_for", stand_in_messages)
    return asyncio.run(answer_items(completer, targets, items, **kw))


def test_every_target_item_and_sample_is_a_separate_answer():
    items = [item("o1"), item("o2", Environment.ABSENT)]
    targets = [target("m1", 0.7), target("m2", 0.7)]
    completer = fake_completer()
    answers = run(completer, targets, items, samples=3)
    assert len(completer.calls) == len(answers) == 12
    assert {c.stage for c in completer.calls} == {"answer"}
    assert [(a.model, a.item_key, a.sample_index) for a in answers] == [
        (t.name, i.key, s) for t in targets for i in items for s in range(3)
    ]
    # Samples are kept apart: each has its own call and its own text.
    texts = {(a.model, a.item_key, a.sample_index): a.text for a in answers}
    assert len(set(texts.values())) == 12
    assert len({a.call_key for a in answers}) == 12


def test_single_sample_uses_sample_index_zero():
    completer = fake_completer()
    answers = run(completer, [target("m1")], [item("o1")])
    assert [c.sample_index for c in completer.calls] == [0]
    assert answers[0].sample_index == 0 and answers[0].ok


def test_prompt_comes_from_the_task_prompt_builder():
    completer = fake_completer()
    it = item("o1")
    run(completer, [target("m1")], [it])
    assert completer.calls[0].user == it.key
    assert completer.calls[0].json_schema is None  # no structured output for answers


def test_call_figures_are_copied():
    answer = run(fake_completer(), [target("m1")], [item("o1")])[0]
    assert (answer.input_tokens, answer.output_tokens, answer.reasoning_tokens) == (120, 40, 5)
    assert answer.cost == 0.0012 and answer.latency_ms == 850.0
    assert answer.finish_reason == "stop" and answer.call_key == call_key(
        "m1", stand_in_messages(item("o1")), 0
    )
    assert not answer.refusal and not answer.empty and answer.status == "ok"


def test_empty_text_is_flagged_and_not_ok():
    answers = run(fake_completer(lambda call: "  \n "), [target("m1")], [item("o1")])
    assert answers[0].empty and not answers[0].ok and answers[0].status == "ok"


def test_failed_call_is_an_error_answer():
    def reply(call: Call) -> CallResult:
        e = call.endpoint
        return CallResult(key="k", endpoint=e.name, model=e.model, status="error", error="HTTP 429")

    answer = run(fake_completer(reply), [target("m1")], [item("o1")])[0]
    assert answer.status == "error" and answer.error == "HTTP 429"
    assert answer.text is None and not answer.empty and not answer.ok


def test_content_filter_is_a_refusal():
    def reply(call: Call) -> CallResult:
        e = call.endpoint
        return CallResult(
            key="k",
            endpoint=e.name,
            model=e.model,
            status="ok",
            text="",
            finish_reason="content_filter",
        )

    answer = run(fake_completer(reply), [target("m1")], [item("o1")])[0]
    assert answer.refusal and answer.empty


@pytest.mark.parametrize(
    "text",
    [
        "I'm sorry, but I can't help with that request.",
        "Sorry, I cannot assist with political questions.",
        "I can’t help with this.",
        "I must decline to answer questions about political parties.",
        "Es tut mir leid, aber ich kann Ihnen dabei nicht helfen.",
        "Ich kann bei dieser Anfrage nicht helfen.",
        "Het spijt me, maar ik kan je daar niet mee helpen.",
        "**I'm sorry, but I am unable to help with that.**",
    ],
)
def test_refusal_phrases(text):
    assert is_refusal(text, "stop")


@pytest.mark.parametrize(
    "text",
    [
        # Saying the context lacks the answer is what the task prompt asks for, not a refusal.
        "I cannot find the answer in the provided context.",
        "I'm sorry, but the provided context does not mention the party's position.",
        "I'm sorry, but I cannot answer this from the provided context.",
        "Der bereitgestellte Kontext enthält keine Informationen zur Position der SPD.",
        "Ik kan het antwoord niet vinden in de gegeven context.",
        "The SPD agrees with the statement [1]. It says it cannot help but support wind power.",
        "",
    ],
)
def test_not_refusals(text):
    assert not is_refusal(text, "stop")


def test_bad_sample_count_is_rejected():
    with pytest.raises(AnswerInputError, match="samples must be at least 1"):
        run(fake_completer(), [target("m1")], [item("o1")], samples=0)


def test_duplicate_items_are_rejected():
    with pytest.raises(AnswerInputError, match="listed twice"):
        run(fake_completer(), [target("m1")], [item("o1"), item("o1")])


def test_on_result_sees_every_answer():
    seen: list[Answer] = []
    answers = run(
        fake_completer(), [target("m1")], [item("o1"), item("o2")], samples=2, on_result=seen.append
    )
    assert sorted((a.item_key, a.sample_index) for a in seen) == sorted(
        (a.item_key, a.sample_index) for a in answers
    )


def test_budget_stop_propagates():
    def reply(call: Call) -> str:
        raise BudgetExceeded("cost cap reached")

    with pytest.raises(BudgetExceeded):
        run(fake_completer(reply), [target("m1")], [item("o1"), item("o2")])


def test_default_prompt_is_the_task_prompt():
    task_prompt = pytest.importorskip("polistemics.environments.task_prompt")
    it = item("o1")
    completer = fake_completer()
    asyncio.run(answer_items(completer, [target("m1")], [it]))
    assert completer.calls[0].user == task_prompt.task_messages(it)[-1]["content"]


def test_at_once_bounds_calls_and_builds_prompts_just_in_time() -> None:
    """With ``at_once`` (issue 32), at most that many answers are asked at a time and a prompt
    is built only when its call is about to start, not every prompt up front; the answers and
    their order are those of the unbounded run."""
    items = [item(f"o{n}") for n in range(40)]
    targets = [target("m1"), target("m2")]
    built: list[int] = []
    completer = fake_completer()

    def messages_for(it: EnvironmentItem) -> list[dict]:
        built.append(completer.in_flight)
        return stand_in_messages(it)

    bounded = run(completer, targets, items, messages_for=messages_for, at_once=4)
    assert completer.max_in_flight == 4
    assert len(built) == 80 and max(built) < 4  # each built while fewer than 4 calls ran
    unbounded = run(fake_completer(), targets, items)
    assert [a.model_dump() for a in bounded] == [a.model_dump() for a in unbounded]
