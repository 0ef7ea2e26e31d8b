"""The reading of Greek legal text, in three packages:

* ``text``: what reads any legal text, a query or a statute: folding, citations and article ids, legal areas,
  citation forms, article parts (paragraphs, cases, sentences, headings), lemmas;
* ``graph``: the legal graph's edges read from an article's text at ingest (the extractor, its vocabulary,
  clauses, sources, scopes, follow-ups, inserted chapters, ``REFERENCES_VERSION``);
* ``inforce``: the text in force of an amended article (the places an instruction names, the reading of an
  amending article's instructions, the consolidation engine and one module per unit it changes, the result's
  shape).

``graph`` and ``inforce`` read through ``text`` and never import each other (.importlinter, ``legal-rooms``): the
engine takes the graph's edges as plain dicts. The whole floor sits just above ``nomos.mappings`` (the area table
and the stop list are packaged files read like the index bodies) and builds no index body.
"""
