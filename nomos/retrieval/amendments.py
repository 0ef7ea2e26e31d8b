"""Amendment-aware ranking, one decorator over any method: an amending article brings the article it amends.

Greek amending articles repeat the text they amend («Τροποποίηση της παρ. 1 του άρθρου 372 ΠΚ … το άρθρο 372
διαμορφώνεται ως εξής: …»), so every method finds them for the words of the article itself, often above it. The
index records each article's resolved amendment targets in the keyword field ``amends`` (the legal graph,
nomos/legal/graph/references.py), and this stage reads them for the first stage's top ``depth`` (one ``mget``):

* ``follow``: each amended article is put right after the first (highest) article amending it, moved up from
  where the method had it or brought in from outside its list; scores become rank-derived (strictly descending).
* ``credit``: an amended article's score becomes its own plus ``weight`` × the best score among the articles
  amending it (0 when the method had not found it), and the list is re-sorted by (score desc, doc id).
* ``precede`` (issue 49): an article ``restates`` (an amending article whose text is mostly another corpus
  article's new wording, the ``restates`` field ingest writes from the consolidation engine's steps) has that
  article put right before it, moved up or brought in; the amending article stays right after it (a lawyer cites
  both). ``search "κλοπή ρολογιού"`` put N_4855_2021::86 («Κλοπή - Τροποποίηση της παρ. 1») first and PK::372
  fourth; with ``precede`` PK::372 comes first, marked as amended by it. Scores become rank-derived. It orders what
  the method's second stage gives (a learned ranker re-orders its whole pool and would undo it), where ``follow``
  and ``credit`` feed the second stage; knn's and hybrid's default (registry.AMENDMENT_DEFAULTS, cross-validated).
  A ranking that reads each article's ``restates`` with its own request (``reads_restates``: the learned ranker's
  pool search; hybrid's fused page reads them with its two lists) needs no ``mget``, and a results page is ordered
  on the page floor (:func:`precede_page`: each hit keeps the method's score, the page says "amended first").
* ``off``: the method's ranking as it is.

Written once, like the re-ranker, so every method (BM25, kNN, fusions, LLM methods) gets the same option. Every
moved article is recorded in ``query_notes[qid]["amendments"]`` (eval writes it to details.json): which article
moved, which amending article brought it, and its rank before (None: not in the list) and after.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from nomos.errors import ConfigError
from nomos.opensearch.transport import Transport
from nomos.retrieval.base import Hit, Progress, Retriever, SearchResult, check_k, rank

MODES = ("off", "follow", "credit", "precede")
DEFAULT_DEPTH = 100  # amending articles this deep in the first stage's list bring their targets
DEFAULT_WEIGHT = 0.5  # credit: share of the amending article's score an amended article receives

RESTATES = "restates"  # the index field precede reads, and the hit detail a ranker that read it carries it in
# article id -> the article ids it amends (resolved corpus ids, the ``amends`` field)
Targets = Mapping[str, Sequence[str]]
Lookup = Callable[[Sequence[str]], Targets]


@dataclass(frozen=True)
class AmendmentConfig:
    """What ``--amendments`` says: ``off``, ``follow[:DEPTH]`` or ``credit[:WEIGHT[:DEPTH]]``."""

    mode: str = "off"
    depth: int = DEFAULT_DEPTH
    weight: float = DEFAULT_WEIGHT

    @property
    def active(self) -> bool:
        return self.mode != "off"

    @property
    def spec(self) -> str:
        """The option's canonical text (the results folder's name part, the manifest)."""
        if self.mode in ("follow", "precede"):
            return self.mode if self.depth == DEFAULT_DEPTH else f"{self.mode}:{self.depth}"
        if self.mode == "credit":
            tail = "" if self.depth == DEFAULT_DEPTH else f":{self.depth}"
            return "credit" if (self.weight == DEFAULT_WEIGHT and not tail) else f"credit:{self.weight:g}{tail}"
        return "off"


def parse_amendments(spec: str | None) -> AmendmentConfig:
    """``off`` | ``follow[:DEPTH]`` | ``credit[:WEIGHT[:DEPTH]]`` → :class:`AmendmentConfig`; anything else is a
    :class:`ConfigError` naming the option."""
    text = (spec or "off").strip().lower()
    mode, *rest = text.split(":")
    bad = ConfigError(f"amendments {spec!r}: expected off, follow[:DEPTH], precede[:DEPTH] or credit[:WEIGHT[:DEPTH]]",
                      hint="e.g. follow or credit:0.5 (the amendments option, --amendments, NOMOS_AMENDMENTS)")
    if mode not in MODES or (mode == "off" and rest) or (mode in ("follow", "precede") and len(rest) > 1) \
            or len(rest) > 2:
        raise bad
    try:
        if mode in ("follow", "precede"):
            cfg = AmendmentConfig(mode, depth=int(rest[0]) if rest else DEFAULT_DEPTH)
        elif mode == "credit":
            cfg = AmendmentConfig("credit", weight=float(rest[0]) if rest else DEFAULT_WEIGHT,
                                  depth=int(rest[1]) if len(rest) > 1 else DEFAULT_DEPTH)
        else:
            cfg = AmendmentConfig()
    except ValueError:
        raise bad from None
    if cfg.depth < 1 or not 0 <= cfg.weight <= 10:
        raise bad
    return cfg


def stored_targets(transport: Transport, index: str, field: str = "amends") -> Lookup:
    """A lookup of the ``amends`` field (``restates`` for ``precede``) for a list of article ids (one ``mget``)."""

    def lookup(ids: Sequence[str]) -> Targets:
        if not ids:
            return {}
        docs = transport.mget(index, list(ids), source=[field], what="the articles the results amend")
        out: dict[str, list[str]] = {}
        for d in docs:
            amends = (d.get("_source") or {}).get(field) if d.get("found") else None
            if amends:
                out[d["_id"]] = [amends] if isinstance(amends, str) else list(amends)
        return out

    return lookup


def follow(hits: Sequence[Hit], targets: Targets, depth: int) -> tuple[list[Hit], list[dict[str, Any]]]:
    """Each amended article right after the first article (within ``depth``) that amends it; scores rank-derived.
    Returns the new list (as long as the input plus the articles brought in) and the moves."""
    before = {h.doc_id: i for i, h in enumerate(hits)}
    by_id = {h.doc_id: h for h in hits}
    placed: set[str] = set()
    order: list[tuple[Hit, str | None]] = []  # (hit, the amending article that brought it)
    for i, h in enumerate(hits):
        if h.doc_id in placed:
            continue
        order.append((h, None))
        placed.add(h.doc_id)
        if i >= depth:
            continue
        for t in targets.get(h.doc_id, ()):
            if t in placed or t == h.doc_id:
                continue
            order.append((by_id.get(t) or Hit(t, 0.0), h.doc_id))
            placed.add(t)
    return _placed(order, before)


def credit(hits: Sequence[Hit], targets: Targets, depth: int, weight: float) -> tuple[list[Hit], list[dict[str, Any]]]:
    """Each amended article's score plus ``weight`` × the best score of an article (within ``depth``) amending it;
    re-sorted by (score desc, doc id). Returns the new list and the articles whose rank changed because of it."""
    before = {h.doc_id: i for i, h in enumerate(hits)}
    by_id = {h.doc_id: h for h in hits}
    best: dict[str, tuple[float, str]] = {}  # target -> (best amending score, that article)
    for h in hits[:depth]:
        for t in targets.get(h.doc_id, ()):
            if t != h.doc_id and (t not in best or h.score > best[t][0]):
                best[t] = (h.score, h.doc_id)
    credited = [replace(by_id.get(t) or Hit(t, 0.0), score=(by_id[t].score if t in by_id else 0.0) + weight * s,
                        details={**(by_id[t].details if t in by_id else {}), "first_score": by_id[t].score if t in by_id else None,
                                 "amended_by": by})
                for t, (s, by) in sorted(best.items())]
    out = rank([h for h in hits if h.doc_id not in best] + credited, len(hits) + len(credited))
    moves = [{"id": h.doc_id, "by": best[h.doc_id][1], "from": None if before.get(h.doc_id) is None else before[h.doc_id] + 1,
              "to": pos + 1} for pos, h in enumerate(out) if h.doc_id in best and before.get(h.doc_id) != pos]
    return out, moves


def precede(hits: Sequence[Hit], targets: Targets, depth: int) -> tuple[list[Hit], list[dict[str, Any]]]:
    """Each article an amending article (within ``depth``) restates, right before the first one that restates it
    (moved up, or brought in; never moved down); scores rank-derived. ``targets``: the ``restates`` field."""
    before = {h.doc_id: i for i, h in enumerate(hits)}
    by_id = {h.doc_id: h for h in hits}
    placed: set[str] = set()
    order: list[tuple[Hit, str | None]] = []
    for i, h in enumerate(hits):
        if h.doc_id in placed:
            continue
        if i < depth:
            for t in targets.get(h.doc_id, ()):
                if t not in placed and t != h.doc_id:
                    order.append((by_id.get(t) or Hit(t, 0.0), h.doc_id))
                    placed.add(t)
        order.append((h, None))
        placed.add(h.doc_id)
    return _placed(order, before)


def carried(hits: Sequence[Hit]) -> Targets:
    """The ``restates`` the ranking's own request read with its hits (``details["restates"]``: a ranker that
    ``reads_restates``), as :func:`precede` takes them: no ``mget``."""
    return {h.doc_id: h.details[RESTATES] for h in hits if h.details.get(RESTATES)}


def precede_page(hits: Sequence[Hit], depth: int) -> list[Hit]:
    """A results page's order under ``precede`` (issue 49), over a ranking whose hits carry their ``restates``: as
    :func:`precede` orders, but each hit keeps the method's own score (an article brought in from outside the list
    has none: 0), so a page says "amended first" rather than turning the method's scores into positions. The moved
    article's ``details["amended_by"]`` names the amender that placed it."""
    out, _ = precede(hits, carried(hits), depth)
    return [replace(h, score=h.details["first_score"],
                    details={k: v for k, v in h.details.items() if k != "first_score"}) for h in out]


