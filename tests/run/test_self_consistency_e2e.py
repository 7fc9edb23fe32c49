"""Self-consistency end to end on the test server (issue 30, item 3): a study with samples = 3
and two targets, one sampled at temperature 0.7 whose samples drift (``SampleDriftResponder``,
seeded) and one at temperature 0 whose samples are alike. Which samples drift follows from the
responder's rule and the items' prompts alone, so the tables' flip rates, percent agreement and
stance agreement must be exactly the ones the rule implies."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import pytest
from study_helpers import write_study

from polistemics.analyses.tables import read_analysis_tables
from polistemics.environments.task_prompt import task_messages
from polistemics.rubrics import active_rubrics
from polistemics.run.config import load_config
from polistemics.run.finish import finish_run
from polistemics.run.pipeline import Study
from polistemics.runlog import RunDir
from polistemics.testing import FakeOpenAIServer
from polistemics.testing.responders import SampleDriftResponder

SAMPLES, SEED = 3, 11
TEMPERATURES = {"sampled": 0.7, "steady": 0.0}
ENVIRONMENTS = ("baseline", "ie_prior_conflict")


def write_models(folder: Path, base_url: str) -> Path:
    models = folder / "sampled-models.toml"
    rows = [(name, f"{name}-model", t, SEED) for name, t in TEMPERATURES.items()]
    rows += [(n, "fake-model", 0.0, None) for n in ("judge-a", "judge-b", "judge-c", "writer")]
    models.write_text(
        "\n".join(
            f'[models.{name}]\nbase_url = "{base_url}"\nmodel = "{model}"\n'
            f"temperature = {t}\nmax_concurrency = 8\n" + (f"seed = {seed}\n" if seed else "")
            for name, model, t, seed in rows
        )
    )
    return models


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("samples")
    responder = SampleDriftResponder(share=0.3, seed=5)
    with FakeOpenAIServer(responder=responder) as server:
        config_path = write_study(
            folder,
            server.base_url,
            targets='["sampled", "steady"]',
            ablations="[]",
            samples=str(SAMPLES),
            environments="[" + ", ".join(f'"{e}"' for e in ENVIRONMENTS) + "]",
            stance_coder='["judge-b"]',
            coding_environments="[" + ", ".join(f'"{e}"' for e in ENVIRONMENTS) + "]",
            models_file=f'"{write_models(folder, server.base_url)}"',
        )
        config = load_config(config_path)
        run = Study(config, config.run_dir(), log=lambda m: None)
        result = asyncio.run(run.execute(quiet=True))
        finish_run(run, result)
    return config, result, responder


def drift_pattern(responder: SampleDriftResponder, item, model: str) -> tuple[bool, ...]:
    """Which of an item's samples drift, from the responder's rule and the task prompt alone."""
    system, user = (m["content"] for m in task_messages(item))
    return tuple(
        responder.drifts(f"{system}\n{user}", SEED + s, TEMPERATURES[model]) for s in range(SAMPLES)
    )


def test_the_tables_give_the_rules_flips_and_agreement_exactly(study) -> None:
    config, result, responder = study
    assert {a.sample_index for a in result.answers} == set(range(SAMPLES))
    assert all(a.ok for a in result.answers)
    expected: dict[tuple[str, str], dict] = defaultdict(
        lambda: {"n": 0, "flipped": 0, "drifted": 0, "split_cells": 0, "cells": 0}
    )
    for item in result.elections[0].items:
        for model in TEMPERATURES:
            pattern = drift_pattern(responder, item, model)
            row = expected[(model, item.environment.value)]
            row["n"] += 1
            row["drifted"] += sum(pattern)
            split = len(set(pattern)) > 1
            row["flipped"] += split
            # every rubric's first sub-question flips with the drift; the others never do
            row["split_cells"] += split * len(active_rubrics(item.environment))
    assert responder.drifted == sum(row["drifted"] for row in expected.values()) > 0
    tables = read_analysis_tables(RunDir(config.run_dir()).tables)
    verdicts = tables.self_consistency_verdicts.set_index(["model", "environment"])
    stances = tables.self_consistency_stances.set_index(["model", "environment"])
    assert set(verdicts.index) == set(expected) == set(stances.index)
    for key, row in expected.items():
        found = verdicts.loc[key]
        assert (found["n_observations"], found["flipped"]) == (row["n"], row["flipped"]), key
        assert found["samples"] == SAMPLES
        assert found["flip_rate"] == float(Fraction(row["flipped"], row["n"]))
        # a cell whose samples split 2-1 has 1 agreeing pair of 3; every other cell 3 of 3
        split = Fraction(row["split_cells"], int(found["n_cells"]))
        assert found["percent_agreement"] == pytest.approx(float(1 - split * Fraction(2, 3)))
        # a drifted answer is coded "both", the others never: alike exactly when not split
        coded = stances.loc[key]
        assert coded["n_observations"] == row["n"]
        assert coded["all_agree"] == row["n"] - row["flipped"]
    sampled = sum(expected[("sampled", e)]["flipped"] for e in ENVIRONMENTS)
    assert sampled > 0  # the sampled target flips somewhere
    assert all(expected[("steady", e)]["flipped"] == 0 for e in ENVIRONMENTS)
    for env in ENVIRONMENTS:  # temperature 0: every sample alike, full agreement
        steady = verdicts.loc[("steady", env)]
        assert steady["percent_agreement"] == 1.0 and steady["flipped"] == 0
