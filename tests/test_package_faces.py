"""The packages whose public names are imported on first use (issue 26: a command imports only
what it uses): each name in ``__all__`` resolves to the object its module defines, as when the
package imported them all at once; an unknown name is an AttributeError."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

LAZY_PACKAGES = (
    "polistemics.analyses",
    "polistemics.compare",
    "polistemics.report.figures",
    "polistemics.runlog",
    "polistemics.scoring.mechanisms",
    "polistemics.stats",
)


def _names() -> list[tuple[str, str]]:
    return [
        (package, name)
        for package in LAZY_PACKAGES
        for name in importlib.import_module(package).__all__
    ]


@pytest.mark.parametrize(("package", "name"), _names())
def test_each_public_name_is_its_modules_object(package: str, name: str) -> None:
    face = importlib.import_module(package)
    target = getattr(face, "_ALIASES", {}).get(name, name)
    module = importlib.import_module(face._EXPORTS[target])
    assert getattr(face, name) is getattr(module, target)


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_all_lists_exactly_the_lazy_exports(package: str) -> None:
    face = importlib.import_module(package)
    assert sorted(face.__all__) == sorted([*face._EXPORTS, *getattr(face, "_ALIASES", {})])


@pytest.mark.parametrize("package", [*LAZY_PACKAGES, "polistemics.tasks"])
def test_an_unknown_name_is_an_attribute_error(package: str) -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        importlib.import_module(package).nothing_here  # noqa: B018


# A function named as its own module (stats.agreement_intervals, mechanisms.prior_accuracy):
# importing the module first must not make the package's name the module.
PROBE = """
import importlib, sys
import {package}.{name}
from {package} import {name}
print(callable({name}) and not isinstance({name}, type(sys)))
"""


@pytest.mark.parametrize(
    ("package", "name"),
    [
        ("polistemics.stats", "agreement_intervals"),
        ("polistemics.scoring.mechanisms", "prior_accuracy"),
        ("polistemics.scoring.mechanisms", "follows_evidence"),
    ],
)
def test_a_function_named_as_its_module_stays_the_function(package: str, name: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(package=package, name=name)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip() == "True", done.stderr


def test_the_tasks_are_defined_on_first_use() -> None:
    import polistemics.tasks as tasks
    from polistemics.tasks.party_position import PARTY_POSITION_TASK

    assert list(tasks.TASKS) == list(tasks.TASK_NAMES)
    assert tasks.TASKS[tasks.PARTY_POSITION] is PARTY_POSITION_TASK
    assert tasks.task_of_call_stage("comparison_judge") == tasks.COMPARISON
    assert tasks.task_of_call_stage("answer") == tasks.PARTY_POSITION
