"""Greek citations read from text (nomos.legal.text.citations): the shapes of shared/docs/greek-citations.md, ids as
people type them, and generated citation forms over every stand-in article. No OpenSearch."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from nomos.legal.text.citation_forms import citation_forms
from nomos.legal.text.citations import find_citations, parse_citation
from nomos.legal.text.folding import article_number, fold
from nomos.legal.text.ids import IdResolver


@pytest.mark.parametrize(("text", "ids"), [
    ("άρθρο 372 ΠΚ", ["PK::372"]),
    ("άρθρ. 372 Π.Κ.", ["PK::372"]),
    ("αρ. 372 ΠΚ", ["PK::372"]),
    ("ΠΚ 372", ["PK::372"]),
    ("372 ΠΚ", ["PK::372"]),
    ("386Α ΠΚ", ["PK::386Α"]),
    ("386A ΠΚ", ["PK::386Α"]),  # Latin A
    ("ΠΚ 386α", ["PK::386Α"]),
    ("του άρθρου 372 του Ποινικού Κώδικα", ["PK::372"]),
    ("άρθρο 372 ν. 4619/2019", ["PK::372"]),  # the law that enacted the Penal Code
    ("άρθρο 21 ν. 4624/2019", ["N_4624_2019::21"]),
    ("ν. 4624/2019 άρθρο 21", ["N_4624_2019::21"]),
    ("Ν.4624/2019 αρ. 21", ["N_4624_2019::21"]),
    ("άρθρο 28 του Ν 5960/1933", ["N_5960_1933::28"]),
    ("άρθρο 10 ΠΔ 131/2003", ["PD_131_2003::10"]),
    ("άρθρο 45 παρ. 1 του Π.Δ. 18/1989", ["PD_18_1989::45"]),
    ("ΑΚ 914", ["AK::914"]),
    ("άρθρα 298, 330 και 343 AK", ["AK::298", "AK::330", "AK::343"]),  # Latin AK, as model output writes it
    ("Κ.Πολ.Δ. 338", ["KPolD::338"]),
    ("άρθρο 309 παρ. 1 ΚΠΔ", ["KPD::309"]),
    ("άρθρα 372 και 374 ΠΚ", ["PK::372", "PK::374"]),
    ("άρθρα 372 έως 375 ΠΚ", ["PK::372", "PK::373", "PK::374", "PK::375"]),
    # v20: π.δ. 503/1985 enacted the Code of Civil Procedure; π.δ. 456/1984 the Civil Code with its Introductory Law,
    # so only an article past the Introductory Law's is the Code's
    ("άρθρο 94 του π.δ. 503/1985", ["KPolD::94"]),
    ("άρθρο 1959 π.δ. 456/1984", ["AK::1959"]),
    ("άρθρα 199 και 200 του π.δ. 456/1984", ["PD_456_1984::199", "AK::200"]),
    ("άρθρο 5 του π.δ. 456/1984", ["PD_456_1984::5"]),
    ("άρθρο 1959 του π.δ. 457/1984", ["PD_457_1984::1959"]),
])
def test_a_citation_typed_as_a_query_names_its_articles(text: str, ids: list[str]) -> None:
    assert [c.id for c in parse_citation(text)] == ids


@pytest.mark.parametrize(("text", "ids"), [
    ("άρθρο 220 του Κώδικα Ατομικού Εργατικού Δικαίου", ["PD_80_2022::220"]),
    ("του άρθρου 34 του Κώδικα Πολιτικών και Στρατιωτικών Συντάξεων (π.δ. 169/2007, Α΄ 210)", ["PD_169_2007::34"]),
    ("άρθρο 12 του Κώδικα Ιατρικής Δεοντολογίας", ["N_3418_2005::12"]),
    ("άρθρο 7 του Κώδικα Αναγκαστικών Απαλλοτριώσεων Ακινήτων", ["N_2882_2001::7"]),
    ("άρθρο 7 του Κώδικα κοινωφελών περιουσιών και σχολαζουσών κληρονομιών", ["N_4182_2013::7"]),
    ("άρθρο 7 του Κώδικα της Ελληνικής Ιθαγένειας", ["N_3284_2004::7"]),
    ("άρθρο 84 του Κώδικα Κατάστασης Δημοσίων Πολιτικών Υπαλλήλων", ["N_3528_2007::84"]),
    ("άρθρο 84 του Κώδικα Δημοσίων Υπαλλήλων", ["N_3528_2007::84"]),
    ("άρθρο 5 του Κώδικα νομοθεσίας για την προστασία των αρχαιοτήτων", ["N_4858_2021::5"]),
    # the act in parentheses after a code's name, where it names one («Κώδικας Φορολογικής Διαδικασίας» was
    # ν. 4174/2013 and is ν. 4987/2022 since its recodification)
    ("του άρθρου 5 του Κώδικα Φορολογικής Διαδικασίας (ν. 4987/2022, Α’ 206)", ["N_4987_2022::5"]),
    ("του άρθρου 5 του Κώδικα Φορολογικής Διαδικασίας", ["N_4174_2013::5"]),
    ("άρθρο 5 του Κώδικα Δήμων και Κοινοτήτων (π.δ. 410/1995)", ["PD_410_1995::5"]),
    # a code with an id of its own keeps it; parentheses that name no act change nothing
    ("άρθρο 5 του Κώδικα Πολιτικής Δικονομίας (π.δ. 503/1985)", ["KPolD::5"]),
    ("άρθρο 372 του Ποινικού Κώδικα (ν. 4619/2019)", ["PK::372"]),
    ("του άρθρου 5 του Κώδικα Φορολογικής Διαδικασίας (Κ.Φ.Δ.)", ["N_4174_2013::5"]),
    # a name two acts bear is left out («Κώδικας Είσπραξης Δημοσίων Εσόδων»: ν.δ. 356/1974 and its recodification),
    # and so is a code of conduct
    ("άρθρο 8 του Κώδικα Είσπραξης Δημοσίων Εσόδων", []),
    ("άρθρο 8 του Κώδικα Δεοντολογίας Τραπεζών", []),
])
def test_v20_codes_named_in_words_and_the_act_in_parentheses_after_a_code_s_name(text: str, ids: list[str]) -> None:
    assert [c.id for c in find_citations(text)] == ids


def test_citations_inside_a_text_keep_their_spans_and_paragraphs() -> None:
    text = "Ο Α τιμωρείται (άρθρο 46 ΠΚ, σε συνδυασμό με τα άρθρα 372 και 375 παρ. 1 ΠΚ)."
    found = find_citations(text)
    assert [(c.id, c.paragraph) for c in found] == [("PK::46", ""), ("PK::372", ""), ("PK::375", "1")]
    assert text[found[0].start:found[0].end] == "άρθρο 46 ΠΚ"
    assert text[found[1].start:found[1].end] == "άρθρα 372 και 375 παρ. 1 ΠΚ"
    assert parse_citation(text) == []  # a sentence that cites is not a citation query


def test_a_citation_without_a_source_takes_the_default_one() -> None:
    text = "κατά το άρθρο 46 παρ. 1 και 47"
    assert find_citations(text) == []
    assert [(c.id, c.paragraph) for c in find_citations(text, default_source="PK")] == [("PK::46", "1"), ("PK::47", "")]


@pytest.mark.parametrize("text", [
    "Ο γείτονας μπήκε στο σπίτι το 2019 και πήρε 372 ευρώ",
    "πλήρωσε 1.500 ευρώ στις 12/3/2021",
    "αρ. πρωτοκόλλου 4455",
    "η κλοπή του πορτοφολιού",
])
def test_numbers_that_are_not_citations_are_left_alone(text: str) -> None:
    assert find_citations(text) == []


def test_a_case_that_cites_an_article_among_other_words() -> None:
    found = find_citations("Εφαρμόζεται το άρθρο 914 ΑΚ για την αδικοπραξία;")
    assert [c.id for c in found] == ["AK::914"]
    assert parse_citation("άρθρο 914 ΑΚ αδικοπραξία") == []


def test_fold_keeps_one_character_for_one() -> None:
    text = "Άρθρο 386Α ΠΟΙΝΙΚΟΎ ΚΏΔΙΚΑ, ΐ ΰ ς"
    assert len(fold(text)) == len(text)
    assert fold("Άρθρου ΠΟΙΝΙΚΟΎ") == "αρθρου ποινικου"


def test_article_numbers_take_a_greek_capital_suffix() -> None:
    assert [article_number(n) for n in ("386A", "386a", "386α", " 372 ", "386Α")] == ["386Α", "386Α", "386Α", "372", "386Α"]


def test_ids_resolve_from_any_case_and_latin_lookalikes_when_unique() -> None:
    resolver = IdResolver.from_ids(["PK::372", "PK::386Α", "KPolD::338", "N_4624_2019::21"])
    assert resolver.resolve("PK::386A") == "PK::386Α"
    assert resolver.resolve("pk::372") == "PK::372"
    assert resolver.resolve("kpold::338") == "KPolD::338"
    assert resolver.resolve("PK::999") is None
    assert resolver.resolve_citations(parse_citation("άρθρα 372, 386A και 999 ΠΚ")) == ["PK::372", "PK::386Α"]
    ambiguous = IdResolver.from_ids(["X::1", "x::1"])
    assert ambiguous.resolve("X::1") is None


def test_the_benchmark_codes_forms_resolve_to_their_articles() -> None:
    """The real benchmark's codes (ΑΚ, ΚΠολΔ, ΚΠΔ) in every generated form, with a Greek suffix typed in Latin too."""
    ids = ["AK::914", "KPolD::216", "KPD::309", "PK::386Α", "AK::57", "KPolD::57"]
    resolver = IdResolver.from_ids(ids)
    forms = [(doc_id, form) for doc_id in ids for form in citation_forms(doc_id)]
    assert ("AK::914", "του άρθρου 914 του Αστικού Κώδικα") in forms and ("PK::386Α", "386A ΠΚ") in forms
    wrong = [(doc_id, form, resolver.resolve_citations(parse_citation(form))) for doc_id, form in forms
             if resolver.resolve_citations(parse_citation(form)) != [doc_id]]
    assert wrong == []
    assert citation_forms("EU_2016_679::5") == [] and citation_forms("no-separator") == []


def test_generated_citations_of_stand_in_articles_resolve_to_them(shared_data: Path) -> None:
    ids = [json.loads(line)["_id"] for line in (shared_data / "corpus.jsonl").open(encoding="utf-8")]
    resolver = IdResolver.from_ids(ids)
    rng = random.Random(7)
    sample = sorted(i for i in ids if i.startswith(("PK::", "N_", "PD_")))
    chosen = rng.sample(sample, 120)
    forms = [(doc_id, form) for doc_id in chosen for form in citation_forms(doc_id)]
    assert len(forms) >= 200
    wrong = [(doc_id, form, resolver.resolve_citations(parse_citation(form))) for doc_id, form in forms
             if resolver.resolve_citations(parse_citation(form)) != [doc_id]]
    assert wrong == []
