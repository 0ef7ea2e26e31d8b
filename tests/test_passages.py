"""Issue 51's snippets made without the highlighter's sentence scanner (nomos.pages.passages, NOMOS_SNIPPETS): the
words they mark, the passages they choose, and, on a real node, pages equal to today's but for their snippets."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from nomos.pages import passages
from nomos.pages.passages import cut, snippets

QUERY = "Μου έκλεψαν το ρολόι. Είναι κλοπή;"
FILLER = "Οι διατάξεις του παρόντος εφαρμόζονται αναλόγως και στις λοιπές περιπτώσεις. " * 6


def marked(fragments: tuple[str, ...]) -> list[str]:
    return [w for f in fragments for w in re.findall(r"<mark>(.*?)</mark>", f)]


def test_marks_the_query_words_forms_not_stop_words_nor_words_holding_them():
    text = "Η ΚΛΟΠΉ του ρολόι και οι κλοπές. Η ακλοπή δεν είναι 900 ευρώ."
    assert marked(snippets(text, QUERY)) == ["ΚΛΟΠΉ", "ρολόι", "κλοπές"]  # «το», «είναι» are stop words
    assert marked(snippets("Ποινή 900 ευρώ, όχι 9000.", "αξία 900 ευρώ")) == ["900", "ευρώ"]


def test_two_passages_with_the_most_query_words_in_the_texts_order_escaped():
    text = ("Άρθρο για την κλοπή. " + FILLER + "Όποιος αφαιρεί ξένο ρολόι <με σκοπό> να το ιδιοποιηθεί τιμωρείται "
            "για κλοπή. " + FILLER + "Η κλοπή και πάλι.")
    got = snippets(text, QUERY)
    assert len(got) == 2 and all(len(re.sub(r"</?mark>", "", f)) <= passages.SIZE + 10 for f in got)
    assert "<mark>ρολόι</mark> &lt;με σκοπό&gt;" in got[1]  # the passage with both words, second in the text
    assert got[0].startswith("Άρθρο για την <mark>κλοπή</mark>")  # an article's first sentence begins its passage


def test_a_text_without_the_query_words_shows_its_start_or_nothing():
    assert snippets(FILLER, QUERY) == (passages.start_of(FILLER),)
    assert snippets(FILLER, QUERY)[0].startswith("Οι διατάξεις") and len(snippets(FILLER, QUERY)[0]) <= passages.SIZE
    assert snippets(FILLER, QUERY, fallback=False) == ()
    assert snippets("", QUERY) == ()


def test_cut_keeps_the_highlighters_marks_and_cuts_its_whole_text():
    whole = FILLER + "Όποιος αφαιρεί ξένο <mark>ρολόι</mark> &amp; άλλο πράγμα τιμωρείται για <mark>κλοπή</mark>. " + FILLER
    got = cut(whole)
    assert len(got) == 1 and "<mark>ρολόι</mark> &amp; άλλο" in got[0] and marked(got) == ["ρολόι", "κλοπή"]
    assert cut("αρχή " * 100)[0] == ("αρχή " * 100)[: passages.SIZE].rstrip()  # the no_match_size start, at a word


def test_the_page_floor_asks_for_and_reads_each_modes_snippets():
    """nomos.pages.snippets, the one switch: what a page's request asks the node for, and what a hit's snippets
    then are (the highlighter's fragments, its whole text cut, or the plain text cut and marked here)."""
    from nomos.pages.request import faceted_page
    from nomos.pages.snippets import IN_FORCE_TEXT, PAGE_SOURCE, snippet_request

    whole = FILLER + "Όποιος αφαιρεί ξένο <mark>ρολόι</mark> τιμωρείται. " + FILLER
    hit = {"_id": "PK::372", "_score": 1.0, "_source": {"title": "Κλοπή"}, "highlight": {"text": [whole]}}
    asked = snippet_request(QUERY, 180, mode="sentences")
    assert asked["_source"] == PAGE_SOURCE and asked["highlight"]["fields"]["text"]["number_of_fragments"] == 2
    assert faceted_page({"hits": {"hits": [hit]}}, 1, QUERY, snippets="sentences").hits[0].highlights == (whole,)
    asked = snippet_request(QUERY, 180, mode="whole")
    assert all(f["number_of_fragments"] == 0 for f in asked["highlight"]["fields"].values())
    assert faceted_page({"hits": {"hits": [hit]}}, 1, QUERY, snippets="whole").hits[0].highlights == cut(whole)
    asked = snippet_request(QUERY, 180, mode="passages")
    assert "highlight" not in asked and {"text", IN_FORCE_TEXT} <= set(asked["_source"])
    plain = {"_id": "PK::372", "_score": 1.0, "_source": {"title": "Κλοπή", "text": "Η κλοπή ρολογιού. " + FILLER}}
    assert marked(faceted_page({"hits": {"hits": [plain]}}, 1, QUERY, snippets="passages").hits[0].highlights) == \
        ["κλοπή"]


def test_the_setting_names_its_values():
    from nomos.errors import ConfigError
    from nomos.settings import Settings

    with pytest.raises((ConfigError, ValueError), match="sentences, whole, passages"):
        Settings(snippets="paragraphs")
    from nomos.pages.request import PageRequest

    with pytest.raises(ValueError, match="sentences, whole, passages"):
        passages.checked("paragraphs")
    with pytest.raises(ValueError, match="sentences, whole, passages"):
        PageRequest(None, "articles", QUERY, snippets="paragraphs")  # type: ignore[arg-type]


@pytest.mark.integration
@pytest.mark.parametrize("mode", ["whole", "passages", "lead"])
def test_pages_equal_todays_but_for_the_snippets_on_a_real_node(shared_bm25_index, mode):
    """Two stages in one process, one with ``sentences`` and one with ``mode`` (built both before either
    searches, then searched in turn: each page's request carries its own stage's mode, no module keeps one), over
    one client: the BM25 pages (one request) have the same hits, scores, titles, facets and count; snippets that
    mark the query's words; and each stage asks the node for what its own mode needs (no highlighting at all for
    passages, each text marked whole for whole, two sentence fragments for sentences), every time."""
    from nomos.opensearch.client import make_client
    from nomos.stages.searching import SearchRequest, SearchStage
    from tests.portal_support import requests_sent

    client = make_client(shared_bm25_index.cluster)
    stages = {m: SearchStage(shared_bm25_index.with_overrides(snippets=m), client) for m in ("sentences", mode)}
    request = SearchRequest("κλοπή κινητού πράγματος με σκοπό ιδιοποίησης", "bm25", 5)
    pages: dict = {}
    for m in ("sentences", mode, "sentences", mode):
        bodies: list = []
        with requests_sent(client, bodies):
            page = stages[m].search(request)
        page_body = next(b for b in bodies if isinstance(b, dict) and "title" in (b.get("_source") or ()))
        if m == "passages":
            assert "highlight" not in page_body and "text" in page_body["_source"]
        else:
            fields = page_body["highlight"]["fields"].values()
            assert all(f.get("number_of_fragments", 2) == (0 if m in ("whole", "lead") else 2) for f in fields)
        if m in pages:  # the other stage's search in between changed nothing of this one's page
            assert replace(page, took_ms=0.0) == replace(pages[m], took_ms=0.0)
        pages[m] = page
    old, new = pages["sentences"], pages[mode]
    assert [h.highlights for h in old.hits] != [h.highlights for h in new.hits]  # each stage got its own snippets
    assert old.hits and replace(new, took_ms=0.0, hits=[replace(h, highlights=()) for h in new.hits]) == \
        replace(old, took_ms=0.0, hits=[replace(h, highlights=()) for h in old.hits])
    top = new.hits[0]
    assert top.doc_id == "PK::372" and marked(top.highlights) and len(top.highlights) <= 2
    assert set(map(str.lower, marked(top.highlights))) & {"κλοπή", "κινητό", "πράγμα", "ιδιοποίησης"}
    assert sum(bool(marked(h.highlights)) for h in new.hits) >= sum(bool(marked(h.highlights)) for h in old.hits)


@pytest.mark.integration
@pytest.mark.slow
def test_hybrid_pages_cut_the_whole_texts_the_same_hits_on_a_real_node(shared_dense_index):
    """Hybrid's page (the fused ranking's page, or the learned ranker's list decorated afterwards) with each text
    marked whole and cut here: the same page as with the sentence scanner but for the snippets, which mark the
    query's words and are at most two a hit, none longer than a passage."""
    from nomos.stages.searching import SearchRequest, SearchStage

    stage, whole = SearchStage(shared_dense_index), SearchStage(shared_dense_index.with_overrides(snippets="whole"))
    request = SearchRequest("κλοπή κινητού πράγματος με σκοπό ιδιοποίησης", "hybrid", 5)
    old = stage.search(request)
    new = whole.search(request)
    assert old.hits and replace(new, took_ms=0.0, hits=[replace(h, highlights=()) for h in new.hits]) == \
        replace(old, took_ms=0.0, hits=[replace(h, highlights=()) for h in old.hits])
    assert all(len(h.highlights) <= 2 for h in new.hits) and marked(new.hits[0].highlights)
    assert max(len(re.sub(r"</?mark>|&\w+;", "", f)) for h in new.hits for f in h.highlights) <= passages.SIZE + 40


def test_the_blind_sheets_score_reads_the_key_and_refuses_a_bad_line(tmp_path):
    """``bench/snippets_blind.py score``: X and Y read through each page's key, pages where the new set is no worse
    and each set's marking rate with Wilson intervals; a judgment it does not know names its file and line."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "bench" / "snippets_blind.py"
    key = {f"{n:02d}": {"X": x, "Y": "old" if x == "new" else "new", "hits": 5, "machine_marked": {"old": 4, "new": 5}}
           for n, x in ((1, "new"), (2, "old"), (3, "new"), (4, "old"))}
    (tmp_path / "key.json").write_text(json.dumps(key), encoding="utf-8")
    rows = [("01", "X", 5, 3), ("02", "X", 4, 5), ("03", "=", 4, 4), ("04", "Y", 2, 5)]  # new better, worse, same, better
    filled = tmp_path / "judgments.jsonl"
    filled.write_text("".join(json.dumps({"page": p, "judgment": j, "x_marked": x, "y_marked": y}) + "\n"
                              for p, j, x, y in rows), encoding="utf-8")
    out = subprocess.run([sys.executable, str(script), "score", str(filled)], capture_output=True, text=True, check=True).stdout
    assert "new snippets judged no worse: 3/4 = 75.0%" in out and "bar 90%: not met" in out
    assert "old: hits whose snippet marks the query's words: 13/20" in out  # 3 + 4 + 4 + 2
    assert "new: hits whose snippet marks the query's words: 19/20" in out and "as often as old: yes" in out
    filled.write_text(json.dumps({"page": "01", "judgment": "better"}) + "\n", encoding="utf-8")
    bad = subprocess.run([sys.executable, str(script), "score", str(filled)], capture_output=True, text=True)
    assert bad.returncode == 1 and f"{filled}:1: judgment 'better' is none of X, =, Y" in bad.stderr
