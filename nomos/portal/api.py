"""The portal's JSON API (``/api/*``), described by its OpenAPI document (``/api/openapi.json``)."""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from nomos.pages.articles import citation
from nomos.portal.as_of import AsOfLaw, AsOfOut, BeforeLaw, wording_then
from nomos.portal.errors import PortalError
from nomos.portal.links import article_url, law_url, linkable, safe_snippet, search_url
from nomos.portal.params import (
    AREA_PATTERN,
    MAX_K,
    SOURCE_PATTERN,
    AreaParam,
    ArticleId,
    KParam,
    LawSource,
    Method,
    MethodParam,
    RequiredQuery,
    SourceParam,
)
from nomos.portal.web import PAGE_LIMIT, PortalDep, limit, run, run_search

router = APIRouter(prefix="/api")


class AmendingOut(BaseModel):
    id: str
    citation: str = Field(description="how to cite the amending article, e.g. «άρθρο 108 ν. 4727/2020»")


class InsertedOut(BaseModel):
    into: str = Field(description="the source id of the law the article was inserted into, e.g. N_3978_2011")
    into_citation: str = Field(description="that law as cited, e.g. «ν. 3978/2011»")
    as_: str = Field(alias="as", description="the article's number in that law, e.g. «άρθρο 7Γ»")
    by_law: str = Field(description="the law that inserted it, e.g. «ν. 4782/2021»")


class StandingOut(BaseModel):
    status: str = Field("in-force", description="where the article stands in law: in-force (nothing in the "
                        "collection amends it), amended, inserted (provisions added only, or the whole article "
                        "added to another law: see inserted), partial (amended, its "
                        "text in force only partly consolidated) or repealed (listed after the articles in force)")
    by: list[AmendingOut] = Field(default_factory=list, description="the amending (or repealing) articles, in the "
                                  "order applied")
    inserted: InsertedOut | None = Field(default=None, description="for an article a later law inserted whole into another "
                                         "law (status inserted, unless amended since): where and by which law")


class HitOut(BaseModel):
    id: str
    title: str
    law: str
    source: str
    score: float = Field(description="what it is: the page's score_kind (a position where it is 'rank')")
    snippets: list[str] = Field(description="HTML: the article's text, escaped, with the query's terms in <mark>")
    citation: str = Field(description="how to cite the article, e.g. «άρθρο 372 ΠΚ», «άρθρο 5 ν. 4624/2019»")
    url: str = Field(description="the article's page, the case's terms highlighted, scrolled to the first one")
    placed: str | None = Field(None, description="why the hit stands where it does without a score of the method's: "
                               "the query names it (citation, id, title) or the case cites it (cited); null: ranked")
    standing: StandingOut = Field(default_factory=lambda: StandingOut(status="in-force"), description="where the article stands in law")
    as_of: AsOfOut | None = Field(default=None, description="with ?after= or ?before=: an amended article's wording then")


class FacetOut(BaseModel):
    source: str
    law: str
    count: int


class AreaFacetOut(BaseModel):
    area: str
    label: str
    count: int


class TraceRound(BaseModel):
    round: int
    query: str
    query_source: str | None = None
    thought: str | None = None
    candidates: int
    kept: list[str]


class SearchOut(BaseModel):
    query: str
    method: str
    k: int
    source: str | None
    area: str | None = None
    total: int
    took_ms: float
    hits: list[HitOut]
    repealed: int = Field(0, description="how many hits are repealed articles: they are listed after those in force")
    facets: list[FacetOut]
    areas: list[AreaFacetOut] = Field(default_factory=list, description="the legal areas of the matches, with counts")
    trace: list[TraceRound] | None = None
    reranked: str | None = Field(None, description="the judge that re-ordered the top (the portal's NOMOS_RERANK), if any")
    named: list[str] = Field(default_factory=list, description="the articles the query names outright (a citation such "
                             "as «άρθρο 372 ΠΚ», an id, an exact title), first among the hits")
    cited: list[str] = Field(default_factory=list, description="articles the case cites in passing, put right after the "
                             "method's best hit (marked cited)")
    missing: list[str] = Field(default_factory=list, description="citations in the query that name no article of "
                               "the collection («άρθρο 999 ΠΚ»); the hits are the method's")
    hybrid_ready: int | None = Field(None, description="no method asked and the vectors still being computed: how far "
                                     "they are, in percent (BM25 answers until hybrid is ready)")
    score_kind: str = Field("bm25", description="what the hits' scores are: bm25, similarity (cosine, (1 + cos) / 2), "
                            "fused (weighted min-max), rrf, or rank (k + 1 - rank: the list's order, not relevance)")
    hybrid_eta_s: float | None = Field(None, description="and the seconds left at the indexer's last noted rate "
                                       "(null: unknown)")
    url: str | None = Field(description="the shareable page of this search (None: a case longer than an address carries)")


