"""The command line's exit: the objects alive when a command ends are frozen out of the cyclic
collector's sight (``polistemics.cli.main``), whose walks over them at the interpreter's exit
found almost nothing (0.7 s after a paper-scale run); exit handlers still run."""

from __future__ import annotations

import gc

from command_probe import after_command
from typer.testing import CliRunner

from polistemics.cli import build_app

FROZEN_NOW = """
import gc
print("frozen", gc.get_freeze_count())
"""


def test_a_finished_command_leaves_its_objects_frozen_and_its_output_whole() -> None:
    done = after_command(["score", "--help"], FROZEN_NOW)
    assert "--json" in done.stdout  # the command's own output came first, whole
    assert int(done.stdout.split()[-1]) > 10_000  # the modules it loaded, at least


def test_a_command_run_in_this_process_freezes_nothing() -> None:
    before = gc.get_freeze_count()
    assert CliRunner().invoke(build_app(["score"]), ["score", "--help"]).exit_code == 0
    assert gc.get_freeze_count() == before
