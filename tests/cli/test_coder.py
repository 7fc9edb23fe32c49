"""``polistemics coder validate`` end to end against the scripted OpenAI-compatible test server.

The server plays a coder whose mistakes are known: it reads the fenced answer, looks up the
validation item it belongs to and replies with its label, except that it codes every German
``both`` answer as ``no_position``, every English ``neutral`` answer as ``agree``, says
outside knowledge "no" on every Dutch answer, and replies with no label at all to two answers
(which are asked again once, then recorded missing). The printed figures are checked exactly.
"""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from polistemics.cli import app
from polistemics.scoring.agreement import wilson_interval
from polistemics.scoring.coder_validation import LABELS, load_validation_set
from polistemics.testing import FakeOpenAIServer
from polistemics.testing.completions import messages_text

runner = CliRunner()
ITEMS = load_validation_set()
BY_ANSWER = {item.answer: item for item in ITEMS}
UNREADABLE = {"de-01", "nl-01"}
FENCED = re.compile(r"\nBEGIN ANSWER (\w+)\n(.*)\nEND ANSWER \1\n", re.DOTALL)
REGISTRY = """
[models.test-coder]
provider = "openai"
model = "fake-model"
api_key_env = "TEST_CODER_KEY"
structured_output = "json_object"

[models.test-coder-wrong]
provider = "openai"
model = "wrong-model"
api_key_env = "TEST_CODER_KEY"
structured_output = "json_object"
"""


def scripted_code(item) -> tuple[str, str]:
    stance = item.stance.value
    if item.language == "de" and stance == "both":
        stance = "no_position"
    if item.language == "en" and stance == "neutral":
        stance = "agree"
    if item.language == "nl":
        outside = "no"
    else:
        outside = {True: "yes", False: "no", None: "unclear"}[item.outside_knowledge]
    return stance, outside


def coder(request: dict) -> str:
    item = BY_ANSWER[FENCED.search(messages_text(request["messages"])).group(2)]
    if request["model"] == "wrong-model":
        return json.dumps({"stance": "both", "outside_knowledge": "unclear"})
    if item.id in UNREADABLE:
        return "I would rather not say."
    stance, outside = scripted_code(item)
    return json.dumps({"stance": stance, "outside_knowledge": outside})


@pytest.fixture
def server(tmp_path, monkeypatch):
    registry = tmp_path / "models.toml"
    registry.write_text(REGISTRY, encoding="utf-8")
    with FakeOpenAIServer(responder=coder) as running:
        monkeypatch.setenv("POLISTEMICS_OPENAI_BASE_URL", running.base_url)
        monkeypatch.setenv("TEST_CODER_KEY", "sk-test-coder")
        yield running, registry


def expected_figures():
    coded = [(item, None if item.id in UNREADABLE else scripted_code(item)) for item in ITEMS]
    correct = sum(code is not None and code[0] == item.stance.value for item, code in coded)
    per_language = {
        language: (
            sum(
                c is not None and c[0] == i.stance.value for i, c in coded if i.language == language
            ),
            sum(i.language == language for i in ITEMS),
        )
        for language in ("de", "nl", "en")
    }
    outside = [
        (code[1] == ("yes" if item.outside_knowledge else "no"))
        for item, code in coded
        if code is not None and item.outside_knowledge is not None and code[1] != "unclear"
    ]
    # Cohen's kappa by hand from the coded pairs: (p_o - p_e) / (1 - p_e).
    pairs = [(item.stance.value, code[0]) for item, code in coded if code is not None]
    n = len(pairs)
    p_o = sum(a == b for a, b in pairs) / n
    p_e = sum(
        sum(a == label.value for a, _ in pairs) * sum(b == label.value for _, b in pairs)
        for label in LABELS
    ) / (n * n)
    return correct, per_language, (sum(outside), len(outside)), (p_o - p_e) / (1 - p_e)


def rate(successes: int, n: int) -> str:
    low, high = wilson_interval(successes, n)
    return f"{successes / n:.4f} ({successes}/{n}), 95% CI [{low:.4f}, {high:.4f}]"


