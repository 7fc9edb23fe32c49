"""``annotation_stats`` on a run with scripted labels: design, agreement, humans vs judges and
the PPI-corrected scores, end to end from the store and the run files; and the CLI command."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from polistemics.annotate.sample import SampleOptions, draw_sample
from polistemics.annotate.stats import NO_LABELS, NO_SAMPLE, annotation_stats
from polistemics.annotate.store import AnnotationStore
from polistemics.annotate.versus import PANEL
from polistemics.cli import app
from polistemics.conditions import Environment
from polistemics.rubrics import BY_KEY
from polistemics.runlog import RunDir

from .stats_run import build_stats_run
from .test_ppi import import_ppi_py


def _verdicts(run: Path) -> dict[tuple, dict[int, dict[str, bool]]]:
    """(item_key, model, rubric) -> panel position -> sub-question code -> Yes."""
    found: dict[tuple, dict[int, dict[str, bool]]] = {}
    for record in RunDir(run).read_judge_records() or []:
        unit = (record.item_key, record.model, record.rubric.value)
        found.setdefault(unit, {})[record.panel_position] = {
            BY_KEY[k].code: bool(v) for k, v in record.says_yes.items()
        }
    return found


def _majority(seats: dict[int, dict[str, bool]]) -> dict[str, bool]:
    return {code: sum(s[code] for s in seats.values()) >= 2 for code in seats[0]}


def _label(run: Path, who: str, pick, items: int | None = None) -> dict[str, dict[str, bool]]:
    """``who`` labels the sample (the first ``items``) with ``pick(panel seats)``."""
    verdicts = _verdicts(run)
    given = {}
    with AnnotationStore.open(run) as store:
        for item in store.sample()[:items]:
            answer = pick(verdicts[(item.item_key, item.model, item.rubric.value)])
            for code, yes in answer.items():
                store.add_label(who, item.sample_id, code, yes)
            given[item.sample_id] = answer
    return given


@pytest.fixture
def run(tmp_path: Path) -> Path:
    return build_stats_run(tmp_path / "run")


def test_no_sample_and_no_labels_said_plainly(tmp_path: Path, run: Path) -> None:
    bare = build_stats_run(tmp_path / "bare", sample=False)
    assert annotation_stats(bare).message == NO_SAMPLE
    stats = annotation_stats(run)
    assert not stats.has_labels and stats.message == NO_LABELS
    assert stats.n_sample > 0 and stats.design["drawn"].sum() == stats.n_sample
    assert stats.rubric_scores.empty and stats.emi.empty
    json.dumps(stats.to_json())


def test_sample_design_weights_add_up_to_the_population(run: Path) -> None:
    stats = annotation_stats(run)
    # 80 answers: 40 Baseline x 3 rubrics + 40 Absent x 1 = 160 units.
    assert stats.design["population"].sum() == 160
    assert set(stats.design["judges_agreed"]) <= {True, False}


def test_humans_copying_the_panel_majority_correct_nothing(run: Path) -> None:
    _label(run, "ann", _majority)
    stats = annotation_stats(run)
    assert stats.has_labels and stats.n_labelled_items == stats.n_sample
    rows = stats.rubric_scores
    assert len(rows) == 8  # 2 models x (3 Baseline rubrics + 1 Absent)
    corrected = rows[rows["n_labelled"] >= 2]
    assert len(corrected) >= 5
    assert np.allclose(corrected["difference"], 0.0, atol=1e-12)
    assert rows.loc[rows["n_labelled"] < 2, "corrected"].isna().all()
    panel = stats.versus["all"].set_index("judge").loc[PANEL]
    assert panel["accuracy"] == 1.0 and panel["fp"] == 0 and panel["fn"] == 0
    # No overlap yet: no human-human figures.
    assert stats.agreement.iloc[-1]["n_items"] == 0


def test_second_annotator_copying_judge_a(run: Path) -> None:
    ann = _label(run, "ann", _majority)
    bob = _label(run, "bob", lambda seats: seats[0], items=12)
    stats = annotation_stats(run)
    assert stats.annotators == ["ann", "bob"] and stats.n_labels == sum(
        len(v) for v in (*ann.values(), *bob.values())
    )
    same = [ann[s][c] == bob[s][c] for s in bob for c in bob[s]]
    pooled = stats.agreement.iloc[-1]
    assert pooled["n_items"] == len(same)
    assert pooled["percent_agreement"] == pytest.approx(np.mean(same))
    # Ties (ann != bob) are left out; where they agree the majority is the panel's.
    assert stats.n_ties == len(same) - sum(same)
    panel = stats.versus["all"].set_index("judge").loc[PANEL]
    assert panel["accuracy"] == 1.0
    judge_a = stats.versus["all"].set_index("judge").loc["0:judge-a"]
    assert judge_a["n"] == panel["n"]


def test_corrected_scores_equal_ppi_python_end_to_end(run: Path) -> None:
    ppi_py = import_ppi_py()
    ann = _label(run, "ann", lambda seats: seats[1])  # humans agree with judge-b
    stats = annotation_stats(run)
    verdicts = _verdicts(run)
    env = Environment.ABSENT
    key = "epistemic_calibration"

    def score(answer: dict[str, bool]) -> float:
        return float(np.mean([BY_KEY[_key(c)].passes(y, env) for c, y in answer.items()]))

    with AnnotationStore.open(run) as store:
        sample = [
            i
            for i in store.sample()
            if i.model == "target-a" and i.environment is env and i.rubric.value == key
        ]
    population = [
        score(_majority(seats))
        for (item_key, model, rubric), seats in verdicts.items()
        if model == "target-a" and rubric == key and item_key.endswith(f"|{env.value}|full")
    ]
    human = np.array([score(ann[i.sample_id]) for i in sample])
    predicted = np.array([score(_majority(verdicts[(i.item_key, i.model, key)])) for i in sample])
    weights = np.array([i.weight for i in sample])
    low, high = ppi_py.ppi_mean_ci(
        human, predicted, np.array(population), alpha=0.05, lam=1, w=weights
    )
    row = stats.rubric_scores.set_index(["model", "environment", "rubric"]).loc[
        ("target-a", env.value, key)
    ]
    assert row["n_answers"] == len(population) == 20 and row["n_labelled"] == len(sample)
    assert row["panel"] == pytest.approx(np.mean(population))
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((float(low[0]), float(high[0])))
    # Absent has one rubric: its Adherence Index is that score; the EMI combines both IEs.
    adherence = stats.adherence.set_index(["model", "environment"]).loc[("target-a", env.value)]
    assert adherence["corrected"] == pytest.approx(row["corrected"])
    emi = stats.emi.set_index("model").loc["target-a"]
    both = stats.adherence[stats.adherence["model"] == "target-a"]["corrected"]
    assert emi["corrected"] == pytest.approx(math.sqrt(both.prod()))
    assert emi["ci_low"] < emi["corrected"] < emi["ci_high"]


def _key(code: str) -> str:
    return next(k for k, sq in BY_KEY.items() if sq.code == code)


def test_cli_text_and_json(run: Path) -> None:
    runner = CliRunner()
    empty = runner.invoke(app, ["annotate", "stats", str(run)])
    assert empty.exit_code == 0, empty.output
    assert "No human labels yet" in empty.output
    _label(run, "ann", _majority)
    text = runner.invoke(app, ["annotate", "stats", str(run)])
    assert text.exit_code == 0, text.output
    assert "Corrected Rubric Scores" in text.output and "panel majority" in text.output
    as_json = runner.invoke(app, ["annotate", "stats", str(run), "--json"])
    payload = json.loads(as_json.output)
    assert payload["n_labels"] > 0 and payload["message"] is None
    assert payload["tables"]["corrected_rubric_scores"][0]["difference"] == pytest.approx(0.0)
    missing = runner.invoke(app, ["annotate", "stats", str(run / "nowhere")])
    assert missing.exit_code == 2 and "no such run directory" in missing.output


def test_with_the_real_sampler(tmp_path: Path) -> None:
    """The sample ``annotate sample`` draws (split items oversampled, uneven weights) feeds the
    statistics: labels copying the panel majority correct nothing, and the design's populations
    add up to the judged units."""
    run = build_stats_run(tmp_path / "run", sample=False)
    items, _ = draw_sample(run, SampleOptions(n=60, seed=2, overlap=2, overlap_share=0.2))
    with AnnotationStore.open(run) as store:
        store.write_sample(items)
    _label(run, "ann", _majority)
    _label(run, "bob", _majority, items=20)
    stats = annotation_stats(run)
    assert stats.design["population"].sum() == 160 and stats.design["drawn"].sum() == 60
    assert len(set(stats.design["weight"].round(6))) > 1  # oversampling: uneven weights
    pooled = stats.agreement.iloc[-1]
    assert pooled["n_items"] > 0 and pooled["percent_agreement"] == 1.0
    corrected = stats.rubric_scores_pooled.dropna(subset=["corrected"])
    assert len(corrected) == 4
    assert np.allclose(corrected["difference"], 0.0, atol=1e-12)


def test_labels_given_after_a_reveal_are_not_counted(run: Path) -> None:
    """Issue 27: labels given once the panel's verdicts were shown (to their annotator, or on
    their item to anyone) are not blind; the statistics leave them out and say how many."""
    _label(run, "ann", lambda seats: seats[0], items=6)
    before = annotation_stats(run)
    with AnnotationStore.open(run) as store:
        sample = store.sample()
        revealed, later = sample[0], sample[7]
        store.record_reveal("ann", revealed.sample_id)
        # Labels that reached the store anyway (a writer that does not check): another name on
        # the revealed item, and the annotator who saw it on an item of theirs.
        late = [("peek", revealed.sample_id, sq.code) for sq in revealed.sub_questions]
        late += [("ann", later.sample_id, sq.code) for sq in later.sub_questions]
        with store._lock:
            store._db.executemany(
                "INSERT INTO annotation_labels VALUES (?, ?, ?, 0, NULL, "
                "'2026-01-01T00:00:00+00:00', 'import')",
                late,
            )
    after = annotation_stats(run)
    assert after.n_labels == before.n_labels
    assert after.annotators == ["ann"] and after.n_labelled_items == before.n_labelled_items
    columns = ["corrected", "ci_low", "ci_high"]
    assert after.rubric_scores[columns].equals(before.rubric_scores[columns])
    assert f"{len(late)} labels given after the panel's verdicts were shown" in after.notes[0]
    assert "not counted" in after.notes[0]
