"""The comparison page of ``polistemics compare --out DIR``: one self-contained HTML file in the
report's style, with the delta figures (``figures/delta.py``) and CSV tables.

The comparison's tables are computed once (``compare.tables``), written to ``tables/``, read
back, and the page and its figures are drawn from what was read: the page computes nothing. It
opens with the comparison in words (``comparison_views.comparison_summary``) and its
small-sample warnings.

Rendered from ``templates/compare.html`` with the report's Jinja2 environment, macros and CSS
(``page.py``): autoescaping on, user text (side labels, model and party names, paths) isolated
in ``<bdi>``, figure SVG the one trusted insert. The page has no script, and its
Content-Security-Policy allows none and no network request.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
from markupsafe import Markup

from polistemics import __version__
from polistemics.compare.comparison import Comparison
from polistemics.compare.errors import CompareError
from polistemics.compare.per_task import TaskComparison
from polistemics.compare.tables import (
    comparison_tables,
    read_comparison_tables,
    with_tables,
    write_comparison_tables,
)
from polistemics.paths import UnsafePathError, output_folder, write_text_replacing
from polistemics.report.compare_conversations import SECTION as CONVERSATIONS
from polistemics.report.compare_conversations import conversation_views
from polistemics.report.comparison_views import (
    comparison_summary,
    delta_columns,
    rank_views,
    small_sample_warnings,
)
from polistemics.report.figures import parse_figure_formats
from polistemics.report.figures.delta import comparison_figures
from polistemics.report.figures.paper import ReportFigure
from polistemics.report.labels import (
    VARIANT_COLUMN,
    ModelLabels,
    environment_label,
    rubric_label,
    sub_question_label,
    variant_label,
)
from polistemics.report.page import asset, environment
from polistemics.report.view import Column, figure_view, table_view
from polistemics.tasks import TASKS

COMPARE_FILE = "compare.html"
COMPARE_SECTIONS: tuple[tuple[str, str], ...] = (
    ("in-short", "In short"),
    ("summary", "What was compared"),
    ("ranks", "Rank agreement"),
    ("indices", "EMI and Adherence Index"),
    ("rubrics", "Rubric Scores"),
    ("sub-questions", "Sub-questions"),
    ("parties", "Parties"),
)
TASKS_SECTION = ("tasks", "Tasks")  # only for sides that asked a task beyond the paper's
MAX_LISTED_ROWS = 50
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


@dataclass
class ComparisonPart:
    comparison: Comparison
    figures: list[ReportFigure]
    prefix: str


def _shown(table: pd.DataFrame, paired: bool) -> tuple[pd.DataFrame, str]:
    """The rows a long table shows: the significant ones (paired) or the largest |delta|."""
    if table.empty:
        return table, "no rows"
    if paired and "significant" in table.columns:
        hits = table[table["significant"].astype(bool)]
        ranked = hits.reindex(hits["delta"].abs().sort_values(ascending=False).index)
        return ranked.head(MAX_LISTED_ROWS), (
            f"{len(hits)} of {len(table)} tests significant after Holm"
            + (f"; the {MAX_LISTED_ROWS} largest shown" if len(hits) > MAX_LISTED_ROWS else "")
        )
    ranked = table.reindex(table["delta"].abs().sort_values(ascending=False).index)
    verdicts = ""
    if "excludes_zero" in table.columns:
        verdicts = (
            f" ({int(table['excludes_zero'].astype(bool).sum())} with a 95% interval that "
            f"excludes 0, {int(table['significant'].astype(bool).sum())} significant after Holm)"
        )
    return ranked.head(MAX_LISTED_ROWS), (
        f"the {min(MAX_LISTED_ROWS, len(table))} largest |Δ| of {len(table)} rows{verdicts}"
    )


def _figures(part: ComparisonPart, refs: tuple[str, ...]) -> list:
    return [figure_view(f) for f in part.figures if f.paper_ref in refs]


def _part_view(part: ComparisonPart, labels: ModelLabels) -> dict:
    c = part.comparison
    m = c.matched
    paired = c.paired
    model = Column("Model", lambda r: labels(r["model"]))
    variant = VARIANT_COLUMN
    env = Column("Environment", lambda r: environment_label(r["environment"]))
    rubric = Column("Rubric", lambda r: rubric_label(r["rubric"]))
    sq = Column("Sub-question", lambda r: sub_question_label(r["sub_question"]))
    party = Column(
        "Party", lambda r: r["party_name"] if isinstance(r["party_name"], str) else r["party_id"]
    )
    sides = table_view(
        pd.DataFrame(
            [
                {
                    "side": name,
                    "label": side.label,
                    "kind": side.kind,
                    "source": str(side.source),
                    "elections": ", ".join(side.values("election_id")) or "–",
                    "cells": len(side.cells),
                }
                for name, side in (("A", m.a), ("B", m.b))
            ]
        ),
        [
            Column("Side", "side"),
            Column("Label", "label"),
            Column("Kind", "kind"),
            Column("Source", "source", limit=None),
            Column("Elections", "elections"),
            Column("Cells", "cells", numeric=True),
        ],
        caption="Sides (deltas are B minus A)",
    )
    rank_tables = rank_views(c, labels)
    deltas = c.deltas
    sub_rows, sub_note = _shown(deltas.sub_questions, paired)
    pooled_rows, pooled_note = _shown(deltas.sub_questions_pooled, paired)
    party_rows, party_note = _shown(deltas.parties, paired)
    plain = delta_columns(paired, tests=not paired)  # paired: no test on these grains
    return {
        "heading": c.title,
        "in_short": comparison_summary(c, labels),
        "warnings": small_sample_warnings(c),
        "alpha": c.options.alpha,
        "n_excludes_zero": None
        if paired
        else sum(int(t["excludes_zero"].astype(bool).sum()) for _, t in c.tested()),
        "mode": m.mode,
        "paired": paired,
        "sides": sides,
        "notes": list(m.notes),
        "left_out": list(m.left_out),
        "shared_models": ", ".join(labels(x) for x in m.models),
        "shared_environments": ", ".join(environment_label(e) for e in m.environments),
        "shared_variants": ", ".join(variant_label(v) for v in m.variants),
        "n_significant": c.n_significant(),
        "resamples": c.options.resamples,
        "rank_variant": variant_label(c.ranks["variant"]),
        "ranks": rank_tables,
        "emi": table_view(deltas.emi, [variant, model, *plain], caption="EMI (B − A)"),
        "adherence": table_view(
            deltas.adherence, [variant, model, env, *plain], caption="Adherence Index (B − A)"
        ),
        "index_figures": _figures(part, ("Fig. 30",)),
        "rubric_figures": _figures(part, ("Fig. 31", "Fig. 32")),
        "rubrics": table_view(
            deltas.rubrics, [variant, model, env, rubric, *plain], caption="Rubric Score (B − A)"
        ),
        "sub_figures": _figures(part, ("Fig. 22b", "Fig. 24b", "Fig. 25b", "Fig. 26b", "Fig. 27b")),
        "sub_questions": table_view(
            sub_rows,
            [variant, model, env, sq, *delta_columns(paired)],
            caption=f"Sub-question pass rate per environment: {sub_note}",
        ),
        "pooled": table_view(
            pooled_rows,
            [variant, model, sq, *delta_columns(paired)],
            caption=f"Sub-question pass rate pooled over environments: {pooled_note}",
        ),
        "party_figures": _figures(part, ("As Figs. 36-38",)),
        "parties": None
        if deltas.parties.empty
        else table_view(
            party_rows,
            [variant, party, env, sq, *delta_columns(paired)],
            caption=f"Pass rate per party (pooled over models): {party_note}",
        ),
        "prefix": part.prefix,
        "conversations": conversation_views(c, labels),  # issue 30; none: no section
        "task_notes": list(c.task_notes),
        "tasks": [_task_view(t, labels) for t in c.tasks],
    }


def _task_view(t: TaskComparison, labels: ModelLabels) -> dict:
    """One task's comparison: its judged deltas (as the party-position tables) and its checks."""
    titles = {sq.key: f"{sq.code} {sq.title}" for sq in TASKS[t.task].sub_questions}
    model = Column("Model", lambda r: labels(r["model"]))
    env = Column("Environment", lambda r: environment_label(r["environment"]))
    rubric = Column("Rubric", lambda r: rubric_label(r["rubric"]))
    sq = Column("Sub-question", lambda r: titles.get(r["sub_question"], r["sub_question"]))
    metric = Column("Check", "metric", title="docs/compare.md lists each check of the task")
    view: dict = {
        "id": t.task,
        "label": t.label,
        "mode": None if t.matched is None else t.matched.mode,
        "notes": [*([] if t.matched is None else t.matched.notes), *t.notes],
        "left_out": [] if t.matched is None else list(t.matched.left_out),
        "n_significant": t.n_significant(),
        "tables": [],
    }
    paired = t.paired
    if t.deltas is not None:
        d = t.deltas
        sub_rows, sub_note = _shown(d.sub_questions, paired)
        view["tables"] += [
            table_view(
                d.emi,
                [model, *delta_columns(paired, tests=not paired)],
                caption=f"{t.label}: EMI (B − A)",
                table_id=f"{t.task}-compare-emi",
            ),
            table_view(
                d.adherence,
                [model, env, *delta_columns(paired, tests=not paired)],
                caption=f"{t.label}: Adherence Index (B − A)",
                table_id=f"{t.task}-compare-adherence",
            ),
            table_view(
                d.rubrics,
                [model, env, rubric, *delta_columns(paired, tests=not paired)],
                caption=f"{t.label}: Rubric Score (B − A)",
                table_id=f"{t.task}-compare-rubrics",
            ),
            table_view(
                sub_rows,
                [model, env, sq, *delta_columns(paired)],
                caption=f"{t.label}: sub-question pass rate per environment: {sub_note}",
                table_id=f"{t.task}-compare-sub-questions",
            ),
        ]
    metric_rows, metric_note = _shown(t.metrics, paired=False)
    view["tables"].append(
        table_view(
            metric_rows,
            [model, env, metric, *delta_columns(False)],
            caption=f"{t.label}: checks against the ground truth (B − A; bootstrap over "
            f"answers, paired where the answers pair): {metric_note}",
            table_id=f"{t.task}-compare-metrics",
        )
    )
    return view


