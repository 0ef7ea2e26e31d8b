"""The legal graph's extractor (nomos/legal/graph/references.py) on statute sentences of the shapes the stand-in
corpus writes, and its edges stored at ingest: "cited by X" is one terms query against the real node."""

from __future__ import annotations

import dataclasses

import pytest

from nomos.ingest.beir import load_beir
from nomos.ingest.bulk import article_document, content_sha
from nomos.ingest.graph import CorpusReading
from nomos.ingest.indexer import existing_shas
from nomos.ingest.records import Article
from nomos.legal.graph.edges import REFERENCES_VERSION, Reference
from nomos.legal.graph.references import extract_references, quoted_spans
from nomos.legal.text.ids import IdResolver
from nomos.stages.indexing import index_dataset
from tests.beir_files import write_beir

IDS = ["PK::46", "PK::47", "PK::49", "PK::83", "PK::372", "PK::374", "PK::375", "PK::376", "PK::377", "PK::378",
       "N_4786_2021::15", "N_4855_2021::86", "N_4855_2021::177", "N_4624_2019::21", "N_4624_2019::5",
       "N_4624_2019::6", "AK::914", "PK::292Β"]
RESOLVER = IdResolver.from_ids(IDS)


def edges(article_id: str, text: str, own: str | None = None) -> list[tuple[str, str, str, str | None]]:
    own = own or article_id.split("::")[0]
    return [(r.cited, r.target, r.kind, r.paragraph) for r in extract_references(article_id, text, RESOLVER, own)]


def test_list_with_paragraph_in_own_code() -> None:
    text = "οι συμμέτοχοι κατά το άρθρο 46\nπαρ. 1 και 47 τιμωρούνται με μειωμένη ποινή (άρθρο 83)."
    assert edges("PK::49", text) == [("PK::46", "PK::46", "cites", "1"), ("PK::47", "PK::47", "cites", None),
                                    ("PK::83", "PK::83", "cites", None)]
    span = extract_references("PK::49", text, RESOLVER, "PK")[0]
    assert text[span.start:span.end].startswith("άρθρο 46")


def test_range_and_list() -> None:
    got = edges("PK::49", "Οι διατάξεις των άρθρων 372 έως 378 εφαρμόζονται.")
    assert [c for c, *_ in got] == [f"PK::{n}" for n in range(372, 379)]
    assert edges("PK::49", "κατά τα άρθρα 372 και 375 παρ. 1 ΠΚ")[-1] == ("PK::375", "PK::375", "cites", "1")


def test_same_law_words_and_other_laws() -> None:
    assert edges("N_4624_2019::6", "σύμφωνα με το άρθρο 5 του παρόντος νόμου")[0][:2] == ("N_4624_2019::5",) * 2
    assert edges("N_4624_2019::6", "κατά το άρθρο 21 του ν. 4624/2019")[0][1] == "N_4624_2019::21"
    assert edges("AK::914", "κατά το άρθρο 21 του Ν. 4624/2019 (Α΄ 137)")[0][1] == "N_4624_2019::21"
    # a law not in the corpus: an edge kept with the id as read, no target
    assert edges("AK::914", "το άρθρο 326 του ν. 4412/2016")[0][:2] == ("N_4412_2016::326", "")
    # a source the resolver cannot name is no edge, rather than a wrong one into the own law
    assert edges("N_4624_2019::6", "το άρθρο 5 του Κανονισμού (ΕΕ) 2016/679 και το άρθρο 3 της Οδηγίας") == []
    assert edges("N_4624_2019::6", "κατά το προηγούμενο άρθρο")[0][1] == "N_4624_2019::5"


def test_amendment_verbs_typed_with_paragraph() -> None:
    text = ("Η παρ. 1 του άρθρου 372 ΠΚ τροποποιείται ως προς την ποινή και το άρθρο 372 διαμορφώνεται ως εξής: "
            "«Άρθρο 372 Κλοπή 1. Όποιος αφαιρεί … κατά το άρθρο 374 και το άρθρο 5 του ν. 4624/2019.».")
    got = edges("N_4855_2021::86", text, "N_4855_2021")
    assert got == [("PK::372", "PK::372", "amends", "1"), ("PK::372", "PK::372", "amends", None)]
    assert edges("AK::914", "Το άρθρο 376 ΠΚ αντικαθίσταται ως εξής: «…»")[0][2] == "replaces"
    assert edges("AK::914", "Στην παρ. 5 του άρθρου 374 ΠΚ προστίθεται περ. ζ΄ ως εξής:")[0][2:] == ("inserts", "5")
    assert edges("AK::914", "Καταργείται το άρθρο 377 ΠΚ.")[0][2] == "repeals"
    assert edges("AK::914", "κατά το άρθρο 378 ΠΚ, όπως τροποποιήθηκε, η ποινή")[0][2] == "cites"


def test_bare_article_after_an_amended_law_is_that_law() -> None:
    text = ("Στο άρθρο 15 του ν. 4786/2021 (Α΄ 43) α) τροποποιείται το δεύτερο εδάφιο της παρ. 1, β) αντικαθίσταται η "
            "παρ. 2 και το άρθρο 15 διαμορφώνεται ως εξής: «Άρθρο 15 …»")
    # (v13: «αντικαθίσταται η παρ. 2», a paragraph after the verb, is that article's paragraph 2 too)
    assert edges("N_4855_2021::177", text, "N_4855_2021") == [("N_4786_2021::15", "N_4786_2021::15", "amends", None),
                                                              ("N_4786_2021::15", "N_4786_2021::15", "replaces", "2"),
                                                              ("N_4786_2021::15", "N_4786_2021::15", "amends", None)]


def test_quotes_nest_and_paragraph_words_are_not_articles() -> None:
    assert quoted_spans("α «β «γ» δ» ε «ζ") == [(2, 11), (14, 16)]
    assert edges("PK::49", "της παρ. 1 και της παρ. 2 του παρόντος") == []


def test_reference_is_the_contract() -> None:
    r = extract_references("PK::49", "άρθρο 46", RESOLVER, "PK")[0]
    assert r == Reference("PK::49", "PK::46", "PK::46", "cites", None, 0, 8)
    assert r.as_dict() == {"source": "PK::49", "target": "PK::46", "cited": "PK::46", "kind": "cites",
                           "paragraph": None, "start": 0, "end": 8}


def test_document_fields_and_hash_follow_text_and_version() -> None:
    a = Article("N_4855_2021::86", "Κλοπή", "Η παρ. 1 του άρθρου 372 ΠΚ τροποποιείται. Βλ. άρθρο 46 ΠΚ.",
                "N_4855_2021", "ν. 4855/2021")
    doc = article_document(a, CorpusReading(RESOLVER, {}))
    assert doc["cites"] == ["PK::372", "PK::46"] and doc["amends"] == ["PK::372"]
    assert doc["references_version"] == REFERENCES_VERSION and len(doc["references"]) == 2
    assert content_sha(a) != content_sha(dataclasses.replace(a, text=a.text + " "))


GRAPH_ARTICLES = [
    {"_id": "PK::46", "title": "Άμεση συνέργεια", "text": "Με την ποινή του αυτουργού τιμωρείται.", "source": "PK",
     "law": "Ποινικός Κώδικας"},
    {"_id": "PK::49", "title": "Ιδιότητες", "text": "οι συμμέτοχοι κατά το άρθρο 46 παρ. 1 και 47 τιμωρούνται.",
     "source": "PK", "law": "Ποινικός Κώδικας"},
    {"_id": "PK::372", "title": "Κλοπή", "text": "Όποιος αφαιρεί ξένο κινητό πράγμα (βλ. άρθρο 46) τιμωρείται.",
     "source": "PK", "law": "Ποινικός Κώδικας"},
    {"_id": "N_4855_2021::86", "title": "Τροποποίηση του άρθρου 372 ΠΚ",
     "text": "Η παρ. 1 του άρθρου 372 ΠΚ τροποποιείται ως εξής: «1. Όποιος … κατά το άρθρο 46».",
     "source": "N_4855_2021", "law": "ν. 4855/2021"},
]


@pytest.mark.integration
def test_cited_by_is_one_terms_query_and_reindexing_is_idempotent(os_settings, client, tmp_path) -> None:
    ds = load_beir(write_beir(tmp_path / "graph", GRAPH_ARTICLES, qrels=[("q1", "PK::372", 1), ("q2", "PK::46", 1)]))
    first = index_dataset(os_settings, ds, client=client)
    alias = os_settings.index_alias
    hits = client.search(index=alias, body={"query": {"terms": {"cites": ["PK::46"]}}, "_source": False,
                                            "sort": [{"article_id": "asc"}]})["hits"]["hits"]
    assert [h["_id"] for h in hits] == ["PK::372", "PK::49"]  # the amendment's quoted «άρθρο 46» is not its edge
    amended_by = client.search(index=alias, body={"query": {"term": {"amends": "PK::372"}}})["hits"]["hits"]
    assert [h["_id"] for h in amended_by] == ["N_4855_2021::86"]
    stored = amended_by[0]["_source"]
    assert stored["references"][0]["kind"] == "amends" and stored["references"][0]["paragraph"] == "1"
    assert stored["references_version"] == REFERENCES_VERSION
    shas = existing_shas(client, first.index)
    again = index_dataset(os_settings, ds, client=client)
    assert again.index == first.index and again.sent == 0 and existing_shas(client, first.index) == shas
    changed = [dict(a, text="κατά το άρθρο 372 τιμωρείται.") if a["_id"] == "PK::49" else a for a in GRAPH_ARTICLES]
    ds2 = load_beir(write_beir(tmp_path / "graph2", changed, qrels=[("q1", "PK::372", 1), ("q2", "PK::46", 1)]))
    index_dataset(os_settings, ds2, client=client)
    doc = client.get(index=alias, id="PK::49")["_source"]
    assert doc["cites"] == ["PK::372"]


def test_lists_ranges_and_sources_named_around_the_article() -> None:
    # «έως και» is a range; a list's law is named by its opening clause; «του ίδιου νόμου» is the law named last
    got = edges("N_4855_2021::177", "εφαρμόζονται τα άρθρα 372 έως και 374 ΠΚ", "N_4855_2021")
    assert [c for c, *_ in got] == ["PK::372", "PK::373", "PK::374"]
    text = "Καταργούνται οι ακόλουθες διατάξεις του ν. 4624/2019:\nα) το άρθρο 5,\nβ) η παρ. 2 του άρθρου 6."
    assert edges("AK::914", text) == [("N_4624_2019::5", "N_4624_2019::5", "repeals", None),
                                     ("N_4624_2019::6", "N_4624_2019::6", "repeals", "2")]
    got = edges("AK::914", "σύμφωνα με το άρθρο 21 του ν. 4624/2019 και κατά παρέκκλιση του άρθρου 5 του ίδιου νόμου")
    assert [c for c, *_ in got] == ["N_4624_2019::21", "N_4624_2019::5"]
    assert edges("AK::914", "Προσθήκη άρθρου 25Α στον ν. 4276/2014")[0][:1] == ("N_4276_2014::25Α",)
    assert edges("AK::914", "Στον ΠΚ προστίθεται άρθρο 398 ως εξής:")[0][0::2] == ("PK::398", "inserts")


