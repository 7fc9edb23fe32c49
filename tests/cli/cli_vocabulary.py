"""Helpers for the vocabulary tests: every command of the built app, and docs/cli.md's tables."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer.main

from polistemics.cli import build_app
from polistemics.cli.deprecated import RenamedOption, renamed_option

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def all_commands() -> dict[str, Any]:
    """``"environments build"`` -> its built command, for every command of the app ("" the root)."""
    found: dict[str, Any] = {}

    def walk(command: Any, path: str) -> None:
        found[path] = command
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}".strip())

    walk(typer.main.get_command(build_app()), "")
    return found


def leaf_commands() -> dict[str, Any]:
    """The commands that run something (not groups), by path."""
    return {path: c for path, c in all_commands().items() if not getattr(c, "commands", None)}


def is_option(param: Any) -> bool:
    return any(opt.startswith("-") for opt in param.opts)


def visible_options(command: Any) -> list[Any]:
    return [p for p in command.params if is_option(p) and not getattr(p, "hidden", False)]


def arguments(command: Any) -> list[Any]:
    return [p for p in command.params if not is_option(p)]


def renamed_options(command: Any) -> list[tuple[Any, RenamedOption]]:
    return [(p, r) for p in command.params if (r := renamed_option(p)) is not None]


@dataclass(frozen=True)
class DocRow:
    command: str
    names: tuple[str, ...]  # the backticked names of the second column
    config_key: str  # "" when none


def _table(heading: str) -> list[list[str]]:
    """The rows (cells stripped) of the first table under ``## heading``."""
    text = DOCS.read_text(encoding="utf-8")
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[2:]]


def _ticked(cell: str) -> tuple[str, ...]:
    return tuple(re.findall(r"`([^`]+)`", cell))


def _command(cell: str) -> str:
    return "" if cell == "(root)" else _ticked(cell)[0]


def documented_options() -> list[DocRow]:
    rows = []
    for cells in _table("Every command and option"):
        key = _ticked(cells[3])
        rows.append(DocRow(_command(cells[0]), _ticked(cells[1]), key[0] if key else ""))
    return rows


def documented_renames() -> set[tuple[str, str, str]]:
    """(command, old spelling, new spelling) of the renamed-options table."""
    return {
        (_command(cells[0]), _ticked(cells[1])[0], _ticked(cells[2])[0])
        for cells in _table("Renamed options")
    }
