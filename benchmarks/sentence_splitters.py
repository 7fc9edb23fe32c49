"""The project's sentence splitter against pysbd, on every raw and standardised passage at hand.

Corpora: the raw rationales of the Bundestag 2025 Wahl-O-Mat (German) and the Tweede Kamer 2025
StemWijzer (Dutch), read through the project's source readers; the standardised evidence of the
authors' Dutch release (every distinct chunk of ``ground_truth.jsonl``); the bundled demo
election (English and German). Prints, per corpus: passages, the share on which both splitters
count the same number of sentences, and examples where they disagree.

    pip install pysbd   # not a project dependency
    python benchmarks/sentence_splitters.py [--shared ../shared] [--examples 8]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import pysbd

from polistemics.evidence.sentences import split_sentences
from polistemics.sources.demo import load_demo
from polistemics.sources.stemwijzer import load_stemwijzer
from polistemics.sources.wahlomat import load_wahlomat

REPO = Path(__file__).resolve().parent.parent
RELEASE = Path("reference/polistemics-v1.0/data/experiments/nl_tk2025_full_v1/ground_truth.jsonl")


def _rationales(election) -> list[str]:
    return [p.rationale.strip() for p in election.positions if p.has_rationale]


def corpora(shared: Path) -> Iterator[tuple[str, str, list[str]]]:
    """(name, language code, passages) for every corpus that is present."""
    wahlomat = shared / "data/wahlomat/bundestagswahl2025"
    if wahlomat.is_dir():
        yield "wahlomat btw2025 raw", "de", _rationales(load_wahlomat(wahlomat))
    stemwijzer = shared / "data/stemwijzer/tweedekamer2025/tweedekamer2025.json"
    if stemwijzer.is_file():
        yield "stemwijzer tk2025 raw", "nl", _rationales(load_stemwijzer(stemwijzer))
    release = shared / RELEASE
    if release.is_file():
        chunks: dict[str, None] = {}
        with release.open(encoding="utf-8") as rows:
            for line in rows:
                for chunk in json.loads(line).get("ie_chunks") or []:
                    chunks.setdefault(chunk.strip())
        yield "release nl_tk2025 standardised", "nl", list(chunks)
    for code in ("en", "de"):
        yield f"demo-{code} raw", code, _rationales(load_demo(code))


def pysbd_sentences(segmenter: pysbd.Segmenter, text: str) -> list[str]:
    return [s.strip() for s in segmenter.segment(text) if s.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--examples", type=int, default=8, help="disagreements shown per corpus")
    args = parser.parse_args()

    total = agree_total = 0
    for name, code, passages in corpora(args.shared):
        segmenter = pysbd.Segmenter(language=code, clean=False)
        disagreements = []
        for text in passages:
            ours, theirs = split_sentences(text, code), pysbd_sentences(segmenter, text)
            if len(ours) != len(theirs):
                disagreements.append((text, ours, theirs))
        agree = len(passages) - len(disagreements)
        total, agree_total = total + len(passages), agree_total + agree
        share = agree / len(passages) if passages else float("nan")
        print(f"\n== {name} ({code}): {len(passages)} passages, equal counts {share:.2%}")
        for text, ours, theirs in disagreements[: args.examples]:
            print(f"-- ours {len(ours)}, pysbd {len(theirs)}: {text[:300]!r}")
            only_theirs = [s for s in theirs if s not in ours]
            print(f"   pysbd pieces not in ours: {[s[:90] for s in only_theirs][:4]}")
    print(f"\nall corpora: {total} passages, equal counts {agree_total / total:.2%}")


if __name__ == "__main__":
    main()
