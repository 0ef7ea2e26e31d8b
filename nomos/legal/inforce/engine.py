"""The consolidation engine: an article's text in force, from its original text and the articles that amend it.

The amending articles are applied in the order of their laws (year, then law number, then article number); each
one's instructions (read by :mod:`nomos.legal.inforce.reading`) that name this article, in the order written.
An instruction is applied only when it can be applied exactly:

* whole-article new wording («το άρθρο 372 διαμορφώνεται ως εξής: «Άρθρο 372 Κλοπή 1. …»»): the quoted article,
  its heading's number checked against the article's, its heading's title taken as the title in force;
* a paragraph's, case's or sentence's new wording: the unit must be found (paragraph «4.» at a line's start, case
  «γ)» in its sequence, the n-th sentence where every period before it is certain);
* insertions: a paragraph «7.» goes after the last one numbered below it, and must not exist yet; only a
  paragraph the instruction itself adds is created («προστίθεται παρ. 7»), never one named as where a sentence or
  case goes («Στην παρ. 4 … προστίθεται εδάφιο»: paragraph 4 must be there); a case after the case before it in
  the sequence; a sentence at the end of its paragraph, or after (before) the sentence named;
* repeals: a paragraph or case keeps its number with «[Καταργείται]» (later references by number still land); a
  sentence is removed; a whole article reads «[Καταργείται]»;
* words: the phrase replaced, deleted, or after/before which words are added must occur exactly once in the unit
  named (whitespace and the apostrophes ΄ ’ ' read alike); twice is ambiguous, none is not found.

Anything else goes to ``unapplied`` with its reason, and the result is ``partial`` — unless a later instruction
gives the whole wording of the unit it would have changed (a later whole-article or paragraph replacement): then
the text in force does not depend on it, and it is listed as superseded. An article named only as the place where
new articles go («Μετά το άρθρο 205 … προστίθεται άρθρο 205Α») gets no instruction for its text: that is neither
applied nor unapplied, and an amending article that does nothing else to it is not among its amendments. Every passage carries the amending
article that gave it its wording ("" : the original's) and whether it differs from the original paragraph at its
place. A code's article may end with the code's own structural lines (a chapter or section heading in capitals,
a note «Άρθρα 382 - 384 (Καταργούνται)»: :func:`~nomos.legal.text.article_parts.structural_tail`): they are outside the
article, so no instruction matches them, and the text in force leaves them out (engine v5: an outside audit found
them read as the article's own after its new wording or after «[Καταργείται]», PK::279, N_3979_2011::11); nor the end of its title
that the corpus writes as its first line (engine v6: :mod:`.title_tail`); nor a law's annex, enactment formula and
signatures after its last article (engine v7: :mod:`.law_end`). An
amending article whose only edges to this one are mentions, or that inserts this very article (:mod:`.mentions`),
is not among its amendments either.
This module orders the amending articles, binds their instructions to the article and keeps what was applied and
what not; each action's rules live in the module of the unit it changes (:mod:`.article`, :mod:`.paragraph`,
:mod:`.case`, :mod:`.sentence`, :mod:`.words`), named once in its table of actions (``_ACTIONS``). It reads text
only: the corpus-wide run at ingest is :mod:`nomos.ingest.in_force`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nomos.legal.inforce.article import repeal_article, replace_article, replace_title
from nomos.legal.inforce.case import insert_case, insert_subcase, repeal_case, replace_case
from nomos.legal.inforce.edit import Edit, Par, Refused, State, Step, norm
from nomos.legal.inforce.instructions import Instruction, bind
from nomos.legal.inforce.law_end import law_end
from nomos.legal.inforce.mentions import is_inserted_article, is_mention
from nomos.legal.inforce.paragraph import insert_paragraph, repeal_paragraph, replace_paragraph
from nomos.legal.inforce.points import point_action, refuse_unless_words
from nomos.legal.inforce.reading import read_instructions
from nomos.legal.inforce.result import Applied, InForce, Passage, Status, Unapplied
from nomos.legal.inforce.sentence import insert_sentence, repeal_sentence, replace_sentence
from nomos.legal.inforce.title_tail import title_tail
from nomos.legal.inforce.versions import ORIGINAL, Version, law_name, law_of
from nomos.legal.inforce.words import delete_words, insert_words, replace_words
from nomos.legal.text.article_parts import paragraphs, structural_tail
from nomos.legal.text.folding import fold

# Bump whenever the rules change what the engine produces (reading or applying): ingest stores the text in force
# and the article's content hash includes it, so a re-index recomputes it then.
CONSOLIDATION_VERSION = "7"
AMENDMENT_KINDS = frozenset({"amends", "replaces", "inserts", "repeals"})
# instructions that name an article only as the place where new articles go («Μετά το άρθρο 205 … προστίθεται
# άρθρο 205Α»): no instruction for its text, so neither applied nor unapplied; an amending article that gives the
# article nothing else is left out of its amendments
PLACING_ONLY = frozenset({"insert-articles"})


@dataclass(frozen=True)
class Amending:
    """An amending article as the engine needs it: its id, its law (``source``, ``law``: what orders it), its
    text, and its references (the legal graph's edges, dicts or :class:`~nomos.legal.graph.references.Reference`, with
    ``target``, ``kind``, ``start``, ``end``)."""

    id: str
    text: str
    references: Sequence[Mapping[str, Any]]
    source: str = ""
    law: str = ""


@dataclass(frozen=True)
class Consolidation:
    """The engine's result: the text in force, and each applied instruction's before and after."""

    in_force: InForce
    steps: tuple[Step, ...] = ()
    versions: tuple[Version, ...] = ()


def law_key(article_id: str, source: str = "", law: str = "") -> tuple[int, int]:
    """(year, number) of the law an article belongs to: from an id like ``N_4855_2021::86``, else from its law's
    name («Ποινικός Κώδικας (ν. 4619/2019)»); (0, 0) when neither says."""
    prefix = (source or article_id.split("::", 1)[0])
    m = re.fullmatch(r"[A-Z]+_(\d+)_(\d{4})", prefix)
    if m:
        return int(m.group(2)), int(m.group(1))
    m = re.search(r"(\d{1,5})\s*/\s*(\d{4})", law or "")
    if m:
        return int(m.group(2)), int(m.group(1))
    return 0, 0


def order_key(article_id: str, source: str = "", law: str = "") -> tuple[int, int, int, str, str]:
    """The amending laws' order: year, law number, then article number as a reader counts (2 < 10 < 10Α)."""
    year, number = law_key(article_id, source, law)
    article = article_id.split("::", 1)[-1]
    m = re.match(r"(\d+)(.*)", article)
    return year, number, int(m.group(1)) if m else 0, fold(m.group(2)) if m else fold(article), article_id


