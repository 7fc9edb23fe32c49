"""What an annotator sees of one sample item, shared by the app and the JSONL export.

``ItemView.content`` is what is shown before answering, worded as the judges get it (the judge
prompt's query, its labelled context, its property-of-context sentence and the rubric's active
sub-questions, numbered as in the prompt) plus the answer as the model gave it. It carries no
judge verdict and no model name, so a blind page cannot leak them by accident.
``ItemView.reveal`` holds those, for after the annotator has answered.

A run is read once per sample and indexed (``RunViews``): later items are dictionary look-ups.
The views are also saved in the store (``annotation_views``, with a fingerprint of the run
files), so a later start reads them from there instead of the run files (``CachedViews``).
Every field is plain text; whoever renders it must escape it.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from polistemics.annotate.run_data import (
    AnswerRubric,
    PanelVerdicts,
    RunDataError,
    answers_for,
    items_for,
    panel_verdicts,
)
from polistemics.annotate.store import AnnotationStore, SampleItem
from polistemics.conditions import ABSENT_SENTINEL, Environment
from polistemics.judging.prompt import judge_query, property_of_context
from polistemics.runlog import RunDir
from polistemics.runlog.items import EnvironmentItem
from polistemics.tasks import PARTY_POSITION, PARTY_POSITION_TASK, TASKS
from polistemics.tasks.views import JudgedUnit, judge_panel_size

log = logging.getLogger(__name__)


class ItemViewError(RunDataError):
    """A sample item whose item, answer or verdicts the run's files do not hold."""


class ContextChunk(BaseModel):
    model_config = ConfigDict(frozen=True)

    number: int  # [1]..[N], as the answer may cite it
    role: Literal["target", "distractor"]
    label: str  # "[TARGET]" or "[DISTRACTOR]", as the judge prompt labels it
    text: str


class SubQuestionView(BaseModel):
    model_config = ConfigDict(frozen=True)

    number: int  # its number in the judge prompt's list
    code: str  # "F1": what a label names
    key: str  # release key, e.g. "position_representation"
    title: str
    question: str  # the judge prompt's wording


class ItemContent(BaseModel):
    """Everything shown before the annotator answers (blind: no verdicts, no model)."""

    model_config = ConfigDict(frozen=True)

    sample_id: str
    rubric: str
    rubric_label: str
    rubric_definition: str
    environment: str
    environment_label: str
    language: str  # of the evidence
    output_language: str  # the answer was asked for in this language
    property_of_context: str
    query: str
    context: list[ContextChunk]
    context_placeholder: str | None  # Absent: what the answerer saw instead of evidence
    answer: str
    sub_questions: list[SubQuestionView]
    # The task of the answer (issue 29): the paper's unless the sample drew another's.
    task: str = PARTY_POSITION
    task_label: str = PARTY_POSITION_TASK.label


class SeatVerdicts(BaseModel):
    model_config = ConfigDict(frozen=True)

    seat: str  # "0:judge-a": a panel may seat one model several times
    judge: str
    says_yes: dict[str, bool | None]  # sub-question code -> Yes/No/missing


class PanelReveal(BaseModel):
    """What is shown only after answering: the answering model and the panel's verdicts."""

    model_config = ConfigDict(frozen=True)

    model: str
    sample_index: int
    judges: list[SeatVerdicts]
    majority: dict[str, bool | None]  # strict majority of the panel, None on a tie or gap
    judges_agreed: bool


class ItemView(BaseModel):
    model_config = ConfigDict(frozen=True)

    content: ItemContent
    reveal: PanelReveal


def build_item_view(
    sample_item: SampleItem,
    item: EnvironmentItem,
    answer_text: str,
    verdicts: PanelVerdicts,
    panel_size: int,
) -> ItemView:
    """The view of one sample item from its environment item, answer and panel verdicts."""
    questions = sample_item.sub_questions
    chunks = [
        ContextChunk(number=i, role=chunk.role, label=f"[{chunk.role.upper()}]", text=chunk.text)
        for i, chunk in enumerate(item.chunks, start=1)
    ]
    absent = item.environment is Environment.ABSENT
    content = ItemContent(
        sample_id=sample_item.sample_id,
        rubric=sample_item.rubric.value,
        rubric_label=sample_item.rubric.label,
        rubric_definition=sample_item.rubric.definition,
        environment=item.environment.value,
        environment_label=item.environment.label,
        language=item.language,
        output_language=item.output_language,
        property_of_context=property_of_context(item),
        query=judge_query(item),
        context=[] if absent else chunks,
        context_placeholder=ABSENT_SENTINEL if absent else None,
        answer=answer_text,
        sub_questions=[
            SubQuestionView(
                number=i, code=sq.code, key=sq.key, title=sq.title, question=sq.question
            )
            for i, sq in enumerate(questions, start=1)
        ],
    )
    reveal = PanelReveal(
        model=sample_item.model,
        sample_index=sample_item.sample_index,
        judges=[
            SeatVerdicts(seat=seat, judge=seat.split(":", 1)[1], says_yes=says)
            for seat, says in verdicts.seats.items()
        ],
        majority=verdicts.majority(panel_size),
        judges_agreed=verdicts.agreed,
    )
    return ItemView(content=content, reveal=reveal)


