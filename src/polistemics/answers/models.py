"""A target model's answer to one environment item."""

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
