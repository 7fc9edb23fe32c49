"""Compact grammars derived from JSON schemas (for small local models)."""

from __future__ import annotations

import importlib.util
import json

import pytest

from polistemics.environments.vague import AUDIT_JSON_SCHEMA, VAGUE_JSON_SCHEMA
from polistemics.evidence.standardise import OUTPUT_SCHEMA
from polistemics.judging.prompt import verdict_json_schema
from polistemics.llm.grammar import (
    UnsupportedSchema,
    schema_to_gbnf,
    sentences_gbnf,
    without_extensions,
)

SCHEMAS = [OUTPUT_SCHEMA, VAGUE_JSON_SCHEMA, AUDIT_JSON_SCHEMA, verdict_json_schema(4)]


def test_verdict_grammar_fixes_the_number_of_answers_and_their_words() -> None:
    grammar = schema_to_gbnf(verdict_json_schema(3))
    assert 'root-answers-item ::= "\\"Yes\\"" | "\\"No\\""' in grammar
    assert '("," root-answers-item){2,2}' in grammar
    assert grammar.splitlines()[-1].startswith('root ::= "{" "\\"answers\\":"')


def test_literal_prefix_pattern_becomes_a_required_opening() -> None:
    schema = {"type": "object", "properties": {"t": {"type": "string", "pattern": "^\\[PARTY\\] "}}}
    grammar = schema_to_gbnf(schema)
    assert '"\\"[PARTY] "' in grammar  # the text must open with the placeholder
    assert grammar.count("*") == 1  # unbounded strings use * rather than thousands of rules


def test_sentence_grammar_is_used_for_local_models_and_stripped_for_apis() -> None:
    grammar = schema_to_gbnf(OUTPUT_SCHEMA)
    assert sentences_gbnf("[PARTY] ", 4, 6) in grammar
    assert '"."){3,5}' in grammar  # 4 to 6 sentences in all
    sent = without_extensions(OUTPUT_SCHEMA)
    assert "x-gbnf" not in json.dumps(sent)
    assert sent["properties"]["third_person_rationale"]["minLength"] == 150


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
