"""What the portal's pages print: addresses of searches and articles (shareable, readable in the page), snippets
that can carry no markup but ``<mark>``, and the template environment that uses them."""

from __future__ import annotations

import functools
import html
import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import parse_qsl, quote, quote_plus

from fastapi.templating import Jinja2Templates
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape

from nomos.legal.text.areas import areas as legal_areas
from nomos.pages.articles import citation
from nomos.pages.standing import cite_id
from nomos.portal.errors import PortalError, greek_readiness
from nomos.portal.params import K_CHOICES, MAX_QUERY_CHARS
from nomos.portal.service import METHOD_LABELS
from nomos.retrieval.registry import DEFAULT_METHOD

TEMPLATES = Path(__file__).parent / "templates"
MATCH_ANCHOR = "match"  # the id of the first highlighted passage on an article page; links with ?q= point at it


def safe_snippet(fragment: str) -> Markup:
    """OpenSearch's html-encoded highlight, rebuilt so that the only markup that can come out is <mark>."""
    parts = re.split(r"(</?mark>)", fragment)
    out = []
    for p in parts:
        if p in ("<mark>", "</mark>"):
            out.append(p)
        else:
            out.append(str(escape(html.unescape(p))))
    return Markup("".join(out))


def anchored_snippet(fragment: str) -> Markup:
    """:func:`safe_snippet`, with the first <mark> carrying ``id=MATCH_ANCHOR`` (where ``#match`` links land)."""
    return Markup(str(safe_snippet(fragment)).replace("<mark>", f'<mark id="{MATCH_ANCHOR}">', 1))


def marked_spans(highlighted: str, text: str) -> list[tuple[int, int]]:
    """The <mark> spans of OpenSearch's highlighted full text as offsets into the plain ``text`` (empty when the
    highlight does not read back as that text, so links never land on the wrong words)."""
    plain: list[str] = []
    spans: list[tuple[int, int]] = []
    at = 0
    opened: int | None = None
    for p in re.split(r"(</?mark>)", highlighted):
        if p == "<mark>":
            opened = at
        elif p == "</mark>":
            if opened is not None and at > opened:
                spans.append((opened, at))
            opened = None
        else:
            piece = html.unescape(p)
            plain.append(piece)
            at += len(piece)
    return spans if "".join(plain) == text else []


def linked_text(text: str, links: Sequence[Any], highlighted: str | None = None, anchor: bool = True) -> Markup:
    """An article's text, escaped, with its resolved references as links to their articles (``links``: objects
    with ``start``, ``end``, ``target``; unresolved ones stay plain text) and, when ``highlighted`` (OpenSearch's
    highlight of the same text) is given, the query's terms in <mark>, the first one ``id=MATCH_ANCHOR`` when
    ``anchor``. Nothing of the text can become markup: every piece is escaped, links' addresses are built by
    :func:`article_url`."""
    marks = marked_spans(highlighted, text) if highlighted else []
    targets = [(int(lk.start), int(lk.end), lk.target) for lk in links if lk.target and 0 <= lk.start < lk.end <= len(text)]
    return marked_text(text, targets, marks, anchor)


def marked_text(text: str, targets: Sequence[tuple[int, int, str]], marks: Sequence[tuple[int, int]],
                anchor: bool = True) -> Markup:
    """``text``, escaped, with the spans of ``targets`` ((start, end, article id)) as links to those articles and
    those of ``marks`` ((start, end)) in <mark>, the first ``id=MATCH_ANCHOR`` when ``anchor``: the one place a
    text becomes markup (:func:`linked_text`, and the passages of a text in force, each with its share of both)."""
    cuts = sorted({0, len(text), *(p for a, b, _ in targets for p in (a, b)), *(p for a, b in marks for p in (a, b))})
    out: list[str] = []
    first_mark = anchor
    for a, b in itertools.pairwise(cuts):
        piece = str(escape(text[a:b]))
        if any(ma <= a and b <= mb for ma, mb in marks):
            piece = (f'<mark id="{MATCH_ANCHOR}">' if first_mark else "<mark>") + piece + "</mark>"
            first_mark = False
        target = next((t for ta, tb, t in targets if ta <= a and b <= tb), None)
        if target:
            piece = f'<a class="ref" href="{_href(article_url(target, iri=True))}">{piece}</a>'
        out.append(piece)
    return Markup("".join(out))


