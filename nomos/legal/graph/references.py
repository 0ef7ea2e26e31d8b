"""The legal graph's edges read from statute text: which articles an article cites, and which it amends.

Built on the query-side reading (:mod:`nomos.legal.text`: ``fold``, ``find_citations``, ``IdResolver``)
so a citation typed into the search box and one written inside a statute are read by the same rules. What this
module adds is what only statute text has:

* the citing law as the default source: a bare «άρθρο 5», «του παρόντος», «του νόμου αυτού» is the citing
  article's own law, while «άρθρο 5 του Κανονισμού (ΕΕ) 2016/679» or «της Οδηγίας …» (a source the resolver does
  not know) is no edge at all, rather than a wrong one into the own law;
* a paragraph written before the article («η παρ. 1 του άρθρου 372 ΠΚ»), and «του προηγούμενου/επόμενου άρθρου»;
* amendment verbs typing the edge: «τροποποιείται» / «διαμορφώνεται ως εξής» → amends, «αντικαθίσταται» →
  replaces, «προστίθεται» / «παρεμβάλλεται» → inserts, «καταργείται» / «απαλείφεται» → repeals;
* text quoted in «…» is the new wording an amendment puts into another law: its references are that law's (a bare
  «άρθρο 263» inside it is the amended law's article 263, not the amending law's), so they give the amending
  article no edges; the amended article itself is the amendment edge;
* in an amending article a bare «το άρθρο 15» after «Στο άρθρο 15 του ν. 4786/2021» (same paragraph) is that law's
  article 15, and a list a colon opens («καταργούνται οι ακόλουθες διατάξεις του ν. 4070/2012:») carries its verb
  and its law;
* precision first: a bare article in a sentence that names another law could be either's, and gives no edge,
  unless syntax decides: every other law comes after it and a verb of the sentence's own stands between them
  («… της Επιτροπής του άρθρου 13, να χορηγείται … κατά παρέκκλιση του άρθρου 21 του ν. 4354/2015»); a
  reference that qualifies a noun other than a provision («της απόφασης της παρ. 4 του άρθρου 79, καταργείται
  …») is cited whatever verb follows; articles numbered in words («του άρθρου τριακοστού δεύτερου του ν.
  4771/2021») are read with their law; «και η παρ. 4 διαμορφώνεται» is paragraph 4 of the article amended before
  at that paragraph; a verb that opens a clause types the subjects listed after it («καταργούνται …, καθώς και τα
  άρθρα 19 έως και 74 του ν. 3463/2006»); a heading («Άρθρο 59 Διαδικαστικοί κανόνες»), a clause of a numbered
  document («άρθρο 28.10») or a numbered item («στοιχείο με αρ. 11») gives none either;

What each version since 15 added is listed with :data:`~nomos.legal.graph.edges.REFERENCES_VERSION`.

Precision and recall are measured on hand-checked samples (tests/fixtures/graph/, bench/graph_quality.py,
docs/benchmarks.md "The legal graph's extractor"): version 13 scored a held-out precision of 0.956 (153/160) and a
recall of 77/82 per distinct reference (84/89 per cited article); version 15, written after those batches were
judged, scores 154/159 and 78/82 on them, and its own blind batches are drawn by bench/graph_batches.py
(bench/data/graph-judging/). Where lawyers meet the graph, the amendment edges that land on a corpus article
(bench/amendment_warnings.py), version 14 pointed 63 of 864 into the amending article's own law, version 15 1 of
808 (on corpus-large, written on nothing of it: 132 of 4,272, then 14 of 4,175). What each version changed and scored: docs/history/reference-extractor.md.

This module walks an article's text (candidates, their sources, groups, kinds); the words it reads with are
:mod:`.vocabulary`'s, the clause around a reference (bounds, verbs, lists) is read by :mod:`.clauses`, the law of an
article cited without one by :mod:`.sources` (and :mod:`.openings`), what a title or a table says by :mod:`.scopes`,
and the paragraphs an amendment names after its article by :mod:`.follow_ups`. The edge itself, the fields ingest
stores and the extractor's version are :mod:`.edges`'.

Every :class:`Reference` carries its span in the text (the portal links it) and ``cited`` as read, even when the
target is not in the corpus (``target`` is then "").
"""

from __future__ import annotations

import dataclasses
import re

