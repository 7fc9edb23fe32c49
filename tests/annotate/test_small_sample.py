"""The small-sample rule (issue 27): figures on fewer than 30 labelled items are flagged, in the
tables, the JSON and the terminal, and not otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from polistemics.annotate.small_sample import MIN_UNITS, flag, is_small, warning
from polistemics.annotate.stats import annotation_stats
from polistemics.cli import app

from .stats_run import build_stats_run
from .test_stats import _label, _majority


def test_the_threshold_is_thirty_labelled_items() -> None:
    assert MIN_UNITS == 30
    assert [is_small(n) for n in (0, 2, 29, 30, 31)] == [True, True, True, False, False]
    assert is_small(None) and is_small(float("nan"))
    frame = flag(pd.DataFrame({"n": [2, 30]}), "n")
    assert frame["small_sample"].tolist() == [True, False]
    assert "1 of 2 rows rest on fewer than 30 labelled items" in warning("T", frame)
    assert warning("T", frame.iloc[1:]) is None


@pytest.fixture
def run(tmp_path: Path) -> Path:
    return build_stats_run(tmp_path / "run")


def test_two_labelled_items_give_a_warning_everywhere(run: Path) -> None:
    """Issue 27: ``annotate stats`` gave "50.0 [36.1, 63.9]" from 2 labelled items, unflagged."""
    _label(run, "ann", _majority, items=2)
    stats = annotation_stats(run)
    assert stats.n_labelled_items == 2
    corrected = stats.rubric_scores_pooled.dropna(subset=["corrected"])
    assert not corrected.empty and corrected["small_sample"].all()
    for table in (stats.rubric_scores, stats.adherence, stats.emi, stats.versus["all"]):
        assert table["small_sample"].all()
    assert stats.warnings[0].startswith("only 2 sample items are fully labelled")

    runner = CliRunner()
    text = runner.invoke(app, ["annotate", "stats", str(run)])
    assert text.exit_code == 0, text.output
    assert "warning: only 2 sample items are fully labelled (fewer than 30)" in text.output
    assert "warning: Corrected Rubric Scores:" in text.output
    assert "n<30!" in text.output
    payload = json.loads(runner.invoke(app, ["annotate", "stats", str(run), "--json"]).output)
    assert payload["min_labelled_items"] == 30
    assert payload["warnings"] == stats.warnings
    rows = payload["tables"]["corrected_rubric_scores_pooled"]
    assert rows and all(row["small_sample"] is True for row in rows)


def test_enough_labelled_items_are_not_flagged(run: Path) -> None:
    """One annotator on all 80 sample items: the pooled comparison with the judges rests on 80
    items and is not flagged; two annotators on 40 items: pooled agreement neither."""
    _label(run, "ann", _majority)
    _label(run, "bob", _majority, items=40)
    stats = annotation_stats(run)
    versus = stats.versus["all"]
    assert (versus["n_items"] == stats.n_labelled_items).all() and stats.n_labelled_items >= 30
    assert not versus["small_sample"].any()
    pooled = stats.agreement.iloc[-1]
    assert pooled["n_sample_items"] == 40 and not pooled["small_sample"]
    # per model x environment x rubric only 10 of 20 answers are drawn: flagged
    assert stats.rubric_scores["small_sample"].all()
    assert not any(text.startswith("only") for text in stats.warnings)
    assert not any(text.startswith("Humans vs judges") for text in stats.warnings)
