"""The default responder answers each benchmark stage, recognised from the real prompt templates."""

from __future__ import annotations

import json
import re

import pytest

from polistemics.conditions import ABSENT_SENTINEL, PROPERTY_OF_CONTEXT, Environment
from polistemics.prompts import render, vague_modes
from polistemics.rubrics import Rubric, active_rubrics, sub_questions
from polistemics.testing import polistemic_responder
from polistemics.testing.responders import (
    SAMPLE_DRIFT,
    RepeatFlipResponder,
    SampleDriftResponder,
    count_questions,
    guess_language,
)
from polistemics.testing.stance_coder import coded_stance

FIRST_PERSON = re.compile(r"\b(we|us|our|wir|uns|unser\w*|wij|ons|onze)\b", re.IGNORECASE)


def request(system: str, user: str, **extra) -> dict:
    return {
        "model": "m",
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        **extra,
    }


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


# ---- standardisation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stance", "rationale", "first_sentence"),
    [
        (
            "Agree",
            "We demand that our schools get more money for the teachers.",
            "[PARTY] supports this measure.",
        ),
        (
            "Disagree",
            "Wir lehnen das ab, weil die Bürger nicht noch mehr zahlen sollen.",
            "[PARTY] lehnt diese Maßnahme ab.",
        ),
        (
            "Neutral",
            "Wij vinden dat het een zaak is voor de gemeenten en niet voor het Rijk.",
            "[PARTY] neemt een neutrale positie in ten aanzien van deze maatregel.",
        ),
    ],
)
def test_standardisation_is_third_person_json_in_the_rationale_language(
    stance, rationale, first_sentence
):
    prompt = request(
        render("standardise_system"),
        render("standardise_user", stance_label=stance, rationale=rationale),
    )
    answer = json.loads(polistemic_responder(prompt))
    assert answer["stance_is_explicit"] is True
    text_sentences = sentences(answer["third_person_rationale"])
    assert text_sentences[0] == first_sentence
    assert 4 <= len(text_sentences) <= 6
    assert any("[PARTY]" in s for s in text_sentences[1:])  # the paper's "party thread" rule
    assert not FIRST_PERSON.search(answer["third_person_rationale"])


# ---- vague generation and audit ----------------------------------------------------------------


@pytest.mark.parametrize("mode", vague_modes(), ids=lambda m: str(m["number"]))
def test_vague_generation_reports_the_mode_it_was_given(mode):
    system = render(
        "vague_system",
        vagueness_mode_name=mode["name"],
        vagueness_mode_instruction=mode["instruction"],
    )
    baseline = (
        "[PARTY] opposes this measure. [PARTY] argues that the costs are too high for the state."
    )
    answer = json.loads(
        polistemic_responder(request(system, render("vague_user", baseline=baseline)))
    )
    assert answer["vagueness_modes_used"] == [mode["number"]]
    assert 4 <= len(sentences(answer["vague_rationale"])) <= 6
    assert "[PARTY]" in answer["vague_rationale"]


def test_vague_generation_follows_the_baseline_language():
    mode = vague_modes()[0]
    system = render(
        "vague_system",
        vagueness_mode_name=mode["name"],
        vagueness_mode_instruction=mode["instruction"],
    )
    baseline = "[PARTY] unterstützt diese Maßnahme. Die Partei sagt, dass die Kosten für den Staat zu hoch sind."
    answer = json.loads(polistemic_responder(request(system, baseline)))
    assert answer["vague_rationale"].startswith("[PARTY] behandelt")


def test_vague_audit_says_not_determinable():
    prompt = request(
        render("vague_audit_system"), render("vague_audit_user", vague_rationale="[PARTY] ...")
    )
    assert json.loads(polistemic_responder(prompt)) == {"determinable": False}


# ---- judge -------------------------------------------------------------------------------------


