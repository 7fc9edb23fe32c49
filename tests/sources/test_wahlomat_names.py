"""qual-o-mat-data's <year>/<region> and the slug a fetched election is saved under."""

from __future__ import annotations

import pytest

from polistemics.sources.wahlomat_names import fetch_argument, slug_candidates, year_region

# <year>/<region> -> the overview slug, as in qual-o-mat-data (a sample covering every prefix)
KNOWN = {
    "2025/deutschland": "bundestagswahl2025",
    "2004/europa": "europa2004",
    "2024/europa": "europawahl2024",
    "2021/badenwuerttemberg": "bw2021",
    "2017/nordrheinwestfalen": "nrw2017",
    "2022/nordrheinwestfalen": "nordrheinwestfalen2022",
    "2021/rheinlandpfalz": "rlp2021",
    "2024/sachsen": "sachsen2024",
}


@pytest.mark.parametrize(("election", "slug"), sorted(KNOWN.items()))
def test_the_slug_is_among_the_candidates_and_leads_back(election: str, slug: str) -> None:
    assert slug in slug_candidates(*year_region(election))
    assert fetch_argument(slug) == election
    assert fetch_argument(election) == election


def test_what_is_not_an_election_name() -> None:
    assert year_region("2024/europa/extra") is None
    assert year_region("../2024") is None
    assert fetch_argument("no-year-here") is None
    assert fetch_argument("/some/path/x") is None