def build_task_item_view(sample_item: SampleItem, unit: JudgedUnit, panel_size: int) -> ItemView:
    """The view of a sample item of a task beyond the paper's, from the task's judged unit
    (``Task.views.judged_units``: the judge prompt's query, labelled context, property of
    context and the task's sub-questions as the judges were asked them)."""
    content = ItemContent(
        sample_id=sample_item.sample_id,
        rubric=unit.rubric.value,
        rubric_label=unit.rubric.label,
        rubric_definition=unit.rubric.definition,
        environment=unit.environment.value,
        environment_label=unit.environment.label,
        language=unit.language,
        output_language=unit.output_language,
        property_of_context=unit.property_of_context,
        query=unit.query,
        context=[
            ContextChunk(number=i, role=chunk.role, label=chunk.label, text=chunk.text)
            for i, chunk in enumerate(unit.context, start=1)
        ],
        context_placeholder=unit.context_placeholder,
        answer=unit.answer,
        sub_questions=[
            SubQuestionView(
                number=i, code=sq.code, key=sq.key, title=sq.title, question=sq.question
            )
            for i, sq in enumerate(unit.questions, start=1)
        ],
        task=unit.task,
        task_label=TASKS[unit.task].label,
    )
    verdicts = PanelVerdicts(
        _unit(sample_item),
        unit.environment.value,
        unit.seats,
        complete=True,
    )
    reveal = PanelReveal(
        model=sample_item.model,
        sample_index=sample_item.sample_index,
        judges=[
            SeatVerdicts(seat=seat, judge=seat.split(":", 1)[1], says_yes=says)
            for seat, says in unit.seats.items()
        ],
        majority=verdicts.majority(panel_size),
        judges_agreed=verdicts.agreed,
    )
    return ItemView(content=content, reveal=reveal)


def _task_units(
    run_dir: Path, sample: Sequence[SampleItem]
) -> tuple[dict[AnswerRubric, JudgedUnit], int]:
    """The judged units of the sample's items of tasks beyond the paper's, and the panel size."""
    units: dict[AnswerRubric, JudgedUnit] = {}
    seats: set[str] = set()
    for task in sorted({s.task for s in sample} - {PARTY_POSITION}):
        views = TASKS[task].views if task in TASKS else None
        found = views.judged_units(run_dir) if views is not None else None
        for unit in found or []:
            units[AnswerRubric(unit.item_key, unit.model, unit.sample_index, unit.rubric)] = unit
            seats.update(unit.seats)
    return units, judge_panel_size(run_dir, len(seats))


def _unit(sample_item: SampleItem) -> AnswerRubric:
    return AnswerRubric(
        sample_item.item_key, sample_item.model, sample_item.sample_index, sample_item.rubric
    )


class RunViews:
    """A run's files read once for a sample, indexed by sample item."""

    def __init__(
        self,
        run_dir: Path,
        items: dict[str, EnvironmentItem],
        answers: dict[tuple, str],
        verdicts: dict[AnswerRubric, PanelVerdicts],
        panel_size: int,
        task_units: dict[AnswerRubric, JudgedUnit] | None = None,
        task_panel_size: int = 1,
    ):
        self.run_dir = Path(run_dir)
        self._items = items
        self._answers = answers
        self._verdicts = verdicts
        self.panel_size = panel_size
        self._task_units = task_units or {}
        self._task_panel_size = task_panel_size

    @classmethod
    def load(cls, run_dir: Path | str, sample: Sequence[SampleItem]) -> RunViews:
        """Read what ``sample`` needs of ``run_dir``: its items, answers and panel verdicts;
        for the items of tasks beyond the paper's, the tasks' judged units."""
        run_dir = Path(run_dir)
        task_units, task_panel = _task_units(run_dir, sample)
        sample = [s for s in sample if s.task == PARTY_POSITION]
        keys = {s.item_key for s in sample}
        verdicts, size = panel_verdicts(run_dir, {_unit(s) for s in sample})
        wanted = {(s.item_key, s.model, s.sample_index) for s in sample}
        found = answers_for(run_dir, wanted)
        # A failed or empty answer was never judged: there is nothing to label.
        answers = {key: answer.text or "" for key, answer in found.items() if answer.ok}
        return cls(
            run_dir, items_for(run_dir, keys), answers, verdicts, size, task_units, task_panel
        )

    def covers(self, sample_item: SampleItem) -> bool:
        if sample_item.task != PARTY_POSITION:
            return _unit(sample_item) in self._task_units
        return (
            sample_item.item_key in self._items
            and (sample_item.item_key, sample_item.model, sample_item.sample_index) in self._answers
            and _unit(sample_item) in self._verdicts
        )

    def view(self, sample_item: SampleItem) -> ItemView:
        if sample_item.task != PARTY_POSITION:
            unit = self._task_units.get(_unit(sample_item))
            if unit is None:
                raise ItemViewError(
                    f"sample item {sample_item.sample_id}: the run's {sample_item.task} files "
                    "hold no judged answer for it"
                )
            return build_task_item_view(sample_item, unit, self._task_panel_size)
        item = self._items.get(sample_item.item_key)
        if item is None:
            raise ItemViewError(
                f"sample item {sample_item.sample_id}: item {sample_item.item_key!r} is not "
                "among the run's exported items"
            )
        answer = self._answers.get(
            (sample_item.item_key, sample_item.model, sample_item.sample_index)
        )
        if answer is None:
            raise ItemViewError(
                f"sample item {sample_item.sample_id}: the run has no usable answer of model "
                f"{sample_item.model!r} (sample {sample_item.sample_index}) to this item"
            )
        verdicts = self._verdicts.get(_unit(sample_item))
        if verdicts is None:
            raise ItemViewError(
                f"sample item {sample_item.sample_id}: the run has no panel verdicts on it"
            )
        return build_item_view(sample_item, item, answer, verdicts, self.panel_size)


