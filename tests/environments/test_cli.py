import json

from typer.testing import CliRunner

from polistemics.cli import app

from .helpers import mini_election

runner = CliRunner()


def evidence_file(tmp_path):
    path = tmp_path / "evidence.jsonl"
    path.write_text("".join(e.model_dump_json() + "\n" for e in mini_election()), encoding="utf-8")
    return path


def test_build_writes_release_rows_and_prints_kept_dropped(tmp_path):
    out = tmp_path / "out" / "ground_truth.jsonl"
    result = runner.invoke(
        app,
        [
            "environments",
            "build",
            "--evidence",
            str(evidence_file(tmp_path)),
            "--environments",
            "baseline,ie_noise,ie_prior_conflict",
            "--embeddings",
            "tfidf",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "ie_prior_conflict" in result.output and "kept    14  dropped     6" in result.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 20 + 20 + 14
    assert {r["ie_name"] for r in rows} == {"baseline", "ie_noise", "ie_prior_conflict"}


def test_vague_without_model_stops_with_a_clear_error(tmp_path):
    result = runner.invoke(
        app, ["environments", "build", "--evidence", str(evidence_file(tmp_path))]
    )
    assert result.exit_code == 2
    assert "Vague environment needs --vague-generator" in result.output


def test_exactly_one_evidence_source(tmp_path):
    result = runner.invoke(app, ["environments", "build", "--environments", "baseline"])
    assert result.exit_code == 2 and "exactly one of --evidence" in result.output


def test_bad_evidence_file_names_the_line(tmp_path):
    path = tmp_path / "evidence.jsonl"
    path.write_text("{}\n", encoding="utf-8")
    result = runner.invoke(
        app, ["environments", "build", "--evidence", str(path), "--environments", "baseline"]
    )
    assert result.exit_code == 2 and "evidence.jsonl, line 1, field 'position'" in result.output


def test_vague_goes_through_the_client_layer(tmp_path):
    from polistemics.testing import FakeOpenAIServer

    with FakeOpenAIServer() as server:
        registry = tmp_path / "models.toml"
        registry.write_text(
            f'[models.fake]\nprovider = "openai-compatible"\nbase_url = "{server.base_url}"\n'
            'model = "fake-model"\ntemperature = 0.3\nstructured_output = "json_object"\n',
            encoding="utf-8",
        )
        out = tmp_path / "vague.jsonl"
        args = [
            "environments",
            "build",
            "--evidence",
            str(evidence_file(tmp_path)),
            "--environments",
            "ie_clarity_vague",
            "--vague-generator",
            "fake",
            "--models-file",
            str(registry),
            "--run-dir",
            str(tmp_path / "run"),
            "--seed",
            "3",
            "--out",
            str(out),
        ]
        first = runner.invoke(app, args)
        assert first.exit_code == 0, first.output
        assert "kept    20  dropped     0  (generated 20" in first.output
        written = out.read_bytes()
        calls = server.stats().requests
        assert calls >= 20  # one generation per observation, audits of distinct rewrites
        again = runner.invoke(app, args)  # answered from the run store
        assert again.exit_code == 0 and out.read_bytes() == written
        assert server.stats().requests == calls
    rows = [json.loads(line) for line in written.decode("utf-8").splitlines()]
    assert all(r["ie_name"] == "ie_clarity_vague" and 1 <= r["vague_mode"] <= 5 for r in rows)
    assert all("[PARTY]" not in r["ie_chunks"][0] for r in rows)


def test_build_adds_the_compositions_named_like_the_config_key(tmp_path):
    out = tmp_path / "ground_truth.jsonl"
    args = [
        "environments",
        "build",
        "--evidence",
        str(evidence_file(tmp_path)),
        "--environments",
        "ie_consistency_contradiction,ie_noise",
        "--compositions",
        "ie_consistency_contradiction+ie_noise",
        "--embeddings",
        "tfidf",
        "--out",
        str(out),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "ie_consistency_contradiction+ie_noise" in result.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    names = {r["ie_name"] for r in rows}
    assert names == {
        "ie_consistency_contradiction",
        "ie_noise",
        "ie_consistency_contradiction+ie_noise",
    }
    # a composition whose part is not built is refused with the reason
    lacking = runner.invoke(app, [*args[:5], "ie_noise", *args[6:]])
    assert lacking.exit_code != 0 and "needs its parts built too" in lacking.output
