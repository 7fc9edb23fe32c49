"""Display names (``report/labels.py``): labels given with ``--label`` win, then readable
names built from the ids; never a raw id in a figure."""

from __future__ import annotations

import pytest

from polistemics.report.labels import ModelLabels, humanised_election, humanised_model


@pytest.mark.parametrize(
    ("model", "name"),
    [
        ("gpt_5_4", "GPT-5.4"),
        ("claude_sonnet_4_6", "Claude Sonnet 4.6"),
        ("qwen3_6_flash", "Qwen3.6 Flash"),
        ("gpt-5.4", "GPT-5.4"),
        ("claude-sonnet-4.6", "Claude Sonnet 4.6"),
        ("local-judge", "Local Judge"),
        ("GPT4o", "GPT4o"),  # already capitalised: kept as written
    ],
)
def test_model_ids_become_readable_names(model: str, name: str) -> None:
    assert humanised_model(model) == name


@pytest.mark.parametrize(
    ("election", "name"),
    [("bundestagswahl2025", "Bundestagswahl 2025"), ("tk2025", "TK 2025"), ("demo", "Demo")],
)
def test_election_ids_become_readable_names(election: str, name: str) -> None:
    assert humanised_election(election) == name


def test_labels_override_and_the_page_keeps_ids() -> None:
    labels = ModelLabels({"gpt_5_4": "GPT-5.4 (low)", "tk2025": "Tweede Kamer 2025"})
    assert labels.display("gpt_5_4") == "GPT-5.4 (low)"
    assert labels("gpt_5_4") == "GPT-5.4 (low)"
    assert labels("claude_sonnet_4_6") == "claude_sonnet_4_6"  # the page's tables: the id
    assert labels.display("claude_sonnet_4_6") == "Claude Sonnet 4.6"
    assert labels.election("tk2025", "NL") == "Tweede Kamer 2025"


def test_elections_named_by_title_then_country_and_readable_id() -> None:
    labels = ModelLabels(election_titles={"btw": "Bundestagswahl  2025"})
    assert labels.election("btw", "DE") == "Bundestagswahl 2025"
    assert labels.election("bundestagswahl2025", "DE") == "DE: Bundestagswahl 2025"
    assert labels.election("demo", "XX") == "Demo"  # a user-assigned code names no country
    assert labels.election("nl_tk2025", "NL") == "NL TK 2025"  # the country not said twice