_ASCII_RUN = re.compile(r"[\x00-\x9f]+")  # ASCII and the C1 controls: percent-encoded; other characters stay


@functools.lru_cache(maxsize=256)
def _param(value: str, iri: bool = False) -> str:
    """A query-string value, percent-encoded as ``urlencode`` does. Cached: a results page links the same case
    (up to 2,000 Greek characters) from every hit and every facet.

    ``iri``: leave letters beyond ASCII as they are (the URL Standard counts U+00A0 and above as URL code points;
    browsers percent-encode them when they follow the link). A Greek letter is then 2 bytes in the page instead
    of 6, which keeps a results page of 26 links to the same case at about half its size."""
    if not iri:
        return quote_plus(value, safe="")
    return _ASCII_RUN.sub(lambda m: quote_plus(m.group(), safe=""), value)


def _url(path: str, iri: bool = False, **params: Any) -> str:
    q = "&".join(f"{k}={_param(str(v), iri)}" for k, v in params.items() if v not in (None, ""))
    return path + ("?" + q if q else "")


def _href(url: str) -> Markup:
    """A URL built by :func:`_url` as an HTML attribute value: the encoding leaves no HTML-special character but
    the ``&`` between parameters, so this is what autoescaping would give, without escaping the long case text
    again for every link."""
    return Markup(url.replace("&", "&amp;"))


def search_url(q: str, method: str = DEFAULT_METHOD, k: int = 10, source: str | None = None, iri: bool = False,
               area: str | None = None) -> str:
    """The shareable address of a search (percent-encoded ASCII; ``iri`` for links inside the portal's pages)."""
    return _url("/search", iri, q=q, method=None if method == DEFAULT_METHOD else method, k=None if k == 10 else k,
                source=source, area=area)


# uvicorn's httptools reads a URL of at most 65,535 bytes (httptools.parse_url): a search fits in an address up to
# this many, about 10,000 Greek characters percent-encoded; a longer case (up to MAX_QUERY_CHARS) is posted
URL_BYTES = 60_000
HIGHLIGHT_CHARS = 2_000  # an article link carries at most this much of a long case: its distinct words


def linkable(q: str, **params: Any) -> bool:
    """Whether the search of ``q`` has an address (:data:`URL_BYTES`): else its page comes from a posted form and
    links that would repeat the case (the facets) are left out."""
    return len(search_url(q, **params)) <= URL_BYTES


def highlight_of(q: str) -> str:
    """The words an article page highlights for a case: the case itself, or for a case longer than
    :data:`HIGHLIGHT_CHARS` its distinct words in order of appearance up to that length (the highlight marks
    words, so a link to an article need not carry a whole case file)."""
    if len(q) <= HIGHLIGHT_CHARS:
        return q
    seen: dict[str, None] = {}
    size = 0
    for word in re.findall(r"\w+", q):
        key = word.lower()
        if key in seen:
            continue
        if size + len(word) + 1 > HIGHLIGHT_CHARS:
            break
        seen[key] = None
        size += len(word) + 1
    return " ".join(seen)


def posted_form(raw: bytes) -> dict[str, str]:
    """A posted search form's fields (application/x-www-form-urlencoded; the last of a field given twice); a body
    that is not one is a 400 in Greek."""
    try:
        pairs = parse_qsl(raw.decode("utf-8"), keep_blank_values=True, errors="strict", max_num_fields=10)
    except (UnicodeDecodeError, ValueError):
        raise PortalError(400, "Το αίτημα δεν είναι φόρμα αναζήτησης (UTF-8, application/x-www-form-urlencoded).") from None
    return dict(pairs)