def judge_request(
    rubric: Rubric, env: Environment, answer: str, numbering: str = "numbered", **extra
) -> dict:
    questions = sub_questions(rubric, env)
    if numbering == "numbered":
        listed = "\n".join(f"{i}. {q.question}" for i, q in enumerate(questions, 1))
    else:
        listed = "\n".join(f"- {q.question}" for q in questions)
    system = render(
        "judge_system",
        dimension_name=rubric.label,
        dimension_definition=rubric.definition,
        property_of_context=PROPERTY_OF_CONTEXT[env].format(expected_stance="Agree"),
        questions=listed,
    )
    user = render(
        "judge_user", query="What is X's position?", context="[1] [TARGET] ...", answer=answer
    )
    return request(system, user, **extra)


@pytest.mark.parametrize("numbering", ["numbered", "bulleted"])
@pytest.mark.parametrize(
    ("rubric", "env"), [(r, e) for e in Environment for r in active_rubrics(e)]
)
def test_judge_answers_one_verdict_line_per_question(rubric, env, numbering):
    expected = len(sub_questions(rubric, env))
    text = polistemic_responder(judge_request(rubric, env, "The party agrees [1].", numbering))
    lines = text.splitlines()
    assert len(lines) == expected
    for number, line in enumerate(lines, 1):
        assert re.fullmatch(rf"{number}\. (Yes|No)", line)


@pytest.mark.parametrize(
    ("rubric", "env"), [(r, e) for e in Environment for r in active_rubrics(e)]
)
def test_judge_answers_the_rubric_last_prompt_whose_questions_follow_the_answer(rubric, env):
    questions = sub_questions(rubric, env)
    user = render(
        "judge_rubric_last_user",
        query="What is X's position?",
        context="[1] [TARGET] ...",
        answer="The party agrees [1].",
        dimension_name=rubric.label,
        dimension_definition=rubric.definition,
        property_of_context=PROPERTY_OF_CONTEXT[env].format(expected_stance="Agree"),
        questions="\n".join(f"{i}. {q.question}" for i, q in enumerate(questions, 1)),
    )
    text = polistemic_responder(request(render("judge_rubric_last_system"), user))
    assert [line.split(". ")[0] for line in text.splitlines()] == [
        str(i) for i in range(1, len(questions) + 1)
    ]


def test_judge_verdicts_are_deterministic_but_vary_across_prompts():
    outputs = [
        polistemic_responder(
            judge_request(Rubric.IMPARTIALITY, Environment.BASELINE, f"answer {i} [1].")
        )
        for i in range(20)
    ]
    again = polistemic_responder(
        judge_request(Rubric.IMPARTIALITY, Environment.BASELINE, "answer 0 [1].")
    )
    assert again == outputs[0]
    words = " ".join(outputs)
    assert "Yes" in words and "No" in words
    assert len(set(outputs)) > 1


def test_judge_json_follows_an_answers_array_schema():
    schema = {
        "type": "object",
        "properties": {
            "answers": {"type": "array", "items": {"type": "string", "enum": ["Yes", "No"]}}
        },
        "required": ["answers"],
    }
    fmt = {"type": "json_schema", "json_schema": {"name": "verdicts", "schema": schema}}
    prompt = judge_request(Rubric.FAITHFULNESS, Environment.NOISY, "x [1].", response_format=fmt)
    answers = json.loads(polistemic_responder(prompt))["answers"]
    assert len(answers) == len(sub_questions(Rubric.FAITHFULNESS, Environment.NOISY))
    assert set(answers) <= {"Yes", "No"}
    plain = polistemic_responder(judge_request(Rubric.FAITHFULNESS, Environment.NOISY, "x [1]."))
    assert [
        line.split(". ")[1] for line in plain.splitlines()
    ] == answers  # same verdicts either way


