"""polistemics.lazy_exports: a package's names imported on first use, bound once."""

from __future__ import annotations

import sys

import pytest


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A package ``lazy_pkg`` whose ``__init__`` exports ``helper`` (a function defined in its
    submodule ``helper``) and ``other`` lazily."""
    root = tmp_path / "lazy_pkg"
    root.mkdir()
    (root / "__init__.py").write_text(
        "from polistemics.lazy_exports import exported_on_first_use, "
        "keep_functions_named_like_modules\n"
        "_EXPORTS = {'helper': 'lazy_pkg.helper', 'other': 'lazy_pkg.parts'}\n"
        "__getattr__ = exported_on_first_use(__name__, _EXPORTS)\n"
        "keep_functions_named_like_modules(__name__, _EXPORTS)\n"
    )
    (root / "helper.py").write_text("def helper():\n    return 'the function'\n")
    (root / "parts.py").write_text("other = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    for name in [n for n in sys.modules if n == "lazy_pkg" or n.startswith("lazy_pkg.")]:
        del sys.modules[name]


def test_a_name_imports_its_module_only_when_asked(package):
    import lazy_pkg

    assert "lazy_pkg.parts" not in sys.modules
    assert lazy_pkg.other == 42
    assert "lazy_pkg.parts" in sys.modules
    assert vars(lazy_pkg)["other"] == 42  # bound: the next lookup does not call __getattr__


def test_an_unknown_name_is_an_attribute_error(package):
    import lazy_pkg

    with pytest.raises(AttributeError, match="lazy_pkg' has no attribute 'missing'"):
        lazy_pkg.missing  # noqa: B018


def test_a_function_named_like_its_module_stays_the_function(package):
    import lazy_pkg

    assert lazy_pkg.helper() == "the function"
    import lazy_pkg.helper  # noqa: F401  (binds the submodule's name, which is skipped)

    assert callable(lazy_pkg.helper) and lazy_pkg.helper() == "the function"
