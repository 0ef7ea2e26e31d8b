"""Hybrid retrieval: BM25 and kNN fused inside OpenSearch (neural-search pipelines) or in Python (ranx).

Server-side, a ``hybrid`` query runs both clauses and a search pipeline fuses them: the normalization processor
(min_max / l2 / z_score; arithmetic / geometric / harmonic mean; weights) or the score-ranker processor (RRF).
Client-side, the same two ranked lists are fused with ranx, for comparison and for clusters without
neural-search. Either way each fused document carries its BM25 and kNN rank and score, so a user can see why it
ranked where it did.

A results page (:meth:`FusionRetriever.search_faceted`) folds its facets and snippets into the fusion's own
requests (what the page asks: :class:`nomos.retrieval.base.PageAsk`): two for hybrid's default pool fusion.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from nomos.errors import ConfigError
from nomos.opensearch.stored_scripts import RANK_BY_POSITION
from nomos.opensearch.transport import Transport, require_transport
from nomos.retrieval.base import FacetedHits, Hit, PageAsk, Progress, SearchResult, check_k, rank, tick
from nomos.retrieval.bm25 import MSEARCH_FILTER, BM25Retriever
from nomos.retrieval.fusion_config import DEFAULT_WEIGHTS, FusionConfig
from nomos.retrieval.head_fusion import head_fuse
from nomos.retrieval.knn import KnnRetriever
from nomos.retrieval.pool_fusion import bm25_pool_page, bm25_scores_in_pool, pool_fuse

__all__ = ["DEFAULT_WEIGHTS", "FusionConfig", "FusionRetriever", "by_position", "clause_details", "client_fuse",
           "fused_hits"]

RANX_NORMS = {"min_max": "min-max", "z_score": "zmuv"}


def clause_details(bm25: list[Hit], knn: list[Hit]) -> dict[str, dict[str, Any]]:
    """doc id -> BM25 and kNN rank and score (None where a clause did not return the document)."""
    out: dict[str, dict[str, Any]] = {}
    for name, hits in (("bm25", bm25), ("knn", knn)):
        for r, h in enumerate(hits, start=1):
            out.setdefault(h.doc_id, {"bm25_rank": None, "bm25_score": None, "knn_rank": None, "knn_score": None})
            out[h.doc_id][f"{name}_rank"] = r
            out[h.doc_id][f"{name}_score"] = h.score
    return out


def fused_hits(fused: Mapping[str, list[Hit]], bm25: Mapping[str, list[Hit]], knn: Mapping[str, list[Hit]]
               ) -> tuple[dict[str, list[Hit]], dict[str, dict[str, dict[str, Any]]]]:
    """The fused rankings with each hit's clause ranks and scores in ``details``, and the same evidence as query
    id -> doc id -> ranks and scores (what a results folder's details.json records)."""
    hits: dict[str, list[Hit]] = {}
    evidence: dict[str, dict[str, dict[str, Any]]] = {}
    for qid, ranked in fused.items():
        per_doc = clause_details(bm25.get(qid, []), knn.get(qid, []))
        # a fusion's own evidence (pool fusion: the exact BM25 score of every pool article) wins over the lists'
        merged = {h.doc_id: {**per_doc.get(h.doc_id, {}), **h.details} for h in ranked}
        evidence[qid] = merged
        hits[qid] = [Hit(h.doc_id, h.score, details=merged[h.doc_id]) for h in ranked]
    return hits, evidence


def client_fuse(bm25: Mapping[str, list[Hit]], knn: Mapping[str, list[Hit]], cfg: FusionConfig, k: int) -> dict[str, list[Hit]]:
    """Fuse two runs with ranx: RRF, or weighted sum of normalised scores (arithmetic mean)."""
    from ranx import Run, fuse

    from nomos.numba_quiet import ignore_unsafe_cast_warning

    ignore_unsafe_cast_warning()  # ranx's first compile warns of a harmless cast (nomos/numba_quiet.py)

    if cfg.kind != "rrf" and (cfg.combination != "arithmetic_mean" or cfg.normalization not in RANX_NORMS):
        raise ConfigError(
            "client-side fusion supports rrf and arithmetic_mean over min_max or z_score; "
            f"got {cfg.normalization}/{cfg.combination}: use --fusion server"
        )
    qids = sorted(set(bm25) | set(knn))

    def to_run(hits: Mapping[str, list[Hit]], name: str) -> Run:
        # ranx needs every query present; an empty list becomes a zero-score placeholder it ignores
        return Run({q: ({h.doc_id: h.score for h in hits.get(q, [])} or {"__none__": 0.0}) for q in qids}, name=name)

    runs = [to_run(bm25, "bm25"), to_run(knn, "knn")]
    if cfg.kind == "rrf":
        fused = fuse(runs, norm=None, method="rrf", params={"k": cfg.rank_constant})
    else:
        weights = cfg.bm25_knn_weights
        fused = fuse(runs, norm=RANX_NORMS[cfg.normalization], method="wsum", params={"weights": [w / sum(weights) for w in weights]})
    out: dict[str, list[Hit]] = {}
    for q in qids:
        scores = fused.to_dict().get(q, {})
        out[q] = rank([Hit(d, float(s)) for d, s in scores.items() if d != "__none__"], k)
    return out


WHERES = ("server", "client", "pool")
POOL_RANKINGS = ("rrf-head", "minmax")


@dataclass
class FusionRetriever:
    """``hybrid`` / ``rrf`` over a BM25 and a kNN retriever; each fused hit carries its clause ranks and scores,
    and the result carries each clause's own ranking too."""

    transport: Transport
    index: str
    bm25: BM25Retriever
    knn: KnnRetriever
    config: FusionConfig = field(default_factory=FusionConfig)
    name: str = field(init=False, default="hybrid")

    def __post_init__(self) -> None:
        self.name = self.config.kind
        self.config = replace(self.config, where=self.config.resolved_where)
        if self.config.where not in WHERES:
            raise ConfigError(f"fusion must be one of {', '.join(WHERES)}, got {self.config.where!r}")
        if self.config.where == "pool" and (self.config.kind != "hybrid" or self.config.pool not in ("knn", "bm25")):
            raise ConfigError(f"pool fusion re-scores a 'knn' or 'bm25' pool with weights (hybrid), got {self.config.kind}/{self.config.pool}")
        if self.config.pool_ranking not in POOL_RANKINGS:
            raise ConfigError(f"pool ranking must be one of {', '.join(POOL_RANKINGS)}, got {self.config.pool_ranking!r}")
        if self.config.head < 0:
            raise ConfigError(f"the pool's RRF head must be 0 or more articles, got {self.config.head}")
        if self.config.admit < 0:
            raise ConfigError(f"the pool admits 0 or more of the other clause's articles, got {self.config.admit}")
        require_transport(self.transport, "FusionRetriever")

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_many({"q": query}, k).hits["q"]

    def _server(self, queries: Mapping[str, str], k: int, on_progress: Progress | None) -> dict[str, list[Hit]]:
        name, body = self.config.pipeline()
        # the pipeline's name is a hash of its body (nomos.mappings.pipeline_name): putting it again is harmless
        self.transport.request("PUT", f"/_search/pipeline/{name}", body, what=f"the search pipeline {name}")
        items = list(queries.items())
        vectors = self.knn.query_vectors([t for _, t in items])
        depth = max(self.config.depth, k)
        out: dict[str, list[Hit]] = {}
        for i, (qid, text) in enumerate(items):
            request = {
                "size": k,
                "query": {"hybrid": {"queries": [self.bm25.query_clause(text), self.knn.clause(vectors[i], depth)]}},
                "_source": False,
            }
            # Never dfs_query_then_fetch here, even on multi-shard indices: neural-search 2.19 runs the normalization
            # processor only after a QUERY phase, and DFS_QUERY skips it, returning unnormalised sub-query scores
            # without an error (opensearch-project/neural-search#1490; later versions reject the combination).
            # So the server-side hybrid's BM25 clause scores with per-shard statistics; `--fusion client` fuses the
            # BM25 list that was fetched with dfs instead.
            with self.knn.vectors_needed():
                resp = self.transport.search(self.index, request, what=f"query {qid!r}: hybrid search",
                                             params={"search_pipeline": name})
            out[qid] = rank([Hit(h["_id"], float(h["_score"])) for h in resp["hits"]["hits"]], k)
            tick(on_progress)
        return out

    def _pool(self, queries: Mapping[str, str], bm25: Mapping[str, list[Hit]], knn: Mapping[str, list[Hit]], k: int) -> dict[str, list[Hit]]:
        """The pool clause's top ``depth``, re-ranked with the other clause as a feature. "rrf-head": the pool's top
        ``head`` by RRF of both clauses' own lists, the rest in the pool's order (no extra request). "minmax": a
        kNN pool gets each article's exact BM25 score (the same query restricted to the pool's ids); a BM25 pool
        gets kNN's scores from kNN's own top ``depth`` (0 outside it)."""
        depth = max(self.config.depth, k)
        if self.config.pool_ranking == "rrf-head":
            pool, other_lists = (knn, bm25) if self.config.pool == "knn" else (bm25, knn)
            return head_fuse({q: hs[:depth] for q, hs in pool.items()}, other_lists, k, head=self.config.head,
                             rank_constant=self.config.rank_constant, pool_clause=self.config.pool,
                             admit=self.admitted(queries))
        if self.config.pool == "knn":
            pool = {q: hs[:depth] for q, hs in knn.items()}
            other = bm25_scores_in_pool(self.bm25, queries, {q: [h.doc_id for h in hs] for q, hs in pool.items()})
        else:
            pool = {q: hs[:depth] for q, hs in bm25.items()}
            other = {q: {h.doc_id: h.score for h in hs} for q, hs in knn.items()}
        return pool_fuse(pool, other, self.config.bm25_knn_weights, k, pool_clause=self.config.pool)

    def admitted(self, queries: Mapping[str, str]) -> dict[str, int]:
        """How many of BM25's strongest articles outside kNN's pool each query's fused list admits: ``admit`` for a
        query kNN reads in more than one window (a case file), none for one it reads whole (cross-validated:
        docs/history/benchmarks-diary.md "Reading the question")."""
        if not self.config.admit:
            return {}
        return {q: self.config.admit for q, text in queries.items() if len(self.knn.pieces(text).windows) > 1}

    def search_many(self, queries: Mapping[str, str], k: int, *, checkpoint: Path | None = None, resume: bool = False,
                    on_progress: Progress | None = None) -> SearchResult:
        """Both clauses to ``max(config.depth, k)``, then the fusion; ``clause_rankings`` holds each clause's own
        ranking (the fusion diagnosis compares them with the fused one). No LLM: ``checkpoint`` is ignored."""
        check_k(k)
        depth = max(self.config.depth, k)
        bm25 = self.bm25.search_many(queries, depth)
        knn = self.knn.search_many(queries, depth)
        if self.config.where == "server":
            fused = self._server(queries, k, on_progress)
        elif self.config.where == "pool":
            fused = self._pool(queries, bm25.hits, knn.hits, k)
            for _ in fused:
                tick(on_progress)
        else:
            fused = client_fuse(bm25.hits, knn.hits, self.config, k)
            for _ in fused:
                tick(on_progress)
        hits, evidence = fused_hits(fused, bm25.hits, knn.hits)
        notes = {q: {**bm25.query_notes.get(q, {}), **knn.query_notes.get(q, {})}  # how each clause read the query
                 for q in {*bm25.query_notes, *knn.query_notes}}
        own = SearchResult(hits, clause_evidence=evidence, clause_rankings={"bm25": bm25.hits, "knn": knn.hits},
                           query_notes=notes)
        return own.merge(bm25, knn)

    def search_faceted(self, query: str, k: int, page: PageAsk) -> FacetedHits:
        """A fused results page: the top ``k`` with what ``page`` asks for, its aggregations over the fusion's
        candidates (its ``post_filter``, a legal source, restricts the page, not the aggregations).

        Pool fusion with a kNN pool and the "minmax" pool ranking is three requests: kNN's top ``depth`` (100);
        the BM25 scores of exactly those articles with the aggregations over them and the ids the filter keeps
        (:func:`~nomos.retrieval.pool_fusion.bm25_pool_page`); the page's titles and snippets
        (``page.decorate``). The fusion is :func:`pool_fuse` itself, so the page ranks
        exactly as ``search`` does. The facets count the pool, the articles the fusion chose among; a filtered page
        is the best of the pool in that source.

        Why not one neural-search ``hybrid`` query (BM25 restricted by the ``knn`` clause in filter context, plus
        the ``knn`` clause, min-max and the weights in the pipeline): on the lucene engine a ``knn`` clause
        matches ``max(k, ef_search)`` articles (256 at the default ef_search), not ``k``, and no query can keep the
        top 100 of them, so BM25's candidates and its min-max would not be the pool's; ef_search = 100 changes
        kNN's own top 100 (94 of 100 kept on average on the stand-in's 24 queries). A two-request variant (kNN,
        then one hybrid query over the pool's ids) ranked the top 10 of all 24 queries identically but swapped
        near-tied neighbours below rank 35 in 10 queries (neural-search normalises a clause's lowest score to
        0.001, not 0) and took about 60 ms more per page (``pagination_depth`` 100).

        The "rrf-head" pool ranking (hybrid's default) needs both clauses' own lists: two requests, both lists in one
        ``_msearch`` (ranked as :meth:`search_many` ranks them), then the page over that ranking (facets over the
        pool, the page's snippets), as "client" does.

        "server" is one request: the hybrid query :meth:`search_many` sends, with the page's parts (candidates:
        every BM25 match and kNN's). "client" and a BM25 pool rank first (:meth:`search_many`, ``depth`` deep)
        and fold facets and snippets into one more request."""
        check_k(k)
        depth = max(self.config.depth, k)
        where = self.config.where
        if where == "pool" and self.config.pool == "knn" and self.config.pool_ranking == "minmax":
            pool = self.knn.search_many({"q": query}, depth).hits["q"]
            scores, aggregations, allowed = bm25_pool_page(self.bm25, query, [h.doc_id for h in pool], page.aggs,
                                                           page.post_filter)
            fused = pool_fuse({"q": pool}, {"q": scores}, self.config.bm25_knn_weights, depth, pool_clause="knn")["q"]
            shown = [h for h in fused if allowed is None or h.doc_id in allowed][:k]
            return FacetedHits(page.decorate(shown), aggregations, len(pool))
        if self.orders_pages:  # where "pool", "rrf-head"
            bm25, knn, restates = self._both_lists(query, depth, restates=page.precede > 0)
            ranked = self._pool({"q": query}, {"q": bm25}, {"q": knn}, depth)["q"]
            if page.precede:  # the amended article before its amender (issue 49), before the page is asked
                ranked = page.ordered([replace(h, details={**h.details, "restates": restates[h.doc_id]})
                                       if h.doc_id in restates else h for h in ranked])
            return self._page_of_ranking(ranked, k, page)
        if where != "server":
            ranked = self.search_many({"q": query}, depth).hits["q"]
            return self._page_of_ranking(ranked, k, page)
        vector = self.knn.query_vectors([query])[0]
        _, pipeline = self.config.pipeline()
        hybrid = {"hybrid": {"queries": [self.bm25.query_clause(query), self.knn.clause(vector, depth)]}}
        body = {**page.body({"query": hybrid}, k), "search_pipeline": pipeline}
        with self.knn.vectors_needed():
            resp = self.transport.search(self.index, body, what="the hybrid results page",
                                         params={"filter_path": page.filter_path})
        return page.read(resp, k)

    @property
    def orders_pages(self) -> bool:
        """Its results page ranks before it asks for the page (pool fusion, "rrf-head": hybrid's default), so the
        page can be ordered in between (``PageAsk.ordered``: precede) in the same requests."""
        return self.config.where == "pool" and self.config.pool_ranking == "rrf-head"

    def _both_lists(self, query: str, depth: int, *, restates: bool = False
                    ) -> tuple[list[Hit], list[Hit], dict[str, list[str]]]:
        """BM25's and kNN's own top ``depth`` for one query in one ``_msearch`` (the bodies :meth:`search_many`
        sends through each retriever, so the lists, and the fusion of them, are the same); with ``restates``, each
        listed article's ``restates`` doc values beside them (precede's, in the same request)."""
        vector = self.knn.query_vectors([query])[0]
        lines = [*self.bm25.request(query, depth), *self.knn.request(vector, depth)]
        if restates:
            lines = [{**line, "docvalue_fields": ["restates"]} if i % 2 else line for i, line in enumerate(lines)]
        with self.knn.vectors_needed():
            if restates:
                bm25, knn = self.transport.msearch(lines, labels=["BM25 list", "k-NN list"], what="BM25 and k-NN lists",
                                                   filter_path=MSEARCH_FILTER + ",responses.hits.hits.fields")
            else:
                bm25, knn = self.bm25.msearch(lines, labels=["BM25 list", "k-NN list"])
        read = {h.get("_id") or str(h["sort"][1]): list(h["fields"]["restates"]) for r in (bm25, knn)
                for h in r.get("hits", {}).get("hits", []) if h.get("fields", {}).get("restates")}
        return self.bm25.hits_of(bm25, "q", depth), self.knn.hits_of(knn, "q", depth), read

    def _page_of_ranking(self, ranked: list[Hit], k: int, page: PageAsk) -> FacetedHits:
        """A page over a ranking computed beforehand: one request scores its articles by their position (so the
        page's ``post_filter`` and ``size`` keep the ranking's order), aggregates over them and highlights the page."""
        if not ranked:
            return FacetedHits([], {}, 0)
        body = page.body({"query": by_position(ranked)}, k)
        resp = self.transport.search(self.index, body, what="the fused results page", params={"filter_path": page.filter_path})
        shown = page.read(resp, k)
        scores = {h.doc_id: h for h in ranked}
        hits = [replace(h, score=scores[h.doc_id].score, details=scores[h.doc_id].details) for h in shown.hits]
        return FacetedHits(hits, shown.aggregations, shown.matching)

    @property
    def score_kind(self) -> str:
        """The pool's RRF head then kNN's order: positions; a weighted min-max sum: fused; RRF: its own score."""
        c = self.config
        if c.resolved_where == "pool":
            return "rank" if c.pool_ranking == "rrf-head" else "fused"
        return "rrf" if c.kind == "rrf" else "fused"

    def describe(self) -> dict[str, Any]:
        c = self.config
        fusion: dict[str, Any] = {"kind": c.kind, "where": c.where, "depth": c.depth}
        if c.where == "pool":
            fusion["pool"] = c.pool
            fusion["pool_ranking"] = c.pool_ranking
            if c.pool_ranking == "rrf-head":  # weights and normalisation play no part
                return {"method": self.name, "index": self.index, "bm25": self.bm25.describe(), "knn": self.knn.describe(),
                        "fusion": {**fusion, "head": c.head, "admit": c.admit, "rank_constant": c.rank_constant}}
        if c.kind == "rrf":
            fusion["rank_constant"] = c.rank_constant
        else:
            fusion.update({"normalization": c.normalization, "combination": c.combination, "weights": list(c.bm25_knn_weights)})
        if c.where == "server":
            fusion["pipeline"] = c.pipeline()[1]
        return {"method": self.name, "index": self.index, "bm25": self.bm25.describe(), "knn": self.knn.describe(), "fusion": fusion}


def by_position(ranked: Sequence[Hit]) -> dict[str, Any]:
    """A query that scores a ranking's articles by their position (the stored script ``RANK_BY_POSITION``), so a
    page's ``post_filter`` and ``size`` keep the ranking's order."""
    positions = {h.doc_id: len(ranked) - i for i, h in enumerate(ranked)}
    return {"script_score": {"query": {"ids": {"values": list(positions)}}, "script": RANK_BY_POSITION.ref({"p": positions})}}
