"""Issue 51: a copy of the live index whose ``text`` and ``in_force_text`` keep term vectors with positions and
offsets, for the fast vector highlighter (``bench/page_cost.py --index <copy> --variants full,hl_fvh``), and what
that costs on disk (the index's growth, merged into one segment as ``cli.py index`` leaves an index).

The copy takes the live index's settings (the analysis) and mapping, adds ``term_vector: with_positions_offsets``
to the two fields, copies the articles (scroll and bulk) (vectors included: they are in ``_source``) and merges the copy into
one segment; it prints both indices' store size and segment count. ``--delete`` removes the copy afterwards.

    .venv/bin/python bench/snippet_index.py [--index <live alias>] [--copy nomos-tv] [--no-tv] [--delete]

The growth is the term-vector copy's size over a ``--no-tv`` copy's, both made the same way.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from opensearchpy import helpers  # noqa: E402

from nomos.opensearch.client import make_client  # noqa: E402
from nomos.settings import Settings  # noqa: E402

TV_FIELDS = ("text", "in_force_text")
SETTINGS_KEPT = ("analysis", "similarity", "knn", "number_of_shards", "number_of_replicas")


def size_of(client: object, index: str) -> tuple[int, int]:
    """(primary store bytes, segments) of ``index``."""
    stats = client.indices.stats(index=index, metric="store,segments")  # type: ignore[attr-defined]
    prim = stats["indices"][index]["primaries"]
    return int(prim["store"]["size_in_bytes"]), int(prim["segments"]["count"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index", default=None, help="the live index or alias (default: the settings' alias)")
    ap.add_argument("--copy", default="nomos-tv", help="the copy's name")
    ap.add_argument("--delete", action="store_true", help="delete the copy and stop")
    ap.add_argument("--no-tv", action="store_true", help="a copy without term vectors: the growth's baseline (the live "
                    "index keeps vectors out of _source, so a copy made from _source differs from it in more)")
    args = ap.parse_args()
    settings = Settings.from_env()
    client = make_client(settings.cluster)
    if args.delete:
        client.indices.delete(index=args.copy, ignore_unavailable=True)
        print(f"deleted {args.copy}")
        return
    alias = args.index or settings.index_alias
    live = next(iter(client.indices.get(index=alias)))
    got = client.indices.get(index=live)[live]
    index_settings = {k: v for k, v in got["settings"]["index"].items() if k in SETTINGS_KEPT}
    mappings = got["mappings"]
    for f in TV_FIELDS:
        if f not in mappings["properties"]:
            raise SystemExit(f"{live}: no field {f} in its mapping")
        if not args.no_tv:
            mappings["properties"][f]["term_vector"] = "with_positions_offsets"
    client.indices.create(index=args.copy, body={"settings": {"index": index_settings}, "mappings": mappings})
    # the node's distribution carries no reindex module: scroll and bulk from here
    helpers.reindex(client, live, args.copy, chunk_size=200, bulk_kwargs={"request_timeout": 600})
    client.indices.refresh(index=args.copy)
    client.indices.forcemerge(index=args.copy, params={"max_num_segments": "1", "request_timeout": 3600})
    client.indices.refresh(index=args.copy)
    (a, sa), (b, sb) = size_of(client, live), size_of(client, args.copy)
    print(f"{live}: {a / 2**20:.1f} MiB in {sa} segment(s)")
    what = "no term vectors" if args.no_tv else f"term vectors with positions and offsets on {', '.join(TV_FIELDS)}"
    print(f"{args.copy} ({what}): {b / 2**20:.1f} MiB in "
          f"{sb} segment(s), x{b / a:.2f}")


if __name__ == "__main__":
    main()