def _paragraph_label(ins: Instruction) -> str:
    return ", ".join(ins.place.paragraphs)


_ACTIONS = {
    "replace-article": replace_article,
    "replace-title": replace_title,
    "repeal": repeal_article,
    "replace-paragraph": replace_paragraph,
    "insert-paragraph": insert_paragraph,
    "repeal-paragraph": repeal_paragraph,
    "replace-case": replace_case,
    "insert-case": insert_case,
    "insert-subcase": insert_subcase,
    "repeal-case": repeal_case,
    "replace-sentence": replace_sentence,
    "insert-sentence": insert_sentence,
    "repeal-sentence": repeal_sentence,
    "replace-words": replace_words,
    "delete-words": delete_words,
    "insert-words": insert_words,
}
_WHOLE = ("replace-article", "repeal")
# actions that change part of a paragraph: their step shows the part changed, with its sentence or line around it
_SMALL = frozenset({"replace-case", "insert-case", "repeal-case", "insert-subcase", "replace-sentence", "insert-sentence",
                    "repeal-sentence", "replace-words", "delete-words", "insert-words"})


def focus(before: str, after: str, room: int = 600) -> tuple[str, str]:
    """The part of a paragraph an instruction changed, before and after: the text from the start of the line (or
    sentence, in a long line) where they first differ to the end of the line (or sentence) where they last
    differ, «…» marking what is left out. Short texts are shown whole."""
    if len(before) <= room and len(after) <= room:
        return before, after
    p = 0
    while p < min(len(before), len(after)) and before[p] == after[p]:
        p += 1
    q = 0
    while q < min(len(before), len(after)) - p and before[-1 - q] == after[-1 - q]:
        q += 1

    def back(text: str, at: int) -> int:
        line = text.rfind("\n", 0, at) + 1
        if at - line <= room // 2:
            return line
        stop = max(text.rfind(". ", 0, at), text.rfind(", ", line, at - 40))
        return stop + 2 if stop >= line else line

    def ahead(text: str, at: int) -> int:
        line = text.find("\n", at)
        line = len(text) if line < 0 else line
        if line - at <= room // 2:
            return line
        stop = text.find(". ", at)
        return stop + 1 if 0 <= stop < line else line

    a = min(back(before, p), back(after, p))
    b_end, a_end = len(before) - q, len(after) - q
    out = []
    for text, end in ((before, b_end), (after, a_end)):
        stop = ahead(text, end)
        out.append(("…" if a > 0 else "") + text[a:stop] + ("…" if stop < len(text) else ""))
    return out[0], out[1]


