"""Screenshots of the legal graph in the portal for the docs: an amended article's original (the warning, «Τροποποιήσεις»,
«Αναφέρεται από»), an article whose text cites others (the references as links, «Παραπέμπει σε») and a law's
table of contents, taken by headless Chromium (Debian's, as the browser test drives it) against an index built
with the graph's fields (the stand-in corpus indexed by this version).

    .venv/bin/python bench/graph_screenshot.py --port 9340 [--amended PK::372] [--citing PK::49] [--law PK] [--out docs]
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs"))
    ap.add_argument("--amended", default="PK::372")
    ap.add_argument("--citing", default="PK::49")
    ap.add_argument("--law", default="PK")
    ap.add_argument("--port", type=int, default=None, help="the OpenSearch node's port (default: the settings')")
    ap.add_argument("--alias", default=None, help="the index alias (default: NOMOS_INDEX)")
    args = ap.parse_args()
    out = Path(args.out)
    settings = Settings.from_env().with_overrides(http_port=args.port, index_alias=args.alias)
    # the warning is on the amended article's original (its page opens on the text in force: portal_screenshot.py)
    shots = {"portal-amended.png": f"/articles/{quote(args.amended, safe='')}?text=original",
             "portal-references.png": f"/articles/{quote(args.citing, safe='')}",
             "portal-law.png": f"/laws/{quote(args.law, safe='')}"}
    with tempfile.TemporaryDirectory() as tmp, live_portal(create_app(settings)) as base, \
            chromium(Path(tmp) / "profile", 1280, 1180) as browser:
        for name, path in shots.items():
            browser.get(base + path)
            browser.save_screenshot(str(out / name))
    print("wrote " + ", ".join(str(out / n) for n in shots))


if __name__ == "__main__":
    main()
