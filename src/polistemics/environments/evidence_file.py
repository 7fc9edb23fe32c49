"""Read standardised evidence handed over as JSON Lines (one ``Evidence`` object per line)."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from polistemics.jsonl import json_lines
from polistemics.records import Evidence


class EvidenceFileError(ValueError):
    """An evidence file cannot be read; the message names the file, line and field."""


def read_evidence_jsonl(path: Path | str) -> list[Evidence]:
    path = Path(path)
    try:
        lines = list(json_lines(path))
    except FileNotFoundError:
        raise EvidenceFileError(f"{path}: evidence file not found") from None
    evidence = []
    for number, line in lines:
        try:
            evidence.append(Evidence.model_validate_json(line))
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "-"
            raise EvidenceFileError(
                f"{path}, line {number}, field '{field}': {err['msg']}"
            ) from None
    return evidence
