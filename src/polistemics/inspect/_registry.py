"""What the ``inspect_ai`` entry point of this package registers (pyproject.toml,
``[project.entry-points.inspect_ai]``): inspect_ai imports this module before it resolves a name
in the ``polistemics/`` namespace, so that once the package is installed

    inspect eval polistemics/party_positions -T dataset=DIR --model openai/gpt-4o-mini

finds the task without a path to its file. Importing this module imports inspect_ai.
"""

from polistemics.inspect.scorer import judge_panel
from polistemics.inspect.task import party_positions

__all__ = ["judge_panel", "party_positions"]
