"""Old option spellings, kept for one release: hidden from ``--help``, one warning when used.

An old spelling is declared as a second, hidden option right after the option that replaced it::

    out: Annotated[Path | None, typer.Option("--out", "-o", help="...")] = None,
    _output: Annotated[str | None, renamed("--output", "--out")] = None,

Given on the command line, it prints ``warning: --output is deprecated; use --out`` to standard
error and hands its raw text to the new option as that option's default (``ctx.default_map``),
so the new option's type, range and required checks apply exactly as if the new spelling had been
typed; when both spellings are given, the new one wins. The old option is eager (processed before
the option it feeds), takes any text, and is never passed to the command function. Only options
that take a value can be renamed this way (none of the renamed ones is a flag).

docs/cli.md lists every old spelling; tests/cli/test_vocabulary.py finds them through
``renamed_option`` and checks each still works.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import typer


@dataclass(frozen=True)
class RenamedOption:
    """The callback of an old spelling: warn, then forward the value to the new option."""

    old: str
    new: str

    def __call__(self, ctx: typer.Context, value: Any) -> None:
        if value is None:  # the old spelling was not used
            return
        print(f"warning: {self.old} is deprecated; use {self.new}", file=sys.stderr)
        target = next((p for p in ctx.command.params if self.new in p.opts), None)
        if target is None:  # a declaration error, not a user error
            raise RuntimeError(f"{ctx.command.name}: {self.old} renames {self.new}, not an option")
        ctx.default_map = {**(ctx.default_map or {}), target.name: value}


def renamed(old: str, new: str) -> Any:
    """A hidden option spelled ``old`` whose value goes to the option spelled ``new``.

    Declare it with ``Annotated[str | None, renamed(...)] = None``; the parameter is never set.
    """
    return typer.Option(
        old, hidden=True, expose_value=False, is_eager=True, callback=RenamedOption(old, new)
    )


def renamed_option(param: Any) -> RenamedOption | None:
    """The ``RenamedOption`` behind a parameter of a built command, or None for any other."""
    callback = getattr(param, "callback", None)
    original = getattr(callback, "__wrapped__", callback)  # typer wraps callbacks
    return original if isinstance(original, RenamedOption) else None
