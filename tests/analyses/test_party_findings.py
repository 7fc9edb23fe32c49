"""The party and pooled analysis tables (party Adherence Index with bootstrap CIs, party pass
rates with Wilson CIs, party spread, party vs rest, I4 by variant, pooled Impartiality):
written to tables/ and read back as computed, and the report's findings of one election equal
to the tables computed on the spot."""

from __future__ import annotations

import pandas as pd

from polistemics.analyses.party_findings import PARTY_SCHEMAS
from polistemics.analyses.tables import (
    analysis_tables,
    read_analysis_tables,
    write_analysis_tables,
)
from polistemics.conditions import Variant
from polistemics.report.findings import finding_tables, finding_tables_of
from report.conftest import cells_frame  # tests/ is on sys.path
from report.test_tables import study_rows

SHOWN = {
    "party_adherence": "party_adherence",
    "party_pass_rates": "party_pass_rates",
    "mean_party_spread": "mean_party_spread",
    "party_vs_rest": "party_vs_rest",
    "i4_by_variant": "sanitisation",
    "impartiality_pooled": "impartiality",
}


def _cells() -> pd.DataFrame:
    anon = [dict(row, variant=Variant.ANONYMIZED.value) for row in study_rows()]
    return pd.concat(
        [cells_frame(study_rows() + anon), cells_frame(study_rows("NA"))], ignore_index=True
    )


def test_party_tables_read_back_as_computed(tmp_path) -> None:
    tables = analysis_tables(_cells(), resamples=30)
    write_analysis_tables(tables, tmp_path)
    again = read_analysis_tables(tmp_path)
    assert set(SHOWN) == set(PARTY_SCHEMAS)
    for name in PARTY_SCHEMAS:
        pd.testing.assert_frame_equal(getattr(again, name), getattr(tables, name), obj=name)
        if name != "i4_by_variant":  # the study has no I4 Sanitization cells
            assert not getattr(tables, name).empty, name


def test_one_elections_findings_as_read_back_equal_them_computed(tmp_path) -> None:
    cells = _cells()
    write_analysis_tables(analysis_tables(cells, resamples=30), tmp_path)
    again = read_analysis_tables(tmp_path)
    for election in ("e", "NA"):
        shown = finding_tables_of(again, election, loo_min_items=5)
        direct = finding_tables(cells, election, resamples=30, loo_min_items=5)
        assert shown.loo_min_items == direct.loo_min_items == 5
        assert shown.expansion_reason == direct.expansion_reason
        for attribute in SHOWN.values():
            pd.testing.assert_frame_equal(
                getattr(shown, attribute),
                getattr(direct, attribute).reset_index(drop=True),
                check_dtype=False,
                obj=attribute,
            )
