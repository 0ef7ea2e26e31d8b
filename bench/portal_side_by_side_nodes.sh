#!/bin/bash
# The portal's pages, an older commit against this checkout, each on the node its own code starts (issue 38): the
# older commit's node config (1269281: G1, inline scripts allowed) and this checkout's (the parallel collector, stored
# scripts only) differ, so the node is restarted by each side's `cli.py server start` before its run, warmed for 8 s,
# then measured; the sides alternate. Both use the same node folder and their own index.
#   git worktree add --detach /tmp/base 1269281
#   (cd /tmp/base && NOMOS_INDEX=nomos-base ../path/to/.venv/bin/python cli.py index --dataset $DS)
#   BASE=/tmp/base BASE_INDEX=nomos-base INDEX=nomos-dense-reg bench/portal_side_by_side_nodes.sh
set -uo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY=${PY:-$HERE/.venv/bin/python}
BASE=${BASE:?the older checkout (a git worktree)}
BASE_INDEX=${BASE_INDEX:-nomos-base}
INDEX=${INDEX:-nomos-dense-reg}
for round in $(seq 1 "${ROUNDS:-2}"); do
  for side in base main; do
    if [ "$side" = base ]; then dir=$BASE; idx=$BASE_INDEX; else dir=$HERE; idx=$INDEX; fi
    (cd "$HERE" && "$PY" cli.py server stop >/dev/null 2>&1)
    (cd "$dir" && "$PY" cli.py server start 2>&1 | tail -1)
    (cd "$dir" && NOMOS_INDEX=$idx timeout 200 "$PY" bench/portal_load.py --method bm25,hybrid --connections 8 --duration 8 >/dev/null 2>&1)
    echo "== round $round $side $(cd "$dir" && git rev-parse --short HEAD) gc=$(ps aux | grep -o '[U]seParallelGC\|[U]seG1GC' | head -1) $(uptime | sed 's/.*load/load/')"
    (cd "$dir" && NOMOS_INDEX=$idx timeout 400 "$PY" bench/portal_load.py --method bm25,hybrid --connections 8 --duration 20 2>&1 | grep -E "^\| (bm25|hybrid)")
  done
done
(cd "$HERE" && "$PY" cli.py server stop >/dev/null 2>&1; "$PY" cli.py server start 2>&1 | tail -1)
