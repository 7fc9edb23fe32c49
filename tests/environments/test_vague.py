import asyncio
from collections import Counter

import pytest

from fakes import Call, ScriptedCompleter
from polistemics import prompts
from polistemics.conditions import Environment, Variant
from polistemics.environments.basis import EnvironmentInputError
from polistemics.environments.vague import (
    AUDIT_JSON_SCHEMA,
    VAGUE_JSON_SCHEMA,
    VagueRewrite,
    build_vague_items,
    draw_mode,
    generate_vague_rewrites,
    generation_messages,
    parse_json_object,
)

from .helpers import (
    AUDITOR,
    ENDPOINT,
    always_vague,
    audit_json,
    evidence,
    obs,
    vague_json,
)


def run(ev, respond, **kwargs):
    completer = ScriptedCompleter(respond)
    outcome = asyncio.run(
        generate_vague_rewrites(
            ev, completer, ENDPOINT, AUDITOR, seed=kwargs.pop("seed", 7), **kwargs
        )
    )
    return outcome, completer


def test_mode_draw_depends_on_seed_and_observation_only():
    ids = [f"e__p{i}__s001" for i in range(200)]
    first = [draw_mode(3, i).number for i in ids]
    assert [draw_mode(3, i).number for i in reversed(ids)] == list(reversed(first))
    assert Counter(first).keys() == {1, 2, 3, 4, 5}
    assert [draw_mode(4, i).number for i in ids] != first


def test_generation_prompt_carries_the_mode_and_the_placeholder_text():
    ev = evidence("a", 1, "Agree")
    mode = draw_mode(0, ev.observation_id)
    system, user = generation_messages(ev, mode)
    assert f"one specific rhetorical strategy: {mode.name}. {mode.instruction}" in system["content"]
    assert system["content"].startswith(prompts.load("vague_system")[:60])
    assert user == {"role": "user", "content": ev.text}


def test_accepted_rewrite_keeps_placeholder_mode_and_uses_schemas():
    ev = [evidence("a", 1, "Agree"), evidence("b", 1, "Disagree")]
    outcome, completer = run(ev, always_vague)
    assert [r.observation_id for r in outcome.rewrites] == [obs("a", 1), obs("b", 1)]
    rewrite = outcome.rewrites[0]
    assert rewrite.mode == draw_mode(7, obs("a", 1)).number
    assert "[PARTY]" in rewrite.text and rewrite.attempts == 1
    assert rewrite.modes_used == ["Strategic Prioritization"]
    gen = [c for c in completer.calls if c.stage == "vague"]
    audit = [c for c in completer.calls if c.stage == "vague_audit"]
    assert len(gen) == len(audit) == 2
    assert all(c.json_schema == VAGUE_JSON_SCHEMA and c.endpoint == ENDPOINT for c in gen)
    assert all(c.json_schema == AUDIT_JSON_SCHEMA for c in audit)
    assert all(c.endpoint.temperature == 0.0 and c.endpoint.model == AUDITOR.model for c in audit)
    assert audit[0].messages[1]["content"] in {r.text for r in outcome.rewrites}
    assert outcome.report.as_dict() == {
        "generated": 2,
        "audit_failures": 0,
        "invalid_outputs": 0,
        "lost_placeholder": 0,
        "call_errors": 0,
        "retries": 0,
        "excluded": 0,
    }


def test_determinable_rewrite_is_regenerated_with_a_new_sample_index():
    def respond(call: Call) -> str:
        if call.stage == "vague_audit":
            return audit_json("try 0" in call.messages[1]["content"])
        return vague_json(f"[PARTY] ponders (try {call.sample_index}).")

    outcome, completer = run([evidence("a", 1, "Agree")], respond)
    assert outcome.rewrites[0].text == "[PARTY] ponders (try 1)."
    assert outcome.rewrites[0].attempts == 2
    assert [c.sample_index for c in completer.calls if c.stage == "vague"] == [0, 1]
    report = outcome.report
    assert (report.generated, report.audit_failures, report.retries) == (1, 1, 1)


@pytest.mark.parametrize(
    "bad_output, counter",
    [
        ("not json at all", "invalid_outputs"),
        (vague_json("The party ponders."), "lost_placeholder"),
        (None, "call_errors"),
    ],
)
def test_bad_try_counts_and_budget_exhaustion_excludes(bad_output, counter):
    def respond(call: Call):
        return audit_json(False) if call.stage == "vague_audit" else bad_output

    outcome, completer = run([evidence("a", 1, "Agree")], respond, max_attempts=2)
    assert outcome.rewrites == []
    report = outcome.report.as_dict()
    assert report[counter] == 2 and report["excluded"] == 1 and report["retries"] == 1
    assert outcome.report.excluded == [obs("a", 1)]
    assert all(c.stage == "vague" for c in completer.calls)  # nothing to audit


def test_each_checked_try_is_reported_as_a_first_try_or_a_retry():
    def respond(call: Call) -> str:
        if call.stage == "vague_audit":
            return audit_json("try 0" in call.messages[1]["content"])
        return vague_json(f"[PARTY] ponders (try {call.sample_index}).")

    tries: list[tuple[bool, bool]] = []
    run(
        [evidence("a", 1, "Agree")],
        respond,
        on_try=lambda *, retry, again: tries.append((retry, again)),
    )
    assert tries == [(False, True), (True, False)]  # determinable, then accepted
    tries.clear()
    run(
        [evidence("a", 1, "Agree")],
        lambda call: "not json at all",
        max_attempts=2,
        on_try=lambda *, retry, again: tries.append((retry, again)),
    )
    assert tries == [(False, True), (True, False)]  # out of tries: finished, excluded


def test_unreadable_audit_is_a_failed_try():
    def respond(call: Call):
        return "maybe" if call.stage == "vague_audit" else vague_json("[PARTY] ponders.")

    outcome, _ = run([evidence("a", 1, "Agree")], respond, max_attempts=3)
    assert outcome.report.invalid_outputs == 3 and outcome.report.excluded == [obs("a", 1)]


def test_max_attempts_must_be_positive():
    with pytest.raises(EnvironmentInputError, match="max_attempts"):
        run([evidence("a", 1, "Agree")], always_vague, max_attempts=0)


def test_parse_json_object_variants():
    assert parse_json_object('```json\n{"determinable": false}\n```') == {"determinable": False}
    assert parse_json_object('Sure: {"a": 1} done') == {"a": 1}
    assert parse_json_object("[1, 2]") is None
    assert parse_json_object("") is None


def test_vague_items_fill_the_label_and_store_the_mode():
    ev = [evidence("a", 1, "Agree"), evidence("b", 1, "Disagree")]
    rewrites = [
        VagueRewrite(observation_id=obs("a", 1), mode=4, text="[PARTY] balances [PARTY] values.")
    ]
    items = build_vague_items(ev, rewrites)
    assert len(items) == 1
    item = items[0]
    assert item.environment is Environment.VAGUE and item.vague_mode == 4
    assert item.chunks[0].text == "A-Partei balances A-Partei values."
    assert item.chunks[0].stance is None and item.chunks[0].role == "target"
    anon = build_vague_items(ev, rewrites, variant=Variant.ANONYMIZED)[0]
    assert anon.chunks[0].text == "Party A balances Party A values."


def test_rewrite_for_an_unknown_observation_is_an_error():
    rewrites = [VagueRewrite(observation_id="x", mode=1, text="[PARTY]")]
    with pytest.raises(EnvironmentInputError, match="unknown observation x"):
        build_vague_items([evidence("a", 1, "Agree")], rewrites)
