"""The model stages of a run, in the order they run (``base.Stage``).

The pipeline runs them, the dry-run plans them, the finish step writes their files and their
parts of ``run.json`` (in this order), and ``polistemics run --dry-run`` prints their notes: a
new stage is a new module here and one line in ``STAGES``.
"""

from __future__ import annotations

from polistemics.run.stages.answers import AnswersAndJudges
from polistemics.run.stages.base import Stage
from polistemics.run.stages.comparison import Comparison
from polistemics.run.stages.environments import Environments
from polistemics.run.stages.issue_mapping import IssueMapping
from polistemics.run.stages.judge_repeats import JudgeRepeats
from polistemics.run.stages.navigation import Navigation
from polistemics.run.stages.prior_probe import PriorProbe
from polistemics.run.stages.pushback import PushbackTurns
from polistemics.run.stages.stance_code import StanceCode
from polistemics.run.stages.standardise import Standardise

STAGES: list[Stage] = [
    Standardise(),
    Environments(),
    AnswersAndJudges(),
    JudgeRepeats(),
    PriorProbe(),
    StanceCode(),
    Navigation(),
    Comparison(),
    IssueMapping(),
    PushbackTurns(),
]
