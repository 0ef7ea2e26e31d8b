"""The context above each article (nomos.ingest.structure): the law's title, then the part, chapter and section
headings in force, read from the structural lines the corpus glues to the end of the article *before* the ones
they head. Hand-made articles first; the last test reads the real corpus from ../shared (it skips without)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nomos.ingest.records import Article
from nomos.ingest.structure import context_counts, heading_lines, law_context, reading_order
from nomos.legal.text.article_parts import structural_tail

CORPUS = Path(__file__).resolve().parents[2] / "shared/data/greek-statutes/corpus.jsonl"
LAW = "ν. 1/2000 – Δοκιμαστικός νόμος"


def art(source: str, number: str, text: str, law: str = LAW) -> Article:
    return Article(id=f"{source}::{number}", title=f"Άρθρο {number}", text=text, source=source, law=law)


def test_a_chapter_heads_the_articles_after_the_one_it_ends() -> None:
    arts = [art("X", "1", "Σκοπός του νόμου. ΚΕΦΑΛΑΙΟ Β΄ ΓΕΝΙΚΕΣ ΔΙΑΤΑΞΕΙΣ"),
            art("X", "2", "Ορισμοί."), art("X", "3", "Πεδίο εφαρμογής.")]
    ctx = law_context(arts)
    assert ctx["X::1"] == LAW
    assert ctx["X::2"] == ctx["X::3"] == f"{LAW} · ΚΕΦΑΛΑΙΟ Β΄ ΓΕΝΙΚΕΣ ΔΙΑΤΑΞΕΙΣ"
    assert [a.text for a in arts][0].endswith("ΓΕΝΙΚΕΣ ΔΙΑΤΑΞΕΙΣ")  # the article's own text is left as it was


def test_a_new_part_clears_the_chapter_and_a_new_chapter_keeps_the_part() -> None:
    arts = [art("X", "1", "Α. ΜΕΡΟΣ Α΄ ΟΡΓΑΝΩΣΗ ΚΕΦΑΛΑΙΟ Α΄ ΓΕΝΙΚΑ"),
            art("X", "2", "Β. ΚΕΦΑΛΑΙΟ Β΄ ΟΡΓΑΝΑ"),
            art("X", "3", "Γ. ΜΕΡΟΣ Β΄ ΛΟΙΠΕΣ ΔΙΑΤΑΞΕΙΣ"),
            art("X", "4", "Δ.")]
    ctx = law_context(arts)
    assert ctx["X::2"] == f"{LAW} · ΜΕΡΟΣ Α΄ ΟΡΓΑΝΩΣΗ · ΚΕΦΑΛΑΙΟ Α΄ ΓΕΝΙΚΑ"
    assert ctx["X::3"] == f"{LAW} · ΜΕΡΟΣ Α΄ ΟΡΓΑΝΩΣΗ · ΚΕΦΑΛΑΙΟ Β΄ ΟΡΓΑΝΑ"
    assert ctx["X::4"] == f"{LAW} · ΜΕΡΟΣ Β΄ ΛΟΙΠΕΣ ΔΙΑΤΑΞΕΙΣ"


def test_roman_sections_sit_inside_the_chapter_and_end_with_it() -> None:
    arts = [art("PK", "1", "Α. ΤΕΤΑΡΤΟ ΚΕΦΑΛΑΙΟ ΠΟΙΝΕΣ Ι. ΚΥΡΙΕΣ ΠΟΙΝΕΣ", "Ποινικός Κώδικας (ν. 4619/2019)"),
            art("PK", "2", "Β. ΙΙ. ΠΑΡΕΠΟΜΕΝΕΣ ΠΟΙΝΕΣ", "Ποινικός Κώδικας (ν. 4619/2019)"),
            art("PK", "3", "Γ. ΠΕΜΠΤΟ ΚΕΦΑΛΑΙΟ ΕΠΙΜΕΤΡΗΣΗ", "Ποινικός Κώδικας (ν. 4619/2019)"),
            art("PK", "4", "Δ.", "Ποινικός Κώδικας (ν. 4619/2019)")]
    ctx = law_context(arts)
    assert ctx["PK::2"].endswith("· ΤΕΤΑΡΤΟ ΚΕΦΑΛΑΙΟ ΠΟΙΝΕΣ · Ι. ΚΥΡΙΕΣ ΠΟΙΝΕΣ")
    assert ctx["PK::3"].endswith("· ΤΕΤΑΡΤΟ ΚΕΦΑΛΑΙΟ ΠΟΙΝΕΣ · ΙΙ. ΠΑΡΕΠΟΜΕΝΕΣ ΠΟΙΝΕΣ")
    assert ctx["PK::4"] == "Ποινικός Κώδικας (ν. 4619/2019) · ΠΕΜΠΤΟ ΚΕΦΑΛΑΙΟ ΕΠΙΜΕΤΡΗΣΗ"


def test_interleaved_laws_keep_their_own_headings() -> None:
    other = "ν. 2/2001 – Άλλος νόμος"
    arts = [art("X", "1", "Α. ΚΕΦΑΛΑΙΟ Β΄ ΟΡΓΑΝΑ"),
            art("Y", "1", "Α. ΜΕΡΟΣ Γ΄ ΤΕΛΙΚΕΣ", other),
            art("X", "2", "Β."),
            art("Y", "2", "Β.", other),
            Article(id="Z::1", title="", text="Α. ΤΜΗΜΑ ΙΙ ΜΟΥΣΕΙΑ"),  # no source: the id's prefix stands for it
            art("X", "3", "Γ."),
            Article(id="Z::2", title="", text="Β.")]
    ctx = law_context(arts)
    assert ctx["X::2"] == ctx["X::3"] == f"{LAW} · ΚΕΦΑΛΑΙΟ Β΄ ΟΡΓΑΝΑ"
    assert ctx["Y::2"] == f"{other} · ΜΕΡΟΣ Γ΄ ΤΕΛΙΚΕΣ"
    assert ctx["Z::2"] == "ΤΜΗΜΑ ΙΙ ΜΟΥΣΕΙΑ"  # no law title: the headings alone
    assert list(ctx) == [a.id for a in arts]


def test_a_note_of_repealed_articles_is_not_a_heading() -> None:
    tail = "Άρθρα 382 - 384 (Καταργούνται) ΙΙ. ΕΓΚΛΗΜΑΤΑ ΚΑΤΑ ΤΗΣ ΠΕΡΙΟΥΣΙΑΣ"
    assert heading_lines(tail) == [(6, "ΙΙ. ΕΓΚΛΗΜΑΤΑ ΚΑΤΑ ΤΗΣ ΠΕΡΙΟΥΣΙΑΣ")]
    assert heading_lines("Άρθρα 391 - 393 (Καταργούνται)") == []
    arts = [art("X", "1", "Α. ΚΕΦΑΛΑΙΟ Α΄ ΚΛΟΠΗ"), art("X", "2", "Β. Άρθρο 3 (Καταργείται)"), art("X", "4", "Δ.")]
    assert law_context(arts)["X::4"] == f"{LAW} · ΚΕΦΑΛΑΙΟ Α΄ ΚΛΟΠΗ"


def test_a_quoted_heading_in_an_amendment_is_not_a_heading() -> None:
    text = ("Μετά το άρθρο 108 του ν. 4442/2016 προστίθεται κεφάλαιο ως εξής: «ΚΕΦΑΛΑΙΟ ΙΘ΄ ΠΛΑΙΣΙΟ ΑΣΚΗΣΗΣ "
            "ΨΥΧΑΓΩΓΙΚΩΝ ΔΡΑΣΤΗΡΙΟΤΗΤΩΝ»")
    assert structural_tail(text) == len(text)
    arts = [art("X", "1", text), art("X", "2", "Β.")]
    assert law_context(arts)["X::2"] == LAW


@pytest.mark.parametrize(("tail", "expected"), [
    ("ΚΕΦΑΛΑΙΟ Β΄", [(3, "ΚΕΦΑΛΑΙΟ Β΄")]),  # the number alone: the corpus lost the words
    ("ΕΒΔΟΜΟ ΚΕΦΑΛΑΙΟ  ΛΟΓΟΙ\xa0ΠΟΥ ΕΞΑΛΕΙΦΟΥΝ\nΤΟ ΑΞΙΟΠΟΙΝΟ",
     [(3, "ΕΒΔΟΜΟ ΚΕΦΑΛΑΙΟ ΛΟΓΟΙ ΠΟΥ ΕΞΑΛΕΙΦΟΥΝ ΤΟ ΑΞΙΟΠΟΙΝΟ")]),
    ("ΔΕΚΑΤΟ ΤΡΙΤΟ ΚΕΦΑΛΑΙΟ ΚΟΙΝΩΣ ΕΠΙΚΙΝΔΥΝΑ ΕΓΚΛΗΜΑΤΑ", [(3, "ΔΕΚΑΤΟ ΤΡΙΤΟ ΚΕΦΑΛΑΙΟ ΚΟΙΝΩΣ ΕΠΙΚΙΝΔΥΝΑ ΕΓΚΛΗΜΑΤΑ")]),
    ("ΔΕΥΤΕΡΟ ΒΙΒΛΙΟ ΕΙΔΙΚΟ ΜΕΡΟΣ ΠΡΩΤΟ ΚΕΦΑΛΑΙΟ ΠΡΟΣΒΟΛΕΣ",
     [(0, "ΔΕΥΤΕΡΟ ΒΙΒΛΙΟ ΕΙΔΙΚΟ ΜΕΡΟΣ"), (3, "ΠΡΩΤΟ ΚΕΦΑΛΑΙΟ ΠΡΟΣΒΟΛΕΣ")]),
    ("ΜΕΡΟΣ ΔΕΥΤΕΡΟ ΣΧΕΣΕΙΣ ΜΕ ΤΗ ΒΟΥΛΗ ΚΕΦΑΛΑΙΟ Α’ ΠΑΡΟΥΣΙΑΣΗ",
     [(1, "ΜΕΡΟΣ ΔΕΥΤΕΡΟ ΣΧΕΣΕΙΣ ΜΕ ΤΗ ΒΟΥΛΗ"), (3, "ΚΕΦΑΛΑΙΟ Α’ ΠΑΡΟΥΣΙΑΣΗ")]),
    ("ΜΕΡΟΣ ΣΤ΄ ΔΙΑΤΑΞΕΙΣ ΚΑΤΑ ΤΟ ΜΕΡΟΣ ΠΟΥ ΑΦΟΡΑ ΤΗΝ ΟΔΗΓΙΑ",
     [(1, "ΜΕΡΟΣ ΣΤ΄ ΔΙΑΤΑΞΕΙΣ ΚΑΤΑ ΤΟ ΜΕΡΟΣ ΠΟΥ ΑΦΟΡΑ ΤΗΝ ΟΔΗΓΙΑ")]),
    ("ΤΜΗΜΑ ΙΙ ΑΚΙΝΗΤΑ ΜΝΗΜΕΙΑ ΚΕΦΑΛΑΙΟ Α΄ ΓΕΝΙΚΕΣ", [(5, "ΤΜΗΜΑ ΙΙ ΑΚΙΝΗΤΑ ΜΝΗΜΕΙΑ"), (3, "ΚΕΦΑΛΑΙΟ Α΄ ΓΕΝΙΚΕΣ")]),
    ("ΚΕΦΑΛΑΙΟ Β’ ΟΡΓΑΝΑ ΥΠΟΚΕΦΑΛΑΙΟ Α’ ΕΠΙΘΕΩΡΗΣΗ", [(3, "ΚΕΦΑΛΑΙΟ Β’ ΟΡΓΑΝΑ"), (4, "ΥΠΟΚΕΦΑΛΑΙΟ Α’ ΕΠΙΘΕΩΡΗΣΗ")]),
    ("ΤΕΤΑΡΤΟ ΚΕΦΑΛΑΙΟ Ι. ΕΓΚΛΗΜΑΤΑ ΚΑΤΑ ΟΡΓΑΝΩΝ", [(3, "ΤΕΤΑΡΤΟ ΚΕΦΑΛΑΙΟ"), (6, "Ι. ΕΓΚΛΗΜΑΤΑ ΚΑΤΑ ΟΡΓΑΝΩΝ")]),
    ("ΔΕΚΑΤΟ ΕΒΔΟΜΟ ΚΕΦΑΛΑΙΟ (Καταργήθηκε) Άρθρα 316 - 321 (Καταργήθηκαν) ΔΕΚΑΤΟ ΟΓΔΟΟ ΚΕΦΑΛΑΙΟ ΕΛΕΥΘΕΡΙΑ",
     [(3, "ΔΕΚΑΤΟ ΕΒΔΟΜΟ ΚΕΦΑΛΑΙΟ (Καταργήθηκε)"), (3, "ΔΕΚΑΤΟ ΟΓΔΟΟ ΚΕΦΑΛΑΙΟ ΕΛΕΥΘΕΡΙΑ")]),
])
def test_heading_lines(tail: str, expected: list[tuple[int, str]]) -> None:
    assert heading_lines(tail) == expected


def test_articles_listed_before_article_1_go_back_in_place() -> None:
    # the corpus lists some of ν. 4781/2021's articles, those ending in headings, ahead of its article 1
    arts = [art("X", "2", "Β. ΚΕΦΑΛΑΙΟ Α΄ ΓΕΝΙΚΑ"), art("X", "4", "Δ. ΚΕΦΑΛΑΙΟ Β΄ ΟΡΓΑΝΑ"),
            art("X", "1", "Α."), art("X", "3", "Γ."), art("X", "5", "Ε.")]
    assert [a.number for a in reading_order(arts)] == ["1", "2", "3", "4", "5"]
    ctx = law_context(arts)
    assert ctx["X::1"] == LAW
    assert ctx["X::3"] == f"{LAW} · ΚΕΦΑΛΑΙΟ Α΄ ΓΕΝΙΚΑ"
    assert ctx["X::5"] == f"{LAW} · ΚΕΦΑΛΑΙΟ Β΄ ΟΡΓΑΝΑ"
    # elsewhere corpus order stands, numbers falling back or not: an amending law's articles among inserted ones
    inserted = [art("X", "1", "Α."), art("X", "214", "Β."), art("X", "4", "Γ."), art("X", "215", "Δ.")]
    assert reading_order(inserted) == inserted


def test_titles_are_normalised_and_counts_report_articles_with_headings() -> None:
    arts = [art("X", "1", "Α. ΚΕΦΑΛΑΙΟ Α΄ ΓΕΝΙΚΑ", "ν. 1/2000 –  Τίτλος\xa0με  κενά"),
            art("X", "2", "Β.", "ν. 1/2000 – Τίτλος με κενά")]
    ctx = law_context(arts)
    assert ctx["X::1"] == "ν. 1/2000 – Τίτλος με κενά"
    assert context_counts(ctx, arts) == {"articles": 2, "with_headings": 1}


def test_the_real_corpus() -> None:
    if not CORPUS.is_file():
        pytest.skip(f"the corpus is not at {CORPUS} (the shared data folder next to the checkout)")
    with CORPUS.open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    arts = [Article(id=r["_id"], title=r.get("title", ""), text=r.get("text", ""), source=r.get("source", ""),
                    law=r.get("law", "")) for r in rows]
    ctx = law_context(arts)
    heading = "ΚΕΦΑΛΑΙΟ Γ΄ ΓΕΝΙΚΕΣ ΑΡΧΕΣ ΚΑΙ ΠΛΗΡΟΦΟΡΙΑΚΕΣ ΥΠΟΧΡΕΩΣΕΙΣ ΤΩΝ ΦΟΡΕΩΝ ΔΗΜΟΣΙΟΥ ΤΟΜΕΑ"
    assert ctx["N_3979_2011::4"].endswith(f" · {heading}")
    assert heading not in ctx["N_3979_2011::3"]
    assert all(c.startswith("Ποινικός Κώδικας") for i, c in ctx.items() if i.startswith("PK::"))
    counts = context_counts(ctx, arts)
    print(f"articles with at least one heading: {counts['with_headings']}/{counts['articles']} "
          f"({counts['with_headings'] / counts['articles']:.1%})")
