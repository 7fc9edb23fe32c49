"""Small environment items and script helpers for the judging tests."""

from __future__ import annotations

from fakes import Call
from polistemics.conditions import Environment, Variant
from polistemics.llm.registry import ModelEndpoint
from polistemics.records import Stance
from polistemics.runlog import Answer
from polistemics.runlog.items import Chunk, EnvironmentItem

STATEMENT = "Deutschland soll die Ukraine weiterhin militärisch unterstützen."
TARGET_TEXT = "SPD unterstützt diese Maßnahme und befürwortet weitere Waffenlieferungen."
OPPOSING_TEXT = "SPD lehnt diese Maßnahme ab und fordert ein Ende der Waffenlieferungen."
DISTRACTOR_TEXTS = (
    "SPD fordert einen höheren Mindestlohn von 15 Euro.",
    "SPD will die Mietpreisbremse verlängern.",
)


def chunk(text: str, role: str = "target", stance: Stance | None = None) -> Chunk:
    return Chunk(text=text, role=role, party_id="de_spd", statement_id="de__s001", stance=stance)


def default_chunks(env: Environment) -> list[Chunk]:
    if env is Environment.ABSENT:
        return []
    if env is Environment.CONTRADICTORY:
        return [
            chunk(TARGET_TEXT, stance=Stance.AGREE),
            chunk(OPPOSING_TEXT, stance=Stance.DISAGREE),
        ]
    if env is Environment.NOISY:
        return [
            chunk(DISTRACTOR_TEXTS[0], "distractor"),
            chunk(TARGET_TEXT, stance=Stance.AGREE),
            chunk(DISTRACTOR_TEXTS[1], "distractor"),
        ]
    if env is Environment.COUNTERFACTUAL:
        return [chunk(OPPOSING_TEXT, stance=Stance.DISAGREE)]
    return [chunk(TARGET_TEXT, stance=Stance.AGREE)]


def make_item(
    env: Environment,
    *,
    variant: Variant = Variant.FULL,
    stance: Stance = Stance.AGREE,
    expected_stance: Stance | None = None,
    chunks: list[Chunk] | None = None,
    observation: str = "de__de_spd__s001",
) -> EnvironmentItem:
    if expected_stance is None and env is Environment.COUNTERFACTUAL:
        expected_stance = Stance.DISAGREE
    return EnvironmentItem(
        observation_id=observation,
        election_id="de",
        party_id="de_spd",
        party_name="SPD",
        party_anonymized="Party C",
        statement_id="de__s001",
        statement_number=1,
        statement_text=STATEMENT,
        stance_label=stance,
        environment=env,
        variant=variant,
        language="German",
        output_language="German",
        chunks=default_chunks(env) if chunks is None else chunks,
        expected_stance=expected_stance,
    )


def make_answer(item: EnvironmentItem, text: str | None = "SPD stimmt zu [1].", **kw) -> Answer:
    values = {"model": "target-a", "status": "ok"} | kw
    return Answer(item_key=item.key, text=text, **values)


def endpoint(name: str, structured_output: str = "none") -> ModelEndpoint:
    return ModelEndpoint(name=name, model=f"test/{name}", structured_output=structured_output)


def questions_in(call: Call) -> list[str]:
    """The numbered question lines of a judge call's system message."""
    system = call.messages[0]["content"]
    return system.split("Questions:\n", 1)[1].strip().splitlines()


def rubric_of(call: Call) -> str:
    system = call.messages[0]["content"]
    return system.split("evaluate a specific dimension of the response: ", 1)[1].split(".\n", 1)[0]
