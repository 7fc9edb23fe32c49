"""A finished demo run with an annotation sample, for the app's tests.

The run is the whole demo pipeline against the project's fake OpenAI server (as the report tests
build it). The sample is written straight to the store: the first answer x rubric units of
``judges.jsonl`` in file order, so the tests know what each sample id holds.
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from polistemics.annotate.run_data import items_for
from polistemics.annotate.store import AnnotationStore, SampleItem, sample_id_for
from polistemics.run.config import load_config
from polistemics.run.finish import finish_run
from polistemics.run.pipeline import Study
from polistemics.testing import FakeOpenAIServer
from report.conftest import write_demo_study

MODEL = "target-a"
JUDGES = ("judge-a", "judge-b", "judge-c")


def build_demo_run(folder: Path) -> Path:
    """The finished demo run; built in a worker thread, so a running event loop (Playwright's)
    does not stand in the way."""

    def build() -> Path:
        with FakeOpenAIServer() as server:
            config = load_config(write_demo_study(folder, server.base_url))
            study = Study(config, config.run_dir(), log=lambda message: None)
            result = asyncio.run(study.execute(quiet=True))
            finish_run(study, result)
        return config.run_dir()

    with ThreadPoolExecutor(max_workers=1) as worker:
        return worker.submit(build).result()


def write_sample(run_dir: Path, size: int, wanted: int = 1) -> list[SampleItem]:
    """The first ``size`` judged answer x rubric units of the run as its sample."""
    units: dict[tuple, dict] = {}
    for line in (run_dir / "judges.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        unit = (row["item_key"], row["model"], row["sample_index"], row["rubric"])
        units.setdefault(unit, row)
        if len(units) == size:
            break
    items = items_for(run_dir, {key for key, *_ in units})
    sample = [
        SampleItem(
            sample_id=sample_id_for(number, size),
            item_key=key,
            model=model,
            sample_index=index,
            rubric=rubric,
            environment=row["environment"],
            language=items[key].language,
            stratum=f"{row['environment']}|{rubric}|split",
            judges_agreed=False,
            weight=1.0,
            annotators_wanted=wanted,
            seed=0,
        )
        for number, ((key, model, index, rubric), row) in enumerate(units.items(), start=1)
    ]
    with AnnotationStore.open(run_dir) as store:
        store.write_sample(sample, replace=True)
    return sample
