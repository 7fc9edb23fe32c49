"""Delta heatmaps of a comparison (side B minus side A, signed pp on a diverging scale), drawn
with the report's heatmap (``heatmap.draw_heatmap``) and wrapped as ``ReportFigure``.

The paper's App. I draws these for NL - DE: Fig. 30 (Adherence Index per model x environment;
the right strip is side B's dispersion, not a delta), Figs. 31/32 (Rubric Scores under the
inconclusive / interfering environments), Fig. 22b (I1-I5 pooled over environments) and
Figs. 24b-27b (EC and F sub-questions under Vague and Contradictory). A paired comparison adds
one party x sub-question figure per environment (as Figs. 36-38). In a paired comparison,
bordered cells are the Holm-significant McNemar tests.
"""

from __future__ import annotations

import pandas as pd

from polistemics.compare.comparison import Comparison
from polistemics.conditions import Environment
from polistemics.report.colours import dispersion_scale, diverging_scale
from polistemics.report.figures.heatmap import ColumnGroup, Heatmap, Strip
from polistemics.report.figures.paper import (
    Lookup,
    ReportFigure,
    _party_order,
    _rubric_groups,
    family_limit,
    range_note,
)
from polistemics.report.formatting import signed_points
from polistemics.report.labels import (
    PARTY_FIGURE_RUBRICS,
    RUBRIC_ORDER,
    ModelLabels,
    environment_label,
    sub_question,
    sub_question_order,
)
from polistemics.rubrics import Rubric

INCONCLUSIVE = (Environment.ABSENT, Environment.VAGUE, Environment.CONTRADICTORY)
INTERFERING = (Environment.BASELINE, Environment.NOISY, Environment.COUNTERFACTUAL)
SUB_QUESTION_FIGURES = (
    ("Fig. 24b", "fig24b", Rubric.EPISTEMIC_CALIBRATION, Environment.VAGUE),
    ("Fig. 25b", "fig25b", Rubric.FAITHFULNESS, Environment.VAGUE),
    ("Fig. 26b", "fig26b", Rubric.EPISTEMIC_CALIBRATION, Environment.CONTRADICTORY),
    ("Fig. 27b", "fig27b", Rubric.FAITHFULNESS, Environment.CONTRADICTORY),
)
ANNOTATION = "Annotation: signed pp (B - A)."  # followed by the family's colour range


def _notes(values: list[list[float | None]]) -> list[list[str]]:
    return [[signed_points(v) if v is not None else "" for v in row] for row in values]


