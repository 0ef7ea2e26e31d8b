"""An Act of Legislative Content (Πράξη Νομοθετικού Περιεχομένου) quoted whole inside the article that ratifies it:
its own amending instructions, read as the amending article's.

The corpus files a ratification as one article of the ratifying law («Κυρώνεται … η από 13.8.2021 Πράξη
Νομοθετικού Περιεχομένου … και έχει ως εξής: «ΠΡΑΞΗ ΝΟΜΟΘΕΤΙΚΟΥ ΠΕΡΙΕΧΟΜΕΝΟΥ … Άρθρο εικοστό πρώτο … 1. Στην
παρ. 1 του άρθρου 14 του ν. 4797/2021 … διαμορφώνεται ως εξής: «…»»»). Everything after «έχει ως εξής» is quoted,
so the legal graph (which reads no instruction inside a quotation: it is new wording) gives the act's own
instructions no edge, and the engine reads none: an outside audit found ν. 4797/2021 art. 14 never amended and its
art. 24 without the paragraph 8 the act adds (ν. 4824/2021 art. 2). Here the act's text is read as an amending
article of its own (the ratifying article's id and law, which order it), its references extracted by the graph's
own extractor, and its amendment edges to corpus articles of other laws kept (an edge into the ratifying law is a
bare number of the act's own articles, resolved to the wrong law).

Later laws that amend the act through its ratification («το άρθρο εικοστό της από 13.8.2021 ΠΝΠ, η οποία
κυρώθηκε με το άρθρο 2 του ν. 4824/2021, αντικαθίσταται ως εξής»): the act's articles are no corpus articles of
their own, so engine v6 reads them as places inside the ratifying article's text in force
(:mod:`nomos.legal.inforce.acts`, through :func:`nomos.ingest.in_force.through_ratifications`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from nomos.ingest.graph import CorpusReading
from nomos.ingest.records import Article
from nomos.legal.inforce.engine import AMENDMENT_KINDS, Amending
from nomos.legal.text.article_parts import quote_spans

_RATIFIES = re.compile(r"^\s*Κύρωση\s+(?:της\s+)?(?:από\s+[\d.]+\s+)?Πράξ\w*\s+Νομοθετικού\s+Περιεχομένου")
_AS_FOLLOWS = re.compile(r"(?:και\s+)?έχει\s+ως\s+εξής\s*:\s*(?=«)")


def quoted_act(article: Article) -> str | None:
    """The act's text quoted whole in ``article`` when it ratifies an Act of Legislative Content, else None."""
    if not _RATIFIES.search(article.title):
        return None
    m = _AS_FOLLOWS.search(article.text, 0, 4000)
    if m is None:
        return None
    span = next((s for s in quote_spans(article.text) if s[0] == m.end()), None)
    if span is None:
        return None
    a, b = span
    return article.text[a + 1:b - 1 if article.text[b - 1] == "»" else b]


def ratification(article: Article) -> str:
    """The ratifying sentence («Κυρώνεται και έχει ισχύ νόμου … η από 13.8.2021 Πράξη Νομοθετικού Περιεχομένου …,
    που δημοσιεύθηκε στο … Φύλλο …»), what a version made by the act says of when it applies (the act was in force
    from its own publication; the ratifying law's commencement is the ratification's); "" if it is no ratification."""
    if quoted_act(article) is None:
        return ""
    m = _AS_FOLLOWS.search(article.text, 0, 4000)
    return " ".join(article.text[:m.start() if m else 0].split()).rstrip(" ,")[:600]


def ratified_acts(articles: Sequence[Article], reading: CorpusReading) -> dict[str, list[Amending]]:
    """Corpus article id -> the ratified acts that amend it (each an :class:`Amending` whose text is the act's, the
    ratifying article's id and law)."""
    out: dict[str, list[Amending]] = defaultdict(list)
    for article in articles:
        act = quoted_act(article)
        if act is None:
            continue
        pseudo = Article(article.id, "", act, article.source, article.law, article.area)
        own = f"{article.source}::"
        refs = [r for r in reading.references(pseudo)
                if r.target and r.kind in AMENDMENT_KINDS and not r.target.startswith(own)]
        if not refs:
            continue
        amending = Amending(article.id, act, [r.as_dict() for r in refs], article.source, article.law)
        for target in sorted({r.target for r in refs if r.target}):
            out[target].append(amending)
    return dict(out)
