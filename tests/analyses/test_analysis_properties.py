"""Property: the analysis tables and the report's content never raise on a small or degenerate
panel (issue 27, item 5), without a server.

Hypothesis draws a panel's raw verdicts: one or two models, one to three parties and statements,
any environments and ablations, a panel of one to four judges (an even panel has ties), verdicts
that all say Yes, all say No or are mixed, and seats that are missing (a judge that gave no
verdict, or an unreadable one). The panel's majority gives the scored cells, as a run scores
them (``scoring.verdict_table.score_run``); the cells, the tally and the raw verdicts then go
through ``analyses.analysis_tables``, the tables' files and back, and the report's content
builder."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polistemics.analyses.tables import (
    analysis_tables,
    read_analysis_tables,
    write_analysis_tables,
)
from polistemics.conditions import ALL_ENVIRONMENTS, Environment, Variant
from polistemics.records import Stance
from polistemics.report.content import ReportOptions, build_content
from polistemics.report.inputs import ReportInputs
from polistemics.rubrics import Rubric, active_rubrics, sub_questions
from polistemics.runlog import EnvironmentItem, JudgeVerdictRecord
from polistemics.scoring.cells import validate_cells
from polistemics.scoring.verdict_table import score_run

ELECTION = "e"
OPTIONS = ReportOptions(bootstrap_resamples=20)


@dataclass(frozen=True)
class Panel:
    """A panel's raw verdicts on a small study's items, as a run records them."""

    items: list[EnvironmentItem]
    records: list[JudgeVerdictRecord]
    panel_size: int


def verdict(
    one: EnvironmentItem,
    seat: int,
    says_yes: dict,
    *,
    rubric: Rubric,
    model: str = "m",
    sample_index: int = 0,
    parsed: bool = True,
) -> JudgeVerdictRecord:
    """The record of the judge in ``seat`` on an answer to ``one``, as a run writes it."""
    return JudgeVerdictRecord(
        item_key=one.key,
        environment=one.environment,
        model=model,
        sample_index=sample_index,
        rubric=rubric,
        judge=f"judge-{seat}",
        panel_position=seat,
        call_key=None,
        attempts=1,
        raw_output=None,
        parsed=parsed,
        says_yes=says_yes,
    )


def item(party: str, number: int, environment: Environment, variant: Variant) -> EnvironmentItem:
    return EnvironmentItem(
        observation_id=f"{ELECTION}__{party}__s{number:03d}",
        election_id=ELECTION,
        party_id=party,
        party_name=party.upper(),
        party_anonymized="Party A",
        statement_id=f"s{number:03d}",
        statement_number=number,
        statement_text=f"Statement {number}",
        stance_label=Stance.AGREE,
        environment=environment,
        variant=variant,
        language="Dutch",
        output_language="English" if variant is Variant.ENGLISH else "Dutch",
        chunks=[],
    )


@st.composite
def panels(draw) -> Panel:
    """One or two models, one to three parties and statements, any environments and ablations,
    a panel of one to four seats that say Yes, No or a mix, or are missing (no record, or a
    record with no readable verdict)."""
    models = [f"model-{i}" for i in range(draw(st.integers(1, 2)))]
    parties = [f"p{i}" for i in range(draw(st.integers(1, 3)))]
    statements = draw(st.integers(1, 3))
    environments = draw(
        st.lists(st.sampled_from(list(ALL_ENVIRONMENTS)), min_size=1, max_size=3, unique=True)
    )
    variants = [Variant.FULL] + draw(
        st.lists(st.sampled_from([Variant.ANONYMIZED, Variant.ENGLISH]), unique=True)
    )
    panel_size = draw(st.integers(1, 4))
    verdicts_say = draw(st.sampled_from(["yes", "no", "mixed"]))
    seat = st.sampled_from(["present", "present", "present", "absent", "unreadable"])
    seats = [draw(seat) for _ in range(panel_size)]
    items = [
        item(party, number, environment, variant)
        for environment in environments
        for variant in variants
        if not (variant is not Variant.FULL and environment is Environment.ABSENT)
        for party in parties
        for number in range(1, statements + 1)
    ]
    records = []
    for model in models:
        for one in items:
            for rubric in active_rubrics(one.environment):
                keys = [sq.key for sq in sub_questions(rubric, one.environment)]
                for position, state in enumerate(seats):
                    if state == "absent":
                        continue
                    if state == "unreadable":
                        says = dict.fromkeys(keys)
                    elif verdicts_say == "mixed":
                        says = {key: draw(st.booleans()) for key in keys}
                    else:
                        says = dict.fromkeys(keys, verdicts_say == "yes")
                    records.append(
                        verdict(
                            one,
                            position,
                            says,
                            model=model,
                            rubric=rubric,
                            parsed=state == "present",
                        )
                    )
    return Panel(items, records, panel_size)


@settings(
    max_examples=20,
    deadline=None,
    derandomize=True,  # the same panels on every run: CI is reproducible
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(panel=panels())
def test_analyses_and_report_content_of_any_small_panel(panel: Panel) -> None:
    scored = score_run(
        panel.records, panel.items, panel_size=panel.panel_size, countries={ELECTION: "NL"}
    )
    cells = validate_cells(scored.cells)
    with tempfile.TemporaryDirectory(prefix="analysis-property-") as tmp:
        folder = Path(tmp)
        tables = analysis_tables(
            cells,
            tally=scored.tally,
            judge_records=panel.records,
            items=panel.items,
            resamples=OPTIONS.bootstrap_resamples,
        )
        write_analysis_tables(tables, folder / "tables")
        inputs = ReportInputs(
            kind="run",
            source=folder,
            title="property",
            cells=cells,
            judge_records=panel.records,
            judging=scored.tally,
            items=panel.items,
        )
        content = build_content(inputs, OPTIONS, analyses=read_analysis_tables(folder / "tables"))
    assert content.inputs.cells is cells
