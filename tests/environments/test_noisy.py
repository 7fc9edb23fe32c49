import tracemalloc
from collections.abc import Sequence

import numpy as np
import pytest

from polistemics.conditions import Environment
from polistemics.environments import noisy
from polistemics.environments.embeddings import TfidfEmbedder
from polistemics.environments.noisy import (
    DISTRACTORS,
    SIMILARITY_DECIMALS,
    TARGET_INDEX,
    DistractorPicker,
    build_noisy_items,
)

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


# --- The picker against the full similarity matrix (issue 32) --------------------------------
#
# ``DistractorPicker`` computes only each observation's similarities to its candidates; the
# ranking was defined on the rounded n x n matrix. ``_matrix_picks`` is that definition as it was
# written before the picker: the whole matrix, every passage scanned for every observation.


def _matrix_ranked(candidates, row, evidence):
    def key(j):
        pos = evidence[j].position
        return (-row[j], pos.party.id, pos.statement.number, pos.statement.id)

    return sorted(candidates, key=key)


def _matrix_picks(evidence, vectors, exclude=frozenset()):
    """Every observation's (others, same) picks from the full matrix (None: excluded)."""
    v = vectors.astype(np.float64)
    matrix = np.round(v @ v.T, SIMILARITY_DECIMALS)
    picks = []
    for i, target in enumerate(ev.position for ev in evidence):
        others = [
            j
            for j, ev in enumerate(evidence)
            if ev.position.statement.id == target.statement.id
            and ev.position.party.id != target.party.id
            and ev.position.party.id not in exclude
        ]
        same = [
            j
            for j, ev in enumerate(evidence)
            if ev.position.party.id == target.party.id
            and ev.position.statement.id != target.statement.id
        ]
        if len(others) + len(same) < DISTRACTORS:
            picks.append(None)
            continue
        others = _matrix_ranked(others, matrix[i], evidence)
        same = _matrix_ranked(same, matrix[i], evidence)
        n_others = min(len(others), max(2, DISTRACTORS - len(same)))
        picks.append((others[:n_others], same[: DISTRACTORS - n_others]))
    return picks


class VectorEmbedder:
    """Fixed vectors, one per text (float64 where a test places a similarity exactly)."""

    name = "fixed"
    corpus_dependent = True

    def __init__(self, vectors: dict[str, np.ndarray]):
        self.vectors = vectors

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([self.vectors[t] for t in texts])


TEMPLATES = (
    "[PARTY] supports this measure. [PARTY] cites the costs.",
    "[PARTY] opposes this measure. [PARTY] cites fairness.",
    "[PARTY] takes no side. The measure matters to [PARTY] all the same.",
)


def _grid(parties: int, statements: int, *, unique: bool = False) -> list:
    """Every party on every statement. The texts cycle through ``TEMPLATES`` (many equal texts,
    so many similarities tie, as in the synthetic paper-scale election); ``unique`` adds the
    observation to each text."""
    rows = []
    for p in range(parties):
        pid = chr(ord("a") + p)
        for n in range(1, statements + 1):
            text = TEMPLATES[(p * 7 + n * 3) % len(TEMPLATES)]
            rows.append(evidence(pid, n, "Agree", f"{text} ({pid}{n})" if unique else text))
    return rows


def _random_vectors(world, seed: int, dim: int, levels: int = 0) -> VectorEmbedder:
    """A unit float32 vector per passage; ``levels``: entries drawn from -levels..levels (few
    distinct similarities, many exact ties)."""
    rng = np.random.default_rng(seed)
    vectors = {}
    for ev in world:
        v = rng.integers(-levels, levels + 1, dim) if levels else rng.standard_normal(dim)
        v = v.astype(np.float32)
        vectors[ev.text] = v / max(np.linalg.norm(v), np.float32(1e-6))
    return VectorEmbedder(vectors)


def _worlds() -> dict:
    grid, unique = _grid(6, 14), _grid(6, 14, unique=True)
    ragged = [ev for k, ev in enumerate(_grid(5, 9, unique=True)) if k % 4]  # short pools too
    return {
        "mini election, tfidf": (mini_election(), TfidfEmbedder()),
        "templated grid, tfidf": (grid, TfidfEmbedder()),
        "ragged grid, tfidf": (ragged, TfidfEmbedder()),
        "dense vectors": (unique, _random_vectors(unique, 1, 48)),
        "few levels": (unique, _random_vectors(unique, 2, 6, levels=1)),
        "ragged, few levels": (ragged, _random_vectors(ragged, 3, 4, levels=2)),
    }


