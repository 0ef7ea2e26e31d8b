#!/bin/bash
# The portal's pages, an older commit against this checkout, side by side on one machine (issue 38): each side on
# the index its own `index` builds, the two run alternately so a busy moment hits both alike.
#   git worktree add --detach /tmp/base 1269281
#   (cd /tmp/base && NOMOS_INDEX=nomos-base ../path/to/.venv/bin/python cli.py index --dataset $DS)
#   BASE=/tmp/base BASE_INDEX=nomos-base INDEX=nomos-dense-reg ROUNDS=2 bench/portal_side_by_side.sh
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY=${PY:-$HERE/.venv/bin/python}
BASE=${BASE:?the older checkout (a git worktree)}
BASE_INDEX=${BASE_INDEX:-nomos-base}
INDEX=${INDEX:-nomos-dense-reg}
for round in $(seq 1 "${ROUNDS:-2}"); do
  for side in base main; do
    if [ "$side" = base ]; then dir=$BASE; idx=$BASE_INDEX; else dir=$HERE; idx=$INDEX; fi
    echo "== round $round $side ($(cd "$dir" && git rev-parse --short HEAD)) $(uptime | sed 's/.*load/load/')"
    (cd "$dir" && NOMOS_INDEX=$idx timeout 400 "$PY" bench/portal_load.py --method bm25,hybrid --connections 8 \
       --duration "${DURATION:-20}" 2>&1 | grep -E "^\| (bm25|hybrid)")
  done
done
