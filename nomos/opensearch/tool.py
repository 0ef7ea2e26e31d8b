"""Run an installer tool (``mvn``, ``opensearch-plugin``) without a terminal and fail with the tail of its output.

Both tools print pages of progress; on failure only the last lines say why, and they belong in the error.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

TAIL_LINES = 30


def run_tool(argv: list[str], *, env: Mapping[str, str], error: type[Exception], what: str, cwd: Path | str | None = None) -> str:
    """Run ``argv`` with stdin closed; return its stdout, or raise ``error`` naming ``what`` with the output's tail."""
    proc = subprocess.run(argv, cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-TAIL_LINES:])
        raise error(f"{what} (exit {proc.returncode}):\n{tail}")
    return proc.stdout