@pytest.mark.parametrize("name", list(_worlds()))
def test_picks_are_the_full_matrix_picks(name):
    """Every observation's distractors, with and without a party excluded (as a composition
    excludes one), are the full matrix's, in the same order; so are the built items'."""
    world, embedder = _worlds()[name]
    vectors = embedder.embed([ev.text for ev in world])
    picker = DistractorPicker.of(world, embedder)
    for party in [None, *sorted({ev.position.party.id for ev in world})[:3]]:
        exclude = frozenset({party} if party else ())
        expected = _matrix_picks(world, vectors, exclude)
        assert [picker.pick(i, exclude) for i in range(len(world))] == expected
    assert any(expected) and picker.undecided == 0

    def source(j):
        return (world[j].position.party.id, world[j].position.statement.id)

    built = build_noisy_items(world, embedder).items
    assert [[(c.party_id, c.statement_id) for c in item.chunks] for item in built] == [
        [*map(source, picked[0]), source(i), *map(source, picked[1])]
        for i, picked in enumerate(_matrix_picks(world, vectors))
        if picked is not None
    ]


BOUNDARY = 0.5000005  # the largest double that rounds to 0.5 at six decimals: on the boundary


def _boundary_world(b_similarity: float):
    """Target a/1. On statement 1: b at ``b_similarity``, c exactly on the rounding boundary, d
    at 0.1; a's own statements far below. With b at 0.5, b comes first if c rounds down (a tie
    goes to the smaller party id) and c if it rounds up: the last bits of c's sum decide."""
    target = evidence("a", 1, "Agree")
    b, c, d = (evidence(p, 1, "Disagree") for p in "bcd")
    own = [evidence("a", n, "Agree") for n in (2, 3)]

    def at(x: float) -> np.ndarray:
        return np.array([x, np.sqrt(1 - x * x), 0.0])

    vectors = {target.text: np.array([1.0, 0.0, 0.0]), d.text: at(0.1)}
    vectors |= {b.text: at(b_similarity), c.text: at(BOUNDARY)}
    vectors |= {own[0].text: at(0.05), own[1].text: at(0.04)}
    return [target, b, c, d, *own], VectorEmbedder(vectors)


def test_a_value_on_a_rounding_boundary_that_decides_the_order_is_taken_from_the_matrix():
    """The picker's sum for c could round either way had the matrix summed in another order, so
    it cannot vouch for the order of b and c; it takes that pool's order from the matrix."""
    assert np.round(BOUNDARY, 6) == 0.5 < np.round(np.nextafter(BOUNDARY, 1), 6)
    world, embedder = _boundary_world(0.5)
    vectors = embedder.embed([ev.text for ev in world])
    picker = DistractorPicker.of(world, embedder)
    assert picker.pick(0) == ([1, 2], [4, 5]) == _matrix_picks(world, vectors)[0]
    assert picker.undecided == 1
    assert [picker.pick(i) for i in range(len(world))] == _matrix_picks(world, vectors)


def test_a_value_on_a_rounding_boundary_that_decides_nothing_needs_no_matrix():
    world, embedder = _boundary_world(0.9)  # b first and c second, however c rounds
    vectors = embedder.embed([ev.text for ev in world])
    picker = DistractorPicker.of(world, embedder)
    assert [picker.pick(i) for i in range(len(world))] == _matrix_picks(world, vectors)
    assert picker.undecided == 0


def test_the_picks_hold_whatever_order_the_sums_were_added_in(monkeypatch):
    """Sums that differ from the matrix's in the last bits (as another order of summation
    gives) still give the matrix's picks; trusting them without the check would not."""
    world, embedder = _boundary_world(0.5)
    expected = _matrix_picks(world, embedder.embed([ev.text for ev in world]))[0]
    summed = DistractorPicker._dot

    def last_bits_up(self, i, pool):
        dot = summed(self, i, pool)
        return dot + np.spacing(dot)

    monkeypatch.setattr(DistractorPicker, "_dot", last_bits_up)
    assert DistractorPicker.of(world, embedder).pick(0) == expected
    monkeypatch.setattr(noisy, "_decided", lambda *args: True)
    assert DistractorPicker.of(world, embedder).pick(0) != expected


def test_picking_needs_no_matrix_of_all_pairs():
    """Memory grows with the election, not with its square: picking every observation's
    distractors allocates far less than one n x n float64 matrix."""
    world = _grid(10, 150, unique=True)
    embedder = _random_vectors(world, 4, 16)
    tracemalloc.start()
    picker = DistractorPicker.of(world, embedder)
    for i in range(len(world)):
        picker.pick(i)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert picker.undecided == 0
    assert peak < len(world) ** 2 * 8 / 4


def test_a_passage_picked_again_under_the_same_label_is_one_chunk():
    items = build_noisy_items(_grid(6, 14), TfidfEmbedder()).items
    distractors = [c for item in items for c in item.chunks if c.role == "distractor"]
    shared = {id(c) for c in distractors}
    assert len(shared) < len(distractors)
    assert len(shared) == len({(c.party_id, c.statement_id, c.text) for c in distractors})
