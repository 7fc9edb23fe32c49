"""The report's "Mechanisms" section (issue 16): the mechanism tables of ``analyses.mechanisms``
as read back from ``tables/``, shown with n and 95% intervals and three figures. Markup:
``templates/sections/mechanisms.html``.

Without stance codes the section says so and how to turn them on; without a probe it says which
parts need one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from polistemics.analyses.tables import AnalysisTables
from polistemics.coding.records import majority_codes
from polistemics.report.figures.findings import PlotFigure
from polistemics.report.figures.mechanisms import mechanism_figures
from polistemics.report.formatting import (
    MISSING,
    interval,
    number,
    percent,
    row_interval,
    signed_points,
)
from polistemics.report.inputs import ReportInputs
from polistemics.report.labels import VARIANT_COLUMN, ModelLabels, environment_label
from polistemics.report.view import Column, TableView, figure_view, table_view
from polistemics.scoring.mechanisms import (
    FallbackAccuracy,
    FirstChunkPreference,
    FollowsEvidence,
    MechanismTables,
    PriorAccuracy,
    coded_answers,
    coded_probes,
    prior_stances,
)
from polistemics.scoring.mechanisms.coded import OK

MECHANISMS_SECTION = ("mechanisms", "Mechanisms")
NOT_CODED = (
    "this run did not code stances: set `stance_coder` (one coder, or a list for a majority "
    "panel) in the run config, and `prior_probe = true` for the prior analyses"
)
NOT_IN_RELEASE = "an authors' release has no stance codes (run the study with a `stance_coder`)"
NOT_PROBED = "this run did not probe priors: set `prior_probe = true` in the run config"
_RULES = {"union": "EC4 fails or coder says so", "ec4": "EC4 fails", "coder": "coder says so"}


@dataclass(frozen=True)
class MechanismCodes:
    """The run's per-answer stance codes and the model's prior per party x statement: data the
    item browser shows beside each answer (not analyses: they are not in ``tables/``)."""

    answers: pd.DataFrame  # scoring.mechanisms.coded_answers
    probes: pd.DataFrame  # scoring.mechanisms.coded_probes
    priors: pd.DataFrame  # scoring.mechanisms.prior_stances
    unknown_items: int  # answer codes naming no item of the run


def mechanism_codes(inputs: ReportInputs) -> MechanismCodes | None:
    """None when the run did not code stances."""
    if inputs.stance_codes is None:
        return None
    codes = majority_codes(inputs.stance_codes)
    coded = coded_answers(inputs.items, codes)
    probes = coded_probes(inputs.items, codes, inputs.probes or [])
    return MechanismCodes(coded.frame, probes, prior_stances(probes), coded.unknown_items)


def answer_stances(
    codes: MechanismCodes | None,
) -> dict[tuple[str, str, int], tuple[str | None, str | None]] | None:
    """Per answer (item key, model, sample): its coded stance (or code status) and the model's
    prior on the party x statement, for the item browser; None: no stance codes."""
    if codes is None:
        return None
    priors = {
        (r.model, r.election_id, r.party_id, r.statement_id): r.prior
        for r in codes.priors.itertuples()
    }
    found = {}
    for row in codes.answers.itertuples():
        coded = row.code if row.status == OK else row.status
        prior = priors.get((row.model, row.election_id, row.party_id, row.statement_id))
        found[(row.item_key, row.model, int(row.sample_index))] = (coded, prior)
    return found


@dataclass
class MechanismContent:
    tables: MechanismTables | None  # None: the run did not code stances
    figures: list[PlotFigure] = field(default_factory=list)


def _read_back(analyses: AnalysisTables, codes: MechanismCodes) -> MechanismTables:
    """The mechanism tables as ``tables/`` holds them, with the run's codes. The analyses'
    per-answer working frames are not tables; the section draws none of them (empty here)."""

    def table(name: str) -> pd.DataFrame:
        return getattr(analyses, f"mechanisms_{name}")

    working = pd.DataFrame()
    return MechanismTables(
        answers=codes.answers,
        probes=codes.probes,
        unknown_items=codes.unknown_items,
        fallback=FallbackAccuracy(
            working,
            table("fallback_by_party"),
            table("fallback_by_model"),
            table("fallback_excluded"),
        ),
        first_chunk=FirstChunkPreference(
            working,
            table("first_chunk_by_party"),
            table("first_chunk_by_model"),
            table("first_chunk_pooled"),
            table("first_chunk_paired"),
            table("first_chunk_excluded"),
        ),
        prior=PriorAccuracy(
            working, table("prior_by_party"), table("prior_by_model"), table("prior_excluded")
        ),
        priors=codes.priors,
        follows=FollowsEvidence(
            working,
            table("follows_overall"),
            table("follows_conditional"),
            table("prior_consistent"),
            table("follows_excluded"),
        ),
        party_points=table("party_points"),
        party_correlations=table("party_correlations"),
    )


def mechanism_content(
    analyses: AnalysisTables, codes: MechanismCodes | None, labels: ModelLabels
) -> MechanismContent:
    """The section's tables (read back from ``tables/``) and figures."""
    if codes is None or analyses.mechanisms_fallback_by_party is None:
        return MechanismContent(None)
    tables = _read_back(analyses, codes)
    return MechanismContent(tables, mechanism_figures(tables, labels))


