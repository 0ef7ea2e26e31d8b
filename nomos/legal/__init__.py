"""The reading of Greek legal text: citations, legal areas, the legal graph's references and inserted chapters.

What lives here reads statutes and queries as a lawyer writes them, and builds no index body (that is
``nomos.mappings``):

* ``areas`` (with ``areas.json``): each legal source's area and the short name a citation uses;
* ``citations``: «άρθρο 372 ΠΚ», «άρθρο 21 ν. 4624/2019» … read from text into article ids, for the query side
  and the ingest side alike;
* ``citation_forms``: the ways an article is cited, generated from its id (the citation benchmark and its tests);
* ``references``: the legal graph's edges (cites, amends, replaces, inserts, repeals) read from an article's text
  at ingest, with ``reference_vocabulary`` (the regular expressions and word lists its rules are written in),
  ``reference_clauses`` (the clause around a reference: bounds, verbs, lists) and ``reference_sources`` (the law
  of an article cited without one);
* ``insertions``: chapters an amending law inserts into another law, split by the corpus into articles;
* ``in_force``: the shape of an amended article's text in force (passages with their provenance, the instructions
  applied and those that could not be), stored beside the original text.

The area table's file errors are ``nomos.mappings.MappingError`` (a packaged JSON file, read like the index
bodies), so this floor sits just above ``nomos.mappings``.
"""
