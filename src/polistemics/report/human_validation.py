"""The report's "Human validation" section (issue 17): the annotation sample's design, agreement
among annotators and with each judge and the panel, and PPI-corrected scores next to the
panel-only ones. Figures come from ``annotate.stats``; markup is in
``templates/sections/human-validation.html``.

The statistics are computed once (``annotation_stats``), their tables written to the report's
``tables/`` (``write_human_validation_tables``: typed by the columns' types as computed) and
read back (``read_human_validation``); the section draws the tables as read from those files.
The counts beside them (sample size, labels, annotators, ties) and the notes are not analyses:
they are drawn as counted.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
from pandas.api import types

from polistemics.analyses.schema import ColumnType, TableColumn, TableSchema, TableSchemaError
from polistemics.annotate.agreement import POOLED
from polistemics.annotate.small_sample import MIN_UNITS
from polistemics.annotate.stats import AnnotationStats, annotation_stats, with_tables
from polistemics.report.formatting import number, percent, row_interval, signed_points
from polistemics.report.inputs import ReportInputs
from polistemics.report.labels import (
    VARIANT_COLUMN,
    environment_label,
    order_rows,
    rubric_label,
    sub_question_label,
)
from polistemics.report.view import Column, TableView, table_view

SECTION = ("human-validation", "Human validation")
SECTION_TITLE = "Human validation of the judges"
NOT_A_RUN = "an authors' release has no annotation sample (human labels belong to a run)"


def human_validation_stats(inputs: ReportInputs) -> AnnotationStats | None:
    """The annotation figures of the run the report is about; None for a release folder.

    Read from the run directory itself (its own cells, and only the sampled items' records), not
    from ``inputs``: a combined report's inputs pool several sources, and the sample's weights
    describe this run alone.
    """
    if inputs.kind != "run" or not inputs.source.is_dir():
        return None
    return annotation_stats(inputs.source)


def _column_type(name: str, column: pd.Series) -> ColumnType:
    if types.is_bool_dtype(column):
        return "bool"
    if types.is_integer_dtype(column):
        return "int"
    if types.is_float_dtype(column):
        return "float"
    if types.is_object_dtype(column) and all(isinstance(v, str) for v in column):
        return "text"
    raise TableSchemaError(f"{name}.{column.name}: no table type for {column.dtype}")


def _schema(name: str, table: pd.DataFrame) -> TableSchema:
    """The schema of a human-validation table: its columns with the types they were computed
    with (every table has a file when written, its header alone when it has no rows)."""
    columns = tuple(
        TableColumn(c, _column_type(name, table[c]), f"annotate.stats {name}: {c}")
        for c in table.columns
    )
    return TableSchema(name, f"human validation table {name}", columns, optional=True)


def _written_tables(stats: AnnotationStats) -> dict[str, pd.DataFrame]:
    """Every table once there are labels; before that, the sample's design when drawn."""
    if stats.has_labels:
        return stats.tables()
    return {} if stats.design.empty else {"annotation_design": stats.design}


def write_human_validation_tables(stats: AnnotationStats, folder: Path) -> dict[str, TableSchema]:
    """The tables of ``stats`` as ``folder/<name>.csv``; returns the schemas written."""
    folder.mkdir(parents=True, exist_ok=True)
    tables = _written_tables(stats)
    schemas = {name: _schema(name, table) for name, table in tables.items()}
    for name, table in tables.items():
        schemas[name].write(table, folder)
    return schemas


def read_human_validation(
    stats: AnnotationStats, written: dict[str, TableSchema], folder: Path
) -> AnnotationStats:
    """``stats`` with the tables read back from ``folder`` (header and types checked against
    ``written``); a table not written is empty, not the one computed."""
    tables = {name: schema.read(folder) for name, schema in written.items()}
    empty = {name: table.iloc[0:0] for name, table in stats.tables().items()}
    return with_tables(stats, empty | tables)


def _or_all(label: Callable[[str], str]) -> Callable[[object], str]:
    return lambda value: "All" if value == POOLED else label(value)


def _pooled_last(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    pooled = frame[column] == POOLED
    return pd.concat([order_rows(frame[~pooled]), frame[pooled]], ignore_index=True)


RUBRIC = Column("Rubric", "rubric", _or_all(rubric_label))
ENVIRONMENT = Column("Environment", "environment", _or_all(environment_label))
SMALL = Column(
    "Sample",
    "small_sample",
    lambda small: f"fewer than {MIN_UNITS} labelled: indicative" if small else "",
    title=f"rests on fewer than {MIN_UNITS} labelled items: rough, read as indicative only",
    limit=None,
)
SCORE_COLUMNS = [
    Column("Answers", "n_answers", numeric=True),
    Column("Labelled", "n_labelled", numeric=True, title="labelled sample answers used"),
    Column("Panel only", "panel", percent, numeric=True),
    Column("Corrected (PPI)", "corrected", percent, numeric=True),
    Column("95% CI", row_interval(), numeric=True),
    Column("Difference (pp)", "difference", signed_points, numeric=True),
    SMALL,
]


def _design(stats: AnnotationStats) -> TableView:
    return table_view(
        order_rows(stats.design),
        [
            ENVIRONMENT,
            RUBRIC,
            Column("Judges", "judges_agreed", lambda v: "agreed" if v else "split"),
            Column("Drawn", "drawn", numeric=True),
            Column("Stratum size", "population", numeric=True),
            Column("Weight", "weight", lambda v: number(v, 2), numeric=True),
            Column("Annotators wanted", "annotators_wanted", numeric=True),
            Column("Fully labelled", "labelled", numeric=True),
            Column("Labels", "labels", numeric=True),
        ],
        caption="Sample design: strata environment x rubric x whether the judges agreed; "
        "weight = stratum size / drawn",
        table_id="annotation-design",
    )


def _agreement(stats: AnnotationStats) -> TableView:
    frame = stats.agreement[stats.agreement["n_items"] > 0]
    return table_view(
        _pooled_last(frame, "sub_question"),
        [
            RUBRIC,
            Column("Sub-question", "sub_question", _or_all(sub_question_label)),
            Column("Items", "n_items", numeric=True, title="item x sub-question, >= 2 annotators"),
            Column("Ratings", "n_ratings", numeric=True),
            Column("Annotators", "n_annotators", numeric=True),
            Column("% agreement", "percent_agreement", percent, numeric=True),
            Column("Fleiss' κ", "fleiss_kappa", number, numeric=True),
            Column("Gwet's AC1", "gwet_ac1", number, numeric=True),
            SMALL,
        ],
        caption="Human-human agreement on the items several annotators labelled",
        table_id="human-agreement",
    )


VERSUS_CAPTIONS = {
    "all": "all labelled items",
    "rubric": "per rubric",
    "sub_question": "per sub-question",
    "environment": "per environment",
    "language": "per language",
}


def _versus(stats: AnnotationStats, grain: str) -> TableView:
    group = {
        "all": [],
        "rubric": [RUBRIC],
        "sub_question": [Column("Sub-question", "sub_question", sub_question_label)],
        "environment": [ENVIRONMENT],
        "language": [Column("Language", "language")],
    }[grain]
    return table_view(
        stats.versus[grain],
        [
            Column("Judge", "judge"),
            *group,
            Column("n", "n", numeric=True),
            Column("TP", "tp", numeric=True, title="judge Yes, human Yes"),
            Column("FP", "fp", numeric=True, title="judge Yes, human No"),
            Column("FN", "fn", numeric=True, title="judge No, human Yes"),
            Column("TN", "tn", numeric=True, title="judge No, human No"),
            Column("Accuracy", "accuracy", percent, numeric=True),
            Column("95% CI", row_interval("accuracy_ci_low", "accuracy_ci_high"), numeric=True),
            Column(
                "Weighted accuracy",
                "weighted_accuracy",
                percent,
                numeric=True,
                title="items weighted by inverse inclusion probability",
            ),
            Column("AC1", "ac1", number, numeric=True),
            Column("Yes | human No", "yes_when_human_no", percent, numeric=True),
            Column("No | human Yes", "no_when_human_yes", percent, numeric=True),
            SMALL,
        ],
        caption=f"Humans (annotators' majority) vs each judge and the panel, "
        f"{VERSUS_CAPTIONS[grain]}",
        table_id=f"humans-vs-judges-{grain.replace('_', '-')}",
    )


def _scores(stats: AnnotationStats, content_labels) -> dict[str, TableView]:
    model = Column("Model", lambda r: content_labels(r["model"]))
    variant = VARIANT_COLUMN
    return {
        "rubric_scores": table_view(
            order_rows(stats.rubric_scores),
            [variant, model, ENVIRONMENT, RUBRIC, *SCORE_COLUMNS],
            caption="Rubric Scores: panel only vs corrected by the human labels (PPI)",
            table_id="corrected-rubric-scores",
        ),
        "rubric_scores_pooled": table_view(
            order_rows(stats.rubric_scores_pooled),
            [variant, ENVIRONMENT, RUBRIC, *SCORE_COLUMNS],
            caption="Rubric Scores pooled over models: panel only vs corrected (PPI)",
            table_id="corrected-rubric-scores-pooled",
        ),
        "adherence": table_view(
            order_rows(stats.adherence),
            [variant, model, ENVIRONMENT, *SCORE_COLUMNS],
            caption="Adherence Index: panel only vs corrected (mean of the corrected Rubric "
            "Scores)",
            table_id="corrected-adherence",
        ),
        "emi": table_view(
            order_rows(stats.emi),
            [
                variant,
                model,
                Column("Environments", "n_environments", numeric=True),
                Column("Panel only", "panel", percent, numeric=True),
                Column("Corrected", "corrected", percent, numeric=True),
                Column("95% CI", row_interval(), numeric=True),
                Column("Difference (pp)", "difference", signed_points, numeric=True),
                SMALL,
            ],
            caption="EMI: geometric mean of the corrected Adherence Indices (delta-method CI)",
            table_id="corrected-emi",
        ),
    }


def human_validation_view(content) -> dict:
    """View data of the section; ``content`` is the report's ``ReportContent``."""
    stats: AnnotationStats | None = content.human_validation
    if stats is None:
        return {"unavailable": NOT_A_RUN, "message": None}
    view = {
        "unavailable": None,
        "message": stats.message,
        "n_sample": stats.n_sample,
        "n_labels": stats.n_labels,
        "n_annotators": len(stats.annotators),
        "n_labelled_items": stats.n_labelled_items,
        "n_ties": stats.n_ties,
        "notes": [*(f"Warning: {text}" for text in stats.warnings), *stats.notes],
        "design": None if stats.design.empty else _design(stats),
    }
    if not stats.has_labels:
        return view
    has_overlap = bool((stats.agreement["n_items"] > 0).any())
    view |= {
        "agreement": _agreement(stats) if has_overlap else None,
        "versus": [_versus(stats, grain) for grain in VERSUS_CAPTIONS],
        **_scores(stats, content.labels),
    }
    return view
