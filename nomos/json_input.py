"""One JSON value read from a person's file, every failure of the parser turned into a located :class:`DataError`.

``json.loads`` does not fail only with ``JSONDecodeError``: a line nested a few thousand levels deep ends in a
``RecursionError`` (the C scanner recurses once per level), an integer of more digits than Python converts
(``sys.get_int_max_str_digits()``, 4,300 by default) in a ``ValueError``, a huge line in a ``MemoryError``. Each
reached the user as a long traceback naming neither file nor line. Here each becomes one sentence starting with
``where`` (``corpus.jsonl:12``), of the caller's error class, so a lawyer fixing their corpus is told which line.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

from nomos.errors import DataError, NomosError


def located(where: str, reason: str) -> NomosError:
    """The default error: a DataError reading ``<where>: <reason>``."""
    return DataError(f"{where}: {reason}")


def parse_json(text: str, where: str, error: Callable[[str, str], Exception] = located) -> object:
    """``text`` parsed as JSON; any failure of the parser is ``error(where, why)`` (a DatasetError takes exactly
    these two), never a traceback."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        at = f"line {exc.lineno}, column {exc.colno}" if exc.lineno > 1 else f"column {exc.colno}"
        raise error(where, f"malformed JSON ({exc.msg} at {at})") from None
    except RecursionError:
        raise error(where, f"malformed JSON (nested deeper than the reader allows, {nesting_depth(text):,} "
                    "levels of [ or {): a record is one object of plain fields") from None
    except MemoryError:
        raise error(where, f"the line ({len(text):,} characters) is too large to read") from None
    except ValueError as exc:  # int("1" * 5000): the integer-conversion limit, or another refusal of the parser
        if "digits" in str(exc):
            limit = getattr(sys, "get_int_max_str_digits", lambda: 4300)()  # 3.10.7+; 4,300 is its default
            reason = f"a number of more than {limit:,} digits (write it as a string if it is an id)"
        else:
            reason = str(exc)[:200]
        raise error(where, f"malformed JSON ({reason})") from None
    except Exception as exc:  # anything else the parser raises is still this line's fault
        raise error(where, f"malformed JSON ({type(exc).__name__}: {str(exc)[:200]})") from None


def nesting_depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` outside strings (for the message; computed only on failure)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest
