"""The article text with its references as links (nomos/portal/links.linked_text) and the stored references read
as links (nomos/retrieval/graph.links_of): escaping, unresolved references, overlapping spans, highlights."""

from __future__ import annotations

from nomos.pages.graph import Link, links_of
from nomos.portal.links import linked_text

TEXT = "Κατά το άρθρο 46 παρ. 1 και 47 <b>ή</b> το άρθρο 9 ν. 1/1900 & τα λοιπά."


def span(s: str) -> tuple[int, int]:
    i = TEXT.index(s)
    return i, i + len(s)


def test_resolved_references_become_links_and_everything_is_escaped() -> None:
    links = (Link(*span("άρθρο 46 παρ. 1"), "PK::46", "PK::46", "cites", "1"), Link(*span("47"), "PK::47", "PK::47", "cites"),
             Link(*span("άρθρο 9 ν. 1/1900"), "", "N_1_1900::9", "cites"))
    html = str(linked_text(TEXT, links))
    assert '<a class="ref" href="/articles/PK%3A%3A46">άρθρο 46 παρ. 1</a>' in html
    assert '<a class="ref" href="/articles/PK%3A%3A47">47</a>' in html
    assert "άρθρο 9 ν. 1/1900" in html and "N_1_1900" not in html  # unresolved: plain text, no link
    assert "&lt;b&gt;ή&lt;/b&gt;" in html and "&amp; τα λοιπά" in html and "<b>" not in html
    assert html.count("<a ") == 2


def test_highlight_and_links_together_first_mark_anchored() -> None:
    a, b = span("άρθρο 46 παρ. 1")
    esc = TEXT.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    highlighted = esc.replace("Κατά", "<mark>Κατά</mark>", 1).replace("λοιπά", "<mark>λοιπά</mark>")
    html = str(linked_text(TEXT, (Link(a, b, "PK::46", "PK::46", "cites"),), highlighted))
    assert html.startswith('<mark id="match">Κατά</mark>')
    assert "<mark>λοιπά</mark>" in html and html.count('id="match"') == 1
    assert '<a class="ref" href="/articles/PK%3A%3A46">άρθρο 46 παρ. 1</a>' in html


def test_a_highlight_that_does_not_read_back_as_the_text_is_ignored_not_misplaced() -> None:
    html = str(linked_text(TEXT, (), "κάτι <mark>άλλο</mark>"))
    assert "<mark" not in html and "Κατά το άρθρο" in html


def test_links_of_orders_by_position_and_drops_overlaps_and_empty_spans() -> None:
    refs = [{"start": 30, "end": 32, "target": "PK::47", "cited": "PK::47", "kind": "cites"},
            {"start": 8, "end": 23, "target": "PK::46", "cited": "PK::46", "kind": "cites", "paragraph": "1"},
            {"start": 10, "end": 20, "target": "PK::45", "cited": "PK::45", "kind": "cites"},
            {"start": 40, "end": 40, "target": "PK::1", "cited": "PK::1", "kind": "cites"}]
    assert [(lk.start, lk.target, lk.paragraph) for lk in links_of(refs)] == [(8, "PK::46", "1"), (30, "PK::47", None)]


def test_references_sharing_one_span_each_link_their_own_number() -> None:
    """The extractor may give a whole list («άρθρο 46 παρ. 1 και 47») one span for every article in it, or a range
    («άρθρα 372 έως 378») one span for the articles between: each written number links its own article."""
    text = "κατά το άρθρο 46 παρ. 1 και 47, και τα άρθρα 372 έως 374."
    a, b = text.index("άρθρο 46"), text.index("47") + 2
    c, d = text.index("άρθρα 372"), text.index("374") + 3
    refs = [{"start": a, "end": b, "target": "PK::46", "cited": "PK::46", "kind": "cites", "paragraph": "1"},
            {"start": a, "end": b, "target": "PK::47", "cited": "PK::47", "kind": "cites"}]
    refs += [{"start": c, "end": d, "target": f"PK::{n}", "cited": f"PK::{n}", "kind": "cites"} for n in (372, 373, 374)]
    got = [(text[lk.start:lk.end], lk.target) for lk in links_of(refs, text)]
    assert got == [("άρθρο 46", "PK::46"), ("47", "PK::47"), ("άρθρα 372", "PK::372"), ("374", "PK::374")]
