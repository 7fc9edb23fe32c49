"""Test support shared by the test suite and benchmarks: a fake OpenAI-compatible server.

Names are imported lazily so ``python -m polistemics.testing.server`` runs without the package
having imported that module first.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from polistemics.testing.completions import approx_tokens, prompt_key
    from polistemics.testing.faults import Fault, Rule, ServerConfigError
    from polistemics.testing.responders import polistemic_responder
    from polistemics.testing.server import FakeOpenAIServer
    from polistemics.testing.stats import ServerStats

_EXPORTS = {
    "FakeOpenAIServer": "polistemics.testing.server",
    "Fault": "polistemics.testing.faults",
    "Rule": "polistemics.testing.faults",
    "ServerConfigError": "polistemics.testing.faults",
    "ServerStats": "polistemics.testing.stats",
    "polistemic_responder": "polistemics.testing.responders",
    "prompt_key": "polistemics.testing.completions",
    "approx_tokens": "polistemics.testing.completions",
}
__all__ = [
    "FakeOpenAIServer",
    "Fault",
    "Rule",
    "ServerConfigError",
    "ServerStats",
    "approx_tokens",
    "polistemic_responder",
    "prompt_key",
]


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'polistemics.testing' has no attribute '{name}'")
    return getattr(import_module(_EXPORTS[name]), name)
