"""The rhetorical fidelity check of App. D.4: does standardisation strip or add rhetoric?

Tokeniser: the text is Unicode-normalised (NFC), lower-cased and split into runs of word
characters (``\\w+``: letters of any script, digits, underscore). Hyphens, apostrophes and
periods separate tokens ("Klimaschutz-Gesetz" is 2 tokens, "z.B." is 2, "3.5" is 2) and the
``[PARTY]`` placeholder is the one token "party". An intensifier is a token equal to a word of
the language's list (``intensifiers/<code>.txt``; German and Dutch from Table 6, English ours).

Density is intensifier matches per 100 tokens. ``mean`` figures average the per-text densities
(each rationale weighs the same); ``pooled`` figures divide all matches by all tokens.

Expansion (D.4) is measured in characters, not tokens: an item's standardised text, with the
party shown as the ``[PARTY]`` placeholder (7 characters, as the standardiser wrote it), over
its raw rationale, both as stored (``len`` of the Unicode string). This is the definition that
gives the paper's figures: Spearman rho with the I4 pass rate 0.00 (DE) and 0.11 (NL), median
expansion 1.59x and 2.23x. Measured in tokens, the same items give rho -0.02 and 0.08.
"""

from __future__ import annotations

import math
import re
import statistics
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from polistemics.evidence.correlation import RankCorrelation, spearman
from polistemics.evidence.languages import language_code
from polistemics.records import Evidence, Position

_TOKEN = re.compile(r"\w+")


class InvalidScore(ValueError):
    """An I4 pass rate is not a number in [0, 1]; the message names the observation."""


def tokenise(text: str) -> list[str]:
    return _TOKEN.findall(unicodedata.normalize("NFC", text).lower())


@cache
def intensifiers(language: str) -> frozenset[str]:
    """The intensifier list of a language (code or name)."""
    code = language_code(language)
    source = resources.files("polistemics.evidence").joinpath("intensifiers", f"{code}.txt")
    words = (line.strip() for line in source.read_text(encoding="utf-8").splitlines())
    return frozenset(
        unicodedata.normalize("NFC", w).lower() for w in words if w and not w.startswith("#")
    )


class TextCount(NamedTuple):
    tokens: int
    matches: int

    @property
    def density(self) -> float | None:
        """Intensifier matches per 100 tokens (None for a text without tokens)."""
        return 100 * self.matches / self.tokens if self.tokens else None


def count_intensifiers(text: str, language: str) -> TextCount:
    words = intensifiers(language)
    tokens = tokenise(text)
    return TextCount(tokens=len(tokens), matches=sum(1 for t in tokens if t in words))


class DensitySummary(BaseModel):
    model_config = ConfigDict(frozen=True)

    texts: int  # texts with at least one token
    tokens: int
    matches: int
    mean_density: float | None  # mean over texts of matches per 100 tokens
    pooled_density: float | None  # all matches / all tokens * 100
    median_tokens: float | None


def summarise(counts: Sequence[TextCount]) -> DensitySummary:
    counted = [c for c in counts if c.tokens]
    tokens = sum(c.tokens for c in counted)
    matches = sum(c.matches for c in counted)
    return DensitySummary(
        texts=len(counted),
        tokens=tokens,
        matches=matches,
        mean_density=statistics.fmean(c.density for c in counted) if counted else None,
        pooled_density=100 * matches / tokens if tokens else None,
        median_tokens=statistics.median(c.tokens for c in counted) if counted else None,
    )


class FidelityReport(BaseModel):
    """Intensifier density of raw rationales (the paper's 0.46 DE / 0.47 NL)."""

    rationales: int
    tokens: int
    matches: int
    intensifier_density_raw: float | None  # mean over rationales of matches per 100 tokens
    intensifier_density_raw_pooled: float | None
    median_tokens_raw: float | None
    without_rationale: int  # positions skipped because they have no rationale
    by_language: dict[str, DensitySummary]


def raw_fidelity(positions: Iterable[Position]) -> FidelityReport:
    """Density figures for the raw rationales of ``positions`` (those without one are skipped)."""
    counts: dict[str, list[TextCount]] = defaultdict(list)
    without = 0
    for position in positions:
        if not position.has_rationale:
            without += 1
            continue
        code = language_code(position.language)
        counts[code].append(count_intensifiers(position.rationale or "", code))
    overall = summarise([c for group in counts.values() for c in group])
    return FidelityReport(
        rationales=overall.texts,
        tokens=overall.tokens,
        matches=overall.matches,
        intensifier_density_raw=overall.mean_density,
        intensifier_density_raw_pooled=overall.pooled_density,
        median_tokens_raw=overall.median_tokens,
        without_rationale=without,
        by_language={code: summarise(group) for code, group in sorted(counts.items())},
    )


