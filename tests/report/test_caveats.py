"""The demo banner and the shared-judge-seat note, from run.json (read defensively)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from polistemics.report.caveats import demo_banner, shared_judge_seats, shared_seats_note
from polistemics.report.sections import _no_ablations_reason
from polistemics.runlog import RunManifest


def model(name: str, *, temperature: float = 0.0, base: str = "local:smollm2") -> dict:
    return {
        "model": name,
        "provider": "local" if base.startswith("local") else "openai",
        "base_url": base,
        "params": {"temperature": temperature, "max_tokens": 64},
    }


def manifest(judges: list[str], models: dict, source: str = "demo") -> RunManifest:
    return RunManifest.model_validate(
        {
            "config": {"targets": ["local"], "judges": judges, "elections": [{"source": source}]},
            "models": models,
        }
    )


DEMO = manifest(["local", "local", "local"], {"local": model("smollm2-135m")})


def test_the_demo_gets_a_banner_naming_the_election_and_model() -> None:
    banner = demo_banner(DEMO)
    assert "fictional demo election" in banner and "smollm2-135m" in banner
    assert "not a measurement" in banner
    real = manifest(["j"], {"local": model("gpt-x", base="https://api"), "j": model("j")}, "x:y")
    assert demo_banner(real) is None
    assert demo_banner(None) is None


def test_seats_on_one_endpoint_are_named_and_distinct_settings_are_not() -> None:
    assert [g.seats for g in shared_judge_seats(DEMO)] == [[1, 2, 3]]
    assert "κ = AC1 = 1.000" in shared_seats_note(DEMO)
    # three names, one endpoint: still shared (identity, not name)
    same = manifest(["a", "b", "c"], {n: model("m") for n in "abc"})
    assert shared_judge_seats(same)[0].names == ["a", "b", "c"]
    # three distinct settings: no note
    distinct = manifest(
        ["a", "b", "c"],
        {n: model("m", temperature=t) for n, t in zip("abc", (0, 0.3, 0.7), strict=True)},
    )
    assert shared_judge_seats(distinct) == [] and shared_seats_note(distinct) is None
    # two of three shared: a note about those two, not about the panel
    partial = manifest(["a", "b", "c"], {"a": model("m"), "b": model("m"), "c": model("n")})
    note = shared_seats_note(partial)
    assert "seats 1, 2 of the 3-judge panel" in note and "inflates" in note


@pytest.mark.parametrize(
    "hostile",
    [{"config": "x"}, {"config": {"judges": "abc"}}, {"models": [1]}, {"config": {"elections": 3}}],
)
def test_a_malformed_manifest_gives_no_caveat_and_no_error(hostile: dict) -> None:
    read = RunManifest.model_validate(hostile)
    assert demo_banner(read) is None and shared_seats_note(read) is None


def test_no_ablations_is_explained_in_the_readers_terms() -> None:
    def content(kind: str, manifest: dict | None) -> SimpleNamespace:
        read = None if manifest is None else RunManifest.model_validate(manifest)
        return SimpleNamespace(inputs=SimpleNamespace(kind=kind, manifest=read))

    run = _no_ablations_reason(content("run", {"config": {"ablations": []}}))
    assert "ablations = []" in run and "anon_v1" not in run
    assert "anon_v1" not in _no_ablations_reason(content("release", None))