def test_validate_prints_the_scripted_coders_figures(server, tmp_path):
    fake, registry = server
    out = tmp_path / "store"
    args = ["coder", "validate", "--model", "test-coder", "--models-file", str(registry)]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    correct, per_language, outside, kappa = expected_figures()
    assert correct == 85  # 99 items - 6 German "both" - 6 English "neutral" - 2 missing
    text = result.stdout
    assert f"accuracy: {rate(correct, 99)}\n" in text
    assert f"  German   {rate(*per_language['de'])}\n" in text
    assert f"  Dutch    {rate(*per_language['nl'])}\n" in text
    assert f"  English  {rate(*per_language['en'])}\n" in text
    assert f"Cohen's kappa (coded items): {kappa:.4f}\n" in text
    assert f"outside knowledge accuracy: {rate(*outside)}\n" in text
    assert "missing codes: 2\n  2 seat code(s): unreadable after 2 calls\n" in text
    rows = {line.split()[0]: line.split()[1:] for line in text.splitlines()[-5:]}
    # columns: agree disagree neutral no_position both missing
    assert rows["agree"] == ["19", "0", "0", "0", "0", "2"]
    assert rows["neutral"] == ["6", "0", "12", "0", "0", "0"]
    assert rows["both"] == ["0", "0", "0", "6", "12", "0"]
    assert rows["disagree"] == ["0", "21", "0", "0", "0", "0"]
    assert rows["no_position"] == ["0", "0", "0", "21", "0", "0"]
    # One call per item, one retry for each unreadable reply; a rerun calls nothing.
    assert fake.stats().requests == 99 + 2
    again = runner.invoke(app, [*args, "--out", str(out), "--json"])
    assert again.exit_code == 0, again.output
    assert fake.stats().requests == 101
    figures = json.loads(again.stdout)
    assert figures["accuracy"]["correct"] == 85 and figures["missing"] == 2
    assert figures["cohens_kappa"] == pytest.approx(kappa)
    assert figures["confusion"]["both"]["no_position"] == 6


def test_a_panel_codes_by_strict_majority(server, tmp_path):
    _, registry = server
    result = runner.invoke(
        app,
        [
            "coder",
            "validate",
            "--model",
            "test-coder,test-coder-wrong,test-coder",
            "--models-file",
            str(registry),
            "--out",
            str(tmp_path / "panel"),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    # Two identical seats outvote the wrong one, except where they are missing: then the wrong
    # seat's "both" stands alone, and one readable seat of three is no majority.
    assert figures["accuracy"]["correct"] == 85
    assert figures["missing"] == 2
    assert figures["coders"] == ["test-coder", "test-coder-wrong", "test-coder"]


def test_unknown_coder_is_a_user_error(tmp_path):
    result = runner.invoke(app, ["coder", "validate", "--model", "nope", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "unknown model 'nope'" in result.stderr


def test_default_store_folder_is_a_safe_name():
    from polistemics.cli.coder import store_name

    assert store_name(["gemini-3-flash-coder"]) == "gemini-3-flash-coder"
    assert store_name(["a", "b"]) == "a_b"
    assert store_name(["../x"]).startswith("panel-")


def test_a_failed_call_is_a_missing_code_whose_error_is_not_printed(tmp_path, monkeypatch):
    from polistemics.testing import Fault, Rule

    registry = tmp_path / "models.toml"
    registry.write_text(REGISTRY, encoding="utf-8")
    first = ITEMS[2]
    refused = Rule(re.escape(first.answer[:40]), always=Fault("status", status=400))
    with FakeOpenAIServer([refused], responder=coder) as running:
        monkeypatch.setenv("POLISTEMICS_OPENAI_BASE_URL", running.base_url)
        monkeypatch.setenv("TEST_CODER_KEY", "sk-test-coder-secret")
        result = runner.invoke(
            app,
            ["coder", "validate", "--model", "test-coder", "--models-file", str(registry)]
            + ["--out", str(tmp_path / "store")],
        )
    assert result.exit_code == 0, result.output
    assert "missing codes: 3\n  1 seat code(s): call failed\n" in result.stdout
    assert "sk-test" not in result.stdout
