"""One CLI vocabulary (docs/cli.md), checked on every command of the built app, so that drift
(``--output`` here, ``--out`` there; a flag spelled unlike its config key) cannot come back."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from cli_vocabulary import (
    all_commands,
    arguments,
    documented_options,
    documented_renames,
    leaf_commands,
    renamed_options,
    visible_options,
)

from polistemics.cli import COMMAND_MODULES, build_app
from polistemics.run.config import ElectionConfig, RunConfig

COMMANDS = leaf_commands()
# Spellings retired for good: none may be a visible option again (docs/cli.md, "Renamed options").
RETIRED = {old for _, old, _ in documented_renames()}
# Flags that set a config key but are spelled otherwise (docs/cli.md explains both).
CONFIG_SPELLING_EXCEPTIONS = {
    ("run", "--out"),
    ("data inspect", "--election-id"),
    ("new", "--election-id"),
}


def spellings(command) -> set[str]:
    return {opt for p in visible_options(command) for opt in (*p.opts, *p.secondary_opts)}


def test_the_walk_finds_every_command_and_the_docs_list_them():
    assert {
        "run",
        "environments build",
        "annotate serve",
        "data fidelity",
        "coder validate",
    } <= set(COMMANDS)
    assert set(COMMANDS) == {row.command for row in documented_options()} - {""}


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_no_visible_option_uses_a_retired_spelling(path):
    shown = spellings(COMMANDS[path])
    assert not shown & RETIRED
    assert not any(opt.startswith("--output") for opt in shown)


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_every_output_location_is_out_with_o(path):
    for param in visible_options(COMMANDS[path]):
        names = set(param.opts)
        if names & {"--out", "-o"}:
            assert names == {"--out", "-o"}, f"{path}: {sorted(names)}"
        elif _is_path(param):
            assert not re.search(r"\b(write|output)\b", param.help or "", re.I), (
                f"{path} {param.opts}: an output location must be --out/-o"
            )


def _is_path(param) -> bool:
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    return isinstance(annotation, type) and issubclass(annotation, Path)


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_a_run_directory_is_the_first_argument(path):
    command = COMMANDS[path]
    names = [p.name for p in arguments(command)]
    assert "run_dir" not in names, f"{path}: call the run argument 'run'"
    if "run" in names:
        assert names.index("run") == 0, f"{path}: the run directory comes first"
        assert "--run-dir" not in spellings(command)


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_every_hidden_option_is_a_renamed_spelling_of_a_visible_one(path):
    command = COMMANDS[path]
    hidden = [p for p in command.params if getattr(p, "hidden", False)]
    renamed = renamed_options(command)
    assert [p for p, _ in renamed] == hidden
    for param, rename in renamed:
        assert param.opts == [rename.old] and not param.expose_value
        assert rename.new in spellings(command), f"{path}: {rename.old} -> {rename.new}?"


def test_docs_list_every_renamed_spelling():
    found = {
        (path, rename.old, rename.new)
        for path, command in COMMANDS.items()
        for _, rename in renamed_options(command)
    }
    assert found == documented_renames()


def test_docs_list_every_option_of_every_command():
    documented: dict[str, set[str]] = {}
    for row in documented_options():
        documented.setdefault(row.command, set()).update(
            name for name in row.names if name.startswith("-")
        )
    for path, command in all_commands().items():
        if getattr(command, "commands", None) and path:
            continue  # a group: --help only
        shown = spellings(command) - {"--help"}
        assert shown == documented.get(path, set()), f"docs/cli.md, `{path or '(root)'}`"


def test_flags_are_spelled_like_their_config_keys():
    keys = set(RunConfig.model_fields) | {
        f"[[elections]] {key}" for key in ElectionConfig.model_fields
    }
    checked = 0
    for row in documented_options():
        if not row.config_key:
            continue
        assert row.config_key in keys, f"docs/cli.md: no config key {row.config_key!r}"
        flag = row.names[0]
        if not flag.startswith("-") or (row.command, flag) in CONFIG_SPELLING_EXCEPTIONS:
            continue
        bare = row.config_key.removeprefix("[[elections]] ")
        assert flag == "--" + bare.replace("_", "-"), f"{row.command} {flag} sets {bare}"
        checked += 1
    assert checked >= 10


def test_every_command_module_registers_through_register_app():
    for modules in COMMAND_MODULES.values():
        for name in modules:
            module = importlib.import_module(f"polistemics.cli.{name}")
            assert callable(module.register), name
            assert not [v for v in vars(module).values() if _is_typer_app(v)], (
                f"cli/{name}.py keeps a module-level app: groups are made per app"
            )


def _is_typer_app(value) -> bool:
    import typer

    return isinstance(value, typer.Typer)


def test_building_the_app_twice_registers_nothing_twice():
    first, second = build_app(), build_app()
    for app in (first, second):
        for info in app.registered_groups:
            names = [c.name for c in info.typer_instance.registered_commands]
            assert len(names) == len(set(names)), info.name
    assert set(all_commands()) == set(all_commands())
