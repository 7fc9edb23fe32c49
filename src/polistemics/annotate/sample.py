"""Draw the stratified human-annotation sample of (answer x rubric) units from a finished run.

Population: every answer x rubric the whole panel judged (each seat gave every verdict, the
units the panel's scores rest on). A unit is "agreed" when every seat gave the same verdicts on
all its sub-questions, else "split". Strata: environment x rubric x agreed/split.

Allocation rule (documented in docs/annotation.md):
1. Split units are oversampled: ``round(n * split_share)`` of the ``n`` draws go to split strata
   (default share 0.5), as far as there are split units; the rest go to agreed strata, and if
   those run out the split strata take the remainder (and the other way round).
2. Within the split group and within the agreed group, draws are allocated proportionally to
   stratum size by largest remainders (ties to the larger stratum, then by name), never more
   than a stratum holds; what a full stratum cannot take goes to the others.
3. Each stratum's units are drawn without replacement by a seeded ``random.Random``; the weight
   of a drawn unit is its stratum size / units drawn from it (inverse inclusion probability).
4. The drawn units are shuffled (seeded) into draw order, so an annotator who stops early has
   labelled a spread of strata; ids ``a0001``.. follow that order.
5. Overlap: a seeded ``overlap_share`` of the drawn units (rounded) want ``overlap`` annotators,
   the others one, so human-human agreement can be measured.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from polistemics.annotate.defaults import (
    DEFAULT_OVERLAP,
    DEFAULT_OVERLAP_SHARE,
    DEFAULT_SPLIT_SHARE,
)
from polistemics.annotate.run_data import AnswerRubric, items_for, panel_verdicts
from polistemics.annotate.store import SampleItem, sample_id_for
from polistemics.conditions import Environment
from polistemics.rubrics import Rubric
from polistemics.tasks import PARTY_POSITION, TASKS
from polistemics.tasks.views import judge_panel_size


class SampleError(ValueError):
    """The sample cannot be drawn (bad options, or a run without judged answers)."""


class SampleOptions(BaseModel):
    model_config = ConfigDict(frozen=True)

    n: int = Field(ge=1)
    seed: int = 0
    split_share: float = Field(DEFAULT_SPLIT_SHARE, ge=0.0, le=1.0)
    overlap: int = Field(DEFAULT_OVERLAP, ge=1, le=100)
    overlap_share: float = Field(DEFAULT_OVERLAP_SHARE, ge=0.0, le=1.0)


class StratumDesign(BaseModel):
    model_config = ConfigDict(frozen=True)

    stratum: str
    environment: Environment
    rubric: Rubric
    judges_agreed: bool
    size: int  # units in the population
    drawn: int
    weight: float | None  # size / drawn; None when none were drawn


class SampleDesign(BaseModel):
    """What was drawn and why: printed by ``annotate sample`` and kept for the report."""

    model_config = ConfigDict(frozen=True)

    seed: int
    requested: int
    drawn: int
    population: int
    population_split: int
    split_share_target: float
    drawn_split: int
    overlap: int
    overlap_share: float
    items_wanting_overlap: int
    strata: list[StratumDesign]


def stratum_name(environment: str, rubric: str, agreed: bool) -> str:
    return f"{environment}|{rubric}|{'agreed' if agreed else 'split'}"


def _largest_remainders(total: int, sizes: dict[str, int]) -> dict[str, int]:
    """``total`` draws spread over strata proportionally to size, capped at each size."""
    counts = dict.fromkeys(sizes, 0)
    left = min(total, sum(sizes.values()))
    while left > 0:
        open_sizes = {name: size for name, size in sizes.items() if counts[name] < size}
        pool = sum(open_sizes.values())
        shares = {name: left * size / pool for name, size in open_sizes.items()}
        given = {
            name: min(int(share), sizes[name] - counts[name]) for name, share in shares.items()
        }
        by_remainder = sorted(
            open_sizes, key=lambda name: (-(shares[name] - int(shares[name])), -sizes[name], name)
        )
        for name, amount in given.items():
            counts[name] += amount
        left -= sum(given.values())
        for name in by_remainder:
            if left == 0:
                break
            if counts[name] < sizes[name]:
                counts[name] += 1
                left -= 1
    return counts


def _split_agreed_counts(n: int, split: int, agreed: int, share: float) -> tuple[int, int]:
    n = min(n, split + agreed)
    n_split = min(split, round(n * share))
    n_agreed = min(agreed, n - n_split)
    return n - n_agreed, n_agreed


@dataclass(frozen=True)
class JudgedPopulation:
    """The units the whole panel judged, with what a sample item records of each."""

    agreed: dict[AnswerRubric, bool]  # every seat gave the same verdicts
    environment: dict[AnswerRubric, str]  # the item's environment
    language: dict[AnswerRubric, str]  # the language the answer was asked in
    panel_environment: dict[AnswerRubric, str]  # as the judge records say (the strata's)


def _paper_population(run_dir: Path) -> JudgedPopulation:
    verdicts, _ = panel_verdicts(run_dir)
    judged = {unit: v for unit, v in verdicts.items() if v.complete}
    if not judged:
        raise SampleError(f"{run_dir}: no answer was judged by the whole panel; nothing to sample")
    items = items_for(run_dir, {unit.item_key for unit in judged})
    return JudgedPopulation(
        agreed={unit: v.agreed for unit, v in judged.items()},
        environment={
            unit: items[unit.item_key].environment.value
            for unit in judged
            if unit.item_key in items
        },
        language={
            unit: items[unit.item_key].output_language for unit in judged if unit.item_key in items
        },
        panel_environment={unit: v.environment for unit, v in judged.items()},
    )


def _task_population(run_dir: Path, task: str) -> JudgedPopulation:
    """A further task's judged answers x rubric (``Task.views.judged_units``)."""
    views = TASKS[task].views
    units = views.judged_units(run_dir) if views is not None else None
    if units is None:
        raise SampleError(f"{run_dir}: the run did not ask the {task} task; nothing to sample")
    seats = {seat for unit in units for seat in unit.seats}
    size = judge_panel_size(run_dir, len(seats))
    population = JudgedPopulation({}, {}, {}, {})
    for unit in units:
        complete = len(unit.seats) >= size and all(
            v is not None for seat in unit.seats.values() for v in seat.values()
        )
        if not complete:
            continue
        key = AnswerRubric(unit.item_key, unit.model, unit.sample_index, unit.rubric)
        verdicts = list(unit.seats.values())
        population.agreed[key] = all(v == verdicts[0] for v in verdicts)
        population.environment[key] = unit.environment.value
        population.panel_environment[key] = unit.environment.value
        population.language[key] = unit.output_language
    if not population.agreed:
        raise SampleError(f"{run_dir}: no {task} answer was judged by the whole panel")
    return population


