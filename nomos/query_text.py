"""A query as every path reads it (the command line, the portal's pages and API, ``nomos.Searcher``): Unicode NFC,
line ends as ``\\n``, at most :data:`MAX_QUERY_CHARS` characters (issue 50).

* **NFC.** Greek typed or pasted with decomposed accents (NFD: PDFs and some copy-paste give «κλοπή» as ο + U+0301)
  is the same text to a reader and not to the node's analyzers: BM25 found nothing and kNN unrelated articles.
  Ingest stores article text in NFC too (:func:`nomos.ingest.validate.check_text`), so both sides meet.
* **Line ends.** A browser sends a text box's line breaks as CR LF; the command line and a file give LF. A case's
  blank line and its question are read from the line breaks (:mod:`nomos.retrieval.case_reading`), so the portal
  reads a pasted case exactly as ``cli.py search`` reads it.
* **Emoji.** They carry nothing a law is found by, and BM25's tokenizer drops them, but kNN embeds them and the
  title lookup reads the query whole: «κλοπή 🤔🔥» lost PK::372 first where «κλοπή» put it there (issue 50). They are
  taken out (with the spaces around them, kept as one), so every method reads the words alone.
* **The bound.** A whole case file (a bar-exam case runs 2,000 to 9,000 characters) fits in 20,000 characters; the
  portal's box (``maxlength``), its API and the command line share this one number, and a longer query is refused
  whole, never cut (a case cut short loses its question, which comes last). A browser counts a line break as one
  character, so the bound is checked after the line ends are read.
"""

from __future__ import annotations

import re
import unicodedata

from nomos.errors import ConfigError, QueryTooLong

__all__ = ["MAX_QUERY_CHARS", "read_query"]

MAX_QUERY_CHARS = 20_000
# emoji and what composes them: pictographs, symbols and dingbats, regional indicators, skin tones, the variation
# selector and the joiner of emoji sequences, tags (not letters, digits, punctuation, §, € or °)
_EMOJI = re.compile("[ \t]*(?:[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\u231A\u231B\u23E9-\u23FA"
                    "\uFE0E\uFE0F\u200D\u20E3\U000E0020-\U000E007F])+[ \t]*")


def _greek_number(n: int) -> str:
    return f"{n:,}".replace(",", ".")


def read_query(text: str) -> str:
    """``text`` in NFC with LF line ends, without emoji, stripped; :class:`QueryTooLong` (Greek: the person who typed it reads
    it) past :data:`MAX_QUERY_CHARS`; :class:`ConfigError` for text that is not Unicode (a command-line argument
    of invalid UTF-8 arrives as lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        byte = f"byte 0x{ord(bad) - 0xDC00:02x}" if 0xDC80 <= ord(bad) <= 0xDCFF else f"U+{ord(bad):04X}"
        raise ConfigError(f"the query is not valid UTF-8 ({byte} at character {exc.start + 1})",
                          hint="give the query in UTF-8 (check the terminal's or the file's encoding)") from None
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = _EMOJI.sub(lambda m: " " if 0 < m.start() and m.end() < len(text) and text[m.start() - 1] != "\n"
                      and text[m.end()] != "\n" else "", text).strip()
    if len(text) > MAX_QUERY_CHARS:
        raise QueryTooLong(f"το κείμενο έχει {_greek_number(len(text))} χαρακτήρες και το όριο είναι "
                           f"{_greek_number(MAX_QUERY_CHARS)}: αφήστε έξω ό,τι δεν χρειάζεται για την υπόθεση "
                           "(π.χ. παραρτήματα) και κρατήστε την ερώτηση",
                           hint=f"a query is at most {MAX_QUERY_CHARS:,} characters (nomos.query_text.MAX_QUERY_CHARS)")
    return text
