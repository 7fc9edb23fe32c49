"""Run configs: presets load, and each kind of mistake gives one clear message naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from polistemics.cli import app
from polistemics.conditions import Variant
from polistemics.run.config import PRESETS, ConfigError, load_config


@pytest.mark.parametrize("name", PRESETS)
def test_presets_load(name: str) -> None:
    config = load_config(name)
    assert config.targets and len(config.judges) == 3
    ablations = [] if name == "demo" else [Variant.ANONYMIZED, Variant.ENGLISH]
    assert config.variants == [Variant.FULL, *ablations]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "study.toml"
    path.write_text(text, encoding="utf-8")
    return path


VALID = """
name = "x"
targets = ["local"]
judges = ["local", "local", "local"]
standardiser = "local"
vague_generator = "local"
vague_auditor = "local"
[[elections]]
source = "demo"
"""


@pytest.mark.parametrize(
    ("text", "names"),
    [
        (VALID + "colour = 'red'\n", "colour"),
        (VALID.replace('targets = ["local"]', 'targets = "local"'), "targets"),
        (VALID.replace('name = "x"', 'name = "x"\nsamples = 0'), "samples"),
        (VALID.replace('name = "x"', 'name = "x"\nenvironments = ["sunny"]'), "sunny"),
        (VALID + "bogus = 1\n", "bogus"),
        ("name = [", "not valid TOML"),
    ],
    ids=["unknown-key", "wrong-type", "out-of-range", "unknown-environment", "extra-key", "toml"],
)
def test_config_errors_name_the_key(tmp_path: Path, text: str, names: str) -> None:
    with pytest.raises(ConfigError, match=names):
        load_config(write(tmp_path, text))


def test_cli_reports_a_bad_config_in_one_line_and_writes_nothing(tmp_path: Path) -> None:
    config = write(
        tmp_path,
        VALID.replace(
            'name = "x"', f'name = "x"\noutput_dir = "{tmp_path / "run"}"\nseed = "zero"'
        ),
    )
    result = CliRunner().invoke(app, ["run", str(config)])
    assert result.exit_code == 2
    assert "seed" in result.stderr and result.stderr.strip().count("\n") == 0
    assert not (tmp_path / "run").exists()


def test_unknown_model_and_missing_config_are_clear(tmp_path: Path) -> None:
    config = write(tmp_path, VALID.replace('targets = ["local"]', 'targets = ["nonesuch"]'))
    result = CliRunner().invoke(app, ["run", str(config), "--dry-run"])
    assert result.exit_code == 2 and "unknown model 'nonesuch'" in result.stderr
    missing = CliRunner().invoke(app, ["run", str(tmp_path / "absent.toml")])
    assert missing.exit_code == 2 and "no such config file" in missing.stderr
