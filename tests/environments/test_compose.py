"""Combined environments (issue 30): each composition's chunk layout and its drops per rule."""

import asyncio

import pytest

from fakes import ScriptedCompleter
from polistemics.conditions import (
    ABSENT_NOISY,
    COMPOSITIONS,
    CONTRADICTORY_NOISY,
    NOISY_COUNTERFACTUAL,
    VAGUE_CONTRADICTORY,
    VAGUE_NOISY,
    Environment,
    Variant,
)
from polistemics.environments.basis import EnvironmentInputError
from polistemics.environments.build import VagueSettings, build_environments
from polistemics.environments.compose import (
    NO_OPPOSING_PARTY,
    NO_VAGUE_REWRITE,
    TOO_FEW_DISTRACTORS,
    build_composition_items,
    planned_composition_items,
)
from polistemics.environments.conflict import select_conflict_parties
from polistemics.environments.noisy import DistractorPicker
from polistemics.environments.vague import VagueRewrite
from polistemics.runlog.release_io import write_items

from .helpers import AUDITOR, ENDPOINT, always_vague, evidence, obs, table
from .test_noisy import ScoreEmbedder

# a agrees with everything; b is closest to a (one difference), c farthest (all differ).
STANCES = {"a": "AAAA", "b": "DAAA", "c": "DDDD", "d": "ADDA", "e": "AADD"}


def _world():
    """22 observations: the five parties above, f (Neutral on 1 only: no opposing party) and g
    (alone on statement 5: no opposing party and no distractor)."""
    world = table(STANCES) + [evidence("f", 1, "Neutral"), evidence("g", 5, "Agree")]
    target = next(ev for ev in world if ev.observation_id == obs("a", 1))
    scores = {
        e.text: s
        for e, s in zip(_by_ids(world, "b1 c1 d1 e1 f1"), (0.9, 0.8, 0.7, 0.6, 0.5), strict=True)
    }
    scores |= {e.text: s for e, s in zip(_by_ids(world, "a2 a3 a4"), (0.45, 0.4, 0.3), strict=True)}
    return world, DistractorPicker.of(world, ScoreEmbedder(target.text, scores))


def _by_ids(world, names: str):
    ids = [obs(name[0], int(name[1:])) for name in names.split()]
    return [next(ev for ev in world if ev.observation_id == i) for i in ids]


def _rewrites(world, skip=("e2",)):
    skipped = {obs(name[0], int(name[1:])) for name in skip}
    return [
        VagueRewrite(observation_id=ev.observation_id, mode=3, text="[PARTY] weighs it.")
        for ev in world
        if ev.observation_id not in skipped
    ]


def _build(composition, counterbalance=False):
    world, picker = _world()
    return build_composition_items(
        world,
        composition,
        selection=select_conflict_parties(world),
        rewrites=_rewrites(world),
        picker=picker,
        counterbalance_order=counterbalance,
    )


def _layout(build, who="a1"):
    item = next(i for i in build.items if i.observation_id == obs(who[0], int(who[1:])))
    rows = [(c.role, c.party_id[-1], int(c.statement_id[-3:]), c.text) for c in item.chunks]
    return item, rows


def test_vague_noisy_buries_the_rewrite_among_noisys_distractors():
    item, rows = _layout(_build(VAGUE_NOISY))
    assert [r[:3] for r in rows] == [
        ("distractor", "b", 1),
        ("distractor", "c", 1),
        ("target", "a", 1),
        ("distractor", "a", 2),
        ("distractor", "a", 3),
    ]
    assert rows[2][3] == "A-Partei weighs it." and item.chunks[2].stance is None
    assert rows[0][3].startswith("Party B says Disagree")  # other parties: anonymised labels
    assert rows[3][3].startswith("A-Partei says Agree on statement 2")
    assert item.environment is VAGUE_NOISY and item.evidence_index == 2
    assert item.vague_mode == 3 and item.expected_stance is None


def test_contradictory_noisy_keeps_the_pair_in_the_middle_and_the_conflict_party_out():
    item, rows = _layout(_build(CONTRADICTORY_NOISY))
    # b is the closest opposing party: shown as a [TARGET], so never also a distractor.
    assert [r[:3] for r in rows] == [
        ("distractor", "c", 1),
        ("distractor", "d", 1),
        ("target", "a", 1),
        ("target", "b", 1),
        ("distractor", "a", 2),
        ("distractor", "a", 3),
    ]
    assert rows[3][3].startswith("A-Partei says Disagree on statement 1")
    assert item.evidence_index == 2 and item.conflict_party_id == "de_b"


def test_contradictory_noisy_follows_contradictorys_counterbalanced_order():
    swapped = _build(CONTRADICTORY_NOISY, counterbalance=True)
    world, _ = _world()
    second = sorted(select_conflict_parties(world).choices)[1]
    item = next(i for i in swapped.items if i.observation_id == second)
    assert [c.role for c in item.chunks][2:4] == ["target", "target"]
    assert item.chunks[3].party_id == item.party_id and item.evidence_index == 3


def test_absent_noisy_shows_the_distractors_alone():
    item, rows = _layout(_build(ABSENT_NOISY))
    assert [r[:3] for r in rows] == [
        ("distractor", "b", 1),
        ("distractor", "c", 1),
        ("distractor", "a", 2),
        ("distractor", "a", 3),
    ]
    assert item.evidence_index is None and item.expected_stance is None


