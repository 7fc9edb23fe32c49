"""A package's public names, imported on first use (issue 26: start-up imports).

A package lists its public names and the module that defines each (``exports``); its
``__getattr__`` (PEP 562) imports that module the first time a name is asked for and binds the
name in the package, so ``from polistemics.stats import wilson_interval`` costs only the module it
needs, and ``__all__`` stays the package's public face.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from types import ModuleType


def exported_on_first_use(package: str, exports: Mapping[str, str]) -> Callable[[str], object]:
    """The ``__getattr__`` of ``package``: each name of ``exports`` from its module."""

    def __getattr__(name: str) -> object:
        if name not in exports:
            raise AttributeError(f"module '{package}' has no attribute '{name}'")
        value = getattr(import_module(exports[name]), name)
        vars(sys.modules[package])[name] = value
        return value

    return __getattr__


def keep_functions_named_like_modules(package: str, exports: Mapping[str, str]) -> None:
    """Some public names are functions defined in a submodule of the same name (``stats``'
    ``agreement_intervals``). Importing that submodule binds its name in the package; the public
    name must stay the function (as when the package imported it eagerly), so that binding is
    skipped."""

    class _Package(ModuleType):
        def __setattr__(self, name: str, value: object) -> None:
            if isinstance(value, ModuleType) and exports.get(name) == f"{package}.{name}":
                return
            super().__setattr__(name, value)

    sys.modules[package].__class__ = _Package