def _has_tasks(c: Comparison) -> bool:
    return bool(c.tasks or c.task_notes)


def render_compare_page(
    parts: list[ComparisonPart], labels: ModelLabels, csv_names: list[str]
) -> str:
    first = parts[0].comparison.matched
    title = " vs ".join([first.a.label, *(p.comparison.matched.b.label for p in parts)])
    views = [_part_view(p, labels) for p in parts]
    with_conversations = any(view["conversations"] for view in views)
    return (
        environment()
        .get_template("compare.html")
        .render(
            csp=CSP,
            css=Markup(asset("report.css")),  # the package's own file, inserted verbatim
            title=title,
            generated=datetime.now(UTC).isoformat(timespec="seconds"),
            version=__version__,
            nav=COMPARE_SECTIONS
            + ((TASKS_SECTION,) if any(_has_tasks(p.comparison) for p in parts) else ())
            + ((CONVERSATIONS,) if with_conversations else ()),
            has_tasks=any(_has_tasks(p.comparison) for p in parts),
            several=len(parts) > 1,
            parts=views,
            with_conversations=with_conversations,
            csv_names=csv_names,
        )
    )


def write_compare_page(
    comparisons: list[Comparison],
    out_dir: Path,
    labels: ModelLabels | None = None,
    figure_formats: tuple[str, ...] = ("svg",),
    tables: dict[str, pd.DataFrame] | None = None,
) -> Path:
    """``tables/*.csv``, ``figures/*`` and ``compare.html`` in ``out_dir``; returns the page.
    ``tables``: the comparisons' tables when already computed (``compare.tables``)."""
    labels = labels or ModelLabels()
    formats = parse_figure_formats(",".join(figure_formats))
    try:
        output_folder(out_dir, ("tables", "figures"))  # no write follows a link out of it
    except UnsafePathError as exc:
        raise CompareError(str(exc)) from None
    tables = tables if tables is not None else comparison_tables(comparisons)
    written = write_comparison_tables(tables, out_dir / "tables")
    drawn = with_tables(comparisons, read_comparison_tables(tables, out_dir / "tables"))
    parts = [
        ComparisonPart(c, comparison_figures(c, labels, f"cmp{i + 1}"), f"cmp{i + 1}")
        for i, c in enumerate(drawn)
    ]
    figures_dir = out_dir / "figures"
    figures_dir.mkdir(exist_ok=True)
    for part in parts:
        for figure in part.figures:
            for fmt in formats:
                figure.save(figures_dir, fmt)
    page = out_dir / COMPARE_FILE
    write_text_replacing(page, render_compare_page(parts, labels, [p.name for p in written]))
    return page
