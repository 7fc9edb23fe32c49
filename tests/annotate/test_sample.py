"""Drawing the annotation sample: population, strata, oversampling of splits, weights, overlap."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from polistemics.annotate.sample import (
    SampleError,
    SampleOptions,
    _largest_remainders,
    design_of,
    draw_sample,
)

from .small_run import FAILED, build_small_run

# The small run: 9 judged answers; target-a's 13 answer x rubric units are agreed, target-b's
# 10 split (its contradictory answer failed).
POPULATION, SPLIT = 23, 10


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_small_run(tmp_path_factory.mktemp("sample") / "run")


def test_population_is_every_unit_the_whole_panel_judged(run_dir: Path) -> None:
    items, design = draw_sample(run_dir, SampleOptions(n=1000, seed=1))
    assert design.population == len(items) == POPULATION
    assert design.population_split == SPLIT
    units = {(i.item_key, i.model, i.rubric.value) for i in items}
    assert len(units) == POPULATION
    assert not any((i.item_key, i.model) == FAILED for i in items)
    assert {i.model for i in items if not i.judges_agreed} == {"target-b"}
    assert {i.model for i in items if i.judges_agreed} == {"target-a"}
    # Everything drawn: each weight is 1.
    assert {i.weight for i in items} == {1.0}


def test_split_units_are_oversampled_to_the_target_share(run_dir: Path) -> None:
    items, design = draw_sample(run_dir, SampleOptions(n=10, seed=2, split_share=0.5))
    assert sum(not i.judges_agreed for i in items) == design.drawn_split == 5
    # Proportionally that would be 10 * 10 / 23 = 4.3 split items; with 0.8 all 8 wanted fit.
    items, _ = draw_sample(run_dir, SampleOptions(n=10, seed=2, split_share=0.8))
    assert sum(not i.judges_agreed for i in items) == 8
    # More split items wanted than exist: the agreed strata take the rest.
    items, design = draw_sample(run_dir, SampleOptions(n=16, seed=2, split_share=1.0))
    assert sum(not i.judges_agreed for i in items) == SPLIT
    assert design.drawn == 16


def test_weights_are_stratum_size_over_drawn(run_dir: Path) -> None:
    everything, _ = draw_sample(run_dir, SampleOptions(n=1000, seed=0))
    sizes = Counter(i.stratum for i in everything)
    items, design = draw_sample(run_dir, SampleOptions(n=9, seed=4))
    drawn = Counter(i.stratum for i in items)
    for item in items:
        assert item.weight == sizes[item.stratum] / drawn[item.stratum]
    assert {s.stratum: s.size for s in design.strata} == dict(sizes)
    assert {s.stratum: s.drawn for s in design.strata if s.drawn} == dict(drawn)
    # The weights of a stratum's drawn items add up to its size.
    assert sum(i.weight for i in items) == pytest.approx(sum(sizes[s] for s in drawn))
    assert [(s.stratum, s.drawn, s.weight) for s in design_of(items)] == [
        (s.stratum, s.drawn, s.weight) for s in design.strata if s.drawn
    ]


def test_the_draw_is_seeded_and_ids_follow_draw_order(run_dir: Path) -> None:
    first, _ = draw_sample(run_dir, SampleOptions(n=12, seed=5))
    again, _ = draw_sample(run_dir, SampleOptions(n=12, seed=5))
    other, _ = draw_sample(run_dir, SampleOptions(n=12, seed=6))
    assert first == again
    assert first != other
    assert [i.sample_id for i in first] == [f"a{n:04d}" for n in range(1, 13)]
    assert {i.seed for i in first} == {5}


def test_overlap_share_and_size(run_dir: Path) -> None:
    items, design = draw_sample(run_dir, SampleOptions(n=20, seed=3))
    assert Counter(i.annotators_wanted for i in items) == {1: 16, 2: 4}
    assert design.items_wanting_overlap == 4
    items, _ = draw_sample(run_dir, SampleOptions(n=20, seed=3, overlap=3, overlap_share=1.0))
    assert {i.annotators_wanted for i in items} == {3}


def test_largest_remainders_is_proportional_and_capped() -> None:
    assert _largest_remainders(10, {"a": 50, "b": 30, "c": 20}) == {"a": 5, "b": 3, "c": 2}
    # 7 x (1, 100, 100) / 201 = (0.03, 3.48, 3.48): the largest remainder, then the name, wins.
    assert _largest_remainders(7, {"a": 1, "b": 100, "c": 100}) == {"a": 0, "b": 4, "c": 3}
    assert _largest_remainders(2, {"a": 1, "b": 1, "c": 1}) == {"a": 1, "b": 1, "c": 0}
    assert _largest_remainders(500, {"a": 3, "b": 4}) == {"a": 3, "b": 4}
    assert _largest_remainders(0, {"a": 3}) == {"a": 0}


def test_a_run_without_judged_answers_is_refused(run_dir: Path, tmp_path: Path) -> None:
    empty = build_small_run(tmp_path / "run")
    (empty / "judges.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(SampleError, match="no answer was judged by the whole panel"):
        draw_sample(empty, SampleOptions(n=5))


def test_options_are_checked() -> None:
    with pytest.raises(ValueError):
        SampleOptions(n=0)
    with pytest.raises(ValueError):
        SampleOptions(n=5, split_share=1.5)
    with pytest.raises(ValueError):
        SampleOptions(n=5, overlap=0)