from nomos.legal.graph.clauses import (
    amendment_kind,
    groups_of,
    item_paragraphs,
    later_kinds,
    lists_of,
    opens_with_title_tail,
)
from nomos.legal.graph.edges import Reference
from nomos.legal.graph.follow_ups import paragraph_before, with_follow_ups, with_items
from nomos.legal.graph.openings import changed_in_run
from nomos.legal.graph.scopes import TitleScope, table_spans, title_scope, title_text
from nomos.legal.graph.sources import ArticleText, Surroundings, is_foreign, names_foreign_act, said_own, source_of_bare
from nomos.legal.graph.vocabulary import (
    AMENDMENT_KINDS,
    AS_IT_WAS,
    CITED_BY_WORDS,
    CONTRARY_TO,
    DECIMAL,
    DECIMAL_DOCUMENT,
    DECIMAL_MORE,
    DECIMAL_TAIL,
    DECISION,
    DECISION_BEFORE,
    DESIGNATOR_BEFORE,
    FOREIGN_LIST,
    HEADING,
    INNER,
    INSERTED_NEXT_TO,
    INSIDE_BEFORE,
    ITEM_NUMBER_BEFORE,
    MODIFIES_NOUN,
    NEIGHBOUR,
    NEXT_PARAGRAPH,
    NOT_ARTICLE,
    NUMBER_OF_ACT,
    ORDINAL,
    ORDINAL_BEFORE,
    SELF,
    SPACED_SUFFIX,
    SUFFIX_ENDS,
    TITLE_NOUN_BEFORE,
    TITLE_NOUN_KINDS,
    ordinal_value,
)
from nomos.legal.text.article_parts import inside
from nomos.legal.text.article_parts import told_quote_spans as quoted_spans
from nomos.legal.text.citations import Citation, code_of, find_citations, source_at, sources_in
from nomos.legal.text.folding import fold
from nomos.legal.text.ids import IdResolver


def _masked(folded: str, quotes: list[tuple[int, int]]) -> str:
    """``folded`` with quoted text blanked (same length): a verb inside new wording or a quoted phrase types
    nothing, and a short quoted phrase («κάθε κάτοχο») does not end the clause around it."""
    chars = list(folded)
    for a, b in quotes:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


def _number_offset(article: str, delta: int) -> str | None:
    """The article ``delta`` places away: «του προηγούμενου άρθρου» in 208Α is 208 (in 208Β, 208Α); the one after
    a lettered article is not known from its number (208Β or 209), so none."""
    m = re.fullmatch(r"(\d+)([Α-Ω]?)", article)
    if not m:
        return None
    number, letter = int(m.group(1)), m.group(2)
    if letter:
        return (str(number) + ("" if letter == "Α" else chr(ord(letter) - 1))) if delta == -1 else None
    return str(number + delta) if number + delta > 0 else None


