"""Why an amending instruction was not applied, in Greek for the article page.

The consolidation engine (nomos/legal/inforce/engine.py, amendment_reading.py, article_parts.py) states its reasons
in English, as the API, ``graph export`` and the benchmarks carry them. The portal's pages are Greek, so the page
says each known reason in Greek; a reason this table does not know (an engine newer than it) is shown as the
engine wrote it, marked as English (``lang="en"``) so a screen reader reads it as such. tests/test_in_force_view.py
checks that every reason the engine's source can produce is in the table, and that every row of the table is one
it can produce (a reason the engine no longer gives leaves no row behind).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ = r"(.+?)"  # one value the engine puts into a reason: a number, a letter, a phrase, a title
WHERE = r"(?P<where>paragraph .+?|the article)"  # where a phrase was looked for, said in Greek by _where
_PARAGRAPH_OR_ARTICLE = re.compile(r"paragraph (.+)|the article")

# (the engine's wording, with its values as groups) -> the Greek wording, the groups as {1}, {2}…
_REASONS: tuple[tuple[str, str], ...] = (
    # the instruction as read (amendment_reading.py)
    ("the quoted new wording is not closed in the amending article \\(its end is not in this text\\)",
     "τα εισαγωγικά της νέας διατύπωσης δεν κλείνουν στο τροποποιητικό άρθρο (το τέλος της δεν βρίσκεται σε αυτό το κείμενο)"),
    ("the new wording after «ως εξής» is not quoted: where it ends cannot be told",
     "η νέα διατύπωση μετά το «ως εξής» δεν είναι σε εισαγωγικά· δεν φαίνεται πού τελειώνει"),
    ("the unit the new wording replaces is not read \\(a sub-paragraph, a definition or a point numbered like "
     "2\\.1\\.3\\): only the unit it stands in is named, and the wording does not open as that unit's",
     "δεν διαβάστηκε ποιο σημείο αντικαθιστά η νέα διατύπωση (υποπαράγραφος, ορισμός ή σημείο με αριθμό όπως 2.1.3)· "
     "ορίζεται μόνο το σημείο όπου βρίσκεται (το άρθρο, μια παράγραφος ή περίπτωσή του), και η διατύπωση δεν αρχίζει "
     "όπως εκείνο"),
    (f"the quoted new wording closes after its paragraph {_} and paragraphs numbered from {_} follow outside the "
     "quotation: where the new wording ends cannot be told",
     "τα εισαγωγικά της νέας διατύπωσης κλείνουν μετά την παράγραφό της {1} και ακολουθούν, εκτός εισαγωγικών, "
     "παράγραφοι από την {2} και μετά· δεν φαίνεται πού τελειώνει η νέα διατύπωση"),
    ("a renumbering is not read", "η αναρίθμηση δεν διαβάζεται αυτόματα"),
    ("the change's object is not read", "δεν διαβάστηκε τι αλλάζει"),
    ("a change stated without its new wording", "η αλλαγή δηλώνεται χωρίς τη νέα διατύπωση"),
    ("an insertion stated without its wording", "η προσθήκη δηλώνεται χωρίς τη διατύπωσή της"),
    ("what is inserted \\(a paragraph, a case or a sentence\\) is not read",
     "δεν διαβάστηκε τι προστίθεται (παράγραφος, περίπτωση ή εδάφιο)"),
    ("a repeal followed by new wording is not read", "κατάργηση που ακολουθείται από νέα διατύπωση δεν διαβάζεται αυτόματα"),
    ("the words put in their place are not quoted after «από/με»",
     "οι λέξεις που μπαίνουν στη θέση τους δεν παρατίθενται σε εισαγωγικά μετά το «από/με»"),
    ("the words added are not quoted", "οι λέξεις που προστίθενται δεν παρατίθενται σε εισαγωγικά"),
    ("where the words are added is not stated in a form that is read",
     "το σημείο όπου προστίθενται οι λέξεις δεν δηλώνεται με τρόπο που διαβάζεται αυτόματα"),
    # the new wording's heading (article_parts.py)
    ("the heading of the new wording runs into its text on one line without a paragraph number",
     "η επικεφαλίδα της νέας διατύπωσης συνεχίζει στο κείμενο στην ίδια γραμμή, χωρίς αριθμό παραγράφου"),
    ("the heading of the new wording cannot be told from its text \\(no line break, no «1\\.», not the current title\\)",
     "η επικεφαλίδα της νέας διατύπωσης δεν ξεχωρίζει από το κείμενό της (ούτε αλλαγή γραμμής, ούτε «1.», ούτε ο τωρινός τίτλος)"),
    # applying it (consolidation.py)
    ("no instruction for this article was read in the amending article's text",
     "στο κείμενο του τροποποιητικού άρθρου δεν διαβάστηκε οδηγία για αυτό το άρθρο"),
    ("the amending article is not of a later law than this article: the instruction is likely about another law's "
     "article of that number",
     "το τροποποιητικό άρθρο δεν είναι μεταγενέστερου νόμου· η οδηγία μάλλον αφορά ομώνυμο άρθρο άλλου νόμου"),
    (f"the action «{_}» is not applied", "η ενέργεια «{1}» δεν εφαρμόζεται αυτόματα"),
    ("a subcase \\(υποπερίπτωση\\) is not read", "η υποπερίπτωση δεν διαβάζεται αυτόματα"),
    # a point of an article numbered by points, «του άρθρου 14.6.2.» (points.py)
    (f"point {_} of the article is read for word changes, its new wording, a sentence at its end and its repeal "
     f"only, not for «{_}»",
     "το σημείο {1} του άρθρου διαβάζεται αυτόματα μόνο για αλλαγές λέξεων, νέα διατύπωση, εδάφιο στο τέλος του και "
     "κατάργηση, όχι για «{2}»"),
    (f"point {_} is not in the article \\(it numbers {_} there, and no point {_}\\)",
     "το σημείο {1} δεν υπάρχει στο άρθρο (εκεί υπάρχουν τα {2}, όχι το {3})"),
    (f"point {_} is not in the article \\(it numbers no point under {_}\\)",
     "το σημείο {1} δεν υπάρχει στο άρθρο (δεν υπάρχει κανένα σημείο κάτω από το {2})"),
    (f"point {_} is not in the article", "το σημείο {1} δεν υπάρχει στο άρθρο"),
    (f"a sentence is added to point {_} only at its end", "εδάφιο προστίθεται αυτόματα στο σημείο {1} μόνο στο τέλος του"),
    (f"several quotations for point {_}", "πολλά παραθέματα για το σημείο {1}"),
    (f"the new wording does not open with point {_}'s number", "η νέα διατύπωση δεν αρχίζει με τον αριθμό του σημείου {1}"),
    (f"the new wording of point {_} holds point {_}, not one of its own",
     "η νέα διατύπωση του σημείου {1} περιέχει το σημείο {2}, που δεν είναι δικό του"),
    (f"several quotations for one sentence of point {_}", "πολλά παραθέματα για ένα εδάφιο του σημείου {1}"),
    (f"point {_} has sub-points: where its end is, before or after them, is not stated",
     "το σημείο {1} έχει υποσημεία· δεν ορίζεται αν το τέλος του είναι πριν ή μετά από αυτά"),
    (f"point {_} has sub-points: whether they go with it is not stated",
     "το σημείο {1} έχει υποσημεία· δεν ορίζεται αν καταργούνται μαζί του"),
    ("words added between commas are read only after the words named",
     "λέξεις που προστίθενται μεταξύ κομμάτων διαβάζονται αυτόματα μόνο μετά από τις λέξεις που ορίζονται"),
    # an act quoted whole in its ratification, amended through it (acts.py)
    (f"the act's article {_} is not read in the ratifying article's text \\(its articles' headings: {_}\\)",
     "το άρθρο {1} της πράξης δεν διαβάστηκε στο κείμενο του άρθρου που την κυρώνει (επικεφαλίδες άρθρων της: {2})"),
    (f"paragraph {_} of the act's article {_} is not there", "η παράγραφος {1} του άρθρου {2} της πράξης δεν υπάρχει"),
    (f"paragraph {_} of the act's article {_} is numbered twice",
     "ο αριθμός παραγράφου {1} εμφανίζεται δύο φορές στο άρθρο {2} της πράξης"),
    (f"the new wording does not open with paragraph {_}'s number",
     "η νέα διατύπωση δεν αρχίζει με τον αριθμό της παραγράφου {1}"),
    (f"the new wording does not open with the heading of the act's article {_}",
     "η νέα διατύπωση δεν αρχίζει με την επικεφαλίδα του άρθρου {1} της πράξης"),
    ("an instruction given through the ratification other than a whole new wording of the act's article or "
     "paragraph is not read",
     "οδηγία που δίνεται μέσω της κύρωσης, εκτός από νέα διατύπωση ολόκληρου άρθρου ή παραγράφου της πράξης, δεν "
     "διαβάζεται αυτόματα"),
    (f"point {_} is numbered twice in the article", "το σημείο {1} εμφανίζεται δύο φορές στο άρθρο"),
    (f"several cases of point {_}", "περισσότερες από μία περιπτώσεις του σημείου {1}"),
    (f"case {_} is not in point {_}", "η περίπτωση {1} δεν υπάρχει στο σημείο {2}"),
    ("the article was repealed before", "το άρθρο είχε ήδη καταργηθεί"),
    (f"paragraph {_} is not in the article", "η παράγραφος {1} δεν υπάρχει στο άρθρο"),
    (f"paragraph {_} is numbered twice in the article", "ο αριθμός παραγράφου {1} εμφανίζεται δύο φορές στο άρθρο"),
    ("the instruction names no paragraph and the article has several",
     "η οδηγία δεν ορίζει παράγραφο και το άρθρο έχει περισσότερες από μία"),
    (f"the new wording does not hold paragraphs {_} one by one",
     "η νέα διατύπωση δεν δίνει τις παραγράφους {1} μία προς μία"),
    (f"{_} quotations for {_} paragraphs", "{1} παραθέματα για {2} παραγράφους"),
    ("the new wording of several paragraphs does not number them",
     "η νέα διατύπωση πολλών παραγράφων δεν τις αριθμεί"),
    (f"the new wording is numbered {_}, not {_}", "η νέα διατύπωση έχει αριθμό {1} και όχι {2}"),
    (f"the new wording is of article {_}, not of article {_}", "η νέα διατύπωση είναι του άρθρου {1}, όχι του άρθρου {2}"),
    ("the new wording holds no text", "η νέα διατύπωση δεν έχει κείμενο"),
    (f"the new wording's title «{_}» shares no word with the article's title «{_}»: it may be another law's article",
     "ο τίτλος της νέας διατύπωσης «{1}» δεν έχει καμία λέξη κοινή με τον τίτλο του άρθρου «{2}»· μπορεί να πρόκειται "
     "για άρθρο άλλου νόμου"),
    (f"the new title is of article {_}, not of article {_}", "ο νέος τίτλος είναι του άρθρου {1}, όχι του άρθρου {2}"),
    ("the new title is not one line", "ο νέος τίτλος δεν είναι μία γραμμή"),
    ("a repeal of part of the article read as the whole", "κατάργηση μέρους του άρθρου που διαβάστηκε ως κατάργηση όλου"),
    ("the paragraph replaced is not named", "δεν ορίζεται ποια παράγραφος αντικαθίσταται"),
    ("the paragraph inserted is not numbered", "η παράγραφος που προστίθεται δεν έχει αριθμό"),
    ("the article's paragraphs are not numbered", "οι παράγραφοι του άρθρου δεν είναι αριθμημένες"),
    (f"paragraph {_} already exists", "η παράγραφος {1} υπάρχει ήδη"),
    (f"paragraph {_} would not follow paragraph {_}", "η παράγραφος {1} δεν θα ακολουθούσε την παράγραφο {2}"),
    ("the paragraph repealed is not named", "δεν ορίζεται ποια παράγραφος καταργείται"),
    ("the instruction names several paragraphs for one unit", "η οδηγία ορίζει πολλές παραγράφους για ένα σημείο"),
    ("case (.+?) is not in paragraph \\(the article\\)", "η περίπτωση {1} δεν υπάρχει στο άρθρο"),
    (f"case {_} is not in paragraph {_}", "η περίπτωση {1} δεν υπάρχει στην παράγραφο {2}"),
    ("several cases replaced by one wording", "πολλές περιπτώσεις αντικαθίστανται με μία διατύπωση"),
    (f"the new wording does not open with case {_}'s mark", "η νέα διατύπωση δεν αρχίζει με το στοιχείο της περίπτωσης {1}"),
    ("the case repealed is not named", "δεν ορίζεται ποια περίπτωση καταργείται"),
    ("several cases inserted by one wording", "πολλές περιπτώσεις προστίθενται με μία διατύπωση"),
    (f"case {_} is not a case letter", "το «{1}» δεν είναι στοιχείο περίπτωσης"),
    (f"case {_} already exists", "η περίπτωση {1} υπάρχει ήδη"),
    (f"case {_} would not follow case {_}, the paragraph's last",
     "η περίπτωση {1} δεν θα ακολουθούσε την περίπτωση {2}, την τελευταία της παραγράφου"),
    ("a sentence of several cases", "εδάφιο που εκτείνεται σε πολλές περιπτώσεις"),
    # engine v7: a subcase inserted, a repeal of many cases in a garbled paragraph applied where exact
    ("several subcases inserted by one wording", "πολλές υποπεριπτώσεις προστίθενται με μία διατύπωση"),
    (f"subcase {_} is not under one case of paragraph {_}",
     "η υποπερίπτωση {1} δεν υπάγεται σε μία περίπτωση της παραγράφου {2}"),
    (f"the subcases of case {_} are not read in order", "οι υποπεριπτώσεις της περίπτωσης {1} δεν διαβάζονται με τη σειρά"),
    (f"subcase {_} would not follow subcase {_}, the case's last",
     "η υποπερίπτωση {1} δεν θα ακολουθούσε την υποπερίπτωση {2}, την τελευταία της περίπτωσης"),
    (f"the new wording does not open with subcase {_}'s mark",
     "η νέα διατύπωση δεν αρχίζει με το στοιχείο της υποπερίπτωσης {1}"),
    (f"cases not in paragraph {_}: {_}; cases whose end cannot be told \\(a case missing after each\\): {_}; "
     f"only cases repealed: {_}", "περιπτώσεις που δεν υπάρχουν στην παράγραφο {1}: {2}· περιπτώσεις που δεν "
     "διακρίνεται πού τελειώνουν (λείπει η επόμενη): {3}· καταργήθηκαν μόνο οι περιπτώσεις {4}"),
    (f"cases not in paragraph {_}: {_}; only cases repealed: {_}",
     "περιπτώσεις που δεν υπάρχουν στην παράγραφο {1}: {2}· καταργήθηκαν μόνο οι περιπτώσεις {3}"),
    (f"cases not in paragraph {_}: {_}; cases whose end cannot be told \\(a case missing after each\\): {_}",
     "περιπτώσεις που δεν υπάρχουν στην παράγραφο {1}: {2}· περιπτώσεις που δεν διακρίνεται πού τελειώνουν "
     "(λείπει η επόμενη): {3}"),
    (f"cases not in paragraph {_}: {_}", "περιπτώσεις που δεν υπάρχουν στην παράγραφο {1}: {2}"),
    ("which sentence is replaced is not stated", "δεν ορίζεται ποιο εδάφιο αντικαθίσταται"),
    ("the new wording of a sentence opens with a paragraph number: it is not one sentence",
     "η νέα διατύπωση εδαφίου αρχίζει με αριθμό παραγράφου· δεν είναι ένα εδάφιο"),
    (f"the unit has {_} sentences, not a sentence {_}", "το σημείο έχει {1} εδάφια· δεν υπάρχει εδάφιο {2}"),
    ("the unit's sentences cannot be told apart exactly \\(an abbreviation or acronym before a period\\)",
     "τα εδάφια του σημείου δεν ξεχωρίζουν με βεβαιότητα (συντομογραφία ή αρκτικόλεξο πριν από τελεία)"),
    ("the unit holds no sentence", "το σημείο δεν έχει εδάφιο"),
    ("which sentence is repealed is not stated", "δεν ορίζεται ποιο εδάφιο καταργείται"),
    ("several quotations for one sentence", "πολλά παραθέματα για ένα εδάφιο"),
    ("where the new sentence goes is not stated as a sentence of the unit",
     "το σημείο όπου μπαίνει το νέο εδάφιο δεν ορίζεται ως εδάφιο του σημείου"),
    (f"a new sentence {_} in a unit of {_} sentences", "νέο εδάφιο {1} σε σημείο {2} εδαφίων"),
    (f"«{_}» occurs {_} times in {WHERE}: which one is meant is not stated",
     "η φράση «{1}» εμφανίζεται {2} φορές {3}· δεν ορίζεται ποια εννοείται"),
    (f"«{_}» occurs {_} times in {WHERE}", "η φράση «{1}» εμφανίζεται {2} φορές {3}"),
    (f"«{_}» is not found in the unit named", "η φράση «{1}» δεν βρέθηκε στο σημείο που ορίζεται"),
    (f"«{_}» is not found in {WHERE}", "η φράση «{1}» δεν βρέθηκε {2}"),
    (f"«{_}» is not found after «{_}»", "η φράση «{1}» δεν βρέθηκε μετά το «{2}»"),
    ("several phrases replaced by one", "πολλές φράσεις αντικαθίστανται με μία"),
    ("the phrase replaced is not quoted", "η φράση που αντικαθίσταται δεν παρατίθεται σε εισαγωγικά"),
    ("the words deleted are not quoted", "οι λέξεις που διαγράφονται δεν παρατίθενται σε εισαγωγικά"),
    ("words added at the end of several units", "λέξεις που προστίθενται στο τέλος πολλών σημείων"),
    ("words added at the end of a unit: where its final period goes is not stated",
     "λέξεις που προστίθενται στο τέλος σημείου· δεν ορίζεται πού μπαίνει η τελεία"),
)
_COMPILED = tuple((re.compile(pattern, re.S), greek) for pattern, greek in _REASONS)


@dataclass(frozen=True)
class Reason:
    """A reason as the page shows it: its words and their language (``el``, or ``en`` where the table does not
    know the engine's wording)."""

    text: str
    lang: str


def _where(value: str) -> str:
    """«paragraph 4» / «the article» as the place a phrase was looked for: «στην παράγραφο 4» / «στο άρθρο»."""
    m = _PARAGRAPH_OR_ARTICLE.fullmatch(value)
    if m is None:
        return value
    return f"στην παράγραφο {m.group(1)}" if m.group(1) else "στο άρθρο"


def greek_reason(reason: str) -> Reason:
    """``reason`` in Greek where the table knows its wording, else as written (``lang="en"``)."""
    for pattern, greek in _COMPILED:
        m = pattern.fullmatch(reason.strip())
        if m is None:
            continue
        where = pattern.groupindex.get("where")
        values = [_where(v) if i == where else v for i, v in enumerate(m.groups(), start=1)]
        return Reason(greek.format(None, *values), "el")
    return Reason(reason, "en")
