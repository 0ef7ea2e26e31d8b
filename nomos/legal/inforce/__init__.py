"""The text in force of an amended article: ``places`` (the place an instruction names), ``items`` (an amending
article as the reader sees it), ``reading`` and ``instructions`` (its instructions), ``engine`` (applying them in the
laws' order, exactly or not at all, through its table of actions) with one module per unit it changes
(``article``, ``paragraph``, ``case``, ``sentence``, ``words``) on the shared ``edit`` state, and ``result`` (the
stored shape: passages with provenance, applied and unapplied instructions).

Reads text through ``nomos.legal.text`` only; never imports ``nomos.legal.graph`` (the graph's edges come in as
dicts). Ingest computes it over the corpus; retrieval, the portal and the stages may import ``result`` to show it.
"""