def test_what_is_no_article_edge_or_no_amendment() -> None:
    assert edges("AK::914", "Ο τίτλος του Κεφαλαίου 56 του ν. 4700/2020 αντικαθίσταται") == []
    inner = edges("AK::914", "Το εσωτερικό άρθρο 55 του άρθρου 2 του ν. 4335/2015 αντικαθίσταται ως εξής:")
    assert inner == [("N_4335_2015::2", "", "replaces", None)]
    got = edges("N_4855_2021::177", "Το άρθρο 374 ΠΚ, όπως τροποποιείται με τον παρόντα, εφαρμόζεται", "N_4855_2021")
    assert got[0][2] == "cites"
    # an editor's heading of repealed articles, a table of contents, a clause of a numbered agreement: no references
    assert edges("PK::49", "Άρθρα 376 – 378 (Καταργούνται)") == []
    assert edges("AK::914", "ΤΜΗΜΑ ΙΙΙ Άρθρο 58 Αμοιβαία αποδεκτή λύση Άρθρο 59 Διαδικαστικοί κανόνες") == []
    assert edges("AK::914", "σύμφωνα με το άρθρο 28.10 έκαστης Σύμβασης Παραχώρησης") == []
    # one group, one verb: both paragraphs are replaced
    got = edges("AK::914", "Η παρ. 1 του άρθρου 372 ΠΚ και η παρ. 2 του άρθρου 374 ΠΚ αντικαθίστανται ως εξής:")
    assert [k for *_, k, _ in got] == ["replaces", "replaces"]


def test_a_new_extractor_version_re_sends_every_article(monkeypatch) -> None:
    """The content hash carries the extractor's version: a re-index after the rules change recomputes the edges
    (and only then: the same text and version give the same hash, so the article is skipped)."""
    import nomos.ingest.bulk as bulk

    a = Article("PK::49", "Ιδιότητες", "κατά το άρθρο 46", "PK", "Ποινικός Κώδικας")
    before = content_sha(a)
    assert content_sha(dataclasses.replace(a)) == before
    monkeypatch.setattr(bulk, "REFERENCES_VERSION", REFERENCES_VERSION + "-next")
    assert content_sha(a) != before


def test_which_law_a_bare_article_is() -> None:
    # «του παρόντος» is the own law even when the next reference names another
    got = edges("N_4855_2021::177", "σύμφωνα με το άρθρο 86 του παρόντος και τα άρθρα 372 έως 374 ΠΚ", "N_4855_2021")
    assert [c for c, *_ in got] == ["N_4855_2021::86", "PK::372", "PK::373", "PK::374"]
    # «του νόμου αυτού» after a law named in the sentence is that law; «του εν λόγω Κώδικα» the code named before
    got = edges("AK::914", "συντάσσονται σύμφωνα με τον ν. 4624/2019, όπως ορίζονται στο άρθρο 21 του νόμου αυτού.")
    assert [c for c, *_ in got] == ["N_4624_2019::21"]
    got = edges("AK::914", "στο άρθρο 5 του ν. 4624/2019. Το άρθρο 6 του εν λόγω νόμου εφαρμόζεται αναλόγως.")
    assert [c for c, *_ in got] == ["N_4624_2019::5", "N_4624_2019::6"]
    # a sentence that names another law leaves a bare article undecided: no edge rather than a wrong one
    got = edges("N_4855_2021::177", "της παρ. 4 του άρθρου 18, και της παρ. 7 του άρθρου 23, περί μεταβατικών "
                "διατάξεων του ν. 4624/2019.", "N_4855_2021")
    assert [c for c, *_ in got] == []
    # an article cited with a law lends it to the same number in its paragraph, not in the next one
    text = "Στο άρθρο 15 του ν. 4786/2021 προστίθεται παρ. 3 και το άρθρο 15 διαμορφώνεται ως εξής:"
    assert [c for c, *_ in edges("AK::914", text)] == ["N_4786_2021::15"] * 3  # the article, «παρ. 3», «το άρθρο 15»
    got = edges("N_4855_2021::177", "κατά το άρθρο 15 του ν. 4786/2021.\n2. Οι αποφάσεις του άρθρου 15 εκδίδονται.",
                "N_4855_2021")
    assert [c for c, *_ in got] == ["N_4786_2021::15", "N_4855_2021::15"]
    # a letter written apart from the number, where the corpus has that article
    assert edges("PK::49", "για τα εγκλήματα του άρθρου 292 Β, β) συνθηματικά", "PK")[0][0] == "PK::292Β"


def test_a_list_without_a_verb_belongs_to_the_law_it_opens_with() -> None:
    text = "σύμφωνα με τα οριζόμενα στο άρθρο 84 του ν. 4624/2019:\nα) Ότι συντρέχουν οι προϋποθέσεις του άρθρου 5."
    assert [c for c, *_ in edges("AK::914", text)] == ["N_4624_2019::84", "AK::5"]
    text = "Στο άρθρο 84 του ν. 4624/2019 (Α΄ 137):\nα) στην παρ. 1 του άρθρου 5 προστίθεται εδάφιο."
    assert [c for c, *_ in edges("AK::914", text)][1] == "N_4624_2019::5"


def test_several_kinds_of_change_amend() -> None:
    text = ("Στην παρ. 1 του άρθρου 372 ΠΚ: α) στο πρώτο εδάφιο απαλείφεται η αναφορά στο άρθρο 394, β) προστίθεται "
            "νέο τρίτο εδάφιο και το άρθρο 372 διαμορφώνεται ως εξής: «Άρθρο 372 …»")
    assert edges("N_4855_2021::86", text, "N_4855_2021")[0][:3] == ("PK::372", "PK::372", "amends")
    text = "Στην παρ. 3 του άρθρου 374 ΠΚ απαλείφονται οι λέξεις «και 375»."
    assert edges("N_4855_2021::86", text, "N_4855_2021")[0][2] == "amends"  # words struck out, not a repeal
    text = "Στο άρθρο 374 ΠΚ προστίθεται παρ. 3 και το άρθρο 374 διαμορφώνεται ως εξής: «Άρθρο 374 …»"
    assert edges("N_4855_2021::86", text, "N_4855_2021")[0][2] == "inserts"  # the closing formula types nothing


def test_what_describes_a_reference_does_not_cut_its_clause() -> None:
    text = ("Το πρώτο εδάφιο της παρ. 4 του άρθρου 372 ΠΚ, όπως αντικαταστάθηκε με το άρθρο 86 του ν. 4855/2021 (Α΄ 166), "
            "αντικαθίσταται ως εξής: «…»")
    got = edges("AK::914", text)
    assert [(c, k) for c, _, k, _ in got] == [("PK::372", "replaces"), ("N_4855_2021::86", "cites")]
    assert edges("AK::914", "εφαρμόζονται οι παρ. 4 επ. του άρθρου 372 ΠΚ.")[0][3] == "4"


def test_codes_and_sources_named_in_words() -> None:
    # a code by its name; a source named in words, then by its law in parentheses; one that names no law: nothing
    assert edges("AK::914", "Στον Κώδικα ΦΠΑ προστίθεται άρθρο 47ε ως εξής:")[0][0::2] == ("N_2859_2000::47Ε", "inserts")
    got = edges("AK::914", "κατά το άρθρο 265 του Κώδικα Νομικών Προσώπων Ιδιωτικού Δικαίου (ν. 4624/2019, Α΄ 137).")
    assert [c for c, *_ in got] == ["N_4624_2019::265"]
    assert edges("AK::914", "κατά το άρθρο 5 του Κανονισμού (ΕΕ) 2016/679") == []
    assert edges("AK::914", "δ) Προστίθεται στοιχείο με αρ. 11 ως εξής:") == []  # a numbered item, not an article


def test_own_law_where_a_verb_separates_it_from_the_other_law() -> None:
    # v9: the other law closes a clause of its own (a verb between), so the bare article is the own law's
    text = ("μετά από εισήγηση της Επιτροπής του άρθρου 13, να χορηγείται αποζημίωση, κατά παρέκκλιση του άρθρου 21 "
            "του ν. 4624/2019 (Α’ 176).")
    assert [c for c, *_ in edges("N_4855_2021::177", text, "N_4855_2021")] == ["N_4855_2021::13", "N_4624_2019::21"]
    # ... but a verb that only describes the reference («, όπως ισχύει,») separates nothing: still undecided
    text = "οι διατάξεις της παρ. 7 του άρθρου 23, όπως ισχύει, του ν. 4624/2019."
    assert [c for c, *_ in edges("N_4855_2021::177", text, "N_4855_2021")] == []
    # and where the other law comes first, the bare article stays undecided
    text = "Ο ν. 4624/2019, με την επιφύλαξη των ορισμών του άρθρου 2, καταργείται."
    assert [c for c, *_ in edges("N_4855_2021::177", text, "N_4855_2021")] == []


def test_articles_numbered_in_words() -> None:
    text = ("Η περ. β) της παρ. 5 του άρθρου εξηκοστού πέμπτου του ν. 4624/2019 (Α’ 121), περί των ανώτατων ορίων, "
            "τροποποιείται και η περ. β) της παρ. 5 του άρθρου εξηκοστού πέμπτου διαμορφώνεται ως εξής: «…»")
    assert edges("N_4855_2021::177", text, "N_4855_2021") == [("N_4624_2019::65", "", "amends", "5")] * 2
    assert edges("AK::914", "της παρ. 1 του άρθρου εκατοστού δέκατου όγδοου του ν. 4624/2019")[0][0] == "N_4624_2019::118"
    # a heading of an embedded article, or words that make no number, are no reference
    assert edges("AK::914", "κατά το άρθρο δέκατο του ν. 4624/2019. Άρθρο δέκατο Μετάκληση πολίτη") == [
        ("N_4624_2019::10", "", "cites", None)]
    assert edges("AK::914", "το άρθρο πρώτο δεύτερο του ν. 4624/2019") == []


KIND_CASES = [
    # the verb after governs its own subject («το ειδικό βιβλίο»), not the decision the reference qualifies (v9)
    ("μετά την έκδοση της υπουργικής απόφασης της παρ. 4 του άρθρου 21 του ν. 4624/2019, καταργείται το ειδικό βιβλίο "
     "υπερωριών.", "cites"),
    # a provision of the article is still what the verb changes
    ("Το πρώτο εδάφιο της παρ. 4 του άρθρου 21 του ν. 4624/2019 καταργείται.", "repeals"),
    # what describes a reference, «(Α’ 136) περί …» (v9), «, με την οποία …», «(Α΄ 201)),» (v10), cuts no clause
    ("Η παρ. 3 του άρθρου 21 του ν. 4624/2019 (Α’ 136) περί της αρμοδιότητας των Κέντρων για τη λήψη της απόφασης, "
     "τροποποιείται και διαμορφώνεται ως εξής: «…»", "amends"),
    ("Η παρ. 1 του άρθρου 21 του ν. 4624/2019 (Α’ 59), με την οποία παρέχεται νομοθετική εξουσιοδότηση για τη ρύθμιση "
     "του τρόπου λειτουργίας των Σχολών, τροποποιείται ως προς το αντικείμενο της εξουσιοδότησης.", "amends"),
    ("Ο τίτλος και το άρθρο 21 του ν. 4624/2019 (Α΄ 201)), περί της καταβολής εισφορών, αντικαθίσταται ως εξής: «…»",
     "replaces"),
]


@pytest.mark.parametrize("text, kind", KIND_CASES)
def test_the_kind_of_a_reference(text: str, kind: str) -> None:
    assert edges("AK::914", text)[0][2] == kind


def test_a_reference_across_a_line_break() -> None:
    text = "κατά τα οριζόμενα στο άρθρο 21 του\nν. 4624/2019."
    assert [c for c, *_ in edges("AK::914", text)] == ["N_4624_2019::21"]


