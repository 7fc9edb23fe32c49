"""Property: the analysis tables and the report's content never raise on a small or degenerate
panel (issue 27, item 5), without a server.

Hypothesis draws a panel's raw verdicts: one or two models, one to three parties and statements,
any environments and ablations, a panel of one to four judges (an even panel has ties), verdicts
that all say Yes, all say No or are mixed, and seats that are missing (a judge that gave no
verdict, or an unreadable one). The panel's majority gives the scored cells, as a run scores
them (``scoring.verdicts.majority``); the cells and the tally then go through
``analyses.analysis_tables``, the tables' files and back, and the report's content builder.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polistemics.analyses.tables import (
    analysis_tables,
    read_analysis_tables,
    write_analysis_tables,
)
from polistemics.conditions import ALL_ENVIRONMENTS, Environment, Variant
from polistemics.report.content import ReportOptions, build_content
from polistemics.report.inputs import ReportInputs
from polistemics.rubrics import active_rubrics, sub_questions
from polistemics.scoring.cells import validate_cells
from polistemics.scoring.verdicts import ItemKey, JudgeVerdict, majority

ELECTION = "e"
OPTIONS = ReportOptions(bootstrap_resamples=20)


@st.composite
def panels(draw) -> tuple[list[JudgeVerdict], int, pd.DataFrame]:
    """A panel's raw verdicts, its size, and the items' metadata (party names, country)."""
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
    seats = [
        draw(st.sampled_from(["present", "present", "absent", "unreadable"]))
        for _ in range(panel_size)
    ]
    rows: list[JudgeVerdict] = []
    for model in models:
        for environment in environments:
            for variant in variants:
                if variant is not Variant.FULL and environment is Environment.ABSENT:
                    continue  # the ablations have no Absent items
                for party in parties:
                    for number in range(1, statements + 1):
                        item = ItemKey(
                            model=model,
                            environment=environment,
                            variant=variant,
                            observation_id=f"{ELECTION}__{party}__s{number:03d}",
                            party_id=party,
                            election_id=ELECTION,
                            language="English" if variant is Variant.ENGLISH else "Dutch",
                        )
                        for rubric in active_rubrics(environment):
                            for judge, seat in enumerate(seats):
                                if seat == "absent":
                                    continue
                                for sq in sub_questions(rubric, environment):
                                    if seat == "unreadable":
                                        says = None
                                    elif verdicts_say == "mixed":
                                        says = draw(st.booleans())
                                    else:
                                        says = verdicts_say == "yes"
                                    rows.append(
                                        JudgeVerdict(item, rubric, f"judge-{judge}", sq.key, says)
                                    )
    metadata = pd.DataFrame(
        [
            {
                "observation_id": f"{ELECTION}__{party}__s{number:03d}",
                "party_name": party.upper(),
                "country": "NL",
            }
            for party in parties
            for number in range(1, statements + 1)
        ]
    )
    return rows, panel_size, metadata


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,  # the same panels on every run: CI is reproducible
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(panel=panels())
def test_analyses_and_report_content_of_any_small_panel(panel) -> None:
    verdicts, panel_size, metadata = panel
    scored = majority(verdicts, panel_size, metadata)
    cells = validate_cells(scored.cells)
    with tempfile.TemporaryDirectory(prefix="analysis-property-") as tmp:
        folder = Path(tmp)
        tables = analysis_tables(cells, tally=scored.tally, resamples=OPTIONS.bootstrap_resamples)
        write_analysis_tables(tables, folder / "tables")
        inputs = ReportInputs(
            kind="run", source=folder, title="property", cells=cells, judging=scored.tally
        )
        content = build_content(inputs, OPTIONS, analyses=read_analysis_tables(folder / "tables"))
    assert content.inputs.cells is cells
