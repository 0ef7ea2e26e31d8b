"""Public names re-exported from a package's ``__init__`` (``from nomos.retrieval import make_retriever``), as ranx
exports its own, and loaded on first use (PEP 562): importing a package for one name does not import every module
of it (the command line's start-up stays cheap; ``eval`` never pulls in what it does not use).

Each package's ``__init__`` lists where its names live and calls :func:`lazy_exports`::

    __getattr__, __dir__, __all__ = lazy_exports(__name__, {".base": ("Hit", "rank"), ".bm25": ("BM25Retriever",)})
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Callable, Mapping


def lazy_exports(package: str, modules: Mapping[str, tuple[str, ...]]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``__getattr__``, ``__dir__`` and ``__all__`` for ``package``: each name listed under a module (absolute, or
    relative to the package with a leading dot) imported from it the first time it is asked for, then kept. A name
    listed twice is refused."""
    resolved: dict[str, str] = {}
    for module, names in modules.items():
        if isinstance(names, str):  # ("name") is a string, not a tuple of one: its letters would be exported
            raise TypeError(f"{package}: the names of {module} must be a tuple, got the string {names!r}")
        for name in names:
            if name in resolved:
                raise ValueError(f"{package}: {name} is exported from both {resolved[name]} and {module}")
            resolved[name] = package + module if module.startswith(".") else module

    def __getattr__(name: str) -> Any:  # whatever the named module holds
        home = resolved.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(resolved))

    return __getattr__, __dir__, sorted(resolved)