def test_a_paragraph_named_alone_after_its_amended_article() -> None:
    # v10: «και η παρ. 4 διαμορφώνεται» is paragraph 4 of the article amended before it at that paragraph
    text = ("Το πρώτο εδάφιο της παρ. 4 του άρθρου 2 του ν. 4624/2019 (Α’ 184) τροποποιείται ως προς τον χρόνο ισχύος "
            "και η παρ. 4 διαμορφώνεται ως εξής: «4. …»")
    assert edges("AK::914", text) == [("N_4624_2019::2", "", "amends", "4")] * 2
    # v13: another paragraph is the same article's where no other reference stands between (the v12 recall
    # batch's reader read this sentence of N_4798_2021::257 so; v10 gave it no edge)
    text = "Οι παρ. 1 και 3 του άρθρου 47 του ν. 4624/2019 τροποποιούνται, η παρ. 2 τροποποιείται ως προς τον φορέα."
    assert [(c, k, p) for c, _, k, p in edges("AK::914", text)] == [("N_4624_2019::47", "amends", "1"),
                                                                   ("N_4624_2019::47", "amends", "2")]
    # ... and not where one does: «β) η παρ. 2» after «την παραπομπή στα άρθρα 20-23 του ν. 4735/2020» is article 14's
    text = ("Στο άρθρο 14 του ν. 4624/2019 α) η παρ. 1 τροποποιείται ως προς την παραπομπή στα άρθρα 20 έως 23 του ν. "
            "4735/2020, β) η παρ. 2 τροποποιείται ως προς τον φορέα.")
    assert "N_4735_2020::21" not in [c for c, _, k, p in edges("AK::914", text) if p == "2"]


def test_decrees_emergency_laws_and_the_article_before_a_lettered_one() -> None:
    assert edges("AK::914", "με το άρθρο 13 του ν.δ. 2687/1953")[0][0] == "ND_2687_1953::13"
    assert edges("AK::914", "κατά το άρθρο 5 του α.ν. 1539/1938")[0][0] == "AN_1539_1938::5"  # not ν. 1539/1938
    assert edges("PK::292Β", "της παραγράφου 1 του προηγούμενου άρθρου", "PK")[0][:2] == ("PK::292Α", "")
    assert edges("PK::292Β", "κατά το επόμενο άρθρο", "PK") == []  # 292Γ or 293: the number does not say


def test_subjects_listed_after_the_verb_that_opens_their_clause() -> None:
    # v10: «καταργούνται … , καθώς και τα άρθρα 19 έως και 74 του ν. 3463/2006»: the opening verb types each subject
    text = ("Καταργούνται τα άρθρα 7 έως 9 του ν. 4624/2019 (Α’ 87), περί των εκλογών των δημοτικών αρχών, καθώς και τα "
            "άρθρα 19 και 20 του ν. 4855/2021.")
    assert {k for _, _, k, _ in edges("AK::914", text)} == {"repeals"}
    # a reference written as no subject («της απόφασης της παρ. 1») or one with a verb of its own is not typed by it
    text = "Από την έκδοση της απόφασης της περ. β) της παρ. 1 του άρθρου 21 του ν. 4624/2019 καταργείται το άρθρο 23."
    assert edges("AK::914", text)[0][2] == "cites"
    text = "Καταργείται κάθε αντίθετη γενική ή ειδική διάταξη και το άρθρο 21 του ν. 4624/2019 εφαρμόζεται αναλόγως."
    assert edges("AK::914", text)[0][2] == "cites"
    assert edges("AK::914", text.replace(" εφαρμόζεται αναλόγως", ""))[0][2] == "repeals"
    # whatever conflicts with an article is repealed, not the article
    text = "καταργούνται:\n1. Κάθε διάταξη που είναι αντίθετη στις διατάξεις των άρθρων 82 έως και 84 του ν. 4624/2019."
    assert {k for _, _, k, _ in edges("AK::914", text)} == {"cites"}


def test_foreign_acts_named_after_an_article_and_listed_paragraphs() -> None:
    assert edges("AK::914", "όπως προβλέπεται στο άρθρο 25 του ίδιου Κανονισμού") == []
    assert edges("AK::914", "στο άρθρο 3 σημεία 2 και 2γ αντίστοιχα της οδηγίας 94/62/ΕΚ") == []
    assert edges("AK::914", "το κριτήριο β΄ της παρ. 1 και των παρ. 3-4 του άρθρου 21 του ν. 4624/2019")[0][3] == "1"
    assert edges("AK::914", "Στην παρ. 6.ε. του άρθρου 21 του ν. 4624/2019 προστίθεται εδάφιο")[0][3] == "6"


def test_v11_joins_follow_ups_and_numbers() -> None:
    # a noun of its own between two references starts a new item: the later law is not the earlier article's
    text = ("το τέλος ανακύκλωσης του άρθρου 21 και την εισφορά της περ. ε’ της παρ. 3 του άρθρου 4 του ν. 4624/2019.")
    assert [c for c, *_ in edges("N_4855_2021::177", text, "N_4855_2021")] == ["N_4624_2019::4"]
    # ... but a title's nouns and «στην» join («Αντικατάσταση του άρθρου 21 και προσθήκη παρ. 5 στο άρθρο 22 του ν.»)
    text = "Στις παρ. 4 και 7 του άρθρου 12, στην παρ. 3 του άρθρου 17 και στην παρ. 1 του άρθρου 55 του ν. 4624/2019"
    assert {c.split("::")[0] for c, *_ in edges("N_4855_2021::177", text, "N_4855_2021")} == {"N_4624_2019"}
    # «… και το άρθρο διαμορφώνεται ως εξής»: the article amended before it
    text = "Στο άρθρο 21 του ν. 4624/2019 προστίθεται παρ. 3 και το άρθρο διαμορφώνεται ως εξής: «…»"
    assert edges("AK::914", text) == [("N_4624_2019::21", "N_4624_2019::21", "inserts", None),
                                      ("N_4624_2019::21", "N_4624_2019::21", "inserts", "3"),
                                      ("N_4624_2019::21", "N_4624_2019::21", "amends", None)]
    # an ordinal before the noun; a plural «παράγραφοι 1 και 2» is paragraphs, not article 2
    assert edges("AK::914", "της παρ. 5 του πέμπτου άρθρου του ν. 2275/1994") == [("N_2275_1994::5", "", "cites", "5")]
    assert [c for c, *_ in edges("AK::914", "στο άρθρο 3 παράγραφοι 1 και 2 του ν. 4624/2019")] == ["N_4624_2019::3"]
    # «τις παρ. 2, 3 ή 4 του άρθρου 161»: the first paragraph; «την παραπομπή στα άρθρα» cites
    assert edges("AK::914", "ή τις παρ. 2, 3 ή 4 του άρθρου 21 του ν. 4624/2019")[0][3] == "2"
    text = "η παρ. 1 τροποποιείται ως προς την παραπομπή στα άρθρα 20-21 του ν. 4624/2019"
    assert {k for _, _, k, _ in edges("AK::914", text)} == {"cites"}


def test_v13_lettered_ranges_spaced_suffixes_and_parts_of_a_law() -> None:
    # «Τα άρθρα 34Α έως 34Θ»: every lettered article between (past Θ: a numeral of two letters, v20's test below)
    got = [c for c, *_ in edges("AK::914", "Τα άρθρα 34Α έως 34Θ του ν. 4858/2021 εφαρμόζονται")]
    assert got == [f"N_4858_2021::34{x}" for x in ("Α", "Β", "Γ", "Δ", "Ε", "ΣΤ", "Ζ", "Η", "Θ")]
    assert [c for c, *_ in edges("AK::914", "τα άρθρα 34Η έως 34ΙΑ ΠΚ")] == ["PK::34Η", "PK::34Θ", "PK::34Ι",
                                                                           "PK::34ΙΑ"]
    # a chapter named between the article and its law
    got = edges("AK::914", "Η παράγραφος 1 του άρθρου 2 του Κεφαλαίου Α΄ του ν. 1955/1991 αντικαθίσταται ως εξής:")
    assert got == [("N_1955_1991::2", "", "replaces", "1")]
    # a spaced suffix is read where punctuation or a lower-case word follows, for the last item of a list only
    assert edges("PK::184", "κατά το άρθρο 82 Α, η ποινή", "PK") == [("PK::82Α", "", "cites", None)]
    assert [c for c, *_ in edges("PK::97", "των άρθρων 290, 290 Α, 291", "PK")] == ["PK::290", "PK::290Α"]
    assert [c for c, *_ in edges("PK::184", "το άρθρο 82 Η ποινή", "PK")] == ["PK::82"]  # «Η» opens a sentence


def test_v13_what_another_provision_does_is_no_amendment_here() -> None:
    # «όπως η περίπτωση αυτή τροποποιείται με την παρ. 1 του άρθρου 8 του παρόντος»: the other provision amends it
    text = ("της περ. α΄ της παρ. 1 του άρθρου 13Γ του ν. 4186/2013 (Α΄ 193), όπως η περίπτωση αυτή τροποποιείται με την "
            "παρ. 1 του άρθρου 8 του παρόντος, ισχύει")
    assert edges("N_4777_2021::58", text, "N_4777_2021")[0] == ("N_4186_2013::13Γ", "", "cites", "1")
    # a designator between «όπως αντικαταστάθηκε με» and the article, across a line break after «περ.»
    text = ("Το πρώτο εδάφιο της παρ. 4 του άρθρου 18 του\nν. 2882/2001 (Α΄ 17), όπως αντικαταστάθηκε με την περ.\nε΄ του "
            "άρθρου 31 του ν. 3130/2003 (Α΄ 76), αντικαθίσταται ως εξής: «…»")
    assert edges("AK::914", text) == [("N_2882_2001::18", "", "replaces", "4"), ("N_3130_2003::31", "", "cites", None)]


def test_v13_paragraphs_after_their_verb_the_article_above_and_inner_articles() -> None:
    text = ("Στο άρθρο 31 του ν. 4756/2020 (Α΄ 235), τροποποιείται η παρ. 3 ως προς τη διάρκεια ισχύος, προστίθεται παρ. 4 "
            "και το άρθρο 31 διαμορφώνεται ως εξής: «…»")
    got = [(c, k, p) for c, _, k, p in edges("AK::914", text)]
    assert got == [("N_4756_2020::31", "amends", None), ("N_4756_2020::31", "amends", "3"),
                   ("N_4756_2020::31", "inserts", "4"), ("N_4756_2020::31", "amends", None)]
    # a paragraph followed by its own article is that article's, not a follow-up
    text = "Στο άρθρο 31 του ν. 4756/2020 προστίθεται παρ. 4 στο άρθρο 5 του ν. 4624/2019"
    assert ("N_4756_2020::31", "4") not in [(c, p) for c, _, _, p in edges("AK::914", text)]
    # a lettered paragraph follows up too
    text = "Στο τέλος της παρ. Δ του άρθρου 127 του ν. 4472/2017 προστίθεται περ. δ’ και η παρ. Δ διαμορφώνεται ως εξής:"
    assert edges("AK::914", text)[-1] == ("N_4472_2017::127", "", "amends", "Δ")
    # «του ως άνω άρθρου»: the article cited last before it, in its paragraph
    text = ("το υπόδειγμα της παρ. 3 του άρθρου 13 του ν. 4624/2019. Με την ίδια απόφαση καθορίζεται η βεβαίωση της περ. "
            "γ’ της παρ. 3 του ως άνω άρθρου.")
    assert edges("AK::914", text) == [("N_4624_2019::13", "", "cites", "3")] * 2
    assert edges("AK::914", "Η βεβαίωση της παρ. 3 του ως άνω άρθρου.") == []  # none before it
    # an article inside a ratified code's article is an edge to that outer article, which the corpus holds
    text = ("Μετά το εσωτερικό άρθρο 45 του άρθρου 2 του ν. 4335/2015 (Α’ 87) και μετά το εσωτερικό άρθρο 45α του "
            "παρόντος, προστίθεται εσωτερικό άρθρο 45β ως εξής: «Άρθρο 45β …»")
    assert edges("AK::914", text) == [("N_4335_2015::2", "", "inserts", None)] * 3


