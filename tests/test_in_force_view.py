"""How an amended article's page reads its text in force (nomos/portal/in_force_view.py), without a node: which
text is shown in which mode and status, the passages' marks and links, the cut, and the amending articles named."""

from __future__ import annotations

from nomos.legal.inforce.result import Applied, InForce, Passage, Unapplied
from nomos.pages.articles import Article
from nomos.pages.graph import ArticleGraph, GraphRef, Link
from nomos.portal.in_force_view import in_force_view

ORIGINAL = ("1. Όποιος αφαιρεί ξένο κινητό πράγμα τιμωρείται με φυλάκιση έως τρία έτη.\n"
            "2. Η κλοπή κατά το άρθρο 375 διώκεται με έγκληση.")
AMENDING = "N_4855_2021::86"
NEW_1 = "1. Όποιος αφαιρεί ξένο κινητό πράγμα τιμωρείται με φυλάκιση έως πέντε έτη."
KEPT_2 = "2. Η κλοπή κατά το άρθρο 375 διώκεται με έγκληση."


def article(in_force: InForce | None, marked: str | None = None, text: str = ORIGINAL) -> Article:
    return Article(id="PK::372", title="Κλοπή", text=text, law="Ποινικός Κώδικας", source="PK", number="372",
                   in_force=in_force, in_force_marked=marked)


def graph() -> ArticleGraph:
    at = ORIGINAL.index("375")
    return ArticleGraph(
        "PK::372", links=(Link(at, at + 3, "PK::375", "PK::375", "cites"),),
        amended_by=(GraphRef(AMENDING, "86", "Τροποποίηση του άρθρου 372 ΠΚ", "Νόμος 4855/2021", "N_4855_2021",
                             "άρθρο 86 ν. 4855/2021", "replaces", "1"),))


def full() -> InForce:
    return InForce("full", (Passage(NEW_1, AMENDING, True), Passage(KEPT_2)), (AMENDING,),
                   (Applied(AMENDING, "replace-paragraph", "1", "Η παρ. 1 του άρθρου 372 αντικαθίσταται ως εξής"),))


def test_an_article_without_a_text_in_force_has_no_view() -> None:
    assert in_force_view(article(None), graph()) is None


def test_the_text_in_force_is_shown_by_default_and_the_original_on_request() -> None:
    view = in_force_view(article(full()), graph())
    assert view is not None and view.shown and view.can_show and not view.partial
    assert [p.changed for p in view.passages] == [True, False]
    assert "πέντε" in view.passages[0].html and view.passages[0].source is not None
    assert view.passages[0].source.citation == "άρθρο 86 ν. 4855/2021" and view.passages[1].source is None
    assert [a.id for a in view.amendments] == [AMENDING] and view.changed == 1 and view.applied == 1
    original = in_force_view(article(full()), graph(), "original")
    assert original is not None and not original.shown and original.can_show and original.passages == ()


def test_an_unchanged_passage_keeps_the_originals_links_a_changed_one_has_none() -> None:
    view = in_force_view(article(full()), graph())
    assert '<a class="ref" href="/articles/PK%3A%3A375">375</a>' in view.passages[1].html
    replaced = InForce("full", (Passage(KEPT_2.replace("375", "375 και 376"), AMENDING, True),), (AMENDING,))
    assert "<a " not in in_force_view(article(replaced), graph()).passages[0].html


def test_marks_of_the_text_in_force_fall_in_their_passages_and_the_first_is_the_anchor() -> None:
    text = full().text
    marked = text.replace("πέντε", "<mark>πέντε</mark>").replace("κλοπή", "<mark>κλοπή</mark>")
    view = in_force_view(article(full(), marked), graph())
    assert '<mark id="match">πέντε</mark>' in view.passages[0].html
    assert "<mark>κλοπή</mark>" in view.passages[1].html and 'id="match"' not in view.passages[1].html
    # a highlight that does not read back as the text in force marks nothing (never the wrong words)
    assert "<mark" not in "".join(p.html for p in in_force_view(article(full(), "άλλο <mark>κείμενο</mark>"), graph()).passages)


def test_the_text_stays_text() -> None:
    hostile = InForce("full", (Passage("<script>alert(1)</script> & «x»", AMENDING, True),), (AMENDING,))
    html = in_force_view(article(hostile), graph()).passages[0].html
    assert "<script>" not in html and "&lt;script&gt;" in html and "&amp;" in html


def test_partial_and_none() -> None:
    miss = Unapplied("N_4900_2022::3", "Στην παρ. 9 του άρθρου 372 προστίθεται εδάφιο", "paragraph 9 is not in the article")
    partial = InForce("partial", full().passages, (AMENDING,), full().applied, (miss,))
    view = in_force_view(article(partial), graph())
    assert view.shown and view.partial and [u.reason.text for u in view.unapplied] == ["η παράγραφος 9 δεν υπάρχει στο άρθρο"]
    assert view.unapplied[0].source.citation == "άρθρο 3 ν. 4900/2022"  # not in the graph: cited from its id
    none = InForce("none", (Passage(ORIGINAL),), (), (), (miss,))
    view = in_force_view(article(none), graph())
    assert not view.shown and not view.can_show and view.partial and len(view.unapplied) == 1
    assert not in_force_view(article(none), graph(), "in-force").shown  # nothing consolidated: nothing to show


