"""The reading of any Greek legal text, a query's or a statute's: ``folding`` (fold, article numbers as typed),
``citations`` («άρθρο 372 ΠΚ» → article ids), ``ids`` (typed ids resolved against a corpus), ``areas`` (+
``areas.json``: each source's legal area and short name), ``citation_forms`` (the ways an article is cited),
``article_parts`` (paragraphs, cases, sentences, a new wording's heading) and ``lemmas`` (dictionary forms for BM25).

Imports nothing of ``nomos.legal.graph`` or ``nomos.legal.inforce``; both, and every floor above ``nomos.legal``,
may import it.
"""
