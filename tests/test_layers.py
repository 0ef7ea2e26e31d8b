"""Layer edges: the node/client layer (nomos/opensearch) and the evaluation layer (nomos/eval) never import each
other, and eval never talks to OpenSearch, so a comparison can be redone anywhere the result files are. Imports are
read from the source (top-level and function-level alike). No OpenSearch."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "nomos"
FORBIDDEN = {
    "opensearch": ("nomos.eval",),
    "eval": ("nomos.opensearch", "opensearchpy"),
}


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_does_not_import_the_other(layer: str) -> None:
    files = sorted((PACKAGE / layer).rglob("*.py"))
    assert files
    bad = [f"{f.relative_to(PACKAGE)} imports {m}" for f in files for m in sorted(imported_modules(f))
           if any(m == p or m.startswith(p + ".") for p in FORBIDDEN[layer])]
    assert bad == []
