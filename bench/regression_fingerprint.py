"""Re-record the stand-in's fingerprint in the regression files, never their numbers.

tests/test_regression.py fails (it does not skip) when the stand-in's fingerprint differs from the one recorded in
tests/regressions/*.json, so a changed dataset cannot silence the pinned numbers. When the change touched no text
the numbers depend on (e.g. a law's name corrected), re-record the fingerprint here and run the regression test:
the numbers must still match. If they do not, the data changed what is measured: find out why before re-recording
anything (and say so in the commit).

Usage: .venv/bin/python bench/regression_fingerprint.py --dataset ../shared/data/greek-statutes [--write]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nomos.ingest.loader import load_dataset

FILES = sorted((Path(__file__).resolve().parent.parent / "tests" / "regressions").glob("*.json"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes")
    ap.add_argument("--write", action="store_true", help="record the dataset's fingerprint in every regression file")
    args = ap.parse_args()
    fingerprint = load_dataset(args.dataset).fingerprint
    stale = []
    for path in FILES:
        config = json.loads(path.read_text(encoding="utf-8"))
        if config.get("dataset_fingerprint") == fingerprint:
            print(f"{path.name}: up to date")
            continue
        stale.append(path)
        print(f"{path.name}: recorded {config.get('dataset_fingerprint')}, the dataset's is {fingerprint}")
        if args.write:
            config["dataset_fingerprint"] = fingerprint
            path.write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            print("  written (now run tests/test_regression.py: the numbers must still match)")
    sys.exit(1 if stale and not args.write else 0)


if __name__ == "__main__":
    main()
