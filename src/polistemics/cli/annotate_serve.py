"""CLI command ``polistemics annotate serve RUN``: the annotation web app (issue 17).

Binds 127.0.0.1 unless ``--host`` names another address, which also needs ``--allow-remote``
(annotator names are not authentication) and prints a warning. ``--reveal`` shows an annotator
the panel's verdicts once their whole assignment is done (never without it). ``--port 0`` picks
a free port;
the URL is printed either way. The server (aiohttp) is imported only when the command runs, so
the other commands do not pay for it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from polistemics.cli.annotate import RunArgument, _finished_run
from polistemics.cli.errors import user_errors
from polistemics.cli.groups import group


def _announce(message: str) -> None:
    stream = sys.stderr if message.startswith("warning:") else sys.stdout
    print(message, file=stream, flush=True)


def serve_command(
    run: RunArgument,
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port (0: pick a free one).")
    ] = 8765,
    host: Annotated[
        str, typer.Option("--host", help="Address to bind; not loopback needs --allow-remote.")
    ] = "127.0.0.1",
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote", help="Allow a --host other machines can reach (no authentication)."
        ),
    ] = False,
    reveal: Annotated[
        bool,
        typer.Option(
            "--reveal",
            help="Show an annotator the panel's verdicts once their whole assignment is done "
            "(default: never).",
        ),
    ] = False,
) -> None:
    """Serve the annotation page for the run's sample on a local web server."""
    from polistemics.annotate.run_data import RunDataError
    from polistemics.annotate.server import HostRefused, NoSample, serve

    run = _finished_run(run)
    with user_errors(HostRefused, NoSample, RunDataError, OSError):
        serve(
            Path(run),
            host=host,
            port=port,
            allow_remote=allow_remote,
            reveal=reveal,
            announce=_announce,
        )


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the ``annotate`` group (``cli/annotate.py``)."""
    group(app, "annotate").command("serve")(serve_command)