def test_a_superseded_instruction_is_listed_apart_and_a_new_title_is_the_headings() -> None:
    earlier = Unapplied("N_4800_2021::5", "η φράση «τρία έτη» αντικαθίσταται", "«τρία έτη» is not found in paragraph 1",
                        superseded_by=AMENDING)
    value = InForce("full", full().passages, ("N_4800_2021::5", AMENDING), full().applied, (earlier,), title="Κλοπή και διάρρηξη")
    view = in_force_view(article(value), graph())
    assert view.unapplied == () and [u.superseded_by.id for u in view.superseded] == [AMENDING]
    assert view.title == "Κλοπή και διάρρηξη" and [a.id for a in view.amendments] == ["N_4800_2021::5", AMENDING]
    assert in_force_view(article(value), graph(), "original").title == ""  # the original keeps its own title


def test_a_long_text_in_force_is_cut_as_a_long_original_is() -> None:
    long = InForce("full", (Passage(NEW_1, AMENDING, True), Passage("λέξη " * 200)), (AMENDING,))
    view = in_force_view(article(long), graph(), max_chars=120)
    assert view.cut and view.length == len(long.text) and len(view.passages) == 2
    shown = sum(len(str(p.html)) for p in view.passages)
    assert shown <= 130 and str(view.passages[1].html).startswith("λέξη")
    assert not in_force_view(article(long), graph()).cut


# ----------------------------------------------------------------------------------------------- reasons in Greek
def _engine_reasons() -> list[str]:
    """Every reason the consolidation engine's source can give (every module of nomos/legal/inforce/, and
    nomos/legal/text/article_parts.py), an f-string's values filled with samples: what ``Refused`` is raised with, what ``problem``
    and ``reason`` are set to, what ``Unapplied`` is built with, what the heading reader returns instead of a
    heading."""
    import ast
    import re
    from pathlib import Path

    import nomos.legal

    consts: dict[str, str] = {}  # the module's own reasons named once («problem=UNIT_NOT_READ», «X.format(…)»)

    def samples(node: ast.AST) -> list[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, ast.Name) and node.id in consts:
            return [consts[node.id]]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in consts:
            return [re.sub(r"\{\d*\}", "7", consts[node.func.value.id])]
        if isinstance(node, ast.JoinedStr):
            out = ""
            for part in node.values:
                if isinstance(part, ast.Constant):
                    out += str(part.value)
                else:
                    name = ast.unparse(part.value)
                    out += "paragraph 2" if name == "where" else "(the article)" if "or '(the article)'" in name else "7"
            return [out]
        if isinstance(node, ast.IfExp):
            return samples(node.body) + samples(node.orelse)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and isinstance(node.func.value, ast.Dict):
            return [s for v in node.func.value.values for s in samples(v)] + [s for a in node.args[1:] for s in samples(a)]
        return []

    found: list[str] = []
    legal = Path(nomos.legal.__file__).parent
    for path in [*sorted((legal / "inforce").glob("*.py")), legal / "text" / "article_parts.py"]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        consts.clear()
        consts.update({t.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
                       and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                       for t in node.targets if isinstance(t, ast.Name) and t.id.isupper()})
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = ast.unparse(node.func)
                if func == "Refused" and node.args:
                    found += samples(node.args[0])
                if func == "Unapplied" and len(node.args) >= 3:
                    found += samples(node.args[2])
                found += [s for k in node.keywords if k.arg == "problem" for s in samples(k.value)]
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in ("reason", "problem")
                                                      for t in node.targets):
                found += samples(node.value)
            elif isinstance(node, ast.FunctionDef) and "heading" in node.name:
                found += [s for r in ast.walk(node) if isinstance(r, ast.Return) and r.value is not None
                          for s in samples(r.value) if s.startswith("the heading")]
    return [s for s in dict.fromkeys(found) if s]


def test_every_reason_the_engine_gives_is_said_in_greek_on_the_page() -> None:
    from nomos.portal.in_force_reasons import greek_reason

    reasons = _engine_reasons()
    assert len(reasons) >= 40, reasons  # the collector still reads the engine's source
    untranslated = [r for r in reasons if greek_reason(r).lang != "el"]
    assert not untranslated, untranslated


def test_every_row_of_the_greek_table_is_a_reason_the_engine_gives() -> None:
    import re

    from nomos.portal.in_force_reasons import _REASONS

    reasons = _engine_reasons()
    stale = [pattern for pattern, _ in _REASONS if not any(re.fullmatch(pattern, r, re.S) for r in reasons)]
    assert not stale, stale  # e.g. the insertion of new articles after an article, no longer an unapplied reason


def test_a_reason_in_greek_keeps_its_values_and_an_unknown_one_stays_as_written() -> None:
    from nomos.portal.in_force_reasons import greek_reason

    assert greek_reason("«ξένο ακίνητο» is not found in the article").text == "η φράση «ξένο ακίνητο» δεν βρέθηκε στο άρθρο"
    assert greek_reason("«ξένο» occurs 2 times in paragraph 3").text == "η φράση «ξένο» εμφανίζεται 2 φορές στην παράγραφο 3"
    assert greek_reason("case γ is not in paragraph (the article)").text == "η περίπτωση γ δεν υπάρχει στο άρθρο"
    assert greek_reason("paragraph 4α is not in the article").text == "η παράγραφος 4α δεν υπάρχει στο άρθρο"
    unknown = greek_reason("a reason of a newer engine")
    assert unknown.text == "a reason of a newer engine" and unknown.lang == "en"