class CachedViews:
    """Item views saved in the store by an earlier read of the same run files; each is parsed
    when first asked for."""

    def __init__(self, views: dict[str, str]):
        self._json = views
        self._parsed: dict[str, ItemView] = {}

    def covers(self, sample_item: SampleItem) -> bool:
        return sample_item.sample_id in self._json

    def view(self, sample_item: SampleItem) -> ItemView:
        view = self._parsed.get(sample_item.sample_id)
        if view is None:
            text = self._json.get(sample_item.sample_id)
            if text is None:
                raise StaleViewError(f"sample item {sample_item.sample_id} is not cached")
            view = self._parsed[sample_item.sample_id] = ItemView.model_validate_json(text)
        if not _describes(view, sample_item):
            raise StaleViewError(f"the cached view of {sample_item.sample_id} is of another item")
        return view


class StaleViewError(ItemViewError):
    """A cached view that does not describe the sample item asked for."""


def _describes(view: ItemView, sample_item: SampleItem) -> bool:
    return (
        view.content.sample_id == sample_item.sample_id
        and view.content.rubric == sample_item.rubric.value
        and view.content.environment == sample_item.environment.value
        and view.reveal.model == sample_item.model
        and view.reveal.sample_index == sample_item.sample_index
    )


def run_fingerprint(run_dir: Path) -> str:
    """Names, sizes and modification times of the run files a view is read from."""
    run = RunDir(run_dir)
    parts = []
    task_files = sorted((Path(run_dir) / "tasks").glob("*/*.jsonl"))  # issue 29's tasks
    for path in [
        run.judges,
        run.answers,
        run.manifest,
        *run.release_item_files(),
        *task_files,
    ]:
        stat = path.stat() if path.is_file() else None
        parts.append(
            f"{path.relative_to(run_dir)}:{stat and stat.st_size}:{stat and stat.st_mtime_ns}"
        )
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


Views = RunViews | CachedViews
_loaded: dict[Path, Views] = {}
_loading = threading.Lock()


def run_views(
    run_dir: Path | str, *, reload: bool = False, also: Sequence[SampleItem] = ()
) -> Views:
    """The run's views for its current sample (and ``also``), loaded once and kept.

    From the store's view cache when it holds every sample item for the current run files;
    otherwise read from the run files and saved to the cache for the next start. One run is
    kept per process (a server serves one run): loading another forgets the last.
    """
    path = Path(run_dir).resolve()
    with _loading:
        views = None if reload else _loaded.get(path)
        if views is not None:
            return views
        fingerprint = run_fingerprint(path)
        with AnnotationStore.open(path) as store:
            sample = store.sample()
            cached = CachedViews(store.cached_views(fingerprint))
            if sample and not also and all(map(cached.covers, sample)):
                views = cached
            else:
                views = RunViews.load(path, [*sample, *also])
                _save(store, fingerprint, views, sample)
        _loaded.clear()
        _loaded[path] = views
        return views


def _save(store: AnnotationStore, fingerprint: str, views: RunViews, sample: list) -> None:
    try:
        store.save_views(
            fingerprint,
            {s.sample_id: views.view(s).model_dump_json() for s in sample if views.covers(s)},
        )
    except sqlite3.OperationalError as exc:  # a read-only run: serve without the cache
        log.warning("item views not cached in the store: %s", exc)


def prepare_views(run_dir: Path | str) -> int:
    """Read the run files for the current sample and cache its views; returns how many."""
    views = run_views(run_dir, reload=True)
    with AnnotationStore.open(run_dir) as store:
        return sum(views.covers(s) for s in store.sample())


def item_view(run_dir: Path | str, sample_item: SampleItem) -> ItemView:
    """What the annotator sees of ``sample_item`` (``content``) and, after answering, the
    panel's verdicts and the model (``reveal``). The run is read once (or its views come from
    the store's cache); a sample item they do not cover (a new sample) reloads it."""
    views = run_views(run_dir)
    if views.covers(sample_item):
        try:
            return views.view(sample_item)
        except StaleViewError:
            pass
    return run_views(run_dir, reload=True, also=[sample_item]).view(sample_item)
