"""Amendment edges that are no amendment of the article they land on: what the engine leaves out of its amendments.

The legal graph gives an amending article an amendment-kind edge to every article its amending sentences cite. Two
kinds of such citations change nothing in the cited article's text, and the engine must not list them as
instructions it failed to read (that would make a fully consolidated article «partial», or an article with no
amendment at all «none»):

* a **mention**: the amending sentence of another article cites this one («Στο άρθρο 110Α ΠΚ: α) τροποποιείται
  το τέταρτο εδάφιο της παρ. 6 με την προσθήκη αναφοράς στην παρ. 3 του άρθρου 106 του ΠΚ»: article 110Α is
  amended, article 106 only named in what is added; and since the item ends «… και το άρθρο 110Α διαμορφώνεται ως
  εξής: «…»», everything it describes is article 110Α's, its «προστίθεται παρ. 11» too), or the title's remnant
  (the text's first line, before the first instruction) names it as a subject, not as the amended article («…
  δίωξης κατ’ έγκληση στο αδίκημα του άρθρου 394 ΠΚ - Τροποποίηση της παρ. 1 του άρθρου 405 ΠΚ»);
* the **inserted article itself**: the corpus files the articles a law inserts into another («Μετά το άρθρο 7 του
  ν. 3978/2011 προστίθενται άρθρα 7Α, 7Β και 7Γ ως εξής: «…»») under the inserting law's own id
  (N_4782_2021::7Γ), and the edge of «7Γ» lands on it. Its text is the inserted wording, as enacted: nothing
  amends it.

Both are read only where no instruction of the amending article names the article (the caller's check), so a
real instruction that is not read is still listed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from nomos.legal.inforce.instructions import Instruction
from nomos.legal.text.folding import fold

# «με την απαλοιφή της αναφοράς στο άρθρο 100», «με την προσθήκη αναφοράς στην παρ. 3 του άρθρου 106»
_REFERENCE_TO = re.compile(r"αναφορ\w*\s+(?:σ\w*\s+|προσ\s+\w+\s+)(?:[^,;:«»\n]{0,60}\s)?$")
# a title's own amending nouns: «Τροποποίηση της παρ. 1 του άρθρου 405», «Αντικατάσταση της περ. 14 του άρθρου 108»
_AMENDING_NOUN = re.compile(r"(?:τροποποιησ|αντικαταστασ|καταργησ|προσθηκ|συμπληρωσ|αναδιατυπωσ|διορθωσ)\w*")
# the title goes on to the article it amends: «… του άρθρου 394 ΠΚ - Τροποποίηση …»
_THEN_AMENDED = re.compile(r"[^\n«»:]{0,30}?\s[-–]\s+" + _AMENDING_NOUN.pattern)
_INSERTED_ARTICLES = re.compile(r"προστιθε(?:ται|νται)\s+(?:νε\w+\s+)?(?:αρθρ\w+|κεφαλαι\w+)[^«:]{0,160}")


def _spans(references: Sequence[Mapping[str, Any]], target: str) -> list[tuple[int, int]]:
    return sorted((int(r.get("start", 0)), int(r.get("end", 0))) for r in references if r.get("target") == target)


def is_mention(text: str, references: Sequence[Mapping[str, Any]], target: str,
               instructions: Sequence[Instruction]) -> bool:
    """Whether every edge of ``references`` to ``target`` is a mention: a citation in «… αναφοράς στ…» that an
    amending sentence adds or removes, a citation in what another article's whole new wording is said to change, or
    a citation in the title's remnant before the first instruction that the title's next part («- Τροποποίηση …»)
    follows and no amending noun precedes. Needs at least one instruction
    read (for another article): an amending article none of whose sentences is read tells nothing."""
    spans = _spans(references, target)
    placed = [ins for ins in instructions if ins.place.articles]
    if not spans or not placed:
        return False
    first = min(ins.start for ins in placed)
    folded = fold(text)
    wholes = [(ins.start, ins.end) for ins in placed if ins.action == "replace-article"]
    for a, b in spans:
        if any(x <= a < y for x, y in wholes):
            continue  # in what another article's whole new wording is said to change: its summary, or the wording
        clause_start = max(folded.rfind(c, 0, a) for c in (",", ";", ":", "\n", "«", "»")) + 1
        if _REFERENCE_TO.search(folded, max(clause_start, a - 120), a):
            continue
        if a < first and "\n" not in folded[:a] and _THEN_AMENDED.match(folded, b) \
                and not _AMENDING_NOUN.search(folded, max(folded.rfind(" - ", 0, a), 0), a):
            continue  # the title's remnant: «… στο αδίκημα του άρθρου 394 ΠΚ - Τροποποίηση της παρ. 1 …»
        return False
    return True


def is_inserted_article(text: str, target: str, same_law: bool) -> bool:
    """Whether ``target`` is one of the articles the amending article (of ``target``'s own law: ``same_law``)
    inserts into another law («προστίθενται άρθρα 7Α, 7Β και 7Γ ως εξής»): its number among those named after
    the verb."""
    if not same_law:
        return False
    number = fold(target.split("::", 1)[-1])
    for m in _INSERTED_ARTICLES.finditer(fold(text)):
        named = {fold(n) for n in re.findall(r"(?<![\w])(\d{1,4}[α-ω]{0,2})(?![\w])", m.group(0))}
        if number in named:
            return True
    return False
