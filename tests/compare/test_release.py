"""Comparisons on the authors' Dutch release (skipped without ../shared)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from polistemics.compare import CompareOptions, compare_pair, load_side
from polistemics.scoring.analyses import ablation_deltas
from polistemics.scoring.release import load_release

from .cells import flipped, run_dir

pytestmark = pytest.mark.shared
OPTIONS = CompareOptions(resamples=200, seed=0)
KEYS = ["environment", "party_id", "rubric", "sub_question"]


@pytest.fixture(scope="module")
def full_vs_anon(release_dir):
    full = load_side(str(release_dir))
    anon = load_side(str(release_dir / "anon_v1"))
    return compare_pair(full, anon, OPTIONS)


def test_full_vs_anon_is_paired_and_says_what_it_left_out(full_vs_anon):
    matched = full_vs_anon.matched
    assert matched.mode == "paired"
    assert matched.notes == ["variant anon (anon_v1) compared with full (nl_tk2025_full_v1)"]
    assert matched.environments == ["baseline", "ie_clarity_vague"]
    said = " | ".join(matched.left_out)
    assert "environments only in nl_tk2025_full_v1" in said
    # The release has 10 full and 21 anonymised cells without a counterpart.
    assert "10 of 15099 cells of nl_tk2025_full_v1" in said
    assert "21 of 15110 cells of anon_v1" in said
    assert len(matched.pairs) == 15089


def test_party_deltas_equal_the_ablation_deltas(full_vs_anon, release_dir):
    matched = full_vs_anon.matched
    ours = full_vs_anon.deltas.parties
    # On the paired cells: exactly the ablation deltas the report already computes.
    expected = ablation_deltas(matched.cells_a, matched.cells_b)
    joined = expected.merge(ours, on=KEYS, how="outer", indicator=True)
    assert (joined["_merge"] == "both").all()
    assert np.allclose(joined["delta_x"], joined["delta_y"], atol=1e-12)
    assert len(ours) == len(expected) == 168
    # On the whole variants (unpaired cells included), every row none of those cells touches.
    whole = ablation_deltas(
        load_release(release_dir).cells, load_release(release_dir / "anon_v1").cells
    )
    pairs = matched.pairs.loc[
        :, ["model", "environment", "observation_id", "rubric", "sub_question"]
    ]
    touched = set()
    for cells in (matched.a.cells, matched.b.cells):
        shared = cells[cells["environment"].isin(matched.environments)]
        unpaired = shared.merge(pairs, how="left", indicator=True)
        unpaired = unpaired[unpaired["_merge"] == "left_only"]
        touched |= set(map(tuple, unpaired.loc[:, KEYS].to_numpy()))
    assert 0 < len(touched) < len(whole)
    untouched = whole[[tuple(k) not in touched for k in whole.loc[:, KEYS].to_numpy()]]
    check = untouched.merge(ours, on=KEYS)
    assert len(check) == len(untouched)
    assert np.allclose(check["delta_x"], check["delta_y"], atol=1e-12)


def test_full_vs_anon_tests_are_marked_after_holm(full_vs_anon):
    for name, table in full_vs_anon.tested():
        assert {"p_value", "p_holm", "significant"} <= set(table.columns), name
        assert (table["p_holm"] >= table["p_value"] - 1e-15).all()
        assert (table["significant"] == (table["p_holm"] < 0.05)).all()


def second_election(cells: pd.DataFrame) -> pd.DataFrame:
    """A fixture 'German' election made from the Dutch cells: other election, observation and
    party ids, and 15% of the outcomes flipped (seeded)."""
    out = flipped(cells, 0.15, seed=42)
    out["observation_id"] = "de_fixture__" + out["observation_id"].str.split("__", n=1).str[
        1
    ].str.replace("nl_", "de_", regex=False)
    out["party_id"] = out["party_id"].str.replace("nl_", "de_", regex=False)
    out["election_id"] = "de_fixture"
    out["country"] = "DE"
    return out


def test_dutch_release_against_a_second_election_is_unpaired(release_dir, tmp_path):
    dutch = load_side(str(release_dir))
    german = load_side(str(run_dir(tmp_path / "de", second_election(dutch.cells))))
    result = compare_pair(german, dutch, OPTIONS)
    matched = result.matched
    assert matched.mode == "unpaired"
    assert len(matched.environments) == 6 and len(matched.models) == 3
    assert any("no shared party" in note for note in matched.left_out)
    assert result.deltas.parties.empty
    assert len(result.deltas.adherence) == 18
    assert (result.deltas.adherence["ci_low"] < result.deltas.adherence["ci_high"]).all()
    # Flipping outcomes at random pulls the fixture's rates towards 50%: the Dutch scores
    # (mostly > 80%) are higher, as in the paper's NL - DE figures.
    assert (result.deltas.emi["delta"] > 0).all()
    ranks = result.ranks
    for what in ("leaderboard", "environment_difficulty", "dispersion"):
        assert ranks[what]["n"] == (6 if what == "environment_difficulty" else 3)
    assert ranks["environment_difficulty"]["spearman"] is not None
