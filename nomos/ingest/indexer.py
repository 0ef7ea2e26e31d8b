"""Create a versioned articles index behind an alias, fill it, verify it, and swap the alias atomically.

The version name is a hash of (index body, dataset fingerprint): re-running the same command resumes into the
same index (documents are overwritten by id), while a changed mapping or corpus gets a fresh index that only
replaces the live one once it is complete and verified.
"""

from __future__ import annotations

import contextlib
import functools
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Iterator

from opensearchpy import OpenSearch, helpers
from opensearchpy.exceptions import ConnectionError as OSConnectionError
from opensearchpy.exceptions import ConnectionTimeout, NotFoundError, RequestError

from nomos.ingest.anchor_vectors import bridge_entry, fill_bridge, lacking_anchor_vectors
from nomos.ingest.bridge import Bridge
from nomos.ingest.bulk import content_sha, load_articles
from nomos.ingest.graph import CorpusReading
from nomos.ingest.in_force import CorpusInForce
from nomos.ingest.records import Dataset
from nomos.ingest.vectors import Resend, VectorReport, fill_vectors, fill_windows, ids_missing_windows
from nomos.mappings import MappingError, anchor_vectors_field_name, body_hash, vector_field_name, windows_field_name
from nomos.opensearch.client import ClusterUnavailable
from nomos.opensearch.transport import Transport
from nomos.vectors.adapter import adapter_index
from nomos.vectors.cache import VectorCache
from nomos.vectors.encoders import Encoder, slug


class IndexInterrupted(ClusterUnavailable):
    """The cluster went away mid-load (a node died); the message says the alias is untouched and how to resume."""


@dataclass(frozen=True)
class IndexReport:
    """What ``index`` did, for the CLI to print and tests to check."""

    alias: str
    index: str
    documents: int
    created: bool
    seconds: float
    previous: tuple[str, ...]
    deleted: tuple[str, ...]
    sent: int = 0
    vectors: tuple[VectorReport, ...] = ()
    # the bridge fields' counts (nomos.ingest.bridge.Bridge.counts): articles with anchors, anchor texts, headed
    bridge: dict[str, int] = field(default_factory=dict)


def versioned_name(alias: str, body: dict[str, Any], dataset: Dataset) -> str:
    return f"{alias}-{body_hash(body, dataset.corpus_key)}"


def alias_targets(client: OpenSearch, alias: str) -> list[str]:
    """Indices the alias points at now (empty if the alias does not exist). Asked of the alias itself, not of every
    index: on a secured cluster the indexer's role covers the alias and its indices only."""
    try:
        return sorted(client.indices.get_alias(index=alias, name=alias).keys())
    except NotFoundError:
        return []


def index_meta(client: OpenSearch, alias: str) -> dict[str, Any]:
    """The ``_meta`` block of the index behind ``alias`` (dataset, BM25 parameters, when built). Read through the
    transport, so a missing index is :class:`~nomos.errors.IndexNotFound` naming it (eval, tune: one clear line)."""
    only = next(iter(Transport(client, retry_seconds=0.0).get_mapping(alias, what=f"the index behind {alias}").values()))
    return dict(only.get("mappings", {}).get("_meta", {}))


def create_index(client: OpenSearch, name: str, body: dict[str, Any]) -> bool:
    """Create ``name`` unless it exists; a body OpenSearch refuses raises MappingError with its reason."""
    if client.indices.exists(index=name):
        return False
    try:
        client.indices.create(index=name, body=body)
    except RequestError as exc:
        info = exc.info.get("error", {}) if isinstance(exc.info, dict) else {}
        reason = info.get("reason") or exc.error
        caused = info.get("caused_by", {}).get("reason") if isinstance(info.get("caused_by"), dict) else None
        raise MappingError(
            f"OpenSearch rejected the mapping for {name}: {reason}" + (f" (caused by: {caused})" if caused else "")
        ) from None
    return True


