"""The learned ranker (``--rerank ltr``): LambdaMART over a pool of first-stage lists, with features they lack.

* :mod:`~nomos.retrieval.ltr.features`: the feature list (versioned) and :class:`FeatureReader`, which reads a
  pool's features through OpenSearch, for training and query time alike;
* :mod:`~nomos.retrieval.ltr.pools`: the lists a pool is made of (the first stage's, the anchor clause's);
* :mod:`~nomos.retrieval.ltr.judged`: the judged queries' log (what people who asked before said of an article) and
  its three columns, which the default model reads where the index holds the log's articles;
* :mod:`~nomos.retrieval.ltr.model`: training, the model file and its card, loading with the feature check;
* :mod:`~nomos.retrieval.ltr.retriever`: :class:`LearnedRanker`, what the registry builds for ``--rerank ltr``.

Imported by the registry only when a learned ranker is asked for (LightGBM loads then); bench/ltr_study.py trains and
cross-validates models.
"""
