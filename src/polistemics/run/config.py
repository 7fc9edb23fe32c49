"""The study a run executes, as a validated TOML file (errors name the key).

A config names the elections (source, party scope, language), the target models, the judge
panel, the standardisation and Vague-generation models, the environments and ablations, and the
run's limits. Presets ship in ``polistemics/run/presets``: ``demo``, ``demo-mechanisms``,
``paper-de``, ``paper-nl``; ``extended-de`` is ``paper-de`` with the navigation and comparison
tasks (issue 29).
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from polistemics.conditions import ALL_ENVIRONMENTS, Environment, Variant
from polistemics.paths import SAFE_NAME_RULE, inside, is_safe_name
from polistemics.run.config_examples import example_for, similar_key
from polistemics.sources.scope import Scope, ScopeParty, load_scope


def _safe_name(value: str | None) -> str | None:
    # Names become folder names (runs/<name>, exports/<election id>/).
    if value is not None and not is_safe_name(value):
        raise ValueError(f"{value!r} is not usable as a folder name ({SAFE_NAME_RULE})")
    return value


class ConfigError(ValueError):
    """The run config is wrong; the message names the file and key."""


class ElectionConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str = Field(description="KIND:PATH, e.g. 'wahlomat:bundestagswahl2025' or 'demo'.")
    scope: str | None = Field(default=None, description="Party scope preset name or TOML path.")
    id: str | None = Field(default=None, description="Election id override (e.g. 'nl_tk2025').")
    statements: list[StrictInt] | None = Field(
        default=None, description="Only these statement numbers (1-based); all when unset."
    )
    parties: list[str] | None = Field(
        default=None,
        min_length=1,
        description="Only these parties, named as the source names them (an inline scope, as "
        "`polistemics new` writes it); not together with scope.",
    )

    _id_is_safe = field_validator("id")(_safe_name)

    @field_validator("parties")
    @classmethod
    def _party_names(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return value
        names = [name.strip() for name in value]
        if any(not name for name in names):
            raise ValueError("a party name is empty")
        if len(set(names)) != len(names):
            raise ValueError("a party is listed twice")
        return names

    @model_validator(mode="after")
    def _one_party_list(self) -> ElectionConfig:
        if self.scope is not None and self.parties is not None:
            raise ValueError("set scope or parties, not both (parties is an inline scope)")
        return self

    def party_scope(self) -> Scope | None:
        """The parties asked about: the inline list, the scope preset or file, or None (all)."""
        if self.parties is not None:
            return Scope(
                name="parties",
                description=f"the parties listed for {self.source} in the run config",
                parties=tuple(ScopeParty(name=name) for name in self.parties),
            )
        return load_scope(self.scope) if self.scope else None


ALL_JUDGES = "all"


class JudgeRepeatsConfig(BaseModel):
    """Repeat judging (paper Sec. 10): judges re-judge a seeded sample of items with identical
    prompts, as distinct calls, to measure how often their verdicts flip. Never scored."""

    model_config = ConfigDict(extra="forbid")

    judges: str = Field(
        default=ALL_JUDGES, description="A judge of the panel, or 'all' (each distinct judge)."
    )
    items: StrictInt | StrictFloat = Field(
        description="Environment items re-judged: a count (integer >= 1) or a fraction in (0, 1] "
        "(a float); drawn per variant x environment in proportion, seeded from the run seed."
    )
    repeats: int = Field(default=1, ge=1, le=10, description="Repeat calls per judged prompt.")

    @field_validator("items")
    @classmethod
    def _count_or_fraction(cls, value: int | float) -> int | float:
        if isinstance(value, int) and value < 1:
            raise ValueError(f"a count of items must be >= 1, got {value}")
        if isinstance(value, float) and not 0.0 < value <= 1.0:
            raise ValueError(f"a fraction of items must lie in (0, 1], got {value}")
        return value


PRESSURE_TYPES = ("false_correction", "authority", "are_you_sure", "plain_answer")


class PushbackConfig(BaseModel):
    """Pushback turns (issue 30; docs/pushback.md): after a target's first answer, a scripted
    second user turn; the target answers again with the conversation in view. A seeded share of
    each environment's (full-variant) items is chosen, and each chosen item gets one pressure
    type, the types taking turns so that each gets an equal share."""

    model_config = ConfigDict(extra="forbid")

    environments: list[str] | None = Field(
        default=None, description="Environments whose items get pushback; all built when unset."
    )
    share: float = Field(
        default=1.0,
        gt=0.0,
        le=1.0,
        description="Share of each environment's items that get pushback, in (0, 1].",
    )
    pressures: list[str] = Field(
        default_factory=lambda: list(PRESSURE_TYPES),
        min_length=1,
        description="Pressure types: " + ", ".join(PRESSURE_TYPES) + ".",
    )
    seed: int | None = Field(default=None, description="Selection seed; the run's seed if unset.")

    @field_validator("environments")
    @classmethod
    def _known_environments(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        return list(dict.fromkeys(Environment.parse(v).value for v in value))

    @field_validator("pressures")
    @classmethod
    def _known_pressures(cls, value: list[str]) -> list[str]:
        unknown = [v for v in value if v not in PRESSURE_TYPES]
        if unknown:
            raise ValueError(
                f"unknown pressure type(s) {unknown}; choose from {', '.join(PRESSURE_TYPES)}"
            )
        return list(dict.fromkeys(value))


# The environments whose answers the stance coder reads by default (issue 16): where the answer's
# stance is the mechanism in question (fallback, merging or choosing, evidence against prior).
DEFAULT_CODING_ENVIRONMENTS = (
    Environment.ABSENT,
    Environment.VAGUE,
    Environment.CONTRADICTORY,
    Environment.COUNTERFACTUAL,
)

SwappedOrder = Literal["none", "all", "half"]


class NavigationConfig(BaseModel):
    """The navigation task's settings (issue 29; docs/tasks.md)."""

    model_config = ConfigDict(extra="forbid")

    parties: int | None = Field(
        default=None,
        ge=2,
        description="A seeded subset of this many parties per statement (all when unset).",
    )
    context_tokens: int = Field(
        default=6000,
        ge=200,
        description="Token budget of one navigation prompt (characters / 4); a context over it is "
        "split or refused, never cut.",
    )
    over_budget: Literal["split", "refuse"] = Field(
        default="split",
        description="A context over the budget: split into parts (the degraded party in each) or "
        "refused; both are counted in run.json.",
    )