def swap_alias(client: OpenSearch, alias: str, new_index: str) -> list[str]:
    """Point ``alias`` at ``new_index`` only, in one atomic ``_aliases`` call; returns the indices it left."""
    # asked of the alias itself (HEAD /<alias>/_alias/<alias>): on a secured cluster the indexer may not look at
    # every index's aliases (HEAD /_alias/<alias> was a 403 on every re-index)
    if client.indices.exists(index=alias) and not client.indices.exists_alias(index=alias, name=alias):
        raise MappingError(f"{alias!r} is a concrete index, not an alias: delete or rename it first")
    old = [i for i in alias_targets(client, alias) if i != new_index]
    actions: list[dict[str, Any]] = [{"remove": {"index": i, "alias": alias}} for i in old]
    actions.append({"add": {"index": new_index, "alias": alias}})
    client.indices.update_aliases(body={"actions": actions})
    return old


def existing_shas(client: OpenSearch, index: str) -> dict[str, str]:
    """article id (``_id``) -> content hash of what the index holds now (to skip unchanged articles on a re-run);
    read with ``helpers.scan`` (a mapping: no order needed)."""
    query = {"_source": False, "docvalue_fields": ["content_sha"]}
    return {str(h["_id"]): (h.get("fields", {}).get("content_sha") or [""])[0]
            for h in helpers.scan(client, query=query, index=index, size=2000)}


@dataclass(frozen=True)
class VectorPlan:
    """Which encoders to add to the index, with their HNSW parameters and the cache to encode through."""

    encoders: tuple[Encoder, ...] = ()
    cache: VectorCache | None = None
    m: int = 16
    ef_construction: int = 128
    # how long to wait for the vectors' replaced copies to be purged (see expunge_replaced); 0: do not wait
    expunge_wait_s: float = 90.0
    # after each encoder's single vectors, its article windows (nomos.vectors.windows) in a nested field
    windows: bool = True
    # then its anchor vectors and the query adapter (nomos.ingest.anchor_vectors: the learned ranker's dense bridge)
    bridge: bool = True


