"""One way for every command to stop on a user error: a clear message and a non-zero exit."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import typer


class UserError(Exception):
    """Bad input or configuration: shown to the user as one line, exit code 2."""


@contextmanager
def user_errors(*kinds: type[BaseException]) -> Iterator[None]:
    """Turn the given exception kinds (and UserError) into 'error: ...' and exit 2."""
    try:
        yield
    except (UserError, *kinds) as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise typer.Exit(2) from None


def fail(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)
    raise typer.Exit(2)


Handler = Callable[..., None]
