"""Named model endpoints, read from TOML.

Each entry says where a model is served and how to call it. Keys are never stored here:
``api_key_env`` names the environment variable that holds the key.

Base-URL override per provider: ``$POLISTEMICS_<PROVIDER>_BASE_URL`` (``POLISTEMICS_OPENROUTER_BASE_URL``,
``POLISTEMICS_OPENAI_BASE_URL``) replaces that provider's API base for every entry of that
provider without a ``base_url`` of its own (a gateway, or a test server). Model calls and the
OpenRouter price list both use it. The value must be a plain http(s) URL: no credentials in it
(keys travel only in the Authorization header, from ``api_key_env``), no query.
"""

from __future__ import annotations

import os
import re
import tomllib
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

LOCAL_PREFIX = "local://"
OPENROUTER_BASE_URL_ENV = "POLISTEMICS_OPENROUTER_BASE_URL"
OPENAI_BASE_URL_ENV = "POLISTEMICS_OPENAI_BASE_URL"
PROVIDER_BASE_URLS = {
    "openrouter": "https://openrouter.ai/api/v1",
    "openai": "https://api.openai.com/v1",
}
# No userinfo ("user:key@host"): a key in a URL would reach run.json, logs and cache keys.
_HTTP_URL = re.compile(r"^https?://[^\s/?#@]+(/[^\s?#@]*)?$")


class RegistryError(ValueError):
    """A registry file or entry is wrong; the message names the file and key."""


def base_url_env(provider: str) -> str:
    """The environment variable that overrides a provider's API base, e.g. ``POLISTEMICS_OPENAI_BASE_URL``."""
    return f"POLISTEMICS_{provider.upper().replace('-', '_')}_BASE_URL"


def provider_base_url(provider: str) -> str:
    """``$POLISTEMICS_<PROVIDER>_BASE_URL`` when set, else the provider's own API base."""
    variable = base_url_env(provider)
    override = os.environ.get(variable, "").strip()
    if not override:
        return PROVIDER_BASE_URLS[provider]
    if not _HTTP_URL.match(override):
        # The value is not echoed: a gateway URL may carry credentials.
        raise RegistryError(
            f"{variable} must be an http:// or https:// URL without credentials, query or spaces"
        )
    return override.rstrip("/")


def openrouter_base_url() -> str:
    """``$POLISTEMICS_OPENROUTER_BASE_URL`` when set, else OpenRouter's own API base."""
    return provider_base_url("openrouter")


class Reasoning(BaseModel):
    """Reasoning settings, sent the way OpenRouter expects (``reasoning: {...}``)."""

    model_config = ConfigDict(extra="forbid")

    effort: Literal["minimal", "low", "medium", "high"] | None = None
    max_tokens: int | None = Field(default=None, gt=0)
    exclude: bool = False

    @model_validator(mode="after")
    def _one_of(self) -> Reasoning:
        if self.effort and self.max_tokens:
            raise ValueError("set reasoning.effort or reasoning.max_tokens, not both")
        return self

    def to_body(self) -> dict | None:
        if not self.effort and not self.max_tokens:
            return None
        body: dict = {"effort": self.effort} if self.effort else {"max_tokens": self.max_tokens}
        if self.exclude:
            body["exclude"] = True
        return body


# OpenRouter's share of max_tokens for a reasoning effort (its reasoning-tokens guide), and
# Anthropic's smallest thinking budget: how ``llm.batch.anthropic`` sends ``reasoning``.
EFFORT_SHARE = {"minimal": 0.1, "low": 0.2, "medium": 0.5, "high": 0.8}
MIN_THINKING_TOKENS = 1024


def thinking_budget(reasoning: object, max_tokens: int) -> int | None:
    """Anthropic's thinking budget for a request body's ``reasoning`` (None: no thinking):
    ``max_tokens`` as given, or an ``effort``'s share of the call's ``max_tokens``; at least
    ``MIN_THINKING_TOKENS``. A ``ValueError`` when it would not stay below ``max_tokens``, as
    Anthropic requires."""
    if not isinstance(reasoning, dict):
        return None
    if type(reasoning.get("max_tokens")) is int:
        budget = reasoning["max_tokens"]
    elif reasoning.get("effort") in EFFORT_SHARE:
        budget = int(max_tokens * EFFORT_SHARE[reasoning["effort"]])
    else:
        return None
    budget = max(MIN_THINKING_TOKENS, budget)
    if budget >= max_tokens:
        raise ValueError(
            f"Anthropic's thinking budget ({budget} tokens) must be below max_tokens "
            f"({max_tokens}): raise max_tokens"
        )
    return budget