def extract_references(article_id: str, text: str, resolver: IdResolver, own_source: str,
                       title: str = "") -> list[Reference]:
    """Every reference of the article ``article_id`` (whose law is ``own_source``, whose title is ``title``), in
    reading order.

    One :class:`Reference` per cited article (a list or range gives one each); references inside quoted new
    wording are left out, as are references to the article itself, to sources the resolver cannot name, and the
    rows of a table of correspondence or of contents. An article amended in the text with no law of its own, in an
    article whose title names the act it amends, is that act's article (v15)."""
    folded = fold(text)
    quotes = quoted_spans(text)
    masked = _masked(folded, quotes)
    lists = lists_of(text, folded, masked)
    article_text = ArticleText(text, folded, masked, own_source)
    own_number = article_id.split("::", 1)[1] if "::" in article_id else ""
    tables = table_spans(text, quotes)
    candidates = [c for c in find_citations(text, default_source=SELF) if not inside(c.start, tables)]
    inner = [c for c in candidates if c.source == SELF and not inside(c.start, quotes)
             and INSIDE_BEFORE.search(folded, max(0, c.start - 16), c.start) and not INNER.match(folded, c.end)]
    found = [c for c in candidates
             if not inside(c.start, quotes) and not NOT_ARTICLE.search(folded, max(0, c.start - 20), c.start)
             and not (NEXT_PARAGRAPH.search(text, c.start, c.end) and text[c.end:c.end + 1] == ".")
             and not (DECIMAL.match(text, c.end) and not _decimal_source(folded, c))
             and not (c.source == SELF and HEADING.match(text, c.start))
             and not (c.source == SELF and folded.startswith("αρ.", c.start)
                      and NUMBER_OF_ACT.search(folded, max(0, c.start - 60), c.start))
             and not (c.source == SELF and (DECISION.match(folded, c.end)
                                             or DECISION_BEFORE.search(folded, max(0, c.start - 6), c.start)
                                             or ITEM_NUMBER_BEFORE.search(folded, max(0, c.start - 24), c.start)
                                             or INSIDE_BEFORE.search(folded, max(0, c.start - 16), c.start)))]
    in_words: list[Citation] = []
    for m in sorted([*ORDINAL.finditer(masked), *ORDINAL_BEFORE.finditer(masked)], key=lambda m: m.start()):
        number = ordinal_value(m.group("ord"))
        if number is None or any(c.start <= m.start() < c.end for c in found) or inside(m.start(), tables):
            continue
        named = source_at(folded, m.end())
        if named:
            start = m.start("ord") if m.re is ORDINAL_BEFORE else m.start()
            in_words.append(Citation(named[0], str(number), "", start, named[2]))
            continue
        if m.re is ORDINAL_BEFORE:
            continue
        # «η περ. β) της παρ. 5 του άρθρου εξηκοστού πέμπτου διαμορφώνεται»: the law it was named with, in words,
        # before in its paragraph (not a heading «Άρθρο ενδέκατο Συμβάσεις …»)
        before = [c for c in in_words if c.article == str(number) and c.source != own_source
                  and "\n" not in text[c.end:m.start()]]
        if before and not HEADING.match(text, m.start()):
            in_words.append(Citation(before[-1].source, str(number), "", m.start(), m.end()))
    found += in_words
    for m in NEIGHBOUR.finditer(masked):
        neighbour = _number_offset(own_number, -1 if m.group("which") == "προηγουμεν" else 1)
        if neighbour and not inside(m.start(), tables):
            found.append(Citation(own_source, neighbour, "", m.start(), m.end()))
    found.sort(key=lambda c: (c.start, c.end))
    raw: list[Citation] = []
    explicit: dict[str, tuple[str, int]] = {}  # article number -> the external source it was last cited with, where
    last_external: str | None = None
    own_by_default: set[tuple[int, int, str]] = set()  # bare articles read as the own law's for want of another
    decimal_spans: set[tuple[int, int]] = set()  # «Στο άρθρο 19.1.»: an edge only where a title scope takes it
    dotted_own = numbers_parts_dotted(own_number, text)
    for i, c in enumerate(found):
        source = c.source
        decimal = _decimal_source(folded, c) if c.source == SELF and DECIMAL.match(text, c.end) else None
        if decimal:  # «Στο άρθρο 19.1.», «άρθρο 6.8 του ν. 4791/2021»: article N, paragraph M (v17)
            tail = DECIMAL_TAIL.match(text, c.end)
            assert tail
            paragraph = tail.group("par")
            if decimal != SELF:
                raw.append(Citation(decimal, c.article, paragraph, c.start, c.end))
                continue
            if not dotted_own:
                raw.append(Citation(own_source, c.article, paragraph, c.start, c.end))
                own_by_default.add((c.start, c.end, c.article))
                decimal_spans.add((c.start, c.end))
                continue
            # v19: a law that numbers its articles' parts «10.2.» (the citing article's own text does) cites its own
            # articles so: «των άρθρων 2.1., 2.2. ή 2.6.» is its article 2, each mention an edge
            raw.append(Citation(own_source, c.article, paragraph, c.start, tail.end()))
            for more in DECIMAL_MORE.finditer(text, tail.end()):
                if more.start() != raw[-1].end:
                    break
                raw.append(Citation(own_source, more.group("art"), more.group("par"), more.start("art"), more.end()))
            continue
        within = next((x for x in reversed(lists) if x.start <= c.start < x.end and x.source), None)
        in_list = any(x.start <= c.start < x.end for x in lists)
        list_kind = next((x.kind for x in reversed(lists) if x.start <= c.start < x.end and x.kind), None)
        if source == SELF:
            run = [f.article for f in found if (f.start, f.end) == (c.start, c.end) and f.source == SELF]
            bare = source_of_bare(article_text, c, Surroundings(found[i + 1:], within, in_list, explicit, last_external,
                                                                list_kind, run))
            if not bare:
                if names_foreign_act(folded, c.end):  # «… του β.δ. 631/1972 … και το άρθρο 3 διαμορφώνεται»: that act's too
                    explicit[c.article] = (FOREIGN_LIST, c.end)
                continue
            source = bare
            if source != own_source:  # «Το άρθρο 112 και το άρθρο 113 του ν. 4389/2016 … και το άρθρο 112» (v15)
                explicit[c.article] = (source, c.end)
        elif source != own_source:
            explicit[c.article] = (source, c.end)
            last_external = source
        article, end = c.article, c.end
        last_of_list = i + 1 == len(found) or (found[i + 1].start, found[i + 1].end) != (c.start, c.end)
        suffix = SPACED_SUFFIX.match(text, c.end) if c.source == SELF and article.isdigit() and last_of_list else None
        if suffix and (resolver.resolve(f"{source}::{article}{suffix.group(1)}")
                       or (suffix.group(1) not in "ΗΟ" and SUFFIX_ENDS.match(text, suffix.end()))):
            article, end = article + suffix.group(1), suffix.end()
        paragraph, start = c.paragraph, c.start
        written_before = paragraph_before(folded, c.start)
        if written_before:
            paragraph, start = paragraph or written_before[0], written_before[1]
        raw.append(Citation(code_of(source, article), article, paragraph, start, end))  # PD_456_1984::1959 → AK (v20)
        if c.source == SELF and source == own_source and not said_own(folded, c.end):
            own_by_default.add((start, end, article))
    out: list[Reference] = []
    groups = groups_of(text, masked, raw)
    for g, group in enumerate(groups):
        start, end = group[0].start, max(c.end for c in group)
        prev_end = max(c.end for c in groups[g - 1]) if g else 0
        next_start = groups[g + 1][0].start if g + 1 < len(groups) else len(folded)
        within = next((x for x in reversed(lists) if x.start <= start < x.end and x.kind), None)
        kind = amendment_kind(text, masked, start, end, prev_end, next_start, within.kind if within else None,
                              within.start if within else 0)
        title_kinds: dict[tuple[int, int], str] = {}
        if g == 0 and kind == "cites" and opens_with_title_tail(text, start):
            # «της παρ. 1 του άρθρου 25 του ν. 4549/2018 Στο τέλος της παρ. 1 … προστίθενται»: the text opens with
            # the end of its title («… - Τροποποίηση και συμπλήρωση»), which names what the body then amends
            ids = {c.id for c in group}
            kind = next((k for k, later in later_kinds(text, masked, groups, lists) if ids & later), kind)
        if kind in AMENDMENT_KINDS and len(group) > 1:
            # «Τροποποίηση του άρθρου 14 και προσθήκη άρθρου 14α στον Κώδικα ΦΠΑ»: where a title gives the articles
            # of one amendment nouns of different changes, each is the kind of its noun (v17)
            nouns = [TITLE_NOUN_BEFORE.search(masked, max(0, c.start - 24), c.start) for c in group]
            if all(nouns) and len({n.group(1) for n in nouns if n}) > 1:
                title_kinds = {(c.start, c.end): TITLE_NOUN_KINDS[n.group(1)] for c, n in zip(group, nouns, strict=True)
                               if n}
        for c in group:
            lead = DESIGNATOR_BEFORE.search(masked, max(0, c.start - 30), c.start)
            at = lead.start() if lead else c.start
            cited = "cites" if CITED_BY_WORDS.search(masked, max(0, at - 30), at) \
                or MODIFIES_NOUN.search(masked, max(0, c.start - 80), c.start) \
                or CONTRARY_TO.search(masked, max(0, c.start - 60), c.start) \
                or (kind == "inserts" and INSERTED_NEXT_TO.search(masked, max(0, c.start - 16), c.start)) \
                else title_kinds.get((c.start, c.end), kind)
            if cited not in AMENDMENT_KINDS and changed_in_run(text, masked, c.start, c.end):
                cited = "amends"  # «Στην παρ. 2 του άρθρου 94, περί …, του ΚΠολΔ … νοείται αναφορά …» (v20)
            target = resolver.resolve(c.id) or ""
            if target == article_id or c.id == article_id:
                continue
            if cited in AMENDMENT_KINDS and AS_IT_WAS.match(masked, c.end):
                target = ""  # the version before the change, not the corpus's (the new one)
            out.append(Reference(article_id, target, c.id, cited, c.paragraph or None, c.start, c.end))
    scope = title_scope(title_text(title, text), own_source) if own_by_default else None
    if scope:
        out = _in_title_scope(out, scope, own_by_default, resolver)
    if decimal_spans:  # a dotted number the title's act does not take is a clause of some document: no edge
        out = [r for r in out if (r.start, r.end) not in decimal_spans or not r.cited.startswith(own_source + "::")]
    out = with_items(with_follow_ups(out, text, masked, inner), item_paragraphs(text, masked, lists))
    # one edge per span, article, kind and paragraph: two readings of one list (or of one item) gave some twice (v22)
    return list(dict.fromkeys(_as_title_types_them(out, title, resolver)))


