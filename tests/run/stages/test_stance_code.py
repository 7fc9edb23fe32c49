"""The stance-coding stage's choices: which answers and probe answers the coder reads, an
unreadable reply retried once then recorded missing (never guessed), and run.json's counts."""

from __future__ import annotations

import asyncio

from fakes import Call, ScriptedCompleter
from polistemics.conditions import Environment, Variant
from polistemics.environments.conflict import swapped_order_items
from polistemics.llm.registry import ModelEndpoint
from polistemics.records import Party, Position, Stance, Statement
from polistemics.run.config import RunConfig
from polistemics.run.stages.stance_code import coding_subjects, run_coding, summarise_codes
from polistemics.runlog import Answer, ProbeAnswer
from polistemics.runlog.items import Chunk, EnvironmentItem

CONFIG = RunConfig(
    name="x",
    elections=[{"source": "demo"}],
    targets=["t"],
    judges=["j"],
    standardiser="w",
    vague_generator="w",
    vague_auditor="w",
    stance_coder=["coder"],
    coding_environments=["Absent", "Counterfactual"],
    prior_probe=True,
    contradictory_swapped="all",
)


def item(env: Environment, observation: str = "o1", **fields) -> EnvironmentItem:
    chunks = (
        []
        if env is Environment.ABSENT
        else [
            Chunk(text="A supports it.", role="target", party_id="p", statement_id="s"),
            Chunk(text="A opposes it.", role="target", party_id="q", statement_id="s"),
        ]
    )
    return EnvironmentItem(
        observation_id=observation,
        election_id="e",
        party_id="p",
        party_name="Party P",
        party_anonymized="Party A",
        statement_id="s",
        statement_text="Statement.",
        stance_label=Stance.AGREE,
        environment=env,
        language="English",
        output_language="English",
        chunks=chunks,
        evidence_index=0,
        **fields,
    )


def answer(key: str, text: str | None = "It supports it.", sample: int = 0) -> Answer:
    return Answer(
        item_key=key,
        model="t",
        sample_index=sample,
        status="ok" if text is not None else "error",
        text=text,
    )


POSITION = Position(
    election_id="e",
    country="xx",
    language="English",
    party=Party(id="p", name="Party P", anonymized_label="Party A"),
    statement=Statement(id="s", number=1, text="Statement."),
    stance=Stance.AGREE,
)


def probe(text: str | None) -> ProbeAnswer:
    return ProbeAnswer(
        election_id="e",
        party_id="p",
        statement_id="s",
        model="t",
        language="English",
        status="ok" if text else "error",
        text=text,
    )


def test_the_coder_reads_coded_environments_swapped_items_and_ok_probes() -> None:
    absent = item(Environment.ABSENT)
    contradictory = item(Environment.CONTRADICTORY)  # not a coded environment here
    (swapped,) = swapped_order_items([contradictory], "all")
    counterfactual = item(Environment.COUNTERFACTUAL, variant=Variant.FULL, observation="o2")
    answers = [
        answer(absent.key),
        answer(absent.key, None, sample=1),  # failed: nothing to read
        answer(contradictory.key),
        answer(swapped.key),
        answer(counterfactual.key),
    ]
    subjects = coding_subjects(
        CONFIG,
        [absent, contradictory, swapped, counterfactual],
        answers,
        [probe("It supports it."), probe(None)],
        [POSITION],
    )
    assert [(s.kind, s.subject_key, s.sample_index) for s in subjects] == [
        ("answer", absent.key, 0),
        ("answer", swapped.key, 0),
        ("answer", counterfactual.key, 0),
        ("probe", "prior|e|p|s", 0),
    ]
    assert subjects[0].context == () and subjects[-1].context is None
    assert subjects[1].context == ("A opposes it.", "A supports it.")  # as the answerer saw them
    off = CONFIG.model_copy(update={"stance_coder": []})
    assert coding_subjects(off, [absent], answers) == []


def test_an_unreadable_reply_is_asked_again_once_then_missing_and_counted() -> None:
    absent = item(Environment.ABSENT)
    other = item(Environment.ABSENT, observation="o2")

    def script(call: Call) -> str:
        if "o2-unreadable" in call.user:
            return "I cannot decide."
        return '{"stance": "agree", "outside_knowledge": "yes"}'

    completer = ScriptedCompleter(script)
    coder = ModelEndpoint(name="coder", base_url="http://127.0.0.1:9/v1", model="c")
    records = asyncio.run(
        run_coding(
            completer,
            CONFIG,
            {"coder": coder},
            [absent, other],
            [answer(absent.key), answer(other.key, "o2-unreadable")],
        )
    )
    assert len(completer.calls) == 3  # one call, and two for the unreadable reply
    good, missing = records
    assert good.stance is not None and good.stance.value == "agree" and good.attempts == 1
    assert missing.stance is None and missing.missing and missing.attempts == 2
    summary = summarise_codes(CONFIG, records, [])
    assert summary["answer"] == {
        "subjects": 2,
        "codes": 2,
        "missing": 1,
        "retried": 1,
        "no_majority": 1,
        "majority_stances": {"agree": 1},
    }
    assert summary["probe"]["subjects"] == 0
    assert summarise_codes(CONFIG.model_copy(update={"stance_coder": []}), records, []) is None


def test_compositions_are_coded_like_any_environment() -> None:
    """A composition is coded when named in coding_environments or when a part is coded."""
    config = RunConfig.model_validate(
        {
            **CONFIG.model_dump(),
            "compositions": ["ie_clarity_vague+ie_noise", "ie_consistency_contradiction+ie_noise"],
            "coding_environments": ["Absent", "Vague", "ie_consistency_contradiction+ie_noise"],
        }
    )
    vague_noisy = Environment("ie_clarity_vague+ie_noise")
    contradictory_noisy = Environment("ie_consistency_contradiction+ie_noise")
    assert config.coded_environments == [
        Environment.ABSENT,
        Environment.VAGUE,
        vague_noisy,  # its part Vague is coded
        contradictory_noisy,  # named
    ]
    items = [item(vague_noisy), item(contradictory_noisy, observation="o2")]
    items.append(item(Environment.NOISY, observation="o3"))  # not coded
    subjects = coding_subjects(config, items, [answer(i.key) for i in items], [], [POSITION])
    assert [s.subject_key for s in subjects] == [items[0].key, items[1].key]
    uncoded = RunConfig.model_validate({**config.model_dump(), "coding_environments": ["Absent"]})
    assert uncoded.coded_environments == [Environment.ABSENT]
