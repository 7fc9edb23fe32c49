"""Contradictory and Counterfactual rebuilt from the authors' Dutch release (needs ../shared)."""

import asyncio
import json

import pytest

from polistemics.conditions import Environment
from polistemics.environments.build import build_environments
from polistemics.environments.conflict import select_conflict_parties
from polistemics.runlog.release_io import read_release_evidence

pytestmark = pytest.mark.shared


def release_choices(path) -> dict[tuple[str, str], str]:
    """(observation, environment) -> party whose Baseline evidence the release borrowed.

    Found independently of our reader: the borrowed chunk is that party's Baseline chunk with the
    party's name replaced by the target party's name.
    """
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    baseline = {(r["party_id"], r["statement_id"]): r for r in rows if r["ie_name"] == "baseline"}
    chosen = {}
    for r in rows:
        if r["ie_name"] == "ie_consistency_contradiction":
            borrowed = r["ie_chunks"][1]
        elif r["ie_name"] == "ie_prior_conflict":
            borrowed = r["ie_chunks"][0]
        else:
            continue
        matches = [
            pid
            for (pid, sid), b in baseline.items()
            if sid == r["statement_id"]
            and b["ie_chunks"][0].replace(b["party_name"], r["party_name"]) == borrowed
        ]
        assert len(matches) == 1, r["observation_id"]
        chosen[(r["observation_id"], r["ie_name"])] = matches[0]
    return chosen


def test_rebuilt_conflict_environments_match_the_release(release_dir):
    path = release_dir / "ground_truth.jsonl"
    evidence = read_release_evidence(path)
    assert len(evidence) == 240
    wanted = [Environment.CONTRADICTORY, Environment.COUNTERFACTUAL]
    result = asyncio.run(build_environments(evidence, environments=wanted))
    assert [(s.kept, s.dropped) for s in result.summaries] == [(232, 8), (232, 8)]

    release = release_choices(path)
    selection = select_conflict_parties(evidence)
    counts = {"unique": 0, "tied": 0, "agree_unique": 0, "agree_tied": 0}
    for item in result.items:
        choice = selection.choices[item.observation_id]
        tied = (
            choice.closest_is_tied
            if item.environment is Environment.CONTRADICTORY
            else choice.farthest_is_tied
        )
        agree = item.conflict_party_id == release[(item.observation_id, item.environment.value)]
        counts["tied" if tied else "unique"] += 1
        counts["agree_tied" if tied else "agree_unique"] += agree
    assert counts["unique"] + counts["tied"] == 464
    assert counts["agree_unique"] == counts["unique"]
    # Our tie rule (closest: smallest party id; farthest: largest) reproduces the release's too.
    assert counts["agree_tied"] == counts["tied"] == 29


def test_rebuilt_rows_are_the_release_rows(release_dir):
    """Not only the party: the chunk texts, order and expected stance equal the release's."""
    path = release_dir / "ground_truth.jsonl"
    rows = {
        (r["observation_id"], r["ie_name"]): r
        for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())
    }
    wanted = [Environment.BASELINE, Environment.CONTRADICTORY, Environment.COUNTERFACTUAL]
    result = asyncio.run(build_environments(read_release_evidence(path), environments=wanted))
    for item in result.items:
        row = rows[(item.observation_id, item.environment.value)]
        assert [c.text for c in item.chunks] == row["ie_chunks"]
        assert item.evidence_index == row["evidence_index"]
        expected = item.expected_stance.value if item.expected_stance else None
        assert expected == row["expected_stance"]
