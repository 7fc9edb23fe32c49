"""Fixtures of the report tests: a finished demo run (the whole pipeline against the project's
fake OpenAI server, report included) and small hand-made cell tables."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pandas as pd
import pytest

from polistemics.conditions import Environment, Variant
from polistemics.rubrics import BY_KEY
from polistemics.run.config import load_config
from polistemics.run.finish import finish_run
from polistemics.run.pipeline import Study
from polistemics.scoring.cells import CELL_COLUMNS, validate_cells
from polistemics.testing import FakeOpenAIServer

MODELS = {"target-a": 0.0, "judge-a": 0.0, "judge-b": 0.0, "judge-c": 0.0, "writer": 0.3}


def write_demo_study(folder: Path, base_url: str) -> Path:
    models = folder / "models.toml"
    models.write_text(
        "".join(
            f'[models.{name}]\nbase_url = "{base_url}"\nmodel = "fake-model"\n'
            f"temperature = {temperature}\nmax_concurrency = 8\n\n"
            for name, temperature in MODELS.items()
        )
    )
    config = folder / "study.toml"
    config.write_text(
        "\n".join(
            [
                'name = "report-test"',
                'targets = ["target-a"]',
                'judges = ["judge-a", "judge-b", "judge-c"]',
                'standardiser = "writer"',
                'vague_generator = "writer"',
                'vague_auditor = "judge-a"',
                'ablations = ["anon", "en"]',
                'embeddings = "tfidf"',
                f'models_file = "{models}"',
                f'output_dir = "{folder / "run"}"',
                "",
                "[[elections]]",
                'source = "demo"',
                'scope = "demo"',
                "",
            ]
        )
    )
    return config


@pytest.fixture(scope="session")
def finished_demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path]]:
    """A finished run of the demo election; ``finish_run`` wrote its report too. Shared by the
    session: a report made from it with other options rewrites its ``tables/``."""
    return finish_demo_study(tmp_path_factory.mktemp("demo-study"))


def finish_demo_study(folder: Path) -> tuple[Path, dict[str, Path]]:
    """The demo election run and finished on the test server, in ``folder``."""
    with FakeOpenAIServer() as server:
        config = load_config(write_demo_study(folder, server.base_url))
        study = Study(config, config.run_dir(), log=lambda message: None)
        result = asyncio.run(study.execute(quiet=True))
        paths = finish_run(study, result)
    return config.run_dir(), paths


@pytest.fixture
def demo_run_copy(finished_demo_run, tmp_path: Path) -> Path:
    """A private copy of the demo run directory (tests may edit it)."""
    run_dir, _ = finished_demo_run
    target = tmp_path / "run"
    shutil.copytree(run_dir, target, ignore=shutil.ignore_patterns("report", "store.sqlite*"))
    return target


def cell(
    passed: bool,
    sub_question: str,
    *,
    model: str = "m1",
    environment: Environment = Environment.BASELINE,
    variant: Variant = Variant.FULL,
    observation: str = "e__p1__s001",
    party: str = "p1",
    party_name: str | None = None,
    election: str | None = None,
    vague_mode: int | None = None,
) -> dict:
    return {
        "model": model,
        "environment": environment.value,
        "variant": variant.value,
        "observation_id": observation,
        "sample_index": 0,
        "party_id": party,
        "election_id": election or observation.split("__")[0],
        "language": "Dutch",
        "rubric": BY_KEY[sub_question].rubric.value,
        "sub_question": sub_question,
        "passed": passed,
        "party_name": party_name or party.upper(),
        "country": "NL",
        "vague_mode": vague_mode,
    }


def cells_frame(rows: list[dict]) -> pd.DataFrame:
    table = pd.DataFrame(rows, columns=list(CELL_COLUMNS))
    table["passed"] = table["passed"].astype(bool)
    table["sample_index"] = table["sample_index"].astype("int64")
    return validate_cells(table)


def rate_cells(
    spec: list[tuple[str, Environment, str, str, int, int]],
    variant: Variant = Variant.FULL,
    election: str = "e",
) -> list[dict]:
    """(model, environment, party, sub-question, passes, total) -> that many cells, one per
    observation ``<election>__<party>__sNNN``."""
    rows = []
    for model, env, party, key, passes, total in spec:
        for i in range(total):
            rows.append(
                cell(
                    i < passes,
                    key,
                    model=model,
                    environment=env,
                    variant=variant,
                    observation=f"{election}__{party}__s{i:03d}",
                    party=party,
                )
            )
    return rows
