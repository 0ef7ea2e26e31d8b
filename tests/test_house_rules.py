"""The house's own rules that no linter states: a module a reader can hold in mind at once, and tests that check
the product, not the benchmarks.

A module over 400 lines has grown two jobs (nomos/legal/ reached 859 lines in one file before it was split into
rooms, issue 48); the rule holds for every module of the package and the command-line shim, with no exceptions, so
a module that outgrows it is split when it does, not listed here.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 400
EXCEPTIONS: frozenset[str] = frozenset()  # paths relative to the root; keep it empty


def modules() -> list[Path]:
    return sorted((ROOT / "nomos").rglob("*.py")) + [ROOT / "cli.py"]


def test_no_module_is_over_400_lines() -> None:
    over = {}
    for path in modules():
        name = path.relative_to(ROOT).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES and name not in EXCEPTIONS:
            over[name] = lines
    assert not over, f"modules over {MAX_LINES} lines (split them): " + ", ".join(
        f"{name} ({n})" for name, n in sorted(over.items()))


def test_the_exception_list_stays_empty() -> None:
    assert not EXCEPTIONS, f"the size rule has exceptions again: {sorted(EXCEPTIONS)}"


def test_no_test_imports_a_bench_module() -> None:
    """Benchmarks are studies that may change or go; what a test checks lives in nomos/ or tests/, and a bench
    script a test needs is run as a program, as people run it."""
    import ast

    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            found += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names if n == "bench" or n.startswith("bench.")]
    assert not found, found
