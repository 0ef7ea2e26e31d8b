"""Whether two checkouts rank the dev queries identically with the learned ranker: ids, scores and feature matrices.

A change to how the ranker's requests are sent and read (issue 46's cost work) must not move a single ranking. This
runs hybrid + ltr (the shipped model, k = 100) over every dev query (bench/dev_sets.py) with this checkout's code
and, in a child process, with ``--before``'s (a worktree of main, say), on the same index, and compares for each
query the ranked ids, the model's scores to the last bit and a digest of the feature matrix the model read. Prints
how many queries agree and the first differences; exits 1 if any query differs.

Usage (an index with vectors and the dense bridge):
    .venv/bin/python bench/ltr_same.py --index nomos-articles --before /work/wt-main [--queries 0]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent


def rankings(code: Path, dataset: Path, index: str, queries: int) -> dict[str, Any]:
    """Each dev query's top 100 by hybrid + ltr with ``code``'s nomos: [[id, score as hex], ...] and the sha256 of
    the float32 matrix each pool's model read."""
    sys.path.insert(0, str(code))
    from bench.dev_sets import dev_sets
    from nomos.opensearch.transport import make_transport
    from nomos.retrieval.ltr import model as model_module
    from nomos.retrieval.registry import MethodOptions, make_retriever
    from nomos.settings import Settings

    assert Path(model_module.__file__).resolve().is_relative_to(code.resolve()), model_module.__file__
    digests: list[str] = []
    score = model_module.RankerModel.score

    def digest_and_score(self: Any, matrix: Any) -> Any:
        digests.append(hashlib.sha256(matrix.tobytes()).hexdigest() + f":{matrix.shape}:{matrix.dtype}")
        return score(self, matrix)

    model_module.RankerModel.score = digest_and_score  # type: ignore[method-assign]
    settings = Settings.from_env().with_overrides(index_alias=index)
    ranked = make_retriever(settings, "hybrid", make_transport(settings.cluster), MethodOptions(rerank="ltr"))
    texts = dev_sets(dataset).texts
    ids = sorted(texts)
    if queries:
        ids = ids[:: max(1, len(ids) // queries)][:queries]
    out: dict[str, Any] = {}
    for q in ids:
        digests.clear()
        hits = ranked.search(texts[q], 100)
        out[q] = {"hits": [[h.doc_id, float(h.score).hex()] for h in hits], "matrices": list(digests)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="../shared/data/greek-statutes")
    ap.add_argument("--index", default="nomos-articles")
    ap.add_argument("--before", type=Path, help="the other checkout (its nomos ranks in a child process)")
    ap.add_argument("--queries", type=int, default=0, help="an even spread of this many dev queries (0: all)")
    ap.add_argument("--code", type=Path, default=HERE, help=argparse.SUPPRESS)  # the child's checkout
    ap.add_argument("--dump", type=Path, help=argparse.SUPPRESS)  # where the child writes its rankings
    args = ap.parse_args()
    dataset = Path(args.dataset).resolve()
    if args.dump:
        args.dump.write_text(json.dumps(rankings(args.code, dataset, args.index, args.queries)), encoding="utf-8")
        return
    if args.before is None:
        ap.error("--before: the checkout to compare with")
    dump = Path(f"/tmp/ltr_same_{args.before.name}.json")
    subprocess.run([sys.executable, __file__, "--code", str(args.before), "--dump", str(dump), "--dataset",
                    str(dataset), "--index", args.index, "--queries", str(args.queries)], check=True)
    before = json.loads(dump.read_text(encoding="utf-8"))
    after = rankings(HERE, dataset, args.index, args.queries)
    differ = [q for q in after if after[q] != before.get(q)]
    print(f"command: {' '.join(sys.argv)}\n")
    print(f"{len(after) - len(differ)} of {len(after)} dev queries ranked identically (ids, scores to the bit, "
          f"feature matrices) by {HERE} and {args.before}")
    for q in differ[:5]:
        a, b = after[q], before.get(q, {})
        moved = [i for i, (x, y) in enumerate(zip(a["hits"], b.get("hits", []), strict=False)) if x != y]
        print(f"  {q}: first difference at rank {moved[0] + 1 if moved else '-'}; matrices "
              f"{'equal' if a['matrices'] == b.get('matrices') else 'differ'}")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