def test_v14_a_gazette_issue_before_a_code_named_in_words_is_no_article() -> None:
    # «(Α’ 167, Κώδικας Φορολογίας Εισοδήματος)»: issue 167 of series Α, not article 167 of the code (v13 read it so,
    # and gave the amendment's kind to it rather than to article 72)
    text = ("Το τελευταίο εδάφιο της παρ. 65 του άρθρου 72 του ν. 4172/2013 (Α’ 167, Κώδικας Φορολογίας Εισοδήματος) "
            "τροποποιείται ως προς την ημερομηνία και η παρ. 65 διαμορφώνεται ως εξής: «65. …»")
    assert edges("AK::914", text) == [("N_4172_2013::72", "", "amends", "65")] * 2


def test_v16_a_worded_range_is_read_whole_past_sixty_articles() -> None:
    # N_4782_2021::139 (judged r-058): «του άρθρων 222 έως 338 του ιδίου νόμου» is Book II of ν. 4412/2016, every
    # article of it; v15 read only the two ends (ranges over 60 were cut); a dash range keeps the old limit
    text = ("Με κοινή απόφαση … καθορίζονται οι τεχνικές λεπτομέρειες και διαδικασίες του άρθρου 258 του ν.\xa0"
            "4412/2016 περί κανόνων, που εφαρμόζονται στις επικοινωνίες, για τις συμβάσεις προμηθειών και υπηρεσιών "
            "του άρθρων 222 έως 338 του ιδίου νόμου σχετικά με:")
    got = [c for c, *_ in edges("N_4782_2021::139", text)]
    assert got == ["N_4412_2016::258"] + [f"N_4412_2016::{n}" for n in range(222, 339)]
    assert [c for c, *_ in edges("AK::914", "των άρθρων 1 - 120 του ν. 4412/2016")] == ["N_4412_2016::1",
                                                                                        "N_4412_2016::120"]


def test_v16_kfe_abbreviation_and_a_paragraph_with_its_case_after_a_dot() -> None:
    # N_4821_2021::82 (r-031): the title's tail «… - Τροποποίηση\nτου άρθρου 72 του Κ.Φ.Ε.» at the text's head
    text = ("του άρθρου 72 του Κ.Φ.Ε.\n1. Το τελευταίο εδάφιο της παρ. 65 του άρθρου 72 του ν. 4172/2013 (Α’ 167, "
            "Κώδικας Φορολογίας Εισοδήματος) τροποποιείται ως προς την ημερομηνία της εφάπαξ καταβολής του φόρου και "
            "η παρ. 65 διαμορφώνεται ως εξής: «65. …»")
    got = edges("N_4821_2021::82", text, "N_4821_2021")
    assert got[0][:2] == ("N_4172_2013::72", "") and [c for c, *_ in got] == ["N_4172_2013::72"] * 3
    assert [c for c, *_ in edges("AK::914", "σύμφωνα με το άρθρο 15 του ΚΦΔ")] == ["N_4174_2013::15"]
    # N_4876_2021::79 (r-034): «και η παρ. 6.ε. διαμορφώνεται» is paragraph 6 of the article amended before it
    text = ("Στην παρ. 6.ε. του άρθρου 12 του ν. 3891/2010 (Α’ 188) τροποποιείται το πρώτο εδάφιο ως προς τον χρόνο "
            "ανάθεσης, προστίθεται τέταρτο εδάφιο και η παρ. 6.ε. διαμορφώνεται ως εξής: «6.ε. Από 1.1.2022 …»")
    assert edges("N_4876_2021::79", text) == [("N_3891_2010::12", "", "amends", "6")] * 2


def _read(article_id: str, text: str, title: str = "", own: str | None = None) -> list[tuple[str, str, str | None]]:
    own = own or article_id.split("::")[0]
    return [(r.cited, r.kind, r.paragraph) for r in extract_references(article_id, text, RESOLVER, own, title)]


def test_v17_a_law_that_qualifies_the_subject_before_the_verb_leaves_a_bare_article_the_own_law_s() -> None:
    # N_4819_2021::30 (judged f-060): ν. 4014/2011 names the category of works, before the main verb; v16 gave no edge
    text = ("2. Η διαχείριση των ΑΕΚΚ δημόσιων ή ιδιωτικών έργων ή δραστηριοτήτων κατηγορίας Α’ του ν. 4014/2011 "
            "(Α’\xa0209) αποσκοπεί, σύμφωνα με τα προβλεπόμενα στο άρθρο 4, στη μέγιστη δυνατή αξιοποίησή τους.")
    assert _read("N_4819_2021::30", text) == [("N_4819_2021::4", "cites", None)]
    # not where an article of the other law is cited before, nor where an amendment verb stands between
    text = ("Η παρ. 2 του άρθρου 5 του ν. 4014/2011 εφαρμόζεται, σύμφωνα με τα προβλεπόμενα στο άρθρο 4, και στα έργα.")
    assert _read("N_4819_2021::30", text) == [("N_4014_2011::5", "cites", "2")]


def test_v17_codes_named_in_words_and_a_code_s_title_with_commas_before_its_law() -> None:
    # N_4770_2021::15 (f-030)
    text = ("περί της συνδρομής ή μη των όρων του άρθρου 5 του Κώδικα Δημοσίου Ναυτικού Δικαίου (ν.δ. 187/1973, Α΄ "
            "261). Πλοίο … διαγράφεται υπό τους όρους της παρ. 2 του άρθρου 18 του ιδίου Κώδικα, άνευ αιτήσεως.")
    assert _read("N_4770_2021::15", text) == [("ND_187_1973::5", "cites", None), ("ND_187_1973::18", "cites", "2")]
    # N_4873_2021::21 (f-024): the title's tail, then the code's full title with its law in parentheses
    text = ("νομικά πρόσωπα - Αντικατάσταση της παρ. 3 του άρθρου 89 του Κώδικα Διατάξεων Φορολογίας Κληρονομιών, "
            "Δωρεών, Γονικών Παροχών και Κερδών από Τυχερά Παίγνια Η παρ. 3 του άρθρου 89 του Κώδικα Διατάξεων "
            "Φορολογίας Κληρονομιών, Δωρεών, Γονικών Παροχών και Κερδών από Τυχερά Παίγνια (ν. 2961/2001, Α΄ 266), "
            "αντικαθίσταται ως εξής: «3. Για τις χρηματικές δωρεές …»")
    assert _read("N_4873_2021::21", text) == [("N_2961_2001::89", "replaces", "3")] * 2


def test_v17_a_title_s_two_nouns_of_change_each_type_their_article() -> None:
    # N_4818_2021::4 (f-017): v16 found 14α only; article 14 is amended, 14α inserted
    text = ("προς μη υποκείμενα στον φόρο πρόσωπα - Τροποποίηση του άρθρου 14 και προσθήκη άρθρου 14α στον Κώδικα ΦΠΑ "
            "- (άρθρο 2\nπαρ. 6 και 7 της Οδηγίας (ΕΕ) 2017/2455)\n1. Οι περ. β΄, γ΄ και δ΄ της παρ. 13 του άρθρου 14 "
            "του Κώδικα ΦΠΑ καταργούνται.\n2. Μετά το άρθρο 14 του Κώδικα ΦΠΑ προστίθεται άρθρο 14α ως εξής: «Άρθρο "
            "14α …»")
    assert _read("N_4818_2021::4", text) == [
        ("N_2859_2000::14", "amends", None), ("N_2859_2000::14Α", "inserts", None),
        ("N_2859_2000::14", "repeals", "13"),
        # the article a new one is put after is where, not what, the verb inserts (v17: cited)
        ("N_2859_2000::14", "cites", None), ("N_2859_2000::14Α", "inserts", None)]


def test_v17_an_opening_into_a_law_governs_the_articles_of_its_clause() -> None:
    # N_4825_2021::65 (r-057)
    text = "Στον ν. 4791/2021 (Α΄ 51) μετά το άρθρο 22 προστίθεται άρθρο 22Α ως εξής: «Άρθρο 22Α Ερμηνεία …»"
    assert _read("N_4825_2021::65", text) == [("N_4791_2021::22", "cites", None),
                                              ("N_4791_2021::22Α", "inserts", None)]


def test_v17_dotted_article_numbers_of_an_amended_act_and_of_documents() -> None:
    # N_4825_2021::66 (f-019, f-022, r-016): ν. 4791/2021 numbers its paragraphs «6.8.», named in the title only
    title = "Διόρθωση παροραμάτων και παραδρομών στον ν. 4791/2021"
    text = ("1. Στην περ. (vi) του άρθρου 1.3.1. η λέξη «WADA» αντικαθίσταται με τη λέξη «Κώδικας».\n"
            "7. Στο πρώτο εδάφιο του άρθρου 6.8. μετά τις λέξεις «Ο WADA» τίθεται κόμμα «,» και προστίθενται οι λέξεις "
            "«με αποκλειστική διακριτική ευχέρεια,».\n30. Στο άρθρο 19.1. οι λέξεις «όλους» αντικαθίστανται με τις "
            "λέξεις «τους».")
    assert _read("N_4825_2021::66", text, title) == [
        ("N_4791_2021::1", "replaces", "3"), ("N_4791_2021::6", "inserts", "8"), ("N_4791_2021::19", "replaces", "1")]
    # a law named after the number takes it; a clause of a contract or a standard stays no edge, and so does a dotted
    # number the title's act does not take (no scope)
    assert _read("AK::914", "σύμφωνα με το άρθρο 19.4 του ν. 4791/2021") == [("N_4791_2021::19", "cites", "4")]
    assert _read("N_4825_2021::66", "κατά το άρθρο 28.10 έκαστης Σύμβασης καταβάλλεται", title) == []
    assert _read("N_4825_2021::66", "του άρθρου 5.1.1.1 του Διεθνούς Προτύπου για τους Ελέγχους", title) == []
    assert _read("N_4819_2021::30", "Στο άρθρο 6.8. οι λέξεις «Ο WADA» αντικαθίστανται") == []


def test_v18_an_opening_into_a_part_of_an_act_governs_the_bare_articles_of_its_sentence() -> None:
    # N_4849_2021::72 (judged f-003 of recall-v17): the Annex of ν. 4442/2016 says when its articles come into force;
    # v17 gave no edge (the opening names the Annex, not the act, before «του ν.»)
    text = ("Στο Παράρτημα ΙΙ του ν. 4442/2016 (Α’ 230), περί της έναρξης ισχύος του νόμου αυτού, τροποποιείται η περ. 6 "
            "περί της έναρξης ισχύος των άρθρων 206 έως 208, προστίθεται περ. 7 και το Παράρτημα ΙΙ διαμορφώνεται ως "
            "εξής: «ΠΑΡΑΡΤΗΜΑ ΙΙ Έναρξη ισχύος του ν. 4442/2016 …»")
    assert _read("N_4849_2021::72", text) == [(f"N_4442_2016::{n}", "cites", None) for n in (206, 207, 208)]
    # not where another law is named between the opening and the article, nor with no amendment verb in the sentence
    # (the opening then says nothing of whose the articles are), nor past the sentence's end
    text = ("Στο Κεφάλαιο Β΄ του ν. 4442/2016 (Α’ 230), όπως ισχύει μετά το άρθρο 3 του ν. 4000/2012, τροποποιείται η "
            "περ. 6 περί της έναρξης ισχύος των άρθρων 206 έως 208.")
    assert [c for c, *_ in _read("N_4849_2021::72", text)] == ["N_4000_2012::3"]
    text = "Στο Παράρτημα ΙΙ του ν. 4442/2016 (Α’ 230) ορίζεται η έναρξη ισχύος των άρθρων 206 έως 208."
    assert not any(c.startswith("N_4442_2016") for c, *_ in _read("N_4849_2021::72", text))
    text = "Στο Κεφάλαιο Β΄ του ν. 4442/2016 (Α’ 230) προστίθεται άρθρο 20Α. Τα άρθρα 206 έως 208 εφαρμόζονται."
    assert [c for c, *_ in _read("N_4849_2021::72", text)][1:] == [f"N_4849_2021::{n}" for n in (206, 207, 208)]


