"""Statistics shared by the pipeline: the bootstrap engine, rater agreement, Wilson intervals.

A bottom-layer package: it depends on numpy, pandas, scipy and statsmodels (and the project's
base error) only, never on scoring, compare, annotate or report, which call it with their own
data (which cells are scored, how strata are grouped).

- ``bootstrap``: observation-resampling weights, per-stratum generators, percentile intervals.
- ``agreement``: percent agreement, Fleiss' kappa and Gwet's AC1 (fixed or uneven raters);
  ``agreement_intervals``: their bootstrap intervals over clusters of items.
- ``intervals``: the Wilson score interval of a proportion, the Fisher-z interval of a
  correlation (Pearson's; Spearman's with the Bonett-Wright standard error), the log-scale
  interval of a product of two proportions.
- ``significance``: the exact McNemar test and Holm's correction.
"""

from __future__ import annotations

from polistemics.stats.agreement import (
    AgreementStats,
    UnevenAgreement,
    agreement_stats,
    binary_counts,
    chance_corrected,
    fleiss_kappa,
    gwet_ac1,
    observed_agreement,
    panel_table,
    uneven_agreement,
)
from polistemics.stats.agreement_intervals import AgreementIntervals, agreement_intervals
from polistemics.stats.bootstrap import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    check_bootstrap_settings,
    observation_matrix,
    percentile_ci,
    resample_weights,
    sorted_codes,
    stratum_rng,
)
from polistemics.stats.errors import StatisticsError
from polistemics.stats.intervals import (
    correlation_interval,
    product_interval,
    spearman_interval,
    wilson_interval,
    wilson_intervals,
)
from polistemics.stats.significance import DEFAULT_ALPHA, holm, mcnemar_exact, mcnemar_many

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_CONFIDENCE",
    "DEFAULT_RESAMPLES",
    "AgreementIntervals",
    "AgreementStats",
    "StatisticsError",
    "UnevenAgreement",
    "agreement_intervals",
    "agreement_stats",
    "binary_counts",
    "chance_corrected",
    "correlation_interval",
    "check_bootstrap_settings",
    "fleiss_kappa",
    "gwet_ac1",
    "holm",
    "mcnemar_exact",
    "mcnemar_many",
    "observation_matrix",
    "observed_agreement",
    "panel_table",
    "percentile_ci",
    "product_interval",
    "resample_weights",
    "sorted_codes",
    "spearman_interval",
    "stratum_rng",
    "uneven_agreement",
    "wilson_interval",
    "wilson_intervals",
]
