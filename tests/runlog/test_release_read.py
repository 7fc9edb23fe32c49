"""Reading the authors' Dutch release (needs ../shared)."""

from collections import Counter

import pytest

from polistemics.conditions import Environment, Variant
from polistemics.environments.baseline import build_baseline_items
from polistemics.records import PARTY_PLACEHOLDER
from polistemics.runlog.release_io import read_release_evidence, read_release_items

pytestmark = pytest.mark.shared


def test_full_release_reads_with_provenance(release_dir):
    items = read_release_items(release_dir / "ground_truth.jsonl")
    assert len(items) == 1424
    counts = Counter(i.environment for i in items)
    assert counts[Environment.CONTRADICTORY] == counts[Environment.COUNTERFACTUAL] == 232
    assert all(i.variant is Variant.FULL and i.language == "Dutch" for i in items)
    for item in items:
        if item.environment is Environment.NOISY:
            roles = [(c.role, c.party_id == item.party_id) for c in item.chunks]
            assert roles[item.evidence_index] == ("target", True)
        if item.environment in (Environment.CONTRADICTORY, Environment.COUNTERFACTUAL):
            assert item.conflict_party_id and item.conflict_party_id != item.party_id
            assert item.chunks[-1].party_id == item.conflict_party_id
            assert all(c.role == "target" for c in item.chunks)


def test_evidence_has_the_placeholder_back(release_dir):
    evidence = read_release_evidence(release_dir / "ground_truth.jsonl")
    assert len(evidence) == 240
    assert all(
        PARTY_PLACEHOLDER in ev.text and ev.position.party.name not in ev.text for ev in evidence
    )


def test_ablation_folders_match_our_ablations(release_dir):
    evidence = read_release_evidence(release_dir / "ground_truth.jsonl")
    anon = read_release_items(release_dir / "anon_v1" / "ground_truth.jsonl")
    assert {i.variant for i in anon} == {Variant.ANONYMIZED}
    ours = {i.observation_id: i for i in build_baseline_items(evidence, Variant.ANONYMIZED)}
    for item in anon:
        if item.environment is Environment.BASELINE:
            assert item.chunks == ours[item.observation_id].chunks
    english = read_release_items(release_dir / "en_v1" / "ground_truth.jsonl")
    assert {(i.variant, i.output_language) for i in english} == {(Variant.ENGLISH, "English")}
    ours_en = {i.observation_id: i for i in build_baseline_items(evidence, Variant.ENGLISH)}
    assert all(i.chunks == ours_en[i.observation_id].chunks for i in english)
