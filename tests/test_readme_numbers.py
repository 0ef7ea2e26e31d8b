"""The README's numbers come from files the tests check: its BM25 rows must be the regression file's numbers (which
tests/test_regression.py reproduces on a real node), so neither can drift from the other unnoticed. No OpenSearch."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROWS = {"stemmed": "| bm25 (Snowball", "ntais": "| bm25 `--analysis ntais`", "folded": "| bm25 `--no-stem`"}
COLUMNS = ("recall@10", "recall@100", "ndcg@10", "ndcg@100", "map@100")


def test_the_readmes_bm25_rows_are_the_regression_files_numbers():
    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    pinned = json.loads((ROOT / "tests" / "regressions" / "greek-statutes-bm25.json").read_text(encoding="utf-8"))["runs"]
    for analysis, start in ROWS.items():
        (row,) = [line for line in readme if line.startswith(start)]
        quoted = [float(x) for x in re.findall(r"\|\s*(\d\.\d{4})\s*(?=\|)", row)]
        assert quoted == [round(pinned[analysis][m], 4) for m in COLUMNS], (analysis, row)
