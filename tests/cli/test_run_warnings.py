"""``polistemics run``'s closing lines: a target model whose answers were all left unscored is
named (issue 27, defect 6: a run whose verdicts were all lost ended with an empty cells.csv and
exit 0 without a word)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pandas as pd

from polistemics.cli.run import unscored_warnings
from polistemics.runlog import Answer
from polistemics.runlog.spool import SpooledAnswers


def _answer(model: str, status: str = "ok") -> Answer:
    return Answer(item_key="i", model=model, status=status, text="an answer")


def _result(answers: list[Answer], scored_models: list[str]) -> SimpleNamespace:
    cells = pd.DataFrame({"model": scored_models})
    return SimpleNamespace(answers=answers, scored=SimpleNamespace(cells=cells))


def test_a_model_with_answers_and_no_scored_cell_is_named() -> None:
    result = _result([_answer("m1"), _answer("m2")], ["m1", "m1"])
    (warning,) = unscored_warnings(result)
    assert warning.startswith("m2: answers were given but no verdict could be scored")


def test_an_empty_cells_table_names_every_answering_model() -> None:
    result = _result([_answer("m1"), _answer("m2"), _answer("m3", status="error")], [])
    assert [w.split(":")[0] for w in unscored_warnings(result)] == ["m1", "m2"]


def test_a_run_with_every_model_scored_has_no_warning() -> None:
    assert unscored_warnings(_result([_answer("m1")], ["m1"])) == []


def test_the_models_the_spool_counted_are_not_read_back(tmp_path: Path) -> None:
    """A run's answers come as the stage's spooled file, whose ok models the spool counted as
    they arrived: the warning does not read ``answers.jsonl`` (0.2 s at the paper's scale)."""
    answers = SpooledAnswers(tmp_path / "missing.jsonl", 2, ok_models=frozenset({"m1"}))
    (warning,) = unscored_warnings(SimpleNamespace(answers=answers, scored=None))
    assert warning.startswith("m1: answers were given")