def test_v18_a_bare_article_beside_another_law_s_article_cited_as_a_yardstick_is_the_own_law_s() -> None:
    # N_4808_2021::36 (f-008): ν. 3655/2008 is bound to its own article 142, which the sentence cites as a condition
    text = ("2. Η ειδική παροχή προστασίας μητρότητας χορηγείται στο προσωπικό των περ. β) και γ) του άρθρου 33 υπό τις "
            "προϋποθέσεις του άρθρου 142 του ν. 3655/2008 και καταβάλλεται από τον φορέα.")
    assert _read("N_4808_2021::36", text) == [("N_4808_2021::33", "cites", None), ("N_3655_2008::142", "cites", None)]
    # N_4727_2020::59 (f-019): the other law's article qualifies the subject, the main verb stands between
    text = ("8. Το δικαίωμα του κατασκευαστή βάσης δεδομένων που προβλέπεται στο άρθρο 45Α του ν. 2121/1993 (Α΄25) δεν "
            "μπορεί να ασκηθεί από τους φορείς του παρόντος Κεφαλαίου για να περιορίσει την περαιτέρω χρήση πέραν των "
            "ορίων που καθορίζονται στα άρθρα 64 έως 66, 69 και 70.")
    assert [c for c, *_ in _read("N_4727_2020::59", text)] == [
        "N_2121_1993::45Α", *(f"N_4727_2020::{n}" for n in (64, 65, 66, 69, 70))]
    # N_4804_2021::65 (f-056): a code cited with its articles after «σύμφωνα με … και», then its law in parentheses
    text = ("6. Αν γίνει δεκτή η ένσταση που ασκήθηκε, σύμφωνα με το άρθρο 72 του παρόντος και τα άρθρα 244 έως 245 του "
            "Κώδικα Διοικητικής Δικονομίας (ν. 2717/1999, Α’ 97), περί των διαφορών που αναφύονται κατά την εκλογική "
            "διαδικασία, και ακυρωθεί από το αρμόδιο δικαστήριο η απόφαση επικύρωσης της εκλογής του άρθρου 64, η "
            "διαδικασία επαναλαμβάνεται.")
    assert [c for c, *_ in _read("N_4804_2021::65", text)] == ["N_4804_2021::72", "KDD::244", "KDD::245",
                                                               "N_4804_2021::64"]


def test_v18_near_misses_of_the_yardstick_rule_stay_without_an_edge() -> None:
    def bare(text: str) -> list[str]:
        return [c for c, *_ in _read("N_4808_2021::36", text) if c.startswith("N_4808_2021")]
    # joined to the other law's article by «και»: a list, either law's
    assert bare("χορηγείται στο προσωπικό του άρθρου 33 και του άρθρου 142 του ν. 3655/2008 και καταβάλλεται") == []
    # the other law's provision is the subject of the main verb (v17's near-miss)
    assert bare("Η παρ. 2 του άρθρου 5 του ν. 4014/2011 εφαρμόζεται, σύμφωνα με τα προβλεπόμενα στο άρθρο 4, και "
                "στα έργα.") == []
    # an amendment verb in the sentence (N_4871_2021::65's «… διορθώνεται η αναφορά στο άρθρο 424 και η παρ. 1
    # διαμορφώνεται»: article 424 is ν. 4842/2021's)
    assert bare("Το δικαίωμα που προβλέπεται στο άρθρο 116 του ν. 4842/2021 (Α’ 190) ασκείται, διορθώνεται η αναφορά "
                "στο άρθρο 424 και η παρ. 1 διαμορφώνεται ως εξής: «1. …»") == []
    # a sentence whose start lies beyond the window (its law may be named there: N_4624_2019::84)
    text = ("Ο ν. 2472/1997 «Προστασία του ατόμου», με την επιφύλαξη " + "των ορισμών του άρθρου 2, " * 20
            + "και του άρθρου 21 που αφορά την επιβολή κυρώσεων σύμφωνα με το άρθρο 13 του ν. 3471/2006 (Α΄133), "
            "ισχύει.")
    assert "N_4808_2021::21" not in bare(text)


def test_v18_a_paragraph_an_item_names_without_an_article_is_the_list_opening_s_article_s() -> None:
    # N_4875_2021::30 (f-010): new wording stands between the opening and item γ)
    text = ("Στο άρθρο 5 του ν. 393/1976 (Α’ 199), περί των εγγυήσεων, επέρχονται οι εξής τροποποιήσεις: α) στο πρώτο "
            "εδάφιο της παρ. 1, αα) η φράση «υπέρ Ε.Ο.Τ.» αντικαθίσταται από τη φράση «υπέρ του Ελληνικού Δημοσίου», "
            "αβ) προστίθεται η φράση «και από ασφαλιστικές εταιρείες», β) στο δεύτερο εδάφιο της παρ. 1 μετά τη φράση "
            "«Παρακαταθηκών» προστίθεται η φράση «, σύμφωνα με το άρθρο 17 του ν. 3646/1928 (Α’ 154)», γ) στο τρίτο "
            "εδάφιο της παρ. 1, γα) η φράση «" + "Στην εγγυητική επιστολή, " * 30 + "» αντικαθίσταται από τη φράση "
            "«…», δ) στην παρ. 2, το αρκτικόλεξο «Ε.Ο.Τ.» αντικαθίσταται")
    # item α) replaces a phrase (αα) and adds one (αβ): several changes, amends (v22; v18 took the first verb's kind)
    assert _read("N_4875_2021::30", text) == [("N_393_1976::5", "amends", None), ("N_393_1976::5", "amends", "1"),
                                              ("N_393_1976::5", "inserts", "1"), ("N_393_1976::5", "replaces", "1"),
                                              ("N_393_1976::5", "replaces", "2")]
    # N_4823_2021::52 (r-007 of recall.jsonl): items on lines of their own, the opening naming article έκτο
    text = ("Στο άρθρο έκτο του ν. 4057/2012 (Α’ 54) επέρχονται οι ακόλουθες τροποποιήσεις:\nα) Η υποπερ. αα’ της περ. "
            "β’ της παρ. 2 αντικαθίσταται ως εξής: «αα) " + "ως στελέχη της εκπαίδευσης, " * 30 + "».\nβ) Η παρ. 7, "
            "περί της υπαγωγής πειθαρχικών υποθέσεων, αντικαθίσταται ως εξής: «7. Για τις πειθαρχικές υποθέσεις …»")
    assert ("N_4057_2012::6", "replaces", "7") in _read("N_4823_2021::52", text)
    # not where the opening names a law and no article, nor several articles, nor an item's paragraph of an article of
    # its own, nor an item with no amendment verb
    for text in ("Στον ν. 393/1976 επέρχονται οι εξής τροποποιήσεις: α) στην παρ. 2 η λέξη «Ε.Ο.Τ.» αντικαθίσταται",
                 "Στο άρθρο 5 του ν. 393/1976 και στο άρθρο 7 του ν. 393/1976 επέρχονται οι εξής τροποποιήσεις: α) στην "
                 "παρ. 2 η λέξη «Ε.Ο.Τ.» αντικαθίσταται",
                 "Στο άρθρο 5 του ν. 393/1976 επέρχονται οι εξής τροποποιήσεις: α) στην παρ. 2 του άρθρου 9 η λέξη "
                 "«Ε.Ο.Τ.» αντικαθίσταται",
                 "Στο άρθρο 5 του ν. 393/1976 επέρχονται οι εξής τροποποιήσεις: α) στην παρ. 2 διαγράφεται η λέξη «Ε»"):
        assert not any(c == "N_393_1976::5" and p == "2" for c, _, p in _read("N_4875_2021::30", text))


def test_v19_greek_numeral_suffixes_of_three_letters_and_a_spaced_range_end() -> None:
    # N_4960_2022::32 (g-007 of recall-v18): v18 cut «66ΚΣΤ» to article 66
    text = ("Μετά το άρθρο 66ΚΕ του ν. 4939/2022 (Α’ 111), προστίθενται: α) Υποκεφάλαιο Ε’ με τίτλο «Δομές» και β) "
            "άρθρο 66ΚΣΤ, το οποίο εντάσσεται στο νέο Υποκεφάλαιο, ως εξής: «Άρθρο 66ΚΣΤ …»")
    assert [c for c, *_ in _read("N_4960_2022::32", text)] == ["N_4939_2022::66ΚΕ", "N_4939_2022::66ΚΣΤ"]
    # N_4801_2021::20 (v18's wrong own-law edge to article 2): the range's end is written apart from its number
    text = ("Οποιαδήποτε αναφορά στο άρθρο 2Α του ν. 4139/2013 (Α’ 74), νοείται εφεξής ως παραπομπή αντιστοίχως στα "
            "άρθρα 2Α έως και 2 ΙΣΤ του παρόντος.")
    assert [c for c, *_ in _read("N_4801_2021::20", text)] == ["N_4139_2013::2Α"] + [
        f"N_4801_2021::2{x}" for x in ("Α Β Γ Δ Ε ΣΤ Ζ Η Θ Ι ΙΑ ΙΒ ΙΓ ΙΔ ΙΕ ΙΣΤ".split())]  # every one since v20
    # not after a range of plain numbers, nor a capital «Η» that opens the next sentence, nor a word in capitals
    assert [c for c, *_ in _read("N_4801_2021::20", "στα άρθρα 5 έως 7 Η Επιτροπή αποφασίζει.")] == [
        "N_4801_2021::5", "N_4801_2021::6", "N_4801_2021::7"]
    assert [c for c, *_ in _read("N_4801_2021::20", "στα άρθρα 2Α έως 2 Η Επιτροπή αποφασίζει.")] == [
        "N_4801_2021::2Α", "N_4801_2021::2"]
    assert [c for c, *_ in _read("N_4801_2021::20", "στα άρθρα 2Α έως 2 ΚΑΙ ΟΧΙ")] == [
        "N_4801_2021::2Α", "N_4801_2021::2"]


def test_v19_a_run_of_articles_takes_a_law_carried_from_before_only_if_every_number_does() -> None:
    # N_4951_2022::58 (g-003 of recall-v18): 11 was cited with ν. 3468/2006 in the sentence before; v18 gave it that law
    text = ("2.Τα άρθρα 4, 7, τα άρθρα 8Α, 8Β, 11, και η παρ. 8 του άρθρου 13 του ν. 3468/2006 (Α΄ 129), περί αδειών, "
            "καταργούνται από την έναρξη ισχύος του παρόντος. Όπου αναφέρονται τα ως άνω άρθρα, νοούνται εφεξής τα "
            "άρθρα 11, 14, 33, και εν γένει τα Κεφάλαια Δ΄ και Ε΄, του Μέρους Β΄ του παρόντος.")
    assert [c for c, *_ in _read("N_4951_2022::58", text)][-3:] == [
        "N_4951_2022::11", "N_4951_2022::14", "N_4951_2022::33"]
    # where every number of the run was cited with the law before, it still carries (v15)
    text = ("Στο άρθρο 112 του ν. 4389/2016 προστίθεται παρ. 3 και στο άρθρο 113 του ν. 4389/2016 προστίθεται παρ. 2. "
            "Τα άρθρα 112 και 113 εφαρμόζονται από 1.1.2020.")
    assert [c for c, *_ in _read("N_4951_2022::58", text)][-2:] == ["N_4389_2016::112", "N_4389_2016::113"]