class FidelityComparison(BaseModel):
    """Raw versus standardised text for one language (Table 6's caption, D.4's growth)."""

    items: int
    raw: DensitySummary
    standardised: DensitySummary
    median_expansion: float | None  # median over items of ``expansion`` (characters, D.4)
    median_length_ratio: float | None  # median standardised tokens / median raw tokens


def compare_fidelity(evidence: Iterable[Evidence]) -> dict[str, FidelityComparison]:
    """Per language code: densities before and after standardisation, and length growth."""
    pairs: dict[str, list[tuple[TextCount, TextCount]]] = defaultdict(list)
    expansions: dict[str, list[float]] = defaultdict(list)
    for passage in evidence:
        code = language_code(passage.position.language)
        raw = count_intensifiers(passage.position.rationale or "", code)
        standardised = count_intensifiers(passage.text, code)
        grown = expansion(passage)
        if raw.tokens and standardised.tokens and grown is not None:
            pairs[code].append((raw, standardised))
            expansions[code].append(grown)
    comparisons: dict[str, FidelityComparison] = {}
    for code, group in sorted(pairs.items()):
        raw_summary = summarise([r for r, _ in group])
        std_summary = summarise([s for _, s in group])
        ratio = (
            std_summary.median_tokens / raw_summary.median_tokens
            if raw_summary.median_tokens and std_summary.median_tokens
            else None
        )
        comparisons[code] = FidelityComparison(
            items=len(group),
            raw=raw_summary,
            standardised=std_summary,
            median_expansion=statistics.median(expansions[code]),
            median_length_ratio=ratio,
        )
    return comparisons


def expansion(passage: Evidence) -> float | None:
    """App. D.4's expansion: characters of the standardised text (``[PARTY]`` as written) over
    characters of the raw rationale; None if the rationale is empty."""
    raw = passage.position.rationale or ""
    return len(passage.text) / len(raw) if raw else None


class TercileRow(BaseModel):
    tercile: int  # 1 = least expanded
    items: int
    expansion_min: float
    expansion_max: float
    i4_pass_rate: float  # mean over the tercile's items
    by_party: dict[str, float]  # party id -> mean I4 pass rate within the tercile


class ExpansionSanitisationReport(BaseModel):
    """Does expansion during standardisation go with I4 (sanitisation) passes? (App. D.4)."""

    items: int
    without_score: int  # evidence items with no entry in the pass-rate mapping
    correlation: RankCorrelation
    median_expansion: float | None  # over the correlated items (the paper's 1.6x DE, 2.2x NL)
    terciles: list[TercileRow]


def expansion_vs_sanitisation(
    evidence: Iterable[Evidence], i4_pass_rate: Mapping[str, float]
) -> ExpansionSanitisationReport:
    """Item-level Spearman correlation of expansion with I4 pass rate, and a tercile breakdown.

    ``i4_pass_rate`` maps observation id -> share of passing I4 judgements for that item. The
    paper reports one figure per country, so pass one language's evidence at a time. Tercile
    cut points are the 1/3 and 2/3 quantiles of expansion (inclusive method); items equal to a
    cut point fall in the lower tercile, so ties are never split across terciles.
    """
    rows: list[tuple[float, float, str]] = []
    without_score = 0
    for passage in evidence:
        oid = passage.observation_id
        if oid not in i4_pass_rate:
            without_score += 1
            continue
        rate = i4_pass_rate[oid]
        if not isinstance(rate, int | float) or math.isnan(rate) or not 0 <= rate <= 1:
            raise InvalidScore(f"observation {oid}: I4 pass rate {rate!r} is not in [0, 1]")
        grown = expansion(passage)
        if grown is not None:
            rows.append((grown, float(rate), passage.position.party.id))
    correlation = spearman([r[0] for r in rows], [r[1] for r in rows])
    return ExpansionSanitisationReport(
        items=len(rows),
        without_score=without_score,
        correlation=correlation,
        median_expansion=statistics.median(r[0] for r in rows) if rows else None,
        terciles=_terciles(rows),
    )


def _terciles(rows: list[tuple[float, float, str]]) -> list[TercileRow]:
    if len(rows) < 3:
        return []
    low, high = statistics.quantiles([r[0] for r in rows], n=3, method="inclusive")
    groups: list[list[tuple[float, float, str]]] = [[], [], []]
    for row in rows:
        groups[0 if row[0] <= low else 1 if row[0] <= high else 2].append(row)
    result: list[TercileRow] = []
    for number, group in enumerate(groups, start=1):
        if not group:
            continue
        by_party: dict[str, list[float]] = defaultdict(list)
        for _, rate, party in group:
            by_party[party].append(rate)
        result.append(
            TercileRow(
                tercile=number,
                items=len(group),
                expansion_min=min(r[0] for r in group),
                expansion_max=max(r[0] for r in group),
                i4_pass_rate=statistics.fmean(r[1] for r in group),
                by_party={p: statistics.fmean(v) for p, v in sorted(by_party.items())},
            )
        )
    return result
