"""Screenshots of the portal for the docs: the search page with results (legal-area and source facets, citations)
the article page (the case's terms highlighted, scrolled to the first one), the judged queries' page (after
three grades sent through the API as user "vivliothiki") and an amended article's two texts (``--in-force``: its
text in force, the default, and its original, ``?text=original``), taken by headless Chromium
(Debian's, as the browser test drives it) against a node's stand-in index.

    .venv/bin/python bench/portal_screenshot.py [--out docs]                 # the index behind NOMOS_INDEX_ALIAS
    NOMOS_NODE_NAME=shots NOMOS_TRANSPORT_PORT=9380 .venv/bin/python cli.py --port 9280 server start   # or a node of its own …
    .venv/bin/python bench/portal_screenshot.py --port 9280 --dataset ../shared/data/greek-statutes   # … indexed here

``--dataset`` indexes that BEIR folder behind ``--alias`` first (idempotent: an unchanged index is reused).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import urllib.request
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nomos.opensearch.judgments_store import query_id  # noqa: E402
from nomos.portal import create_app  # noqa: E402
from nomos.settings import Settings  # noqa: E402
from tests.portal_support import chromium, live_portal  # noqa: E402

CASE = "Ο Νίκος αφαίρεσε από κατάστημα ένα ρολόι για να το ιδιοποιηθεί παράνομα, χωρίς να πληρώσει"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs"))
    ap.add_argument("--article", default="PK::372")
    ap.add_argument("--in-force", default="PK::372", help="an amended article, for portal-in-force.png and "
                    "portal-in-force-original.png (an index built with consolidation); '' : none")
    ap.add_argument("--only-in-force", action="store_true", help="only the amended article's two screenshots")
    ap.add_argument("--port", type=int, default=None, help="the OpenSearch node's port (default: the settings')")
    ap.add_argument("--dataset", default=None, help="a BEIR folder to index behind --alias first")
    ap.add_argument("--alias", default=None, help="the index alias (default: NOMOS_INDEX_ALIAS)")
    args = ap.parse_args()
    out = Path(args.out)
    settings = Settings.from_env().with_overrides(http_port=args.port, index_alias=args.alias)
    if args.dataset:
        from nomos.ingest.loader import load_dataset
        from nomos.stages.indexing import index_dataset

        report = index_dataset(settings, load_dataset(args.dataset))
        print(f"{report.alias} -> {report.index}: {report.documents} articles ({report.sent} sent)")
    app = create_app(settings)
    with tempfile.TemporaryDirectory() as tmp, live_portal(app) as base, chromium(Path(tmp) / "profile", 1280, 1180) as browser:
        if args.in_force:
            shots = in_force_shots(browser, base, args.in_force, out)
            print("wrote " + ", ".join(map(str, shots)))
        if args.only_in_force:
            return
        for _ in range(3):  # warm up, so the time shown on the page is a warm one
            browser.get(f"{base}/search?q={quote(CASE)}")
        browser.save_screenshot(str(out / "portal.png"))
        # the article as a result links to it: with the case, landing on the first highlighted passage
        browser.get(f"{base}/articles/{quote(args.article, safe='')}?q={quote(CASE)}#match")
        browser.save_screenshot(str(out / "portal-article.png"))
        # a reader's grades of this case's results, then the judged queries' page (its detail view)
        for article, grade, note in ((args.article, 2, "Η βασική διάταξη για την κλοπή."), ("PK::375", 1, "Μόνο αν υπήρχε εμπιστοσύνη."),
                                     ("PK::189", 0, "")):
            body = json.dumps({"query": CASE, "article_id": article, "grade": grade, "note": note or None,
                               "user": "vivliothiki", "method": "bm25"}).encode()
            req = urllib.request.Request(f"{base}/api/judgments", data=body, headers={"Content-Type": "application/json"})
            urllib.request.urlopen(req, timeout=30).read()
        browser.get(f"{base}/judgments?query_id={query_id(CASE)}")
        browser.save_screenshot(str(out / "portal-judgments.png"))
        browser.set_window_size(390, 844)
        browser.get(f"{base}/search?q={quote(CASE)}")
        browser.save_screenshot(str(out / "portal-phone.png"))
    print(f"wrote {out / 'portal.png'}, {out / 'portal-article.png'}, {out / 'portal-judgments.png'}, {out / 'portal-phone.png'}")


def in_force_shots(browser, base: str, article: str, out: Path) -> list[Path]:  # a selenium driver
    """The amended article's page as it opens (its text in force) and after one click on «Αρχικό κείμενο»."""
    from selenium.webdriver.common.by import By

    browser.get(f"{base}/articles/{quote(article, safe='')}")
    if not browser.find_elements(By.ID, "in-force-text"):
        raise SystemExit(f"{article} has no text in force in this index (built before consolidation, or not amended)")
    shots = [out / "portal-in-force.png", out / "portal-in-force-original.png"]
    browser.save_screenshot(str(shots[0]))
    browser.find_element(By.ID, "show-original").click()
    browser.find_element(By.ID, "show-in-force")  # the original's page, with the way back
    browser.save_screenshot(str(shots[1]))
    return shots


if __name__ == "__main__":
    main()
