import asyncio
import json

import pytest

from fakes import Call, Script, ScriptedCompleter
from polistemics.evidence.standardise import (
    MAX_ATTEMPTS,
    OUTPUT_SCHEMA,
    STAGE,
    FailureReason,
    StandardisationInputError,
    UnparseableOutput,
    parse_standardiser_output,
    partition_by_rationale,
    standardise,
    standardise_messages,
)
from polistemics.llm.registry import ModelEndpoint
from polistemics.llm.types import CallResult
from polistemics.records import Party, Position, Stance, Statement

ENDPOINT = ModelEndpoint(name="standardiser", model="fake/standardiser", temperature=0.3)

GOOD_DE = (
    "[PARTY] lehnt diese Maßnahme ab. Die Partei hält den Vorschlag für zu teuer. "
    "Nach Ansicht von [PARTY] würden vor allem Familien belastet. Sie fordert stattdessen "
    "gezielte Entlastungen. Diese Haltung vertritt die Partei mit Nachdruck."
)
GOOD_NL = (
    "[PARTY] is tegen deze maatregel. De partij benadrukt dat demonstreren een grondrecht is. "
    "Volgens [PARTY] heeft iedereen het recht om aanwezig te zijn. Zij stellen dat de politie "
    "niemand willekeurig mag registreren. Dit ziet de partij als essentieel."
)
TOO_SHORT = "[PARTY] lehnt diese Maßnahme ab. Die Partei bleibt dabei."
NO_PLACEHOLDER = GOOD_DE.replace("[PARTY]", "Die SPD")
FIRST_PERSON = GOOD_DE.replace("Die Partei hält", "Wir halten")
STANCE_VERB = GOOD_DE.replace(
    "[PARTY] lehnt diese Maßnahme ab.", "[PARTY] [stance verb] diese Maßnahme."
)


def position(party: str, number: int, rationale: str | None, language: str = "German") -> Position:
    code = "de" if language == "German" else "nl"
    election = f"{code}_test"
    return Position(
        election_id=election,
        country=code.upper(),
        language=language,
        party=Party(id=f"{code}_{party.lower()}", name=party),
        statement=Statement(id=f"{election}__s{number:03d}", number=number, text=f"These {number}"),
        stance=Stance.DISAGREE,
        rationale=rationale,
    )


def answer(text: str, explicit: bool = True) -> str:
    return json.dumps({"third_person_rationale": text, "stance_is_explicit": explicit})


def by_rationale(replies: dict[str, list[str | CallResult]]) -> Script:
    """Answers by (observation rationale, sample_index)."""

    def script(call: Call) -> str | CallResult:
        rationale = call.messages[1]["content"].split("Rationale: ", 1)[1]
        return replies[rationale][call.sample_index]

    return script


def scripted(replies: dict[str, list[str | CallResult]], delay: float = 0.0) -> ScriptedCompleter:
    return ScriptedCompleter(by_rationale(replies), delay=delay)


def failed_call(error: str = "HTTP 503") -> CallResult:
    return CallResult(key="x", endpoint="standardiser", model="fake", status="error", error=error)


def run(observations, completer, **kwargs):
    return asyncio.run(standardise(observations, completer, ENDPOINT, **kwargs))