class ArticleRefOut(BaseModel):
    id: str
    number: str
    title: str
    law: str = ""
    score: float | None = None


class ArticleOut(BaseModel):
    id: str
    title: str
    law: str
    source: str
    number: str
    area: str = Field(description="legal area key ('' in an index built before areas existed)")
    citation: str
    text: str
    previous: ArticleRefOut | None
    next: ArticleRefOut | None
    neighbours: list[ArticleRefOut]
    law_size: int
    similar: list[ArticleRefOut]


class LinkOut(BaseModel):
    start: int = Field(description="the reference's span in the article's text (character offsets)")
    end: int
    target: str = Field(description="the cited article's id; '' when it is not in the collection")
    cited: str = Field(description="the id as read in the text, even when unresolved (e.g. PK::372)")
    kind: str = Field(description="cites | amends | replaces | inserts | repeals")
    paragraph: str | None = None
    url: str | None = Field(None, description="the cited article's page (resolved references only)")


class GraphRefOut(BaseModel):
    id: str
    number: str
    title: str
    law: str
    source: str
    citation: str
    kind: str = Field(description="cites, or for an amendment: amends | replaces | inserts | repeals")
    paragraph: str | None = Field(None, description="the paragraph of the amended article, where the text says")
    url: str


class GraphOut(BaseModel):
    id: str
    warning: str | None = Field(None, description="set when later articles amend this one: its text may not be "
                                "the one in force (see amended_by)")
    references: list[LinkOut] = Field(description="the references in the text, by position")
    cites: list[GraphRefOut] = Field(description="«Παραπέμπει σε»: the articles of the collection this one cites")
    cited_by: list[GraphRefOut] = Field(description="«Αναφέρεται από»: the articles that cite this one")
    amended_by: list[GraphRefOut] = Field(description="«Τροποποιήσεις»: the articles that amend this one")
    amends: list[GraphRefOut] = Field(description="the articles this one amends")
    previous: ArticleRefOut | None
    next: ArticleRefOut | None
    law_url: str = Field(description="the law's table of contents")


class PassageOut(BaseModel):
    text: str = Field(description="one paragraph of the text in force, its number included («1. Όποιος …»)")
    source: str = Field(description="the amending article that gave the paragraph its wording; '' : the original's")
    changed: bool = Field(description="whether the paragraph differs from the original paragraph at its place")
    source_url: str | None = Field(None, description="the amending article's page ('' source: none)")


class AmendmentOut(BaseModel):
    id: str
    citation: str = Field(description="how to cite the amending article, e.g. «άρθρο 86 ν. 4855/2021»")
    url: str


class AppliedOut(BaseModel):
    source: str = Field(description="the amending article")
    action: str = Field(description="replace-article, replace-paragraph, replace-case, replace-sentence, "
                        "replace-title, insert-paragraph, insert-sentence, insert-case, repeal, repeal-paragraph, "
                        "repeal-case, repeal-sentence, replace-words, delete-words, insert-words, "
                        "replace-act-article (an article of the act a ratifying article quotes)")
    paragraph: str = Field(description="the paragraph(s) as the instruction names them; '' : the whole article")
    instruction: str = Field(description="the instruction's own words")


class UnappliedOut(BaseModel):
    source: str
    instruction: str
    reason: str = Field(description="why it could not be applied exactly (not found, ambiguous, a form not read …)")
    superseded_by: str = Field(description="a later amending article whose whole wording of the unit makes this "
                               "one moot ('' : it is not, and the text in force is partial)")


class InForceOut(BaseModel):
    id: str
    amended: bool = Field(description="whether articles of the collection amend this one")
    status: str | None = Field(description="full: every instruction applied; partial: some could not be "
                               "(see unapplied); none: none could, the passages are the original's; null: nothing "
                               "amends the article, the passages are its original text")
    title: str = Field(description="the title in force (the original's unless an amendment gave a new one)")
    text: str = Field(description="the text in force, one paragraph a line")
    passages: list[PassageOut]
    amendments: list[AmendmentOut] = Field(description="the amending articles, in the order applied (the laws' "
                                           "year and number, then article)")
    applied: list[AppliedOut]
    unapplied: list[UnappliedOut]
    note: str = Field(description="what the text is, in words")
    original_url: str = Field(description="the article's page, with its original text")


