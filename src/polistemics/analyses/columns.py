"""The columns many analysis tables share: the keys a row is grouped by and the two bounds of
its interval. One definition each, so a key means the same in every table."""

from __future__ import annotations

from polistemics.analyses.schema import TableColumn

ELECTION = TableColumn("election_id", "text", "the election")
MODEL = TableColumn("model", "text", "the answering model")
ENVIRONMENT = TableColumn("environment", "text", "the information environment (Environment value)")
VARIANT = TableColumn("variant", "text", "the variant (Variant value)")
RUBRIC = TableColumn("rubric", "text", "the rubric (Rubric value)")
SUB_QUESTION = TableColumn("sub_question", "text", "the sub-question key")
PARTY = TableColumn("party_id", "text", "the party")
PARTY_NAME = TableColumn("party_name", "text", "the party's name; empty: none", True)
# percentile bootstrap over observations (``stats.bootstrap``)
BOOTSTRAP_CI = (
    TableColumn("ci_low", "float", "bootstrap 95% CI, lower bound"),
    TableColumn("ci_high", "float", "bootstrap 95% CI, upper bound"),
)
# Wilson score interval of a proportion (``stats.wilson_interval``)
WILSON_CI = (
    TableColumn("ci_low", "float", "Wilson 95% CI, lower bound"),
    TableColumn("ci_high", "float", "Wilson 95% CI, upper bound"),
)
