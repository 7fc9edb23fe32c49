"""Cache keys: what makes two calls "the same call"."""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from functools import lru_cache
from json.encoder import encode_basestring  # what json.dumps(ensure_ascii=False) writes for a str

from polistemics.llm.registry import ModelEndpoint


def canonical_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def messages_hash(messages: list[dict]) -> str:
    """The SHA-256 of the messages' canonical JSON (``messages_json``: the same text)."""
    return hashlib.sha256(messages_json(messages).encode("utf-8")).hexdigest()


LONG_TEXT = 256  # characters: texts this long are remembered once escaped (prompts repeat)


def messages_json(messages: list[dict]) -> str:
    """``canonical_json(messages)``, faster for the usual shape, a list of dicts of text.

    The judges' calls repeat long texts: one rubric's system prompt in hundreds of calls, one
    answer's prompt for every judge and rubric. Each long text is escaped once and remembered
    (a few hundred of them), so a call's key costs a dictionary lookup per long text. Any other
    shape takes ``canonical_json``; both give the same text.
    """
    if type(messages) is not list:
        return canonical_json(messages)
    parts = []
    for message in messages:
        if type(message) is not dict or not all(type(name) is str for name in message):
            return canonical_json(messages)
        fields = []
        for name in sorted(message):
            value = message[name]
            if type(value) is not str:
                return canonical_json(messages)
            text = _long_text(value) if len(value) >= LONG_TEXT else encode_basestring(value)
            fields.append(f"{encode_basestring(name)}:{text}")
        parts.append("{" + ",".join(fields) + "}")
    return "[" + ",".join(parts) + "]"


@lru_cache(maxsize=512)
def _long_text(text: str) -> str:
    return encode_basestring(text)


_SCALARS = (str, int, float, bool, type(None))


def params_json(params: dict) -> str:
    """``canonical_json(params)``, remembered for the usual flat parameters (every call of an
    endpoint and stage sends the same few): a call then costs no JSON encoder."""
    if type(params) is dict and all(
        type(name) is str and type(value) in _SCALARS for name, value in params.items()
    ):
        # 0 == 0.0 == -0.0 == False, but their JSON differs: the key holds a float's repr and
        # every value's type.
        return _flat_params_json(
            tuple(
                (name, type(value), repr(value) if type(value) is float else value)
                for name, value in params.items()
            )
        )
    return canonical_json(params)


@lru_cache(maxsize=256)
def _flat_params_json(items: tuple) -> str:
    return canonical_json(
        {name: float(value) if kind is float else value for name, kind, value in items}
    )


def _index_json(value: object) -> str:
    return str(value) if type(value) is int else canonical_json(value)


def _text_json(value: object) -> str:
    return encode_basestring(value) if type(value) is str else canonical_json(value)


def request_params(
    endpoint: ModelEndpoint, *, json_schema: dict | None = None, grammar: str | None = None
) -> dict:
    """All parameters that shape the output: generation settings plus output constraints."""
    params = endpoint.generation_params()
    if json_schema is not None:
        params["json_schema"] = json_schema
        params["structured_output"] = endpoint.structured_output
    if grammar is not None:
        params["grammar"] = grammar
    return params


def call_key(endpoint: ModelEndpoint, messages: list[dict], params: dict, sample_index: int) -> str:
    """Same endpoint location, model, messages, parameters and sample -> same key.

    The endpoint is identified by where it is served (not by its registry name), so judges that
    are the same model with the same parameters share cached calls.
    """
    return CallIdentity.of(endpoint, messages, params, sample_index).key


def _hashed_through_messages(base_url: str, messages_text: str) -> hashlib._Hash:
    """The key's SHA-256 fed up to the end of the messages (what follows: model, parameters
    and sample index)."""
    key = hashlib.sha256(f'{{"endpoint":{_text_json(base_url)},"messages":'.encode())
    key.update(messages_text.encode("utf-8"))
    return key


MEMO_TEXT_LIMIT = 32_768  # characters of a prompt's JSON remembered (judge prompts: ~3,000)


class _PromptMemo:
    """The canonical JSON of recent prompts, and the key's hash through them per endpoint URL.

    The judges of a panel send one answer's prompt on a rubric as one list object, within a
    moment of each other (``judging.panel.SharedPrompt``): its JSON and the costly part of the
    key's hash (the messages, a few KB) are made for the first of them and copied for the
    others. A prompt is known by the list itself (kept here, so its ``id`` names no other) and a
    copy of its messages: a list changed in place since is not the prompt remembered (comparing
    the copy is cheap: the texts are the same objects). Only lists of messages of text are
    remembered (their copy is whole), and only up to ``MEMO_TEXT_LIMIT`` characters of JSON (a
    batch's waiting calls must not hold long prompts); any other is serialised each time."""

    SIZE = 32  # prompts remembered: the calls on one answer are started one after another

    def __init__(self) -> None:
        self._known: dict[int, tuple[list, list, str, dict[str, hashlib._Hash]]] = {}
        self._lock = threading.Lock()  # keys are made on the event loop, and by other threads

    def hashed(self, base_url: str, messages: list[dict]) -> tuple[str, hashlib._Hash]:
        """``messages_json(messages)``, and a new hash fed through them for ``base_url``."""
        with self._lock:
            known = self._known.get(id(messages))
            if known is None or known[0] is not messages or known[1] != messages:
                text = messages_json(messages)
                if len(text) > MEMO_TEXT_LIMIT or not _text_messages(messages):
                    return text, _hashed_through_messages(base_url, text)
                known = (messages, [dict(m) for m in messages], text, {})
                if len(self._known) >= self.SIZE:
                    del self._known[next(iter(self._known))]  # the oldest
                self._known[id(messages)] = known
            _, _, text, through = known
            hashed = through.get(base_url)
            if hashed is None:
                hashed = through[base_url] = _hashed_through_messages(base_url, text)
            return text, hashed.copy()


def _text_messages(messages: object) -> bool:
    """A list of dicts of text by text (``messages_json``'s usual shape)."""
    return type(messages) is list and all(
        type(message) is dict
        and all(type(name) is str and type(value) is str for name, value in message.items())
        for message in messages
    )


_prompt_memo = _PromptMemo()


@dataclass(frozen=True)
class CallIdentity:
    """A call's cache key with the canonical messages JSON and hash it was built from.

    The key is the SHA-256 of the canonical JSON of {endpoint, messages, model, params,
    sample_index}; the messages' canonical JSON is serialised once and spliced in (keys in sorted
    order, as ``canonical_json`` would write them), since judge prompts are long and every call
    needs both the key and the stored messages.
    """

    key: str
    messages_json: str
    params_json: str

    @property
    def messages_hash(self) -> str:
        """The SHA-256 of the messages' canonical JSON (stored with a new call; a call found in
        the store needs none, so it is made only when asked for)."""
        return hashlib.sha256(self.messages_json.encode("utf-8")).hexdigest()

    @classmethod
    def of(
        cls, endpoint: ModelEndpoint, messages: list[dict], params: dict, sample_index: int
    ) -> CallIdentity:
        params_text = params_json(params)
        messages_text, key = _prompt_memo.hashed(endpoint.resolved_base_url, messages)
        key.update(
            f',"model":{_text_json(endpoint.model)},"params":{params_text},'
            f'"sample_index":{_index_json(sample_index)}}}'.encode()
        )
        return cls(
            key=key.hexdigest(),
            messages_json=messages_text,
            params_json=params_text,
        )
