"""Reading articles for people (the portal's article page): one article with its law's neighbours, similar
articles, and how to cite an article.

Every function reads only the index (alias) it is given, through a :class:`~nomos.opensearch.transport.Transport`
built by ``make_transport`` with the settings' retries (the functions are typed for a transport; a client would
lose the retries without saying so). User text reaches OpenSearch only inside ``match`` clauses (a
``highlight_query``); ids go into ``ids`` and ``term`` clauses as values,
never into query syntax.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any

from nomos.errors import IndexNotFound
from nomos.legal.inforce.result import InForce
from nomos.legal.text.areas import short_name
from nomos.opensearch.transport import Transport
from nomos.pages.marks import own_marks
from nomos.pages.snippets import HIGHLIGHT_MAX_CHARS, HIGHLIGHT_TAGS, IN_FORCE_TEXT

__all__ = ["Article", "ArticleRef", "article_page", "citation", "cut_marked", "cut_text", "get_article", "law_articles",
           "natural_key", "similar_articles"]

MAX_LAW_ARTICLES = 2000  # neighbours: every article of one law is listed (the largest stand-in law has 492)


@dataclass(frozen=True)
class ArticleRef:
    """An article as a link: id, number within its law, title."""

    id: str
    number: str
    title: str
    law: str = ""
    score: float | None = None


@dataclass(frozen=True)
class Article:
    id: str
    title: str
    text: str
    law: str
    source: str
    number: str
    area: str = ""  # key of nomos/legal/text/areas.json ("" in an index built before areas existed)
    highlighted_text: str | None = None  # the full text with the query's terms in <mark> (html-escaped)
    previous: ArticleRef | None = None
    next: ArticleRef | None = None
    neighbours: tuple[ArticleRef, ...] = ()  # a window of the same law around this article, in order
    law_size: int = 0
    similar: tuple[ArticleRef, ...] = field(default_factory=tuple)
    length: int = 0  # characters of the whole text (``text`` may hold only its start: see ``cut``)
    cut: bool = False  # the page shows the first ``max_chars`` characters; the rest is a link away
    # the text in force of an amended article, as ingest consolidated it (nomos.legal.inforce.result; None: no amending
    # article, or an index built before consolidation), whole; the page cuts it as it cuts ``text``
    in_force: InForce | None = None
    in_force_marked: str | None = None  # its text (InForce.text) with the query's terms in <mark> (html-escaped)
    inserted_into: str = ""  # the host law of an article a later law inserted whole (ingest's ``inserted_into``)

    @property
    def inserted_whole(self) -> str:
        """The page's line for an article a later law inserted whole («Προστέθηκε στον ν. 3978/2011 ως άρθρο 7Γ με
        τον ν. 4782/2021»); "" for any other."""
        return inserted_whole(self.inserted_into, self.source, self.id.partition("::")[2] or self.number)


def inserted_whole(into: str, law: str, number: str) -> str:
    """«Προστέθηκε στον ν. 3978/2011 ως άρθρο 7Γ με τον ν. 4782/2021»: an article the law ``law`` (a source id)
    inserted whole into the law ``into`` as article ``number``; "" where ``into`` is empty. The one wording, for
    the results list (nomos.pages.standing) and the article page."""
    if not into:
        return ""
    by = short_name(law, "")
    return f"Προστέθηκε στον {short_name(into, '')} ως άρθρο {number}" + (f" με τον {by}" if by else "")


_MARK_OPEN, _MARK_CLOSE = "<mark>", "</mark>"
_PARTIAL_TAG = re.compile(r"(<[^>]*|&[^;\s]*)$")


def cut_text(text: str, max_chars: int) -> str:
    """The first ``max_chars`` characters of ``text`` (plain, or the highlighter's html-escaped text with <mark>
    tags), ended at the last white space before the limit so no word, escape (``&amp;``) or tag is split, with
    a <mark> left open closed."""
    if len(text) <= max_chars:
        return text
    head = text[:max_chars]
    space = max(head.rfind(" "), head.rfind("\n"))
    if space > max_chars // 2:
        head = head[:space]
    else:  # one very long word: cut it, but not inside a tag or an escape
        head = _PARTIAL_TAG.sub("", head)
    if head.count(_MARK_OPEN) > head.count(_MARK_CLOSE):
        head += _MARK_CLOSE
    return head


def cut_marked(marked: str, plain_chars: int) -> str:
    """The highlighter's html-escaped ``marked`` text cut where its plain reading is ``plain_chars`` long (the length
    of the plain text :func:`cut_text` kept), a <mark> left open closed: both cuts then read as the same words, so
    the page can lay links and marks over the one text (``portal.links.linked_text`` checks that they do)."""
    out: list[str] = []
    at = 0
    opened = False
    for part in re.split(r"(</?mark>)", marked):
        if part in (_MARK_OPEN, _MARK_CLOSE):
            opened = part == _MARK_OPEN
            out.append(part)
            continue
        plain = html.unescape(part)
        if at + len(plain) >= plain_chars:
            out.append(html.escape(plain[: plain_chars - at]))
            break
        out.append(part)
        at += len(plain)
    if opened:
        out.append(_MARK_CLOSE)
    return "".join(out)


def citation(article_id: str, source: str, law: str) -> str:
    """How a lawyer cites an article: «άρθρο 372 ΠΚ», «άρθρο 5 ν. 4624/2019», «άρθρο 3 π.δ. 131/2003».

    The article number is the part of the id after ``::`` (the benchmark's ``SOURCE::ARTICLE``); the law's short
    name comes from :func:`nomos.legal.text.areas.short_name` (the codes' abbreviations, else the law's number read
    from the source id or the law's title). The one place a citation is built: result lists, the API and the
    article page all call it."""
    number = article_id.split("::", 1)[1] if "::" in article_id else article_id
    short = short_name(source, law)
    return f"άρθρο {number} {short}".strip() if short and short != number else f"άρθρο {number}"


def natural_key(number: str) -> tuple[Any, ...]:
    """Order article numbers as a reader does: 2 < 10 < 10A < 11."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.findall(r"\d+|\D+", number) if p.strip())


def get_article(transport: Transport, index: str, article_id: str, query: str | None = None) -> dict[str, Any] | None:
    """The stored article (with its full text, and its text in force where it has one, highlighted for ``query``
    when given), or None. ``in_force`` is the stored value as it is (:meth:`InForce.from_doc` reads it)."""
    body: dict[str, Any] = {
        "size": 1,
        "query": {"ids": {"values": [article_id]}},
        "_source": ["article_id", "title", "text", "law", "source", "number", "area", "in_force", "inserted_into"],
    }
    if query:
        body["highlight"] = {
            **HIGHLIGHT_TAGS,
            "fields": {f: {"number_of_fragments": 0, "max_analyzer_offset": HIGHLIGHT_MAX_CHARS,
                           "highlight_query": {"match": {f: {"query": query}}}} for f in ("text", IN_FORCE_TEXT)},
        }
    try:
        hits = transport.search(index, body, what=f"the article {article_id!r}")["hits"]["hits"]
    except IndexNotFound:
        return None
    if not hits:
        return None
    src = dict(hits[0]["_source"])
    src["id"] = hits[0]["_id"]
    hl = hits[0].get("highlight", {}).get("text")
    src["highlighted_text"] = own_marks(hl[0], query) if hl and query else None
    hl_in_force = hits[0].get("highlight", {}).get(IN_FORCE_TEXT)
    src["in_force_marked"] = own_marks(hl_in_force[0], query) if hl_in_force and query else None
    return src


def law_articles(transport: Transport, index: str, source: str) -> list[ArticleRef]:
    """Every article of one legal source, in reading order."""
    body = {"size": MAX_LAW_ARTICLES, "query": {"term": {"source": source}}, "_source": ["number", "title"]}
    resp = transport.search(index, body, what=f"the articles of {source!r}")
    refs = [ArticleRef(h["_id"], h["_source"].get("number", ""), h["_source"].get("title", "")) for h in resp["hits"]["hits"]]
    return sorted(refs, key=lambda r: (natural_key(r.number), r.id))


def similar_articles(transport: Transport, index: str, article_id: str, k: int = 8) -> list[ArticleRef]:
    """Articles that share the most distinctive terms with this one (``more_like_this`` on the stored article;
    no user text involved)."""
    resp = transport.search(
        index,
        {
            "size": k,
            "query": {
                "more_like_this": {
                    "fields": ["title", "text"],
                    "like": [{"_index": index, "_id": article_id}],
                    "min_term_freq": 1,
                    "min_doc_freq": 1,
                    "max_query_terms": 40,
                    "minimum_should_match": "10%",
                }
            },
            "_source": ["number", "title", "law"],
        },
        what=f"articles similar to {article_id!r}",
    )
    return [
        ArticleRef(h["_id"], h["_source"].get("number", ""), h["_source"].get("title", ""), h["_source"].get("law", ""), h["_score"])
        for h in resp["hits"]["hits"]
    ]


def article_page(transport: Transport, index: str, article_id: str, query: str | None = None, window: int = 3,
                 similar: int = 8, max_chars: int | None = None) -> Article | None:
    """Everything an article page shows, or None when the id is unknown. ``max_chars``: a longer text is cut to its
    start (:func:`cut_text`; ``cut`` says so and ``length`` how long it is), so one huge article's page stays as
    cheap to send and render as any other."""
    transport = transport  # one transport for the page's three requests
    src = get_article(transport, index, article_id, query)
    if src is None:
        return None
    source = src.get("source") or ""
    law = law_articles(transport, index, source) if source else []
    pos = next((i for i, r in enumerate(law) if r.id == article_id), None)
    prev = nxt = None
    neighbours: tuple[ArticleRef, ...] = ()
    if pos is not None:
        prev = law[pos - 1] if pos > 0 else None
        nxt = law[pos + 1] if pos + 1 < len(law) else None
        neighbours = tuple(law[max(0, pos - window) : pos + window + 1])
    text, marked = src.get("text", ""), src.get("highlighted_text")
    cut = max_chars is not None and len(text) > max_chars
    if cut:
        text = cut_text(text, max_chars or 0)
        marked = cut_marked(marked, len(text)) if marked else marked
    return Article(
        id=src["id"],
        title=src.get("title", ""),
        text=text,
        length=len(src.get("text", "")),
        cut=cut,
        law=src.get("law", ""),
        source=source,
        number=src.get("number", ""),
        area=src.get("area", ""),
        highlighted_text=marked,
        in_force=InForce.from_doc(src["in_force"]) if src.get("in_force") else None,
        in_force_marked=src.get("in_force_marked"),
        inserted_into=src.get("inserted_into") or "",
        previous=prev,
        next=nxt,
        neighbours=neighbours,
        law_size=len(law),
        similar=tuple(similar_articles(transport, index, article_id, similar)),
    )
