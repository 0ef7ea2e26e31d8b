"""Each package's public names (nomos.exports): every name its __init__ lists resolves to the object of the module
it names, nothing is listed twice, and importing a package loads none of its modules until a name is asked for."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys

import pytest

from nomos.exports import lazy_exports

PACKAGES = ("nomos.ingest", "nomos.eval", "nomos.vectors", "nomos.opensearch", "nomos.pages", "nomos.retrieval", "nomos.retrieval.llm",
            "nomos.stages")


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_resolves(package):
    mod = importlib.import_module(package)
    assert mod.__all__ == sorted(mod.__all__) and mod.__all__
    for name in mod.__all__:
        assert getattr(mod, name) is not None, name
    assert set(mod.__all__) <= set(dir(mod))
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        mod.nope  # noqa: B018


def test_a_package_import_loads_no_module_until_a_name_is_asked():
    code = ("import sys, nomos.retrieval, nomos.eval; "
            "print(sorted(m for m in sys.modules if m.startswith(('nomos.retrieval.', 'nomos.eval.'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_settings_load_neither_jinja2_nor_the_llm_client():
    """Every command reads the settings at start-up; the LLM part lives in nomos.retrieval.llm and the prompt sets in
    retrieval/prompts.py, so those packages must not load their client, its citations or jinja2 with them."""
    code = ("import sys, nomos.settings; print(sorted(m for m in sys.modules if m == 'jinja2' or "
            "m.startswith('nomos.retrieval.llm.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "['nomos.retrieval.llm.settings']"


def test_the_llm_packages_typed_names_are_its_exports():
    """nomos.retrieval.llm names its exports twice, lazily and for mypy: the two lists must agree."""
    import nomos.retrieval.llm as llm

    tree = ast.parse(open(llm.__file__, encoding="utf-8").read())
    typed = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.If)
             for sub in node.body if isinstance(sub, ast.ImportFrom) for alias in sub.names}
    assert typed == set(llm.__all__)


def test_bad_export_lists_are_refused():
    with pytest.raises(TypeError, match="must be a tuple"):
        lazy_exports("pkg", {".a": "name"})
    with pytest.raises(ValueError, match="x is exported from both pkg.a and .b"):
        lazy_exports("pkg", {".a": ("x",), ".b": ("x",)})
