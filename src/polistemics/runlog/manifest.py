"""``run.json`` as a typed model: what a run was (config, models, seeds), what it cost and what
each of its invocations did.

``polistemics run`` writes the file (``run/manifest.py``); ``score``, ``report``, ``compare``
and ``annotate`` read it back through ``RunManifest``. The file may have been edited by anyone,
and older runs lack newer parts, so reading is tolerant: a part that does not fit its model
reads as None (``Lenient``), an entry of a list or mapping that does not fit is left out, and a
part whose absence and unreadability mean different things to the reader (``judge_repeats``)
reads as ``Unreadable``. Nothing that a reader does not use is validated: unknown keys are kept
as they are (``extra="allow"``), and values the report shows as they are stay ``Any``.
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    field_validator,
    model_validator,
)

from polistemics.rubrics import BY_KEY, Rubric

T = TypeVar("T")


def _or_none(value: object, handler: ValidatorFunctionWrapHandler) -> object:
    try:
        return handler(value)
    except ValidationError:
        return None


def _readable_entries(value: object, handler: ValidatorFunctionWrapHandler) -> object:
    """A list's entries, or a mapping's values, that fit; anything else reads as None."""
    try:
        return handler(value)
    except ValidationError:
        pass
    if not isinstance(value, list | dict):
        return None
    try:
        kept = handler(type(value)())  # an empty list or mapping: is this the field's kind?
    except ValidationError:
        return None
    for entry in value.items() if isinstance(value, dict) else value:
        try:
            one = handler(dict([entry]) if isinstance(value, dict) else [entry])
        except ValidationError:
            continue
        if isinstance(kept, dict):
            kept.update(one)
        else:
            kept.extend(one)
    return kept


class Unreadable(BaseModel):
    """A part of ``run.json`` that is present but does not fit its model."""

    model_config = ConfigDict(frozen=True)

    error: str


def _or_unreadable(value: object, handler: ValidatorFunctionWrapHandler) -> object:
    try:
        return handler(value)
    except ValidationError as exc:
        return Unreadable(error=str(exc.errors()[0]["msg"]))


Lenient = Annotated[T | None, WrapValidator(_or_none)]  # None when it does not fit
Entries = Annotated[T | None, WrapValidator(_readable_entries)]  # entries that fit, else None
Readable = Annotated[T | Unreadable | None, WrapValidator(_or_unreadable)]


class _Part(BaseModel):
    """A part of ``run.json``: unknown keys are kept, as the writer may add some."""

    model_config = ConfigDict(extra="allow")


class Invocation(BaseModel):
    """One ``polistemics run`` of a run directory that finished and wrote ``run.json``."""

    started: str
    finished: str
    polistemics_version: str | None = None
    git_revision: str | None = None
    calls_made: int = 0
    stage_seconds: dict[str, float] = {}


class ElectionSpec(_Part):
    """One election of the run's config (``run.config.ElectionConfig``)."""

    source: Lenient[str] = None


class ManifestConfig(_Part):
    """The run's config (``run.config.RunConfig``), the parts readers use."""

    name: Lenient[str] = None
    targets: Lenient[list[str]] = None
    judges: Lenient[list[str]] = None
    elections: Entries[list[ElectionSpec]] = None
    ablations: Lenient[list[str]] = None


class ModelRecord(_Part):
    """A model endpoint's identity and parameters (``run.manifest.endpoint_record``)."""

    model: Lenient[str] = None
    provider: Lenient[str] = None
    base_url: Lenient[str] = None
    api_key_env: Lenient[str] = None
    params: Lenient[dict[str, Any]] = None
    structured_output: Lenient[str] = None
    display_name: Lenient[str] = None  # the registry's, when it gave one


class EnvironmentCount(_Part):
    """Items kept and dropped in one variant x environment (Table 9)."""

    variant: Any = None
    environment: Any = None
    kept: Any = None
    dropped: Any = None


class ElectionRecord(_Part):
    """What the run did for one election: its source's title, scope counts, standardisation,
    environments, Vague."""

    title: Lenient[str] = None  # the source's own name of the election ("Bundestagswahl 2025")
    counts: Lenient[dict[str, Any]] = None
    standardisation: Lenient[dict[str, Any]] = None
    environments: Entries[list[EnvironmentCount]] = None
    vague: Lenient[dict[str, Any]] = None


class JudgingRecord(_Part):
    """The panel and what majority voting left out."""

    panel: Lenient[list[str]] = None
    answers_not_judged: Lenient[dict[str, Any]] = None
    excluded_items: Any = 0
    ties: Any = 0
    ignored_sub_questions: Lenient[dict[str, Any]] = None


class JudgeParsingRow(_Part):
    """Attempts, retries and missing verdicts of one judge or output mode; shown as written."""

    judge: Any = None
    model: Any = None
    output_mode: Any = None
    verdict_sets: Any = None
    panel_calls: Any = None
    asked_again: Any = None
    http_attempts: Any = None
    client_retries: Any = None
    call_failed: Any = None
    unreadable: Any = None
    missing: Any = None
    missing_share: Any = None
    possibly_planted: Any = None


