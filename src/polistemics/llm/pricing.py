"""Prices for cost estimates: OpenRouter's public model list, cached on disk, else the registry,
else (offline) the dated price snapshot shipped with the package (``prices_snapshot.json``).

``GET {OpenRouter base}/models`` needs no key and is sent none. Its answer is network data: the
body is read in chunks up to ``MAX_LIST_BYTES``, each entry is validated on its own (an unusable
price is skipped and counted), and any failure (no connection, timeout, bad status, malformed
body) leaves the registry's prices in use with a one-line reason, never a failed dry run.

The list is cached as validated prices with the time it was fetched, in the user cache folder;
the base URL it came from is kept as a hash only, since a gateway URL may carry credentials.

The snapshot is used only when no list (fresh or cached) can be had, and only for a model the
registry has no price for; the dry run then says how old its prices are. A live list always wins.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import urlsplit

import platformdirs
from pydantic import (
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
)

from polistemics.llm.registry import ModelEndpoint, openrouter_base_url

if TYPE_CHECKING:
    import httpx

MAX_LIST_BYTES = 16 * 2**20  # OpenRouter's list is a few MB; anything far larger is not it
FETCH_TIMEOUT_SECONDS = 15.0
DEFAULT_MAX_AGE = timedelta(days=7)
CACHE_FILE_NAME = "openrouter-models.json"
SNAPSHOT_FILE_NAME = "prices_snapshot.json"
REGISTRY_SOURCE = "registry"
NO_SOURCE = "none"


class PriceListError(Exception):
    """The model list could not be fetched or read; the message is one line, without secrets."""


def _no_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("a price is a number, not a boolean")
    return value


UsdPerToken = Annotated[float, BeforeValidator(_no_bool), Field(ge=0, allow_inf_nan=False)]


class TokenPrices(BaseModel):
    """USD per token, as OpenRouter lists them (strings there, floats here). ``input_cache_read``
    is the rate of prompt tokens read from the provider's prompt cache, for models that list
    one; an unusable one is dropped (the entry's other prices stay)."""

    model_config = ConfigDict(frozen=True)

    prompt: UsdPerToken
    completion: UsdPerToken
    input_cache_read: UsdPerToken | None = None

    @field_validator("input_cache_read", mode="wrap")
    @classmethod
    def _usable_or_none(cls, value: Any, handler: Any) -> float | None:
        try:
            return handler(value)
        except ValidationError:
            return None


class _ListedModel(BaseModel):
    id: str = Field(min_length=1, max_length=512)
    pricing: TokenPrices


class _ModelList(BaseModel):
    data: list[Any]


class _CacheFile(BaseModel):
    fetched: AwareDatetime
    source_hash: str
    ignored: int = Field(ge=0)
    prices: dict[str, TokenPrices]


class _SnapshotFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    captured: date
    unit: str
    source: str = Field(min_length=1)
    aliases_note: str = ""
    aliases: dict[str, str] = Field(default_factory=dict)
    prices: dict[str, TokenPrices]


@dataclass(frozen=True)
class PriceSnapshot:
    """Prices by OpenRouter model id, as captured on one day and shipped with the package."""

    captured: date
    prices: dict[str, TokenPrices]
    aliases: dict[str, str] = field(default_factory=dict)

    @property
    def source(self) -> str:
        return f"price snapshot of {self.captured.isoformat()}"

    def age_days(self, now: datetime) -> int:
        return (now.astimezone(UTC).date() - self.captured).days


def parse_snapshot(raw: bytes | str) -> PriceSnapshot:
    """A snapshot file: ``{"captured": "YYYY-MM-DD", "unit", "source", "prices": {id: {...}}}``."""
    parsed = _SnapshotFile.model_validate_json(raw)
    return PriceSnapshot(captured=parsed.captured, prices=parsed.prices, aliases=parsed.aliases)


@functools.cache
def packaged_snapshot() -> PriceSnapshot | None:
    """The snapshot shipped in ``polistemics/llm``; None if it is missing or unreadable (a dry
    run then goes without it rather than failing)."""
    try:
        raw = resources.files("polistemics.llm").joinpath(SNAPSHOT_FILE_NAME).read_bytes()
        return parse_snapshot(raw)
    except (OSError, ValidationError):
        return None


@dataclass(frozen=True)
class PriceList:
    """Validated prices by model id, when they were fetched, and how many entries were skipped."""

    fetched: datetime
    prices: dict[str, TokenPrices]
    ignored: int = 0

    @property
    def source(self) -> str:
        return f"openrouter list of {self.fetched.astimezone(UTC).date().isoformat()}"


@dataclass(frozen=True)
class Price:
    """What one endpoint costs per token, and where that figure came from; ``cached_input``
    is the rate of input tokens read from the provider's prompt cache (None: not known)."""

    source: str
    input_per_token: float | None = None
    output_per_token: float | None = None
    cached_input_per_token: float | None = None

    def cost(
        self, input_tokens: float, output_tokens: float, cached_input_tokens: float = 0
    ) -> float | None:
        """USD for the tokens; ``cached_input_tokens`` of the input at the cached rate (None
        when there are cached tokens and no cached rate is known)."""
        if self.input_per_token is None or self.output_per_token is None:
            return None
        cached = min(cached_input_tokens, input_tokens)
        if cached and self.cached_input_per_token is None:
            return None
        cached_cost = cached * self.cached_input_per_token if cached else 0.0
        return (
            (input_tokens - cached) * self.input_per_token
            + cached_cost
            + output_tokens * self.output_per_token
        )


NO_PRICE = Price(NO_SOURCE)


@dataclass(frozen=True)
class PriceLookup:
    """The list to price OpenRouter endpoints with (None: use the registry) and a one-line note."""

    price_list: PriceList | None
    note: str | None = None
    fetched: bool = False


# ---- the list ----------------------------------------------------------------------------------


def parse_price_list(raw: bytes, fetched: datetime) -> PriceList:
    """Validate a ``{"data": [{"id", "pricing": {"prompt", "completion"}}, ...]}`` body."""
    try:
        envelope = _ModelList.model_validate_json(raw)
    except ValidationError:
        raise PriceListError('the model list is not JSON of the form {"data": [...]}') from None
    prices: dict[str, TokenPrices] = {}
    ignored = 0
    for entry in envelope.data:
        try:
            listed = _ListedModel.model_validate(entry)
        except ValidationError:
            ignored += 1
            continue
        prices.setdefault(listed.id, listed.pricing)
    if not prices:
        raise PriceListError(f"the model list has no usable prices ({ignored} entries ignored)")
    return PriceList(fetched=fetched, prices=prices, ignored=ignored)


def fetch_price_list(
    base_url: str,
    *,
    timeout: float = FETCH_TIMEOUT_SECONDS,
    max_bytes: int = MAX_LIST_BYTES,
    now: datetime | None = None,
    transport: httpx.BaseTransport | None = None,
) -> PriceList:
    """One GET of ``{base_url}/models`` without credentials; proxies come from the environment.

    ``timeout`` bounds each read and the whole fetch: a server sending a byte every few seconds
    would never trip a per-read timeout.
    """
    import httpx  # only when the list is fetched: a run that needs no prices does not load it

    url = f"{base_url.rstrip('/')}/models"
    body = bytearray()
    deadline = time.monotonic() + timeout
    try:
        with (
            httpx.Client(timeout=timeout, transport=transport, follow_redirects=False) as client,
            client.stream("GET", url, headers={"Accept": "application/json"}) as response,
        ):
            if response.status_code != 200:
                raise PriceListError(f"HTTP {response.status_code}")
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise PriceListError(f"the model list is larger than {max_bytes:,} bytes")
            for chunk in response.iter_bytes():
                body += chunk
                if time.monotonic() > deadline:
                    raise PriceListError(f"the model list took longer than {timeout:g}s")
                if len(body) > max_bytes:
                    raise PriceListError(f"the model list is larger than {max_bytes:,} bytes")
    except httpx.HTTPError as exc:
        raise PriceListError(_one_line(type(exc).__name__, str(exc))) from None
    return parse_price_list(bytes(body), now or datetime.now(UTC))


def _one_line(kind: str, detail: str) -> str:
    detail = " ".join(detail.split())[:160]
    return f"{kind}: {detail}" if detail else kind


# ---- the cache ---------------------------------------------------------------------------------


def default_cache_path() -> Path:
    return Path(platformdirs.user_cache_dir("polistemics")) / CACHE_FILE_NAME


def _source_hash(base_url: str) -> str:
    return hashlib.sha256(base_url.encode("utf-8")).hexdigest()


def read_cache(path: Path, base_url: str) -> PriceList | None:
    """The cached list fetched from ``base_url``; None when absent, unreadable or malformed."""
    try:
        if path.stat().st_size > MAX_LIST_BYTES:
            return None
        cached = _CacheFile.model_validate_json(path.read_bytes())
    except (OSError, ValidationError):
        return None
    if cached.source_hash != _source_hash(base_url):
        return None
    return PriceList(fetched=cached.fetched, prices=cached.prices, ignored=cached.ignored)


def write_cache(path: Path, base_url: str, price_list: PriceList) -> None:
    """Replace the cache file in one rename, so a reader never sees half a file."""
    payload = _CacheFile(
        fetched=price_list.fetched,
        source_hash=_source_hash(base_url),
        ignored=price_list.ignored,
        prices=price_list.prices,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=".prices-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(payload.model_dump(mode="json"), handle)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# ---- choosing a price --------------------------------------------------------------------------


def openrouter_prices(
    base_url: str,
    cache_path: Path,
    *,
    max_age: timedelta = DEFAULT_MAX_AGE,
    refresh: bool = False,
    now: datetime | None = None,
    timeout: float = FETCH_TIMEOUT_SECONDS,
    transport: httpx.BaseTransport | None = None,
) -> PriceLookup:
    """A cached list younger than ``max_age`` (unless ``refresh``), else a fresh one, else None."""
    now = now or datetime.now(UTC)
    if not refresh:
        cached = read_cache(cache_path, base_url)
        # A list dated in the future (a wrong clock, an edited file) counts as stale.
        if cached is not None and timedelta(0) <= now - cached.fetched < max_age:
            return PriceLookup(cached)
    try:
        fresh = fetch_price_list(base_url, timeout=timeout, now=now, transport=transport)
    except PriceListError as exc:
        return PriceLookup(None, f"OpenRouter price list not used ({exc}); using registry prices")
    notes = []
    if fresh.ignored:
        notes.append(f"{fresh.ignored} entries of the OpenRouter price list ignored (unusable)")
    try:
        write_cache(cache_path, base_url, fresh)
    except OSError as exc:
        notes.append(_one_line("price list not cached", exc.strerror or type(exc).__name__))
    return PriceLookup(fresh, "; ".join(notes) or None, fetched=True)


# What a provider's batch API bills, as a share of its online price: OpenAI's Batch API and
# Anthropic's Message Batches bill half. Other providers count as having no batch mode (n/a).
BATCH_PRICE_SHARE = {"openai": 0.5, "anthropic": 0.5}
_BATCH_HOSTS = {"api.openai.com": "openai", "api.anthropic.com": "anthropic"}


def batch_price_share(endpoint: ModelEndpoint) -> float | None:
    """The share of the online price the endpoint's model costs through its vendor's batch API,
    or None when no batch discount is known.

    An OpenAI endpoint, or one at OpenAI's or Anthropic's own API, has its vendor's discount.
    OpenRouter has no batch API: an OpenRouter model is counted by the vendor its id names
    (``openai/...``, ``anthropic/...``), i.e. what it would cost through that vendor's own batch
    API. A batch endpoint's own ``batch_discount`` comes first.
    """
    if endpoint.is_local:
        return None
    if endpoint.execution == "batch":  # the registry says what its batch API bills
        return 1 - endpoint.batch_discount
    if endpoint.provider == "openai":
        return BATCH_PRICE_SHARE["openai"]
    host = urlsplit(endpoint.resolved_base_url).hostname or ""
    if host in _BATCH_HOSTS:
        return BATCH_PRICE_SHARE[_BATCH_HOSTS[host]]
    if is_openrouter(endpoint):
        return BATCH_PRICE_SHARE.get(endpoint.model.split("/", 1)[0])
    return None


def is_openrouter(endpoint: ModelEndpoint) -> bool:
    if endpoint.provider == "openrouter":
        return True
    return bool(endpoint.base_url) and endpoint.resolved_base_url == openrouter_base_url()


def registry_price(endpoint: ModelEndpoint) -> Price:
    if endpoint.price_input_per_mtok is None or endpoint.price_output_per_mtok is None:
        return NO_PRICE
    cached = endpoint.price_cached_input_per_mtok
    return Price(
        REGISTRY_SOURCE,
        endpoint.price_input_per_mtok / 1e6,
        endpoint.price_output_per_mtok / 1e6,
        None if cached is None else cached / 1e6,
    )


def endpoint_price(
    endpoint: ModelEndpoint,
    price_list: PriceList | None,
    snapshot: PriceSnapshot | None = None,
) -> Price:
    """The listed price for an OpenRouter model, else the registry's, else the snapshot's (an
    OpenRouter model, when no list could be had), else none."""
    if price_list is not None and is_openrouter(endpoint):
        listed = _priced(price_list.prices, endpoint.model, model_aliases())
        if listed is not None:
            return Price(
                price_list.source, listed.prompt, listed.completion, listed.input_cache_read
            )
    price = registry_price(endpoint)
    if price is NO_PRICE and snapshot is not None and is_openrouter(endpoint):
        captured = _priced(snapshot.prices, endpoint.model, snapshot.aliases)
        if captured is not None:
            return Price(
                snapshot.source, captured.prompt, captured.completion, captured.input_cache_read
            )
    return price


def _priced(
    prices: dict[str, TokenPrices], model: str, aliases: dict[str, str]
) -> TokenPrices | None:
    """``model``'s entry, or that of the id OpenRouter lists it under (the paper pins
    ``anthropic/claude-sonnet-4-6``; the list has ``anthropic/claude-sonnet-4.6``)."""
    if model in prices:
        return prices[model]
    alias = aliases.get(model)
    return prices.get(alias) if alias else None


def model_aliases() -> dict[str, str]:
    """The packaged snapshot's aliases: model string sent -> id OpenRouter's list uses."""
    snapshot = packaged_snapshot()
    return dict(snapshot.aliases) if snapshot else {}


def estimate_prices(
    endpoints: Iterable[ModelEndpoint],
    *,
    cache_path: Path | None = None,
    max_age: timedelta = DEFAULT_MAX_AGE,
    refresh: bool = False,
    now: datetime | None = None,
    snapshot: PriceSnapshot | None = None,
) -> tuple[dict[str, Price], str | None]:
    """Prices by endpoint name and a note; the list is looked up only when an endpoint needs it.

    Without a list, ``snapshot`` (default: the packaged one) prices the OpenRouter models the
    registry has no price for, and the note says how old it is.
    """
    endpoints = list(endpoints)
    now = now or datetime.now(UTC)
    lookup = PriceLookup(None)
    fallback = None
    if any(is_openrouter(e) for e in endpoints):
        lookup = openrouter_prices(
            openrouter_base_url(),
            cache_path or default_cache_path(),
            max_age=max_age,
            refresh=refresh,
            now=now,
        )
        if lookup.price_list is None:
            fallback = snapshot or packaged_snapshot()
    prices = {e.name: endpoint_price(e, lookup.price_list, fallback) for e in endpoints}
    note = lookup.note
    if fallback is not None:
        used = sum(1 for price in prices.values() if price.source == fallback.source)
        if used:
            note = (
                f"{note}; else the {fallback.source} shipped with polistemics "
                f"({fallback.age_days(now)} days old; {used} of {len(prices)} models)"
            )
    return prices, note