def _clause_near(text: str, references: Sequence[Mapping[str, Any]], target: str) -> str:
    """The words around the first amendment edge to ``target``: what an unread instruction is listed with."""
    spans = [(int(r.get("start", 0)), int(r.get("end", 0))) for r in references
             if r.get("target") == target and r.get("kind") in AMENDMENT_KINDS]
    if not spans:
        return ""
    a, b = min(spans)
    start = max(text.rfind("\n", 0, a) + 1, a - 160)
    end = len(text)
    for stop in ("«", "\n"):
        k = text.find(stop, b)
        if k >= 0:
            end = min(end, k)
    end = min(end, b + 200)
    return " ".join(text[start:end].split())


def _ref_dict(r: Any) -> Mapping[str, Any]:  # a Reference or its dict
    return r if isinstance(r, Mapping) else r.as_dict()


def consolidate(article_id: str, title: str, text: str, amendments: Sequence[Amending], source: str = "",
                law: str = "", instructions: Mapping[str, list[Instruction]] | None = None) -> Consolidation:
    """The text in force of ``article_id`` (``title``, original ``text``, its ``source`` and ``law``) after
    ``amendments`` (any order: they are put in the laws' order here). ``instructions``: each amending article's
    instructions already read (the corpus-wide run reads an article amending many once); read here otherwise."""
    tail_at = min(structural_tail(text), law_end(text))
    head_at = title_tail(text)
    cut_title = " ".join(text[:head_at].split())
    text = text[head_at:tail_at]
    original = [Par(p.number, p.text) for p in paragraphs(text)]
    state = State(article_id, title, [Par(p.number, p.text) for p in original], original, title_tail=cut_title)
    applied: list[Applied] = []
    unapplied: list[tuple[Unapplied, Instruction | None, int]] = []
    order = sorted(amendments, key=lambda a: order_key(a.id, a.source, a.law))
    own = law_key(article_id, source, law)
    whole_after: list[tuple[int, str]] = []  # (position in order, amending id) of whole-article instructions applied
    paragraph_after: list[tuple[int, str, tuple[str, ...]]] = []
    placed: set[str] = set()  # amending articles that only put new articles after this one
    versions = [Version(ORIGINAL, "", _passages(state, original), title)]
    for k, amending in enumerate(order):
        if k and law_key(amending.id, amending.source, amending.law) != law_key(order[k - 1].id, order[k - 1].source,
                                                                                order[k - 1].law):
            _close_version(versions, state, original, order[k - 1], applied, unapplied)
        refs = [_ref_dict(r) for r in amending.references]
        read = instructions.get(amending.id) if instructions is not None else None
        if read is None:
            read = read_instructions(amending.text)
        mine = [ins for ins in read if bind(ins.place, refs, article_id)]
        placing = [ins for ins in mine if ins.action in PLACING_ONLY]
        mine = [ins for ins in mine if ins.action not in PLACING_ONLY]
        if placing and not mine:
            # new articles go after this one: the amending article changes nothing in its text
            placed.add(amending.id)
            continue
        theirs = law_key(amending.id, amending.source, amending.law)
        if not mine and (is_mention(amending.text, refs, article_id, read)
                         or is_inserted_article(amending.text, article_id, own == theirs != (0, 0))):
            # a citation in another article's amending sentence, or this article is the text the amending
            # article inserts (:mod:`.mentions`): nothing amends its text
            placed.add(amending.id)
            continue
        if not mine:
            reason = "no instruction for this article was read in the amending article's text"
            unapplied.append((Unapplied(amending.id, _clause_near(amending.text, refs, article_id), reason), None, k))
            continue
        if own != (0, 0) and theirs != (0, 0) and theirs <= own:
            for ins in mine:
                unapplied.append((Unapplied(amending.id, ins.words(amending.text),
                                            "the amending article is not of a later law than this article: the "
                                            "instruction is likely about another law's article of that number"),
                                  ins, k))
            continue
        engine = Edit(state, amending.id)
        for ins in mine:
            words = ins.words(amending.text)
            if ins.problem:
                unapplied.append((Unapplied(amending.id, words, ins.problem), ins, k))
                continue
            action = _ACTIONS.get(ins.action)
            if action is None:
                reason = {"describe": "a change stated without its new wording",
                          "renumber": "a renumbering is not read"}.get(ins.action, "")
                if not reason:
                    reason = "a subcase (υποπερίπτωση) is not read" if ins.action.endswith("subcase") \
                        else f"the action «{ins.action}» is not applied"
                unapplied.append((Unapplied(amending.id, words, reason), ins, k))
                continue
            if state.repealed and ins.action not in _WHOLE:
                unapplied.append((Unapplied(amending.id, words, "the article was repealed before"), ins, k))
                continue
            snapshot = [Par(p.number, p.text, p.source) for p in state.pars], state.title, state.repealed
            try:
                refuse_unless_words(ins)
                before, after = (point_action(ins) or action)(engine, ins)
            except Refused as refused:
                state.pars, state.title, state.repealed = snapshot
                engine.left.clear()
                unapplied.append((Unapplied(amending.id, words, str(refused)), ins, k))
                continue
            if state.title != snapshot[1]:
                state.title_tail = ""  # a new title: the cut one's end is no longer its
            done = Applied(amending.id, ins.action, _paragraph_label(ins), words)
            applied.append(done)
            unapplied.extend((Unapplied(amending.id, words, reason), ins, k) for reason in engine.left)
            engine.left.clear()
            if ins.action in _SMALL:
                before, after = focus(before, after)
            state.steps.append(Step(done, article_id, before, after))
            if ins.action in _WHOLE:
                whole_after.append((k, amending.id))
            elif ins.action == "replace-paragraph":
                paragraph_after.append((k, amending.id, ins.place.paragraphs))
    if order:
        _close_version(versions, state, original, order[-1], applied, unapplied)
    listed = []
    open_ = 0
    for u, maybe, k in unapplied:
        by = _superseded_by(u, maybe, k, whole_after, paragraph_after)
        if by:
            u = Unapplied(u.source, u.instruction, u.reason, superseded_by=by)
        else:
            open_ += 1
        listed.append(u)
    status: Status = "none" if not applied else ("partial" if open_ else "full")
    passages = _passages(state, original)
    result = InForce(status, passages, tuple(dict.fromkeys(a.id for a in order if a.id not in placed)),
                     tuple(applied), tuple(listed),
                     title=state.title if state.title != title else "")
    return Consolidation(result, tuple(state.steps), tuple(versions))


