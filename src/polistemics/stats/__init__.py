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

from typing import TYPE_CHECKING

from polistemics.lazy_exports import exported_on_first_use, keep_functions_named_like_modules

if TYPE_CHECKING:
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
        check_bootstrap_settings,
        observation_matrix,
        percentile_ci,
        resample_weights,
        sorted_codes,
        stratum_rng,
    )
    from polistemics.stats.defaults import DEFAULT_ALPHA, DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES
    from polistemics.stats.errors import StatisticsError
    from polistemics.stats.intervals import (
        correlation_interval,
        product_interval,
        spearman_interval,
        wilson_interval,
        wilson_intervals,
    )
    from polistemics.stats.significance import holm, mcnemar_exact, mcnemar_many

# Public name -> its module, imported on first use: a command that needs one of them does
# not load every module of the package (and their libraries) with it.
_EXPORTS = {
    "agreement_intervals": "polistemics.stats.agreement_intervals",
    "agreement_stats": "polistemics.stats.agreement",
    "AgreementIntervals": "polistemics.stats.agreement_intervals",
    "AgreementStats": "polistemics.stats.agreement",
    "binary_counts": "polistemics.stats.agreement",
    "chance_corrected": "polistemics.stats.agreement",
    "check_bootstrap_settings": "polistemics.stats.bootstrap",
    "correlation_interval": "polistemics.stats.intervals",
    "DEFAULT_ALPHA": "polistemics.stats.defaults",
    "DEFAULT_CONFIDENCE": "polistemics.stats.defaults",
    "DEFAULT_RESAMPLES": "polistemics.stats.defaults",
    "fleiss_kappa": "polistemics.stats.agreement",
    "gwet_ac1": "polistemics.stats.agreement",
    "holm": "polistemics.stats.significance",
    "mcnemar_exact": "polistemics.stats.significance",
    "mcnemar_many": "polistemics.stats.significance",
    "observation_matrix": "polistemics.stats.bootstrap",
    "observed_agreement": "polistemics.stats.agreement",
    "panel_table": "polistemics.stats.agreement",
    "percentile_ci": "polistemics.stats.bootstrap",
    "product_interval": "polistemics.stats.intervals",
    "resample_weights": "polistemics.stats.bootstrap",
    "sorted_codes": "polistemics.stats.bootstrap",
    "spearman_interval": "polistemics.stats.intervals",
    "StatisticsError": "polistemics.stats.errors",
    "stratum_rng": "polistemics.stats.bootstrap",
    "uneven_agreement": "polistemics.stats.agreement",
    "UnevenAgreement": "polistemics.stats.agreement",
    "wilson_interval": "polistemics.stats.intervals",
    "wilson_intervals": "polistemics.stats.intervals",
}

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


__getattr__ = exported_on_first_use(__name__, _EXPORTS)
keep_functions_named_like_modules(__name__, _EXPORTS)
