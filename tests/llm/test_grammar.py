"""GBNF grammars from JSON schemas (llama.cpp's converter plus the project's extension)."""

from __future__ import annotations

import json

import pytest

from polistemics.environments.vague import AUDIT_JSON_SCHEMA, VAGUE_JSON_SCHEMA
from polistemics.evidence.standardise import OUTPUT_SCHEMA
from polistemics.judging.prompt import verdict_json_schema
from polistemics.llm.grammar import (
    schema_to_gbnf,
    sentences_gbnf,
    strict_mode_schema,
    without_extensions,
)

llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")

STAGE_SCHEMAS = {
    "standardise": OUTPUT_SCHEMA,
    "vague": VAGUE_JSON_SCHEMA,
    "audit": AUDIT_JSON_SCHEMA,
    "verdicts-1": verdict_json_schema(1),
    "verdicts-4": verdict_json_schema(4),
}


@pytest.fixture(scope="module")
def llama_parses():
    """Whether llama.cpp's grammar parser accepts a grammar (LlamaGrammar.from_string only
    stores the text: the parser runs when a sampler is built, which needs a model's vocabulary)."""
    from polistemics.llm.local_server import LocalModelError, smollm2_path

    try:
        model = llama_cpp.Llama(model_path=str(smollm2_path()), vocab_only=True, verbose=False)
    except LocalModelError as exc:
        pytest.skip(str(exc))

    def parses(grammar: str) -> bool:
        sampler = llama_cpp.llama_sampler_init_grammar(
            model._model.vocab, grammar.encode(), b"root"
        )
        if not sampler:
            return False
        llama_cpp.llama_sampler_free(sampler)
        return True

    return parses


def test_the_parser_check_rejects_broken_grammars(llama_parses):
    assert llama_parses('root ::= "a" [0-9]{2,3}')
    assert not llama_parses("root ::= undefined-rule")
    assert not llama_parses('root ::= "a" (')


def _rules(grammar: str) -> dict[str, str]:
    return dict(line.split(" ::= ", 1) for line in grammar.splitlines() if line)


@pytest.mark.parametrize("extensions", [True, False], ids=["with-x-gbnf", "without-x-gbnf"])
@pytest.mark.parametrize("schema", STAGE_SCHEMAS.values(), ids=STAGE_SCHEMAS.keys())
def test_llama_cpp_parses_the_grammar_of_every_stage_schema(
    schema: dict, extensions: bool, llama_parses
):
    grammar = schema_to_gbnf(schema if extensions else without_extensions(schema))
    assert llama_parses(grammar)


def test_verdict_grammar_fixes_the_number_of_answers_and_their_words():
    rules = _rules(schema_to_gbnf(verdict_json_schema(3)))
    assert rules["answers-item"] == '"\\"Yes\\"" | "\\"No\\""'
    assert rules["answers"].count("answers-item") == 3


def test_whitespace_is_at_most_one_space():
    assert _rules(schema_to_gbnf(AUDIT_JSON_SCHEMA))["space"] == '" "?'


def test_string_characters_exclude_raw_control_characters(llama_parses):
    grammar = schema_to_gbnf(without_extensions(VAGUE_JSON_SCHEMA))
    assert _rules(grammar)["char"].startswith('[^"\\\\\\x7F\\x00-\\x1F] | "\\\\" (')
    assert llama_parses(grammar)


def test_sentence_extension_replaces_the_string_rule():
    rules = _rules(schema_to_gbnf(OUTPUT_SCHEMA))
    assert rules["third-person-rationale"] == sentences_gbnf("[PARTY] ", 4, 6)
    assert '"."){3,5}' in rules["third-person-rationale"]  # 4 to 6 sentences in all
    assert "x-gbnf" not in json.dumps(without_extensions(OUTPUT_SCHEMA))


def test_prefix_pattern_becomes_a_required_opening_within_the_length_bounds(llama_parses):
    schema = {
        "type": "object",
        "properties": {"t": {"type": "string", "pattern": "^\\[PARTY\\] ", "maxLength": 12}},
        "required": ["t"],
    }
    grammar = schema_to_gbnf(schema)
    rule = _rules(grammar)["t"]
    assert rule.startswith('"\\"" "[PARTY]" " "')  # the text must open with the placeholder
    assert rule.count("t-1") == 4  # 12 - len("[PARTY] ") characters at most
    assert _rules(grammar)["t-1"] == '[^"\\\\\\x7F\\x00-\\x1F]'  # the JSON always parses
    assert llama_parses(grammar)


def test_other_unanchored_patterns_are_refused():
    schema = {"type": "object", "properties": {"t": {"type": "string", "pattern": "^a+"}}}
    with pytest.raises(ValueError, match="unsupported string pattern"):
        schema_to_gbnf(schema)


def test_strict_mode_drops_length_keywords_but_not_properties_named_like_them():
    schema = {
        "type": "object",
        "properties": {"maxLength": {"type": "string", "maxLength": 5, "minLength": 1}},
    }
    assert strict_mode_schema(schema) == {
        "type": "object",
        "properties": {"maxLength": {"type": "string"}},
    }
