"""Chapters an amending law inserts into another law, which the corpus splits into articles of the amending law
(nomos/legal/graph/insertions.py): their bare references are the host law's, and the host's number for each resolves
to the corpus article holding its text. Pure text: no node."""

from __future__ import annotations

from nomos.ingest.graph import CorpusReading
from nomos.ingest.records import Article
from nomos.legal.graph.insertions import closes_quotation, inserted_runs, next_number, open_insertion

OPENER = ("Μετά από το άρθρο 108 του ν. 4442/2016 (Α’ 230) προστίθεται Κεφάλαιο ΙΘ’ ως εξής: «ΚΕΦΑΛΑΙΟ ΙΘ’ ΠΛΑΙΣΙΟ "
          "ΑΣΚΗΣΗΣ ΨΥΧΑΓΩΓΙΚΩΝ ΔΡΑΣΤΗΡΙΟΤΗΤΩΝ")


def article(article_id: str, text: str) -> Article:
    law = article_id.split("::")[0]
    return Article(article_id, "", text, law, law)


def chapter() -> list[Article]:
    return [
        article("N_4796_2021::3", OPENER),
        article("N_4796_2021::109", "1. Για την εγκατάσταση απαιτείται έγκριση του άρθρου 7."),
        article("N_4796_2021::110", "Υπόκειται στις κυρώσεις της παρ. 1 του άρθρου 15 και του άρθρου 109.»"),
        article("N_4796_2021::4", "Η παρ. 2 του άρθρου 16 του ν. 4442/2016 τροποποιείται. Βλ. άρθρο 3."),
    ]


def test_an_open_insertion_names_its_host_and_where_it_goes() -> None:
    opened = open_insertion(OPENER)
    assert opened is not None and (opened.host, opened.after) == ("N_4442_2016", "108")
    named = open_insertion("Μετά το άρθρο 96 του ν. 4261/2014 προστίθενται άρθρα 96Α, 96Β και 96Γ ως εξής: «Άρθρο 96Α")
    assert named is not None and named.named == {"96α", "96β", "96γ"}
    # a closed quotation, or an open one that inserts no articles into a named law, opens nothing
    assert open_insertion("Μετά από το άρθρο 108 του ν. 4442/2016 προστίθεται Κεφάλαιο ως εξής: «Άρθρο 109 …»") is None
    assert open_insertion("Το άρθρο 13 του ν. 3592/2007 αντικαθίσταται ως εξής: «Άρθρο 13 Επίγεια") is None


def test_numbers_follow_in_sequence_and_a_stray_closing_quote_ends_the_run() -> None:
    assert next_number("108") == {"109", "108α"} and next_number("7β") == {"8", "7γ"}
    assert closes_quotation("… κυρώσεις.» ΚΕΦΑΛΑΙΟ Γ’") and not closes_quotation("«α» και «β»")


def test_the_articles_of_an_inserted_chapter_read_as_the_host_law() -> None:
    arts = chapter()
    runs = dict(inserted_runs((a.id, a.source, a.text) for a in arts))
    # the run ends at the article that closes the quotation; the amending law's own next article is its own
    assert runs == {"N_4796_2021::109": "N_4442_2016", "N_4796_2021::110": "N_4442_2016"}
    reading = CorpusReading.of(arts)
    cited = {a.id: [(r.cited, r.target) for r in reading.references(a)] for a in arts}
    assert cited["N_4796_2021::109"] == [("N_4442_2016::7", "")]
    # the host's article 109 is the corpus article that holds its text
    assert cited["N_4796_2021::110"] == [("N_4442_2016::15", ""), ("N_4442_2016::109", "N_4796_2021::109")]
    assert ("N_4796_2021::3", "N_4796_2021::3") in cited["N_4796_2021::4"]


def test_an_article_replaced_whole_is_followed_by_the_amending_laws_own_articles() -> None:
    arts = [article("N_4070_2012::80", "Το άρθρο 13 του ν. 3592/2007 (A΄ 161) αντικαθίσταται ως εξής: «Άρθρο 13 …"),
            article("N_4070_2012::81", "Σύμφωνα με το άρθρο 5 ισχύει.")]
    assert dict(inserted_runs((a.id, a.source, a.text) for a in arts)) == {}
    assert [r.cited for r in CorpusReading.of(arts).references(arts[1])] == ["N_4070_2012::5"]