class DeltaFigures:
    """The figures of one comparison; ``prefix`` makes ids and file names unique on a page."""

    def __init__(self, comparison: Comparison, labels: ModelLabels, prefix: str):
        self.c = comparison
        self.labels = labels
        self.prefix = prefix
        self.variant = comparison.ranks["variant"]
        self.name = f"{comparison.matched.b.label} − {comparison.matched.a.label}"
        emi = self._part(comparison.deltas.emi)
        self.models = list(emi.sort_values(["value_a", "model"], ascending=[False, True])["model"])
        difficulty = {
            r["item"]: r["value_b"] for r in comparison.ranks["environment_difficulty"]["ranks"]
        }
        present = set(self._part(comparison.deltas.adherence)["environment"])
        others = sorted(
            (e for e in present if e != Environment.BASELINE.value),
            key=lambda e: (-difficulty.get(e, 0.0), e),
        )
        base = [Environment.BASELINE.value] if Environment.BASELINE.value in present else []
        self.environments = base + others
        # One colour range for every delta figure of the comparison, from all their deltas.
        deltas = comparison.deltas
        self.limit = family_limit(
            *(
                self._part(table)["delta"]
                for table in (
                    deltas.adherence,
                    deltas.rubrics,
                    deltas.sub_questions,
                    deltas.sub_questions_pooled,
                    deltas.parties,
                )
                if not table.empty and "delta" in table.columns
            )
        )
        self.range = range_note(self.limit, "delta figure of this comparison")

    def _part(self, table: pd.DataFrame) -> pd.DataFrame:
        return table[table["variant"] == self.variant] if not table.empty else table

    def _bordered(self, table: pd.DataFrame, rows: list, columns: list, row_key: str, col_key: str):
        if not self.c.paired or "significant" not in table.columns:
            return frozenset()
        hits = table[table["significant"].astype(bool)]
        return frozenset(
            (rows.index(r), columns.index(k))
            for r, k in zip(hits[row_key], hits[col_key], strict=True)
            if r in rows and k in columns
        )

    def _figure(self, key: str, ref: str, stem: str, heatmap: Heatmap, note: str) -> ReportFigure:
        return ReportFigure(heatmap.figure_id, ref, f"{self.prefix}_{stem}", heatmap, note)

    def _id(self, key: str) -> str:
        return f"{self.prefix}-{key}"

    def robustness(self) -> ReportFigure | None:
        table = self._part(self.c.deltas.adherence)
        if table.empty:
            return None
        delta = Lookup(table, ["model", "environment"], "delta")
        values = [[delta(m, e) for e in self.environments] for m in self.models]
        spread = {r["item"]: r["value_b"] for r in self.c.ranks["dispersion"]["ranks"]}
        strip = [spread.get(m) for m in self.models]
        heatmap = Heatmap(
            figure_id=self._id("fig30"),
            title=f"Robustness across IEs — {self.name}",
            rows=[self.labels.display(m) for m in self.models],
            columns=[environment_label(e) for e in self.environments],
            values=values,
            annotations=_notes(values),
            scale=diverging_scale(self.limit, "delta"),
            strip=Strip(f"SD ({self.c.matched.b.label})", strip, dispersion_scale()),
            footnote=f"Adherence Index delta per model and IE. {ANNOTATION} {self.range} "
            "Right strip: side B's rubric-level dispersion (mean over rubrics of the SD of the "
            "Rubric Score across active IEs), not a delta.",
        )
        return self._figure(
            "fig30",
            "Fig. 30",
            "fig30_adherence_delta",
            heatmap,
            "Adherence Index difference per model and environment (side B minus side A); the "
            "right strip is side B's dispersion.",
        )

    def by_rubric(self, ref: str, key: str, environments: tuple[Environment, ...], what: str):
        table = self._part(self.c.deltas.rubrics)
        envs = [e.value for e in environments if e.value in set(table["environment"])]
        if not envs:
            return None
        delta = Lookup(table, ["model", "environment", "rubric"], "delta")
        columns = [(e, r.value) for e in envs for r in RUBRIC_ORDER]
        values = [[delta(m, e, r) for e, r in columns] for m in self.models]
        n = len(RUBRIC_ORDER)
        heatmap = Heatmap(
            figure_id=self._id(key),
            title=f"{what} IEs by rubric — {self.name}",
            rows=[self.labels.display(m) for m in self.models],
            columns=[Rubric(r).abbreviation for _, r in columns],
            column_titles=[f"{environment_label(e)}: {Rubric(r).label}" for e, r in columns],
            values=values,
            annotations=_notes(values),
            scale=diverging_scale(self.limit, "delta"),
            column_groups=[
                ColumnGroup(environment_label(e), i * n, (i + 1) * n) for i, e in enumerate(envs)
            ],
            footnote=f"Rubric Score delta per model; grey: not scored in that IE. {ANNOTATION} {self.range}",
        )
        return self._figure(
            key,
            ref,
            f"{key}_{what.lower()}_rubric_delta",
            heatmap,
            f"Rubric Score difference per model under the {what.lower()} environments "
            "(side B minus side A).",
        )

    def sub_questions(
        self, ref: str, key: str, rubric: Rubric, env: Environment | None
    ) -> ReportFigure | None:
        pooled = env is None
        table = self._part(
            self.c.deltas.sub_questions_pooled if pooled else self.c.deltas.sub_questions
        )
        table = table[table["rubric"] == rubric.value]
        if not pooled:
            table = table[table["environment"] == env.value]
        if table.empty:
            return None
        keys = sub_question_order(table["sub_question"].unique())
        delta = Lookup(table, ["model", "sub_question"], "delta")
        values = [[delta(m, k) for k in keys] for m in self.models]
        where = "pooled over IEs" if pooled else f"under {env.label}"
        heatmap = Heatmap(
            figure_id=self._id(key),
            title=f"{rubric.label} sub-questions {where} — {self.name}",
            rows=[self.labels.display(m) for m in self.models],
            columns=[sub_question(k).code for k in keys],
            column_titles=[f"{sub_question(k).code} {sub_question(k).title}" for k in keys],
            values=values,
            annotations=_notes(values),
            bordered=self._bordered(table, self.models, keys, "model", "sub_question"),
            scale=diverging_scale(self.limit, "delta"),
            footnote=f"Pass-rate delta per model. {ANNOTATION} {self.range}"
            + (" Bordered: Holm-significant exact McNemar test." if self.c.paired else ""),
        )
        return self._figure(
            key,
            ref,
            f"{key}_{rubric.name.lower()}_{'pooled' if pooled else env.name.lower()}_delta",
            heatmap,
            f"{rubric.label} sub-question pass-rate difference per model {where} "
            "(side B minus side A).",
        )

    def parties(self) -> list[ReportFigure]:
        table = self._part(self.c.deltas.parties)
        figures = []
        for env in self.environments:
            part = table[table["environment"] == env]
            if part.empty:
                continue
            keys = sub_question_order(part["sub_question"].unique(), PARTY_FIGURE_RUBRICS)
            parties = _party_order(part)
            ids = [pid for pid, _ in parties]
            delta = Lookup(part, ["party_id", "sub_question"], "delta")
            values = [[delta(pid, k) for k in keys] for pid in ids]
            name = Environment(env).name.lower()
            heatmap = Heatmap(
                figure_id=self._id(f"party-{name}"),
                title=f"Party x sub-question delta, {environment_label(env)} — {self.name}",
                rows=[str(label) for _, label in parties],
                columns=[sub_question(k).code for k in keys],
                column_titles=[f"{sub_question(k).code} {sub_question(k).title}" for k in keys],
                values=values,
                annotations=_notes(values),
                bordered=self._bordered(part, ids, keys, "party_id", "sub_question"),
                scale=diverging_scale(self.limit, "delta"),
                column_groups=_rubric_groups(keys, PARTY_FIGURE_RUBRICS),
                footnote=f"Pass-rate delta per party, pooled over models. {ANNOTATION} {self.range}"
                + (" Bordered: Holm-significant exact McNemar test." if self.c.paired else ""),
            )
            figures.append(
                self._figure(
                    f"party-{name}",
                    "As Figs. 36-38",
                    f"party_{name}_delta",
                    heatmap,
                    f"Pass-rate difference per party and sub-question under "
                    f"{environment_label(env)}, pooled over models (side B minus side A).",
                )
            )
        return figures

    def all(self) -> list[ReportFigure]:
        found = [
            self.robustness(),
            self.by_rubric("Fig. 31", "fig31", INCONCLUSIVE, "Inconclusive"),
            self.by_rubric("Fig. 32", "fig32", INTERFERING, "Interfering"),
            self.sub_questions("Fig. 22b", "fig22b", Rubric.IMPARTIALITY, None),
            *(self.sub_questions(ref, key, r, e) for ref, key, r, e in SUB_QUESTION_FIGURES),
        ]
        return [f for f in found if f is not None] + self.parties()


def comparison_figures(
    comparison: Comparison, labels: ModelLabels | None = None, prefix: str = "cmp1"
) -> list[ReportFigure]:
    return DeltaFigures(comparison, labels or ModelLabels(), prefix).all()
