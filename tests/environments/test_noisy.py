from collections.abc import Sequence

import numpy as np

from polistemics.conditions import Environment
from polistemics.environments.embeddings import TfidfEmbedder
from polistemics.environments.noisy import TARGET_INDEX, build_noisy_items

from .helpers import evidence, mini_election, obs


class ScoreEmbedder:
    """Vectors that make cos(target, x) whatever ``scores`` says for x's text."""

    name = "scores"
    corpus_dependent = True

    def __init__(self, target_text: str, scores: dict[str, float]):
        self.target_text, self.scores = target_text, scores

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for t in texts:
            if t == self.target_text:
                rows.append([1.0, 0.0])
            else:
                s = self.scores.get(t, 0.0)
                rows.append([s, float(np.sqrt(1 - s * s))])
        return np.array(rows, dtype=np.float32)


def _world():
    """Target a/1 with five other parties on statement 1 and five other statements of a."""
    target = evidence("a", 1, "Agree")
    others = [evidence(p, 1, "Disagree") for p in "bcdef"]
    same = [evidence("a", n, "Agree") for n in range(2, 7)]
    return target, others, same


def test_layout_two_other_parties_target_in_the_middle_two_own_statements():
    target, others, same = _world()
    scores = {others[2].text: 0.9, others[4].text: 0.8, others[0].text: 0.1}
    scores |= {same[3].text: 0.7, same[1].text: 0.95, same[0].text: 0.2}
    build = build_noisy_items([target, *others, *same], ScoreEmbedder(target.text, scores))
    item = next(i for i in build.items if i.observation_id == obs("a", 1))
    assert item.environment is Environment.NOISY and item.evidence_index == TARGET_INDEX == 2
    sources = [(c.party_id, c.statement_id[-4:], c.role) for c in item.chunks]
    assert sources == [
        ("de_d", "s001", "distractor"),
        ("de_f", "s001", "distractor"),
        ("de_a", "s001", "target"),
        ("de_a", "s003", "distractor"),
        ("de_a", "s005", "distractor"),
    ]
    # Other parties under their anonymised labels, the own party under its name.
    assert item.chunks[0].text == others[2].filled("Party D")
    assert item.chunks[2].text == target.filled("A-Partei")
    assert item.chunks[3].text == same[1].filled("A-Partei")
    assert item.chunks[0].stance.value == "Disagree"


def test_ties_in_similarity_go_to_the_smaller_party_id_then_statement():
    target, others, same = _world()
    build = build_noisy_items([target, *others, *same], ScoreEmbedder(target.text, {}))
    item = next(i for i in build.items if i.observation_id == obs("a", 1))
    assert [(c.party_id, c.statement_id[-4:]) for c in item.chunks] == [
        ("de_b", "s001"),
        ("de_c", "s001"),
        ("de_a", "s001"),
        ("de_a", "s002"),
        ("de_a", "s003"),
    ]


def test_short_pool_is_made_up_from_the_other_and_target_stays_in_the_middle():
    # Only one other party on statement 1: three own-statement distractors.
    ev = [evidence("a", n, "Agree") for n in range(1, 5)] + [evidence("b", 1, "Disagree")]
    build = build_noisy_items(ev, TfidfEmbedder())
    item = next(i for i in build.items if i.observation_id == obs("a", 1))
    assert [c.party_id for c in item.chunks] == ["de_b", "de_a", "de_a", "de_a", "de_a"]
    assert item.chunks[2].role == "target" and item.chunks[1].role == "distractor"
    assert item.chunks[2].statement_id.endswith("s001")


def test_observation_with_fewer_than_four_candidates_is_excluded():
    ev = [evidence("a", 1, "Agree"), evidence("a", 2, "Agree"), evidence("b", 1, "Disagree")]
    build = build_noisy_items(ev, TfidfEmbedder())
    assert build.items == []
    assert build.excluded == [obs("a", 1), obs("a", 2), obs("b", 1)]


def test_mini_election_every_item_has_four_distractors_of_the_right_kinds():
    ev = mini_election()
    build = build_noisy_items(ev, TfidfEmbedder())
    assert len(build.items) == len(ev) and build.excluded == []
    for item in build.items:
        chunks = item.chunks
        assert chunks[2].role == "target" and chunks[2].party_id == item.party_id
        for c in chunks[:2]:
            assert c.statement_id == item.statement_id and c.party_id != item.party_id
            assert item.party_name not in c.text
        for c in chunks[3:]:
            assert c.party_id == item.party_id and c.statement_id != item.statement_id


def test_the_item_count_without_embeddings_is_the_builds() -> None:
    """``noisy_item_count`` (the dry run's) counts what ``build_noisy_items`` keeps, on worlds
    where some, none and all observations have four candidates."""
    from polistemics.environments.noisy import noisy_item_count

    short = [evidence("a", 1, "Agree"), evidence("a", 2, "Agree"), evidence("b", 1, "Disagree")]
    mixed = [evidence("a", n, "Agree") for n in range(1, 5)] + [evidence("b", 1, "Disagree")]
    target, others, same = _world()
    for world in (short, mixed, [target, *others, *same], mini_election()):
        build = build_noisy_items(world, TfidfEmbedder())
        assert noisy_item_count(world) == len(build.items)
    assert noisy_item_count(short) == 0 < noisy_item_count(mixed) < len(mixed)
