"""``annotation_stats(run_dir)``: everything issue 17 asks of the human labels, in one bundle.

From the run's annotation store (sample and labels), its items (exports), its majority-voted
cells (``scores/cells.csv``: the panel's labels on all answers) and its raw judge records
(``judges.jsonl``: each judge's verdicts on the sampled answers):

- the sample design (strata, draws, weights, overlap, labelled items);
- human-human agreement per sub-question and rubric (``agreement``);
- humans against each judge and the panel majority (``versus``);
- PPI-corrected Rubric Scores, Adherence Indices and EMI next to the panel-only ones (``ppi``).

Labels carry sub-question codes ("F1"); they are turned into the release keys the judges'
verdicts and the cells use.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from polistemics.annotate.agreement import human_agreement
from polistemics.annotate.ppi import (
    ANSWER_RUBRIC,
    corrected_adherence,
    corrected_emi,
    corrected_rubric_scores,
    human_answer_scores,
    panel_answer_scores,
)
from polistemics.annotate.run_data import (
    AnswerRubric,
    PanelRow,
    RunDataError,
    items_for,
    judge_rows,
)
from polistemics.annotate.small_sample import MIN_UNITS, warning
from polistemics.annotate.store import SAMPLE_COLUMNS, AnnotationStore, Label, SampleItem
from polistemics.annotate.versus import human_majority, versus_tables
from polistemics.rubrics import BY_CODE, BY_KEY, Rubric
from polistemics.runlog import CELLS_FILE, JudgeVerdictRecord, RunDir, RunFileError
from polistemics.runlog.items import EnvironmentItem
from polistemics.scoring.cells import ITEM_COLUMNS
from polistemics.scoring.verdict_table import panel_judge_id
from polistemics.tasks import PARTY_POSITION

NO_LABELS = (
    "No human labels yet: label the drawn sample with `polistemics annotate serve RUN` (or "
    "`polistemics annotate import RUN FILE`)."
)
NO_SAMPLE = (
    "No human labels yet: run `polistemics annotate sample RUN` to draw a sample (the run has "
    "none), then label it with `polistemics annotate serve RUN`."
)


@dataclass
class AnnotationStats:
    run_dir: Path
    n_sample: int  # drawn sample items (answer x rubric)
    n_labels: int
    annotators: list[str]
    n_labelled_items: int  # sample items fully labelled by at least one annotator
    design: pd.DataFrame  # per stratum: draws, weight, population, overlap, labelled
    agreement: pd.DataFrame  # human-human, per sub-question (+ pooled row)
    agreement_by_rubric: pd.DataFrame
    versus: dict[str, pd.DataFrame]  # grain -> humans vs each judge and the panel
    n_ties: int  # item x sub-question instances whose annotators tie (left out of ``versus``)
    rubric_scores: pd.DataFrame  # corrected vs panel-only, per model x environment x rubric
    rubric_scores_pooled: pd.DataFrame  # the same pooled over models
    adherence: pd.DataFrame  # per model x environment
    emi: pd.DataFrame  # per model
    notes: list[str] = field(default_factory=list)

    @property
    def has_labels(self) -> bool:
        return self.n_labels > 0

    @property
    def message(self) -> str | None:
        """What to do first, when there is nothing to show yet."""
        if self.n_sample == 0:
            return NO_SAMPLE
        return None if self.has_labels else NO_LABELS

    @property
    def warnings(self) -> list[str]:
        """One sentence per table with rows on fewer than 30 labelled items (``small_sample``);
        empty without labels (nothing is estimated then)."""
        if not self.has_labels:
            return []
        found = [
            warning(title, frame)
            for title, frame in (
                ("Human-human agreement", self.agreement),
                ("Humans vs judges", self.versus.get("all", pd.DataFrame())),
                ("Corrected Rubric Scores", self.rubric_scores),
                ("Corrected Rubric Scores pooled over models", self.rubric_scores_pooled),
                ("Corrected Adherence Indices", self.adherence),
                ("Corrected EMI", self.emi),
            )
        ]
        if self.n_labelled_items < MIN_UNITS:
            found.insert(
                0,
                f"only {self.n_labelled_items} sample items are fully labelled (fewer than "
                f"{MIN_UNITS}): every figure below is indicative only",
            )
        return [text for text in found if text]

    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table by a file-name-safe name."""
        tables = {
            "annotation_design": self.design,
            "human_agreement": self.agreement,
            "human_agreement_by_rubric": self.agreement_by_rubric,
            "corrected_rubric_scores": self.rubric_scores,
            "corrected_rubric_scores_pooled": self.rubric_scores_pooled,
            "corrected_adherence": self.adherence,
            "corrected_emi": self.emi,
        }
        tables |= {f"humans_vs_judges_{grain}": t for grain, t in self.versus.items()}
        return tables

    def to_json(self) -> dict:
        return {
            "run": str(self.run_dir),
            "n_sample": self.n_sample,
            "n_labels": self.n_labels,
            "annotators": self.annotators,
            "n_labelled_items": self.n_labelled_items,
            "n_ties": self.n_ties,
            "message": self.message,
            "notes": self.notes,
            "warnings": self.warnings,
            "min_labelled_items": MIN_UNITS,
            "tables": {name: _records(table) for name, table in self.tables().items()},
        }


