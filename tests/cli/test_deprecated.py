"""Old option spellings (docs/cli.md, "Renamed options"): each still works like the new one, warns
once on standard error, and is absent from ``--help``."""

from __future__ import annotations

import re

import pytest
from cli_vocabulary import arguments, leaf_commands, renamed_options, visible_options
from typer.testing import CliRunner

from environments.helpers import mini_election
from polistemics.cli import app

runner = CliRunner()
COMMANDS = leaf_commands()
RENAMES = sorted(
    (path, rename.old, rename.new)
    for path, command in COMMANDS.items()
    for _, rename in renamed_options(command)
)
VALUE = "7"  # valid for every renamed option's type: text, a path, a count >= 1


def _required(command, skip: str) -> list[str]:
    """Placeholder values for the command's required arguments and options (but ``skip``)."""
    args = [VALUE for p in arguments(command) if p.required]
    for option in visible_options(command):
        if option.required and skip not in option.opts:
            args += [option.opts[0], VALUE]
    return args


def _parse(path: str, *args: str) -> dict:
    command = COMMANDS[path]
    return command.make_context(path, [*args]).params


def test_there_are_renamed_spellings():
    assert ("run", "--output", "--out") in RENAMES and len(RENAMES) == 9


@pytest.mark.parametrize(("path", "old", "new"), RENAMES)
def test_an_old_spelling_sets_what_the_new_one_sets_and_warns_once(path, old, new, capsys):
    required = _required(COMMANDS[path], skip=new)
    expected = _parse(path, *required, new, VALUE)
    assert capsys.readouterr().err == ""
    assert _parse(path, *required, old, VALUE) == expected
    assert capsys.readouterr().err == f"warning: {old} is deprecated; use {new}\n"
    assert _parse(path, *required, f"{old}={VALUE}") == expected
    assert capsys.readouterr().err.count("deprecated") == 1


@pytest.mark.parametrize(("path", "old", "new"), RENAMES)
def test_the_new_spelling_wins_over_the_old(path, old, new, capsys):
    required = _required(COMMANDS[path], skip=new)
    expected = _parse(path, *required, new, VALUE)
    assert _parse(path, *required, old, "8", new, VALUE) == expected
    assert capsys.readouterr().err == f"warning: {old} is deprecated; use {new}\n"


@pytest.mark.parametrize("path", sorted({path for path, _, _ in RENAMES}))
def test_help_shows_only_the_new_spellings(path):
    result = runner.invoke(app, [*path.split(), "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for where, old, new in RENAMES:
        if where == path:
            assert not re.search(rf"(?<![\w-]){re.escape(old)}(?![\w-])", result.output), old
            assert new in result.output


def test_an_old_spelling_keeps_its_checks_under_the_new_name():
    result = runner.invoke(
        app, ["environments", "build", "--only", "baseline", "--max-vague-attempts", "0"]
    )
    assert result.exit_code == 2
    assert "--vague-max-tries" in result.output


def test_environments_build_with_old_spellings_end_to_end(tmp_path):
    evidence = tmp_path / "evidence.jsonl"
    evidence.write_text("".join(e.model_dump_json() + "\n" for e in mini_election()), "utf-8")
    old = runner.invoke(
        app,
        ["environments", "build", "--evidence", str(evidence), "--only", "baseline"]
        + ["--out", str(tmp_path / "old.jsonl")],
    )
    new = runner.invoke(
        app,
        ["environments", "build", "--evidence", str(evidence), "--environments", "baseline"]
        + ["-o", str(tmp_path / "new.jsonl")],
    )
    assert old.exit_code == 0 and new.exit_code == 0, old.output + new.output
    assert old.stderr == "warning: --only is deprecated; use --environments\n"
    assert new.stderr == ""
    assert (tmp_path / "old.jsonl").read_bytes() == (tmp_path / "new.jsonl").read_bytes()


def test_coder_validate_names_the_new_spelling_when_the_coder_is_missing():
    result = runner.invoke(app, ["coder", "validate", "--registry", "models.toml"])
    assert result.exit_code == 2
    assert "--stance-coder" in result.output
    assert result.stderr.startswith("warning: --registry is deprecated; use --models-file\n")