IN_FORCE_NOTES = {
    None: "no article of the collection amends this one: the text is the original",
    "full": "consolidated automatically from the listed amendments, every instruction applied; not an official "
            "codification",
    "partial": "consolidated automatically from the listed amendments; some instructions could not be applied "
               "exactly (see unapplied): parts of this text may not be in force",
    "none": "articles of the collection amend this one, but none of their instructions could be applied exactly "
            "(see unapplied): this is the original text, which may not be in force",
}


class LawOut(BaseModel):
    source: str
    name: str
    articles: list[ArticleRefOut] = Field(description="every article of the law, in article-number order")


class ErrorOut(BaseModel):
    detail: str


ERRORS: dict[int | str, dict[str, Any]] = {400: {"model": ErrorOut}, 503: {"model": ErrorOut}}


@router.get("/search", response_model=SearchOut, responses={**ERRORS, 429: {"model": ErrorOut}, 502: {"model": ErrorOut},
                                                                 504: {"model": ErrorOut}},
            summary="Top articles for a case description")
async def api_search(request: Request, portal: PortalDep, q: RequiredQuery, method: MethodParam = None, k: KParam = 10,
                     source: SourceParam = None, area: AreaParam = None, after: AsOfLaw = None,
                     before: BeforeLaw = None) -> SearchOut:
    limit(request, "search")
    page = await run_search(portal, q, method, k, source, area)
    then = await wording_then(portal, [h.doc_id for h in page.hits], after, before)
    out = _search_out(page)
    if then is not None:  # each amended hit's wording as of the law asked (issue 49)
        out.hits = [h.model_copy(update={"as_of": then.get(h.id)}) for h in out.hits]
    return out


class SearchIn(BaseModel):
    """A search posted as JSON: a whole case file (up to 20,000 characters) is more than an address carries."""

    q: str = Field(min_length=1, description="the case, in everyday Greek (at most 20,000 characters)")
    method: Method | None = None
    k: int = Field(10, ge=1, le=MAX_K)
    source: str | None = Field(None, pattern=SOURCE_PATTERN)
    area: str | None = Field(None, pattern=AREA_PATTERN)


@router.post("/search", response_model=SearchOut, responses={**ERRORS, 429: {"model": ErrorOut}, 502: {"model": ErrorOut},
                                                                  504: {"model": ErrorOut}},
             summary="Top articles for a case description, posted as JSON (a whole case file)")
async def api_search_posted(request: Request, portal: PortalDep, body: SearchIn) -> SearchOut:
    limit(request, "search")
    return _search_out(await run_search(portal, body.q, body.method, body.k, body.source, body.area))


def _search_out(r: Any) -> SearchOut:  # a SearchPage
    return SearchOut(
        query=r.query, method=r.method, k=r.k, source=r.source, area=r.area, total=r.total, took_ms=round(r.took_ms, 2),
        hits=[HitOut(id=h.doc_id, title=h.title, law=h.law, source=h.source, score=h.score,
                     snippets=[str(safe_snippet(s)) for s in h.highlights], citation=citation(h.doc_id, h.source, h.law),
                     url=article_url(h.doc_id, r.query), placed=h.details.get("direct"), standing=StandingOut(**r.standing_of(h.doc_id).as_dict()))
              for h in r.hits],
        repealed=r.repealed,
        named=[d.doc_id for d in r.named], cited=list(r.cited), missing=list(r.missing), hybrid_ready=r.hybrid_ready, hybrid_eta_s=r.hybrid_eta_s,
        score_kind=r.score_kind,
        facets=[FacetOut(**asdict(f)) for f in r.facets],
        areas=[AreaFacetOut(**asdict(a)) for a in r.areas],
        trace=[TraceRound(round=t.get("round", i + 1), query=t.get("query", ""), query_source=t.get("query_source"),
                          thought=t.get("thought"), candidates=len(t.get("candidates", ())), kept=list(t.get("kept", ())))
               for i, t in enumerate(r.trace)] if r.trace is not None else None,
        reranked=r.reranked,
        url=search_url(r.query, r.method, r.k, r.source, area=r.area)
        if linkable(r.query, method=r.method, k=r.k, source=r.source, area=r.area) else None,
    )


def _ref(r: Any) -> ArticleRefOut | None:  # an ArticleRef or None
    return None if r is None else _ref_out(r)


def _ref_out(r: Any) -> ArticleRefOut:  # an ArticleRef
    return ArticleRefOut(**{f.name: getattr(r, f.name) for f in fields(r)})


