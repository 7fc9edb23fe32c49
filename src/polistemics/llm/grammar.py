"""Compact GBNF grammars from simple JSON schemas, for small local models.

llama.cpp's own ``json_object`` mode allows free whitespace, and a tiny model can loop on it
until ``max_tokens``. These grammars allow none, so outputs stay short and always parse. They
cover the schemas this project sends: an object of string / boolean / integer properties, enums
of strings, and arrays of those, with ``minItems``/``maxItems`` and ``maxLength``. A string
``pattern`` of the form ``^literal`` becomes a required literal prefix (other patterns are
ignored: llama.cpp grammars cannot express them cheaply). A property may carry its own GBNF
body under the extension key ``x-gbnf`` (for example a sentence structure); ``x-`` keys are
removed before a schema is sent to an API (``without_extensions``).
"""

from __future__ import annotations

import json
import re

LONG_STRING = 1000  # above this, "x{0,N}" would expand to N grammar rules: use "x*" and max_tokens
_CHAR = r'[^"\\\n]'


class UnsupportedSchema(ValueError):
    """The schema uses a construct these grammars do not cover."""


def _literal(text: str) -> str:
    """A GBNF string literal that matches ``text`` exactly."""
    return json.dumps(text, ensure_ascii=False)


def _json_text(value: str) -> str:
    """How ``value`` appears inside a JSON string (quotes and backslashes escaped)."""
    return json.dumps(value, ensure_ascii=False)[1:-1]


def _prefix(pattern: str | None) -> str:
    if not pattern or not pattern.startswith("^"):
        return ""
    literal = re.match(r"\^((?:\\.|[^.*+?()\[\]{}|$\\])*)", pattern)
    if not literal:
        return ""
    return re.sub(r"\\(.)", r"\1", literal.group(1))


class _Builder:
    def __init__(self) -> None:
        self.rules: dict[str, str] = {}

    def add(self, name: str, body: str) -> str:
        self.rules[name] = body
        return name

    def value(self, schema: dict, name: str) -> str:
        if "x-gbnf" in schema:
            return self.add(name, schema["x-gbnf"])
        if "enum" in schema:
            options = " | ".join(
                _literal(json.dumps(v, ensure_ascii=False)) for v in schema["enum"]
            )
            return self.add(name, options)
        kind = schema.get("type")
        if kind == "string":
            prefix = _prefix(schema.get("pattern"))
            shortest = int(schema.get("minLength", 0))
            longest = schema.get("maxLength")
            if longest is not None and int(longest) - len(prefix) <= LONG_STRING:
                repeat = f"{{{shortest},{max(shortest, int(longest) - len(prefix))}}}"
            else:
                repeat = f"{{{shortest},}}" if shortest else "*"
            opening = _literal('"' + _json_text(prefix)) if prefix else '"\\""'
            return self.add(name, f'{opening} {_CHAR}{repeat} "\\""')
        if kind == "boolean":
            return self.add(name, '"true" | "false"')
        if kind == "integer":
            return self.add(name, '"-"? [0-9]{1,12}')
        if kind == "array":
            return self._array(schema, name)
        if kind == "object":
            return self._object(schema, name)
        raise UnsupportedSchema(f"schema type {kind!r} at '{name}' is not supported")

    def _array(self, schema: dict, name: str) -> str:
        item = self.value(schema.get("items", {"type": "string"}), f"{name}-item")
        low = int(schema.get("minItems", 0))
        high = schema.get("maxItems")
        if high is not None and int(high) == 0:
            return self.add(name, '"[]"')
        if low == 0:
            rest = f"{{0,{int(high) - 1}}}" if high is not None else "*"
            return self.add(name, f'"[" ({item} ("," {item}){rest})? "]"')
        rest = f"{{{low - 1},{int(high) - 1}}}" if high is not None else f"{{{low - 1},}}"
        return self.add(name, f'"[" {item} ("," {item}){rest} "]"')

    def _object(self, schema: dict, name: str) -> str:
        properties = schema.get("properties") or {}
        if not properties:
            raise UnsupportedSchema(f"object at '{name}' has no properties")
        parts = []
        for i, (key, sub) in enumerate(properties.items()):
            rule = self.value(sub, f"{name}-{re.sub(r'[^a-zA-Z0-9]', '-', key)}")
            parts.append(_literal(("," if i else "") + json.dumps(key) + ":") + " " + rule)
        return self.add(name, '"{" ' + " ".join(parts) + ' "}"')


def schema_to_gbnf(schema: dict) -> str:
    """A grammar accepting compact JSON that matches ``schema`` (all properties, in order)."""
    builder = _Builder()
    root = builder.value(schema, "root")
    if root != "root":
        builder.add("root", root)
    return "\n".join(f"{name} ::= {body}" for name, body in builder.rules.items()) + "\n"


def without_extensions(schema: object) -> object:
    """The schema with every ``x-...`` key removed, as APIs that validate schemas expect."""
    if isinstance(schema, dict):
        return {k: without_extensions(v) for k, v in schema.items() if not str(k).startswith("x-")}
    if isinstance(schema, list):
        return [without_extensions(v) for v in schema]
    return schema


# Keywords that strict structured-output modes refuse: OpenAI's strict mode rejects a schema
# with string lengths outright (HTTP 400). The stages check their outputs themselves, so the
# bounds only steer small local models, which get them as a grammar or a json_object schema.
STRICT_MODE_UNSUPPORTED = frozenset({"minLength", "maxLength"})


def strict_mode_schema(schema: object) -> object:
    """The schema without the keywords strict structured-output modes refuse."""
    if isinstance(schema, dict):
        return {
            k: strict_mode_schema(v)
            for k, v in schema.items()
            if not (k in STRICT_MODE_UNSUPPORTED and isinstance(v, int))  # not a property name
        }
    if isinstance(schema, list):
        return [strict_mode_schema(v) for v in schema]
    return schema


def sentences_gbnf(first: str, minimum: int, maximum: int) -> str:
    """A JSON string of ``minimum``..``maximum`` plain sentences, the first opening with ``first``.

    Sentences have no inner full stop, so a sentence splitter counts exactly these.
    """
    body = r'[^."\\\n!?;]'  # no full stop, quote, backslash, newline, ! ? or ;
    quote = _literal('"')
    opening = _literal('"' + _json_text(first)) if first else f"{quote} [A-Z]"
    sentence = f'" " [A-Z] {body}{{8,}} "."'
    return f'{opening} {body}{{8,}} "." ({sentence}){{{minimum - 1},{maximum - 1}}} {quote}'
