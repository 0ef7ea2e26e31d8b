"""Text from outside (an article of someone's corpus, a visitor's query or path, a header) made safe to print on a
terminal or write into a log line (issue 47).

An article's text may hold an escape sequence (the loader lets a body keep every character but NUL, bidi controls
and byte order marks, since statutes are pasted from everywhere): printed raw by ``cli.py search``, one set the
terminal's title. A request path, percent-decoded, put the same and right-to-left overrides into the portal's log
lines, where an override can make a line read as something else and a newline can forge a line of its own. Here
each such character becomes a visible escape (``\\x1b``, ``\\u202e``); everything else is left as it is.
"""

from __future__ import annotations

import re

# C0 and C1 controls and DEL; the bidirectional marks, embeddings, overrides and isolates; zero-width and line or
# paragraph separators; the byte order mark
UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]")


def escape_controls(text: str, keep: str = "") -> str:
    """``text`` with each control, bidi or invisible formatting character written as its escape (``\\n``,
    ``\\x1b``, ``\\u202e``), except those in ``keep`` (``"\\n\\t"`` for text that may run over several lines)."""
    def shown(match: re.Match[str]) -> str:
        ch = match.group()
        if ch in keep:
            return ch
        if ch in "\n\r\t":
            return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch]
        return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"

    return UNSAFE.sub(shown, text) if UNSAFE.search(text) else text
