#!/bin/bash
# Issue 51: the portal's CPU per page and p95 at 8 connections, an older commit against this checkout with today's
# snippets (NOMOS_SNIPPETS=sentences) and with the new ones (NEW, default whole), on one warmed node, the sides in
# turn so a busy moment hits them alike; hybrid also with NOMOS_RERANK=none (hybrid runs the learned ranker by
# default since session 21, which the older commit did not).
#   git worktree add --detach ../wt-base 62717da; ln -s "$PWD/.venv" ../wt-base/.venv
#   (cd ../wt-base && NOMOS_INDEX=nomos-base .venv/bin/python cli.py index --dataset $DS)
#   BASE=../wt-base BASE_INDEX=nomos-base INDEX=nomos-articles ROUNDS=2 WARM=60 bench/snippets_side_by_side.sh
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
PY=${PY:-$HERE/.venv/bin/python}
BASE=${BASE:?the older checkout (a git worktree)}
BASE_INDEX=${BASE_INDEX:-nomos-base}
INDEX=${INDEX:-nomos-articles}
NEW=${NEW:-whole}
load() {  # dir index methods duration [env...]
  local dir=$1 idx=$2 methods=$3 duration=$4; shift 4
  (cd "$dir" && env NOMOS_INDEX="$idx" "$@" timeout 400 "$PY" bench/portal_load.py --method "$methods" \
     --connections 8 --duration "$duration" 2>&1)
}
echo "== warm-up ($(uptime | sed 's/.*load/load/'))"
load "$BASE" "$BASE_INDEX" bm25,hybrid "${WARM:-60}" >/dev/null || true
load "$HERE" "$INDEX" bm25,hybrid "${WARM:-60}" >/dev/null || true
for round in $(seq 1 "${ROUNDS:-2}"); do
  for side in base sentences "$NEW" sentences-norerank "$NEW-norerank"; do
    case $side in
      base) dir=$BASE; idx=$BASE_INDEX; methods=bm25,hybrid; envs=() ;;
      *-norerank) dir=$HERE; idx=$INDEX; methods=hybrid; envs=(NOMOS_SNIPPETS="${side%-norerank}" NOMOS_RERANK=none) ;;
      *) dir=$HERE; idx=$INDEX; methods=bm25,hybrid; envs=(NOMOS_SNIPPETS="$side") ;;
    esac
    echo "== round $round $side ($(cd "$dir" && git rev-parse --short HEAD)) $(uptime | sed 's/.*load/load/')"
    load "$dir" "$idx" "$methods" "${DURATION:-20}" "${envs[@]}" | grep -E "^\| (bm25|hybrid)" || true
  done
done