class ComparisonConfig(BaseModel):
    """The comparison task's settings (issue 29; docs/tasks.md)."""

    model_config = ConfigDict(extra="forbid")

    differing: int = Field(
        default=1,
        ge=0,
        description="Seeded pairs per statement whose parties differ (one agrees, one disagrees); "
        "a statement without one gets none, counted.",
    )
    agreeing: int = Field(
        default=1,
        ge=0,
        description="Seeded pairs per statement whose parties take the same stance.",
    )


# Issue 29: the tasks a run can ask (polistemics.tasks); the paper's is the default.
TASK_NAMES = ("party_position", "navigation", "comparison", "issue_mapping")
DEFAULT_TASKS = ["party_position"]


class RunConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    elections: list[ElectionConfig] = Field(min_length=1)
    targets: list[str] = Field(min_length=1)
    judges: list[str] = Field(min_length=1)
    standardiser: str
    vague_generator: str
    vague_auditor: str
    environments: list[str] = Field(default_factory=lambda: [e.value for e in ALL_ENVIRONMENTS])
    ablations: list[Literal["anon", "en"]] = Field(default_factory=list)
    samples: int = Field(default=1, ge=1)
    overlap_judging: bool = Field(
        default=True,
        description="Judge each answer as it arrives (best for remote endpoints). Off: judge after "
        "all answers, in prompt order, so a serial local server reuses shared prompt prefixes.",
    )
    seed: int = 0
    embeddings: Literal["use", "tfidf"] = "use"
    vague_max_tries: int = Field(default=3, ge=1)
    standardise_retries: int = Field(default=2, ge=0)
    max_cost: float | None = Field(default=None, gt=0)
    check_disk_space: bool = Field(
        default=True,
        description="Refuse a run whose estimated files exceed the free disk space, before its "
        "first call (run.disk_space).",
    )
    concurrency: int | None = Field(
        default=None, ge=1, description="Overrides every endpoint's max_concurrency."
    )
    models_file: str | None = Field(default=None, description="Extra model registry TOML.")
    output_dir: str | None = Field(
        default=None, description="Run directory (a user path, anywhere); default runs/<name>."
    )
    loo_min_items: int | None = Field(
        default=None,
        ge=1,
        description="Report: flag a leave-one-out deviation only for parties with at least this "
        "many items in the context (not in the paper; default off, every party is flaggable).",
    )
    judge_repeats: JudgeRepeatsConfig | None = Field(
        default=None, description="Repeat judging of a sample of items (off when unset)."
    )

    stance_coder: list[str] = Field(
        default_factory=list,
        description="Stance coder: a registry name, or a list of names (a panel, strict "
        "majority). Empty: answers are not coded.",
    )
    coding_environments: list[str] = Field(
        default_factory=lambda: [e.value for e in DEFAULT_CODING_ENVIRONMENTS],
        description="Environments whose answers the stance coder reads (those the run builds).",
    )
    prior_probe: bool = Field(
        default=False,
        description="Ask every target each party-position question with no context (closed "
        "book); the stance coder reads the answers. Needs stance_coder.",
    )
    compositions: list[str] = Field(
        default_factory=list,
        description="Combined environments (issue 30), e.g. 'ie_clarity_vague+ie_noise': two "
        "environments applied to one context, scored as one more environment (not in the EMI). "
        "Their parts must be in environments. Default: none.",
    )
    contradictory_swapped: SwappedOrder = Field(
        default="none",
        description="Also build Contradictory items with the opposing chunk first: for every "
        "item ('all'), a seeded half ('half') or none. Answered and coded, never judged or scored.",
    )

    tasks: list[str] = Field(
        default_factory=lambda: list(DEFAULT_TASKS),
        description="The tasks asked (issue 29): party_position (the paper's), navigation, "
        "comparison and issue_mapping.",
    )
    navigation: NavigationConfig = Field(
        default_factory=NavigationConfig, description="Settings of the navigation task."
    )
    comparison: ComparisonConfig = Field(
        default_factory=ComparisonConfig, description="Settings of the comparison task."
    )
    pushback: PushbackConfig | None = Field(
        default=None,
        description="Pushback turns (a scripted second user turn; off when unset). Needs "
        "stance_coder.",
    )

    _name_is_safe = field_validator("name")(_safe_name)

    @field_validator("tasks")
    @classmethod
    def _known_tasks(cls, value: list[str]) -> list[str]:
        unknown = [name for name in value if name not in TASK_NAMES]
        if unknown:
            raise ValueError(f"unknown task {unknown[0]!r} (known: {', '.join(TASK_NAMES)})")
        value = list(dict.fromkeys(value))
        if "party_position" not in value:
            raise ValueError(
                "party_position must be one of the tasks: the others are built on its "
                "environment items"
            )
        return value

    @model_validator(mode="after")
    def _navigation_needs_a_coder(self) -> RunConfig:
        for task in ("navigation", "comparison", "issue_mapping"):
            if task in self.tasks and not self.stance_coder:
                raise ValueError(
                    f"tasks: {task} reads its answers' per-party stances with the stance coder; "
                    "set stance_coder"
                )
        return self

    @model_serializer(mode="wrap")
    def _without_default_tasks(self, handler):
        # A config that leaves the task keys at their defaults dumps (run.json) exactly as it
        # did before they existed, so a party-position study's run.json is unchanged.
        data = handler(self)
        if isinstance(data, dict):
            if data.get("tasks") == DEFAULT_TASKS:
                data.pop("tasks")
            if self.navigation == NavigationConfig():
                data.pop("navigation", None)
            if self.comparison == ComparisonConfig():
                data.pop("comparison", None)
            if self.check_disk_space:  # the default: run.json as before the key existed
                data.pop("check_disk_space", None)
        return data

    @field_validator("stance_coder", mode="before")
    @classmethod
    def _one_or_many_coders(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value

    @field_validator("stance_coder")
    @classmethod
    def _coder_names(cls, value: list[str]) -> list[str]:
        if any(not name.strip() for name in value):
            raise ValueError("a coder name is empty")
        return value

    @field_validator("coding_environments")
    @classmethod
    def _known_coding_environments(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(Environment.parse(v).value for v in value))

    @model_validator(mode="after")
    def _probe_needs_a_coder(self) -> RunConfig:
        if self.prior_probe and not self.stance_coder:
            raise ValueError(
                "prior_probe: the closed-book probe needs a stance coder to read its answers; "
                "set stance_coder or turn prior_probe off"
            )
        return self

    @model_validator(mode="after")
    def _pushback_needs_a_coder(self) -> RunConfig:
        if self.pushback is None:
            return self
        if not self.stance_coder:
            raise ValueError(
                "pushback: capitulation is read from both answers' stance codes; set "
                "stance_coder or remove [pushback]"
            )
        missing = [e for e in self.pushback.environments or [] if e not in self.environments]
        if missing:
            raise ValueError(
                f"pushback.environments: {missing} not among the run's environments "
                f"({', '.join(self.environments)})"
            )
        return self

    @property
    def pushback_environments(self) -> list[Environment]:
        """The environments whose items get pushback (none when pushback is off)."""
        if self.pushback is None:
            return []
        chosen = self.pushback.environments or self.environments
        return [Environment(v) for v in self.environments if v in chosen]

    @field_validator("judge_repeats")
    @classmethod
    def _repeat_judge_on_panel(
        cls, value: JudgeRepeatsConfig | None, info: ValidationInfo
    ) -> JudgeRepeatsConfig | None:
        panel = info.data.get("judges") or []
        if value is not None and value.judges != ALL_JUDGES and value.judges not in panel:
            raise ValueError(
                f"judges: {value.judges!r} is not on the judge panel "
                f"({', '.join(panel)}); name one of them or '{ALL_JUDGES}'"
            )
        return value

    @property
    def repeat_judges(self) -> list[str]:
        """The distinct judges that repeat calls (none when repeat judging is off)."""
        if self.judge_repeats is None:
            return []
        if self.judge_repeats.judges == ALL_JUDGES:
            return list(dict.fromkeys(self.judges))
        return [self.judge_repeats.judges]

    @field_validator("environments")
    @classmethod
    def _known_environments(cls, value: list[str]) -> list[str]:
        parsed = [Environment.parse(v) for v in value]
        composed = [env.value for env in parsed if env.is_composition]
        if composed:
            raise ValueError(
                f"'{composed[0]}' is a composition: name it in compositions, its parts here"
            )
        return [env.value for env in parsed]

    @model_validator(mode="after")
    def _known_compositions(self) -> RunConfig:
        """Each composition parsed (an incompatible one refused with the reason), in canonical
        form, once; its parts must be built too (the interaction table needs their rates)."""
        parsed = []
        for name in self.compositions:
            composition = Environment.parse(name)
            if not composition.is_composition:
                raise ValueError(
                    f"compositions: '{name}': a composition has exactly two parts, found 1 "
                    "(join two environments with '+', e.g. 'ie_clarity_vague+ie_noise')"
                )
            lacking = [p.value for p in composition.parts if p.value not in self.environments]
            if lacking:
                raise ValueError(
                    f"compositions: '{composition.value}' needs its parts among environments "
                    f"(missing: {', '.join(lacking)}); its difficulty is read against theirs"
                )
            parsed.append(composition.value)
        self.compositions = list(dict.fromkeys(parsed))
        return self

    @property
    def composition_list(self) -> list[Environment]:
        return [Environment(v) for v in self.compositions]

    @property
    def environment_list(self) -> list[Environment]:
        return [Environment(v) for v in self.environments]

    @property
    def coded_environments(self) -> list[Environment]:
        """The environments whose answers are coded: configured and built (none without a coder).
        A composition (issue 30) is coded like any environment when named in
        ``coding_environments``, and also when one of its parts is coded (its answer's stance is
        then the mechanism in question too)."""
        if not self.stance_coder:
            return []
        coded = [Environment(v) for v in self.coding_environments if v in self.environments]
        named = set(self.coding_environments)
        return coded + [
            c
            for c in self.composition_list
            if c.value in named or any(part in coded for part in c.parts)
        ]

    @property
    def variants(self) -> list[Variant]:
        return [Variant.FULL] + [Variant(a) for a in self.ablations]

    def run_dir(self, base: Path | None = None) -> Path:
        if self.output_dir:
            return Path(self.output_dir)
        return inside(base or Path("runs"), self.name)

    def model_names(self) -> list[str]:
        names = [
            *self.targets,
            *self.judges,
            self.standardiser,
            self.vague_generator,
            self.vague_auditor,
            *self.stance_coder,
        ]
        return list(dict.fromkeys(names))


def parse_config(data: dict, origin: str) -> RunConfig:
    try:
        return RunConfig(**data)
    except ValidationError as exc:
        problems = "; ".join(_describe(err) for err in exc.errors())
        raise ConfigError(f"{origin}: {problems}") from None
    except ValueError as exc:
        raise ConfigError(f"{origin}: {exc}") from None


def _describe(error) -> str:
    """'elections.0.statements: Input should be a valid list (for example: statements = [1, 2])'."""
    loc = error["loc"]
    where = ".".join(str(p) for p in loc) or "(top level)"
    text = f"{where}: " + error["msg"].removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        known = similar_key(loc)
        return f"{text}; did you mean {known!r}?" if known else f"{text} (not a config key)"
    example = example_for(loc)
    return f"{text} (for example: {example})" if example else text


PRESETS = ("demo", "demo-mechanisms", "paper-de", "paper-nl", "extended-de")


def load_config(name_or_path: str | Path) -> RunConfig:
    """A preset name or a TOML file path."""
    text: str
    origin = str(name_or_path)
    if isinstance(name_or_path, str) and name_or_path in PRESETS:
        text = (
            resources.files("polistemics.run")
            .joinpath("presets", f"{name_or_path}.toml")
            .read_text("utf-8")
        )
        origin = f"<preset {name_or_path}>"
    else:
        path = Path(name_or_path)
        if not path.is_file():
            hint = ""
            if str(name_or_path).lower() in ("true", "false", "yes", "no", "1", "0"):
                hint = "; flags such as --dry-run take no value: write the flag alone"
            raise ConfigError(f"{path}: no such config file (presets: {', '.join(PRESETS)}){hint}")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise ConfigError(f"{path}: not UTF-8 text") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{origin}: not valid TOML ({exc})") from None
    return parse_config(data, origin)
