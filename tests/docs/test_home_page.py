"""The docs site's home page (docs/index.md) is a short landing page: it links to every guide
and the reference, and copies no text of the README (which stays the one place for the
install, the demo and the first steps)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / "docs" / "index.md"
MAX_LINES = 40


def sentences(markdown: str) -> set[str]:
    """The prose sentences of a Markdown text of at least six words, whitespace normalised
    (code blocks, tables and headings left out)."""
    prose = re.sub(r"```.*?```", "", markdown, flags=re.S)
    lines = [line for line in prose.splitlines() if not line.lstrip().startswith(("#", "|", "!["))]
    text = " ".join(" ".join(lines).split())
    return {s.strip() for s in re.split(r"(?<=[.!?:])\s+", text) if len(s.split()) >= 6}


def nav_section(title: str) -> list[str]:
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    (section,) = [entry[title] for entry in nav if isinstance(entry, dict) and title in entry]
    return [page for entry in section for page in entry.values()]


def test_the_home_page_copies_no_readme_sentence() -> None:
    readme = sentences((ROOT / "README.md").read_text(encoding="utf-8"))
    home = sentences(HOME.read_text(encoding="utf-8"))
    assert home, "the home page has no prose"
    assert not home & readme, home & readme


def test_the_home_page_is_short_and_links_to_every_guide_and_reference_page() -> None:
    text = HOME.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_LINES
    linked = set(re.findall(r"\]\(([^)#]+\.md)\)", text))
    missing = [p for p in [*nav_section("Guides"), *nav_section("Reference")] if p not in linked]
    assert not missing, missing
