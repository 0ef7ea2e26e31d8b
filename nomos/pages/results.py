"""One results page, built on its own floor between the stages and retrieval: :class:`ResultsPage`.

The search stage chooses the method and its retriever and hands them down with the request; the page comes back
up whole (:class:`Results`), the stage adding only what it knows (the method, the time taken, the vectors'
readiness). Two paths, chosen by what the method can do (``MethodSpec.faceted``):

* :meth:`ResultsPage.of_page`: the ranking, its snippets and facets in the ranking's own requests (BM25 and kNN
  one, hybrid two), through the retriever's ``search_faceted`` and a :class:`~nomos.pages.request.PageRequest`;
* :meth:`ResultsPage.of_ranking`: the ranking first (LLM methods, re-ranked or other methods), then its facets and
  filter (one request) and its snippets (one more).

Both then place the articles the query names (:mod:`nomos.pages.named`: a citation, a typed id, an exact title
pinned first; the articles a case cites put beside the best hit), decorate those that came from outside the
ranking, mark only the query's own words (:mod:`nomos.pages.marks`) and list a repealed article after those in force
(:mod:`nomos.pages.standing`). Both rank exactly as the method's retriever ranks (``Retriever.search``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from nomos.opensearch.transport import Transport
from nomos.pages import passages
from nomos.pages.facets import Facets, facet_aggs, ids_facets_and_matching, matching_ids, page_filter, read_facets
from nomos.pages.lead import cited_number
from nomos.pages.marks import with_own_marks
from nomos.pages.named import Named, NameReading, look_up
from nomos.pages.request import PageRequest
from nomos.pages.standing import Standing, demote_repealed, hits_standing
from nomos.retrieval.base import FacetedRetriever, Hit, Retriever
from nomos.retrieval.cited import DirectHit

FILTER_DEPTH = 100  # methods that cannot filter inside OpenSearch: filter this many candidates, keep k
FACET_SIZE = 15  # buckets per facet


@dataclass(frozen=True)
class PageQuery:
    """What a page is asked for: ``k`` results of ``query``, only of ``source`` and ``area`` where given, with the
    two facets or without (``cli.py search`` shows none)."""

    query: str
    k: int
    source: str | None = None
    area: str | None = None
    facets: bool = True


@dataclass(frozen=True)
class Results:
    """A results page as it comes back up: the hits (snippets marked, named articles placed, repealed ones last),
    the facets, how many articles matched, what the scores are, a ReAct trace if any, the articles the query named
    (``named``), the ids added because a case cited them (``cited``), the citations the index holds no article of
    (``missing``) and where each hit stands in law."""

    hits: list[Hit]
    facets: Facets
    total: int
    score_kind: str
    trace: list[dict[str, Any]] | None = None
    named: tuple[DirectHit, ...] = ()
    cited: list[str] = field(default_factory=list)
    missing: tuple[str, ...] = ()
    standing: dict[str, Standing] = field(default_factory=dict)


class ResultsPage:
    """Builds results pages over one index: ``transport`` sends the page's own requests (facets, filters, snippets,
    the named articles, where hits stand), ``laws`` gives the legal sources' names (the searcher keeps them a
    minute, so a page need not ask the name beside every facet bucket), ``snippets`` how its pages' snippets are
    made (the stage's NOMOS_SNIPPETS, :data:`nomos.pages.passages.MODES`), carried down in each page's request."""

    def __init__(self, transport: Transport, index: str, laws: Callable[[], Mapping[str, str]], *,
                 snippets: str) -> None:
        self.transport = transport
        self.index = index
        self.laws = laws
        self.snippets = passages.checked(snippets)

    def _request(self, query: str, aggs: Mapping[str, Any] | None = None, post_filter: Mapping[str, Any] | None = None,
                 fallback: bool = True, precede: int = 0) -> PageRequest:
        """The page's request over this floor's index, with its snippets' mode (and its order: ``precede``)."""
        return PageRequest(self.transport, self.index, query, aggs or {}, post_filter, fallback=fallback,
                           snippets=self.snippets, precede=precede)

    def of_page(self, retriever: FacetedRetriever, ask: PageQuery, *, fallback: bool = True, precede: int = 0) -> Results:
        """The one-request path: the retriever's ranking with the page's parts folded in. ``fallback``: a hit with
        none of the query's words shows its text's start (``MethodSpec.snippets`` says a method needs none).
        ``precede``: the amendment stage's depth, for a retriever that ``orders_pages`` (it orders its ranking
        with the page's :meth:`~nomos.pages.request.PageRequest.ordered` before it asks for the page)."""
        reading = NameReading.of(ask.query)  # read once; the page and the lookup share it
        laws = self.laws() if ask.facets else None
        aggs = {**(facet_aggs(FACET_SIZE, ask.source, ask.area, law_names=laws is None) if ask.facets else {}),
                **reading.page_aggregation()}  # a short query may be a title: the page's own request looks it up
        ask_page = self._request(ask.query, aggs, page_filter(ask.source, ask.area), fallback, precede)
        page = retriever.search_faceted(ask.query, ask.k, ask_page)
        facets = read_facets(page.aggregations, laws) if ask.facets else Facets()
        named = look_up(self.transport, self.index, reading, page.aggregations)
        return self._placed(ask, page.hits, facets, page.matching, retriever.score_kind, None, named)

    def of_ranking(self, retriever: Retriever, ask: PageQuery, *, deep: bool, precede: int = 0) -> Results:
        """The rank-then-page path: the ranking, ``FILTER_DEPTH`` deep where ``deep`` (or a filter will cut it),
        ordered with ``precede`` where given (a retriever that ``reads_restates``: the amended article before its
        amender, each hit keeping its score), then its facets and the filter's ids in one request, then the shown
        hits' titles and snippets."""
        filtered = bool(ask.source or ask.area)
        # FILTER_DEPTH deep where a filter will cut the list, or where depth costs nothing (the learned ranker orders
        # its whole pool anyway): the facets then count the candidates, as a fused page's do, not the page's k
        result = retriever.search_many({"q": ask.query}, max(ask.k, FILTER_DEPTH) if filtered or deep else ask.k)
        ranked = self._request(ask.query, precede=precede).ordered(result.hits["q"])
        rounds = result.traces.get("q", {}).get("rounds")  # a round-by-round trace (react) is shown
        ids = [h.doc_id for h in ranked]
        facets = Facets()
        total = len(ranked)
        if ask.facets:  # the facets and the filter's ids in one request
            facets, keep = ids_facets_and_matching(self.transport, self.index, ids, FACET_SIZE, ask.source, ask.area,
                                                   self.laws())
            ranked = [h for h in ranked if h.doc_id in keep]
        elif filtered:
            keep = matching_ids(self.transport, self.index, ids, ask.source, ask.area)
            ranked = [h for h in ranked if h.doc_id in keep]
        hits = self._request(ask.query).decorate(ranked[: ask.k])
        named = look_up(self.transport, self.index, NameReading.of(ask.query))
        trace = list(rounds) if rounds is not None else None
        return self._placed(ask, hits, facets, total, retriever.score_kind, trace, named)

    def _placed(self, ask: PageQuery, hits: list[Hit], facets: Facets, total: int, kind: str,
                trace: list[dict[str, Any]] | None, named: Named) -> Results:
        """The page's hits with the named articles placed, those that came from outside the ranking decorated, the
        query's own words marked and the repealed articles listed last."""
        named = named.kept(ask.source, ask.area)
        hits, added = named.place(hits, ask.k)
        bare = [h for h in hits if h.details.get("direct") and not h.highlights]
        if bare:  # snippets of the articles that came in from outside the method's page
            shown = {h.doc_id: h for h in self._request(ask.query).decorate(bare)}
            hits = [shown.get(h.doc_id, h) for h in hits]
        hits = with_own_marks(hits, ask.query)  # no mark on a stem's namesake («ρόλο» for «ρολόι»)
        if self.snippets == "lead":  # a cited article's number, where its snippet says it
            hits = cited_number(hits, {d.doc_id: d.doc_id.partition("::")[2] for d in named.named
                                       if d.kind in ("citation", "id")})
        standing = hits_standing(self.transport, self.index, hits)  # repealed, amended… (read by the page)
        hits = demote_repealed(hits, standing, keep={d.doc_id for d in named.named})  # after those in force
        return Results(hits, facets, total, kind, trace, named.named, added, named.missing, standing)