def test_v19_an_opening_that_names_the_act_after_a_noun_of_change_governs_its_items() -> None:
    # N_5134_2024::95 (g-016 of recall-v18): v18 read the items' articles as the own law's
    text = ("Αντικείμενο του παρόντος Μέρους αποτελεί η τροποποίηση του ν. 4963/2022 (Α’ 149), και συγκεκριμένα:\n"
            "α) η τροποποίηση του άρθρου 33, περί της εισαγωγικής εκπαίδευσης,\nβ) η τροποποίηση του άρθρου 39, περί "
            "των μεταθέσεων,\nγ) η προσθήκη άρθρων 60Α έως 60Β, περί της διεξαγωγής γραπτού διαγωνισμού.")
    assert _read("N_5134_2024::95", text) == [("N_4963_2022::33", "cites", None), ("N_4963_2022::39", "cites", None),
                                              ("N_4963_2022::60Α", "cites", None),
                                              ("N_4963_2022::60Β", "cites", None)]
    # not where the act is named otherwise than after a noun of change, nor where more than the announcement stands
    # between the act and the colon
    for text in ("Για την εφαρμογή του ν. 4963/2022 (Α’ 149), και συγκεκριμένα:\nα) του άρθρου 33, περί …",
                 "Αντικείμενο αποτελεί η τροποποίηση του ν. 4963/2022 (Α’ 149) και η ρύθμιση θεμάτων του προσωπικού "
                 "του, και συγκεκριμένα:\nα) η τροποποίηση του άρθρου 33, περί …"):
        assert not any(c.startswith("N_4963_2022") for c, *_ in _read("N_5134_2024::95", text))


def test_v19_a_transposition_note_does_not_make_a_list_an_eu_act_s() -> None:
    # N_5078_2023::24 (g-029 of recall-v18): the note naming the Directive's article made every item's article no edge
    text = ("(άρθρο 44 της Οδηγίας (ΕΕ) 2016/2341) Κατόπιν αίτησης μέλους, το Τ.Ε.Α. παρέχει τις ακόλουθες πρόσθετες "
            "πληροφορίες:\nα) τους ετήσιους λογαριασμούς που αναφέρονται στο άρθρο 42,\nγ) περαιτέρω πληροφορίες, "
            "σύμφωνα με την περ. δ) της παρ. 1 του άρθρου 19. ΚΕΦΑΛΑΙΟ Δ’ ΟΡΓΑΝΑ ΔΙΟΙΚΗΣΗΣ")
    assert _read("N_5078_2023::24", text) == [("N_5078_2023::42", "cites", None), ("N_5078_2023::19", "cites", "1")]
    # a Directive named in the list's opening itself still makes its items no edge
    text = ("Κατόπιν αίτησης μέλους, παρέχονται οι πληροφορίες του Κανονισμού (ΕΕ) 2019/2088:\nα) τους λογαριασμούς "
            "που αναφέρονται στο άρθρο 42,\nβ) της παρ. 1 του άρθρου 19.")
    assert _read("N_5078_2023::24", text) == []


def test_v19_changes_announced_as_alterations_amend_and_a_title_types_the_act() -> None:
    # N_5018_2023::70 (g-024 of recall-v18): «επέρχονται οι εξής αλλαγές» typed cites; the title says ν.δ.
    title = "Κατανομή ειδικών κατηγοριών μαθητών ΣΑΝ - Τροποποίηση άρθρου 2 ν.δ. 1032/1971"
    text = ("Στο άρθρο 2 του ν. 1032/1971 (Α’ 232) επέρχονται οι εξής αλλαγές: α) ο τίτλος του άρθρου μεταφέρεται στη "
            "δημοτική, β) στο πρώτο εδάφιο της παρ. 1 οι λέξεις «αξιωματικοί» αντικαθίστανται από τις λέξεις «αξιωματικοί "
            "Νοσηλευτικής»")
    assert _read("N_5018_2023::70", text, title) == [("ND_1032_1971::2", "amends", None),
                                                     ("ND_1032_1971::2", "replaces", "1")]
    # with no such title the act is the law the text names; «αλλαγές» with no «εξής» is no amendment
    assert _read("N_5018_2023::70", text)[0] == ("N_1032_1971::2", "amends", None)
    assert _read("N_5018_2023::70", "Οι αλλαγές του άρθρου 2 του ν. 1032/1971 (Α’ 232) αξιολογούνται.") == [
        ("N_1032_1971::2", "cites", None)]
    # a spaced suffix before «ν.» in the title is no α.ν. (N_5021_2023::83)
    text = "Το άρθρο 97Α του ν. 3852/2010 (Α’ 87) αντικαθίσταται ως εξής: «Άρθρο 97Α …»"
    assert _read("N_5021_2023::83", text, "Υπηρεσίες Δόμησης - Αντικατάσταση άρθρου 97 Α ν. 3852/2010") == [
        ("N_3852_2010::97Α", "replaces", None)]


def test_v19_dotted_article_numbers_in_a_law_that_numbers_its_parts_so() -> None:
    # N_4791_2021::10 (g-039 of recall-v18): the code numbers its parts «10.2.», and cites its articles «2.1.»
    text = ("10.1. Ακύρωση αποτελεσμάτων.\n10.2. Αποκλεισμός Η περίοδος αποκλεισμού, που επιβάλλεται για την πρώτη "
            "παράβαση των άρθρων 2.1., 2.2. ή 2.6. έχει ως εξής, σύμφωνα με τα άρθρα 10.5., 10.6. ή 10.7.:\n10.2.1. Για "
            "παραβάσεις του άρθρου 13.2.3., η περίοδος διαρκεί δύο έτη.")
    assert _read("N_4791_2021::10", text) == [("N_4791_2021::2", "cites", "1"), ("N_4791_2021::2", "cites", "2"),
                                              ("N_4791_2021::2", "cites", "6"), ("N_4791_2021::13", "cites", "2")]
    # v17's near-misses stay no edge there too: a contract's or a standard's clause
    for near in ("κατά το άρθρο 28.10 έκαστης Σύμβασης καταβάλλεται", "του άρθρου 5.1.1.1 του Διεθνούς Προτύπου"):
        assert _read("N_4791_2021::10", "10.1. Ακύρωση.\n10.2. Αποκλεισμός " + near) == []
    # and so does a dotted number in an article that does not number its own parts so
    assert _read("N_4791_2021::11", "1. Η περίοδος αποκλεισμού για παράβαση του άρθρου 2.1. ορίζεται.") == []


def test_v19_articles_of_it_are_the_act_just_named() -> None:
    # N_4804_2021::15: «των άρθρων 32 έως 34 αυτού» after «του π.δ. 26/2012»; v18 read 33 alone, carried from before
    text = ("υποβάλλεται στην ηλεκτρονική πύλη του άρθρου 33 του π.δ. 26/2012 (Α’ 27), περί εκλογής βουλευτών, με "
            "αναλογική εφαρμογή των άρθρων 32 έως 34 αυτού, η οποία είναι προσβάσιμη.")
    assert [c for c, *_ in _read("N_4804_2021::15", text)] == [f"PD_26_2012::{n}" for n in (33, 32, 33, 34)]
    # not past an EU act named between, nor with no act named close before
    assert _read("N_4804_2021::15", "του π.δ. 26/2012 και του Κανονισμού (ΕΕ) 2016/679, ιδίως του άρθρου 5 αυτού") == []
    assert _read("N_4804_2021::15", "Ο ορισμός του άρθρου 5 αυτού ισχύει.") == []
    # a code named with its enacting act in parentheses is one mention: the code's articles (N_5020_2023::11)
    text = ("εφαρμόζονται αναλόγως οι διατάξεις του Αστικού Κώδικα (π.δ. 456/1984, Α’ 164) για τη μίσθωση έργου, εκτός "
            "από τα άρθρα 683, 693 και 695 αυτού.")
    assert [c for c, *_ in _read("N_5020_2023::11", text)] == ["AK::683", "AK::693", "AK::695"]
    # «του παρόντος» named last before «αυτού» is the citing law (N_4831_2021::124)
    text = ("Από την έναρξη ισχύος του παρόντος, και με την επιφύλαξη των οριζομένων στις παρ. 2 και 10 του άρθρου 123 "
            "αυτού, καταργούνται: α) ο ν. 3086/2002 (Α’ 324)")
    assert _read("N_4831_2021::124", text)[0] == ("N_4831_2021::123", "cites", "2")


def test_v19_a_run_partly_cited_with_a_law_before_keeps_it_where_the_sentence_does_not_name_the_own_law() -> None:
    # N_4964_2022::117: 96 was cited with ν. 4549/2018 before; the run names that law at its end (v18 read 96 alone)
    text = ("μετά από σύμφωνη γνώμη της Επιτροπής του άρθρου 96 του ν. 4549/2018. Για την παροχή της εγγύησης, "
            "εφαρμόζονται τα άρθρα 92, 93, 94, 96, 97, 99 και το άρθρο 102 του ν. 4549/2018.")
    assert "N_4549_2018::96" in [c for c, *_ in _read("N_4964_2022::117", text)][1:]


def test_v20_a_range_of_greek_numeral_suffixes_past_theta_is_read_whole_in_numeral_order() -> None:
    # N_5038_2023::4 (h-012 of recall-v19): v19 gave the two ends only
    text = ("σε κάποιο άλλο πρόσωπο σύμφωνα με τα άρθρα 66Α έως 66ΛΔ του Κεφαλαίου Γ’ του Τρίτου Μέρους του ν. "
            "4939/2022. Στον ορισμό αυτόν περιλαμβάνεται")
    got = [c for c, *_ in _read("N_5038_2023::4", text)]
    units = ["", "Α", "Β", "Γ", "Δ", "Ε", "ΣΤ", "Ζ", "Η", "Θ"]
    want = [t + u for t in ("", "Ι", "Κ", "Λ") for u in units][1:35]  # Α … Θ, Ι, ΙΑ … ΙΘ, Κ … ΚΘ, Λ … ΛΔ
    assert got == [f"N_4939_2022::66{x}" for x in want] and len(got) == 34
    assert "N_4939_2022::66ΙΣΤ" in got and "N_4939_2022::66ΚΣΤ" in got
    # lower case as some acts write them («3ε έως 3ια», N_4933_2022::21): 3Ε, 3ΣΤ … 3Θ, 3Ι, 3ΙΑ
    got = [c for c, *_ in _read("N_4933_2022::21", "που προβλέπεται στα άρθρα 3ε έως 3ια για τις συμβάσεις")]
    assert got == [f"N_4933_2022::3{x}" for x in ("Ε", "ΣΤ", "Ζ", "Η", "Θ", "Ι", "ΙΑ")]
    # not a range that ends in a lone letter past Θ: alphabetical in some acts (Regulation 575/2013's «72ε έως 72ι»,
    # N_4799_2021::78), numeral in others; nor two different numbers; a plain letter range stays as it was
    assert [c for c, *_ in _read("N_4798_2021::237", "σύμφωνα με τα άρθρα 4Α έως 4Κ του ν. 3869/2010.")] == [
        "N_3869_2010::4Α", "N_3869_2010::4Κ"]
    assert [c for c, *_ in _read("N_4798_2021::237", "τα άρθρα 4Α έως 5ΙΑ του ν. 3869/2010")] == [
        "N_3869_2010::4Α", "N_3869_2010::5ΙΑ"]
    assert [c for c, *_ in _read("N_4798_2021::237", "τα άρθρα 22Α έως 22Δ του ν. 3869/2010")] == [
        f"N_3869_2010::22{x}" for x in "ΑΒΓΔ"]


