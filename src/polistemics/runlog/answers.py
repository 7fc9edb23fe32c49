"""What target models answered: ``answers.jsonl`` (``Answer``, one per item x model x sample)
and ``prior_probe.jsonl`` (``ProbeAnswer``, the closed-book prior probe of issue 16)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Answer(BaseModel):
    model_config = ConfigDict(frozen=True)

    item_key: str  # EnvironmentItem.key
    model: str  # registry name of the target endpoint
    sample_index: int = 0
    status: str  # "ok" or "error"
    text: str | None = None
    error: str | None = None
    finish_reason: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = None
    latency_ms: float = 0.0
    refusal: bool = False
    empty: bool = False
    call_key: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok" and not self.empty


class ProbeAnswer(BaseModel):
    """A target's closed-book answer to the party-position question (no context given)."""

    model_config = ConfigDict(frozen=True)

    election_id: str
    party_id: str
    statement_id: str
    model: str
    sample_index: int = 0
    language: str  # the language the question was asked in
    status: str  # "ok" or "error"
    text: str | None = None
    error: str | None = None
    call_key: str | None = None

    @property
    def key(self) -> str:
        """Unique within a run: election x party x statement (the model and sample are apart)."""
        return f"prior|{self.election_id}|{self.party_id}|{self.statement_id}"

    @property
    def ok(self) -> bool:
        return self.status == "ok" and bool(self.text and self.text.strip())