def _party(row: pd.Series) -> str:
    name, pid = row.get("party_name"), row.get("party_id")
    if pid is None or pd.isna(pid):
        return "All parties"
    return str(name) if name is not None and not pd.isna(name) and str(name) else str(pid)


def _share_columns(what: str) -> list[Column]:
    return [
        Column("n", "n", numeric=True),
        Column(what, "successes", numeric=True),
        Column("Rate", "rate", percent, numeric=True),
        Column("95% CI", row_interval(), numeric=True, title="Wilson score interval"),
    ]


def _model_party(frame: pd.DataFrame, by_model: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Each model's all-parties row, then its parties."""
    pooled = by_model.assign(party_id=None, party_name=None)
    # Empty frames are left out of the concat; with no rows at all (no prior probe: no prior
    # accuracy) the party table stands for itself, empty, with its columns.
    parts = [t for t in (pooled, frame) if not t.empty] or [frame]
    joined = pd.concat(parts, ignore_index=True)
    if joined.empty:
        return joined
    order = joined.assign(_party=joined["party_id"].notna())
    return order.sort_values([*keys, "_party", "party_id"], na_position="first").drop(
        columns="_party"
    )


def _exclusions(frame: pd.DataFrame, keys: list[str], labels: ModelLabels) -> TableView | None:
    if frame.empty:
        return None
    columns = [Column("Model", lambda r: labels(r["model"]))]
    columns += [Column(k.replace("_", " ").capitalize(), k) for k in keys if k != "model"]
    columns += [Column("Reason", "reason"), Column("Left out", "count", numeric=True)]
    return table_view(frame, columns, caption="Left out and counted, never guessed")


def mechanisms_view(content) -> dict:  # content: report.content.ReportContent
    mech: MechanismContent | None = content.mechanisms
    labels = content.labels
    if mech is None or mech.tables is None:
        release = content.inputs.kind == "release"
        return {"coded": False, "reason": NOT_IN_RELEASE if release else NOT_CODED}
    t = mech.tables
    model = Column("Model", lambda r: labels(r["model"]))
    party = Column("Party", _party)
    fallback = _model_party(t.fallback.by_party, t.fallback.by_model, ["rule", "variant", "model"])
    first = _model_party(
        t.first_chunk.by_party, t.first_chunk.by_model, ["chunk_order", "variant", "model"]
    )
    prior = _model_party(t.prior.by_party, t.prior.by_model, ["model"])
    views = {
        "coded": True,
        "probed": t.probed,
        "not_probed": NOT_PROBED,
        "unknown_items": t.unknown_items,
        "figures": [figure_view(f) for f in mech.figures],
        "fallback": table_view(
            fallback,
            [
                Column("Selected by", lambda r: _RULES[r["rule"]]),
                VARIANT_COLUMN,
                model,
                party,
                *_share_columns("Match the VAA stance"),
            ],
            caption="Fallback accuracy under Absent: answers that fall back on internal knowledge",
            table_id="mechanisms-fallback",
        ),
        "fallback_excluded": _exclusions(t.fallback.excluded, ["rule", "variant", "model"], labels),
        "first_chunk": table_view(
            first,
            [
                Column("Chunk order", "chunk_order"),
                VARIANT_COLUMN,
                model,
                party,
                *_share_columns("Follow the first chunk"),
            ],
            caption="First-chunk preference under Contradictory: committed answers",
            table_id="mechanisms-first-chunk",
        ),
        "first_chunk_excluded": _exclusions(
            t.first_chunk.excluded, ["chunk_order", "variant", "model"], labels
        ),
        "pooled": None,
        "paired": None,
    }
    pooled = t.first_chunk.pooled
    if not pooled.empty:
        views["pooled"] = table_view(
            pooled.sort_values(["variant", "model", "measure"]),
            [
                Column(
                    "Measure",
                    lambda r: (
                        "follows the first chunk (position)"
                        if r["measure"] == "position"
                        else "follows the real position (prior)"
                    ),
                ),
                VARIANT_COLUMN,
                model,
                party,
                *_share_columns("Follow"),
            ],
            caption="Both orders pooled: position bias against prior preference",
            table_id="mechanisms-position-prior",
        )
        paired = t.first_chunk.paired
        views["paired"] = table_view(
            paired,
            [
                VARIANT_COLUMN,
                model,
                Column("Test", "test"),
                Column("Pairs", "pairs", numeric=True),
                Column("Discordant for", "discordant_for", numeric=True),
                Column("Discordant against", "discordant_against", numeric=True),
                Column("p (McNemar exact)", "p_value", number, numeric=True),
            ],
            caption="Paired tests over answers committed in both orders",
            table_id="mechanisms-paired",
        )
    if t.probed:
        views["prior"] = table_view(
            prior,
            [
                model,
                party,
                *_share_columns("State the VAA stance"),
                Column("Abstain", "abstention_rate", percent, numeric=True),
            ],
            caption="Closed-book prior accuracy (no_position / both: not accurate, and abstaining)",
            table_id="mechanisms-prior",
        )
        views["prior_excluded"] = _exclusions(t.prior.excluded, ["model"], labels)
        views["conditional"] = _conditional_view(t, labels)
        views["correlations"] = _correlations_view(t, labels)
    views["overall"] = table_view(
        t.follows.overall.sort_values(["environment", "variant", "model"], na_position="first"),
        [
            Column("Environment", lambda r: environment_label(r["environment"])),
            VARIANT_COLUMN,
            model,
            party,
            *_share_columns("Follow the evidence"),
        ],
        caption="Committed answers that follow the evidence (Counterfactual: the single chunk; "
        "Contradictory: the party's own chunk)",
        table_id="mechanisms-follows",
    )
    return views


def _conditional_view(t: MechanismTables, labels: ModelLabels) -> TableView | None:
    table = t.follows.conditional
    if table.empty:
        return None

    def rate(condition: str) -> Callable[[pd.Series], str]:
        def text(row: pd.Series) -> str:
            n = row[f"{condition}_n"]
            if not n:
                return f"{MISSING} (n 0)"
            ci = interval(row[f"{condition}_ci_low"], row[f"{condition}_ci_high"])
            return f"{percent(row[f'{condition}_rate'])} {ci} (n {int(n)})"

        return text

    def difference(row: pd.Series) -> str:
        if pd.isna(row["difference"]):
            return MISSING
        low, high = (
            signed_points(row[f"difference_{end}"], plain_zero=False) for end in ("low", "high")
        )
        return f"{signed_points(row['difference'], plain_zero=False)} pp [{low}, {high}]"

    return table_view(
        table,
        [
            Column("Environment", lambda r: environment_label(r["environment"])),
            VARIANT_COLUMN,
            Column("Model", lambda r: labels(r["model"])),
            Column("Party", _party),
            Column("Prior agrees with the evidence", rate("prior_agrees"), numeric=True),
            Column("Prior disagrees", rate("prior_disagrees"), numeric=True),
            Column("Difference", difference, numeric=True, title="Newcombe 95% interval"),
        ],
        caption="P(follows the evidence | the prior agrees) vs P(follows | the prior disagrees)",
        table_id="mechanisms-conditional",
    )


def _correlations_view(t: MechanismTables, labels: ModelLabels) -> TableView | None:
    table = t.party_correlations
    if table.empty:
        return None

    def value(name: str) -> Callable[[object], str]:
        return lambda v: number(v, 2 if name == "rho" else 3)

    return table_view(
        table,
        [
            VARIANT_COLUMN,
            Column("Model", lambda r: labels(r["model"])),
            Column(
                "Prior accuracy vs",
                lambda r: (
                    "fallback accuracy (Absent)"
                    if r["measure"] == "fallback_accuracy"
                    else f"{r['measure']} pass rate (Contradictory)"
                ),
            ),
            Column("Parties", "n_parties", numeric=True),
            Column("Spearman ρ", "rho", value("rho"), numeric=True),
            Column("p", "p_value", value("p"), numeric=True),
            Column(
                "95% CI",
                row_interval(),
                numeric=True,
                title="Fisher z, standard error sqrt(1.06 / (n - 3))",
            ),
        ],
        caption="Per party: prior accuracy against EC3 / F1 / F3 pass rates (Contradictory) and "
        "fallback accuracy (Absent)",
        table_id="mechanisms-correlations",
    )
