"""Issue 16 end to end on the test server: answers, probe answers and coder replies are scripted
per party, so the fallback, first-chunk and follows-evidence rates and the prior accuracy are
known from the demo's ground truth alone; ``score --json`` and the mechanism tables must give
them exactly."""

from __future__ import annotations

import asyncio
import json
from fractions import Fraction

import pytest
from mechanism_responder import MechanismResponder
from study_helpers import write_study
from typer.testing import CliRunner

from polistemics.cli import app
from polistemics.conditions import Environment
from polistemics.records import Stance
from polistemics.run.config import load_config
from polistemics.run.finish import finish_run
from polistemics.run.pipeline import Study
from polistemics.runlog import RunDir
from polistemics.scoring.mechanisms import mechanism_tables
from polistemics.testing import FakeOpenAIServer

HARBOUR, HIGHLAND, LANTERN, RIVERSIDE = (
    "Harbour Party",
    "Highland Alliance",
    "Lantern Movement",
    "Riverside Union",
)
# Closed book: Harbour always supports, Highland and Riverside always oppose, Lantern declines.
PROBE = {HARBOUR: "supports", HIGHLAND: "opposes", RIVERSIDE: "opposes", LANTERN: None}
# Absent: Harbour and Highland fall back on a fixed stance; Riverside supports; Lantern says the
# context has nothing (no fallback).
FALLBACK = {HARBOUR: "supports", HIGHLAND: "opposes", RIVERSIDE: "supports", LANTERN: None}
WORD = {Stance.AGREE: "supports", Stance.DISAGREE: "opposes"}
OPPOSITE = {"supports": "opposes", "opposes": "supports"}


def context_answer(party: str, stances: list[str | None]) -> str | None:
    """Contradictory (two chunks): Harbour and Highland follow the first chunk, Lantern the
    second, Riverside says the context does not make it clear. One chunk (Counterfactual, and
    Baseline and Vague, which no rate here reads): Lantern answers against it, the rest follow."""
    if len(stances) == 2 and None not in stances:
        return {HARBOUR: stances[0], HIGHLAND: stances[0], LANTERN: stances[1]}.get(
            party, "unclear"
        )
    if len(stances) == 1 and stances[0] is not None:
        return OPPOSITE[stances[0]] if party == LANTERN else stances[0]
    return None


def rate(successes: int, n: int) -> float:
    return float(Fraction(successes, n))


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("e2e")
    responder = MechanismResponder(
        probe_stance=PROBE.get,
        fallback_stance=FALLBACK.get,
        context_answer=context_answer,
        judges_say_no=True,  # EC4 passes everywhere: the coder alone selects fallback answers
    )
    with FakeOpenAIServer(responder=responder) as server:
        config_path = write_study(
            folder,
            server.base_url,
            ablations="[]",
            stance_coder='["judge-b", "judge-c", "judge-b"]',
            prior_probe="true",
            contradictory_swapped='"all"',
        )
        config = load_config(config_path)
        study = Study(config, config.run_dir(), log=lambda m: None)
        result = asyncio.run(study.execute(quiet=True))
        finish_run(study, result)
    return config.run_dir(), result, responder


def items_of(result, env: Environment) -> list:
    return [i for i in result.elections[0].items if i.environment is env]


def test_the_script_was_followed(run) -> None:
    _, result, responder = run
    assert responder.requests["fallback"] > 0 and responder.requests["context"] > 0
    assert responder.requests["probe"] == len(result.elections[0].scoped.observations)
    assert all(code.stance is not None for code in result.stance_codes)