@router.get("/articles/{article_id}", dependencies=[PAGE_LIMIT], response_model=ArticleOut, responses={404: {"model": ErrorOut}, 503: {"model": ErrorOut}},
            summary="One article with its law's neighbours and similar articles")
async def api_article(portal: PortalDep, article_id: ArticleId) -> ArticleOut:
    art = await run(portal, portal.article, article_id, None)
    if art is None:
        raise PortalError(404, "no article with this id")
    return ArticleOut(
        id=art.id, title=art.title, law=art.law, source=art.source, number=art.number, area=art.area,
        citation=citation(art.id, art.source, art.law), text=art.text,
        previous=_ref(art.previous), next=_ref(art.next), neighbours=[_ref_out(n) for n in art.neighbours],
        law_size=art.law_size, similar=[_ref_out(s) for s in art.similar],
    )


@router.get("/health", dependencies=[PAGE_LIMIT], responses={503: {"model": ErrorOut}}, summary="Is the search engine up?")
async def api_health(portal: PortalDep) -> dict[str, Any]:
    return await run(portal, portal.health)


def _graph_ref(r: Any) -> GraphRefOut:  # a pages.graph.GraphRef
    return GraphRefOut(**{f.name: getattr(r, f.name) for f in fields(r)}, url=article_url(r.id))


AMENDED_WARNING = "later articles amend this one: its text may not be the one in force"


@router.get("/articles/{article_id}/graph", dependencies=[PAGE_LIMIT], response_model=GraphOut,
            responses={404: {"model": ErrorOut}, 503: {"model": ErrorOut}},
            summary="The article's references, the articles citing it and amending it, its neighbours")
async def api_graph(portal: PortalDep, article_id: ArticleId) -> GraphOut:
    found = await run(portal, portal.article_and_graph, article_id, None)
    if found is None:
        raise PortalError(404, "no article with this id")
    art, g = found
    return GraphOut(
        id=art.id, warning=AMENDED_WARNING if g.warn else None,
        references=[LinkOut(**{f.name: getattr(lk, f.name) for f in fields(lk)},
                            url=article_url(lk.target) if lk.target else None) for lk in g.links],
        cites=[_graph_ref(r) for r in g.cites], cited_by=[_graph_ref(r) for r in g.cited_by],
        amended_by=[_graph_ref(r) for r in g.amended_by], amends=[_graph_ref(r) for r in g.amends],
        previous=_ref(art.previous), next=_ref(art.next), law_url=law_url(art.source),
    )


@router.get("/articles/{article_id}/in-force", dependencies=[PAGE_LIMIT], response_model=InForceOut,
            responses={404: {"model": ErrorOut}, 503: {"model": ErrorOut}},
            summary="The article's text in force: the amendments of the collection applied, with provenance")
async def api_in_force(portal: PortalDep, article_id: ArticleId) -> InForceOut:
    found = await run(portal, portal.in_force, article_id)
    if found is None:
        raise PortalError(404, "no article with this id")
    f = found.in_force
    status = f.status if f is not None else None
    def amendment(source_id: str) -> AmendmentOut:
        # the law's short name is read from the source id («N_4855_2021» → «ν. 4855/2021»)
        return AmendmentOut(id=source_id, citation=citation(source_id, source_id.split("::", 1)[0], ""),
                            url=article_url(source_id))

    return InForceOut(
        id=found.id, amended=f is not None, status=status, title=found.title_in_force,
        text="\n".join(p.text for p in found.passages),
        passages=[PassageOut(text=p.text, source=p.source, changed=p.changed,
                             source_url=article_url(p.source) if p.source else None) for p in found.passages],
        amendments=[amendment(a) for a in (f.amendments if f is not None else ())],
        applied=[AppliedOut(**asdict(a)) for a in (f.applied if f is not None else ())],
        unapplied=[UnappliedOut(**asdict(u)) for u in (f.unapplied if f is not None else ())],
        note=IN_FORCE_NOTES[status], original_url=article_url(found.id),
    )


@router.get("/laws/{source}", dependencies=[PAGE_LIMIT], response_model=LawOut, responses={404: {"model": ErrorOut}, 503: {"model": ErrorOut}},
            summary="A law's table of contents")
async def api_law(portal: PortalDep, source: LawSource) -> LawOut:
    name, articles = await run(portal, portal.law, source)
    if not articles:
        raise PortalError(404, "no legal source with this code")
    return LawOut(source=source, name=name, articles=[_ref_out(a) for a in articles])