def article_url(article_id: str, q: str | None = None, iri: bool = False, full: bool = False,
                text: str | None = None) -> str:
    """An article's page, with the case's words to highlight in its text; with a case, the link lands on the first
    highlighted passage (``#match``; a page without one simply opens at the top). ``full``: the whole text of an
    article longer than a page shows. ``text``: which text an amended article's page shows, ``original`` or
    ``in-force`` (None: the page's default, the text in force where there is one)."""
    q = highlight_of(q) if q else q
    return (_url("/articles/" + quote(article_id, safe=""), iri, q=q, full=1 if full else None, text=text)
            + (f"#{MATCH_ANCHOR}" if q else ""))


def law_url(source: str) -> str:
    """A law's table of contents."""
    return "/laws/" + quote(source, safe="")


# What a hit's score is (nomos.retrieval.base.SCORE_KINDS), as the score's tooltip says it; an order only (a
# position, "rank", or the learned ranker's raw output, "learned": ORDER_ONLY) is not shown at all: 100.000, 99.000…
# or -1.234 read as relevance scores
SCORE_LABELS = {"bm25": "βαθμολογία BM25", "similarity": "ομοιότητα συνημιτόνου (διανύσματα)",
                "fused": "συνδυασμένη βαθμολογία (κανονικοποιημένες βαθμολογίες BM25 και διανυσμάτων)",
                "rrf": "βαθμολογία RRF (άθροισμα 1 / (60 + θέση))"}


def signed_in(request: Any) -> str | None:  # a Starlette request
    """The user a trusted proxy signed in for this request (the grading form then asks no name), else None."""
    try:
        return request.app.state.proxies.user(request)
    except (AttributeError, ValueError):
        return None


@dataclass(frozen=True)
class Grading:
    """What every result's grading form on one page shares, read from the request once per page (the form was
    asking the query string and the identity headers again for every hit): the article just graded and its
    grade (shown as "saved"), the name the person gave last time (``by``), and whether a proxy signed them in."""

    judged: str | None
    grade: str | None
    by: str
    signed_in: bool
    note: str = ""  # the note saved with that grade, kept in its field

    def note_of(self, article_id: str) -> str:
        """The note to show in ``article_id``'s field: the one just saved with it, else none."""
        return self.note if self.grade is not None and self.judged == article_id else ""

    @classmethod
    def of(cls, request: Any) -> Grading:  # a Starlette request
        params = request.query_params
        grade = params.get("grade")
        return cls(params.get("judged"), grade if grade in ("0", "1", "2") else None, params.get("by", ""),
                   signed_in(request) is not None, params.get("note", "")[:1000])


def heading(title: str, article_id: str, source: str = "", law: str = "") -> str:
    """An article's title, or, for one without («N_4070_2012::140»), how a lawyer cites it: «Άρθρο 140 ν. 4070/2012»."""
    if title:
        return title
    cited = citation(article_id, source or article_id.split("::", 1)[0], law)
    return cited[:1].upper() + cited[1:]


def make_templates() -> Jinja2Templates:
    """The pages' templates, with the link builders, labels and snippet filters they use."""
    # auto_reload off: the templates ship with the code, so no stat() of every template on every page
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(default=True, default_for_string=True),
                      auto_reload=False)
    env.globals.update(search_url=lambda *a, **kw: _href(search_url(*a, **{**kw, "iri": True})),
                       article_url=lambda *a, **kw: _href(article_url(*a, **{**kw, "iri": True})),
                       law_url=lambda source: _href(law_url(source)), linked_text=linked_text, linkable=linkable,
                       METHOD_LABELS=METHOD_LABELS, K_CHOICES=K_CHOICES, MAX_QUERY_CHARS=MAX_QUERY_CHARS,
                       AREA_LABELS={a.key: a.label for a in legal_areas().values()}, citation=citation,
                       greek_readiness=greek_readiness, SCORE_LABELS=SCORE_LABELS,
                       heading=heading, grading=Grading.of, cite_id=cite_id)
    env.filters["snippet"] = safe_snippet
    env.filters["anchored"] = anchored_snippet
    return Jinja2Templates(env=env)
