"""``--help`` without a type after flags.

Typer (0.29) prints every boolean flag as ``--dry-run <bool>``, which reads as if the flag took a
value: ``run --dry-run true`` then fails with "true: no such config file". Typer has no setting
for this, so the root group below blanks the metavar of every flag (the help option included) of
each command it resolves; a flag's metavar is only ever used for display.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from typer.core import TyperGroup

# Typer vendors its own Click (``typer._click``, private): parameters and commands are matched by
# what they have, not by class.


def _untyped_flags(params: Iterable[Any]) -> None:
    for param in params:
        if getattr(param, "is_flag", False):
            param.metavar = ""


def _untype(command: Any, ctx: Any) -> None:
    _untyped_flags(command.get_params(ctx))
    for sub in getattr(command, "commands", {}).values():
        _untype(sub, ctx)


class FlagsWithoutTypes(TyperGroup):
    """The root group: its flags, and those of every sub-command, print no ``<bool>``."""

    def get_params(self, ctx: Any) -> list[Any]:
        params = super().get_params(ctx)
        _untyped_flags(params)
        return params

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _untype(command, ctx)
        return command