def test_v20_articles_of_a_part_of_no_named_law_are_the_own_law_s_past_codes_that_describe_other_parts() -> None:
    # N_5134_2024::120 (h-003 of recall-v19): the codes are what Parts Α'–Γ' amend, not the law of articles 104…109
    text = ("1. Η ισχύς του Μέρους Α’, περί των παρεμβάσεων στον Κώδικα Πολιτικής Δικονομίας (π.δ. 503/1985, Α’ 182), "
            "του Μέρους Β’, περί των παρεμβάσεων στον Κώδικα Ποινικής Δικονομίας (ν. 4620/2019, Α’ 96), του Μέρους Γ’, "
            "περί των παρεμβάσεων στον Κώδικα Οργανισμού Δικαστηρίων και Κατάστασης Δικαστικών Λειτουργών (ν. "
            "4938/2022, Α’ 109) και των άρθρων 104, 105, 106, 108 και 109 του Μέρους Ε’ αρχίζει από τη 16η.9.2024.")
    assert _read("N_5134_2024::120", text) == [(f"N_5134_2024::{n}", "cites", None) for n in (104, 105, 106, 108, 109)]
    # not where another act is named otherwise in the sentence: as a part's own law, or with an article of its own
    for near in ("Η ισχύς του Μέρους Α’ του ν. 4938/2022 και των άρθρων 104 και 105 του Μέρους Ε’ αρχίζει σήμερα.",
                 "Η ισχύς του Μέρους Α’, περί των παρεμβάσεων στο άρθρο 5 του ν. 4938/2022, και των άρθρων 104 και 105 "
                 "του Μέρους Ε’ αρχίζει σήμερα."):
        assert not any(c.startswith("N_5134_2024::") for c, *_ in _read("N_5134_2024::120", near)), near
    # nor an article qualified by no part at all
    text = ("Η ισχύς του Μέρους Α’, περί των παρεμβάσεων στον Κώδικα Ποινικής Δικονομίας (ν. 4620/2019, Α’ 96), και "
            "των άρθρων 104 και 105 αρχίζει σήμερα.")
    assert not any(c.startswith("N_5134_2024::") for c, *_ in _read("N_5134_2024::120", text))


def test_v20_a_run_of_described_articles_is_the_law_that_closes_it() -> None:
    # N_5134_2024::49 (h-004 of recall-v19): the code is named once, after the last item's description and a comma
    text = ("4. Στην παρ. 2 του άρθρου 94, περί της παράστασης στο δικαστήριο χωρίς πληρεξούσιο δικηγόρο, στην παρ. 5 "
            "του άρθρου 622Α, περί των διαφορών από αμοιβές, αποζημιώσεις και έξοδα, στο άρθρο 809, περί των βιβλίων "
            "των διαθηκών, στο άρθρο 810, περί του δικαστηρίου της κληρονομιάς, στο άρθρο 888, περί της διεξαγωγής "
            "αποδείξεων, στο άρθρο 941, περί των μέσων αναγκαστικής εκτέλεσης, και στο άρθρο 1023, περί της "
            "κατάσχεσης ειδικών περιουσιακών στοιχείων, του Κώδικα Πολιτικής Δικονομίας όπου γίνεται αναφορά στο "
            "ειρηνοδικείο νοείται αναφορά στο μονομελές πρωτοδικείο.")
    assert _read("N_5134_2024::49", text) == [("KPolD::94", "amends", "2"), ("KPolD::622Α", "amends", "5")] + [
        (f"KPolD::{n}", "amends", None) for n in (809, 810, 888, 941, 1023)]
    # an item with no description, and articles a description names (cited, the code's); «καταργείται η αναφορά»
    text = ("1. Στο άρθρο 13, στο άρθρο 798, περί της άδειας για πράξεις εκτός από εκείνες των άρθρων 792 και 797, και "
            "στο άρθρο 750, περί της παράστασης του εισαγγελέα, του Κώδικα Πολιτικής Δικονομίας (π.δ. 503/1985, Α’ 182) "
            "καταργείται η αναφορά στο ειρηνοδικείο.")
    assert _read("N_5134_2024::49", text) == [("KPolD::13", "amends", None), ("KPolD::798", "amends", None),
                                              ("KPolD::792", "cites", None), ("KPolD::797", "cites", None),
                                              ("KPolD::750", "amends", None)]
    # not where the law stands inside the description (no comma before it: «περί μεταβατικών διατάξεων του ν. …»)
    text = ("Οι διατάξεις της παρ. 7 του άρθρου 23, περί μεταβατικών διατάξεων του ν. 4602/2019, εφαρμόζονται και στις "
            "εκκρεμείς υποθέσεις.")
    assert not any(c.startswith("N_4602_2019::23") for c, *_ in _read("N_5134_2024::49", text))
    # nor past an article of another act within the run; and a sentence that does not open with «Στ…» only cites
    text = ("Στο άρθρο 5, περί της προθεσμίας, στο άρθρο 7 του ν. 4412/2016, περί των οργάνων, του Κώδικα Πολιτικής "
            "Δικονομίας, καταργείται η αναφορά στο ειρηνοδικείο.")
    assert not any(c == "KPolD::5" for c, *_ in _read("N_5134_2024::49", text))
    text = ("Οι διατάξεις του άρθρου 94, περί της παράστασης στο δικαστήριο, του Κώδικα Πολιτικής Δικονομίας "
            "εφαρμόζονται αναλόγως.")
    assert _read("N_5134_2024::49", text) == [("KPolD::94", "cites", None)]


def test_v20_an_article_of_the_civil_code_s_enacting_decree_is_the_code_s() -> None:
    # N_5095_2024::8 (h-014 of recall-v19): the list's opening named the code with its decree in parentheses, and the
    # bare «το άρθρο 1959» after the items took the decree (PD_456_1984::1959)
    text = ("Στο άρθρο 1959 του Αστικού Κώδικα (π.δ. 456/1984, Α’ 164), περί της αυτεπάγγελτης έρευνας, επέρχονται οι "
            "ακόλουθες τροποποιήσεις: α) στον τίτλο, διαγράφονται οι λέξεις «από το δικαστήριο», β) στο δεύτερο "
            "εδάφιο η φράση «να διατάξει» αντικαθίσταται με τη φράση «να καλέσει» και το άρθρο 1959 διαμορφώνεται ως "
            "εξής: «Άρθρο 1959 Αυτεπάγγελτη έρευνα …».")
    assert [c for c, *_ in _read("N_5095_2024::8", text)] == ["AK::1959", "AK::1959"]
    # an article of the decree in the Introductory Law's range stays the decree's
    assert [c for c, *_ in _read("N_5095_2024::8", "Το άρθρο 5 του π.δ. 456/1984 (Α’ 164) εφαρμόζεται.")] == [
        "PD_456_1984::5"]


def test_v20_the_code_of_individual_labour_law_named_in_words() -> None:
    # N_5089_2024::6 (h-058 of recall-v19): the code had no entry, so its article gave no edge
    text = ("3. Στο άρθρο 220 του Κώδικα Ατομικού Εργατικού Δικαίου, περί της άδειας μητρότητας, προστίθεται παρ. 4 ως "
            "εξής: «4. Οι διατάξεις …».")
    assert _read("N_5089_2024::6", text)[:1] == [("PD_80_2022::220", "inserts", None)]


def _cited(article_id: str, text: str, own: str | None = None) -> list[tuple[str, str]]:
    return [(c, k) for c, _, k, _ in edges(article_id, text, own)]


def test_v21_articles_alone_in_parentheses_after_a_law_are_that_law_s() -> None:
    text = ("37. Όπου στην κείμενη νομοθεσία γίνεται παραπομπή στις ρυθμίσεις του ν. 2523/1997 (άρθρα 17 έως 21), "
            "εννοούνται οι αντίστοιχες ρυθμίσεις του Τμήματος ΧΙΙ του Κώδικα (άρθρα 66 έως 69).")
    got = [c for c, _ in _cited("N_4987_2022::70", text)]
    assert got == [f"N_2523_1997::{n}" for n in range(17, 22)] + [f"N_4987_2022::{n}" for n in range(66, 70)]
    # with the gazette issue between
    assert _cited("N_4987_2022::70", "του ν. 2523/1997 (Α’ 179) (άρθρο 17) εφαρμόζεται")[0][0] == "N_2523_1997::17"
    # near-misses: more than the article in the parenthesis; a code named in words (the own law here); a law named
    # before another word
    assert _cited("N_4987_2022::70", "του ν. 2523/1997 (άρθρο 17 του παρόντος)")[0][0] == "N_4987_2022::17"
    assert _cited("N_4987_2022::70", "του Κώδικα (άρθρα 66 έως 69)") == [(f"N_4987_2022::{n}", "cites")
                                                                    for n in range(66, 70)]
    assert all(not c.startswith("N_2523_1997") for c, _ in
               _cited("N_4987_2022::70", "κατά τον ν. 2523/1997 και τις διατάξεις (άρθρο 17) του παρόντος"))


def test_v21_an_item_of_a_list_of_repeals_is_the_law_that_closes_it() -> None:
    text = ("Από την έναρξη ισχύος του παρόντος καταργούνται:\nα) Το άρθρο 10 του ν. 1566/1985 (Α’ 167), περί "
            "Εργαστηριακών Κέντρων (Ε.Κ.) και σχολικών εργαστηρίων,\nβ) το πρώτο εδάφιο της παρ. 2 του άρθρου 5 περί "
            "έννοιας και ίδρυσης των Επαγγελματικών Λυκείων (ΕΠΑ.Λ), η παρ. 2 του άρθρου 8, και οι περ. ι), ια) και "
            "ιβ) της παρ. 2 του άρθρου 43, περί εξουσιοδοτικών διατάξεων του Κεφαλαίου Β’ του ν. 4186/2013 (Α’ 193) "
            "και\nγ) το έβδομο εδάφιο της παρ. 5 του άρθρου 42 του ν. 4823/2021 (Α’ 136), περί της τοποθέτησης.")
    assert _cited("N_5082_2024::48", text) == [("N_1566_1985::10", "repeals"), ("N_4186_2013::5", "repeals"),
                                               ("N_4186_2013::8", "repeals"), ("N_4186_2013::43", "repeals"),
                                               ("N_4823_2021::42", "repeals")]
    # near-misses: a verb between (the law that amended it, not its own); two laws in the item; no list of changes
    amended = ("Από την έναρξη ισχύος του παρόντος καταργούνται:\nα) το άρθρο 5, όπως τροποποιήθηκε με το άρθρο 3 "
               "του ν. 4186/2013,\nβ) το άρθρο 9 του ν. 1566/1985.")
    assert ("N_4186_2013::5", "repeals") not in _cited("N_5082_2024::48", amended)
    two = ("Από την έναρξη ισχύος του παρόντος καταργούνται:\nα) η παρ. 2 του άρθρου 5 του ν. 1566/1985 και η παρ. 2 "
           "του άρθρου 8, περί …, του ν. 4186/2013,\nβ) το άρθρο 9 του ν. 1566/1985.")
    assert ("N_4186_2013::8", "repeals") in _cited("N_5082_2024::48", two)  # the run rule, as before
    # the law not at the item's end: it names what the description speaks of
    inside = ("Από την έναρξη ισχύος του παρόντος καταργούνται:\nα) η παρ. 2 του άρθρου 5 περί έννοιας των Λυκείων "
              "του ν. 4186/2013 στα σχολεία της χώρας,\nβ) το άρθρο 9 του ν. 1566/1985.")
    assert ("N_4186_2013::5", "repeals") not in _cited("N_5082_2024::48", inside)


