"""GBNF grammars from JSON schemas, for the bundled llama.cpp models.

The conversion is llama-cpp-python's own (``llama_cpp.llama_grammar.SchemaConverter``, the
``json_schema_to_gbnf`` converter); its whitespace rule allows at most one space, so a tiny model
cannot loop on whitespace until ``max_tokens``. This module adds two things around it:

- a project extension: a property may carry its own GBNF body under ``x-gbnf`` (the demo's
  stages use it for a sentence structure, ``sentences_gbnf``); ``x-`` keys are removed before a
  schema is sent to an API (``without_extensions``). It stays because the demo needs it: in one
  demo run each with SmolLM2 (2026-11), standardisation kept 8 of 8 observations with it and 1 of
  8 without (21 sentence-count failures in 22 calls), and Vague generation then kept 2 and 0;
- JSON Schema's prefix patterns: ``"pattern": "^literal"`` (no ``$``) means "starts with", which
  llama.cpp's converter refuses (it needs ``^...$``). Such a pattern becomes a required literal
  opening followed by JSON string characters, within ``minLength``/``maxLength``.

llama-cpp-python is the optional ``local`` extra, so it is imported only when a grammar is built.
"""

from __future__ import annotations

import json
import re

from polistemics.llm.local_server import INSTALL_HINT, LocalModelError

# A character of a JSON string as the grammar lets a model write it: no quote, backslash or
# control character, so that what the model writes always parses.
_STRING_CHAR = r'[^"\\\x7F\x00-\x1F]'
# The converter's own string character lets raw control characters through (``[^"\\]``), which
# strict JSON parsers refuse; this one escapes them as JSON requires.
_JSON_CHAR = r'[^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})'
_LITERAL_PREFIX = re.compile(r"\^((?:\\.|[^.*+?()\[\]{}|$\\^])*)$")


def _literal(text: str) -> str:
    """A GBNF string literal that matches ``text`` exactly."""
    return json.dumps(text, ensure_ascii=False)


def _json_text(value: str) -> str:
    """How ``value`` appears inside a JSON string (quotes and backslashes escaped)."""
    return json.dumps(value, ensure_ascii=False)[1:-1]


def _anchored(schema: dict) -> dict:
    """A string schema whose ``^literal`` prefix pattern is rewritten as a full ``^...$`` one."""
    pattern = schema.get("pattern")
    if not isinstance(pattern, str) or pattern.endswith("$"):
        return schema
    literal = _LITERAL_PREFIX.match(pattern)
    if not literal:
        raise ValueError(f"unsupported string pattern {pattern!r}: use ^literal or ^...$")
    prefix_length = len(re.sub(r"\\(.)", r"\1", literal.group(1)))
    shortest = max(0, int(schema.get("minLength", 0)) - prefix_length)
    longest = schema.get("maxLength")
    repeat = f"{{{shortest},{max(shortest, int(longest) - prefix_length)}}}" if longest else "*"
    return {**schema, "pattern": f"{pattern}{_STRING_CHAR}{repeat}$"}


def schema_to_gbnf(schema: dict) -> str:
    """A grammar accepting JSON that matches ``schema``, built by llama.cpp's converter."""
    try:
        from llama_cpp.llama_grammar import SchemaConverter
    except ImportError:
        raise LocalModelError(f"grammars need llama-cpp-python; {INSTALL_HINT}") from None

    class _ProjectConverter(SchemaConverter):
        def visit(self, schema: dict, name: str) -> str:  # type: ignore[override]
            if "x-gbnf" in schema:
                return self._add_rule(name or "root", schema["x-gbnf"])
            if schema.get("type") == "string":
                schema = _anchored(schema)
            return super().visit(schema, name)

    converter = _ProjectConverter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
    converter.visit(converter.resolve_refs(schema, "schema"), "")
    if "char" in converter._rules:
        converter._rules["char"] = _JSON_CHAR
    return converter.format_grammar() + "\n"


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
