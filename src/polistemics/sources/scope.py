"""Which parties of an election the benchmark asks about, and the observations that yields.

A scope is data: a TOML file listing parties, each with a display ``name`` and ``aliases`` for
the spellings different sources use (Wahl-O-Mat writes "CDU / CSU" and "GRÜNE")::

    name = "de-btw2025"
    description = "..."

    [[parties]]
    name = "CDU/CSU"
    aliases = ["CDU / CSU"]

Presets ship in ``polistemics/sources/scopes/``. A scope party matches a source party when its
name or an alias equals the party's name, long name or id, ignoring case, spacing and umlaut
spelling ("GRUENE" = "GRÜNE"). Observations are in-scope positions with a rationale.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from polistemics.records import Election, Party, Position
from polistemics.sources.errors import SourceError

_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})


class ScopeParty(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    aliases: tuple[str, ...] = ()

    @property
    def spellings(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


class Scope(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    description: str = ""
    parties: tuple[ScopeParty, ...] = Field(min_length=1)


class ScopedElection(BaseModel):
    """An election cut to a scope. In-scope parties carry their anonymised label everywhere."""

    election: Election
    scope_name: str | None
    parties: list[Party] = Field(description="In-scope parties, sorted by display name.")
    in_scope_positions: list[Position]
    observations: list[Position] = Field(description="In-scope positions with a rationale.")
    excluded_missing_rationale: list[Position]

    @property
    def positions_total(self) -> int:
        return len(self.election.positions)

    @property
    def counts(self) -> dict[str, int]:
        return {
            "positions": self.positions_total,
            "in_scope_positions": len(self.in_scope_positions),
            "excluded_missing_rationale": len(self.excluded_missing_rationale),
            "observations": len(self.observations),
        }

    def observations_per_party(self) -> dict[str, int]:
        """Display name -> observation count, for every in-scope party (zeros included)."""
        counts = {party.name: 0 for party in self.parties}
        for position in self.observations:
            counts[position.party.name] += 1
        return counts


def preset_names() -> list[str]:
    folder = resources.files("polistemics.sources") / "scopes"
    return sorted(
        entry.name[: -len(".toml")] for entry in folder.iterdir() if entry.name.endswith(".toml")
    )


def load_scope(ref: str) -> Scope:
    """A preset name (``de-btw2025``) or the path of a scope TOML file."""
    path = Path(ref).expanduser()
    if path.suffix.lower() == ".toml" or path.exists():
        return _scope_from_text(_read_scope_file(path), path)
    if ref not in preset_names():
        raise SourceError(
            f"unknown scope {ref!r}: not a file, and no preset of that name "
            f"(presets: {', '.join(preset_names())})",
            path=ref,
        )
    resource = resources.files("polistemics.sources") / "scopes" / f"{ref}.toml"
    return _scope_from_text(resource.read_text(encoding="utf-8"), Path(f"<preset {ref}>"))


def apply_scope(election: Election, scope: Scope | None) -> ScopedElection:
    """Cut ``election`` to ``scope`` (None: every party), label parties, split off missing rationales."""
    parties = election.parties()
    in_scope_ids = (
        {party.id for party in parties}
        if scope is None
        else set(match_parties(scope, parties, election.id).values())
    )
    in_scope = sorted(
        (party for party in parties if party.id in in_scope_ids),
        key=lambda party: (party.name.casefold(), party.name),
    )
    labelled = {
        party.id: party.model_copy(update={"anonymized_label": f"Party {letters(index)}"})
        for index, party in enumerate(in_scope)
    }

    positions = [
        p.model_copy(update={"party": labelled[p.party.id]}) if p.party.id in labelled else p
        for p in election.positions
    ]
    in_scope_positions = [p for p in positions if p.party.id in labelled]
    return ScopedElection(
        election=election.model_copy(update={"positions": positions}),
        scope_name=scope.name if scope else None,
        parties=list(labelled.values()),
        in_scope_positions=in_scope_positions,
        observations=[p for p in in_scope_positions if p.has_rationale],
        excluded_missing_rationale=[p for p in in_scope_positions if not p.has_rationale],
    )


def match_parties(scope: Scope, parties: list[Party], election_id: str) -> dict[str, str]:
    """Scope party name -> source party id; every scope party must match exactly one party."""
    matches: dict[str, str] = {}
    claimed: dict[str, str] = {}
    for wanted in scope.parties:
        keys = {_key(spelling) for spelling in wanted.spellings}
        found = [p for p in parties if keys & {_key(p.name), _key(p.long_name or ""), _key(p.id)}]
        if not found:
            raise SourceError(
                f"scope party {wanted.name!r} (aliases: {', '.join(wanted.aliases) or 'none'}) "
                f"matches no party of election {election_id!r}; its parties are: "
                + ", ".join(p.name for p in parties),
                path=f"scope {scope.name}",
            )
        if len(found) > 1:
            raise SourceError(
                f"scope party {wanted.name!r} matches several parties of election "
                f"{election_id!r}: {', '.join(p.name for p in found)}; make its aliases specific",
                path=f"scope {scope.name}",
            )
        party = found[0]
        if party.id in claimed:
            raise SourceError(
                f"scope parties {claimed[party.id]!r} and {wanted.name!r} both match "
                f"party {party.name!r}",
                path=f"scope {scope.name}",
            )
        claimed[party.id] = wanted.name
        matches[wanted.name] = party.id
    return matches


def letters(index: int) -> str:
    """0 -> 'A', 25 -> 'Z', 26 -> 'AA' (spreadsheet columns)."""
    label = ""
    index += 1
    while index:
        index, remainder = divmod(index - 1, 26)
        label = chr(ord("A") + remainder) + label
    return label


def _key(text: str) -> str:
    return " ".join(text.casefold().translate(_UMLAUTS).split())


def _read_scope_file(path: Path) -> str:
    if not path.is_file():
        raise SourceError("scope file not found (or not a file)", path=path)
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(f"not valid UTF-8 (byte offset {exc.start})", path=path) from None


def _scope_from_text(text: str, path: Path) -> Scope:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SourceError(f"invalid TOML: {exc}", path=path) from None
    try:
        return Scope.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error["loc"]).lstrip(
            "."
        )
        problem = "missing" if error["type"] == "missing" else error["msg"]
        raise SourceError(problem, path=path, field=field or None) from None
