"""Provenance for every results file: what data, which analyzer, which BM25, which server, which code."""

from __future__ import annotations

import platform
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping

from nomos import __version__

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent  # the checkout holding nomos/ (no git there: commit None)


def code_commit(root: Path = PROJECT_ROOT) -> dict[str, Any]:
    """The git commit of the code that produced a result, and whether the tree had uncommitted changes."""
    try:
        sha = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None, "version": __version__}
    if sha.returncode != 0:
        return {"commit": None, "dirty": None, "version": __version__}
    return {"commit": sha.stdout.strip(), "dirty": bool(dirty.stdout.strip()), "version": __version__}


def build_manifest(
    *,
    dataset: Mapping[str, Any],
    method: Mapping[str, Any],
    index: Mapping[str, Any],
    opensearch_version: str,
    metrics: Mapping[str, float],
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One JSON-able record of how a run was produced (the issue's provenance list, plus environment)."""
    return {
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "dataset": dict(dataset),
        "method": dict(method),
        "index": dict(index),
        "opensearch_version": opensearch_version,
        "code": code_commit(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "command": " ".join(sys.argv),
        "metrics": dict(metrics),
        **(dict(extra) if extra else {}),
    }
