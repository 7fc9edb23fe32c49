"""The closed-book prior probe: one context-free call per target x party x statement x sample."""

from __future__ import annotations

import asyncio

from fakes import Call, ScriptedCompleter
from polistemics.answers.prior_probe import (
    STAGE,
    election_name,
    probe_messages,
    probe_positions,
    probe_priors,
)
from polistemics.llm.registry import ModelEndpoint
from polistemics.records import Election, Party, Position, Stance, Statement


def position(party: str, number: int, language: str = "German") -> Position:
    return Position(
        election_id="de_btw",
        country="de",
        language=language,
        party=Party(id=f"de_{party}", name=party.upper(), anonymized_label="Party X"),
        statement=Statement(id=f"de__s{number:03d}", number=number, text=f"Aussage {number}."),
        stance=Stance.AGREE,
        rationale="Weil.",
    )


def endpoint(name: str) -> ModelEndpoint:
    return ModelEndpoint(name=name, base_url="http://127.0.0.1:9/v1", model=name)


def test_the_question_has_no_context_and_asks_in_the_election_language() -> None:
    messages = probe_messages(position("spd", 1), "Bundestagswahl 2025")
    system, user = (m["content"] for m in messages)
    assert "Respond in German." in system and "context" not in system.lower()
    assert user.startswith("Ahead of the Bundestagswahl 2025, what is SPD's position")
    assert '"Aussage 1."' in user


def test_a_statement_text_cannot_fill_other_placeholders() -> None:
    hostile = position("spd", 1).model_copy(
        update={"statement": Statement(id="de__s001", number=1, text="{party_name} {language}")}
    )
    user = probe_messages(hostile, "X")[1]["content"]
    assert '"{party_name} {language}"' in user


def test_election_name_falls_back_when_the_title_is_missing_or_the_id() -> None:
    def election(title: str) -> Election:
        return Election(
            id="nl_tk2025",
            country="nl",
            language="Dutch",
            language_code="nl",
            title=title,
            positions=[],
        )

    assert election_name(election("Tweede Kamer  2025")) == "Tweede Kamer 2025"
    assert election_name(election("nl_tk2025")) == "NL election"
    assert election_name(election("")) == "NL election"


def test_one_call_per_target_position_and_sample_failures_recorded() -> None:
    def script(call: Call) -> str | None:
        if "BSW" in call.user and call.sample_index == 1:
            return None
        if "AFD" in call.user:
            return "   "
        return "Sie ist dafür."

    completer = ScriptedCompleter(script)
    positions = [position("spd", 1), position("bsw", 1), position("spd", 1), position("afd", 2)]
    assert len(probe_positions(positions)) == 3  # the repeated observation is asked once
    answers = asyncio.run(
        probe_priors(
            completer, [endpoint("a"), endpoint("b")], positions, {"de_btw": "BTW"}, samples=2
        )
    )
    assert len(answers) == len(completer.calls) == 2 * 3 * 2
    assert {call.stage for call in completer.calls} == {STAGE}
    assert [(a.model, a.party_id, a.sample_index) for a in answers[:6]] == [
        ("a", "de_spd", 0),
        ("a", "de_spd", 1),
        ("a", "de_bsw", 0),
        ("a", "de_bsw", 1),
        ("a", "de_afd", 0),
        ("a", "de_afd", 1),
    ]
    failed = [a for a in answers if a.party_id == "de_bsw" and a.sample_index == 1]
    assert all(a.status == "error" and not a.ok and a.text is None for a in failed)
    empty = [a for a in answers if a.party_id == "de_afd"]
    assert all(a.status == "error" and a.error == "empty answer" for a in empty)
    good = answers[0]
    assert good.ok and good.key == "prior|de_btw|de_spd|de__s001" and good.language == "German"
    assert good.call_key
