"""``polistemics ARGS`` run as the script runs it, in a fresh Python process, followed by a few
lines of Python that report on that process (what it loaded, how it is set up)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_PROBE = """
import sys
sys.argv = ["polistemics", *{args!r}]
from polistemics.cli import main
try:
    main()
except SystemExit:
    pass
"""


def after_command(
    args: list[str],
    then: str,
    *,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess:
    """The finished probe (checked to have exited 0): ``polistemics ARGS``, then ``then``.
    ``env``: the process's environment (this one's by default), with this process's
    ``sys.path`` as its ``PYTHONPATH``."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(args=list(args)) + then],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**(os.environ if env is None else env), "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 0, done.stderr
    return done