class ModelEndpoint(BaseModel):
    """One callable model: where it lives and the generation parameters it is called with."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    model: str
    display_name: str | None = Field(
        default=None,
        min_length=1,
        max_length=80,
        description=(
            "How figures, tables and the report name the model (default: a readable form of "
            "its registry name; `report --label` overrides it). Not part of any cache key."
        ),
    )
    provider: Literal["openrouter", "openai", "openai-compatible", "local"] = "openai-compatible"
    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float = 0.0
    max_tokens: int = 1024
    top_p: float | None = None
    seed: int | None = None
    reasoning: Reasoning | None = None
    timeout: float = Field(default=120.0, gt=0)
    max_concurrency: int = Field(default=8, ge=1)
    structured_output: Literal["none", "json_object", "json_schema", "grammar", "tool"] = "none"
    accept_truncated: bool = Field(
        default=False, description="Keep answers cut off at max_tokens instead of failing them."
    )
    extra_body: dict = Field(default_factory=dict)
    price_input_per_mtok: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    price_output_per_mtok: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    price_cached_input_per_mtok: float | None = Field(
        default=None,
        ge=0,
        allow_inf_nan=False,
        description="USD per million input tokens served from the provider's prompt cache "
        "(unset: billed as other input tokens).",
    )
    cache_control: bool = Field(
        default=False,
        description="Mark each call's system message as a cache breakpoint (Anthropic-style "
        "cache_control, as OpenRouter passes it on); the prompt and its cache key stay the same.",
    )
    local_model: str | None = Field(
        default=None, description="For provider 'local': which bundled model."
    )
    execution: Literal["online", "batch"] = Field(
        default="online",
        description=(
            "`online` (one request per call) or `batch`: calls are sent through the provider's "
            "batch API (OpenAI's `/v1/files` and `/v1/batches`) and priced at the batch price "
            "(docs/guides/batch.md)."
        ),
    )
    batch_api: Literal["openai", "anthropic"] = Field(
        default="openai",
        description='With `execution = "batch"`: OpenAI\'s Batch API (`/files`, `/batches`; '
        "also offered by OpenAI-compatible services) or Anthropic's Message Batches "
        "(`/messages/batches`, with `base_url` `https://api.anthropic.com/v1`).",
    )
    batch_discount: float = Field(
        default=0.5,
        ge=0,
        le=1,
        allow_inf_nan=False,
        description="Share of the online price a batch call saves (OpenAI's: 0.5), for costs "
        "the reply does not report.",
    )
    batch_window: str = Field(
        default="24h", description="The batch's completion window, as the provider takes it."
    )
    batch_flush_seconds: float = Field(
        default=2.0,
        gt=0,
        allow_inf_nan=False,
        description="A batch is sent once no call has joined it for this long.",
    )
    batch_poll_seconds: float = Field(
        default=15.0,
        gt=0,
        allow_inf_nan=False,
        description="First wait between polls of an open batch; it grows to 5 minutes.",
    )
    batch_max_requests: int = Field(
        default=50_000, ge=1, description="Most requests per batch (OpenAI's limit: 50,000)."
    )
    batch_max_bytes: int = Field(
        default=200 * 2**20,
        ge=1024,
        description="Largest batch input file in bytes (OpenAI's limit: 200 MB).",
    )
    judge_prompt: Literal["paper", "rubric-last"] = Field(
        default="paper",
        description=(
            "As a judge: 'paper' (Fig. 12, the default) or the opt-in 'rubric-last' reordering "
            "for a serial local server (docs/judge-prompt-rubric-last.md)."
        ),
    )

    @field_validator("display_name")
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        if value is not None:
            value = " ".join(value.split())
            if not value:
                raise ValueError("must not be blank (leave it out to name the model from its id)")
        return value

    @field_validator("base_url")
    @classmethod
    def _plain_http_url(cls, value: str | None) -> str | None:
        # The value is not echoed: a URL with credentials in it carries a secret.
        if value is not None and not _HTTP_URL.match(value):
            raise ValueError(
                "must be an http:// or https:// URL without credentials (user:key@), query or "
                "spaces; give the key through api_key_env"
            )
        return value

    @model_validator(mode="after")
    def _batch_needs_a_provider(self) -> ModelEndpoint:
        if self.execution == "batch" and self.provider == "local":
            raise ValueError("execution 'batch' needs a provider's batch API, not 'local'")
        if self.execution == "batch" and self.batch_api == "anthropic" and self.reasoning:
            thinking_budget(self.reasoning.to_body(), self.max_tokens)  # below max_tokens
        return self

    @property
    def resolved_base_url(self) -> str:
        if self.provider == "local":
            return f"{LOCAL_PREFIX}{self.local_model or 'smollm2'}"
        if self.base_url:
            return self.base_url.rstrip("/")
        if self.provider in PROVIDER_BASE_URLS:
            return provider_base_url(self.provider)
        raise RegistryError(
            f"model '{self.name}': base_url is required for provider '{self.provider}'"
        )

    @property
    def is_local(self) -> bool:
        return self.provider == "local"

    @property
    def is_batch(self) -> bool:
        return self.execution == "batch"

    def estimate_batch_cost(self, input_tokens: float, output_tokens: float) -> float | None:
        """The online estimate less the batch discount (None without prices)."""
        online = self.estimate_cost(input_tokens, output_tokens)
        return None if online is None else online * (1 - self.batch_discount)

    def generation_params(self) -> dict:
        """Every parameter that changes the output; part of the cache key."""
        params: dict = {"temperature": self.temperature, "max_tokens": self.max_tokens}
        if self.top_p is not None:
            params["top_p"] = self.top_p
        if self.seed is not None:
            params["seed"] = self.seed
        if self.reasoning and self.reasoning.to_body():
            params["reasoning"] = self.reasoning.to_body()
        if self.extra_body:
            params["extra_body"] = self.extra_body
        if self.judge_prompt != "paper":
            params["judge_prompt"] = self.judge_prompt  # recorded in run.json's models
        return params

    def api_key(self) -> str:
        """The key from the environment; a clear error names the variable (never the value)."""
        if self.is_local or not self.api_key_env:
            return "not-needed"
        value = os.environ.get(self.api_key_env)
        if not value:
            raise MissingApiKey(self.name, self.api_key_env)
        return value

    def estimate_cost(
        self, input_tokens: float, output_tokens: float, cached_input_tokens: float = 0
    ) -> float | None:
        """USD at the registry's prices; of the input tokens, ``cached_input_tokens`` at the
        cached-input price when one is set."""
        if self.price_input_per_mtok is None or self.price_output_per_mtok is None:
            return None
        cached_price = self.price_cached_input_per_mtok
        if cached_price is None:
            cached_price = self.price_input_per_mtok
        cached = min(cached_input_tokens, input_tokens)
        return (
            (input_tokens - cached) * self.price_input_per_mtok
            + cached * cached_price
            + output_tokens * self.price_output_per_mtok
        ) / 1e6


class MissingApiKey(RegistryError):
    def __init__(self, model_name: str, variable: str):
        super().__init__(
            f"model '{model_name}' needs an API key: set the environment variable {variable}"
        )
        self.variable = variable


class ModelRegistry(BaseModel):
    models: dict[str, ModelEndpoint]

    def get(self, name: str) -> ModelEndpoint:
        try:
            return self.models[name]
        except KeyError:
            known = ", ".join(sorted(self.models))
            raise RegistryError(f"unknown model '{name}' (known: {known})") from None

    def merged(self, other: ModelRegistry) -> ModelRegistry:
        return ModelRegistry(models={**self.models, **other.models})


def parse_registry(data: dict, origin: str) -> ModelRegistry:
    """Build a registry from parsed TOML: a ``[models.<name>]`` table per endpoint."""
    tables = data.get("models")
    if not isinstance(tables, dict):
        raise RegistryError(f"{origin}: expected a [models.<name>] table per model")
    models: dict[str, ModelEndpoint] = {}
    for name, table in tables.items():
        if not isinstance(table, dict):
            raise RegistryError(f"{origin}: models.{name} must be a table")
        try:
            models[name] = ModelEndpoint(name=name, **table)
        except ValidationError as exc:
            problems = "; ".join(
                f"models.{name}.{'.'.join(str(p) for p in err['loc'])}: {err['msg']}"
                for err in exc.errors()
            )
            raise RegistryError(f"{origin}: {problems}") from None
    return ModelRegistry(models=models)


def load_registry(path: Path | str) -> ModelRegistry:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RegistryError(f"{path}: model registry file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise RegistryError(f"{path}: not valid TOML ({exc})") from None
    return parse_registry(data, str(path))


def builtin_registry(name: str = "default") -> ModelRegistry:
    """A registry shipped in the package: ``default`` (local model) or ``paper`` (Table 3)."""
    resource = resources.files("polistemics.llm").joinpath("presets", f"{name}.toml")
    if not resource.is_file():
        raise RegistryError(f"no built-in model registry named '{name}'")
    return parse_registry(tomllib.loads(resource.read_text(encoding="utf-8")), f"<builtin {name}>")


def default_registry(extra: Path | str | None = None) -> ModelRegistry:
    """Built-in presets, overlaid by ``extra`` (a user file) when given."""
    registry = builtin_registry("default").merged(builtin_registry("paper"))
    if extra:
        registry = registry.merged(load_registry(extra))
    return registry
