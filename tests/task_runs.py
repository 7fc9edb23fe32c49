"""Small finished runs that ask the navigation task, on the test server, for the tests of the
per-task views (compare, annotation). Import as ``from task_runs import navigation_run``
(``tests/`` is on ``sys.path``, as for ``fakes``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from polistemics.report.content import ReportOptions
from polistemics.run.config import load_config
from polistemics.run.finish import finish_run
from polistemics.run.pipeline import Study
from polistemics.testing import FakeOpenAIServer
from polistemics.testing.responders import NavigationResponder
from run.study_helpers import write_study

ENVIRONMENTS = ("baseline", "ie_availability_absent")


def navigation_run(
    folder: Path, *, tasks: bool = True, statements: str = "[1, 2, 3]", **quality
) -> Path:
    """A finished run of the demo election (two environments, a few statements) whose
    navigation answers are of the given quality (``NavigationResponder``: ``drop``,
    ``invent``); ``tasks=False`` asks the paper's task alone."""
    with FakeOpenAIServer(responder=NavigationResponder(**quality)) as server:
        extra = {"tasks": '["party_position", "navigation"]'} if tasks else {}
        config_path = write_study(
            folder,
            server.base_url,
            ablations="[]",
            stance_coder='"judge-a"',
            environments=f"{list(ENVIRONMENTS)!r}".replace("'", '"'),
            **extra,
        )
        text = config_path.read_text(encoding="utf-8")
        config_path.write_text(text + f"statements = {statements}\n", encoding="utf-8")
        config = load_config(config_path)
        study = Study(config, config.run_dir(), log=lambda m: None)
        options = ReportOptions(bootstrap_resamples=50, figure_formats=("svg",))
        finish_run(study, asyncio.run(study.execute(quiet=True)), options)
    return config.run_dir()