def test_judge_json_follows_keyed_boolean_properties_and_json_object():
    keys = [q.key for q in sub_questions(Rubric.EPISTEMIC_CALIBRATION, Environment.VAGUE)]
    schema = {"type": "object", "properties": {k: {"type": "boolean"} for k in keys}}
    fmt = {"type": "json_schema", "json_schema": {"name": "v", "schema": schema}}
    prompt = judge_request(
        Rubric.EPISTEMIC_CALIBRATION, Environment.VAGUE, "x", response_format=fmt
    )
    answer = json.loads(polistemic_responder(prompt))
    assert list(answer) == keys
    assert all(isinstance(v, bool) for v in answer.values())

    prompt = judge_request(
        Rubric.EPISTEMIC_CALIBRATION,
        Environment.VAGUE,
        "x",
        response_format={"type": "json_object"},
    )
    assert len(json.loads(polistemic_responder(prompt))["answers"]) == len(keys)


def test_judge_with_a_forced_tool_answers_its_parameters_with_the_same_verdicts():
    from polistemics.judging.prompt import verdict_schema

    n = len(sub_questions(Rubric.IMPARTIALITY, Environment.BASELINE))
    tool = {"type": "function", "function": {"name": "v", "parameters": verdict_schema(n)}}
    prompt = judge_request(
        Rubric.IMPARTIALITY,
        Environment.BASELINE,
        "x [1].",
        tools=[tool],
        tool_choice={"type": "function", "function": {"name": "v"}},
    )
    answer = json.loads(polistemic_responder(prompt))
    assert list(answer) == [f"q{i}" for i in range(1, n + 1)]
    plain = polistemic_responder(judge_request(Rubric.IMPARTIALITY, Environment.BASELINE, "x [1]."))
    assert [line.split(". ")[1] for line in plain.splitlines()] == list(answer.values())


def test_count_questions_stops_at_a_folded_user_message():
    text = "Questions:\n1. A?\n2. B?\n\nQUERY: q\n1. not a question"
    assert count_questions(text) == 2
    assert count_questions("no list here") == 0


# ---- task answer -------------------------------------------------------------------------------


def task_request(language: str, context: str) -> dict:
    system = render("task_system", language=language, context=context)
    user = render("task_user", party_name="SP", statement_text="De AOW-leeftijd moet omlaag")
    return request(system, user)


def test_task_answer_cites_the_context_in_the_requested_language():
    answer = polistemic_responder(task_request("Dutch", "[1] De SP wil de AOW-leeftijd verlagen."))
    assert "[1]" in answer
    assert "SP" in answer and "De AOW-leeftijd moet omlaag" in answer
    assert guess_language(answer) == "nl"
    english = polistemic_responder(task_request("English", "[1] The SP wants a lower pension age."))
    assert "[1]" in english and guess_language(english) == "en"


def test_task_answer_admits_absent_context():
    answer = polistemic_responder(task_request("German", ABSENT_SENTINEL))
    assert answer.startswith("Der bereitgestellte Kontext enthält keine Informationen")


def test_unrecognised_prompts_get_a_generic_cited_answer():
    answer = polistemic_responder({"messages": [{"role": "user", "content": "hello"}]})
    assert "[1]" in answer


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("The party wants to lower the tax and it is not happy with the current rules.", "en"),
        ("Die Partei will die Steuer senken und ist mit den Regeln nicht zufrieden.", "de"),
        ("De partij wil de belasting verlagen en is niet tevreden met de regels.", "nl"),
        ("", "en"),
    ],
)
def test_guess_language(text, language):
    assert guess_language(text) == language


# ---- repeat flips ------------------------------------------------------------------------------


def yes_no(text: str) -> list[str]:
    return [line.split(". ")[1] for line in text.splitlines()]


def test_repeat_flip_responder_answers_first_calls_as_the_default_one():
    responder = RepeatFlipResponder(0.5, seed=1)
    prompt = judge_request(Rubric.FAITHFULNESS, Environment.NOISY, "x [1].")
    assert responder(prompt) == polistemic_responder(prompt)
    task = request("You answer questions.", "What is X's position?")
    assert responder(task) == responder(task) == polistemic_responder(task)
    assert responder.repeat_verdicts == 0  # only judge repeats count