def test_first_answer_accepted():
    obs = [position("SPD", 1, "Wir lehnen das ab.")]
    completer = scripted({"Wir lehnen das ab.": [answer(GOOD_DE)]})
    result = run(obs, completer)
    assert [e.text for e in result.evidence] == [GOOD_DE]
    assert result.evidence[0].position == obs[0]
    assert result.excluded == []
    assert result.stats.retries_used == 0
    assert result.stats.final_size == 1
    call = completer.calls[0]
    assert call.stage == STAGE and call.sample_index == 0 and call.json_schema == OUTPUT_SCHEMA


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (answer(TOO_SHORT), FailureReason.SENTENCE_COUNT),
        (answer(NO_PLACEHOLDER), FailureReason.PLACEHOLDER),
        (answer(FIRST_PERSON), FailureReason.FIRST_PERSON),
        (answer(STANCE_VERB), FailureReason.TEMPLATE_SLOT),  # beyond App. D.2 (defect 17)
        ("Sure! Here is the rewrite: third person rationale...", FailureReason.UNPARSEABLE),
        ('{"third_person_rationale": "[PARTY] lehnt', FailureReason.UNPARSEABLE),
        (failed_call(), FailureReason.CALL_ERROR),
    ],
)
def test_each_failure_kind_is_retried_with_a_new_sample(bad, reason):
    obs = [position("SPD", 1, "Wir lehnen das ab.")]
    completer = scripted({"Wir lehnen das ab.": [bad, answer(GOOD_DE)]})
    result = run(obs, completer)
    assert [e.text for e in result.evidence] == [GOOD_DE]
    assert [c.sample_index for c in completer.calls] == [0, 1]
    attempts = result.attempts[obs[0].observation_id]
    assert attempts[0].reasons == [reason] and attempts[1].passed
    assert result.stats.retries_used == 1
    assert result.stats.observations_retried == 1
    assert result.stats.failures_by_reason == {reason.value: 1}
    assert result.stats.rejected_after_retries == 0


def test_exhausted_retries_exclude_the_observation():
    obs = [position("SPD", 1, "Wir lehnen das ab."), position("AfD", 1, "Wir sind dafür.")]
    completer = scripted(
        {
            "Wir lehnen das ab.": [
                answer(TOO_SHORT),
                failed_call(),
                answer(FIRST_PERSON),
                answer(GOOD_DE),
            ],
            "Wir sind dafür.": [answer(GOOD_DE)],
        }
    )
    result = run(obs, completer, excluded_missing_rationale=2)
    assert [e.observation_id for e in result.evidence] == [obs[1].observation_id]
    (excluded,) = result.excluded
    assert excluded.observation_id == obs[0].observation_id
    assert [a.sample_index for a in excluded.attempts] == [0, 1, 2]
    assert excluded.final_reasons == [FailureReason.FIRST_PERSON]
    # Only MAX_ATTEMPTS calls for the failing observation: the 4th scripted answer is never asked.
    assert sum(1 for c in completer.calls if "lehnen" in c.messages[1]["content"]) == MAX_ATTEMPTS
    stats = result.stats
    assert stats.raw_candidate_observations == 4
    assert stats.excluded_missing_rationale == 2
    assert stats.fed_to_standardiser == 2
    assert stats.rejected_after_retries == 1
    assert stats.final_size == 1
    assert stats.retries_used == 2
    assert stats.failures_by_reason == {"call_error": 1, "first_person": 1, "sentence_count": 1}


def test_each_checked_attempt_is_reported_as_a_first_try_or_a_retry():
    """The progress display's try hook: a rejected attempt says another follows, unless it
    was the last one allowed."""
    obs = [position("SPD", 1, "Wir lehnen das ab."), position("AfD", 1, "Wir sind dafür.")]
    completer = scripted(
        {
            "Wir lehnen das ab.": [answer(TOO_SHORT), failed_call(), answer(FIRST_PERSON)],
            "Wir sind dafür.": [answer(TOO_SHORT), answer(GOOD_DE)],
        }
    )
    tries: list[tuple[bool, bool]] = []
    run(obs, completer, on_try=lambda *, retry, again: tries.append((retry, again)))
    assert sorted(tries) == sorted(
        [
            (False, True),  # SPD: rejected, asked again
            (True, True),  # the failed call, asked again
            (True, False),  # out of attempts: finished, excluded
            (False, True),  # AfD: rejected, asked again
            (True, False),  # accepted
        ]
    )


def test_several_failures_in_one_attempt_are_all_counted():
    obs = [position("SPD", 1, "Wir lehnen das ab.")]
    bad = "Wir lehnen das ab."  # too short, no placeholder, first person
    completer = scripted({"Wir lehnen das ab.": [answer(bad), answer(GOOD_DE)]})
    result = run(obs, completer)
    assert result.stats.failures_by_reason == {
        "first_person": 1,
        "placeholder": 1,
        "sentence_count": 1,
    }


