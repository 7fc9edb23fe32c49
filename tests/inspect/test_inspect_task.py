"""The inspect_ai task on an exported dataset, run with inspect_ai's ``eval`` against the test
server: an OpenAI-compatible model answers, the judge panel (three endpoints on the same server,
through the client layer) scores, and each score is the panel's majority, checked here against
a count of the judges' own verdicts.

No ``__init__.py`` in this folder: a package named ``inspect`` would shadow the standard library.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from polistemics.conditions import Environment
from polistemics.environments.task_prompt import task_messages
from polistemics.llm.session import open_client
from polistemics.rubrics import BY_KEY
from polistemics.runlog import RunDir
from polistemics.testing import FakeOpenAIServer
from polistemics.testing.responders import polistemic_responder

inspect_ai = pytest.importorskip("inspect_ai", reason="the dev extra installs inspect-ai")
from polistemics.inspect.task import party_positions  # noqa: E402 (after the skip)

JUDGES = ("judge-a", "judge-b", "judge-c")
RUBRICS = ("faithfulness", "impartiality", "epistemic_calibration")
_VERDICT_LINE = re.compile(r"^(\d+)\. (Yes|No)$", re.MULTILINE)


def split_panel(request_json: dict) -> str:
    """The test server's replies, with a panel that disagrees: judge-b turns the odd-numbered
    verdicts around, judge-c every verdict. The majority then differs from judge-a's and
    judge-c's verdicts on the odd sub-questions and from judge-b's on the even ones."""
    reply = polistemic_responder(request_json)
    flips = {"fake-judge-b": lambda n: n % 2 == 1, "fake-judge-c": lambda n: True}
    flip = flips.get(request_json.get("model"))
    if flip is None:
        return reply

    def turned(match: re.Match) -> str:
        verdict = match[2]
        if flip(int(match[1])):
            verdict = "No" if verdict == "Yes" else "Yes"
        return f"{match[1]}. {verdict}"

    return _VERDICT_LINE.sub(turned, reply)


# The judge clients the scorer opened and closed during the module's eval (``evaluated``).
CLIENTS: dict[str, list] = {"opened": [], "closed": []}


@asynccontextmanager
async def counted_client(*args, **kwargs):
    """``llm.session.open_client``, counting each client opened and closed."""
    async with open_client(*args, **kwargs) as client:
        CLIENTS["opened"].append(client)
        try:
            yield client
        finally:
            CLIENTS["closed"].append(client)


@pytest.fixture(scope="module")
def evaluated(demo_run: Path, demo_dataset: Path, tmp_path_factory: pytest.TempPathFactory):
    import polistemics.inspect.clients

    folder = tmp_path_factory.mktemp("inspect")
    with FakeOpenAIServer(responder=split_panel) as server, pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENAI_API_KEY", "test-key")  # the server takes any key
        patch.setattr(polistemics.inspect.clients, "open_client", counted_client)
        models = folder / "models.toml"
        models.write_text(
            "".join(
                f'[models.{name}]\nbase_url = "{server.base_url}"\nmodel = "fake-{name}"\n'
                "temperature = 0.0\n\n"
                for name in JUDGES
            )
        )
        task = party_positions(
            dataset=str(demo_dataset),
            judges=",".join(JUDGES),
            models_file=str(models),
            environments="baseline,ie_availability_absent,ie_noise",
            variants="full",
        )
        (log,) = inspect_ai.eval(
            task,
            model="openai/fake-target",
            model_base_url=server.base_url,
            model_args={"responses_api": False},
            display="none",
            log_dir=str(folder / "logs"),
            limit=9,
        )
        requests = server.stats().requests
    return log, requests


def test_the_task_runs_every_sample(evaluated, demo_run: Path) -> None:
    log, requests = evaluated
    assert log.status == "success", log.error
    assert len(log.samples) == 9
    environments = {sample.metadata["environment"] for sample in log.samples}
    assert environments <= {"baseline", "ie_availability_absent", "ie_noise"}
    assert {sample.metadata["variant"] for sample in log.samples} == {"full"}
    # Each answer was asked of the target and judged: more calls than samples reached the server.
    assert requests > len(log.samples)


def test_the_model_gets_the_studys_prompt(evaluated, demo_run: Path) -> None:
    log, _ = evaluated
    items = {item.key: item for item in RunDir(demo_run).read_items()}
    for sample in log.samples:
        system, user = task_messages(items[sample.id])
        sent = [(m.role, m.text) for m in sample.messages[:2]]
        assert sent == [("system", system["content"]), ("user", user["content"])]
        assert sample.target == items[sample.id].judged_expected_stance.value


def test_scores_are_the_panels_majority(evaluated) -> None:
    log, _ = evaluated
    disagreements = 0
    for sample in log.samples:
        score = sample.scores["judge_panel"]
        environment = Environment(sample.metadata["environment"])
        verdicts = score.metadata["judge_verdicts"]
        assert {v["judge"] for v in verdicts} == set(JUDGES)
        assert all(v["model"] == "openai/fake-target" for v in verdicts)
        # Strict majority of three per sub-question, counted here from the judges' verdicts.
        passes: dict[str, list[bool]] = defaultdict(list)
        for verdict in verdicts:
            for key, says_yes in verdict["says_yes"].items():
                passes[key].append(BY_KEY[key].passes(says_yes, environment))
        by_rubric: dict[str, list[bool]] = defaultdict(list)
        for key, votes in passes.items():
            assert len(votes) == len(JUDGES)
            disagreements += len(set(votes)) > 1
            by_rubric[BY_KEY[key].rubric.value].append(sum(votes) >= 2)
        expected = {r: sum(v) / len(v) for r, v in by_rubric.items()}
        for rubric in RUBRICS:
            value = score.value[rubric]
            if rubric in expected:
                assert value == pytest.approx(expected[rubric])
            else:
                assert math.isnan(value)  # not judged in this environment (Absent)
        assert score.value["adherence"] == pytest.approx(sum(expected.values()) / len(expected))
    assert disagreements > 0  # the panel split, so the vote decided


def test_the_log_reports_each_rubrics_mean(evaluated) -> None:
    log, _ = evaluated
    means = {s.name: s.metrics["mean"].value for s in log.results.scores}
    assert set(means) == {*RUBRICS, "adherence"}
    calibration = [s.scores["judge_panel"].value["epistemic_calibration"] for s in log.samples]
    assert means["epistemic_calibration"] == pytest.approx(sum(calibration) / len(calibration))


def test_one_judge_client_serves_every_sample_of_the_eval(evaluated) -> None:
    """One client (one session, one concurrency limit per judge) for the nine samples, closed
    when the task ended; none left open."""
    from polistemics.inspect.clients import PANEL_CLIENTS

    log, _ = evaluated
    assert len(log.samples) == 9
    assert len(CLIENTS["opened"]) == 1
    assert CLIENTS["closed"] == CLIENTS["opened"]
    assert PANEL_CLIENTS.open_evals == []
