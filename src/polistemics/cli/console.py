"""Consoles whose output is never cut when it is not a terminal.

Rich lays out for 80 columns (or ``$COLUMNS``) when its stream is not a terminal, so piped
tables lose their headers and cells to ellipses ("Basel… Contr…"). Piped, tables and text on
stdout are printed as wide as they need, whatever ``$COLUMNS`` says (a file has no width; test
runners such as pytest-xdist's workers set it to 80). ``--help`` fills its panels to the width,
so it keeps a width a reader can follow: ``$COLUMNS`` or ``$TERMINAL_WIDTH`` when set, else
``HELP_WIDTH``, wide enough that no option name or listed value is cut.
"""

from __future__ import annotations

import os
import sys

from rich.console import Console

UNWRAPPED_WIDTH = 10_000  # wider than any table: piped lines are never cut or wrapped
HELP_WIDTH = 160


def stdout_console() -> Console:
    """Rich for a table or text on stdout: on a terminal its width; piped, as wide as the lines
    need."""
    if sys.stdout.isatty():
        return Console()
    return Console(width=UNWRAPPED_WIDTH, soft_wrap=True)


def widen_piped_help() -> None:
    """Typer's help and error panels at ``HELP_WIDTH`` when stdout is not a terminal and no width
    is chosen (``$COLUMNS``, ``$TERMINAL_WIDTH``)."""
    import typer.rich_utils

    chosen = any(os.environ.get(name, "").strip() for name in ("COLUMNS", "TERMINAL_WIDTH"))
    if sys.stdout.isatty() or chosen:
        return
    typer.rich_utils.MAX_WIDTH = HELP_WIDTH
