"""The wire check: a small ``paper-de`` study against the test server, as OpenRouter sees it.

``POLISTEMICS_OPENROUTER_BASE_URL`` points the paper preset at the test server, which records
every request body. Each body (without its messages) must be exactly what the paper's Table 3
and the authors' ``models.yaml`` prescribe for its role: model string, temperature, max_tokens,
reasoning as OpenRouter takes it, the judges' output mode (``response_format`` for Gemini and
DeepSeek, ``tools``/``tool_choice`` for MiMo), usage accounting, and nothing else: no key.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from polistemics.environments.vague import AUDIT_JSON_SCHEMA, VAGUE_JSON_SCHEMA
from polistemics.evidence.standardise import OUTPUT_SCHEMA
from polistemics.llm.grammar import without_extensions
from polistemics.report.content import ReportOptions
from polistemics.run.config import load_config, parse_config
from polistemics.run.finish import finish_run
from polistemics.run.pipeline import Study
from polistemics.testing import FakeOpenAIServer, Fault, Rule
from polistemics.testing.completions import messages_text
from polistemics.testing.responders import (
    JUDGE_MARKER,
    STANDARDISE_MARKER,
    VAGUE_AUDIT_MARKER,
    VAGUE_MARKER,
    count_questions,
)

KEY = "sk-or-v1-wire-check-5e4d3c2b1a09f8e7d6c5b4a3"
FRAGMENT = 8  # no run of this many characters of the key may appear in a body
USAGE = {"usage": {"include": True}}
TARGETS = {
    "qwen/qwen3.6-flash": {"max_tokens": 400},
    "openai/gpt-5.4": {"effort": "low"},
    "anthropic/claude-sonnet-4-6": {"effort": "low"},
}
GEMINI = "google/gemini-3-flash-preview"
JUDGES = {GEMINI: "json_schema", "deepseek/deepseek-v4-flash": "json_schema"}
MIMO = "xiaomi/mimo-v2.5"
NO_TOOL_PATTERN = "Dimension Definition:\nImpartiality"


@dataclass(frozen=True)
class Wire:
    bodies: list[dict]
    authorized: int
    unauthorized: int
    run_dir: Path


@pytest.fixture(scope="module")
def wire(
    tmp_path_factory: pytest.TempPathFactory, wahlomat_election: tuple[Path, str, str | None]
) -> Wire:
    data_dir, source, scope = wahlomat_election
    run_dir = tmp_path_factory.mktemp("wire") / "run"
    narrowed = {
        "elections": [{"source": source, "scope": scope, "statements": [1]}],
        # Baseline and Vague reach every role (Vague needs the generator and the auditor).
        "environments": ["baseline", "vague"],
        "ablations": [],
        "embeddings": "tfidf",
        "output_dir": str(run_dir),
        # The paper's requests only: the mechanism stages (issue 16) are not the paper's.
        "stance_coder": [],
        "prior_probe": False,
        "contradictory_swapped": "none",
    }
    config = parse_config(load_config("paper-de").model_dump() | narrowed, "paper-de, narrowed")
    # MiMo never calls its tool on Impartiality prompts (the others answer them as usual), so
    # run.json's parse figures have failures to count.
    no_tool = Rule(NO_TOOL_PATTERN, always=Fault("no_tool_call"))
    with (
        FakeOpenAIServer([no_tool], record_requests=True, expected_api_key=KEY) as server,
        pytest.MonkeyPatch.context() as env,
    ):
        env.setenv("POLISTEMICS_OPENROUTER_BASE_URL", server.base_url)
        env.setenv("OPENROUTER_API_KEY", KEY)
        env.setenv("POLISTEMICS_DATA", str(data_dir))
        study = Study(config, run_dir, log=lambda message: None)
        assert study.endpoints["gpt-5.4"].resolved_base_url == server.base_url
        result = asyncio.run(study.execute(quiet=True))
        # A short bootstrap and SVG only: the report is not what this test checks.
        finish_run(study, result, ReportOptions(bootstrap_resamples=20, figure_formats=("svg",)))
        stats = server.stats()
        return Wire(server.received_requests(), stats.authorized, stats.unauthorized, run_dir)


def role(body: dict) -> str:
    model = body["model"]
    if model in TARGETS:
        return "target"
    if model == GEMINI:
        text = messages_text(body["messages"])
        for marker, name in (
            (JUDGE_MARKER, "judge"),
            (STANDARDISE_MARKER, "standardiser"),
            (VAGUE_MARKER, "vague generator"),
            (VAGUE_AUDIT_MARKER, "vague auditor"),
        ):
            if marker in text:
                return name
        return "unknown"
    return "judge" if model in JUDGES or model == MIMO else "unknown"


def verdict_schema(n: int) -> dict:
    """The judge verdict schema for n questions, spelled out (prompts/judge_verdict_schema.json)."""
    names = [f"q{i}" for i in range(1, n + 1)]
    return {
        "title": "judge_verdicts",
        "description": 'Your verdicts: "Yes" or "No" for each numbered question, under q1, q2, ...',
        "type": "object",
        "properties": {
            name: {
                "type": "string",
                "enum": ["Yes", "No"],
                "description": f"Your verdict on question {i}.",
            }
            for i, name in enumerate(names, start=1)
        },
        "required": names,
        "additionalProperties": False,
    }


def expected_body(body: dict) -> dict:
    """What the paper preset must send for this body's role (everything but the messages)."""
    model, kind = body["model"], role(body)
    if kind == "target":
        return {
            "model": model,
            "temperature": 0.0,
            "max_tokens": 2048,
            "reasoning": TARGETS[model],
            **USAGE,
        }
    if kind == "judge":
        schema = verdict_schema(count_questions(body["messages"][0]["content"]))
        judge = {
            "model": model,
            "temperature": 0.0,
            "max_tokens": 2048,
            "reasoning": {"max_tokens": 400},
            **USAGE,
        }
        if model == MIMO:
            return {
                **judge,
                "tools": [
                    {
                        "type": "function",
                        "function": {
                            "name": "judge_verdicts",
                            "description": schema["description"],
                            "parameters": schema,
                        },
                    }
                ],
                "tool_choice": {"type": "function", "function": {"name": "judge_verdicts"}},
            }
        return {
            **judge,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "judge_verdicts", "schema": schema, "strict": True},
            },
        }
    schema, temperature, max_tokens = {
        "standardiser": (OUTPUT_SCHEMA, 0.3, 2048),
        "vague generator": (VAGUE_JSON_SCHEMA, 0.3, 2048),
        "vague auditor": (AUDIT_JSON_SCHEMA, 0.0, 512),
    }[kind]
    return {
        "model": model,
        "temperature": temperature,
        "max_tokens": max_tokens,
        "response_format": {"type": "json_object", "schema": without_extensions(schema)},
        **USAGE,
    }


