"""Compact grammars derived from JSON schemas (for small local models)."""

from __future__ import annotations

import importlib.util

import pytest

from polistemics.environments.vague import AUDIT_JSON_SCHEMA, VAGUE_JSON_SCHEMA
from polistemics.evidence.standardise import OUTPUT_SCHEMA
from polistemics.judging.prompt import verdict_json_schema
from polistemics.llm.grammar import UnsupportedSchema, schema_to_gbnf

SCHEMAS = [OUTPUT_SCHEMA, VAGUE_JSON_SCHEMA, AUDIT_JSON_SCHEMA, verdict_json_schema(4)]


def test_verdict_grammar_fixes_the_number_of_answers_and_their_words() -> None:
    grammar = schema_to_gbnf(verdict_json_schema(3))
    assert 'root-answers-item ::= "\\"Yes\\"" | "\\"No\\""' in grammar
    assert '("," root-answers-item){2,2}' in grammar
    assert grammar.splitlines()[-1].startswith('root ::= "{" "\\"answers\\":"')


def test_literal_prefix_pattern_becomes_a_required_opening() -> None:
    grammar = schema_to_gbnf(OUTPUT_SCHEMA)
    assert '"\\"[PARTY] "' in grammar  # the rationale must open with the placeholder
    assert '[^"\\\\\\n]*' in grammar  # long strings use * rather than thousands of rules


def test_short_strings_are_bounded_and_unsupported_types_are_refused() -> None:
    grammar = schema_to_gbnf(
        {"type": "object", "properties": {"x": {"type": "string", "maxLength": 5}}}
    )
    assert "{0,5}" in grammar
    with pytest.raises(UnsupportedSchema, match="'root-x'"):
        schema_to_gbnf({"type": "object", "properties": {"x": {"type": "number"}}})


@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed"
)
@pytest.mark.parametrize("schema", SCHEMAS, ids=["standardise", "vague", "audit", "verdicts"])
def test_llama_cpp_accepts_every_grammar_the_project_sends(schema: dict) -> None:
    from llama_cpp import LlamaGrammar

    LlamaGrammar.from_string(schema_to_gbnf(schema), verbose=False)
