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


def test_display_names_come_between_labels_and_readable_ids() -> None:
    labels = ModelLabels(
        {"gpt_5_4": "GPT-5.4 (low)"},
        display_names={"gpt_5_4": "GPT 5.4", "qwen3_6_flash": " Qwen  3.6 Flash ", "x": "  "},
    )
    assert labels.display("gpt_5_4") == "GPT-5.4 (low)"  # --label wins
    assert labels.display("qwen3_6_flash") == "Qwen 3.6 Flash"  # the registry's, on one line
    assert labels.display("x") == "X"  # a blank display name is none
    assert labels("qwen3_6_flash") == "qwen3_6_flash"  # the page's tables keep the id


def test_an_election_is_named_only_by_a_label_or_title() -> None:
    labels = ModelLabels({"tk2025": "TK 25"}, election_titles={"btw": "Bundestagswahl 2025"})
    assert labels.named_election("tk2025") == "TK 25"
    assert labels.named_election("btw") == "Bundestagswahl 2025"
    assert labels.named_election("bundestagswahl2025") is None  # the page keeps "DE (id)"
