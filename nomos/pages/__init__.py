"""Pages: the floor between the stages and retrieval where a results page is built (issue 51). The stage hands down
a method's retriever and the request; :class:`~nomos.pages.results.ResultsPage` asks for the page (the ranking's
own request with the page's parts folded in, or the ranking and then its page), places the articles the query names,
marks the snippets, reads where each hit stands in law, and hands the page back up whole. The article pages' reading
(an article, its text in force, its versions, its place in the legal graph) lives here too.

Modules: :mod:`~nomos.pages.results` (the builder), :mod:`~nomos.pages.request` (the page request and its
reading), :mod:`~nomos.pages.snippets` and :mod:`~nomos.pages.marks` (snippets), :mod:`~nomos.pages.facets`,
:mod:`~nomos.pages.named` (the named-article lookup), :mod:`~nomos.pages.standing`, :mod:`~nomos.pages.articles`,
:mod:`~nomos.pages.in_force`, :mod:`~nomos.pages.graph`. Public names are loaded on first use (:mod:`nomos.exports`).
"""

from nomos.exports import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".articles": ("Article", "ArticleRef", "article_page", "citation"),
    ".facets": ("AreaFacet", "Facet", "Facets", "law_names"),
    ".named": ("NameReading", "Named", "look_up"),
    ".request": ("PageRequest",),
    ".results": ("PageQuery", "Results", "ResultsPage"),
    ".standing": ("Standing",),
})