_TITLE_KINDS = ("ν.δ", "ν. δ", "π.δ", "π. δ", "α.ν", "α. ν", "προεδρικ")


def _as_title_types_them(out: list[Reference], title: str, resolver: IdResolver) -> list[Reference]:
    """«Τροποποίηση άρθρου 2 ν.δ. 1032/1971» over «Στο άρθρο 2 του ν. 1032/1971 (Α’ 232) επέρχονται …»: where the
    title names a legislative decree, an emergency law or a presidential decree by a number and year that the text
    writes as a law («ν.»), the text's act is the title's (v19). Only where the law's id resolves to no corpus
    article (a corpus that files the act as a law keeps its edges)."""
    folded = fold(title)
    # the kind written out with its dots («ν.δ.», «π.δ.», «α.ν.»): «άρθρου 97 Α ν. 3852/2010» is no α.ν.
    kinds = {source.split("_", 1)[1]: source for source, at, _ in sources_in(folded, 0, len(folded))
             if source.startswith(("ND_", "AN_", "PD_")) and folded.startswith(_TITLE_KINDS, at)}
    if not kinds:
        return out
    kept = []
    for r in out:
        source, _, article = r.cited.partition("::")
        other = kinds.get(source[2:]) if source.startswith("N_") and not r.target else None
        if other:
            cited = f"{other}::{article}"
            r = dataclasses.replace(r, cited=cited, target=resolver.resolve(cited) or "")
        kept.append(r)
    return kept


