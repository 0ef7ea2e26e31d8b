"""The legal graph's edge (:class:`Reference`), the fields an article document stores for its edges, and the
extractor's version.

``REFERENCES_VERSION`` is part of every article's content hash: a re-index recomputes the edges when it moves, and
only then. What the versions since 15 read that the one before did not (the earlier ones, and what each scored:
docs/history/reference-extractor.md):

* the law's own structure (v15): an act an amending article names in its opening sentence («Το π.δ. 54/2018
  τροποποιείται ως εξής: 1. Το άρθρο 13 …»), in the clause that opens an item («1. Στο άρθρο 95 του ν. 4070/2012
  (Α’ 82), α) …») or only in its title («Τροποποίηση του άρθρου 96 του ν. 4412/2016») is the law of the bare
  articles below it; the parts, chapters and sections between an article and its law are read past («Τα άρθρα 8
  έως και 43 των Μερών Β΄ και Γ΄»); a table of correspondence or of contents gives no edges; a verb types only its
  own subject («Από την έναρξη ισχύος των άρθρων 145 έως και 150 η … Υπηρεσία … καταργείται» cites them).
* v18: an opening into a part of an act («Στο Παράρτημα ΙΙ του ν. 4442/2016 …, τροποποιείται …») governs its
  sentence's bare articles; a bare article beside another law's article cited as a yardstick («… του άρθρου 33 υπό τις
  προϋποθέσεις του άρθρου 142 του ν. 3655/2008») is the own law's where the sentence amends nothing; a paragraph an
  item of a list of changes names with no article («γ) στο τρίτο εδάφιο της παρ. 1, γα) η φράση «…» αντικαθίσταται»)
  is that of the one article the list's opening amends.
* v19: Greek-numeral suffixes of three letters («66ΚΣΤ») and a range's end written apart («2Α έως και 2 ΙΣΤ»); a run
  of articles takes a law carried from an earlier citation only if every number does, or the sentence does not go
  on to name the citing law; an opening that names the act after a noun of change («… αποτελεί η τροποποίηση του ν.
  4963/2022 (Α’ 149), και συγκεκριμένα:») governs its items; a transposition note («(άρθρο 44 της Οδηγίας …)»)
  does not make a list an EU act's; «επέρχονται οι εξής αλλαγές» amends; a title's «ν.δ.»/«π.δ.»/«α.ν.» types
  the text's «ν.» of the same number; a dotted «άρθρο 2.1.» in a law that numbers its parts so is its own article
  2; «των άρθρων 32 έως 34 αυτού» is the act just named.
* v20: a range whose ends share the number and end in a Greek numeral of two or more letters («66Α έως 66ΛΔ») is
  read whole in numeral order; articles qualified by a part of no named law are the own law's where every other act
  of the sentence is the subject a part is described by («του Μέρους Α’, περί των παρεμβάσεων στον Κώδικα …»); a
  run of described articles («Στην παρ. 2 του άρθρου 94, περί …, στο άρθρο 809, περί …, του Κώδικα Πολιτικής
  Δικονομίας …») is the law that closes it, and amends under a «Στ…» opening; an article of π.δ. 456/1984 from 200
  on is the Civil Code's; more codes named in words, and a code cited by its law's id takes the act in parentheses
  after its name («Κώδικα Φορολογικής Διαδικασίας (ν. 4987/2022)»).
* v21: articles alone in parentheses right after a law («του ν. 2523/1997 (άρθρα 17 έως 21)») are that law's; an
  item of a list of changes that one law closes («β) … του άρθρου 5 περί …, η παρ. 2 του άρθρου 8, … του ν.
  4186/2013 (Α’ 193) και») is that law's; the place of an insertion («μετά το άρθρο 6Α,», «περί …,») and «Μετά από
  το άρθρο 31 του ν. …» opening a clause no longer hide the opening's law; «ή» joins a run of articles and «, κατά
  περίπτωση,» may stand before their source; «η περ. γ) της παρ. 2» as an item is that paragraph of the opening's
  article; an article right before the subject of its clause («του άρθρου 14 η έναρξη … του ν. 4738/2020») is the
  own law's; the Special Supreme Court's code (ν. 345/1976) named in words, and an article inside a code's name is
  no edge.
* v22: a paragraph an item of a list of changes names («β) στην παρ. 2: βα) … αντικαθίσταται …, ββ) … προστίθεται
  …») takes its item's one kind of change, or ``amends`` where the item makes changes of different kinds; an edge
  read twice at one span (the same article, kind and paragraph) is given once.
* v23 (issue 49): a quotation the amending article never closes ends at the line before its next item where that
  item opens with an amending verb and cites a law (``article_parts.told_quote_spans``, as the instruction reader
  has read it since engine v5): that item's citations are edges again (ν. 4830/2021 art. 69 item 2 on N_4727_2020::107).
  No edge is lost: 3 more on corpus.jsonl, 58 more (20 articles) on corpus-large.jsonl.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from nomos.legal.graph.vocabulary import AMENDMENT_KINDS

# Bump whenever the rules change what is extracted (those of every module of nomos.legal.graph): indexing stores it beside the edges and makes it part of each article's
# content hash, so a re-index recomputes every article's edges then (and only then).
REFERENCES_VERSION = "23"


@dataclass(frozen=True)
class Reference:
    """One edge of the legal graph: ``source`` cites (or amends, replaces, inserts into, repeals) ``target``.

    ``target`` is the corpus id, "" when the cited article is not in the corpus; ``cited`` is the id as read
    («PK::372»); ``paragraph`` the target paragraph where stated; ``start``/``end`` the span in the source text."""

    source: str
    target: str
    cited: str
    kind: str
    paragraph: str | None
    start: int
    end: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def edge_fields(references: list[Reference]) -> dict[str, Any]:
    """The article document's graph fields: ``cites`` (every resolved target, any kind), ``amends`` (resolved
    targets of amendment-typed edges), ``references`` (the edges themselves) and ``references_version``."""
    cites = list(dict.fromkeys(r.target for r in references if r.target))
    amends = list(dict.fromkeys(r.target for r in references if r.target and r.kind in AMENDMENT_KINDS))
    return {
        "cites": cites,
        "amends": amends,
        "references": [r.as_dict() for r in references],
        "references_version": REFERENCES_VERSION,
    }
