"""The test server's prompt cache: what it reports as ``usage.prompt_tokens_details.cached_tokens``.

Providers bill a prompt prefix they have seen recently at a cached-input rate and report its
tokens as cached. The test server does the same, simply and exactly: a request's prefix is every
message but the last (for a judge call, its system message), and when an earlier request to the
same model had that prefix, its tokens (``approx_tokens``, as the server counts prompt tokens)
are reported as cached. The first request with a prefix reports none, so over a study the cached
tokens are the prefix tokens of every call but the first per model and prefix, whatever order
the calls arrive in.
"""

from __future__ import annotations

import hashlib
import threading

from polistemics.testing.completions import count_prompt_tokens, messages_text


def prompt_prefix(messages: list) -> list:
    """The messages a later request must repeat to hit the cache: all but the last."""
    return messages[:-1]


class PromptCache:
    """Prefixes seen per model; ``cached_tokens`` answers and remembers in one step."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: set[tuple[str, str]] = set()
        self.hits = 0  # requests that reported cached tokens
        self.tokens = 0  # cached tokens reported, summed

    def cached_tokens(self, request: dict) -> int:
        messages = request.get("messages")
        prefix = prompt_prefix(messages) if isinstance(messages, list) else []
        text = messages_text(prefix)
        if not text:
            return 0
        model = request.get("model")
        entry = (
            model if isinstance(model, str) else "",
            hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(),
        )
        with self._lock:
            if entry not in self._seen:
                self._seen.add(entry)
                return 0
            self.hits += 1
            tokens = count_prompt_tokens(prefix)  # approx_tokens(text), counted faster
            self.tokens += tokens
        return tokens

    def clear(self) -> None:
        with self._lock:
            self._seen.clear()
            self.hits = self.tokens = 0
