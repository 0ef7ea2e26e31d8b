"""The legal graph's edges read from statute text: which articles an article cites, and which it amends.

Built on the query-side resolver (:mod:`nomos.legal.citations`: ``fold``, ``find_citations``, ``IdResolver``)
so a citation typed into the search box and one written inside a statute are read by the same rules. What this
module adds is what only statute text has:

* the citing law as the default source: a bare «άρθρο 5», «του παρόντος», «του νόμου αυτού» is the citing
  article's own law, while «άρθρο 5 του Κανονισμού (ΕΕ) 2016/679» or «της Οδηγίας …» (a source the resolver does
  not know) is no edge at all, rather than a wrong one into the own law;
* a paragraph written before the article («η παρ. 1 του άρθρου 372 ΠΚ»), and «του προηγούμενου/επόμενου άρθρου»;
* amendment verbs typing the edge: «τροποποιείται» / «διαμορφώνεται ως εξής» → amends, «αντικαθίσταται» →
  replaces, «προστίθεται» / «παρεμβάλλεται» → inserts, «καταργείται» / «απαλείφεται» → repeals;
* text quoted in «…» is the new wording an amendment puts into another law: its references are that law's (a bare
  «άρθρο 263» inside it is the amended law's article 263, not the amending law's), so they give the amending
  article no edges; the amended article itself is the amendment edge;
* in an amending article a bare «το άρθρο 15» after «Στο άρθρο 15 του ν. 4786/2021» (same paragraph) is that law's
  article 15, and a list a colon opens («καταργούνται οι ακόλουθες διατάξεις του ν. 4070/2012:») carries its verb
  and its law;
* precision first: a bare article in a sentence that names another law could be either's, and gives no edge,
  unless syntax decides: every other law comes after it and a verb of the sentence's own stands between them
  («… της Επιτροπής του άρθρου 13, να χορηγείται … κατά παρέκκλιση του άρθρου 21 του ν. 4354/2015»); a
  reference that qualifies a noun other than a provision («της απόφασης της παρ. 4 του άρθρου 79, καταργείται
  …») is cited whatever verb follows; articles numbered in words («του άρθρου τριακοστού δεύτερου του ν.
  4771/2021») are read with their law; «και η παρ. 4 διαμορφώνεται» is paragraph 4 of the article amended before
  at that paragraph; a verb that opens a clause types the subjects listed after it («καταργούνται …, καθώς και τα
  άρθρα 19 έως και 74 του ν. 3463/2006»); a heading («Άρθρο 59 Διαδικαστικοί κανόνες»), a clause of a numbered
  document («άρθρο 28.10») or a numbered item («στοιχείο με αρ. 11») gives none either.

Precision and recall are measured on hand-checked samples (tests/fixtures/graph/, bench/graph_quality.py,
docs/history/benchmarks-diary.md "The legal graph"), each batch judged on the version it was drawn from before the
rules changed: held-out precision 0.825-0.875 for v3-v6, 0.906 for v7 (145/160), 0.963 for v8 (154/160; recall on
references read after v8: 44/56), 0.906 for v9 (145/160; v8 on the same edges 141/156), 0.931 for v10 (149/160; recall
on references read while it was judged 142/151 per cited article, 51/60 per distinct reference), 0.919 for v11
(147/160; recall 75/77 per cited article, 44/46 per distinct reference), 0.956 for v12 (153/160; recall 49/61 per
distinct reference, read while it was judged), 0.956 for v13 (153/160; recall 77/82 per distinct reference, 84/89 per
cited article, read after it was frozen; v14, one fix after, scores the same). v12 read the chapters an amending law
inserts into another law (ν. 4442/2016) as the host law's (:mod:`nomos.legal.insertions`); v13 read lettered
ranges, spaced suffixes, paragraphs named after their verb or after the article amended just before, «του ως άνω
άρθρου» and inner articles of a ratified code. The errors left are a long tail: kinds across long clauses, paragraphs
a text names through lettered parts, bare articles of a decree the article's opening names.

Every :class:`Reference` carries its span in the text (the portal links it) and ``cited`` as read, even when the
target is not in the corpus (``target`` is then "").
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import asdict, dataclass
from typing import Any

from nomos.legal.citations import Citation, IdResolver, find_citations, fold, source_at, sources_in

# Bump whenever the rules below change what is extracted: indexing stores it beside the edges and makes it part of
# each article's content hash, so a re-index recomputes every article's edges then (and only then).
REFERENCES_VERSION = "14"

KINDS = ("cites", "amends", "replaces", "inserts", "repeals")
AMENDMENT_KINDS = frozenset(KINDS[1:])

_SELF = "\x00self"  # find_citations' default source: marks a citation that named no source of its own

# Amendment verbs (folded), present tense as the amending clause writes them; the past («τροποποιήθηκε») only
# describes the cited article and is no amendment. The nouns of a title («Τροποποίηση της παρ. 1 του άρθρου 7»)
# and «επέρχονται οι εξής τροποποιήσεις» type the edge the same way.
_VERB_WORDS = (
    r"(?<!οπωσ )(?:(?P<amends>τροποποιειται|τροποποιουνται|διαμορφωνεται|διαμορφωνονται|"
    r"αναριθμειται|αναριθμουνται|αναδιατυπωνεται|αναδιατυπωνονται|(?<=εξησ )τροποποιησεισ|(?<=ακολουθεσ )τροποποιησεισ)"
    r"|(?P<replaces>αντικαθισταται|αντικαθιστανται)"
    r"|(?P<inserts>προστιθεται|προστιθενται|παρεμβαλλεται|παρεμβαλλονται)"
    r"|(?P<repeals>καταργειται|καταργουνται|απαλειφεται|απαλειφονται))"
)
_VERBS = re.compile(r"\b" + _VERB_WORDS + r"\b")
# a title's noun right before what it names («Τροποποίηση της παρ. 1 του άρθρου 7», «Αντικατάσταση της περ. ιβ’ του»)
_NOUN_BEFORE = re.compile(
    r"\b(?:(?P<amends>τροποποιηση|τροποποιησεισ)|(?P<replaces>αντικατασταση)|(?P<inserts>προσθηκη)|"
    r"(?P<repeals>καταργηση))\s+(?:τ\w{1,3}\s+)?(?:(?:(?:περ|παρ|εδ|υποπερ|στοιχ)\w*\.?\s*[\dα-ω]{1,3}[΄'’)]?"
    r"(?:\s*(?:,|και)\s*[\dα-ω]{1,3}[΄'’)]?)*|(?:εδαφι|νε|τελευται|πρωτ|δευτερ|τριτ|τεταρτ|πεμπτ|εκτ)\w*(?:\s+και)?)"
    r"\s+(?:τ\w{1,3}\s+|στο\s+|στην\s+)?)*$"
)
# after a reference only a verb types it (or «επέρχονται οι εξής τροποποιήσεις»): a noun after it describes it
# («όπως ισχύει μετά την τροποποίησή του»), and so does «όπως» before a verb («όπως τροποποιούνται με τον παρόντα,
# εφαρμόζονται»)
_VERBS_AFTER = re.compile(
    r"\b(?<!οπωσ )(?:(?P<amends>τροποποιειται|τροποποιουνται|διαμορφωνεται|διαμορφωνονται|"
    r"αναριθμειται|αναριθμουνται|αναδιατυπωνεται|αναδιατυπωνονται|διορθωνεται|(?<=εξησ )τροποποιησεισ|(?<=ακολουθεσ )τροποποιησεισ)"
    r"|(?P<replaces>αντικαθισταται|αντικαθιστανται)"
    r"|(?P<inserts>προστιθεται|προστιθενται|παρεμβαλλεται|παρεμβαλλονται)"
    r"|(?P<repeals>καταργειται|καταργουνται|απαλειφεται|απαλειφονται))\b"
)
# a colon that opens a list («καταργούνται οι ακόλουθες διατάξεις του ν. 4070/2012:», «Στο π.δ. 40/2020 επέρχονται οι
# ακόλουθες τροποποιήσεις:», «… του ανωτέρω Κανονισμού, οι εξής:»), not new wording («ως εξής: «…»»)
_LIST_COLON = re.compile(r":(?!\s*«)")
_FOREIGN_ACT = re.compile(r"\b(?:κανονισμ|οδηγι|συνθηκ|συμβαση|συνταγμ)\w*")
_FOREIGN_ACT_AFTER = re.compile(r"\s*" + _FOREIGN_ACT.pattern.replace("συμβαση", "συμβασ"))  # «της ίδιας Συμβάσεως»
_NUMBERED = re.compile(r"(?:^|\n)\s*\d+[α-ω]?\.\s")
# «Κεφάλαιο 56 του ν. 4700/2020», «Παράρτημα 3 του ν. …»: a number beside a law that is no article
_NOT_ARTICLE = re.compile(r"\b(?:κεφαλαι\w*|μερ(?:οσ|ουσ)|τμημα\w*|παραρτημα\w*|τευχ\w*|φυλλ\w*|βιβλι\w*|"
                          r"τιτλ\w*|ενοτητ\w*)\s*$")
# «προστίθεται άρθρο 25Α στον ν. 4276/2014»: the law after «στον/στο/στην»
_INTO = re.compile(r"\s*(?:στον|στο|στην|στη)\s+")
# «το εσωτερικό άρθρο 55 του άρθρου 2 του ν. 4335/2015»: an article inside an article (a code a law ratified); the
# outer article is the corpus's, and is read on its own
_INNER = re.compile(r"\s*(?:\([^)]{0,40}\)\s*)?(?:του|τησ)\s+(?:αρθρ\w*)\s")
# a citation in the words that name it as an instrument or a yardstick is cited, whatever verb the clause has
# («προσαρμόζεται προς το άρθρο 398 ΠΚ και διαμορφώνεται», «όπως αντικαταστάθηκε με το άρθρο 25»)
_CITED_BY_WORDS = re.compile(
    r"\b(?:συμφωνα\s+με|κατα|προσ|βασει|δυναμει|παρεκκλιση|με|περι|επιφυλαξη|εννοια|εφαρμογη|εξαιρεση|πλην|αναφορα|"
    r"παραπομπ\w*|"
    r"\w+(?:θηκε|θηκαν|ηκε|ηκαν))\s+(?:σ?τ(?:ο|α|ον|ην|η|ων|ου|ησ|ισ)\s+)?$"
)
# «όπως αντικαταστάθηκε με την περ. ε΄ του άρθρου 31»: a designator the citation's span does not hold, between those
# words and the article (v13)
_DESIGNATOR_BEFORE = re.compile(r"(?<![\w.])(?:περ|εδ|υποπερ|στοιχ)\w*\.?\s*[\dα-ω]{1,3}[΄'’)]?\s+(?:του|τησ)\s+$")
# «μετά την έκδοση της υπουργικής απόφασης της παρ. 4 του άρθρου 79, καταργείται το ειδικό βιβλίο …»: a reference
# that qualifies a noun other than a provision («της Επιτροπής του άρθρου 13», «των δραστηριοτήτων του άρθρου 233»)
# is cited, whatever verb follows (the verb's object comes after it); a provision or a title's noun («το πρώτο
# εδάφιο της παρ. 1», «οι λέξεις … του άρθρου 5», «Τροποποίηση της παρ. 1», «στο τέλος του άρθρου 5») keeps it
_MODIFIES_NOUN = re.compile(
    r"(?<![\w.])(?!(?:παρ|περ|εδαφ|εδ|στοιχ|υποπερ|υποπαρ|αρθρ|διαταξ|λεξ|φρασ|τελοσ|τελουσ|αρχ|τιτλ|κεφαλ|μερ|τμημ|"
    r"πινακ|παραρτ|κειμεν|ενοτητ|σημει|τροποποι|αντικαταστ|προσθηκ|καταργησ|συμπληρωσ|αναριθμ|ισχυ|προθεσμ)[\w.]*\s)"
    r"(?:[α-ω]{4,}(?:ησ|εωσ|ων|ου|ασ|ισ|οσ|εσ)|εκειν\w*)\s+(?:του|τησ|των)\s+"
    # «της περ. β) της» before it: one designator at most (a deeper address is a provision's)
    r"(?:(?:περ|παρ|υποπερ|υποπαρ|εδ|στοιχ)\w*\.?\s*[\dα-ω]{1,3}[΄'’)]?\s+(?:του|τησ|των)\s+)?$"
)
# «Κάθε διάταξη που είναι αντίθετη στις διατάξεις των άρθρων 82 έως και 111 … καταργείται»: a yardstick, cited
_CONTRARY_TO = re.compile(r"\bαντιθετ\w*\s+(?:προσ\s+|σε\s+)?(?:στ\w*|τ\w*)\s+(?:διαταξ\w*\s+(?:του|τησ|των)\s+)?$")
_ELEMENT = r"(?:παρ\w*|περ\w*|εδ\w*|στοιχ\w*|υποπερ\w*|αρθρ\w*|τελευται\w*|πρωτ\w*|δευτερ\w*|τριτ\w*)"
# What follows an article list and names a source the resolver does not know: no edge rather than a wrong one
# («άρθρο 14 παράγραφοι 1, 2 και 4 του ΓΚΠΔ», «άρθρο 6 παράγραφος 1 στοιχείο α) του ΓΚΠΔ», «της Οδηγίας …»)
_DESIGNATORS = r"(?:\s*(?:παρ\w*\.?|περ\w*\.?|στοιχ\w*|εδ\w*\.?|υποπερ\w*\.?|σημει\w*)\s*[\dα-ω]{1,3}[΄'’)]?" \
               r"(?:\s*(?:,|και|εωσ)\s*[\dα-ω]{1,3}[΄'’)]?)*)*(?:\s+αντιστοιχα)?"
_FOREIGN = re.compile(
    _DESIGNATORS + r"(?:\s*(?:,|και)\s*(?:το\s+|του\s+)?αρθρ\w*\.?\s*\d+[α-ω]?" + _DESIGNATORS + r")*\s*(?:\([^)]{0,40}\)\s*)?(?:του|τησ|των)\s+(?!παροντοσ|παρουσασ|ιδιου|ιδιασ|αυτου|αυτησ|"
    r"νομου\s+αυτου|παρον\b|" + _ELEMENT + r")(?P<word>[^\s,.;:]+)"
)
# «… του Κώδικα Οργανισμού Δικαστηρίων και Κατάστασης Δικαστικών Λειτουργών (»: words of a name, then parentheses
_NAME_THEN_PARENTHESES = re.compile(_DESIGNATORS + r"\s*(?:του|τησ)\s+[^\s\d(),.;:«»]+(?:\s+[^\s\d(),.;:«»]+){0,11}\s*\(")
_SAME_AS_BEFORE = re.compile(r"\s*(?:\([^)]{0,40}\)\s*)?(?:του|τησ)\s+(?:ιδιου|ιδιασ)\b")
# «του ανωτέρω νόμου», «του εν λόγω νόμου», «του ως άνω διατάγματος»: the law named before, like «του ίδιου»
_NAMED_BEFORE = re.compile(r"\s*(?:\([^)]{0,40}\)\s*)?(?:του|τησ)\s+(?:ανωτερ(?:ω|ου)|εν\s+λογω|ωσ\s+ανω|προαναφερ\w*)"
                           r"\s+(?:νομ|διαταγμ|κωδικ|π\.\s?δ)")
# «του παρόντος», «του παρόντος νόμου/Κώδικα», «της παρούσας»: the citing law, whatever reference follows
_OWN_AFTER = re.compile(r"\s*(?:\([^)]{0,40}\)\s*)?(?:του|τησ)\s+(?:παροντοσ|παρουσασ)\b")
# «του νόμου αυτού»: the law the sentence has just named, else the citing law
_THIS_LAW_AFTER = re.compile(r"\s*(?:\([^)]{0,40}\)\s*)?του\s+(?:νομου\s+αυτου|αυτου\s+νομου)\b")
# «άρθρο 28.10 έκαστης Σύμβασης», «άρθρου 5.1.1.1 του Διεθνούς Προτύπου»: a clause of a numbered document
_DECIMAL = re.compile(r"\.\d")
# «Άρθρο 59 Διαδικαστικοί κανόνες Άρθρο 60 …», «Άρθρα 86 – 93 (Καταργούνται)»: an article's heading (a table of
# contents, an embedded article), not a reference; a reference in running text is written «το άρθρο 5»
_HEADING = re.compile(r"Άρθρ[οα]\s")
# «του άρθρου 292 Β», «άρθρο 327 Α»: a letter suffix written apart from the number
_SPACED_SUFFIX = re.compile(r"\s([Α-Ω])(?![\wΆ-ώ])")
# what may follow a spaced suffix for it to be read even where the corpus lacks the article («το άρθρο 82 Α,»,
# «82 Α του»): punctuation or a lower-case word; «Η», «Ο» before a capital start a sentence (v13)
_SUFFIX_ENDS = re.compile(r"(?=[,;)]|\.\s|\s+[α-ωά-ώ])")
# «η παρ. 1 του άρθρου», «της παρ. 2 περ. β΄ του άρθρου», «των παρ. 1 και 2 του άρθρου»: a paragraph before
_PAR_BEFORE = re.compile(
    r"(?:παρ\.?|παραγρ\w*|§)\s*(?P<par>\d+)[α-ω]?(?:\.[α-ω]{1,2}\.?)?"
    r"(?:\s*(?:,|και|εωσ|-|–|η)\s*(?:των\s+)?(?:παρ\.?\s*)?\d+[α-ω]?)*(?:\s*επ\.)?"
    r"(?:\s*(?:εδ\.?|εδαφι\w*|περ\.?|περιπτ\w*|στοιχ\w*)\s*[\dα-ω]{1,3}[΄'’]?(?:\s*(?:,|και)\s*[\dα-ω]{1,3}[΄'’]?)*)*"
    r"\s*(?:του|στο)\s*$"
)
_NEIGHBOUR = re.compile(r"\b(?:του|το|στο)\s+(?P<which>προηγουμεν|επομεν)(?:ου|ο)\s+αρθρ(?:ου|ο)\b")
# «του άρθρου τριακοστού δεύτερου του ν. 4771/2021»: ratifying laws number their articles in words, compounds
# included (read only with a source after them, or the same number cited with one before: headings of embedded
# articles, «Άρθρο δέκατο έκτο Μετάκληση …», and acts of legislative content use the same words)
_ORDINAL_VALUES = {
    "τριακοσιοστ": 300, "διακοσιοστ": 200, "εκατοστ": 100, "ενενηκοστ": 90, "ογδοηκοστ": 80, "εβδομηκοστ": 70,
    "εξηκοστ": 60, "πεντηκοστ": 50, "τεσσαρακοστ": 40, "τριακοστ": 30, "εικοστ": 20, "δωδεκατ": 12, "ενδεκατ": 11,
    "δεκατ": 10, "ενατ": 9, "ογδο": 8, "εβδομ": 7, "εκτ": 6, "πεμπτ": 5, "τεταρτ": 4, "τριτ": 3, "δευτερ": 2,
    "πρωτ": 1,
}
_ORDINAL_WORD = "(?:" + "|".join(_ORDINAL_VALUES) + r")(?:ο|ου)\b"
_ORDINAL = re.compile(r"\bαρθρ(?:ο|ου)\s+(?P<ord>" + _ORDINAL_WORD + r"(?:\s+" + _ORDINAL_WORD + r"){0,2})")
# «της παρ. 5 του πέμπτου άρθρου του ν. 2275/1994»: the number before the noun (v11; with a source only)
_ORDINAL_BEFORE = re.compile(r"\b(?:του|το|στο)\s+(?P<ord>" + _ORDINAL_WORD + r"(?:\s+" + _ORDINAL_WORD + r"){0,2})"
                             r"\s+αρθρ(?:ου|ο)\b")


def _ordinal_value(words: str) -> int | None:
    """«τριακοστού δεύτερου» (folded) → 32; None where the words do not make one number (each smaller than the
    one before: «πρώτου δεύτερου» is no ordinal)."""
    total, last = 0, 1000
    for word in words.split():
        value = next(v for stem, v in _ORDINAL_VALUES.items() if word.startswith(stem))
        if value >= last:
            return None
        total, last = total + value, value
    return total


# a clause ends at a semicolon, a new line, a full stop before a new sentence, or a colon that opens no list
# (v13: not at a line break right after a designator's abbreviation, «την περ.\nε΄ του άρθρου 31»)
_BOUNDARY = re.compile(r";|(?<![Ππ]ερ\.)(?<![Ππ]αρ\.)(?<![Εε]δ\.)\n(?![α-ωά-ώ]{2,}\s|ν\.\s?\d|π\.δ\.)|\.(?=\s+[Α-ΩΆ-Ώ](?:[α-ωά-ώ]|\s))|:(?!\s*(?:[α-ω]{1,2}|\d{1,2})[).΄’'])")
_WINDOW_AFTER = 160
# «…, όπως ισχύει/αντικαταστάθηκε με …», «…, που προστέθηκε με …», «…, περί …», «…, όπου …»: what describes a reference
_DESCRIBED = re.compile(r"\s*(?:\([^)]{0,60}\)\)?\s*)?(?:,\s*(?:οπωσ|που|περι|οπου|(?:(?:με|απο|για|κατα|σε)\s+)?"
                        r"(?:η|ο|το|οι|τα|την|τον|τισ|τουσ)\s+οποι\w*)|περι)\s")
# the words that may stand between two references joined into one (designators, articles, a title's nouns)
_JOINING_WORD = re.compile(r"(?:παρ|περ|υποπερ|υποπαρ|εδαφ|στοιχ|αρθρ|πρωτ|δευτερ|τριτ|τεταρτ|πεμπτ|εκτ|τελευται|στην|στον|"
                           r"στισ|στουσ|τουσ|καθωσ|επισησ|ιδιου|ιδιασ|αυτου|αυτησ|οπωσ|ισχυει|αντιστοιχ|τροποποιησ|"
                           r"αντικαταστασ|προσθηκ|συμπληρωσ|καταργησ)")
_SUBJECT_BEFORE = re.compile(r"(?<!\w)(?:το|τα|η|οι)\s+$")
_SUBJECT_REACH = 400
# «και η παρ. 4 διαμορφώνεται ως εξής», «η παρ. 2 τροποποιείται»: a paragraph with no article before an amendment verb
# (v13: a lettered paragraph too, «η παρ. Δ διαμορφώνεται»)
_FOLLOW_UP = re.compile(r"(?<![\w.])(?:(?:η|οι)\s+(?P<span>παρ(?:\.|αγραφοσ|αγραφοι)?\s*(?P<par>\d+[α-ω]?|[α-ω](?!\w))"
                        r"(?:\s*(?:,|και)\s*\d+[α-ω]?)*)|το\s+(?P<article>αρθρο))\s+")
_FOLLOW_UP_REACH = 600
# «Στο άρθρο 31 του ν. 4756/2020, τροποποιείται η παρ. 3 …, προστίθεται παρ. 4 και …»: an amendment verb, then a
# paragraph with no article of its own (v13)
_VERB_THEN_PARAGRAPH = re.compile(
    r"\b" + _VERB_WORDS + r"\s+(?:(?:η|οι)\s+)?(?P<span>παρ(?:\.|αγραφοσ|αγραφοι)?\s*(?P<par>\d+[α-ω]?))(?![\d\w])"
    r"(?!\s*(?:,|και|εωσ)\s*\d|\s+(?:του|τησ|των|στο|στον|στην|στα)\s)")
# «της περ. γ’ της παρ. 3 του ως άνω άρθρου»: the article cited last before it (v13)
_ABOVE_ARTICLE = re.compile(r"\b(?:του|το|στο)\s+(?P<at>(?:ωσ\s+ανω|ανωτερω|εν\s+λογω|προαναφερθεντοσ|προαναφερομενου)"
                            r"\s+αρθρ(?:ου|ο))\b")
# «Στο εσωτερικό άρθρο 85 του άρθρου 2 του ν. 4335/2015»: the article of a code a law ratified in one article, then
# that outer article (which the corpus holds)
_OUTER_OF_INNER = re.compile(r"εσωτερικ\w*\s+αρθρ\w*\s+\d+[α-ω]?\s+(?:του|τησ)\s+$")
# a finite verb, folded («χορηγειται», «εξακολουθουν», «ισχυει», «προβλεφθηκε»); «δυναμει», «εν γενει» are none
_FINITE = re.compile(r"\b(?!δυναμει\b|γενει\b)[α-ω]{3,}(?:εται|ονται|ουνται|ειται|ιται|ωνται|αται|ει|ουν|ηκε|ηκαν)\b")
_DESCRIPTIVE = re.compile(r"[\s,(]*(?:οπωσ|που|οπου|περι|ωσ|(?:(?:η|ο|το|οι|τα|τησ|του|των)\s+)?οποι\w*)\b")
# «… του Π.Κ.\n5. Όποιος …»: a citation whose last line is only a number took the next paragraph's number
_NEXT_PARAGRAPH = re.compile(r"\n\s*\d+[α-ωΑ-Ω]?$")
_DESCRIBED_AFTER = 400
_SENTENCE_END = re.compile(r";|\n|\.(?=\s+[Α-ΩΆ-Ώ])")
_LIST_AFTER = 600  # «Στο άρθρο 20 του ν. 4014/2011 (Α΄ 209): α) στην περ. (α) … αντικαθίσταται …»: a list of changes
_OPENS_LIST = re.compile(r"\s*(?:\([^)]{0,40}\)\s*)?,?\s*:")
# «υπ’ αρ. 116/1868 του Εφετείου», «αρ. 12/2020 απόφαση»: a numbered decision, not an article
_DECISION = re.compile(r"/\s*\d")
_DECISION_BEFORE = re.compile(r"\bυπ\W{0,2}\s*$")
# «Προστίθεται στοιχείο με αρ. 11»: a numbered item of a list, not an article
_ITEM_NUMBER_BEFORE = re.compile(r"\b(?:στοιχει|σημει|κωδικ|θεσ|εγγραφ)\w*\s+(?:με\s+)?$")
# «το εσωτερικό άρθρο 59»: an article inside a corpus article (a code a law ratified), no corpus article itself
_INSIDE_BEFORE = re.compile(r"\bεσωτερικ\w*\s+$")
# «Ο ν. 3689/2008 (Α’ 164), με εξαίρεση τα άρθρα 47, 48»: the articles a clause keeps of the law it names
_EXCEPT_GAP = re.compile(r"\s*(?:\([^)]{0,40}\))?\s*,?\s*(?:με\s+εξαιρεση|εκτοσ(?:\s+απο)?|πλην)\s+(?:τ\w{1,3}\s+)?$")
# «απαλείφονται οι λέξεις», «απαλείφεται η αναφορά στο άρθρο 394»: words struck out, an amendment of the provision
_WORDS_OBJECT = re.compile(r"\s+(?:η|οι|το|τα)\s+(?:λεξ\w*|φρασ\w*|αναφορ\w*|παραπομπ\w*|φρασεισ)")
_PARENTHESES = re.compile(r"\([^()]{0,40}\)")  # «(Α’ 147)», «(Καταργούνται)»: a note, not the clause's verb
# a verb whose agent is a provision («τροποποιείται με την παρ. 1 του άρθρου 8», «προστίθεται με το άρθρο 11 του
# παρόντος»): it says what another provision does to the reference, not what this clause does
_BY_PROVISION = re.compile(r"\s+με\s+(?:την|το|τον|τα|τισ|τουσ)\s+(?:παρ|αρθρ|περ|εδ|ν\.|π\.\s?δ|παροντ)")
_WINDOW_BEFORE = 45  # a verb before a reference governs it only from close by («Καταργείται το άρθρο 5»)


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


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """The outermost «…» spans (nested quotes inside them belong to them; an unclosed quote runs to the end)."""
    spans: list[tuple[int, int]] = []
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch == "«":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "»" and depth:
            depth -= 1
            if depth == 0:
                spans.append((start, i + 1))
    if depth:
        spans.append((start, len(text)))
    return spans


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)


def _is_foreign(folded: str, end: int) -> bool:
    """Whether an article list without a source is followed by one the resolver does not know («άρθρο 5 του
    Κανονισμού (ΕΕ) 2016/679», «της υπ' αριθμ. … απόφασης», «του ν.δ. 1234/1970»)."""
    return bool(_FOREIGN.match(folded, end))


def _named_law_after(folded: str, end: int) -> str | None:
    """The law in the parentheses after a source named in words («άρθρο 62 του Κώδικα Οργανισμού Δικαστηρίων (ν.
    1756/1988, Α΄ 35)»), or None (no parentheses, or they name no law: «του Κανονισμού (ΕΕ) 2016/679»)."""
    m = _NAME_THEN_PARENTHESES.match(folded, end)
    named = source_at(folded, m.end()) if m else None
    return named[0] if named else None


def _paragraph_before(folded: str, start: int) -> tuple[str, int] | None:
    """A paragraph written before the article word («η παρ. 1 του άρθρου 372»): (paragraph, where it starts)."""
    window_start = max(0, start - 80)
    m = _PAR_BEFORE.search(folded[window_start:start])
    return (m.group("par"), window_start + m.start()) if m else None


def _masked(folded: str, quotes: list[tuple[int, int]]) -> str:
    """``folded`` with quoted text blanked (same length): a verb inside new wording or a quoted phrase types
    nothing, and a short quoted phrase («κάθε κάτοχο») does not end the clause around it."""
    chars = list(folded)
    for a, b in quotes:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


def _clause_start(text: str, begin: int, start: int) -> int:
    ends = [m.end() for m in _BOUNDARY.finditer(text, begin, start)]
    return ends[-1] if ends else begin


def _verb(masked: str, a: int, b: int) -> str | None:
    m = _VERBS.search(masked, a, b)
    return m.lastgroup if m else None


def _amendment_kind(text: str, masked: str, start: int, end: int, prev_end: int, next_start: int,
                    list_kind: str | None) -> str:
    """The kind of edge a group of references is («Η παρ. 1 του άρθρου 5 και η παρ. 2 του άρθρου 6
    αντικαθίστανται»: one group, one kind): an amendment verb in its own clause after it («Το άρθρο 5 …
    αντικαθίσταται ως εξής»), else a title's noun right before it («Τροποποίηση της παρ. 1 του άρθρου 7»), else a
    verb close before it («Καταργείται το άρθρο 5»), else the verb over the list it stands in, else cited."""
    stop = min(next_start, end + _WINDOW_AFTER, len(masked))
    if _OPENS_LIST.match(masked, end):
        stop = min(end + _LIST_AFTER, len(masked))
    elif _DESCRIBED.match(masked, end):
        # «Η παρ. 4 του άρθρου 18 του ν. 2882/2001, όπως αντικαταστάθηκε με την περ. ε΄ του άρθρου 31 του ν. 3130/2003,
        # αντικαθίσταται»: the verb comes after what describes the reference, whatever other references that names
        stop = min(end + _DESCRIBED_AFTER, len(masked))
    b = _BOUNDARY.search(text, end, stop)
    kind = _kind_after(_PARENTHESES.sub(lambda m: " " * len(m.group(0)), masked[:stop]), end, b.start() if b else stop)
    if kind:
        return kind
    noun = _NOUN_BEFORE.search(masked, max(0, start - 120), start)
    if noun:
        return noun.lastgroup or "cites"
    begin = max(start - _WINDOW_BEFORE, prev_end, 0)
    return _verb(masked, _clause_start(text, begin, start), start) or _subject_of(text, masked, start, end) \
        or list_kind or "cites"


def _subject_of(text: str, masked: str, start: int, end: int) -> str | None:
    """The kind of a verb that opens a clause whose subjects are listed, this reference among them: «καταργούνται τα
    άρθρα 7 έως 15 … του ν. 3852/2010 (Α’ 87), περί …, καθώς και τα άρθρα 19 έως και 74 του ν. 3463/2006» (v10).
    Only a reference written as a subject («τα άρθρα», «η παρ.»), with no verb of its own after it and none between."""
    if not _SUBJECT_BEFORE.search(masked, max(0, start - 12), start):
        return None
    verbs = list(_VERBS.finditer(masked, _clause_start(text, max(0, start - _SUBJECT_REACH), start), start))
    if not verbs or _verb_between(masked, verbs[-1].end(), start):
        return None
    after = re.search(r",|$", masked[end:end + 200]).start()
    return None if _verb_between(masked, end, end + after) else verbs[-1].lastgroup


def _kind_after(masked: str, a: int, b: int) -> str | None:
    """The kind the verbs after a reference give it: one verb's kind; "amends" where the clause makes several kinds
    of change («η περ. β’ … αντικαθίσταται, προστίθεται παρ. 5 και … διαμορφώνεται», «α) στην παρ. 3 προστίθεται …,
    β) τροποποιείται η παρ. 6») or deletes words rather than the provision («απαλείφονται οι λέξεις «…»»)."""
    kinds, formula = set(), False
    for m in _VERBS_AFTER.finditer(masked, a, b):
        if _BY_PROVISION.match(masked, m.end()):
            continue  # «όπως η περίπτωση αυτή τροποποιείται με την παρ. 1 του άρθρου 8 του παρόντος»: describes it (v13)
        if m.group(0).startswith("διαμορφων"):
            formula = True  # «… και το άρθρο 5 διαμορφώνεται ως εξής» closes a change of any kind: the others type it
            continue
        kind = m.lastgroup or "cites"
        kinds.add("amends" if kind == "repeals" and _WORDS_OBJECT.match(masked, m.end()) else kind)
    if len(kinds) > 1:
        return "amends"
    return kinds.pop() if kinds else ("amends" if formula else None)


def _opens_with_title_tail(text: str, start: int) -> bool:
    head = text[:start].strip()
    first = (head or text.strip())[:1]
    return len(head) <= 40 and first.islower()


def _later_kinds(text: str, masked: str, groups: list[list[Citation]], lists: list[_List]):  # noqa: ANN202
    """(kind, ids) of the groups after the first that are amendments, in reading order."""
    for g in range(1, len(groups)):
        group = groups[g]
        start, end = group[0].start, max(c.end for c in group)
        next_start = groups[g + 1][0].start if g + 1 < len(groups) else len(masked)
        kind = _amendment_kind(text, masked, start, end, max(c.end for c in groups[g - 1]), next_start, None)
        if kind in AMENDMENT_KINDS:
            yield kind, {c.id for c in group}


def _groups(text: str, masked: str, raw: list[Citation]) -> list[list[Citation]]:
    """References joined by «και» or a comma with nothing but articles and paragraphs between («των παρ. 4 του
    άρθρου 87 και των παρ. 3 του άρθρου 89»; a list «άρθρα 1 έως 60» is one span already): one group each."""
    groups: list[list[Citation]] = []
    for c in raw:
        if groups:
            last = groups[-1][-1]
            gap = masked[last.end:c.start]
            if c.start <= last.start or (len(gap) <= 60 and re.search(r"\b(?:και)\b|,", gap)
                                         and not _BOUNDARY.search(text, last.end, c.start)
                                         and not _VERBS.search(gap) and not _CITED_BY_WORDS.search(gap)):
                groups[-1].append(c)
                continue
        groups.append([c])
    return groups


def _number_offset(article: str, delta: int) -> str | None:
    """The article ``delta`` places away: «του προηγούμενου άρθρου» in 208Α is 208 (in 208Β, 208Α); the one after
    a lettered article is not known from its number (208Β or 209), so none."""
    m = re.fullmatch(r"(\d+)([Α-Ω]?)", article)
    if not m:
        return None
    number, letter = int(m.group(1)), m.group(2)
    if letter:
        return (str(number) + ("" if letter == "Α" else chr(ord(letter) - 1))) if delta == -1 else None
    return str(number + delta) if number + delta > 0 else None


def _source_of_clause(text: str, masked: str, start: int) -> str | None:
    """For an article with no source of its own: the law or code its clause names before it with an amendment verb
    between («Στον ΠΚ προστίθεται άρθρο 398» is PK's article 398)."""
    begin = _clause_start(text, max(0, start - _WINDOW_BEFORE), start)
    named = sources_in(masked, begin, start)
    if named and _VERBS.search(masked, named[-1][2], start):
        return named[-1][0]
    return None


@dataclass(frozen=True)
class _List:
    """A list a colon opens: where it applies, the kind its verb gives (None: no verb), the source it names ("":
    none; _FOREIGN_LIST: a source the resolver cannot name, so an article without its own is no edge)."""

    start: int
    end: int
    kind: str | None
    source: str


_FOREIGN_LIST = "\x00foreign"
_LIST_OPENING = re.compile(r"(?<!\w)Στ(?:ο|ον|ην|η)\s")
_PROVISIONS_OF = re.compile(r"διαταξ\w*\s+(?:του|τησ|των)\s*$")
# a list item's line: «α)», «(β)», «αα)», «1.», «i)», «-»
_ITEM_LINE = re.compile(r"\s*(?:\(?[α-ωa-z0-9]{1,4}[΄'’]?\)|[α-ωa-z]{1,3}[΄'’]?\.|\d+[α-ω]?\.|[-–•])")


def _lists(text: str, folded: str, masked: str) -> list[_List]:
    """The lists of an article: «καταργούνται οι ακόλουθες διατάξεις του ν. 4070/2012:» makes every item below it
    a repeal of that law; «Στο π.δ. 40/2020 επέρχονται οι ακόλουθες τροποποιήσεις:» items amendments of that
    decree. A list runs to the next numbered paragraph when its own line is numbered, else to the end."""
    out: list[_List] = []
    for m in _LIST_COLON.finditer(masked):
        if re.search(r"ωσ\s+εξησ\s*$", masked[max(0, m.start() - 12):m.start()]):
            continue  # «ως εξής:» opens new wording (quoted or not), not a list
        begin = _clause_start(text, max(0, m.start() - 300), m.start())
        line = text.rfind("\n", 0, begin) + 1
        kind = _verb(masked, begin, m.start())
        # without a verb, the law a list belongs to is one its opening names after a capital «Στο/Στην» («Στο άρθρο
        # 20 του ν. 4014/2011 (Α΄ 209):») or as «διατάξεις του»; a law named as a yardstick in a clause that merely
        # ends in a colon («σύμφωνα με τα οριζόμενα στο άρθρο 84 του ν. 4727/2020: …») is not the items' law
        named = sources_in(masked, begin, m.start())
        if named and not kind and not (_LIST_OPENING.search(text, begin, named[-1][1])
                                       or _PROVISIONS_OF.search(masked, max(begin, named[-1][1] - 20), named[-1][1])):
            named = []
        source = named[-1][0] if named else (_FOREIGN_LIST if _FOREIGN_ACT.search(masked, begin, m.start()) else "")
        if not kind and not source:
            continue
        end = len(text)
        if _NUMBERED.match(text, max(0, line - 1)):  # from the newline before the line (v12: «^» is the text's start only)
            nxt = _NUMBERED.search(text, m.end())
            end = nxt.start() if nxt else end
        else:  # a list of its own runs over the item lines below it, to the first line that is no item
            at = text.find("\n", m.end())
            while at != -1 and _ITEM_LINE.match(folded, at + 1):
                at = text.find("\n", at + 1)
            end = len(text) if at == -1 else at
        out.append(_List(m.end(), end, kind, source))
    return out


def extract_references(article_id: str, text: str, resolver: IdResolver, own_source: str) -> list[Reference]:
    """Every reference of the article ``article_id`` (whose law is ``own_source``), in reading order.

    One :class:`Reference` per cited article (a list or range gives one each); references inside quoted new
    wording are left out, as are references to the article itself and to sources the resolver cannot name."""
    folded = fold(text)
    quotes = quoted_spans(text)
    masked = _masked(folded, quotes)
    lists = _lists(text, folded, masked)
    own_number = article_id.split("::", 1)[1] if "::" in article_id else ""
    candidates = find_citations(text, default_source=_SELF)
    inner = [c for c in candidates if c.source == _SELF and not _inside(c.start, quotes)
             and _INSIDE_BEFORE.search(folded, max(0, c.start - 16), c.start) and not _INNER.match(folded, c.end)]
    found = [c for c in candidates
             if not _inside(c.start, quotes) and not _NOT_ARTICLE.search(folded, max(0, c.start - 20), c.start)
             and not (_NEXT_PARAGRAPH.search(text, c.start, c.end) and text[c.end:c.end + 1] == ".")
             and not _DECIMAL.match(text, c.end)
             and not (c.source == _SELF and _HEADING.match(text, c.start))
             and not (c.source == _SELF and (_DECISION.match(folded, c.end)
                                             or _DECISION_BEFORE.search(folded, max(0, c.start - 6), c.start)
                                             or _ITEM_NUMBER_BEFORE.search(folded, max(0, c.start - 24), c.start)
                                             or _INSIDE_BEFORE.search(folded, max(0, c.start - 16), c.start)))]
    in_words: list[Citation] = []
    for m in sorted([*_ORDINAL.finditer(masked), *_ORDINAL_BEFORE.finditer(masked)], key=lambda m: m.start()):
        number = _ordinal_value(m.group("ord"))
        if number is None or any(c.start <= m.start() < c.end for c in found):
            continue
        named = source_at(folded, m.end())
        if named:
            start = m.start("ord") if m.re is _ORDINAL_BEFORE else m.start()
            in_words.append(Citation(named[0], str(number), "", start, named[2]))
            continue
        if m.re is _ORDINAL_BEFORE:
            continue
        # «η περ. β) της παρ. 5 του άρθρου εξηκοστού πέμπτου διαμορφώνεται»: the law it was named with, in words,
        # before in its paragraph (not a heading «Άρθρο ενδέκατο Συμβάσεις …»)
        before = [c for c in in_words if c.article == str(number) and c.source != own_source
                  and "\n" not in text[c.end:m.start()]]
        if before and not _HEADING.match(text, m.start()):
            in_words.append(Citation(before[-1].source, str(number), "", m.start(), m.end()))
    found += in_words
    for m in _NEIGHBOUR.finditer(masked):
        number = _number_offset(own_number, -1 if m.group("which") == "προηγουμεν" else 1)
        if number:
            found.append(Citation(own_source, number, "", m.start(), m.end()))
    found.sort(key=lambda c: (c.start, c.end))
    raw: list[Citation] = []
    explicit: dict[str, tuple[str, int]] = {}  # article number -> the external source it was last cited with, where
    last_external: str | None = None
    for i, c in enumerate(found):
        source = c.source
        within = next((x for x in reversed(lists) if x.start <= c.start < x.end and x.source), None)
        in_list = any(x.start <= c.start < x.end for x in lists)
        if source == _SELF:
            source = _source_of_bare(text, folded, masked, c, found[i + 1:], within, in_list, explicit,
                                     last_external, own_source)
            if not source:
                continue
        elif source != own_source:
            explicit[c.article] = (source, c.end)
            last_external = source
        article, end = c.article, c.end
        last_of_list = i + 1 == len(found) or (found[i + 1].start, found[i + 1].end) != (c.start, c.end)
        suffix = _SPACED_SUFFIX.match(text, c.end) if c.source == _SELF and article.isdigit() and last_of_list else None
        if suffix and (resolver.resolve(f"{source}::{article}{suffix.group(1)}")
                       or (suffix.group(1) not in "ΗΟ" and _SUFFIX_ENDS.match(text, suffix.end()))):
            article, end = article + suffix.group(1), suffix.end()
        paragraph, start = c.paragraph, c.start
        before = _paragraph_before(folded, c.start)
        if before:
            paragraph, start = paragraph or before[0], before[1]
        raw.append(Citation(source, article, paragraph, start, end))
    out: list[Reference] = []
    groups = _groups(text, masked, raw)
    for g, group in enumerate(groups):
        start, end = group[0].start, max(c.end for c in group)
        prev_end = max(c.end for c in groups[g - 1]) if g else 0
        next_start = groups[g + 1][0].start if g + 1 < len(groups) else len(folded)
        within = next((x for x in reversed(lists) if x.start <= start < x.end and x.kind), None)
        kind = _amendment_kind(text, masked, start, end, prev_end, next_start, within.kind if within else None)
        if g == 0 and kind == "cites" and _opens_with_title_tail(text, start):
            # «της παρ. 1 του άρθρου 25 του ν. 4549/2018 Στο τέλος της παρ. 1 … προστίθενται»: the text opens with
            # the end of its title («… - Τροποποίηση και συμπλήρωση»), which names what the body then amends
            ids = {c.id for c in group}
            kind = next((k for k, later in _later_kinds(text, masked, groups, lists) if ids & later), kind)
        for c in group:
            lead = _DESIGNATOR_BEFORE.search(masked, max(0, c.start - 30), c.start)
            at = lead.start() if lead else c.start
            cited = "cites" if _CITED_BY_WORDS.search(masked, max(0, at - 30), at) \
                or _MODIFIES_NOUN.search(masked, max(0, c.start - 80), c.start) \
                or _CONTRARY_TO.search(masked, max(0, c.start - 60), c.start) else kind
            target = resolver.resolve(c.id) or ""
            if target == article_id or c.id == article_id:
                continue
            out.append(Reference(article_id, target, c.id, cited, c.paragraph or None, c.start, c.end))
    return _with_follow_ups(out, text, masked, inner)


def _last_before(out: list[Reference], text: str, at: int) -> Reference | None:
    """The reference that ends last before ``at`` in the same paragraph of text, close by, or None."""
    before = [r for r in out if r.end <= at and at - r.end <= _FOLLOW_UP_REACH and "\n" not in text[r.end:at]]
    return max(before, key=lambda r: (r.end, r.start)) if before else None


def _kind_between(out: list[Reference], text: str, masked: str, start: int, end: int, prev_end: int) -> str:
    """The kind of an edge added at ``start:end`` after the references were grouped, read as a group's is, with
    ``prev_end`` the end of the reference before it and the next reference's start as its reach."""
    next_start = min((r.start for r in out if r.start >= end), default=len(masked))
    return _amendment_kind(text, masked, start, end, prev_end, next_start, None)


def _with_follow_ups(out: list[Reference], text: str, masked: str, inner: list[Citation]) -> list[Reference]:
    """«Το πρώτο εδάφιο της παρ. 4 του άρθρου 2 του ν. 4081/2012 … τροποποιείται … και η παρ. 4 διαμορφώνεται ως
    εξής»: a paragraph named with no article, as the subject of an amendment verb, is that paragraph of the article
    last amended before it, in the same paragraph of text, at that paragraph (v10); with none, it is no edge (in «Στο
    άρθρο 14 … α) η παρ. 1 τροποποιείται … την παραπομπή στα άρθρα 20-23 του ν. 4735/2020, β) η παρ. 2 …» the
    paragraphs are article 14's, not the last-named law's).

    v13: a paragraph that differs from the amended one is still that article's when no other reference stands
    between («Οι παρ. 1 και 3 του άρθρου 47 … τροποποιούνται …, η παρ. 2 τροποποιείται»), and so is one after the
    verb («Στο άρθρο 31 …, τροποποιείται η παρ. 3 …, προστίθεται παρ. 4»); «του ως άνω άρθρου» is the article cited
    last before it; an article inside a ratified code's article («μετά το εσωτερικό άρθρο 45α του παρόντος») is an
    edge to that outer article, named before it in its paragraph."""
    added = []
    for m in _FOLLOW_UP.finditer(masked):
        verb = _VERBS.match(masked, m.end())
        whole = m.group("article") is not None  # «… και το άρθρο διαμορφώνεται ως εξής» (v11): the article itself
        par = (m.group("par") or "").upper() or None
        amended = [r for r in out if r.end <= m.start() and r.kind in AMENDMENT_KINDS
                   and (whole or r.paragraph == par)
                   and m.start() - r.end <= _FOLLOW_UP_REACH and "\n" not in text[r.end:m.start()]]
        last = max(amended, key=lambda r: r.end) if amended else _last_before(out, text, m.start())
        if verb and last and last.kind in AMENDMENT_KINDS and (amended or not whole):
            span = "article" if whole else "span"
            added.append(dataclasses.replace(last, kind=verb.lastgroup or "amends", paragraph=par,
                                             start=m.start(span), end=m.end(span)))
    for m in _VERB_THEN_PARAGRAPH.finditer(masked):
        last = _last_before(out, text, m.start())
        if last and last.kind in AMENDMENT_KINDS and not any(r.start <= m.start("span") < r.end for r in out):
            kind = next(k for k in AMENDMENT_KINDS if m.group(k))
            added.append(dataclasses.replace(last, kind=kind,
                                             paragraph=m.group("par").upper(), start=m.start("span"),
                                             end=m.end("span")))
    for m in _ABOVE_ARTICLE.finditer(masked):
        last = _last_before(out, text, m.start())
        if last:
            before = _paragraph_before(masked, m.start("at"))
            start = before[1] if before else m.start("at")
            added.append(dataclasses.replace(last, kind=_kind_between(out, text, masked, start, m.end(), last.end),
                                             paragraph=before[0] if before else None, start=start, end=m.end()))
    for c in inner:
        outer = [r for r in out if r.end <= c.start and "\n" not in text[r.end:c.start]
                 and _OUTER_OF_INNER.search(masked, max(0, r.start - 60), r.start)]
        if outer:
            last = max(outer, key=lambda r: r.end)
            added.append(dataclasses.replace(last, kind=_kind_between(out, text, masked, c.start, c.end, last.end),
                                             paragraph=None, start=c.start, end=c.end))
    return sorted(out + added, key=lambda r: (r.start, r.end)) if added else out


def _source_of_bare(text: str, folded: str, masked: str, c: Citation, later: list[Citation], within: _List | None,
                    in_list: bool, explicit: dict[str, tuple[str, int]], last_external: str | None,
                    own_source: str) -> str | None:
    """The source of an article cited without one, or None for no edge. In order: an article inside an article
    (none: the outer one is read on its own); «του παρόντος» (the own law); «του νόμου αυτού» (the law its sentence
    named, else the own); «του ίδιου / του εν λόγω νόμου» (the law named last); a source the resolver cannot name
    (the law in parentheses after it, else none); «στον ν. 4276/2014» after it; the next reference's source when
    they are joined («της παρ. 3 του άρθρου 977 και η παρ. 2 του άρθρου 977Α του ΚΠολΔ»); the source of the list it
    stands in; the source it was cited with before in its paragraph (an amending article's «το άρθρο 15
    διαμορφώνεται»); the law its clause amends («Στον ΠΚ προστίθεται άρθρο 398»); else the citing article's own
    law, unless its sentence names another (none)."""
    if _INNER.match(folded, c.end):
        return None
    if _OWN_AFTER.match(folded, c.end):
        return own_source
    if _THIS_LAW_AFTER.match(folded, c.end):
        named = [n for n in sources_in(masked, _clause_start(text, max(0, c.start - 300), c.start), c.start)
                 if n[0] != own_source]
        return named[-1][0] if named else own_source
    same = _SAME_AS_BEFORE.match(folded, c.end) or _NAMED_BEFORE.match(folded, c.end)
    if same:
        if _FOREIGN_ACT_AFTER.match(folded, same.end()):  # «του ίδιου Κανονισμού», «της εν λόγω Οδηγίας»: no law of ours
            return None
        named = [n for n in sources_in(masked, 0, c.start) if n[0] != own_source]
        return named[-1][0] if named else (last_external or own_source)
    kept = [n for n in sources_in(masked, max(0, c.start - 80), c.start) if _EXCEPT_GAP.fullmatch(folded, n[2], c.start)]
    if kept:
        return kept[-1][0]
    if _is_foreign(folded, c.end):
        # «του Κώδικα Δήμων και Κοινοτήτων (ν. 3463/2006, Α΄ 114)»: a source named in words, then by its law
        return _named_law_after(folded, c.end)
    into = _INTO.match(folded, c.end)
    named = source_at(folded, into.end()) if into else None
    if named:
        return named[0]
    ahead = next((f for f in later if f.source != _SELF and f.start >= c.end), None)
    reach = 200 if in_list else 60  # a list item names its law once, at its end
    if ahead and ahead.start - c.end <= reach and "\n" not in text[c.end:ahead.start] \
            and re.search(r"\b(?:και|,)", folded[c.end:ahead.start]) \
            and not _BOUNDARY.search(text, c.end, ahead.start) and not _VERBS.search(masked, c.end, ahead.start) \
            and not _verb_between(masked, c.end, ahead.start) and _only_references_between(masked, c.end, ahead.start):
        return ahead.source
    if within and within.source:
        return None if within.source == _FOREIGN_LIST else within.source
    carried = explicit.get(c.article)  # within its paragraph only: the next one may cite the own law's article 15
    if carried and "\n" not in text[carried[1]:c.start]:
        return carried[0]
    clause = _source_of_clause(text, masked, c.start)
    if clause:
        return clause
    # the own law only where the sentence names no other: in «… της παρ. 4 του άρθρου 18, … και της παρ. 7 του άρθρου
    # 23, περί μεταβατικών διατάξεων του ν. 4602/2019» a bare article may be either law's, and no edge is better
    # than a wrong one (measured: such edges were right about three times in four, the rest about 49 in 50)
    begin = _clause_start(text, max(0, c.start - 400), c.start)
    stop = _SENTENCE_END.search(text, c.end)
    others = [n for n in sources_in(masked, begin, stop.start() if stop else len(text)) if n[0] != own_source]
    if not others:
        return own_source
    # v9: the own law still where syntax decides it: every other law comes after the reference, and a verb of the
    # sentence's own stands between them («… μετά από εισήγηση της Επιτροπής του άρθρου 13, να χορηγείται …
    # κατά παρέκκλιση του άρθρου 21 του ν. 4354/2015»), so the other law closes a clause of its own rather than a
    # list the reference stands in («της παρ. 7 του άρθρου 23, περί μεταβατικών διατάξεων του ν. 4602/2019»)
    if others[0][1] >= c.end and _verb_between(masked, c.end, others[0][1]):
        return own_source
    return None


def _only_references_between(masked: str, a: int, b: int) -> bool:
    """Whether ``masked[a:b]`` joins two references and nothing else (v11): «του άρθρου 5 και της παρ. 2 του», «του
    άρθρου 23, περί μεταβατικών διατάξεων, του»; not «του άρθρου 80 και την εισφορά της περ. ε’ … του», where a noun
    of its own starts a new item whose law the later one names."""
    gap = _PARENTHESES.sub(" ", masked[a:b])
    gap = re.sub(r",?\s*περι\s[^,]*", " ", gap)
    return all(_JOINING_WORD.match(w) for w in re.findall(r"[α-ω]{4,}", gap))


def _verb_between(masked: str, a: int, b: int) -> bool:
    """Whether a finite verb stands in ``masked[a:b]`` outside what only describes the reference before it («,
    όπως ισχύει,», «, που προστέθηκε με …»)."""
    for m in _FINITE.finditer(masked, a, b):
        segment = max(masked.rfind(",", a, m.start()), masked.rfind("(", a, m.start()), a)
        if not _DESCRIPTIVE.match(masked, segment, m.start()):
            return True
    return False


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
