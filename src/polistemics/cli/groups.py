"""Command groups (``polistemics data ...``, ``annotate ...``) whose commands live in several modules.

Every command module exposes ``register(app)``, ``app`` being the root app. A group's own module
adds the group (``add_group``); a module with more commands of that group, registered after it
(``COMMAND_MODULES`` order), finds it with ``group``. Groups are made per app, so building the
app twice registers nothing twice.
"""

from __future__ import annotations

import typer


def add_group(app: typer.Typer, name: str, help: str) -> typer.Typer:
    """A new command group ``name`` on ``app``."""
    group = typer.Typer(help=help, no_args_is_help=True)
    app.add_typer(group, name=name)
    return group


def group(app: typer.Typer, name: str) -> typer.Typer:
    """The command group ``name`` an earlier module added to ``app``."""
    for info in app.registered_groups:
        if info.name == name and info.typer_instance is not None:
            return info.typer_instance
    raise LookupError(f"no command group {name!r} on the app: register its module first")