def test_repeat_flip_responder_flips_the_scripted_share_on_repeats():
    responder = RepeatFlipResponder(0.2, seed=3)
    prompts = [
        judge_request(Rubric.FAITHFULNESS, Environment.NOISY, f"answer {i} [1].")
        for i in range(400)
    ]
    first = [yes_no(responder(p)) for p in prompts]
    second = [yes_no(responder(p)) for p in prompts]
    third = [yes_no(responder(p)) for p in prompts]
    differ = sum(
        a != b for x, y in zip(first, second, strict=True) for a, b in zip(x, y, strict=True)
    )
    total = sum(map(len, first))
    assert differ == responder.flips - sum(
        a != b for x, z in zip(first, third, strict=True) for a, b in zip(x, z, strict=True)
    )
    assert responder.repeat_verdicts == 2 * total
    assert abs(differ / total - 0.2) < 0.03  # ~2,000 verdicts
    assert second != third  # each repeat draws its own flips
    # Seeded: a fresh responder with the same seed flips the same verdicts.
    again = RepeatFlipResponder(0.2, seed=3)
    assert [yes_no(again(p)) for p in prompts] == first
    assert [yes_no(again(p)) for p in prompts] == second


def test_repeat_flip_responder_flips_json_verdicts_and_refuses_a_bad_rate():
    fmt = {"type": "json_object"}
    prompt = judge_request(Rubric.FAITHFULNESS, Environment.NOISY, "x [1].", response_format=fmt)
    responder = RepeatFlipResponder(1.0)
    first, second = (json.loads(responder(prompt))["answers"] for _ in range(2))
    assert first == json.loads(polistemic_responder(prompt))["answers"]
    assert all(a != b for a, b in zip(first, second, strict=True))
    with pytest.raises(ValueError, match="flip_rate"):
        RepeatFlipResponder(1.5)


# ---- samples that drift (self-consistency) ------------------------------------------------------


def test_sampled_answers_drift_by_seed_only_above_temperature_zero():
    responder = SampleDriftResponder(share=0.5, seed=3)
    base = task_request("English", "[1] The SP wants a lower pension age.")
    plain = polistemic_responder(base)
    answers = {seed: responder({**base, "temperature": 0.7, "seed": seed}) for seed in range(20)}
    drifted = {seed for seed, text in answers.items() if text == plain + SAMPLE_DRIFT}
    assert drifted and len(drifted) < 20  # some samples drift, not all
    assert all(answers[s] == plain for s in set(answers) - drifted)
    full = "\n".join(m["content"] for m in base["messages"])
    assert drifted == {s for s in range(20) if responder.drifts(full, s, 0.7)}
    assert responder.drifted == len(drifted)
    # temperature 0, or no seed: every sample alike
    assert responder({**base, "temperature": 0.0, "seed": min(drifted)}) == plain
    assert responder({**base, "temperature": 0.7}) == plain
    assert coded_stance(plain + SAMPLE_DRIFT) == "both" != coded_stance(plain)


def test_a_drifted_answer_flips_the_first_verdict_only():
    responder = SampleDriftResponder(share=1.0)
    env, rubric = Environment.BASELINE, Rubric.FAITHFULNESS
    answer = "According to the provided context, SP supports the statement [1]."
    plain = responder(judge_request(rubric, env, answer))
    drifted = responder(judge_request(rubric, env, answer + SAMPLE_DRIFT))
    assert plain == polistemic_responder(judge_request(rubric, env, answer))
    lines, flipped = plain.splitlines(), drifted.splitlines()
    assert len(lines) == len(sub_questions(rubric, env)) > 1
    assert flipped[0] != lines[0] and flipped[1:] == lines[1:]
