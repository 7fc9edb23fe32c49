"""What a caller hands the client layer and what it gets back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from polistemics.llm.registry import ModelEndpoint

Message = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": "..."}


@dataclass(frozen=True)
class CallResult:
    """The outcome of one (possibly cached) model call. Failures are values, not exceptions."""

    key: str
    endpoint: str
    model: str
    status: str  # "ok" or "error"
    text: str | None = None
    finish_reason: str | None = None
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    # Of ``input_tokens``, those the provider served from its prompt cache (OpenAI's
    # ``usage.prompt_tokens_details.cached_tokens``), billed at its cached-input rate.
    cached_input_tokens: int = 0
    cost: float | None = None
    latency_ms: float = 0.0
    attempts: int = 0
    cached: bool = False
    extra: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class Completer(Protocol):
    """The one interface every stage uses to call a model (implemented by ``LLMClient``).

    ``stage`` labels the call for progress and accounting. ``sample_index`` separates repeated
    samples of the same prompt. ``json_schema`` asks for JSON matching the schema, sent the way
    the endpoint's ``structured_output`` setting says (or only described in the prompt).
    """

    async def complete(
        self,
        endpoint: ModelEndpoint,
        messages: list[Message],
        *,
        stage: str,
        sample_index: int = 0,
        json_schema: dict | None = None,
        grammar: str | None = None,
    ) -> CallResult: ...


class BudgetExceeded(RuntimeError):
    """The run-wide cost cap was reached; finished calls are stored, the run stops cleanly."""