def test_statistics_split_by_language_and_election():
    obs = [
        position("SPD", 1, "Wir lehnen das ab."),
        position("SP", 1, "Wij zijn tegen.", language="Dutch"),
        position("PVV", 2, "Wij zijn ertegen.", language="Dutch"),
    ]
    completer = scripted(
        {
            "Wir lehnen das ab.": [answer(GOOD_DE)],
            "Wij zijn tegen.": [answer(GOOD_NL)],
            "Wij zijn ertegen.": [answer(GOOD_NL, explicit=False)],
        }
    )
    result = run(obs, completer)
    assert result.stats.final_by_language == {"de": 1, "nl": 2}
    assert result.stats.final_by_election == {"de_test": 1, "nl_test": 2}
    assert result.stats.stance_not_explicit == 1
    assert result.stats.table()[-1] == ("de_test / nl_test split", "1 / 2")


def test_observations_run_concurrently_and_keep_input_order():
    rationales = [f"Wir lehnen Punkt {n} ab." for n in range(6)]
    obs = [position("SPD", n + 1, r) for n, r in enumerate(rationales)]
    completer = scripted({r: [answer(GOOD_DE)] for r in rationales}, delay=0.01)
    result = run(obs, completer)
    assert completer.max_in_flight == len(obs)
    assert [e.observation_id for e in result.evidence] == [p.observation_id for p in obs]


def test_messages_follow_the_d1_prompt():
    messages = standardise_messages(position("SPD", 1, "  Wir lehnen das ab.  "))
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"].startswith("You are an expert political data standardizer.")
    assert messages[1]["content"] == "Stance: Disagree\n\nRationale: Wir lehnen das ab."


def test_missing_rationale_is_bad_input():
    with pytest.raises(StandardisationInputError, match=r"de_test__de_bsw__s001.*rationale"):
        run([position("BSW", 1, None)], scripted({}))


def test_duplicate_and_unsupported_observations_are_bad_input():
    obs = position("SPD", 1, "Wir lehnen das ab.")
    with pytest.raises(StandardisationInputError, match="given twice"):
        run([obs, obs], scripted({}))
    french = obs.model_copy(update={"language": "French"})
    with pytest.raises(StandardisationInputError, match="language"):
        run([french], scripted({}))


def test_partition_by_rationale():
    with_text, without = partition_by_rationale(
        [position("SPD", 1, "Text."), position("BSW", 1, None), position("BSW", 2, "   ")]
    )
    assert [p.party.name for p in with_text] == ["SPD"]
    assert len(without) == 2


class TestParse:
    def test_plain_json(self):
        out = parse_standardiser_output(answer(GOOD_DE))
        assert out.third_person_rationale == GOOD_DE and out.stance_is_explicit is True

    def test_code_fence(self):
        out = parse_standardiser_output(f"```json\n{answer(GOOD_DE, explicit=False)}\n```")
        assert out.third_person_rationale == GOOD_DE and out.stance_is_explicit is False

    def test_leading_and_trailing_text(self):
        out = parse_standardiser_output(f"Here you go:\n{answer(GOOD_DE)}\nHope this helps!")
        assert out.third_person_rationale == GOOD_DE

    def test_other_objects_before_the_answer_are_skipped(self):
        text = '{"note": "draft"} and then ' + answer(GOOD_DE)
        assert parse_standardiser_output(text).third_person_rationale == GOOD_DE

    def test_string_boolean_and_missing_flag(self):
        text = json.dumps({"third_person_rationale": GOOD_DE, "stance_is_explicit": "False"})
        assert parse_standardiser_output(text).stance_is_explicit is False
        text = json.dumps({"third_person_rationale": GOOD_DE})
        assert parse_standardiser_output(text).stance_is_explicit is None

    @pytest.mark.parametrize(
        "text",
        [
            None,
            "",
            "no json here",
            '{"third_person_rationale": ""}',
            '{"third_person_rationale": 5}',
            '{"rationale": "[PARTY] lehnt das ab."}',
            "```json\n{broken\n```",
        ],
    )
    def test_unusable(self, text):
        with pytest.raises(UnparseableOutput):
            parse_standardiser_output(text)