def test_vague_contradictory_pairs_the_rewrite_with_the_opposing_passage():
    item, rows = _layout(_build(VAGUE_CONTRADICTORY))
    assert [r[:3] for r in rows] == [("target", "a", 1), ("target", "b", 1)]
    assert rows[0][3] == "A-Partei weighs it." and item.chunks[1].stance.value == "Disagree"
    assert item.evidence_index == 0 and item.vague_mode == 3


def test_noisy_counterfactual_buries_the_farthest_partys_passage():
    item, rows = _layout(_build(NOISY_COUNTERFACTUAL))
    assert [r[:3] for r in rows] == [
        ("distractor", "b", 1),
        ("distractor", "d", 1),
        ("target", "c", 1),
        ("distractor", "a", 2),
        ("distractor", "a", 3),
    ]
    assert item.expected_stance.value == "Disagree" and item.conflict_party_id == "de_c"
    assert item.judged_expected_stance.value == "Disagree"


@pytest.mark.parametrize(
    ("composition", "dropped", "n_dropped"),
    [
        (VAGUE_NOISY, {NO_VAGUE_REWRITE: 1, TOO_FEW_DISTRACTORS: 1}, 2),
        (CONTRADICTORY_NOISY, {NO_OPPOSING_PARTY: 2, TOO_FEW_DISTRACTORS: 1}, 2),
        (ABSENT_NOISY, {TOO_FEW_DISTRACTORS: 1}, 1),
        (VAGUE_CONTRADICTORY, {NO_OPPOSING_PARTY: 2, NO_VAGUE_REWRITE: 1}, 3),
        (NOISY_COUNTERFACTUAL, {NO_OPPOSING_PARTY: 2, TOO_FEW_DISTRACTORS: 1}, 2),
    ],
)
def test_drops_only_under_the_parts_rules_each_counted(composition, dropped, n_dropped):
    build = _build(composition)
    assert build.counts() == dropped
    assert build.n_dropped == n_dropped and len(build.items) == 22 - n_dropped
    # g/5 fails two rules where both apply: counted under each, once in the total.
    world, _ = _world()
    planned = planned_composition_items(
        world,
        composition,
        select_conflict_parties(world),
        [r.observation_id for r in _rewrites(world)],
    )
    assert planned.counts() == dropped and len(planned.items) == len(build.items)


def test_build_environments_adds_compositions_after_the_six_with_their_counts(tmp_path):
    world, _ = _world()
    settings = VagueSettings(ScriptedCompleter(always_vague), ENDPOINT, AUDITOR)
    from polistemics.environments.embeddings import TfidfEmbedder

    result = asyncio.run(
        build_environments(
            world,
            embedder=TfidfEmbedder(),
            vague=settings,
            compositions=list(COMPOSITIONS),
        )
    )
    summary = {s.environment: (s.kept, s.dropped, s.details) for s in result.summaries}
    assert summary[VAGUE_NOISY] == (21, 1, {NO_VAGUE_REWRITE: 0, TOO_FEW_DISTRACTORS: 1})
    assert summary[VAGUE_CONTRADICTORY][:2] == (20, 2)
    first = [i.environment for i in result.items if i.observation_id == obs("a", 1)]
    assert first == [*Environment, *COMPOSITIONS]


def test_build_environments_refuses_a_composition_without_its_parts():
    world, _ = _world()
    with pytest.raises(EnvironmentInputError, match="missing: ie_noise"):
        asyncio.run(
            build_environments(
                world,
                environments=[Environment.BASELINE, Environment.VAGUE],
                compositions=[VAGUE_NOISY],
                rewrites=[],
            )
        )
    with pytest.raises(EnvironmentInputError, match="variant 'anon' has no compositions"):
        asyncio.run(
            build_environments(world, variant=Variant.ANONYMIZED, compositions=[VAGUE_NOISY])
        )


def test_similarity_values_never_decide_a_drop():
    world, picker = _world()
    selection = select_conflict_parties(world)
    for composition in COMPOSITIONS:
        kept = [
            {
                i.observation_id
                for i in build_composition_items(
                    world,
                    composition,
                    selection=selection,
                    rewrites=_rewrites(world),
                    picker=ranking,
                ).items
            }
            for ranking in (picker, DistractorPicker(world, None))
        ]
        assert kept[0] == kept[1]


def test_compositions_leave_the_six_environments_untouched(tmp_path):
    world, _ = _world()
    from polistemics.environments.embeddings import TfidfEmbedder

    def build(compositions):
        settings = VagueSettings(ScriptedCompleter(always_vague), ENDPOINT, AUDITOR)
        return asyncio.run(
            build_environments(
                world, embedder=TfidfEmbedder(), vague=settings, compositions=compositions
            )
        )

    plain, composed = build([]), build(list(COMPOSITIONS))
    six = [i for i in composed.items if not i.environment.is_composition]
    assert six == plain.items
    assert composed.summaries[:6] == plain.summaries and len(composed.summaries) == 11
    paths = [tmp_path / "plain.jsonl", tmp_path / "six.jsonl"]
    write_items(plain.items, paths[0])
    write_items(six, paths[1])
    assert paths[0].read_bytes() == paths[1].read_bytes()
