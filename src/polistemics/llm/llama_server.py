"""The bundled model's server process: llama-cpp-python's OpenAI-compatible server, with the
grammar checked on the sampled token first.

Run as ``python -m polistemics.llm.llama_server`` with the arguments of
``python -m llama_cpp.server``; ``local_server.LocalServer`` starts it. Everything (HTTP, chat
templates, the request schema) is llama-cpp-python's server. The one change is how a grammar
constrains sampling.

Why: llama-cpp-python (0.3.x) puts the grammar first in its sampler chain, so at every generated
token llama.cpp matches all 49,152 of SmolLM2's vocabulary entries against the grammar before the
sampler picks one. llama.cpp's own sampler (``common_sampler_sample``, used by its server and
CLI) first picks from the unconstrained distribution, asks the grammar about that one token, and
applies the grammar to the whole vocabulary only when the token is rejected. This subclass does
the same. Replaying the demo's 12 standardisation and 8 Vague calls over HTTP on a quiet 2-core
machine (``benchmarks/local_server.py RUN_DIR --limit 20``, 2026-12-01), they took 76.4 s against
123.1 s on llama-cpp-python's server. Greedy judge calls (short JSON verdicts) took the same time
either way, with identical outputs.

- Greedy decoding (temperature 0): identical outputs. If the unconstrained argmax is allowed, it
  is also the argmax over the allowed tokens; if not, the grammar-first path runs.
- Sampling (temperature > 0): a kept token t has probability p(t) + (1 - A) p(t) / A = p(t) / A,
  where A is the allowed mass, which is the grammar-first distribution up to where top-k/top-p
  cut it. Outputs differ from grammar-first sampling with the same seed, as they do between
  llama.cpp's server and llama-cpp-python's.

The subclass relies on llama-cpp-python's sampler hooks (``Llama._init_sampler`` and
``Llama.sample``); ``tests/llm/test_llama_server.py`` checks them against the installed version.
"""

from __future__ import annotations

import ctypes
import sys
from functools import partial

import llama_cpp
import numpy as np

_TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)], align=True)


class SampledTokenFirstLlama(llama_cpp.Llama):
    """``llama_cpp.Llama`` whose grammar is checked on the sampled token before the vocabulary."""

    _grammar_sampler = None  # llama.cpp's grammar sampler, outside the chain
    _vocabulary_candidates = None
    full_vocabulary_checks = 0  # steps where the sampled token was rejected (for tests)
    sampled_token_checks = 0  # steps decided by checking the sampled token only

    def _init_sampler(self, *args, grammar: llama_cpp.LlamaGrammar | None = None, **kwargs):
        self._free_grammar_sampler()
        if grammar is not None:
            self._grammar_sampler = llama_cpp.llama_sampler_init_grammar(
                self._model.vocab, grammar._grammar.encode(), grammar._root.encode()
            )
            n_vocab = self._n_vocab
            if self._vocabulary_candidates is None:  # allocated once, reused at every step
                self._vocabulary_candidates = (llama_cpp.llama_token_data * n_vocab)()
                self._candidate_view = np.frombuffer(self._vocabulary_candidates, dtype=_TOKEN_DATA)
                self._token_ids = np.arange(n_vocab, dtype=np.int32)
                self._one_candidate = (llama_cpp.llama_token_data * 1)()
        return super()._init_sampler(*args, grammar=None, **kwargs)

    def sample(self, *args, grammar: llama_cpp.LlamaGrammar | None = None, idx=None, **kwargs):
        if grammar is None or self._grammar_sampler is None or self._sampler is None:
            return super().sample(*args, grammar=grammar, idx=idx, **kwargs)
        position = idx - self.n_tokens if idx is not None else -1
        logits = np.ctypeslib.as_array(
            llama_cpp.llama_get_logits_ith(self._ctx.ctx, position), shape=(self._n_vocab,)
        )
        chain = self._sampler.sampler
        token = self._pick(chain, logits, with_grammar=False)
        if self._grammar_allows(token):
            self.sampled_token_checks += 1
        else:
            self.full_vocabulary_checks += 1
            token = self._pick(chain, logits, with_grammar=True)
        llama_cpp.llama_sampler_accept(self._grammar_sampler, token)
        llama_cpp.llama_sampler_accept(chain, token)
        return token

    def _pick(self, chain, logits: np.ndarray, *, with_grammar: bool) -> int:
        view = self._candidate_view
        view["id"] = self._token_ids
        view["logit"] = logits
        view["p"] = 0.0
        candidates = llama_cpp.llama_token_data_array(
            data=self._vocabulary_candidates, size=len(view), selected=-1, sorted=False
        )
        if with_grammar:
            llama_cpp.llama_sampler_apply(self._grammar_sampler, ctypes.byref(candidates))
        llama_cpp.llama_sampler_apply(chain, ctypes.byref(candidates))
        return int(self._vocabulary_candidates[candidates.selected].id)

    def _grammar_allows(self, token: int) -> bool:
        one = self._one_candidate
        one[0].id, one[0].logit, one[0].p = token, 0.0, 0.0
        single = llama_cpp.llama_token_data_array(data=one, size=1, selected=-1, sorted=False)
        llama_cpp.llama_sampler_apply(self._grammar_sampler, ctypes.byref(single))
        return bool(np.isfinite(one[0].logit))  # a rejected token's logit is set to -inf

    def _free_grammar_sampler(self) -> None:
        if self._grammar_sampler is not None:
            llama_cpp.llama_sampler_free(self._grammar_sampler)
            self._grammar_sampler = None

    def close(self) -> None:
        self._free_grammar_sampler()
        super().close()


# How long the server keeps an idle keep-alive connection open. The client layer reuses idle
# connections for up to 15 s (``transport.KEEPALIVE_SECONDS``); uvicorn's default of 5 s let a
# call go out on a connection the server was just closing, so it failed and was retried (once in
# 168 calls of a demo run with two servers, where one server can sit idle for seconds).
KEEP_ALIVE_SECONDS = 60


def main() -> None:
    # llama-cpp-python's server builds its model as ``llama_cpp.Llama(...)``; in this process
    # (and only here) that name is the subclass.
    llama_cpp.Llama = SampledTokenFirstLlama
    import uvicorn

    # It starts uvicorn without a keep-alive setting; in this process, it gets ours.
    uvicorn.run = partial(uvicorn.run, timeout_keep_alive=KEEP_ALIVE_SECONDS)
    from llama_cpp.server.__main__ import main as serve

    sys.argv[0] = "polistemics.llm.llama_server"
    serve()


if __name__ == "__main__":
    main()
