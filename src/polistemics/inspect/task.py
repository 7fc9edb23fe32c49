"""The Polistemics party-position task for inspect_ai.

    inspect eval polistemics/party_positions -T dataset=DIR --model openai/gpt-4o-mini

(the installed package's entry point, ``_registry``; from a checkout that is not installed,
``inspect eval src/polistemics/inspect/task.py@party_positions ...``).

``DIR`` is a folder written by ``polistemics export dataset``. The model under test answers each
item's task prompt (``generate``); the Polistemics judge panel scores the answer
(``scorer.judge_panel``). ``judges`` names the panel's endpoints in the model registry (default:
the paper's panel, which reads ``OPENROUTER_API_KEY``); ``models_file`` adds your own endpoints
(a registry TOML as for ``polistemics run``). ``environments`` and ``variants`` (comma-separated)
keep only those items.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.solver import generate

from polistemics.inspect.samples import item_samples
from polistemics.inspect.scorer import PAPER_JUDGES, judge_panel


@task
def party_positions(
    dataset: str,
    judges: str | list[str] = ",".join(PAPER_JUDGES),
    models_file: str | None = None,
    environments: str | list[str] | None = None,
    variants: str | list[str] | None = None,
) -> Task:
    """Ask the model under test the dataset's party-position questions; judge with the panel."""
    return Task(
        dataset=item_samples(dataset, _names(environments), _names(variants)),
        solver=generate(),
        scorer=judge_panel(judges=_names(judges) or list(PAPER_JUDGES), models_file=models_file),
    )


def _names(value: str | list[str] | None) -> list[str] | None:
    """A comma-separated string (as ``-T name=a,b`` gives it) or a list, as a list."""
    if value is None:
        return None
    parts = value.split(",") if isinstance(value, str) else value
    return [part.strip() for part in parts if part.strip()] or None