def test_v21_the_place_of_an_insertion_between_the_opening_s_law_and_its_verb() -> None:
    text = "1. Στον ν. 4797/2021 (Α’ 66) μετά το άρθρο 6Α, προστίθεται άρθρο 6Β ως εξής: «Άρθρο 6Β Ψηφιακή κάρτα»"
    assert _cited("N_5086_2024::37", text) == [("N_4797_2021::6Α", "cites"), ("N_4797_2021::6Β", "inserts")]
    after_from = ("Στον ν. 4548/2018 (Α’ 104), μετά από το άρθρο 157 Γ, προστίθεται άρθρο 157Δ ως εξής: «Άρθρο 157Δ "
                  "Υποκαταστήματα»")
    # «μετά από το άρθρο N» keeps the kind of the verb, as judged in the warnings batch (w-023, w-030, w-033) and
    # v12-recall-2034; «μετά το άρθρο N» is cited (v17): the readers of recall-v20 judged both cited (k-014, k-016)
    assert _cited("N_5066_2023::6", after_from) == [("N_4548_2018::157Γ", "inserts"), ("N_4548_2018::157Δ", "inserts")]
    spaced_six = "Στον ν. 4548/2018 (Α’ 104), μετά από το άρθρο 157 Ε, προστίθεται άρθρο 157 ΣΤ ως εξής: «Άρθρο 157ΣΤ»"
    assert _cited("N_5066_2023::8", spaced_six)[1] == ("N_4548_2018::157ΣΤ", "inserts")
    code = ("Στον Κώδικα Πολιτικής Δικονομίας (π.δ. 503/1985, Α’ 182), μετά από το άρθρο 207, προστίθεται άρθρο 208 "
            "ως εξής: «Άρθρο 208 Εγγραφή»")
    assert _cited("N_5095_2024::12", code)[0][0] == "KPolD::207"
    opened_after = ("Μετά από το άρθρο 31 του ν. 2121/1993 (Α’ 25) περί της ειδικής έναρξης διάρκειας, προστίθεται "
                    "άρθρο 31Α, ως εξής: «Άρθρο 31Α Έργα»")
    assert _cited("N_4996_2022::17", opened_after)[1] == ("N_2121_1993::31Α", "inserts")
    described = "Στον ν. 4582/2018 (Α’ 208), περί τουρισμού υπαίθρου, προστίθεται άρθρο 5Α ως εξής: «Άρθρο 5Α Σύσταση»"
    assert _cited("N_5061_2023::4", described) == [("N_4582_2018::5Α", "inserts")]
    # near-misses: a clause of its own between (a comma and no verb of change before the next one); a number with
    # capitals the reader did not take
    other = "Στον ν. 4797/2021 (Α’ 66), μετά την έκδοση της απόφασης, οι δικαιούχοι του άρθρου 6 ενημερώνονται."
    assert ("N_4797_2021::6", "cites") not in _cited("N_5086_2024::37", other)
    glued = "Μετά το άρθρο 66ΙΓΔ του ν. 4939/2022 (Α’ 111), προστίθεται άρθρο 66ΙΕ ως εξής: «Άρθρο 66ΙΕ»"
    assert _cited("N_4960_2022::21", glued) == [("N_4939_2022::66ΙΕ", "inserts")]
    # «Στο άρθρο 287ΚΠΔ:» is still the code's article (a code glued, not a numeral)
    glued_code = "Τροποποίηση του άρθρου 287 ΚΠΔ Στο άρθρο 287ΚΠΔ: α) προστίθεται παρ. 2 ως εξής: «2. Κείμενο.»"
    assert _cited("N_4855_2021::127", glued_code)[:2] == [("KPD::287", "amends"), ("KPD::287", "inserts")]


def test_v21_articles_joined_by_or_and_an_aside_before_their_code() -> None:
    text = ("επιβάλλονται οι κυρώσεις του άρθρου 157 ή 45, κατά περίπτωση, του Κώδικα Δημοσίου Ναυτικού Δικαίου, "
            "που κυρώθηκε με το άρθρο μόνο του ν.δ. 187/1973.")
    assert _cited("N_4926_2022::20", text)[:2] == [("ND_187_1973::157", "cites"), ("ND_187_1973::45", "cites")]
    assert _cited("N_4921_2022::53", "σύμφωνα με τα άρθρα 18 ή 37 του ν. 4387/2016 (Α΄ 85)") == [
        ("N_4387_2016::18", "cites"), ("N_4387_2016::37", "cites")]
    assert _cited("N_4727_2020::123", "σύμφωνα με το άρθρο 194 ή 195.") == [("N_4727_2020::194", "cites"),
                                                                            ("N_4727_2020::195", "cites")]
    # near-misses: «ή» before a word is no run («του άρθρου 5 ή άλλης διάταξης»); «ή» before an act of the EU
    assert _cited("N_4727_2020::123", "του άρθρου 5 ή άλλης διάταξης") == [("N_4727_2020::5", "cites")]
    assert _cited("N_4819_2021::47", "κατ’ εφαρμογή των άρθρων 11 ή 12 του Κανονισμού (ΕΕ) 1013/2006") == []


def test_v21_the_code_of_the_special_supreme_court_named_in_words() -> None:
    name = "του Κώδικα περί του κατά το άρθρο 100 του Συντάγματος Ανωτάτου Ειδικού Δικαστηρίου"
    text = f"4. Το άρθρο 21Α {name}, περί της διαδικασίας σε συμβούλιο, εφαρμόζεται και επί των αιτήσεων του άρθρου 6 {name}."
    assert _cited("N_5067_2023::25", text) == [("N_345_1976::21Α", "cites"), ("N_345_1976::6", "cites")]
    opening = ("1. Στον Κώδικα περί του κατά το άρθρο 100 του Συντάγματος Ανωτάτου Ειδικού Δικαστηρίου (ν. 345/1976, Α΄ "
               "141), μετά από το άρθρο 5, προστίθεται άρθρο 5Α ως εξής: «Άρθρο 5Α Χρήση»")
    # the article the code's name holds is no edge (v20 gave it the code)
    assert [c for c, _ in _cited("N_5067_2023::25", opening)] == ["N_345_1976::5", "N_345_1976::5Α"]


def test_v21_an_article_right_before_the_subject_of_its_clause_is_the_own_law_s() -> None:
    text = ("1. Σε περίπτωση που επέλθει νωρίτερα από το χρονικό διάστημα του άρθρου 14 η έναρξη λειτουργίας του "
            "Φορέα Απόκτησης και Επαναμίσθωσης του Κεφαλαίου Α’ του Μέρους Δευτέρου του Τρίτου Βιβλίου του ν. "
            "4738/2020 (Α’ 207), η συνεισφορά του Δημοσίου διακόπτεται.")
    assert _cited("N_4916_2022::22", text)[0] == ("N_4916_2022::14", "cites")
    # near-misses: «ή» (folded like «η») before it; a paragraph word after the article; an amending sentence
    assert _cited("N_4916_2022::22", "κατά το άρθρο 14 ή έναρξη λειτουργίας του Φορέα του ν. 4738/2020") == []
    assert _cited("N_4916_2022::22", "του άρθρου 14 η παρ. 2 του ν. 4738/2020 εφαρμόζεται") == [
        ("N_4738_2020::2", "cites")]
    assert ("N_4916_2022::14", "amends") not in _cited(
        "N_4916_2022::22", "Όπου το άρθρο 14 ο Φορέας του ν. 4738/2020 τροποποιείται ως εξής:")


def test_v21_an_item_that_names_a_case_of_a_paragraph_is_that_paragraph_of_the_opening_s_article() -> None:
    text = ("Στο άρθρο 81 του ν. 4921/2022 (Α’ 75), περί καταργούμενων διατάξεων, επέρχονται οι ακόλουθες "
            "τροποποιήσεις: α) η περ. γ) της παρ. 2 καταργείται, β) προστίθεται νέα παρ. 3, και το άρθρο 81 "
            "διαμορφώνεται ως εξής: «Άρθρο 81 Καταργούμενες διατάξεις»")
    got = edges("N_4964_2022::171", text)
    assert [(c, k, p) for c, _, k, p in got] == [("N_4921_2022::81", "amends", None), ("N_4921_2022::81", "repeals", "2"),
                                                ("N_4921_2022::81", "amends", None)]
    # near-miss: the case of a paragraph of another article («της παρ. 2 του άρθρου 5») is that article's
    other = ("Στο άρθρο 81 του ν. 4921/2022 (Α’ 75) επέρχονται οι ακόλουθες τροποποιήσεις: α) η περ. γ) της παρ. 2 του "
             "άρθρου 5 καταργείται, β) η παρ. 4 αντικαθίσταται.")
    assert ("N_4921_2022::81", "2") not in [(c, p) for c, _, _, p in edges("N_4964_2022::171", other)]


def test_v22_an_item_that_changes_its_paragraph_in_several_ways_amends_it_and_an_edge_is_given_once() -> None:
    # N_4855_2021::47: blind readers judged «β) στην παρ. 2: βα) … αντικαθίστανται …, ββ) προστίθεται …, βγ)
    # τροποποιείται …» typed `replaces` (the first verb's) wrong: the paragraph is changed in several ways; and the
    # edge came twice at one span
    text = ("Στο άρθρο 268 ΠΚ: α) στην παρ. 1: αα) τροποποιείται η περ. α΄ ως προς το πλαίσιο ποινής και η λέξη "
            "«προέκυψε» αντικαθίσταται από τις λέξεις «μπορεί να προκύψει», αβ) στην περ. β΄ η λέξη «προέκυψε» "
            "αντικαθίσταται από τις λέξεις «μπορεί να προκύψει», β) στην παρ. 2: βα) οι λέξεις «προέκυψε κίνδυνος» "
            "αντικαθίστανται από τις λέξεις «μπορεί να προκύψει κοινός κίνδυνος», ββ) προστίθεται η λέξη «κίνδυνος» "
            "πριν από τις λέξεις «για άνθρωπο», βγ) τροποποιείται το πλαίσιο ποινής και το άρθρο 268 του ΠΚ "
            "διαμορφώνεται ως εξής: «Άρθρο 268 Πλημμύρα …»")
    read = _read("N_4855_2021::47", text)
    assert ("PK::268", "amends", "2") in read and ("PK::268", "replaces", "2") not in read
    assert read.count(("PK::268", "amends", "2")) == 1 and ("PK::268", "amends", "1") in read
    # one kind of change under the item: that kind
    text = ("Στο άρθρο 268 ΠΚ: α) στην παρ. 2: αα) η λέξη «Α» αντικαθίσταται από τη λέξη «Β», αβ) η λέξη «Γ» "
            "αντικαθίσταται από τη λέξη «Δ», β) στην παρ. 3 προστίθεται εδάφιο ως εξής: «…»")
    read = _read("N_4855_2021::47", text)
    assert ("PK::268", "replaces", "2") in read and ("PK::268", "inserts", "3") in read
    assert not any(kind == "amends" and par in ("2", "3") for _, kind, par in read)