class PlantedByModel(_Part):
    """Answers of one target model that spelled out verdicts its judges then gave."""

    answers: Any = None
    verdict_sets: Any = None


class JudgeParsing(_Part):
    by_judge: Entries[list[JudgeParsingRow]] = None
    by_output_mode: Entries[list[JudgeParsingRow]] = None
    possibly_planted_by_model: Entries[dict[str, PlantedByModel]] = None


class FlipRow(BaseModel):
    """One flip rate of repeat judging (``scoring.flips``)."""

    model_config = ConfigDict(extra="ignore")

    judge: str | None = None
    rubric: Rubric | None = None
    sub_question: str | None = None
    n: int
    flips: int
    rate: float | None
    ci_low: float | None
    ci_high: float | None
    n_items: int
    ci_method: str

    @field_validator("sub_question")
    @classmethod
    def _known(cls, value: str | None) -> str | None:
        if value is not None and value not in BY_KEY:
            raise ValueError(f"unknown sub-question {value!r}")
        return value


class JudgeRepeats(BaseModel):
    """Repeat judging's summary (``run.stages.judge_repeats.summarise_repeats``): read whole or not at all."""

    model_config = ConfigDict(extra="ignore")

    judges: str
    items: int | float
    repeats: int
    items_sampled: int
    answers_rejudged: int
    repeat_judges: list[str]
    overall: FlipRow
    by_rubric: list[FlipRow]
    by_sub_question: list[FlipRow]


class RunManifest(_Part):
    """``run.json``. The top-level ``started`` ... ``git_revision`` describe the latest
    invocation; ``invocations`` every finished one, oldest first."""

    polistemics_version: Lenient[str] = None
    git_revision: Lenient[str] = None
    started: Lenient[str] = None
    finished: Lenient[str] = None
    config: Lenient[ManifestConfig] = None
    prompt_template_sha256: Lenient[dict[str, Any]] = None
    models: Entries[dict[str, ModelRecord]] = None
    seed: Any = None
    stage_seconds: Lenient[dict[str, Any]] = None
    calls_made_this_run: Any = None
    invocations: list[Invocation] = Field(default_factory=list)
    calls: Lenient[list[dict[str, Any]]] = None
    totals: Lenient[dict[str, Any]] = None
    elections: Entries[dict[str, ElectionRecord]] = None
    judging: Lenient[JudgingRecord] = None
    judge_parsing: Lenient[JudgeParsing] = None
    judge_repeats: Readable[JudgeRepeats] = None
    stance_coding: Lenient[dict[str, Any]] = None
    execution: Lenient[dict[str, Any]] = None  # only in runs with a batch endpoint
    batches: Lenient[dict[str, Any]] = None

    @model_validator(mode="before")
    @classmethod
    def _history(cls, data: object) -> object:
        """Readable invocations only; a manifest written before the list existed counts as one
        invocation (its top-level fields). Anything but a JSON object reads as empty."""
        if not isinstance(data, dict):
            return {}
        entries = data.get("invocations")
        if not isinstance(entries, list):
            entries = [
                {
                    "started": data.get("started"),
                    "finished": data.get("finished"),
                    "polistemics_version": data.get("polistemics_version"),
                    "git_revision": data.get("git_revision"),
                    "calls_made": data.get("calls_made_this_run", 0),
                    "stage_seconds": data.get("stage_seconds") or {},
                }
            ]
        kept = []
        for entry in entries:
            try:
                kept.append(Invocation.model_validate(entry))
            except ValidationError:
                continue
        return {**data, "invocations": kept}

    @property
    def display_names(self) -> dict[str, str]:
        """Model name -> the registry's display name, for the models that have one."""
        return {
            name: " ".join(record.display_name.split())
            for name, record in (self.models or {}).items()
            if record.display_name and record.display_name.strip()
        }

    @property
    def election_titles(self) -> dict[str, str]:
        """Election id -> its source's title, for the elections whose title was recorded."""
        return {
            election_id: " ".join(record.title.split())
            for election_id, record in (self.elections or {}).items()
            if record.title and record.title.strip()
        }

    @property
    def panel_judges(self) -> list[str]:
        """The config's judges (empty when unknown)."""
        return (self.config.judges if self.config else None) or []

    def calling_invocation(self) -> tuple[int, Invocation] | None:
        """The latest invocation that made model calls (its index), else the latest: the one
        whose stage times describe the work, not a rerun served from the cache in seconds."""
        invocations = self.invocations
        if not invocations:
            return None
        for index in range(len(invocations) - 1, -1, -1):
            if invocations[index].calls_made > 0:
                return index, invocations[index]
        return len(invocations) - 1, invocations[-1]
