import asyncio
import random

import pytest

from fakes import ScriptedCompleter
from polistemics.conditions import ALL_ENVIRONMENTS, Environment, Variant
from polistemics.environments.basis import EnvironmentInputError
from polistemics.environments.build import (
    VagueSettings,
    build_environments,
    parse_environments,
)
from polistemics.environments.embeddings import CachedEmbedder, TfidfEmbedder, UseEmbedder
from polistemics.runlog.release_io import write_items

from .helpers import AUDITOR, ENDPOINT, always_vague, mini_election


def build_all(evidence, cache_dir, seed=11):
    settings = VagueSettings(ScriptedCompleter(always_vague), ENDPOINT, AUDITOR)
    embedder = CachedEmbedder(UseEmbedder(), cache_dir)
    return asyncio.run(build_environments(evidence, embedder=embedder, vague=settings, seed=seed))


def test_all_six_environments_are_byte_identical_when_rebuilt(tmp_path):
    evidence = mini_election()
    first = build_all(evidence, tmp_path / "cache1")
    second = build_all(evidence, tmp_path / "cache2")  # fresh cache: embeddings recomputed
    third = build_all(evidence, tmp_path / "cache1")  # embeddings from the cache
    paths = [tmp_path / f"run{i}.jsonl" for i in range(3)]
    for result, path in zip((first, second, third), paths, strict=True):
        write_items(result.items, path)
    assert paths[0].read_bytes() == paths[1].read_bytes() == paths[2].read_bytes()

    kept = {s.environment: (s.kept, s.dropped) for s in first.summaries}
    # Mini election: statement 4 has no opposing party (4 dropped), Alpha/3 and Delta/5 are Neutral.
    assert kept == {
        Environment.BASELINE: (20, 0),
        Environment.ABSENT: (20, 0),
        Environment.VAGUE: (20, 0),
        Environment.CONTRADICTORY: (14, 6),
        Environment.NOISY: (20, 0),
        Environment.COUNTERFACTUAL: (14, 6),
    }
    envs = [i.environment for i in first.items[:6]]
    assert envs == list(ALL_ENVIRONMENTS)


def test_reordered_or_partial_evidence_gives_the_same_items(tmp_path):
    evidence = mini_election()
    whole = {i.key: i for i in build_all(evidence, tmp_path / "c").items}
    shuffled = list(evidence)
    random.Random(5).shuffle(shuffled)
    assert {i.key: i for i in build_all(shuffled, tmp_path / "c").items} == whole
    # Vague modes do not depend on which other observations are built.
    part = build_all(evidence[:3], tmp_path / "c")
    for item in part.items:
        if item.environment is Environment.VAGUE:
            assert item.vague_mode == whole[item.key].vague_mode


def test_another_seed_draws_other_modes(tmp_path):
    evidence = mini_election()
    modes = {
        seed: [
            i.vague_mode for i in build_all(evidence, tmp_path / "c", seed).items if i.vague_mode
        ]
        for seed in (1, 2)
    }
    assert modes[1] != modes[2]


def test_variant_limits_the_environments():
    evidence = mini_election()
    result = asyncio.run(build_environments(evidence, variant=Variant.ENGLISH))
    assert {i.environment for i in result.items} == {Environment.BASELINE}
    with pytest.raises(EnvironmentInputError, match="variant 'en' has no ie_noise"):
        asyncio.run(
            build_environments(evidence, variant=Variant.ENGLISH, environments=[Environment.NOISY])
        )


def test_missing_models_are_reported():
    evidence = mini_election()
    with pytest.raises(EnvironmentInputError, match="Noisy environment needs an embedding"):
        asyncio.run(build_environments(evidence, environments=[Environment.NOISY]))
    with pytest.raises(EnvironmentInputError, match="Vague environment needs a model"):
        asyncio.run(build_environments(evidence, environments=[Environment.VAGUE]))


def test_vague_report_reaches_the_summary():
    evidence = mini_election()[:2]
    settings = VagueSettings(ScriptedCompleter(always_vague), ENDPOINT, AUDITOR)
    result = asyncio.run(
        build_environments(
            evidence, environments=[Environment.VAGUE], vague=settings, embedder=TfidfEmbedder()
        )
    )
    assert result.summaries[0].details["generated"] == 2
    assert result.vague is not None and len(result.vague.rewrites) == 2


def test_parse_environments_accepts_release_names_and_labels():
    assert parse_environments("baseline, ie_noise,Counterfactual") == [
        Environment.BASELINE,
        Environment.NOISY,
        Environment.COUNTERFACTUAL,
    ]
    with pytest.raises(EnvironmentInputError, match="unknown environment 'noise'"):
        parse_environments("noise")
