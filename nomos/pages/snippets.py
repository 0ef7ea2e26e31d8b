"""A result line's fields and snippets: what a results page asks OpenSearch for (:func:`snippet_request`: the
fields and the highlight), and how a hit's snippets are read back (:func:`snippets_of`).

Every results page asks for them the same way, in the ranking's own request or, for a ranking that came with ids
only, in the one request that decorates it (:mod:`nomos.pages.request`). What a reader
is shown of them, the query's own words marked and an amended article's text in force chosen, is
:mod:`nomos.pages.marks`.
"""

from __future__ import annotations

from typing import Any, Mapping

from nomos.pages import passages

HIGHLIGHT_TAGS = {"pre_tags": ["<mark>"], "post_tags": ["</mark>"], "encoder": "html"}
SNIPPET_FALLBACK_CHARS = 180  # a dense hit need not contain any query word: then its text's start is the snippet
IN_FORCE_TEXT = "in_force_text"  # an amended article's text in force (nomos.legal.inforce.result), copied into ``content``
# where a result stands in law: the part of the stored text in force a result line reads (nomos.pages.standing;
# ``in_force`` is stored, not indexed: source filtering reads it all the same), in the page's own request
STANDING_SOURCE = ["in_force.status", "in_force.amendments", "in_force.applied.action", "in_force.applied.source",
                   "inserted_into"]
INSERTED_INTO = "inserted_into"  # the host law of an article a later law inserted whole (read with the standing)
PAGE_SOURCE = ["title", "law", "source", *STANDING_SOURCE]  # what a result line shows besides its snippet


# How many characters of a text the highlighter may analyse again (OpenSearch 2.2+'s ``max_analyzer_offset``): past
# it a text is shown unmarked rather than re-analysed for every page. The articles' ``text`` stores its offsets in
# the postings (``index_options: offsets``), so the unified highlighter re-analyses nothing there and marks the whole
# text; the bound holds for any field or older index without them. The index's own bound,
# ``index.highlight.max_analyzed_offset``, stays at OpenSearch's 1,000,000 characters, which no article under
# NOMOS_MAX_ARTICLE_BYTES (1 MB) exceeds, so it never turns into an error. What made a 5 MB article's page cost
# 1.9 s and 18.6 MB (issue 26) was its size: the ingest limit and the cut article pages bound that.
HIGHLIGHT_MAX_CHARS = 100_000


def snippet_highlight(query: str, no_match_size: int = 0) -> dict[str, Any]:
    """The result lists' snippets: two ~180-character fragments of ``text`` with the case's words in <mark>
    (html-escaped); ``no_match_size`` > 0 shows the text's start where no word matched. An amended article's text
    in force is highlighted the same way (``Hit.in_force_highlights``; the page shows them where they mark
    as much of the query), so an article found by the wording an amendment gave it shows that wording."""
    text: dict[str, Any] = {"fragment_size": 180, "number_of_fragments": 2, "max_analyzer_offset": HIGHLIGHT_MAX_CHARS,
                            "highlight_query": {"match": {"text": {"query": query[:5000]}}}}
    in_force = {**text, "highlight_query": {"match": {IN_FORCE_TEXT: {"query": query[:5000]}}}}
    if no_match_size:
        text["no_match_size"] = no_match_size
    return {**HIGHLIGHT_TAGS, "fields": {"text": text, IN_FORCE_TEXT: in_force}}


def snippet_request(query: str, no_match_size: int = 0, *, mode: str) -> dict[str, Any]:
    """What a results page's request asks for each shown hit: its fields (``_source``) and its snippets, made as
    ``mode`` (the page's: its stage's NOMOS_SNIPPETS, :mod:`nomos.pages.passages`, issue 51) says: OpenSearch's
    sentence passages (:func:`snippet_highlight`); each text marked whole, cut by :func:`snippets_of` (``whole``,
    and ``lead``, which cuts a text's opening and best passage); or no highlighting, the texts. The one place a page's request and a decoration ask for them."""
    if passages.checked(mode) == "passages":
        return {"_source": [*PAGE_SOURCE, "text", IN_FORCE_TEXT]}
    lead = mode == "lead"  # whole's request, a text with no marked word's start long enough for its opening
    hl = snippet_highlight(query, passages.LEAD_NO_MATCH if lead and no_match_size else no_match_size)
    if mode in ("whole", "lead"):
        for f in hl["fields"].values():
            f["number_of_fragments"] = 0
    return {"_source": PAGE_SOURCE, "highlight": hl}


def snippets_of(hit: Mapping[str, Any], query: str | None = None, *, mode: str
                ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A response hit's snippets: the text's fragments and its text in force's (empty where none came back);
    ``query``: the page's, which snippets cut here from a hit's plain text mark (``passages``); ``mode``: the
    snippets the page asked for (:func:`snippet_request`)."""
    highlight = hit.get("highlight") or {}
    made = passages.of_hit(hit.get("_source") or {}, highlight, query, mode)
    if made is not None:
        return made
    return tuple(highlight.get("text") or ()), tuple(highlight.get(IN_FORCE_TEXT) or ())


def standing_part(src: Mapping[str, Any]) -> dict[str, Any]:
    """What a hit keeps of its ``_source`` for its standing: the stored ``in_force`` value, and beside it the host
    law of an article inserted whole (``inserted_into``; nomos.pages.standing reads both)."""
    part = dict(src.get("in_force") or {})
    if src.get(INSERTED_INTO):
        part[INSERTED_INTO] = src[INSERTED_INTO]
    return part
