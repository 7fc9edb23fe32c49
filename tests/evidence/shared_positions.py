"""A throwaway reader of the ../shared VAA files for the evidence tests only.

The package's real loader lives in ``polistemics.sources``; this stays deliberately minimal so
the fidelity figures can be checked on the real rationales without depending on it.
"""

from __future__ import annotations

import json
from pathlib import Path

from polistemics.records import Party, Position, Stance, Statement, party_id

GERMAN_PARTIES = ("CDU / CSU", "SPD", "AfD", "GRÜNE", "BSW", "FDP", "Die Linke")
DUTCH_PARTIES = ("PVV", "GroenLinks-PvdA", "VVD", "JA21", "D66", "BBB", "CDA", "SP")
_WAHLOMAT_ANSWERS = {0: Stance.AGREE, 1: Stance.DISAGREE, 2: Stance.NEUTRAL}
_STEMWIJZER_ANSWERS = {
    "Eens": Stance.AGREE,
    "Oneens": Stance.DISAGREE,
    "Geen van beide": Stance.NEUTRAL,
}


def _unquote(text: str) -> str | None:
    """Wahl-O-Mat wraps each rationale in literal double quotes; '""' means none."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1].strip()
    return text or None


def german_positions(shared: Path) -> list[Position]:
    folder = shared / "data" / "wahlomat" / "bundestagswahl2025"

    def read(name: str) -> list[dict]:
        return json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))

    parties = {p["id"]: p for p in read("party") if p["name"] in GERMAN_PARTIES}
    statements = {s["id"]: s for s in read("statement")}
    comments = {c["id"]: c["text"] for c in read("comment")}
    election = "de_btw2025"
    positions = []
    for opinion in read("opinion"):
        party = parties.get(opinion["party"])
        if party is None:
            continue
        number = opinion["statement"] + 1
        positions.append(
            Position(
                election_id=election,
                country="DE",
                language="German",
                party=Party(id=party_id("de", party["name"]), name=party["name"]),
                statement=Statement(
                    id=f"{election}__s{number:03d}",
                    number=number,
                    text=statements[opinion["statement"]]["text"],
                ),
                stance=_WAHLOMAT_ANSWERS[opinion["answer"]],
                rationale=_unquote(comments[opinion["comment"]]),
            )
        )
    return positions


def dutch_positions(shared: Path) -> list[Position]:
    path = shared / "data" / "stemwijzer" / "tweedekamer2025" / "tweedekamer2025.json"
    election = "nl_tk2025"
    positions = []
    for index, statement in enumerate(json.loads(path.read_text(encoding="utf-8")), start=1):
        for answer in statement["positions"]:
            if answer["party"] not in DUTCH_PARTIES:
                continue
            positions.append(
                Position(
                    election_id=election,
                    country="NL",
                    language="Dutch",
                    party=Party(id=party_id("nl", answer["party"]), name=answer["party"]),
                    statement=Statement(
                        id=f"{election}__s{index:03d}", number=index, text=statement["title"]
                    ),
                    stance=_STEMWIJZER_ANSWERS[answer["position"]],
                    rationale=(answer.get("explanation") or "").strip() or None,
                )
            )
    return positions