def stratum_of(environment: str, rubric: str, agreed: bool, task: str) -> str:
    """The stratum's name; a task beyond the paper's is named last (``...|agreed|navigation``)."""
    name = stratum_name(environment, rubric, agreed)
    return name if task == PARTY_POSITION else f"{name}|{task}"


def draw_sample(
    run_dir: Path | str, options: SampleOptions, task: str = PARTY_POSITION
) -> tuple[list[SampleItem], SampleDesign]:
    """The sample items in draw order, and the design that produced them (of one task: the
    paper's by default)."""
    run_dir = Path(run_dir)
    population = (
        _paper_population(run_dir) if task == PARTY_POSITION else _task_population(run_dir, task)
    )
    strata: dict[str, list[AnswerRubric]] = defaultdict(list)
    for unit, agreed in population.agreed.items():
        name = stratum_of(population.panel_environment[unit], unit.rubric.value, agreed, task)
        strata[name].append(unit)
    for units in strata.values():
        units.sort(key=lambda u: (u.item_key, u.model, u.sample_index))
    sizes = {name: len(units) for name, units in strata.items()}
    split_sizes = {name: size for name, size in sizes.items() if _is_split(name)}
    agreed_sizes = {name: size for name, size in sizes.items() if not _is_split(name)}
    n_split, n_agreed = _split_agreed_counts(
        options.n, sum(split_sizes.values()), sum(agreed_sizes.values()), options.split_share
    )
    counts = _largest_remainders(n_split, split_sizes) | _largest_remainders(n_agreed, agreed_sizes)

    rng = random.Random(options.seed)
    drawn: list[tuple[str, AnswerRubric]] = []
    for name in sorted(strata):
        drawn.extend((name, unit) for unit in rng.sample(strata[name], counts[name]))
    rng.shuffle(drawn)
    overlapping = set(rng.sample(range(len(drawn)), round(len(drawn) * options.overlap_share)))

    sample = []
    for number, (name, unit) in enumerate(drawn, start=1):
        if unit not in population.language:
            raise SampleError(
                f"{run_dir}: judged item {unit.item_key!r} is not among the run's exported items"
            )
        sample.append(
            SampleItem(
                sample_id=sample_id_for(number, len(drawn)),
                item_key=unit.item_key,
                model=unit.model,
                sample_index=unit.sample_index,
                rubric=unit.rubric,
                environment=Environment(population.environment[unit]),
                language=population.language[unit],
                stratum=name,
                judges_agreed=population.agreed[unit],
                weight=sizes[name] / counts[name],
                annotators_wanted=options.overlap if number - 1 in overlapping else 1,
                seed=options.seed,
                task=task,
            )
        )
    design = SampleDesign(
        seed=options.seed,
        requested=options.n,
        drawn=len(sample),
        population=sum(sizes.values()),
        population_split=sum(split_sizes.values()),
        split_share_target=options.split_share,
        drawn_split=n_split,
        overlap=options.overlap,
        overlap_share=options.overlap_share,
        items_wanting_overlap=sum(s.annotators_wanted > 1 for s in sample),
        strata=[_stratum_design(name, sizes[name], counts[name]) for name in sorted(strata)],
    )
    return sample, design


