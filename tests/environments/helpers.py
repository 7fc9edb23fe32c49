"""Small evidence builders, the mini election fixture and script helpers."""

from __future__ import annotations

import json
from pathlib import Path

from fakes import Call
from polistemics.llm.registry import ModelEndpoint
from polistemics.records import Evidence, Party, Position, Stance, Statement, observation_id

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "environments"
ELECTION = "t2025"


def party(pid: str) -> Party:
    """Party ``x`` is ``de_x``, named ``X-Partei``, labelled ``Party X``."""
    return Party(
        id=f"de_{pid}", name=f"{pid.upper()}-Partei", anonymized_label=f"Party {pid.upper()}"
    )


def position(pid: str, number: int, stance: str, *, language: str = "German") -> Position:
    return Position(
        election_id=ELECTION,
        country="de",
        language=language,
        party=party(pid),
        statement=Statement(
            id=f"{ELECTION}__s{number:03d}", number=number, text=f"Statement {number}."
        ),
        stance=Stance(stance),
        rationale=f"Rationale of {pid} on {number}.",
    )


def evidence(pid: str, number: int, stance: str, text: str | None = None) -> Evidence:
    text = text or f"[PARTY] says {stance} on statement {number}. [PARTY] has reasons ({pid})."
    return Evidence(position=position(pid, number, stance), text=text)


def obs(pid: str, number: int) -> str:
    return observation_id(ELECTION, f"de_{pid}", number)


def table(stances: dict[str, str]) -> list[Evidence]:
    """Evidence from {'a': 'ADN', ...}: party a says Agree on 1, Disagree on 2, Neutral on 3."""
    letters = {"A": "Agree", "D": "Disagree", "N": "Neutral"}
    return [
        evidence(pid, n, letters[s])
        for pid, row in stances.items()
        for n, s in enumerate(row, start=1)
        if s != "-"
    ]


def mini_election() -> list[Evidence]:
    data = json.loads((FIXTURES / "mini_election.json").read_text(encoding="utf-8"))
    info = data["election"]
    parties = {p["id"]: Party(**p) for p in data["parties"]}
    statements = {
        s["number"]: Statement(
            id=f"{info['id']}__s{s['number']:03d}", number=s["number"], text=s["text"]
        )
        for s in data["statements"]
    }
    return [
        Evidence(
            position=Position(
                election_id=info["id"],
                country=info["country"],
                language=info["language"],
                party=parties[row["party"]],
                statement=statements[row["statement"]],
                stance=Stance(row["stance"]),
                rationale=row["rationale"],
            ),
            text=row["text"],
        )
        for row in data["evidence"]
    ]


ENDPOINT = ModelEndpoint(name="gen", model="fake/gen", temperature=0.3)
AUDITOR = ModelEndpoint(name="audit", model="fake/audit", temperature=0.7)


def vague_json(text: str, modes: object = ("Strategic Prioritization",)) -> str:
    return json.dumps({"vague_rationale": text, "vagueness_modes_used": list(modes)})


def audit_json(determinable: bool) -> str:
    return json.dumps({"determinable": determinable})


def always_vague(call: Call) -> str:
    """A well-behaved generator and an auditor that accepts everything."""
    if call.stage == "vague_audit":
        return audit_json(False)
    baseline = call.messages[1]["content"]
    return vague_json(
        f"[PARTY] weighs it carefully ({len(baseline)} chars, try {call.sample_index})."
    )