def _placed(order: Sequence[tuple[Hit, str | None]],
            before: Mapping[str, int]) -> tuple[list[Hit], list[dict[str, Any]]]:
    """``order``'s hits scored by position (the first highest), each placed by an amender (``by``) noted with where it
    moved from (``before``: id -> its old position); the moves listed."""
    n = len(order)
    out: list[Hit] = []
    moves: list[dict[str, Any]] = []
    for pos, (h, by) in enumerate(order):
        old = before.get(h.doc_id)
        if by is not None and old != pos:
            moves.append({"id": h.doc_id, "by": by, "from": None if old is None else old + 1, "to": pos + 1})
        out.append(replace(h, score=float(n - pos), details={**h.details, "first_score": h.score,
                                                              **({"amended_by": by} if by else {})}))
    return out, moves


def apply(hits: Sequence[Hit], targets: Targets, config: AmendmentConfig) -> tuple[list[Hit], list[dict[str, Any]]]:
    """One query's list under ``config`` (the pure part: tested on hand-made lists)."""
    if config.mode == "follow":
        return follow(hits, targets, config.depth)
    if config.mode == "precede":
        return precede(hits, targets, config.depth)
    if config.mode == "credit":
        return credit(hits, targets, config.depth, config.weight)
    return list(hits), []


