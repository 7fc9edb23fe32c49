"""The inspect_ai entry point (pyproject.toml, ``[project.entry-points.inspect_ai]``): once the
package is installed, inspect_ai resolves ``polistemics/party_positions`` by name.

An installed copy is simulated by a ``polistemics`` dist-info folder (the metadata an install
writes: its name, the entry points read from pyproject.toml, an editable ``direct_url.json``)
first on ``sys.path`` of a fresh interpreter, so inspect_ai finds the entry point through
``importlib.metadata`` as it would after ``pip install``; the shared venv is left as it is.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="the dev extra installs inspect-ai")

ROOT = Path(__file__).resolve().parents[2]
TASK = "polistemics/party_positions"


def declared_entry_points() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project.get("entry-points", {}).get("inspect_ai", {})


def installed_metadata(folder: Path) -> Path:
    """A ``polistemics`` dist-info in ``folder`` with pyproject's entry points."""
    info = folder / "polistemics-0.0.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: polistemics\nVersion: 0.0.0\n")
    lines = ["[inspect_ai]", *(f"{k} = {v}" for k, v in declared_entry_points().items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    (info / "direct_url.json").write_text(
        json.dumps({"url": ROOT.as_uri(), "dir_info": {"editable": True}})
    )
    return folder


RESOLVE = f"""
import sys
from importlib.metadata import entry_points
from inspect_ai._util.registry import registry_info, registry_lookup
assert "polistemics.inspect.task" not in sys.modules  # nothing imported it yet
print(sorted(ep.value for ep in entry_points(group="inspect_ai") if ep.name == "polistemics"))
found = registry_lookup("task", "{TASK}")
print(registry_info(found).name if found is not None else None)
"""


def test_pyproject_registers_the_task_module_under_the_package_name() -> None:
    assert declared_entry_points() == {"polistemics": "polistemics.inspect._registry"}


def test_an_installed_package_resolves_the_task_by_name(tmp_path: Path) -> None:
    site = installed_metadata(tmp_path / "site")
    path = os.pathsep.join([str(site), str(ROOT / "src")])
    done = subprocess.run(
        [sys.executable, "-c", RESOLVE],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["['polistemics.inspect._registry']", TASK]


def test_without_the_entry_point_the_name_does_not_resolve(tmp_path: Path) -> None:
    """The check above can fail: with no inspect_ai entry point the lookup finds nothing."""
    site = tmp_path / "site" / "polistemics-0.0.0.dist-info"
    site.mkdir(parents=True)
    (site / "METADATA").write_text("Metadata-Version: 2.1\nName: polistemics\nVersion: 0.0.0\n")
    path = os.pathsep.join([str(site.parent), str(ROOT / "src")])
    done = subprocess.run(
        [sys.executable, "-c", RESOLVE],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["[]", "None"]
