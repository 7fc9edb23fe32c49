"""The dataset card: ``README.md`` with the Hugging Face Hub's YAML header.

The header names the license, the languages (ISO 639-1), the size category, and one config per
table with its Parquet files, so ``datasets.load_dataset(DIR, "items")`` (or the Hub, once the
folder is uploaded) finds each table. The body says what the tables hold, how to load them and
run the inspect_ai task, and how to cite the method. Values that come from the run (names, ids)
are written as JSON strings in the header and as escaped text in the body.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from polistemics.export_dataset.tables import DESCRIPTIONS, ITEMS, SPLIT
from polistemics.records import LANGUAGE_NAMES

PAPER_TITLE = "Polistemics: Evaluating LLMs as Information Mediators in Politics & Elections"
PAPER_AUTHORS = "Baran Peters"
ARXIV_ID = "2607.25953"
_BIBTEX_TITLE = PAPER_TITLE.replace("&", r"\&")
CITATION = f"""@misc{{peters2026polistemics,
  title         = {{{_BIBTEX_TITLE}}},
  author        = {{Peters, Baran}},
  year          = {{2026}},
  eprint        = {{{ARXIV_ID}}},
  archivePrefix = {{arXiv}},
  url           = {{https://arxiv.org/abs/{ARXIV_ID}}}
}}"""
_CODES = {name: code for code, name in LANGUAGE_NAMES.items()}
# The Hub's size categories, by number of rows (https://huggingface.co/docs/hub/datasets-cards).
_SIZES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"))


@dataclass(frozen=True)
class CardFacts:
    """What the card says about the study."""

    name: str
    license: str
    rows: Mapping[str, int]  # config -> rows, in the order the configs are listed
    languages: Sequence[str]  # language names of the items ("German", "English")
    elections: Sequence[str]
    environments: Sequence[str]
    variants: Sequence[str]
    targets: Sequence[str]
    judges: Sequence[str]
    version: str


def language_codes(names: Sequence[str]) -> list[str]:
    """ISO 639-1 codes of the language names the tool knows, sorted; others are left out."""
    return sorted({_CODES[name] for name in names if name in _CODES})


def size_category(rows: int) -> str:
    return next((label for limit, label in _SIZES if rows < limit), "n>1M")


def data_files(config: str) -> str:
    """The files of a table. Only the items' file names hold the split's name: so
    ``load_dataset("parquet", data_dir=DIR)``, which finds splits by such names (and can read
    only one schema), loads the items; the card's configs name every table's files."""
    return f"{config}/{SPLIT if config == ITEMS else config}-*.parquet"


def render_card(facts: CardFacts) -> str:
    return _header(facts) + _body(facts)


def _header(facts: CardFacts) -> str:
    lines = ["---", f"license: {_yaml(facts.license)}"]
    codes = language_codes(facts.languages)
    if codes:
        lines += ["language:", *(f"- {code}" for code in codes)]
    lines += [
        f"pretty_name: {_yaml('Polistemics study: ' + facts.name)}",
        "size_categories:",
        f"- {size_category(facts.rows.get(ITEMS, 0))}",
        "task_categories:",
        "- question-answering",
        "- text-generation",
        "tags:",
        "- politics",
        "- elections",
        "- llm-evaluation",
        "- polistemics",
        "configs:",
    ]
    for config in facts.rows:
        lines += [f"- config_name: {config}"]
        if config == ITEMS:
            lines += ["  default: true"]
        lines += ["  data_files:", f"  - split: {SPLIT}", f"    path: {_yaml(data_files(config))}"]
    return "\n".join(lines) + "\n---\n\n"


def _body(facts: CardFacts) -> str:
    tables = "\n".join(
        f"| `{config}` | {rows:,} | {DESCRIPTIONS[config]} |" for config, rows in facts.rows.items()
    )
    listed = {
        "Elections": facts.elections,
        "Information environments": facts.environments,
        "Variants": facts.variants,
        "Target models (answers)": facts.targets,
        "Judge panel": facts.judges,
    }
    facts_list = "\n".join(
        f"- {what}: {', '.join(_text(value) for value in values) or 'none'}"
        for what, values in listed.items()
    )
    return f"""# Polistemics study: {_text(facts.name)}

The environment items of a [Polistemics](https://arxiv.org/abs/{ARXIV_ID}) study: party-position
questions ("What is party P's position on statement S?") asked with a context of evidence in
controlled information environments, with the ground truth they were built from. Written by
`polistemics export dataset` (polistemics {_text(facts.version)}).

{facts_list}

## Tables

Each table is a config with one split, `{SPLIT}`.

| Config | Rows | What a row is |
|---|---:|---|
{tables}

## Loading

```python
from datasets import load_dataset

items = load_dataset("parquet", data_dir="path/to/this/folder", split="{SPLIT}")
ground_truth = load_dataset("path/to/this/folder", "ground_truth", split="{SPLIT}")
```

## Running the task with inspect_ai

`polistemics.inspect` holds an inspect_ai task that asks any model the items' questions and
scores the answers with the Polistemics judge panel (three judges, strict majority vote):

```python
# pip install 'polistemics[inspect]'
from inspect_ai import eval
from polistemics.inspect.task import party_positions

eval(party_positions(dataset="path/to/this/folder"), model="openai/gpt-4o-mini")
```

## Source data and license

The statements, party stances and rationales come from voting-advice applications (for example
Wahl-O-Mat or StemWijzer); their publishers' terms apply to that text. The license above is the
one the exporter gave (`--license`); `unknown` means none was given.

## Citation

Please cite the method when you use this dataset:

> {PAPER_AUTHORS}. *{PAPER_TITLE}.* arXiv:{ARXIV_ID}, 2026.

```bibtex
{CITATION}
```
"""


def _yaml(value: str) -> str:
    """A YAML scalar holding ``value`` as text (a JSON string is a double-quoted YAML one)."""
    return json.dumps(value, ensure_ascii=False)


_MARKDOWN = re.compile(r"([\\`*_\[\]<>#|~&])")


def _text(value: object) -> str:
    """A run's value as literal Markdown text: one line, every markup character escaped."""
    line = " ".join(str(value).split())
    return _MARKDOWN.sub(r"\\\1", line)