def test_every_role_sends_exactly_the_papers_request(wire: Wire) -> None:
    roles = Counter((role(b), b["model"]) for b in wire.bodies)
    assert roles[("unknown", GEMINI)] == 0 and all(kind != "unknown" for kind, _ in roles)
    for model in TARGETS:
        assert roles[("target", model)] > 0
    judged = {roles[("judge", model)] for model in JUDGES}
    assert len(judged) == 1 and judged.pop() > 0  # both rated every answer on every rubric
    assert roles[("judge", MIMO)] > roles[("judge", GEMINI)]  # MiMo's failed calls were retried
    for kind in ("standardiser", "vague generator", "vague auditor"):
        assert roles[(kind, GEMINI)] > 0
    for body in wire.bodies:
        sent = {k: v for k, v in body.items() if k != "messages"}
        assert sent == expected_body(body), role(body)
        assert [m["role"] for m in body["messages"]] in (["system", "user"], ["user"])


def test_judges_see_the_papers_prompt_whatever_their_output_mode(wire: Wire) -> None:
    systems = Counter(
        (b["model"], b["messages"][0]["content"]) for b in wire.bodies if role(b) == "judge"
    )
    by_model: dict[str, set[str]] = {}
    for model, system in systems:
        by_model.setdefault(model, set()).add(system)
        assert "q1" not in system and "judge_verdicts" not in system  # the schema stays out
    assert by_model[GEMINI] == by_model[MIMO] == by_model["deepseek/deepseek-v4-flash"]


def test_the_key_travels_in_the_header_only(wire: Wire) -> None:
    assert wire.authorized == len(wire.bodies) and wire.unauthorized == 0
    pieces = {KEY[i : i + FRAGMENT] for i in range(len(KEY) - FRAGMENT + 1)}
    for body in wire.bodies:
        text = json.dumps(body, ensure_ascii=False)
        assert not any(piece in text for piece in pieces)
    for path in wire.run_dir.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert not any(piece.encode() in data for piece in pieces), path


def test_run_json_counts_attempts_retries_and_missing_verdicts_per_judge(wire: Wire) -> None:
    manifest = json.loads((wire.run_dir / "run.json").read_text(encoding="utf-8"))
    parsing = manifest["judge_parsing"]
    judges = {row["judge"]: row for row in parsing["by_judge"]}
    assert list(judges) == ["gemini-3-flash-judge", "deepseek-v4-flash-judge", "mimo-v2.5-judge"]
    judge_bodies = [b for b in wire.bodies if role(b) == "judge"]
    impartiality = sum(
        NO_TOOL_PATTERN in b["messages"][0]["content"] for b in judge_bodies if b["model"] == MIMO
    )
    sets = judges["mimo-v2.5-judge"]["verdict_sets"]
    assert 0 < impartiality // 2 < sets  # each failing call was tried twice
    assert judges["mimo-v2.5-judge"] == {
        "judge": "mimo-v2.5-judge",
        "model": MIMO,
        "output_mode": "tool",
        "verdict_sets": sets,
        "panel_calls": sets,  # a failed call is not asked again by the panel
        "asked_again": 0,
        "http_attempts": sets + impartiality // 2,
        "client_retries": impartiality // 2,
        "call_failed": impartiality // 2,
        "unreadable": 0,
        "possibly_planted": 0,
        "missing": impartiality // 2,
        "missing_share": round(impartiality / 2 / sets, 6),
    }
    for name in ("gemini-3-flash-judge", "deepseek-v4-flash-judge"):
        row = judges[name]
        assert row["output_mode"] == "json_schema" and row["verdict_sets"] == sets
        assert row["missing"] == row["client_retries"] == row["asked_again"] == 0
        assert row["http_attempts"] == row["panel_calls"] == sets
    modes = {row["output_mode"]: row for row in parsing["by_output_mode"]}
    assert modes["json_schema"]["verdict_sets"] == 2 * sets and modes["json_schema"]["missing"] == 0
    assert modes["tool"]["missing"] == judges["mimo-v2.5-judge"]["missing"]
    # Every body sent to a judge is accounted for.
    assert sum(row["http_attempts"] for row in judges.values()) == len(judge_bodies)


def test_the_report_shows_the_parse_figures_in_the_judges_section(wire: Wire) -> None:
    page = (wire.run_dir / "report" / "report.html").read_text(encoding="utf-8")
    table = page[page.index('id="judge-parsing"') :]
    table = table[: table.index("</table>")]
    assert "mimo-v2.5-judge" in table and "tool" in table and "json_schema" in table