def build_index(
    client: OpenSearch,
    dataset: Dataset,
    alias: str,
    body: dict[str, Any],
    meta: dict[str, Any],
    keep_previous: int = 1,
    on_progress: Callable[[int], None] | None = None,
    vectors: VectorPlan | None = None,
    on_vector_progress: Callable[[int], None] | None = None,
    on_published: Callable[[str], None] | None = None,
    on_vector_skip: Callable[[int], None] | None = None,
) -> IndexReport:
    """The whole ``index`` stage: create (or resume), load what is new or changed, refresh, verify the count, swap
    the alias, prune old versions, add vectors.

    The alias moves once the text is complete and verified, so BM25 serves the new index while vectors are being
    computed (encoding a corpus on a CPU takes far longer than loading it), and vectors are filled in place on the
    live index. One exception keeps the swap from ever taking a working method away: vector fields the index now
    behind the alias already holds complete are filled *before* the swap (from the vector cache, mostly). A re-run
    resumes whatever is missing, before or after the swap. ``on_published(name)`` is called once the alias serves
    ``name`` (the command line says so before the long vector stage starts); ``on_vector_skip(n)``: n articles of a
    vectors pass already had theirs (a resumed run), so the log's time left counts only what this run encodes."""
    started = time.perf_counter()
    body = {**body, "mappings": {**body["mappings"], "_meta": {}}}
    name = versioned_name(alias, body, dataset)
    body["mappings"]["_meta"] = {
        **meta,
        "dataset": dataset.describe(),
        "index_version": name,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    created = create_index(client, name, body)
    have = {} if created else existing_shas(client, name)
    reading = CorpusReading.of(dataset.articles)  # over the whole corpus: a resumed load sends only some articles
    bridge = Bridge.of(dataset.articles, reading)  # anchors and headings: they too depend on other articles
    in_force_of = CorpusInForce.of(dataset.articles, reading)  # the texts in force: amending articles are others
    todo = [a for a in dataset.articles
            if have.get(a.id) != content_sha(a, reading.source(a), in_force_of.digest(a), bridge.key(a))]
    if on_progress and len(todo) < len(dataset.articles):
        on_progress(len(dataset.articles) - len(todo))  # unchanged articles count as done
    plan = vectors or VectorPlan()
    live = [i for i in alias_targets(client, alias) if i != name]
    carried = [e for e in plan.encoders if live and _complete(client, live[0], e)]
    later = [e for e in plan.encoders if e not in carried]
    fill = functools.partial(_fill, client, name, dataset, plan, on_vector_progress, on_vector_skip)
    resend = Resend(plan.encoders, plan.cache, bridge.anchors)
    fill_w = functools.partial(_fill_windows, client, name, dataset, plan, resend, on_vector_progress, on_vector_skip)
    fill_b = functools.partial(_fill_bridge, client, name, dataset, plan, resend)
    carried_windows = [e for e in carried if plan.windows and _windows_complete(client, live[0], e)]
    carried_bridge = [e for e in carried if plan.bridge and _bridge_complete(client, live[0], e)]
    # Loading is much faster without periodic refreshes; restore the default afterwards.
    with _interruptible(alias, name, published=False):
        client.indices.put_settings(index=name, body={"index": {"refresh_interval": "-1"}})
        try:
            load_articles(client, todo, name, on_progress=on_progress, reading=reading, bridge=bridge,
                          in_force_of=in_force_of)
            reports = [fill(e) for e in carried] + [fill_w(e) for e in carried_windows]
            reports += [fill_b(e) for e in carried_bridge]
        finally:
            client.indices.put_settings(index=name, body={"index": {"refresh_interval": None}})
    client.indices.refresh(index=name)
    count = int(client.count(index=name)["count"])
    if count != len(dataset.articles):
        raise RuntimeError(
            f"{name} holds {count} documents but the corpus has {len(dataset.articles)}: "
            "the alias was left where it was; re-run `index` to finish"
        )
    previous = swap_alias(client, alias, name)
    # Prune only when this run replaced something, so a re-run never deletes the rollback copy.
    kept = [name, *previous[:keep_previous]]
    deleted = prune_versions(client, alias, keep=[*kept, *(adapter_index(k) for k in kept)]) if previous else []
    if on_published:
        on_published(name)
    with _interruptible(alias, name, published=True):
        reports += [fill(e) for e in later]
        # the windows last: hybrid serves from the single vectors while they are encoded
        reports += [fill_w(e) for e in plan.encoders if plan.windows and e not in carried_windows]
        # the dense bridge last (the ranker reads it once it is complete; until then it ranks without it)
        reports += [fill_b(e) for e in plan.encoders if plan.bridge and e not in carried_bridge]
        if any(r.filled for r in reports) and plan.expunge_wait_s > 0:
            expunge_replaced(client, name, plan.expunge_wait_s)
        merge_segments(client, name)
    return IndexReport(
        alias, name, count, created, time.perf_counter() - started, tuple(previous), tuple(deleted), len(todo), tuple(reports),
        bridge.counts(dataset.articles),
    )


def expunge_replaced(client: OpenSearch, index: str, wait_s: float, every_s: float = 5.0) -> bool:
    """Purge the copies the vectors' partial updates replaced, so BM25 scores as on a text-only index.

    An update is a delete and an add; OpenSearch keeps the deleted copy (a soft delete) while a retention lease may
    still need it, and Lucene's term statistics count it until a merge drops it: BM25 scores drift (PK::372 5.36 →
    5.50 on the mini set, docs/history/benchmarks-diary.md "BM25 on an index whose vectors came after its text").
    The leases move on at their background sync (every 30 s), after which ``only_expunge_deletes`` merges the copies
    away; so merge, and again every ``every_s`` until none is left or ``wait_s`` has passed. Returns whether none is
    left."""
    deadline = time.monotonic() + wait_s
    while True:
        client.indices.forcemerge(index=index, params={"only_expunge_deletes": "true"})
        client.indices.refresh(index=index)
        left = int(client.indices.stats(index=index, metric="docs")["_all"]["primaries"]["docs"]["deleted"])
        if left == 0 or time.monotonic() + every_s > deadline:
            return left == 0
        time.sleep(every_s)


MERGE_TIMEOUT_S = 3600  # a force merge of a large corpus with its HNSW graphs takes minutes, not seconds


def merge_segments(client: OpenSearch, index: str) -> bool:
    """Merge a finished index into one segment; returns whether it merged (False: one segment already).

    An index is written once and read by every page after: loading in bulk batches and filling vectors in place
    leave it in a dozen segments, and every query term is then looked up in each segment's dictionary, every
    snippet's terms too, and each segment has its own HNSW graph to walk. On the stand-in a BM25 page cost
    OpenSearch 8.7 ms of CPU without snippets on 12 segments and 4.8 ms on one (docs/benchmarks.md "A results page
    in half the CPU"). Scores do not change: BM25's statistics are the index's, not a segment's. The merge runs
    after the alias serves the index (searches go on meanwhile) and after the vectors' replaced copies are
    expunged; a re-run merges only when something left more than one segment."""
    shards = client.indices.segments(index=index)["indices"][index]["shards"].values()
    if all(len(copy.get("segments", {})) <= 1 for copies in shards for copy in copies):
        return False
    client.indices.forcemerge(index=index, params={"max_num_segments": "1", "request_timeout": MERGE_TIMEOUT_S})
    client.indices.refresh(index=index)
    return True


PROGRESS_EVERY_S = 30.0  # how often a vectors pass writes its rate into the index's _meta (the readiness ETA)


class RateNote:
    """Passes an encoder's progress on and, every ``every_s``, writes the pass's rate (articles per second) into the
    index's ``_meta.progress`` under the field's name, so whoever asks how far hybrid is (the command line, the
    portal) can say how long is left without a request of its own."""

    def __init__(self, client: OpenSearch, index: str, field: str, on_progress: Callable[[int], None] | None,
                 every_s: float = PROGRESS_EVERY_S, clock: Callable[[], float] = time.monotonic,
                 left: int | None = None) -> None:
        self.client, self.index, self.field, self.on_progress = client, index, field, on_progress
        self.every_s, self.clock = every_s, clock
        self.started = self.noted = clock()
        self.done = 0
        self.left = left  # the articles this pass has to encode (None: unknown; readers count the index's instead)

    def __call__(self, n: int) -> None:
        if self.on_progress is not None:
            self.on_progress(n)
        self.done += n
        now = self.clock()
        if now - self.noted >= self.every_s and now > self.started:
            meta = index_meta(self.client, self.index)
            note: dict[str, float] = {"rate": round(self.done / (now - self.started), 4), "at": round(time.time(), 1)}
            if self.left is not None:  # what the log line divides by the same rate (nomos.eta)
                note["left"] = max(self.left - self.done, 0)
            meta.setdefault("progress", {})[self.field] = note
            self.client.indices.put_mapping(index=self.index, body={"_meta": meta})
            self.noted = now


def _complete(client: OpenSearch, index: str, encoder: Encoder) -> bool:
    """Whether every document of ``index`` holds ``encoder``'s vector field."""
    field = vector_field_name(slug(encoder.spec))
    total = int(client.count(index=index)["count"])
    return total > 0 and int(client.count(index=index, body={"query": {"exists": {"field": field}}})["count"]) == total


def _fill(client: OpenSearch, name: str, dataset: Dataset, plan: VectorPlan,
          on_vector_progress: Callable[[int], None] | None, on_skip: Callable[[int], None] | None,
          encoder: Encoder) -> VectorReport:
    """One encoder's vectors for every article that lacks them, then the check that all have them and the index's
    ``_meta.vectors`` entry (what ``index_meta`` and the readiness of hybrid search read)."""
    field = vector_field_name(slug(encoder.spec))
    left = int(client.count(index=name)["count"]) - int(client.count(index=name, body={"query": {"exists": {"field": field}}})["count"])
    note = RateNote(client, name, field, on_vector_progress, left=left)
    report = fill_vectors(client, name, list(dataset.articles), encoder, plan.cache, plan.m, plan.ef_construction, note,
                          on_skip)
    client.indices.refresh(index=name)
    if report.filled:
        _forget_broken_windows(client, name)
    with_field = int(client.count(index=name, body={"query": {"exists": {"field": report.field}}})["count"])
    if with_field != len(dataset.articles):
        raise RuntimeError(f"{name}: {with_field} of {len(dataset.articles)} articles have {report.field}; "
                           "re-run `index` to finish")
    live_meta = index_meta(client, name)
    live_meta.setdefault("vectors", {})[report.field] = report.encoder
    client.indices.put_mapping(index=name, body={"_meta": live_meta})
    return report


def _windows_complete(client: OpenSearch, index: str, encoder: Encoder) -> bool:
    """Whether ``index``'s ``_meta`` lists ``encoder``'s windows as complete (checked by :func:`_fill_windows`)."""
    return windows_field_name(slug(encoder.spec)) in (index_meta(client, index).get("windows") or {})


def _fill_windows(client: OpenSearch, name: str, dataset: Dataset, plan: VectorPlan, resend: Resend,
                  on_vector_progress: Callable[[int], None] | None, on_skip: Callable[[int], None] | None,
                  encoder: Encoder) -> VectorReport:
    """One encoder's article windows for every article that lacks them, the check that all have them, and the
    index's ``_meta.windows`` entry (then dense search scores articles by their best window)."""
    report = fill_windows(client, name, list(dataset.articles), encoder, plan.cache, plan.m, plan.ef_construction,
                          on_vector_progress, resend, on_skip)
    client.indices.refresh(index=name)
    if ids_missing_windows(client, name, report.field):
        raise RuntimeError(f"{name}: some articles lack {report.field}; re-run `index` to finish")
    live_meta = index_meta(client, name)
    live_meta.setdefault("windows", {})[report.field] = report.encoder
    client.indices.put_mapping(index=name, body={"_meta": live_meta})
    return report


def _bridge_complete(client: OpenSearch, index: str, encoder: Encoder) -> bool:
    """Whether ``index``'s ``_meta`` lists ``encoder``'s dense bridge (anchor vectors and adapter) as complete."""
    return anchor_vectors_field_name(slug(encoder.spec)) in (index_meta(client, index).get("bridge") or {})


def _fill_bridge(client: OpenSearch, name: str, dataset: Dataset, plan: VectorPlan, resend: Resend,
                 encoder: Encoder) -> VectorReport:
    """One encoder's dense bridge (:func:`~nomos.ingest.anchor_vectors.fill_bridge`), then the index's
    ``_meta.bridge`` entry: what the learned ranker checks before it reads the bridge's features."""
    done = _bridge_complete(client, name, encoder)
    report, adapter = fill_bridge(client, name, list(dataset.articles), resend.anchors, encoder, plan.cache, resend,
                                  plan.m, plan.ef_construction, refit=not done)
    if adapter is not None:  # fitted again: something changed (or the entry was never written)
        live_meta = index_meta(client, name)
        live_meta.setdefault("bridge", {})[report.field] = bridge_entry(encoder, resend.anchors, adapter)
        client.indices.put_mapping(index=name, body={"_meta": live_meta})
    return report


def _forget_broken_windows(client: OpenSearch, name: str) -> None:
    """Single-vector updates drop the windows of encoders outside the plan (not in ``_source``): such a windows
    field is taken off ``_meta.windows`` once an article lacks it, so dense search uses that encoder's single
    vectors until `index --embedder` fills its windows again."""
    live_meta = index_meta(client, name)
    listed = dict(live_meta.get("windows") or {})
    broken = [f for f in listed if ids_missing_windows(client, name, f)]
    bridged = dict(live_meta.get("bridge") or {})
    dropped = [f for f in bridged if lacking_anchor_vectors(client, name, f)]
    if broken or dropped:
        live_meta["windows"] = {f: v for f, v in listed.items() if f not in broken}
        live_meta["bridge"] = {f: v for f, v in bridged.items() if f not in dropped}
        client.indices.put_mapping(index=name, body={"_meta": live_meta})


@contextlib.contextmanager
def _interruptible(alias: str, name: str, published: bool) -> Iterator[None]:
    """A lost cluster becomes :class:`IndexInterrupted`, saying what is live and how to resume."""
    try:
        yield
    except (OSConnectionError, ConnectionTimeout) as lost:
        state = (f"The alias {alias!r} already serves {name} (BM25 works; vectors are incomplete)" if published else
                 f"Nothing was published: the alias {alias!r} still points where it did")
        raise IndexInterrupted(
            f"lost the cluster while loading {name} ({type(lost).__name__}: {lost}). {state}. Start the cluster again "
            f"and re-run `index`: it resumes into {name}, re-sends only what is missing or changed, and checks the "
            "counts."
        ) from None


def prune_versions(client: OpenSearch, alias: str, keep: list[str]) -> list[str]:
    """Delete older ``{alias}-*`` versions not in ``keep`` (the live one and the previous, for rollback)."""
    existing = client.indices.get(index=f"{alias}-*", expand_wildcards="open,closed", ignore_unavailable=True)
    doomed = sorted(set(existing) - set(keep))
    for name in doomed:
        client.indices.delete(index=name)
    return doomed