def numbers_parts_dotted(own_number: str, text: str) -> bool:
    """Whether an article numbers its parts with its own number, dotted («10.1.», «10.2.» at the start of a line in
    article 10, as ν. 4791/2021 writes the anti-doping code): its law then cites its articles so (v19)."""
    return bool(own_number) and re.search(rf"(?m)^\s*{re.escape(own_number)}\.\d{{1,3}}\.", text) is not None


def _decimal_source(folded: str, c: Citation) -> str | None:
    """The law of an article written with a dotted number («άρθρο 6.8», «άρθρου 19.1.», as ν. 4791/2021 numbers its
    paragraphs): the law named right after the number, or ``SELF`` where none is named and an article of the text's
    title scope may take it (:func:`extract_references` keeps it only then); None for a clause of a document of no
    law of ours («άρθρο 28.10 έκαστης Σύμβασης», «άρθρου 5.1.1.1 του Διεθνούς Προτύπου»)."""
    tail = DECIMAL_TAIL.match(folded, c.end)
    if not tail or c.source != SELF or not c.article.isdigit():
        return None
    named = source_at(folded, tail.end())
    if named:
        return named[0]
    if is_foreign(folded, tail.end()) or DECIMAL_DOCUMENT.match(folded, tail.end()):
        return None
    return SELF


def _in_title_scope(out: list[Reference], scope: TitleScope, own_by_default: set[tuple[int, int, str]],
                    resolver: IdResolver) -> list[Reference]:
    """«Τροποποίηση του άρθρου 96 του ν. 4412/2016» over «Οι παρ. 1 και 2 τροποποιούνται … και το άρθρο 96
    διαμορφώνεται ως εξής»: an article the text amends, read as the own law's for want of another, is the act's
    the title names (the one it names the article with, else the only one); where the title names several acts and
    not this article, no edge. Only amendments: an article the text merely cites may be the own law's."""
    kept: list[Reference] = []
    for r in out:
        article = r.cited.split("::", 1)[1]
        if r.kind not in AMENDMENT_KINDS or (r.start, r.end, article) not in own_by_default:
            kept.append(r)
            continue
        source = scope.source_for(article)
        if source:
            cited = f"{source}::{article}"
            kept.append(dataclasses.replace(r, cited=cited, target=resolver.resolve(cited) or ""))
    return kept