def _records(table: pd.DataFrame) -> list[dict]:
    """Rows as JSON-safe dicts (NaN -> null)."""
    rows = json.loads(table.to_json(orient="records", double_precision=15))
    return [
        {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
        for row in rows
    ]


def annotation_stats(
    run_dir: Path,
    *,
    cells: pd.DataFrame | None = None,
    items: list[EnvironmentItem] | None = None,
    judge_records: Sequence[JudgeVerdictRecord | PanelRow] | None = None,
) -> AnnotationStats:
    """All figures of the run's human labels (empty tables when there are none yet).

    ``cells``, ``items`` and ``judge_records``: the run's, when the caller has read them already
    (the report); otherwise they are read from ``run_dir`` when there are labels.
    """
    run_dir = Path(run_dir)
    sample, labels, not_blind = _read_store(run_dir)
    notes: list[str] = []
    sample, labels, other_tasks = _paper_task_only(sample, labels)
    if other_tasks:
        notes.append(
            f"{other_tasks} labels on items of tasks beyond the paper's (issue 29) are not in "
            "these figures: they validate the paper's task's judges"
        )
    if not_blind:
        notes.append(
            f"{not_blind} labels given after the panel's verdicts were shown (to their annotator, "
            "or on their item to anyone) are not counted: they were not blind"
        )
    sample_frame = _sample_frame(sample)
    label_frame = _label_frame(labels, sample_frame)
    human_scores = human_answer_scores(label_frame)
    design = _design(sample_frame, label_frame, human_scores)
    truth = human_majority(label_frame, ["rubric", "environment", "language"])
    if labels:
        if cells is None and RunDir(run_dir).is_finished():
            cells = RunDir(run_dir).read_cells()
        if cells is None:
            notes.append(f"no {CELLS_FILE} in {run_dir}: corrected scores need the panel's cells")
        keys = set(sample_frame["item_key"])
        if items is None:
            by_key = _sample_items(run_dir, keys)
        else:
            by_key = {item.key: item for item in items if item.key in keys}
        if judge_records is None:
            judge_records = _sample_records(run_dir, sample_frame)
        verdicts = _judge_verdicts(judge_records, sample_frame, notes)
        verdict_tables = versus_tables(
            truth.verdicts.merge(sample_frame[["sample_id", "weight"]], on="sample_id"), verdicts
        )
        labelled = _labelled(sample_frame, human_scores, by_key, notes)
        panel = panel_answer_scores(cells) if cells is not None else _empty_panel()
    else:
        verdict_tables = versus_tables(truth.verdicts, _empty_verdicts())
        labelled, panel = _empty_labelled(), _empty_panel()
    adherence = corrected_adherence(panel, labelled)
    return AnnotationStats(
        run_dir=run_dir,
        n_sample=len(sample),
        n_labels=len(labels),
        annotators=sorted({label.annotator for label in labels}),
        n_labelled_items=len(human_scores),
        design=design,
        agreement=human_agreement(label_frame, by=("rubric", "sub_question")),
        agreement_by_rubric=human_agreement(label_frame, by=("rubric",)),
        versus=verdict_tables,
        n_ties=truth.n_ties,
        rubric_scores=corrected_rubric_scores(panel, labelled),
        rubric_scores_pooled=corrected_rubric_scores(panel, labelled, by=()),
        adherence=adherence,
        emi=corrected_emi(adherence),
        notes=notes,
    )


def _read_store(run_dir: Path) -> tuple[list[SampleItem], list[Label], int]:
    """The sample, the labels that count (blind ones) and how many labels do not."""
    if not run_dir.is_dir():
        raise FileNotFoundError(f"{run_dir}: no such run directory")
    if not RunDir(run_dir).store.is_file():
        return [], [], 0
    with AnnotationStore.open(run_dir) as store:
        return store.sample(), store.counted_labels(), store.labels_after_a_reveal()


def _paper_task_only(
    sample: list[SampleItem], labels: list[Label]
) -> tuple[list[SampleItem], list[Label], int]:
    """The sample items and labels of the paper's task, and how many labels are left out."""
    kept = [item for item in sample if item.task == PARTY_POSITION]
    if len(kept) == len(sample):
        return sample, labels, 0
    ids = {item.sample_id for item in kept}
    counted = [label for label in labels if label.sample_id in ids]
    return kept, counted, len(labels) - len(counted)


def _sample_frame(sample: list[SampleItem]) -> pd.DataFrame:
    rows = [
        item.model_dump(mode="json") | {"judges_agreed": bool(item.judges_agreed)}
        for item in sample
    ]
    frame = pd.DataFrame(rows, columns=list(SAMPLE_COLUMNS))
    return frame.astype({"sample_index": "int64", "weight": "float64"})


def _label_frame(labels: list[Label], sample: pd.DataFrame) -> pd.DataFrame:
    """One row per label with the release key of its sub-question and its item's context."""
    rows = [
        (
            label.annotator,
            label.sample_id,
            (BY_CODE.get(label.sub_question) or BY_KEY[label.sub_question]).key,
            bool(label.says_yes),
        )
        for label in labels
    ]
    frame = pd.DataFrame(rows, columns=["annotator", "sample_id", "sub_question", "says_yes"])
    context = sample[["sample_id", "rubric", "environment", "language", "weight"]]
    return frame.merge(context, on="sample_id", how="inner")


def _design(sample: pd.DataFrame, labels: pd.DataFrame, human_scores: pd.DataFrame) -> pd.DataFrame:
    columns = [
        "environment",
        "rubric",
        "judges_agreed",
        "drawn",
        "population",
        "weight",
        "annotators_wanted",
        "labelled",
        "labels",
    ]
    if sample.empty:
        return pd.DataFrame(columns=columns)
    done = set(human_scores["sample_id"])
    per_item_labels = labels.groupby("sample_id").size()
    frame = sample.assign(
        labelled=sample["sample_id"].isin(done),
        labels=sample["sample_id"].map(per_item_labels).fillna(0).astype("int64"),
    )
    design = (
        frame.groupby(["environment", "rubric", "judges_agreed"], sort=True)
        .agg(
            drawn=("sample_id", "size"),
            population=("weight", "sum"),
            weight=("weight", "mean"),
            annotators_wanted=("annotators_wanted", "max"),
            labelled=("labelled", "sum"),
            labels=("labels", "sum"),
        )
        .reset_index()
    )
    design["population"] = design["population"].round().astype("int64")
    return design.loc[:, columns]


def _sample_items(run_dir: Path, keys: set[str]) -> dict[str, EnvironmentItem]:
    try:
        return items_for(run_dir, keys)
    except RunDataError:
        return {}


def _sample_records(run_dir: Path, sample: pd.DataFrame) -> list[PanelRow]:
    """The judge records of the sampled answers x rubric only (a paper-scale run has ~107k)."""
    if not RunDir(run_dir).judges.is_file():
        return []
    units = {
        AnswerRubric(key, model, int(index), Rubric(rubric))
        for key, model, index, rubric in zip(
            sample["item_key"],
            sample["model"],
            sample["sample_index"],
            sample["rubric"],
            strict=True,
        )
    }
    try:
        return judge_rows(run_dir, units)
    except RunDataError as exc:
        raise RunFileError(str(exc)) from None


def _judge_verdicts(
    records: Sequence[JudgeVerdictRecord | PanelRow], sample: pd.DataFrame, notes: list[str]
) -> pd.DataFrame:
    """Each panel judge's Yes/No on the sampled answers x rubric (sample_id, sub_question,
    judge, says_yes); unparseable verdicts are left out."""
    if not records:
        notes.append("the run has no judge records: humans are not compared with the judges")
    units = {
        (row.item_key, row.model, int(row.sample_index), row.rubric): row.sample_id
        for row in sample.itertuples()
    }
    rows = []
    for record in records:
        sample_id = units.get(
            (record.item_key, record.model, record.sample_index, record.rubric.value)
        )
        if sample_id is None:
            continue
        judge = panel_judge_id(record)  # type: ignore[arg-type]  (a PanelRow has its fields)
        rows.extend(
            (sample_id, key, judge, yes) for key, yes in record.says_yes.items() if yes is not None
        )
    return pd.DataFrame(rows, columns=["sample_id", "sub_question", "judge", "says_yes"])


def _labelled(
    sample: pd.DataFrame,
    human_scores: pd.DataFrame,
    items: dict[str, EnvironmentItem],
    notes: list[str],
) -> pd.DataFrame:
    """The labelled sample items with the cells' answer columns, human score and weight."""
    chosen = sample.merge(human_scores, on="sample_id", how="inner")
    rows = []
    unknown = 0
    for row in chosen.itertuples():
        item = items.get(row.item_key)
        if item is None:
            unknown += 1
            continue
        rows.append(
            (
                row.model,
                item.environment.value,
                item.variant.value,
                item.observation_id,
                int(row.sample_index),
                item.party_id,
                item.election_id,
                item.output_language,
                row.rubric,
                float(row.human_score),
                float(row.weight),
            )
        )
    if unknown:
        notes.append(f"{unknown} labelled sample items name no item of the run's exports")
    return pd.DataFrame(rows, columns=[*ANSWER_RUBRIC, "human_score", "weight"])


def _empty_verdicts() -> pd.DataFrame:
    return pd.DataFrame(columns=["sample_id", "sub_question", "judge", "says_yes"])


def _empty_labelled() -> pd.DataFrame:
    return pd.DataFrame(columns=[*ANSWER_RUBRIC, "human_score", "weight"])


def _empty_panel() -> pd.DataFrame:
    return pd.DataFrame(columns=[*ITEM_COLUMNS, "rubric", "score"])


def with_tables(stats: AnnotationStats, tables: dict[str, pd.DataFrame]) -> AnnotationStats:
    """``stats`` with each table replaced by the one of the same name in ``tables`` (the names
    of ``AnnotationStats.tables``), e.g. as read back from files; a table not in ``tables``
    is left as it was."""
    names = {
        "annotation_design": "design",
        "human_agreement": "agreement",
        "human_agreement_by_rubric": "agreement_by_rubric",
        "corrected_rubric_scores": "rubric_scores",
        "corrected_rubric_scores_pooled": "rubric_scores_pooled",
        "corrected_adherence": "adherence",
        "corrected_emi": "emi",
    }
    found = {field: tables[name] for name, field in names.items() if name in tables}
    versus = {
        grain: tables.get(f"humans_vs_judges_{grain}", table)
        for grain, table in stats.versus.items()
    }
    return dataclasses.replace(stats, **found, versus=versus)
