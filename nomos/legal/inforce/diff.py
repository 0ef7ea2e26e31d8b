"""A word-level diff between two versions of an article: what a later law inserted and deleted, word by word.

Words are compared as a reader reads them (whitespace and the apostrophes ΄ ’ ' alike), and the diff is made of
runs: kept words, deleted words, inserted words, in the text's order (a replaced phrase is its deleted words then
its inserted ones). :func:`marked` writes it as plain text readable without colour or markup («[-τρία-] [+πέντε+]»);
the portal wraps the same runs in ``<del>``/``<ins>`` with those markers inside, so it reads alike on paper, in a
screen reader and in a terminal.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Literal

Op = Literal["equal", "insert", "delete"]
_TOKEN = re.compile(r"\S+|\s+")


@dataclass(frozen=True)
class Run:
    """Consecutive words of one kind: ``equal`` (in both), ``delete`` (only in the earlier), ``insert`` (only in the
    later); ``text`` as written in the version it comes from, its spacing kept."""

    op: Op
    text: str


def _key(token: str) -> str:
    if token.isspace():
        return "\n" if "\n" in token else " "
    return token.replace("’", "'").replace("΄", "'")


def word_diff(before: str, after: str) -> list[Run]:
    """The runs that turn ``before`` into ``after``, word by word (no junk heuristics: the texts are short and
    every word counts)."""
    a, b = _TOKEN.findall(before), _TOKEN.findall(after)
    matcher = difflib.SequenceMatcher(None, [_key(t) for t in a], [_key(t) for t in b], autojunk=False)
    runs: list[Run] = []

    def add(op: Op, tokens: list[str]) -> None:
        text = "".join(tokens)
        if not text:
            return
        if runs and runs[-1].op == op:
            runs[-1] = Run(op, runs[-1].text + text)
        else:
            runs.append(Run(op, text))

    codes = matcher.get_opcodes()
    k = 0
    while k < len(codes):
        tag, i1, i2, j1, j2 = codes[k]
        if tag == "equal":
            add("equal", b[j1:j2])
            k += 1
            continue
        # a change, and the changes after it that only a space separates: one deletion, then one insertion
        deleted, inserted = list(a[i1:i2]), list(b[j1:j2])
        k += 1
        while k + 1 < len(codes) and codes[k][0] == "equal" and codes[k][2] - codes[k][1] == 1 \
                and a[codes[k][1]].isspace() and codes[k + 1][0] != "equal":
            gap = a[codes[k][1]]
            _, n1, n2, m1, m2 = codes[k + 1]
            deleted += [gap, *a[n1:n2]] if n2 > n1 else []
            inserted += [gap, *b[m1:m2]] if m2 > m1 else []
            k += 2
        add("delete", deleted)
        add("insert", inserted)
    return runs


def marked(runs: list[Run]) -> str:
    """The diff as plain text: deletions in «[- … -]», insertions in «[+ … +]» (the markers carry the meaning
    without colour)."""
    out = []
    for r in runs:
        if r.op == "equal":
            out.append(r.text)
        else:
            body = r.text.strip()
            lead = r.text[:len(r.text) - len(r.text.lstrip())]
            trail = r.text[len(r.text.rstrip()):]
            sign = "+" if r.op == "insert" else "-"
            out.append(f"{lead}[{sign}{body}{sign}]{trail}" if body else r.text)
    return "".join(out)


def counts(runs: list[Run]) -> tuple[int, int]:
    """(words inserted, words deleted)."""
    ins = sum(len(r.text.split()) for r in runs if r.op == "insert")
    dele = sum(len(r.text.split()) for r in runs if r.op == "delete")
    return ins, dele
