"""The dataset card: a Hugging Face YAML header that names every table's files, the license,
languages and size; the method's citation; the run's values as text."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from polistemics.export_dataset.card import (
    ARXIV_ID,
    CardFacts,
    language_codes,
    render_card,
    size_category,
)


def header(card: str) -> dict:
    opening, front, _ = card.split("---\n", 2)
    assert opening == ""
    return yaml.safe_load(front)


def facts(**changes) -> CardFacts:
    fields = dict(
        name="study",
        license="cc-by-4.0",
        rows={"items": 1200, "ground_truth": 200},
        languages=["German", "English"],
        elections=["bundestagswahl2025"],
        environments=["baseline"],
        variants=["full"],
        targets=["gpt-5.4"],
        judges=["judge-a"],
        version="0.1.0",
    )
    fields.update(changes)
    return CardFacts(**fields)


def test_the_header_names_license_languages_size_and_configs() -> None:
    meta = header(render_card(facts()))
    assert meta["license"] == "cc-by-4.0"
    assert meta["language"] == ["de", "en"]
    assert meta["size_categories"] == ["1K<n<10K"]
    configs = {c["config_name"]: c for c in meta["configs"]}
    assert list(configs) == ["items", "ground_truth"]
    assert configs["items"]["default"] is True
    assert configs["items"]["data_files"] == [{"split": "test", "path": "items/test-*.parquet"}]
    assert configs["ground_truth"]["data_files"][0]["path"] == "ground_truth/ground_truth-*.parquet"


def test_the_exported_cards_configs_name_files_that_exist(demo_dataset: Path) -> None:
    meta = header((demo_dataset / "README.md").read_text(encoding="utf-8"))
    assert meta["language"] == ["en"]  # the demo election is in English
    for config in meta["configs"]:
        (files,) = config["data_files"]
        assert len(list(demo_dataset.glob(files["path"]))) == 1, config["config_name"]


def test_the_card_cites_the_paper() -> None:
    card = render_card(facts())
    assert f"arXiv:{ARXIV_ID}" in card
    assert "@misc{peters2026polistemics" in card
    assert "Evaluating LLMs as Information Mediators in Politics" in card


def test_a_hostile_run_name_stays_text() -> None:
    name = 'x"\nlicense: mit\n---\n# <script>alert(1)</script> [link](http://evil)'
    card = render_card(facts(name=name, targets=["<img src=x onerror=alert(1)>"]))
    meta = header(card)
    assert meta["license"] == "cc-by-4.0"
    assert meta["pretty_name"] == f"Polistemics study: {name}"
    body = card.split("---\n", 2)[2]
    unescaped = re.compile(r"(?<!\\)(<script|<img|\]\(http://evil)")  # markup not preceded by "\\"
    assert unescaped.search(body) is None
    assert "\\<script\\>" in body


def test_size_categories_and_language_codes() -> None:
    assert [size_category(n) for n in (0, 999, 1000, 99_999, 5_000_000)] == [
        "n<1K",
        "n<1K",
        "1K<n<10K",
        "10K<n<100K",
        "n>1M",
    ]
    assert language_codes(["Dutch", "English", "Klingon"]) == ["en", "nl"]
