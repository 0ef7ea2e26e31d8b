#!/bin/bash
# The portal's pages, an older commit against this checkout, side by side on one machine (issue 38): each side on
# the index its own `index` builds, the two run alternately so a busy moment hits both alike.
#   git worktree add --detach ../wt-base 1269281   (beside this checkout, so that its ../shared is found)
#   (cd ../wt-base && NOMOS_INDEX=nomos-base ../path/to/.venv/bin/python cli.py index --dataset $DS)
#   BASE=../wt-base BASE_INDEX=nomos-base INDEX=nomos-dense-reg ROUNDS=2 bench/portal_side_by_side.sh
# OWN_NODES=1: each side runs on the node its own code starts (1269281: G1 and inline scripts; this checkout: the
# parallel collector and stored scripts only): the node is restarted by that side's `cli.py server start` and warmed
# for WARM seconds (default 8) before its run, and this checkout's node is started again at the end. A restarted
# node's JIT compiler is still busy after a minute under load (in async-profiler, 31% and then 23% of the node's
# CPU over its second and third 20-s runs), so WARM=60 or more gives both sides' steady state.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY=${PY:-$HERE/.venv/bin/python}
BASE=${BASE:?the older checkout (a git worktree)}
BASE_INDEX=${BASE_INDEX:-nomos-base}
INDEX=${INDEX:-nomos-dense-reg}
load() { (cd "$1" && NOMOS_INDEX=$2 timeout 400 "$PY" bench/portal_load.py --method bm25,hybrid --connections 8 \
           --duration "$3" 2>&1); }
restart() { (cd "$HERE" && "$PY" cli.py server stop >/dev/null 2>&1 || true); (cd "$1" && "$PY" cli.py server start | tail -1); }
for round in $(seq 1 "${ROUNDS:-2}"); do
  for side in base main; do
    if [ "$side" = base ]; then dir=$BASE; idx=$BASE_INDEX; else dir=$HERE; idx=$INDEX; fi
    if [ -n "${OWN_NODES:-}" ]; then restart "$dir"; load "$dir" "$idx" "${WARM:-8}" >/dev/null || true; fi
    echo "== round $round $side ($(cd "$dir" && git rev-parse --short HEAD)) $(uptime | sed 's/.*load/load/')"
    load "$dir" "$idx" "${DURATION:-20}" | grep -E "^\| (bm25|hybrid)"
  done
done
if [ -n "${OWN_NODES:-}" ]; then restart "$HERE"; fi