def draw_task_samples(
    run_dir: Path | str, options: SampleOptions, tasks: Sequence[str]
) -> tuple[list[SampleItem], list[SampleDesign]]:
    """One sample of ``options.n`` items per task (issue 29), drawn as ``draw_sample`` draws
    each, in the order of ``tasks``; the ids run on across tasks, so that an annotator who
    filters by task sees each task's items in draw order. With one task it is ``draw_sample``."""
    items: list[SampleItem] = []
    designs = []
    for task in dict.fromkeys(tasks):
        drawn, design = draw_sample(run_dir, options, task)
        items.extend(drawn)
        designs.append(design)
    if len(designs) > 1:
        items = [
            item.model_copy(update={"sample_id": sample_id_for(number, len(items))})
            for number, item in enumerate(items, start=1)
        ]
    return items, designs


def _is_split(name: str) -> bool:
    return name.split("|")[2] == "split"


def _stratum_design(name: str, size: int, drawn: int) -> StratumDesign:
    environment, rubric, agreement = name.split("|")[:3]
    return StratumDesign(
        stratum=name,
        environment=Environment(environment),
        rubric=Rubric(rubric),
        judges_agreed=agreement == "agreed",
        size=size,
        drawn=drawn,
        weight=size / drawn if drawn else None,
    )


def design_of(sample: list[SampleItem]) -> list[StratumDesign]:
    """The strata of a stored sample (drawn and weight; size = weight x drawn)."""
    by_stratum: dict[str, list[SampleItem]] = defaultdict(list)
    for item in sample:
        by_stratum[item.stratum].append(item)
    return [
        _stratum_design(name, round(items[0].weight * len(items)), len(items))
        for name, items in sorted(by_stratum.items())
    ]
