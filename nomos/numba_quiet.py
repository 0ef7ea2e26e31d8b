"""Keep one known, harmless Numba warning away from the user.

ranx's metrics are Numba-compiled; compiling them (the first run on a machine, or after Numba's cache is cleared)
emits ``NumbaTypeSafetyWarning: unsafe cast from uint64 to int64`` from inside ranx (array lengths, never near
2**63). It says nothing about this project's numbers, and it lands in the middle of the CLI's output, so the modules
that import ranx call :func:`ignore_unsafe_cast_warning` first. The filter names that category and that message
only: every other Numba warning, and that message with any other category, still shows.
"""

from __future__ import annotations

import warnings

UNSAFE_CAST_MESSAGE = r"unsafe cast from uint64 to int64"


def ignore_unsafe_cast_warning() -> None:
    """Install the narrow filter (idempotent: ``warnings`` replaces an identical filter instead of adding one)."""
    from numba.core.errors import NumbaTypeSafetyWarning

    warnings.filterwarnings("ignore", message=UNSAFE_CAST_MESSAGE, category=NumbaTypeSafetyWarning)
