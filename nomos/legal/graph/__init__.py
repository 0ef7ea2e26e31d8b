"""The legal graph's edges read from an article's text: ``references`` (the extractor, ``extract_references``),
``edges`` (``Reference``, the document's edge fields, ``REFERENCES_VERSION``), ``vocabulary`` (the words its rules
are written in), ``clauses`` (the clause around a reference), ``sources`` and ``openings`` (the law of an article
cited without one), ``scopes`` (what the title and tables say), ``follow_ups`` (paragraphs an amendment names after
its article) and ``insertions`` (chapters an amending law inserts into another law).

Reads text through ``nomos.legal.text`` only; never imports ``nomos.legal.inforce``. Ingest, eval, retrieval and
the stages above may import it.
"""
