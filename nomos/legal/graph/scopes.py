"""What an article's own layout says about the references in it, beside the clause each one stands in (v15): the
act its title names as the one it amends, whose articles its bare amended articles are, and the tables (of
correspondence, of contents) whose rows are article numbers rather than references.

An amending article names the act it amends once: in its opening sentence («Το π.δ. 54/2018 τροποποιείται ως
εξής:», read as a list by ``nomos.legal.graph.clauses.lists_of``), in the clause that opens an item («1. Στο
άρθρο 95 του ν. 4070/2012 (Α’ 82),», a list too), or only in its title («Τροποποίηση του άρθρου 96 του ν.
4412/2016», then «Οι παρ. 1 και 2 τροποποιούνται … και το άρθρο 96 διαμορφώνεται ως εξής»). The title is read here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nomos.legal.graph.vocabulary import TABLE_END, TABLE_HEADING, TITLE_CHANGE, VERBS
from nomos.legal.text.citations import find_citations, sources_in
from nomos.legal.text.folding import fold

TITLE_TAIL_REACH = 300  # the corpus splits some titles, the rest opening the text («οδήγησης … - Τροποποίηση του …»)


@dataclass(frozen=True)
class TitleScope:
    """The acts a title names after a noun of change, other than the citing law (``sources``, in reading order), and
    the act it names each article number with (``articles``: «Τροποποίηση των άρθρων 14, 15 … του ν. 4692/2020»)."""

    sources: tuple[str, ...]
    articles: Mapping[str, str]

    def source_for(self, article: str) -> str | None:
        """The act an article amended in the text without a law of its own belongs to: the one the title names it
        with, else the only act the title names; None where the title names several and not this article (no edge
        then, rather than a guess)."""
        if article in self.articles:
            return self.articles[article]
        return self.sources[0] if len(self.sources) == 1 else None


def title_text(title: str, text: str) -> str:
    """The article's title, with its tail where the corpus left that at the start of the text (a text that opens
    in lower case or with a number continues the title: «οδήγησης Ε.Δ.Χ. αυτοκινήτου - Τροποποίηση του άρθρου 95
    του ν. 4070/2012 / 1. Στο άρθρο 95 …»), up to the end of its line or its first amendment verb (a title has
    nouns, the body verbs)."""
    head = text.lstrip()[:1]
    if not head or not (head.islower() or head.isdigit()):
        return title
    tail = text[:TITLE_TAIL_REACH]
    line = tail.find("\n")
    tail = tail if line < 0 else tail[:line]
    verb = VERBS.search(fold(tail))
    return f"{title} {tail[:verb.start()] if verb else tail}"


def title_scope(title: str, own_source: str) -> TitleScope | None:
    """What ``title`` (see :func:`title_text`) says about the act the article amends, or None where it names none
    after a noun of change."""
    folded = fold(title)
    change = TITLE_CHANGE.search(folded)
    if not change:
        return None
    named = [s for s, *_ in sources_in(folded, change.start(), len(folded)) if s != own_source]
    if not named:
        return None
    articles = {c.article: c.source for c in find_citations(title[change.start():])
                if c.source in named}
    return TitleScope(tuple(dict.fromkeys(named)), articles)


def table_spans(text: str, quotes: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Where the article's tables of correspondence or of contents are (outside quoted new wording): from the
    heading to the law's closing formula («Παραγγέλλομε τη δημοσίευση …») or the end of the text."""
    spans: list[tuple[int, int]] = []
    for m in TABLE_HEADING.finditer(text):
        if any(a <= m.start() < b for a, b in quotes) or any(a <= m.start() < b for a, b in spans):
            continue
        end = TABLE_END.search(text, m.end())
        spans.append((m.start(), end.start() if end else len(text)))
    return spans