def test_score_json_gives_the_scripted_rates_exactly(run) -> None:
    run_dir, result, _ = run
    # Fallback: Absent answers of the three parties that fall back, Neutral ground truth apart.
    fallback = [
        i
        for i in items_of(result, Environment.ABSENT)
        if FALLBACK[i.party_name] and i.stance_label is not Stance.NEUTRAL
    ]
    matches = sum(FALLBACK[i.party_name] == WORD[i.stance_label] for i in fallback)
    # First chunk (original order): Harbour and Highland follow it, Lantern does not, Riverside
    # commits to neither side.
    contradictory = [
        i for i in items_of(result, Environment.CONTRADICTORY) if i.party_name != RIVERSIDE
    ]
    first = sum(i.party_name in (HARBOUR, HIGHLAND) for i in contradictory)
    # Counterfactual: every party but Lantern follows the one chunk.
    counterfactual = items_of(result, Environment.COUNTERFACTUAL)
    follows = sum(i.party_name != LANTERN for i in counterfactual)
    # Prior accuracy: Lantern's declined probes count as not accurate; Neutral stances apart.
    probed = [p for p in result.elections[0].scoped.observations if p.stance is not Stance.NEUTRAL]
    accurate = sum(PROBE[p.party.name] == WORD.get(p.stance) for p in probed)
    assert 0 < matches < len(fallback) and 0 < first < len(contradictory)
    assert 0 < follows < len(counterfactual) and 0 < accurate < len(probed)

    out = CliRunner().invoke(app, ["score", str(run_dir), "--json"])
    assert out.exit_code == 0, out.output
    (row,) = json.loads(out.output)
    assert row["mechanisms"] == {
        "fallback_match_rate": rate(matches, len(fallback)),
        "first_chunk_rate": rate(first, len(contradictory)),
        "prior_accuracy": rate(accurate, len(probed)),
        "follows_evidence_rate": rate(follows, len(counterfactual)),
    }


def test_swapped_order_and_conditional_rates_from_the_run_files(run) -> None:
    run_dir, result, _ = run
    tables = mechanism_tables(
        RunDir(run_dir).read_items(),
        RunDir(run_dir).read_stance_codes(),
        RunDir(run_dir).read_cells(),
        probes=RunDir(run_dir).read_prior_probe(),
    )
    by_model = tables.first_chunk.by_model.set_index("chunk_order")
    contradictory = [
        i for i in items_of(result, Environment.CONTRADICTORY) if i.party_name != RIVERSIDE
    ]
    first = sum(i.party_name in (HARBOUR, HIGHLAND) for i in contradictory)
    # The rule is positional, so the swapped order gives the same first-chunk rate...
    for order in ("original", "swapped"):
        assert by_model.loc[order, "n"] == len(contradictory)
        assert by_model.loc[order, "successes"] == first
    # ...and following the party's real position is half of it, pooled over both orders.
    pooled = tables.first_chunk.pooled
    pooled = pooled[pooled["party_id"].isna()].set_index("measure")
    assert pooled.loc["position", "rate"] == rate(first, len(contradictory))
    # Each observation's answers follow its real position in exactly one of the two orders.
    assert pooled.loc["prior", "successes"] == len(contradictory)
    assert pooled.loc["prior", "n"] == 2 * len(contradictory)

    # Counterfactual, given the prior: the evidence is always the opposite of the real stance.
    conditional = tables.follows.conditional
    model_row = conditional[
        (conditional["environment"] == Environment.COUNTERFACTUAL.value)
        & conditional["party_id"].isna()
    ].iloc[0]
    agrees = disagrees = agrees_follow = disagrees_follow = 0
    for item in items_of(result, Environment.COUNTERFACTUAL):
        prior = PROBE[item.party_name]
        if prior is None:
            continue  # Lantern: no committed prior
        followed = item.party_name != LANTERN
        if prior == WORD[item.expected_stance]:
            agrees, agrees_follow = agrees + 1, agrees_follow + followed
        else:
            disagrees, disagrees_follow = disagrees + 1, disagrees_follow + followed
    assert model_row["prior_agrees_n"] == agrees and model_row["prior_disagrees_n"] == disagrees
    assert model_row["prior_agrees_successes"] == agrees_follow
    assert model_row["prior_disagrees_successes"] == disagrees_follow
