"""Screenshots of the portal for the docs: the search page with results and the article page, taken by headless
Chromium (Debian's) against the dev node's stand-in index.

    .venv/bin/python bench/portal_screenshot.py [--out docs]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from nomos.portal import create_app  # noqa: E402
from nomos.settings import Settings  # noqa: E402
from tests.portal_support import chromium, live_portal  # noqa: E402

CASE = "Ο Νίκος αφαίρεσε από κατάστημα ένα ρολόι για να το ιδιοποιηθεί παράνομα, χωρίς να πληρώσει"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs"))
    ap.add_argument("--article", default="PK::372")
    args = ap.parse_args()
    out = Path(args.out)
    app = create_app(Settings.from_env())
    with tempfile.TemporaryDirectory() as tmp, live_portal(app) as base, chromium(Path(tmp) / "profile", 1280, 1180) as browser:
        for _ in range(3):  # warm up, so the time shown on the page is a warm one
            browser.get(f"{base}/search?q={quote(CASE)}")
        browser.save_screenshot(str(out / "portal.png"))
        browser.get(f"{base}/articles/{quote(args.article, safe='')}?q={quote(CASE)}")
        browser.save_screenshot(str(out / "portal-article.png"))
        browser.set_window_size(390, 844)
        browser.get(f"{base}/search?q={quote(CASE)}")
        browser.save_screenshot(str(out / "portal-phone.png"))
    print(f"wrote {out / 'portal.png'}, {out / 'portal-article.png'}, {out / 'portal-phone.png'}")


if __name__ == "__main__":
    main()
