"""A piped ``polistemics run`` prints plain progress lines (no bars, no control codes)."""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from study_helpers import run_command, write_study

from polistemics.llm import progress
from polistemics.run.config import load_config
from polistemics.run.pipeline import Study, StudyResult
from polistemics.testing import FakeOpenAIServer
from polistemics.testing.responders import STANDARDISE_MARKER, polistemic_responder


def piped_run(config: Path, *, quiet: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "POLISTEMICS_QUIET"}  # CI sets it
    if quiet:
        env["POLISTEMICS_QUIET"] = "1"
    return run_command("run", str(config), env=env)


def progress_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("progress ")]


@pytest.mark.timeout(300)
def test_a_piped_run_prints_plain_progress_lines(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        config = write_study(tmp_path, server.base_url, ablations="[]")
        done = piped_run(config, quiet=False)
    assert done.returncode == 0, done.stderr
    progress = progress_lines(done.stderr)
    stages = {line.split(":")[0].split()[1] for line in progress}
    assert {"standardise", "answer", "judge"} <= stages
    for stage in stages:  # each stage's last line says it ended
        last = [line for line in progress if line.startswith(f"progress {stage}:")][-1]
        assert "finished in" in last, last
    answers = [line for line in progress if line.startswith("progress answer:")]
    done_, total = answers[-1].split(": ")[1].split(" done")[0].split("/")
    assert done_ == total and int(total) > 0
    assert "\x1b[" not in done.stderr  # no terminal control codes in piped output


@pytest.mark.timeout(300)
def test_quiet_turns_the_plain_progress_lines_off(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        config = write_study(tmp_path, server.base_url, ablations="[]")
        done = piped_run(config, quiet=True)
    assert done.returncode == 0, done.stderr
    assert progress_lines(done.stderr) == []


class TimedStderr(io.TextIOBase):
    """A piped stderr that notes when each line was written."""

    def __init__(self) -> None:
        self.lines: list[tuple[float, str]] = []

    def write(self, text: str) -> int:
        now = time.monotonic()
        self.lines.extend((now, line) for line in text.splitlines() if line.strip())
        return len(text)

    def isatty(self) -> bool:
        return False


def timed_progress(
    config_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[tuple[float, str]], StudyResult]:
    """``run``'s model stages in this process, with a plain line every 0.2 s: the progress
    lines with when each was written, and what the stages made."""
    stderr = TimedStderr()
    with monkeypatch.context() as patch:
        patch.setattr(sys, "stderr", stderr)
        patch.setattr(progress, "PLAIN_INTERVAL", 0.2)
        config = load_config(config_path)
        result = asyncio.run(Study(config, config.run_dir(), log=lambda m: None).execute())
    return [(at, line) for at, line in stderr.lines if line.startswith("progress ")], result


LINE = re.compile(
    r"progress (?P<stage>\w+): (?P<done>[\d,]+)/(?P<total>[\d,]+|\?)(?: \+ [\d,]+ retries)? "
    r"done \((?P<cached>[\d,]+) cached\).*, (?:elapsed [\d:]+, ETA (?P<eta>[\d:]+|unknown)"
    r"|finished in (?P<took>[\d:]+))$"
)


def number(text: str) -> int:
    return int(text.replace(",", ""))


def seconds(clock: str) -> int:
    total = 0
    for part in clock.split(":"):
        total = total * 60 + int(part)
    return total


@pytest.mark.timeout(300)
def test_progress_totals_and_etas_count_only_calls_that_are_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run whose store holds the answers and verdicts of two environments of six: the
    others' calls are the only ones made (0.1 s each, four at a time; the three judge seats are
    one endpoint, so two in three verdicts are cache hits)."""

    def write(server: FakeOpenAIServer, **fields: str) -> Path:
        config = write_study(
            tmp_path, server.base_url, ablations="[]", overlap_judging="false", **fields
        )
        models = tmp_path / "models.toml"
        models.write_text(models.read_text().replace("max_concurrency = 8", "max_concurrency = 4"))
        return config

    with FakeOpenAIServer(latency=0.1) as server:
        timed_progress(
            write(server, environments='["baseline", "ie_availability_absent"]'), monkeypatch
        )
        lines, result = timed_progress(write(server), monkeypatch)
    parsed = [(at, LINE.fullmatch(line), line) for at, line in lines]
    assert all(match for _, match, _ in parsed), [line for _, m, line in parsed if not m]
    by_stage: dict[str, list[tuple[float, re.Match]]] = {}
    for at, match, _ in parsed:
        by_stage.setdefault(match["stage"], []).append((at, match))
    # Totals are declared where they are known: every first try of these stages.
    for stage in ("standardise", "vague", "answer", "judge"):
        assert all(m["total"] != "?" for _, m in by_stage[stage]), stage
    assert {number(m["total"]) for _, m in by_stage["answer"]} == {len(result.answers)}
    assert {number(m["total"]) for _, m in by_stage["judge"]} == {len(result.verdicts)}
    for stage, seen in by_stage.items():
        ends = [i for i, (_, m) in enumerate(seen) if m["took"] is not None]
        assert ends == [len(seen) - 1], (stage, [m.string for _, m in seen])  # nothing after
    # Each ETA, once a quarter of the calls to make are made, against the time that was left.
    checked = 0
    for stage in ("answer", "judge"):
        seen = by_stage[stage]
        end, last = seen[-1]
        total, to_make = number(last["total"]), number(last["done"]) - number(last["cached"])
        assert 0 < to_make < total  # some calls were cache hits, the rest were made
        for at, match in seen[:-1]:
            made = number(match["done"]) - number(match["cached"])
            if made < to_make / 4 or match["eta"] in (None, "unknown"):
                continue
            left = end - at
            assert abs(seconds(match["eta"]) - left) <= 0.3 * left + 1.0, (match.string, left)
            checked += 1
    assert checked >= 3


class RejectsFirstTries:
    """The test server's answers, but every other standardisation prompt is first answered
    with a passage the checks reject (too short), so it is asked again."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}
        self.lock = threading.Lock()
        self.rejected = 0

    def __call__(self, request_json: dict) -> str:
        text = json.dumps(request_json.get("messages"), sort_keys=True)
        if STANDARDISE_MARKER in text:
            with self.lock:
                tries = self.seen[text] = self.seen.get(text, 0) + 1
                reject = tries == 1 and len(self.seen) % 2 == 0
                self.rejected += reject
            if reject:
                short = {
                    "third_person_rationale": "[PARTY] is against it.",
                    "stance_is_explicit": True,
                }
                return json.dumps(short)
        return polistemic_responder(request_json)


@pytest.mark.timeout(300)
def test_the_run_reports_each_checked_try_to_the_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Standardisation and Vague generation tell the progress which calls were retries and
    which asked for one, so that their ETAs count the retries (``StageStats.calls_left``)."""
    reported: list[tuple[str, bool, bool]] = []
    tried = progress.StageProgress.tried

    def recording(self, stage: str, *, retry: bool, again: bool) -> None:
        reported.append((stage, retry, again))
        tried(self, stage, retry=retry, again=again)

    monkeypatch.setattr(progress.StageProgress, "tried", recording)
    responder = RejectsFirstTries()
    with FakeOpenAIServer(responder=responder) as server:
        lines, result = timed_progress(
            write_study(tmp_path, server.base_url, ablations="[]"), monkeypatch
        )
    standardise = [(retry, again) for stage, retry, again in reported if stage == "standardise"]
    observations = sum(len(run.scoped.observations) for run in result.elections)
    assert responder.rejected > 0
    assert standardise.count((False, True)) == responder.rejected  # each asked again
    assert standardise.count((True, False)) == responder.rejected  # and then accepted
    assert len(standardise) == observations + responder.rejected
    vague = [(retry, again) for stage, retry, again in reported if stage == "vague"]
    evidence = sum(len(run.evidence) for run in result.elections)
    assert evidence > 0
    assert len(vague) == evidence and not any(again for _, again in vague)
    last = [line for _, line in lines if line.startswith("progress standardise:")][-1]
    assert f"/{observations} + {responder.rejected} retries done" in last and "finished in" in last