@dataclass
class AmendmentRetriever:
    """Any retriever, then the amendment stage over its top ``config.depth`` (targets read by ``lookup``)."""

    first: Retriever
    lookup: Lookup
    config: AmendmentConfig
    name: str = field(init=False, default="")

    def __post_init__(self) -> None:
        self.name = f"{self.first.name}+amendments-{self.config.mode}"

    def search(self, query: str, k: int) -> list[Hit]:
        return self.search_many({"q": query}, k).hits["q"]

    def search_many(self, queries: Mapping[str, str], k: int, *, checkpoint: Path | None = None, resume: bool = False,
                    on_progress: Progress | None = None) -> SearchResult:
        """The first stage at ``k`` (its checkpoint and progress), one ``mget`` of the heads' targets (none where the
        first stage ``reads_restates``: its hits carry them), then each list re-ordered and cut to ``k``; the moves
        go to ``query_notes`` beside the first stage's notes."""
        check_k(k)
        first = self.first.search_many(queries, k, checkpoint=checkpoint, resume=resume, on_progress=on_progress)
        heads = sorted({h.doc_id for hs in first.hits.values() for h in hs[: self.config.depth]})
        if self.config.mode == "precede" and getattr(self.first, "reads_restates", False):  # read with the ranking
            targets = carried([h for hs in first.hits.values() for h in hs])
        else:
            targets = self.lookup(heads) if self.config.active else {}
        hits: dict[str, list[Hit]] = {}
        notes: dict[str, dict[str, Any]] = {}
        for q, hs in first.hits.items():
            new, moves = apply(hs, targets, self.config)
            hits[q] = new[:k]
            if moves:
                notes[q] = {**first.query_notes.get(q, {}), "amendments": moves}
        return SearchResult(hits=hits, query_notes=notes).merge(first)

    @property
    def score_kind(self) -> str:
        return "rank"

    def describe(self) -> dict[str, Any]:
        return {**self.first.describe(), "amendments": {"mode": self.config.mode, "depth": self.config.depth,
                                                        **({"weight": self.config.weight} if self.config.mode == "credit" else {})}}
