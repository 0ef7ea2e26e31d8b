"""The three everyday cases issue 46 names, as a new user would type them: where their articles rank.

Each case is searched by hybrid's fusion alone (``--rerank none``), re-ranked by the model without the dense bridge
(``ltr-v3``), and by hybrid's default (the learned ranker with the bridge where the index holds it), 100 deep; printed: the rank of each article a lawyer would cite (None:
not in the top 100) and each ranking's top 5. The gold is read in the articles' text (theft PK::372 and its
aggravated form PK::374, embezzlement PK::375, fraud PK::386 and computer fraud PK::386Α).

Usage (an index with vectors):
    .venv/bin/python bench/lay_cases.py [--index nomos-articles]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nomos.retrieval.ltr.model import PLAIN_MODEL
from nomos.retrieval.registry import MethodOptions, make_retriever
from nomos.settings import Settings

CASES = {
    "wallet on the bus": ("Μου έκλεψαν το πορτοφόλι μέσα στο λεωφορείο. Τι μπορώ να κάνω;", ("PK::372", "PK::374")),
    "the neighbour's TV": ("Ο γείτονας πήρε την τηλεόραση που του είχα δανείσει και δεν μου την επιστρέφει.",
                           ("PK::375", "PK::372")),
    "phishing e-mail": ("Έλαβα ένα email που έμοιαζε με της τράπεζάς μου, έβαλα τους κωδικούς μου και μου πήραν "
                        "χρήματα από τον λογαριασμό.", ("PK::386Α", "PK::386")),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index", default="nomos-articles")
    args = ap.parse_args()
    settings = Settings.from_env().with_overrides(index_alias=args.index)
    print("| case | ranking | gold article: rank in the top 100 | top 5 |")
    print("| --- | --- | --- | --- |")
    plain = f"ltr:{PLAIN_MODEL}"
    for label, options in (("fusion alone", MethodOptions(rerank="none")), ("ranker without the bridge",
                           MethodOptions(rerank=plain)), ("the default", MethodOptions())):
        retriever = make_retriever(settings, "hybrid", None, options)
        for name, (text, gold) in CASES.items():
            ids = [h.doc_id for h in retriever.search(text, 100)]
            ranks = ", ".join(f"{g} {ids.index(g) + 1 if g in ids else None}" for g in gold)
            print(f"| {name} | {label} | {ranks} | {' '.join(ids[:5])} |")


if __name__ == "__main__":
    main()