def _passages(state: State, original: list[Par]) -> tuple[Passage, ...]:
    return tuple(Passage(p.text, p.source, _changed(p, i, original)) for i, p in enumerate(state.pars))


def _close_version(versions: list[Version], state: State, original: list[Par], last: Amending,
                   applied: list[Applied], unapplied: list[tuple[Unapplied, Instruction | None, int]]) -> None:
    """After the last amending article of a law: the article as that law left it, when one of the law's
    instructions was applied (its ``applied`` and ``unapplied`` are those of the law's amending articles)."""
    law = law_of(last.id, last.source)
    mine = [a for a in applied if law_of(a.source) == law]
    done = {a.source for v in versions for a in v.applied}
    mine = [a for a in mine if a.source not in done]
    if not mine:
        return
    amending = tuple(dict.fromkeys(a.source for a in mine))
    versions.append(Version(law, law_name(law, last.law), _passages(state, original), state.title, amending,
                            tuple(mine), tuple(u for u, _, _ in unapplied if law_of(u.source) == law)))


def _superseded_by(u: Unapplied, ins: Instruction | None, k: int, whole_after: list[tuple[int, str]],
                   paragraph_after: list[tuple[int, str, tuple[str, ...]]]) -> str:
    """The later applied instruction that gives the whole wording of what ``u`` would have changed, or ""."""
    later = [src for at, src in whole_after if at > k]
    if later:
        return later[0]
    if ins is not None and ins.place.paragraphs:
        for at, src, numbers in paragraph_after:
            if at > k and set(ins.place.paragraphs) <= set(numbers):
                return src
    return ""


def _changed(p: Par, index: int, original: list[Par]) -> bool:
    """Whether a passage differs from the original paragraph at its place (same number; by position where the
    article has no numbered paragraphs)."""
    if p.number:
        same = [o for o in original if fold(o.number) == fold(p.number)]
    else:
        same = [original[index]] if index < len(original) and not original[index].number else []
    return not same or norm(same[0].text) != norm(p.text)


def original_in_force(text: str) -> tuple[Passage, ...]:
    """An article's original paragraphs as passages (the text in force of an article none of whose amendments
    applied), without the code's structural lines after it, as :func:`consolidate` gives them."""
    end = min(structural_tail(text), law_end(text))
    return tuple(Passage(p.text) for p in paragraphs(text[title_tail(text):end]))
