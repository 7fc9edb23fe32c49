import json

import pytest

pytest.importorskip("polistemics.sources.load")

from typer.testing import CliRunner  # noqa: E402

from polistemics.cli import app  # noqa: E402
from polistemics.evidence.fidelity import raw_fidelity  # noqa: E402
from polistemics.sources.load import load_election  # noqa: E402
from polistemics.sources.scope import apply_scope  # noqa: E402

runner = CliRunner()


def test_fidelity_json_matches_the_library():
    result = runner.invoke(app, ["data", "fidelity", "demo:de", "--json"])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    expected = raw_fidelity(apply_scope(load_election("demo:de"), None).in_scope_positions)
    assert printed == expected.model_dump(mode="json")
    assert printed["rationales"] > 0


def test_fidelity_text_output():
    result = runner.invoke(app, ["data", "fidelity", "demo:de"])
    assert result.exit_code == 0, result.output
    for name in (
        "intensifier_density_raw",
        "intensifier_density_raw_pooled",
        "tokens",
        "rationales",
    ):
        assert name in result.output


def test_bad_source_is_a_clear_error():
    result = runner.invoke(app, ["data", "fidelity", "nonsense:x"])
    assert result.exit_code == 2
    assert "nonsense" in result.output


@pytest.mark.shared
def test_fidelity_on_wahlomat_with_paper_scope(shared_dir):
    source = f"wahlomat:{shared_dir / 'data' / 'wahlomat' / 'bundestagswahl2025'}"
    result = runner.invoke(app, ["data", "fidelity", source, "--scope", "de-btw2025", "--json"])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    assert (printed["rationales"], printed["without_rationale"]) == (245, 21)
    assert printed["intensifier_density_raw"] == pytest.approx(0.46, abs=0.05)
