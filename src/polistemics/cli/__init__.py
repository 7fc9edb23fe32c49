"""The ``polistemics`` command. Every command module exposes ``register(app)``, which adds its
commands to the root app (groups: ``cli/groups.py``; old option spellings: ``cli/deprecated.py``;
the vocabulary: docs/cli.md).

``main()`` imports only the modules of the command it is asked to run, so a light command does
not pay for the heavy ones (``annotate serve`` would otherwise load matplotlib, scipy and the
report first: seconds before its first page). ``app``, every command, is built on first use
(``from polistemics.cli import app``: tests, and ``main()`` for ``--help`` or an unknown name).
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Iterable, Sequence

import typer

from polistemics import __version__
from polistemics.cli.console import widen_piped_help
from polistemics.cli.help_format import FlagsWithoutTypes

# Command -> the modules that register it, in --help order (a group's own module first).
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "new": ("new",),
    "data": ("data", "evidence"),
    "environments": ("environments",),
    "score": ("score",),
    "compare": ("compare",),
    "export": ("export",),
    "report": ("report",),
    "run": ("run",),
    "cache": ("cache",),
    "batch": ("batch", "batch_files"),
    "annotate": ("annotate", "annotate_stats", "annotate_serve"),
    "coder": ("coder",),
}


def _version(value: bool) -> None:
    if value:
        typer.echo(__version__)
        raise typer.Exit()


def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """Polistemics benchmark harness."""


def build_app(commands: Iterable[str] = tuple(COMMAND_MODULES)) -> typer.Typer:
    """The command line with ``commands`` registered."""
    widen_piped_help()
    app = typer.Typer(
        name="polistemics",
        cls=FlagsWithoutTypes,
        help="Audit how large language models mediate political information before elections.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    app.callback()(_root)
    for command in commands:
        for name in COMMAND_MODULES[command]:
            importlib.import_module(f"polistemics.cli.{name}").register(app)
    return app


def requested_command(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names, when it is a known one; None for none, options or typos."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMAND_MODULES else None
    return None


def __getattr__(name: str) -> typer.Typer:
    if name == "app":
        built = build_app()
        globals()["app"] = built
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# numpy's OpenBLAS keeps a thread per core, and after each matrix product (the bootstraps'
# resample weights) a helper thread spins for a while before it sleeps: about 0.8 CPU seconds
# per report of a small study, taken from the other core, where a run's event loop or its side
# process works. The products are small enough that one thread computes them as fast. Set before
# numpy is imported (it reads the variable once); a value the user set is kept.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "1")


def single_threaded_blas() -> None:
    """Run numpy's OpenBLAS on one thread unless the user chose otherwise (``BLAS_THREADS``)."""
    name, value = BLAS_THREADS
    os.environ.setdefault(name, value)


def main() -> None:
    single_threaded_blas()
    command = requested_command(sys.argv[1:])
    try:
        if command is None:
            from polistemics.cli import app  # every command: --help, --version, a suggestion

            app()
        else:
            build_app([command])()
    finally:
        # The process ends next. Python's exit runs the cyclic collector over every object
        # still alive, to find almost no garbage: after a paper-scale run, 0.7 s of its last
        # 0.8 s. Frozen, they are out of its sight; every object is still freed and every exit
        # handler still runs. Here, not in the commands: a caller that runs a command in its
        # own process (the tests) keeps its collector whole.
        gc.freeze()
