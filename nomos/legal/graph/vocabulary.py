"""The words the legal graph's extractor reads statute text with: regular expressions over folded text (lowercase,
no accents, final sigma as sigma; ``nomos.legal.text.citations.fold``), the word lists they are built from, and the
reaches (in characters) within which one word governs another.

The rules that walk a text with them are in ``nomos.legal.graph.references`` (an article's references),
``nomos.legal.graph.clauses`` (the clause around a reference: its bounds, its verbs, the lists a colon opens)
and ``nomos.legal.graph.sources`` (the law of an article cited without one). A change here changes what is
extracted: bump ``REFERENCES_VERSION`` in ``nomos.legal.graph.references`` with it.
"""

from __future__ import annotations

import re

KINDS = ("cites", "amends", "replaces", "inserts", "repeals")
AMENDMENT_KINDS = frozenset(KINDS[1:])

# Markers the readers share: find_citations' default source for a citation that named no source of its own, and
# the source of a list whose law the resolver cannot name (an article in it without a source of its own is no edge)
SELF = "\x00self"
FOREIGN_LIST = "\x00foreign"

# Amendment verbs (folded), present tense as the amending clause writes them; the past («τροποποιήθηκε») only
# describes the cited article and is no amendment, and neither is a verb after «να» («με απόφαση … δύναται να
# τροποποιείται το ποσό των παραβόλων του άρθρου 22»: a power to amend later, by another act; v15). The nouns of a title («Τροποποίηση της παρ. 1 του άρθρου 7»)
# and «επέρχονται οι εξής τροποποιήσεις» type the edge the same way.
_VERB_WORDS = (
    r"(?<!οπωσ )(?<!να )(?:(?P<amends>τροποποιειται|τροποποιουνται|διαμορφωνεται|διαμορφωνονται|"
    r"αναριθμειται|αναριθμουνται|αναδιατυπωνεται|αναδιατυπωνονται|(?<=εξησ )τροποποιησεισ|(?<=ακολουθεσ )τροποποιησεισ|(?<=εξησ )αλλαγεσ|(?<=ακολουθεσ )αλλαγεσ)"
    r"|(?P<replaces>αντικαθισταται|αντικαθιστανται)"
    r"|(?P<inserts>προστιθεται|προστιθενται|παρεμβαλλεται|παρεμβαλλονται)"
    r"|(?P<repeals>καταργειται|καταργουνται|απαλειφεται|απαλειφονται))"
)
VERBS = re.compile(r"\b" + _VERB_WORDS + r"\b")
# a title's noun right before what it names («Τροποποίηση της παρ. 1 του άρθρου 7», «Αντικατάσταση της περ. ιβ’ του»);
# in running text, after an article, it names an act («εξαιρεθούν από την κατάργηση των άρθρων 27 και 29»; v15)
NOUN_BEFORE = re.compile(
    r"\b(?<!η )(?<!την )(?<!τη )(?<!τησ )(?<!στην )(?<!στη )(?:(?P<amends>τροποποιηση|τροποποιησεισ)|(?P<replaces>αντικατασταση)|(?P<inserts>προσθηκη)|"
    r"(?P<repeals>καταργηση))\s+(?:τ\w{1,3}\s+)?(?:(?:(?:περ|παρ|εδ|υποπερ|στοιχ)\w*\.?\s*[\dα-ω]{1,3}[΄'’)]?"
    r"(?:\s*(?:,|και)\s*[\dα-ω]{1,3}[΄'’)]?)*|(?:εδαφι|νε|τελευται|πρωτ|δευτερ|τριτ|τεταρτ|πεμπτ|εκτ)\w*(?:\s+και)?)"
    r"\s+(?:τ\w{1,3}\s+|στο\s+|στην\s+)?)*$"
)
# after a reference only a verb types it (or «επέρχονται οι εξής τροποποιήσεις»): a noun after it describes it
# («όπως ισχύει μετά την τροποποίησή του»), and so does «όπως» before a verb («όπως τροποποιούνται με τον παρόντα,
# εφαρμόζονται»)
VERBS_AFTER = re.compile(
    r"\b(?<!οπωσ )(?<!να )(?:(?P<amends>τροποποιειται|τροποποιουνται|διαμορφωνεται|διαμορφωνονται|"
    r"αναριθμειται|αναριθμουνται|αναδιατυπωνεται|αναδιατυπωνονται|διορθωνεται|(?<=εξησ )τροποποιησεισ|(?<=ακολουθεσ )τροποποιησεισ|(?<=εξησ )αλλαγεσ|(?<=ακολουθεσ )αλλαγεσ)"
    r"|(?P<replaces>αντικαθισταται|αντικαθιστανται)"
    r"|(?P<inserts>προστιθεται|προστιθενται|παρεμβαλλεται|παρεμβαλλονται)"
    r"|(?P<repeals>καταργειται|καταργουνται|απαλειφεται|απαλειφονται))\b"
)
# what opens a list: a colon («καταργούνται οι ακόλουθες διατάξεις του ν. 4070/2012:», «Στο π.δ. 40/2020 επέρχονται οι
# ακόλουθες τροποποιήσεις:», «… του ανωτέρω Κανονισμού, οι εξής:»), not before new wording («ως εξής: «…»»), or a
# comma that ends a line before lettered items («1. Στο άρθρο 95 του ν. 4070/2012 (Α’ 82),\nα) η περ. α’ της παρ. 3
# τροποποιείται …»; v15)
LIST_OPENER = re.compile(r":(?!\s*«)|,(?=[ \t]*\n[ \t]*(?:\(?[α-ω]{1,3}[΄'’]?\)|[α-ω]{1,2}[΄'’]?\.)\s)")
# a clause that opens an item with the provision it changes («1. Στο άρθρο 95 …», «Στην παρ. 2 …», «β) Στο …»; v15)
ITEM_OPENING = re.compile(r"\s*(?:\d+[α-ω]?[.)]\s*|\(?[α-ω]{1,3}[΄'’]?\)\s*)?Στ(?:ο|ον|ην|η|α|ις)\s")
# an item right after «ως εξής:» («Το π.δ. 54/2018 τροποποιείται ως εξής:\n1. Το άρθρο 13 …», «… ως εξής: 1) Στον
# τίτλο …»): the opening of a list of changes, not new wording (v15)
ITEM_AFTER = re.compile(r"\s*(?:\(?[α-ω]{1,3}[΄'’]?\)|\d{1,2}[.)]|[α-ω]{1,2}[΄'’]?\.)\s")
FOREIGN_ACT = re.compile(r"\b(?:κανονισμ|οδηγι|συνθηκ|συμβαση|συνταγμ)\w*")
# the words after an article that name an act of no law of ours, and so carry to the same article named again in the
# paragraph («… του β.δ. 631/1972 (Α΄ 180) προστίθεται εδάφιο και το άρθρο 3 διαμορφώνεται»; v15): an act by its
# abbreviation («β.δ.», «ν.δ.», «κ.υ.α.») or its kind, not any noun in the genitive («των υποχρεώσεων του άρθρου 38»)
FOREIGN_NAMED = re.compile(r"(?:[α-ω]{1,3}\.(?:\s?[α-ω]{1,3}\.)*\s?\d|(?:κανονισμ|οδηγι|συνθηκ|συμβασ|συνταγμ|συμφωνι|"
                           r"αποφασ|υπ\W|διαταγμ|πραξ)\w*)")
# an act of no law of ours that an opening sentence amends («Η συμφωνία για τη μεταφορά … τροποποιείται ως εξής:»; v15)
FOREIGN_AMENDED = re.compile(r"\b(?:κανονισμ|οδηγι|συνθηκ|συμβαση|συνταγμ|συμφωνι)\w*")
FOREIGN_ACT_AFTER = re.compile(r"\s*" + FOREIGN_ACT.pattern.replace("συμβαση", "συμβασ"))  # «της ίδιας Συμβάσεως»
NUMBERED = re.compile(r"(?:^|\n)\s*\d+[α-ω]?\.\s")
# «Κεφάλαιο 56 του ν. 4700/2020», «Παράρτημα 3 του ν. …»: a number beside a law that is no article
NOT_ARTICLE = re.compile(r"\b(?:κεφαλαι\w*|υποκεφαλαι\w*|μερ(?:οσ|ουσ)|τμημα\w*|παραρτημα\w*|τευχ\w*|φυλλ\w*|βιβλι\w*|"
                          r"τιτλ\w*|ενοτητ\w*)\s*$")
# «προστίθεται άρθρο 25Α στον ν. 4276/2014»: the law after «στον/στο/στην»
INTO = re.compile(r"\s*(?:στον|στο|στην|στη)\s+")
# «το εσωτερικό άρθρο 55 του άρθρου 2 του ν. 4335/2015»: an article inside an article (a code a law ratified); the
# outer article is the corpus's, and is read on its own
INNER = re.compile(r"\s*(?:\([^)]{0,40}\)\s*)?(?:του|τησ)\s+(?:αρθρ\w*)\s")
# a citation in the words that name it as an instrument or a yardstick is cited, whatever verb the clause has
# («προσαρμόζεται προς το άρθρο 398 ΠΚ και διαμορφώνεται», «όπως αντικαταστάθηκε με το άρθρο 25»)
CITED_BY_WORDS = re.compile(
    r"\b(?:συμφωνα\s+με|με\s+βαση|νοειται(?:\s+εφεξησ)?|κατα|προσ|βασει|δυναμει|παρεκκλιση|με|περι|επιφυλαξη|εννοια|εφαρμογη|εξαιρεση|πλην|αναφορα|"
    r"παραπομπ\w*|"
    r"\w+(?:θηκε|θηκαν|ηκε|ηκαν)|"
    # a participle the reference completes («τροποποιείται η προβλεπόμενη στην παρ. 3 του άρθρου 163 απόφαση», «των
    # οριζομένων στο άρθρο 13 ποσοστών»): what it names is the verb's, not the provision (v15)
    r"\w{3,}(?:ομεν|ουμεν|ωμεν)(?:η|ο|οσ|ου|ησ|ων|α|εσ|οι|ουσ|ον|ην)(?:\s+απο)?|"
    # a relative clause the reference completes («της εξαίρεσης που προβλέπεται στην παρ. 6 του άρθρου 54»; v15)
    r"(?:που|οποι\w*)\s+\w{3,}(?:εται|ονται|ειται|ουνται|ιται))\s+(?:σ?τ(?:ο|α|ον|ην|η|ων|ου|ησ|ισ)\s+)?$"
)
# «όπως αντικαταστάθηκε με την περ. ε΄ του άρθρου 31»: a designator the citation's span does not hold, between those
# words and the article
DESIGNATOR_BEFORE = re.compile(r"(?<![\w.])(?:περ|εδ|υποπερ|στοιχ)\w*\.?\s*\(?[\dα-ω]{1,3}[΄'’)]?\s+(?:του|τησ)\s+$")
# «μετά την έκδοση της υπουργικής απόφασης της παρ. 4 του άρθρου 79, καταργείται το ειδικό βιβλίο …»: a reference
# that qualifies a noun other than a provision («της Επιτροπής του άρθρου 13», «των δραστηριοτήτων του άρθρου 233»)
# is cited, whatever verb follows (the verb's object comes after it); a provision or a title's noun («το πρώτο
# εδάφιο της παρ. 1», «οι λέξεις … του άρθρου 5», «Τροποποίηση της παρ. 1», «στο τέλος του άρθρου 5») keeps it; v15:
# «Από την έναρξη ισχύος του άρθρου 74 καταργείται …», «το ποσό των παραβόλων του άρθρου 22» are nouns like others
MODIFIES_NOUN = re.compile(
    r"(?<![\w.])(?!(?:παρ(?:αγραφ\w*|\.)?|περ(?:ιπτωσ\w*|\.)?|(?:εδαφ|εδ|στοιχ|υποπερ|υποπαρ|αρθρ|διαταξ|λεξ|φρασ|τελοσ|"
    r"τελουσ|αρχ|τιτλ|κεφαλ|μερ|τμημ|πινακ|παραρτ|κειμεν|ενοτητ|σημει|τροποποι|αντικαταστ|προσθηκ|καταργησ|συμπληρωσ|"
    r"αναριθμ|προθεσμ)[\w.]*)\s)"
    r"(?:[α-ω]{4,}(?:ησ|εωσ|ων|ου|ασ|ισ|οσ|εσ)|εκειν\w*|"
    # an act or a body in any case («τροποποιούνται με την απόφαση της παρ. 20 του άρθρου 72»; v15)
    r"(?:αποφαση|πραξη|αδεια|γνωμη|εγκριση|διαδικασια|επιτροπη|υπηρεσια|συμβαση|εκθεση|δηλωση|αιτηση|βεβαιωση|"
    r"μητρωο|συμβουλιο|οργανο))\s+(?:του|τησ|των)\s+"
    # «της περ. β) της» before it: one designator at most (a deeper address is a provision's)
    r"(?:(?:περ|παρ|υποπερ|υποπαρ|εδ|στοιχ)\w*\.?\s*[\dα-ω]{1,3}[΄'’)]?\s+(?:του|τησ|των)\s+)?$"
)
# «Κάθε διάταξη που είναι αντίθετη στις διατάξεις των άρθρων 82 έως και 111 … καταργείται»: a yardstick, cited
CONTRARY_TO = re.compile(r"\bαντιθετ\w*\s+(?:προσ\s+|σε\s+)?(?:στ\w*|τ\w*)\s+(?:διαταξ\w*\s+(?:του|τησ|των)\s+)?$")
_ELEMENT = r"(?:παρ\w*|περ\w*|εδ\w*|στοιχ\w*|υποπερ\w*|αρθρ\w*|τελευται\w*|πρωτ\w*|δευτερ\w*|τριτ\w*)"
# What follows an article list and names a source the resolver does not know: no edge rather than a wrong one
# («άρθρο 14 παράγραφοι 1, 2 και 4 του ΓΚΠΔ», «άρθρο 6 παράγραφος 1 στοιχείο α) του ΓΚΠΔ», «της Οδηγίας …»)
_DESIGNATORS = r"(?:\s*(?:παρ\w*\.?|περ\w*\.?|στοιχ\w*|εδ\w*\.?|υποπερ\w*\.?|σημει\w*)\s*[\dα-ω]{1,3}[΄'’)]?" \
               r"(?:\s*(?:,|και|εωσ)\s*[\dα-ω]{1,3}[΄'’)]?)*)*(?:\s+αντιστοιχα)?"
FOREIGN = re.compile(
    _DESIGNATORS + r"(?:\s*(?:,|και)\s*(?:το\s+|του\s+)?αρθρ\w*\.?\s*\d+[α-ω]?" + _DESIGNATORS + r")*\s*(?:\([^)]{0,40}\)\s*)?(?:του|τησ|των)\s+(?!παροντοσ|παρουσασ|ιδιου|ιδιασ|αυτου|αυτησ|"
    r"νομου\s+αυτου|παρον\b|" + _ELEMENT + r")(?P<word>[^\s,.;:]+)"
)
# «(παρ. 4 και 11 άρθρου 1 Οδηγίας 2019/2177)», «άρθρου 4 β.δ. της 25ης Νοεμβρίου»: an act of no law of ours named
# right after the article, with no «του/της» (v15)
FOREIGN_BARE = re.compile(r"\s+(?:κανονισμ|οδηγι|συνθηκ|συμβασ)\w*|\s+β\.\s?δ\b")
# «… του Κώδικα Οργανισμού Δικαστηρίων και Κατάστασης Δικαστικών Λειτουργών (»: words of a name, then parentheses
# a code's full title may list its subjects with commas («του Κώδικα Διατάξεων Φορολογίας Κληρονομιών, Δωρεών, Γονικών
# Παροχών και Κερδών από Τυχερά Παίγνια (ν. 2961/2001, Α΄ 266)»; v17)
NAME_THEN_PARENTHESES = re.compile(_DESIGNATORS + r"\s*(?:του|τησ)\s+(?:[^\s\d(),.;:«»]+(?:\s+[^\s\d(),.;:«»]+){0,11}|"
                                   r"κωδικα(?:,?\s+[^\s\d(),.;:«»]+){1,16})\s*\(")
SAME_AS_BEFORE = re.compile(r"\s*(?:\([^)]{0,40}\)\s*)?(?:του|τησ)\s+(?:ιδιου|ιδιασ)\b")
# «του ανωτέρω νόμου», «του εν λόγω νόμου», «του ως άνω διατάγματος»: the law named before, like «του ίδιου»
NAMED_BEFORE = re.compile(r"\s*(?:\([^)]{0,40}\)\s*)?(?:του|τησ)\s+(?:ανωτερ(?:ω|ου)|εν\s+λογω|ωσ\s+ανω|προαναφερ\w*)"
                           r"\s+(?:νομ|διαταγμ|κωδικ|π\.\s?δ)")
# «εκτός του άρθρου 1 αυτής», «σύμφωνα με το άρθρο 16 αυτής»: an article of the decision, agreement or directive just
# named (feminine; a law, a decree or a code is not), which is no law of ours (v15)
HERS_AFTER = re.compile(r"\s*(?:\([^)]{0,40}\)\s*)?αυτησ\b")
# «με αναλογική εφαρμογή των άρθρων 32 έως 34 αυτού» after «του π.δ. 26/2012»: an article of the act just named
# (masculine or neuter: a law, a decree, a code; v19)
ITS_AFTER = re.compile(r"\s*αυτου\b")
# «του παρόντος», «του παρόντος νόμου/Κώδικα», «της παρούσας»: the citing law, whatever reference follows
OWN_AFTER = re.compile(r"\s*(?:\([^)]{0,40}\)\s*)?(?:του|τησ)\s+(?:παροντοσ|παρουσασ)\b")
# the same words later in a sentence («…, και εν γένει τα Κεφάλαια Δ΄ και Ε΄, του Μέρους Β΄ του παρόντος»; v19)
OWN_LATER = re.compile(r"(?<!\w)(?:του|τησ)\s+(?:παροντοσ|παρουσασ)\b")
# «του νόμου αυτού»: the law the sentence has just named, else the citing law
THIS_LAW_AFTER = re.compile(r"\s*(?:\([^)]{0,40}\)\s*)?του\s+(?:νομου\s+αυτου|αυτου\s+νομου)\b")
# «άρθρο 28.10 έκαστης Σύμβασης», «άρθρου 5.1.1.1 του Διεθνούς Προτύπου»: a clause of a numbered document
DECIMAL = re.compile(r"\.\d")
# the dotted tail itself («.8.», «.3.1.»): its first number is the paragraph (v17)
DECIMAL_TAIL = re.compile(r"\.(?P<par>\d{1,3})(?:\.\d{1,3})*\.?(?!\d)")
# the dotted numbers listed after the first («των άρθρων 2.1., 2.2. ή 2.6.», «10.5., 10.6. ή 10.7.»; v19)
DECIMAL_MORE = re.compile(r"\s*(?:,|και|ή|η|έως|εως)\s*(?:και\s+)?(?P<art>\d{1,3})\.(?P<par>\d{1,3})(?:\.\d{1,3})*\.?(?![\d\w])")
# a document that numbers its clauses so, named right after the number without «του/της» («άρθρο 28.10 έκαστης
# Σύμβασης», «άρθρο 4.2 της Σύμβασης»): none of ours
DECIMAL_DOCUMENT = re.compile(r"\s*(?:εκαστ\w*|τησ\s+(?:συμβασ|συμφων|διακηρυξ|προσκλησ|κανονισμ|οδηγι)|"
                              r"του\s+(?:διεθνουσ|προτυπ|κανονισμ|κωδικα\s+wada|παραρτ))")
# «Άρθρο 59 Διαδικαστικοί κανόνες Άρθρο 60 …», «Άρθρα 86 – 93 (Καταργούνται)»: an article's heading (a table of
# contents, an embedded article), not a reference; a reference in running text is written «το άρθρο 5»
HEADING = re.compile(r"Άρθρ[οα]\s")
# «του άρθρου 292 Β», «άρθρο 327 Α»: a letter suffix written apart from the number
SPACED_SUFFIX = re.compile(r"\s(ΣΤ|[Α-Ω])(?![\wΆ-ώ])")  # «157 ΣΤ» (v21)
# what may follow a spaced suffix for it to be read even where the corpus lacks the article («το άρθρο 82 Α,»,
# «82 Α του»): punctuation or a lower-case word; «Η», «Ο» before a capital start a sentence
SUFFIX_ENDS = re.compile(r"(?=[,;)]|\.\s|\s+[α-ωά-ώ])")
# «η παρ. 1 του άρθρου», «της παρ. 2 περ. β΄ του άρθρου», «των παρ. 1 και 2 του άρθρου»: a paragraph before
PAR_BEFORE = re.compile(
    r"(?:παρ\.?|παραγρ\w*|§)\s*(?P<par>\d+)[α-ω]?(?:\.[α-ω]{1,2}\.?)?"
    r"(?:\s*(?:,|και|εωσ|-|–|η)\s*(?:των\s+)?(?:παρ\.?\s*)?\d+[α-ω]?)*(?:\s*επ\.)?"
    r"(?:\s*(?:εδ\.?|εδαφι\w*|περ\.?|περιπτ\w*|στοιχ\w*)\s*[\dα-ω]{1,3}[΄'’]?(?:\s*(?:,|και)\s*[\dα-ω]{1,3}[΄'’]?)*)*"
    r"\s*(?:του|στο)\s*$"
)
NEIGHBOUR = re.compile(r"\b(?:του|το|στο)\s+(?P<which>προηγουμεν|επομεν)(?:ου|ο)\s+αρθρ(?:ου|ο)\b")
# «του άρθρου τριακοστού δεύτερου του ν. 4771/2021»: ratifying laws number their articles in words, compounds
# included (read only with a source after them, or the same number cited with one before: headings of embedded
# articles, «Άρθρο δέκατο έκτο Μετάκληση …», and acts of legislative content use the same words)
ORDINAL_VALUES = {
    "τριακοσιοστ": 300, "διακοσιοστ": 200, "εκατοστ": 100, "ενενηκοστ": 90, "ογδοηκοστ": 80, "εβδομηκοστ": 70,
    "εξηκοστ": 60, "πεντηκοστ": 50, "τεσσαρακοστ": 40, "τριακοστ": 30, "εικοστ": 20, "δωδεκατ": 12, "ενδεκατ": 11,
    "δεκατ": 10, "ενατ": 9, "ογδο": 8, "εβδομ": 7, "εκτ": 6, "πεμπτ": 5, "τεταρτ": 4, "τριτ": 3, "δευτερ": 2,
    "πρωτ": 1,
}
_ORDINAL_WORD = "(?:" + "|".join(ORDINAL_VALUES) + r")(?:ο|ου)\b"
ORDINAL = re.compile(r"\bαρθρ(?:ο|ου)\s+(?P<ord>" + _ORDINAL_WORD + r"(?:\s+" + _ORDINAL_WORD + r"){0,2})")
# «της παρ. 5 του πέμπτου άρθρου του ν. 2275/1994»: the number before the noun (with a source only)
ORDINAL_BEFORE = re.compile(r"\b(?:του|το|στο)\s+(?P<ord>" + _ORDINAL_WORD + r"(?:\s+" + _ORDINAL_WORD + r"){0,2})"
                             r"\s+αρθρ(?:ου|ο)\b")


def ordinal_value(words: str) -> int | None:
    """«τριακοστού δεύτερου» (folded) → 32; None where the words do not make one number (each smaller than the
    one before: «πρώτου δεύτερου» is no ordinal)."""
    total, last = 0, 1000
    for word in words.split():
        value = next(v for stem, v in ORDINAL_VALUES.items() if word.startswith(stem))
        if value >= last:
            return None
        total, last = total + value, value
    return total


# a clause ends at a semicolon, a new line, a full stop before a new sentence, or a colon that opens no list
# (not at a line break right after a designator's abbreviation, «την περ.\nε΄ του άρθρου 31»)
BOUNDARY = re.compile(r";|(?<![Ππ]ερ\.)(?<![Ππ]αρ\.)(?<![Εε]δ\.)\n(?![α-ωά-ώ]{2,}\s|ν\.\s?\d|π\.δ\.)|\.(?=\s+[Α-ΩΆ-Ώ](?:[α-ωά-ώ]|\s))|:(?!\s*(?:[α-ω]{1,2}|\d{1,2})[).΄’'])")
WINDOW_AFTER = 160
# «…, όπως ισχύει/αντικαταστάθηκε με …», «…, που προστέθηκε με …», «…, περί …», «…, όπου …»: what describes a reference
DESCRIBED = re.compile(r"\s*(?:\([^)]{0,60}\)\)?\s*)?(?:,\s*(?:οπωσ|που|περι|οπου|(?:(?:με|απο|για|κατα|σε)\s+)?"
                        r"(?:η|ο|το|οι|τα|την|τον|τισ|τουσ)\s+οποι\w*)|περι)\s")
# the words that may stand between two references joined into one (designators, articles, a title's nouns)
JOINING_WORD = re.compile(r"(?:παρ|περ|υποπερ|υποπαρ|εδαφ|στοιχ|αρθρ|πρωτ|δευτερ|τριτ|τεταρτ|πεμπτ|εκτ|τελευται|στην|στον|"
                           r"στισ|στουσ|τουσ|καθωσ|επισησ|ιδιου|ιδιασ|αυτου|αυτησ|οπωσ|ισχυει|αντιστοιχ|τροποποιησ|"
                           r"αντικαταστασ|προσθηκ|συμπληρωσ|καταργησ)")
SUBJECT_BEFORE = re.compile(r"(?<!\w)(?:το|τα|η|οι)\s+$")
SUBJECT_REACH = 400
# «και η παρ. 4 διαμορφώνεται ως εξής», «η παρ. 2 τροποποιείται»: a paragraph with no article before an amendment verb
# (a lettered paragraph too, «η παρ. Δ διαμορφώνεται»)
# «και η παρ. 6.ε. διαμορφώνεται»: a paragraph's case written after a dot (v16) is that paragraph's
FOLLOW_UP = re.compile(r"(?<![\w.])(?:(?:η|οι)\s+(?P<span>παρ(?:\.|αγραφοσ|αγραφοι)?\s*(?P<par>\d+[α-ω]?|[α-ω](?!\w))"
                        r"(?:\.[α-ω]{1,2}\.?(?=\s))?(?:\s*(?:,|και)\s*\d+[α-ω]?)*)|το\s+(?P<article>αρθρο))\s+")
FOLLOW_UP_REACH = 600
# «Στο άρθρο 31 του ν. 4756/2020, τροποποιείται η παρ. 3 …, προστίθεται παρ. 4 και …»: an amendment verb, then a
# paragraph with no article of its own
VERB_THEN_PARAGRAPH = re.compile(
    r"\b" + _VERB_WORDS + r"\s+(?:(?:η|οι)\s+)?(?P<span>παρ(?:\.|αγραφοσ|αγραφοι)?\s*(?P<par>\d+[α-ω]?))(?![\d\w])"
    r"(?!\s*(?:,|και|εωσ)\s*\d|\s+(?:του|τησ|των|στο|στον|στην|στα)\s)")
# «της περ. γ’ της παρ. 3 του ως άνω άρθρου»: the article cited last before it
ABOVE_ARTICLE = re.compile(r"\b(?:του|το|στο)\s+(?P<at>(?:ωσ\s+ανω|ανωτερω|εν\s+λογω|προαναφερθεντοσ|προαναφερομενου)"
                            r"\s+αρθρ(?:ου|ο))\b")
# «Στο εσωτερικό άρθρο 85 του άρθρου 2 του ν. 4335/2015»: the article of a code a law ratified in one article, then
# that outer article (which the corpus holds)
OUTER_OF_INNER = re.compile(r"εσωτερικ\w*\s+αρθρ\w*\s+\d+[α-ω]?\s+(?:του|τησ)\s+$")
# a finite verb, folded («χορηγειται», «εξακολουθουν», «ισχυει», «προβλεφθηκε»); «δυναμει», «εν γενει» are none
FINITE = re.compile(r"\b(?!δυναμει\b|γενει\b)[α-ω]{3,}(?:εται|ονται|ουνται|ειται|ιται|ωνται|αται|ει|ουν|ηκε|ηκαν)\b")
# a clause that opens with when or by what («Από την ημερομηνία έκδοσης της Πράξης … του ν. 4622/2019 …
# καταργούνται:», «Με την έναρξη ισχύος …»): a law it names is a yardstick, not the law of the list it opens (v15);
# «Μετά το άρθρο 66ΚΔ του ν. 4939/2022 προστίθενται:» places the items in that law, and is no such phrase
TIME_OPENING = re.compile(r"\s*(?:\d+[α-ω]?\.\s*|\(?[α-ω]{1,3}[΄'’]?\)\s*)?(?:Από|Με|Έως|Μέχρι|Κατά)\s")  # a capital: a clause
GENITIVE_BEFORE = re.compile(r"(?<!\w)(?:του|τησ|των)\s+$")
OF_BEFORE = re.compile(r"\s*(?:του|τησ|των)\s+$")
# a word that opens a relative or subordinate clause, whose verb is not the sentence's («που αφορούν», «όπου …
# γίνεται παραπομπή», «εφόσον …»; v15)
SUBORDINATE = re.compile(r"\b(?:που|οποι\w*|οπωσ|οπου|οταν|εφοσον|εαν|αν|ωστε|οτι|καθωσ|μολονοτι|ενω)\b")
DESCRIPTIVE = re.compile(r"[\s,(]*(?:οπωσ|που|οπου|περι|ωσ|(?:(?:η|ο|το|οι|τα|τησ|του|των)\s+)?οποι\w*)\b")
# «… του Π.Κ.\n5. Όποιος …»: a citation whose last line is only a number took the next paragraph's number
NEXT_PARAGRAPH = re.compile(r"\n\s*\d+[α-ωΑ-Ω]?$")
DESCRIBED_AFTER = 400
SENTENCE_END = re.compile(r";|\n|\.(?=\s+[Α-ΩΆ-Ώ])")
LIST_AFTER = 600  # «Στο άρθρο 20 του ν. 4014/2011 (Α΄ 209): α) στην περ. (α) … αντικαθίσταται …»: a list of changes
OPENS_LIST = re.compile(r"\s*(?:\([^)]{0,40}\)\s*)?,?\s*:")
# «Στο άρθρο 95 του ν. 4070/2012 (Α’ 82),\nα) …»: a comma, then lettered items on lines of their own (v15)
OPENS_ITEMS = re.compile(r"\s*(?:\([^)]{0,40}\)\s*)?,[ \t]*\n[ \t]*(?:\(?[α-ω]{1,3}[΄'’]?\)|[α-ω]{1,2}[΄'’]?\.)\s")
# «υπ’ αρ. 116/1868 του Εφετείου», «αρ. 12/2020 απόφαση»: a numbered decision, not an article
DECISION = re.compile(r"/\s*\d")
DECISION_BEFORE = re.compile(r"\bυπ\W{0,2}\s*$")
# «του Γενικού Κανονισμού Λιμένα αρ. 23»: the number of a regulation or decision named before «αρ.», not an article
# (v15; only for the abbreviation, «αρ.», never «άρθρο»)
NUMBER_OF_ACT = re.compile(r"\b(?:κανονισμ|αποφασ|εγκυκλι|διαταγ|πραξ|συμβασ|οδηγι)\w*(?:\s+[^\s\d]+){0,3}\s+$")
# «Το άρθρο 109 του ν. 4442/2016, όπως ισχύει προ της δημοσίευσης του παρόντος, καταργείται»: the version before the
# change, which the corpus's article (the new one) is not (v15)
AS_IT_WAS = re.compile(r"\s*(?:\([^)]{0,40}\)\s*)?,\s*οπωσ\s+(?:ισχυε\b|ισχυει\s+(?:προ|πριν)\b)")
# «Προστίθεται στοιχείο με αρ. 11»: a numbered item of a list, not an article
ITEM_NUMBER_BEFORE = re.compile(r"\b(?:στοιχει|σημει|κωδικ|θεσ|εγγραφ)\w*\s+(?:με\s+)?$")
# «το εσωτερικό άρθρο 59»: an article inside a corpus article (a code a law ratified), no corpus article itself
INSIDE_BEFORE = re.compile(r"\bεσωτερικ\w*\s+$")
# what may follow the parts named after an article for them to be the citing law's: not a colon, a quote or
# parentheses («της παρ. 1 του άρθρου 117 του Κεφαλαίου ΣΤ: Κεφάλαιο Δυτών του Βιβλίου …» names its law after them)
PARTS_END = re.compile(r"(?!\s*[:«(])")
# «Στο άρθρο 186 «Αρμοδιότητες Περιφερειών», του\nν. 3852/2010»: the article's title, quoted, before its law (v15)
QUOTED_TITLE = re.compile(r"\s*«[^«»]{1,160}»\s*,?")
# «το άρθρο 18 περί γενικών ρυθμίσεων εκπαίδευσης της υπό στοιχεία Α3/οικ./50984/7947/22.11.2013 απόφασης»: an article
# described («περί …»), then the decision it belongs to, with no law between (v15)
DESCRIBED_DECISION = re.compile(
    r"\s*(?:\([^)]{0,40}\)\s*)?,?\s*περι\s(?:(?!(?:του|τησ|των)\s+(?:ν\.\s?\d|π\.\s?δ|νομου\s+\d))[^;\n]){0,800}?"
    r"\b(?:τησ|του|των)\s+(?:υπο\s+στοιχεια|υπ\W{0,2}\s*αριθ)")
# «Ο ν. 3689/2008 (Α’ 164), με εξαίρεση τα άρθρα 47, 48»: the articles a clause keeps of the law it names
EXCEPT_GAP = re.compile(r"\s*(?:\([^)]{0,40}\))?\s*,?\s*(?:με\s+εξαιρεση|εκτοσ(?:\s+απο)?|πλην)\s+(?:τ\w{1,3}\s+)?$")
# «απαλείφονται οι λέξεις», «απαλείφεται η αναφορά στο άρθρο 394»: words struck out, an amendment of the provision
WORDS_OBJECT = re.compile(r"\s+(?:η|οι|το|τα)\s+(?:λεξ\w*|φρασ\w*|αναφορ\w*|παραπομπ\w*|φρασεισ)")
PARENTHESES = re.compile(r"\([^()]{0,40}\)")  # «(Α’ 147)», «(Καταργούνται)»: a note, not the clause's verb
# a verb whose agent is a provision («τροποποιείται με την παρ. 1 του άρθρου 8», «προστίθεται με το άρθρο 11 του
# παρόντος»): it says what another provision does to the reference, not what this clause does
BY_PROVISION = re.compile(r"\s+με\s+(?:την|το|τον|τα|τισ|τουσ)\s+(?:παρ|αρθρ|περ|εδ|ν\.|π\.\s?δ|παροντ)")
# an article, paragraph or provision named right before an act («του άρθρου 5 του ν. 4014/2011», «της παρ. 2 του», «οι
# διατάξεις του»): the act is cited for one of its provisions, so a bare article near it may be that act's (v17)
ARTICLE_OF_ACT = re.compile(r"(?:αρθρ\w*|αρ\.|παρ\.|παραγραφ\w*|περ\.|περιπτωσ\w*|εδαφ\w*|διαταξ\w*|κεφαλαι\w*|"
                            r"μερ(?:ουσ|ων)|τμημα\w*|τιτλ\w*|βιβλι\w*)[^.;:]{0,60}$")
# what stands before an article of another act cited as a yardstick or a place, not as a subject («που προβλέπεται στο
# άρθρο 45Α του ν. 2121/1993», «σύμφωνα με το άρθρο 72 του παρόντος και τα άρθρα 244 έως 266 του Κώδικα …», «υπό τις
# προϋποθέσεις του άρθρου 142 του ν. 3655/2008»): the act is bound to that article, and leaves the sentence's bare
# articles the own law's (v18)
YARDSTICK_BEFORE = re.compile(r"(?<!\w)(?:στ(?:ο|α|ον|ην|η|ισ|ουσ)|σε|με|απο|για|κατα|υπο|βασει|δυναμει|"
                              r"προυποθεσεισ\s+(?:του|τησ|των)|οροι\s+(?:του|τησ|των)|ορουσ\s+(?:του|τησ|των))\s+"
                              r"(?:(?:το|τα|την|τη|τον|τισ|τουσ)\s+)?$")
# a clause that opens with the act it changes («Στον ν. 4791/2021 …», «2. Στο π.δ. 54/2018 …»; v17)
OPENS_INTO = re.compile(r"\s*(?:\d{1,3}\.\s+|[α-ω]{1,2}[)΄’']\s+)?στ(?:ον|ο|ην|η)\s+")
# a clause that opens into a part of an act («Στο Παράρτημα ΙΙ του ν. 4442/2016 …», «Στο Κεφάλαιο Β΄ του Μέρους Α΄ του
# ν. …»), up to the part's name; the act follows it (v18)
OPENS_INTO_PART = re.compile(r"\s*(?:\d{1,3}\.\s+|[α-ω]{1,2}[)΄’']\s+)?στ(?:ον|ο|ην|η)\s+(?:παραρτημα|κεφαλαιο|"
                             r"υποκεφαλαιο|μεροσ|τμημα|τιτλο|βιβλιο|ενοτητα)\s+(?:\d+|[ivx]{1,6}|[α-ω]{1,4}[΄'’]?)(?!\w)")
# «Η ισχύς του Μέρους Α’, περί των παρεμβάσεων στον Κώδικα Πολιτικής Δικονομίας (π.δ. 503/1985, Α’ 182), …»: a part
# of the citing law described with «περί», the act named in the description being the part's subject, not its law
# (v20; folded; between the description and the act no article, no second part, no «;»)
PART_ABOUT = re.compile(r"(?<!\w)(?:μερουσ|κεφαλαιου|υποκεφαλαιου|τμηματοσ|τιτλου|βιβλιου)\s+[^\s,]{1,6}\s*,\s*περι\s"
                        r"(?:(?!αρθρ|μερουσ|κεφαλαιου|τμηματοσ)[^;\n]){0,200}$")
# «Στην παρ. 2 του άρθρου 94, περί …, στην παρ. 5 του άρθρου 622Α, περί …, … και στο άρθρο 1023, περί …, του Κώδικα
# Πολιτικής Δικονομίας όπου γίνεται αναφορά …»: a run of described articles whose law closes the run after the last
# description and its comma (folded; v20). From the end of one article of the run to the law's «του/της».
_DESCRIBED_ITEM = (r"στ(?:ο|ην|η|ισ)\s+(?:παρ\.?\s*\d+[α-ω]?(?:\s*(?:,|και)\s*\d+[α-ω]?)*\s+του\s+)?αρθρ(?:ο|ου)\s+"
                   r"\d{1,4}[α-ω]{0,3}")
# a description may name articles in the genitive plural («περί της άδειας … εκτός από εκείνες των άρθρων 792 και 797»)
_DESCRIPTION = (r"\s*,\s*περι\s(?:(?!αρθρ|\bπαρ\.|\bστ(?:ο|ην|η|ισ)\s+(?:αρθρ|παρ\.))[^;\n«»]"
                r"|των\s+αρθρων\s+\d{1,4}[α-ω]?(?:\s*(?:,|και)\s*\d{1,4}[α-ω]?)*){1,400}?")
DESCRIBED_RUN = re.compile(r"(?:(?:" + _DESCRIPTION + r")?,\s*(?:και\s+)?" + _DESCRIBED_ITEM + r")*" + _DESCRIPTION
                           + r",\s*(?:του|τησ)\s+")
OPENING_REACH = 400  # an opening into a part of an act governs the bare articles of its sentence this far on (v18)
# «μετά το άρθρο 22 προστίθεται άρθρο 22Α»: the article a new one is put after (or before) is where, not what, the
# verb inserts: cited (v17); «μετά την παρ. 2 του άρθρου 5 προστίθεται» still inserts into article 5
INSERTED_NEXT_TO = re.compile(r"(?<!\w)(?:μετα|πριν\s+απο)\s+(?:το|τα)\s+$")
# a title's noun of change right before an article («Τροποποίηση του άρθρου 14», «προσθήκη άρθρου 14α»), and the
# kind each gives (v17)
TITLE_NOUN_BEFORE = re.compile(r"(?<!\w)(τροποποιησ|προσθηκ|καταργησ|αντικαταστασ)\w*\s+(?:τ\w{1,3}\s+)?$")
TITLE_NOUN_KINDS = {"τροποποιησ": "amends", "προσθηκ": "inserts", "καταργησ": "repeals", "αντικαταστασ": "replaces"}
WINDOW_BEFORE = 45  # a verb before a reference governs it only from close by («Καταργείται το άρθρο 5»)

# a list's opening: «Στο άρθρο 20 του ν. 4014/2011 (Α΄ 209):», «… οι ακόλουθες διατάξεις του ν. 4070/2012:»
LIST_OPENING = re.compile(r"(?<!\w)Στ(?:ο|ον|ην|η)\s")
PROVISIONS_OF = re.compile(r"διαταξ\w*\s+(?:του|τησ|των)\s*$")
# v19: an opening that names the act it changes after a noun of change, then announces its items («Αντικείμενο του
# παρόντος Μέρους αποτελεί η τροποποίηση του ν. 4963/2022 (Α’ 149), και συγκεκριμένα:»): the noun right before the
# act, and nothing but the act's gazette issue and «και συγκεκριμένα» / «ειδικότερα» between the act and the colon
CHANGE_OF_ACT = re.compile(r"(?<!\w)(?:τροποποιησ|αντικαταστασ|συμπληρωσ)\w*\s+(?:του|τησ|των)\s*$")
CHANGE_OF_ACT_END = re.compile(r"\s*(?:\([^()]{0,40}\)\s*)?,?\s*(?:και\s+)?(?:συγκεκριμενα|ειδικοτερα)?\s*$")
# v19: a note that opens an article's text with the article of an EU act it transposes («(άρθρο 44 της Οδηγίας (ΕΕ)
# 2016/2341) Κατόπιν αίτησης …»): not the act a list its text opens belongs to
TRANSPOSITION_NOTE = re.compile(r"\s*\((?:[^()]|\([^()]{0,40}\)){0,200}\)")
# an item of a list of changes that names a paragraph and no article («γ) στο τρίτο εδάφιο της παρ. 1, γα) η φράση «…»
# αντικαθίσταται», «β) Η παρ. 7, περί …, αντικαθίσταται»): a paragraph of the article the list's opening names (v18)
ITEM_PARAGRAPH = re.compile(
    r"(?:στ(?:ο|ην|η)\s+(?:(?:πρωτ|δευτερ|τριτ|τεταρτ|πεμπτ|εκτ|εβδομ|ογδο|ενατ|δεκατ|τελευται)\w*\s+)?"
    r"(?:εδαφι\w*|(?:υπο)?περ\.\s*[α-ω\d]{1,3}[΄'’)]?|περιπτωση\s+[α-ω\d]{1,3}[΄'’)]?)\s+(?:τησ\s+)?|(?:η|στην|στη)\s+"
    r"|(?:η|οι)\s+(?:υπο)?περ\.\s*[α-ω\d]{1,3}[΄'’)]?\s+τησ\s+)"  # v21: «α) η περ. γ) της παρ. 2 καταργείται»
    r"(?P<span>παρ(?:\.|αγραφοσ|αγραφο)\s*(?P<par>\d+[α-ω]?))(?![\w\d])(?!\s*(?:,|και|εωσ)\s*\d)"
    r"(?!\s+(?:του|τησ|των|στο|στον|στην)\s)")
# where an item of a list starts, on its own line or after a comma («…, γ) το άρθρο 13 του ν. 3790/2009»; v15)
ITEM_START = re.compile(r"(?:^|\n|[,;]\s)\s*\(?(?:[α-ω]{1,3}|\d{1,2})[΄'’]?[).]\s")
# a list item's line: «α)», «(β)», «αα)», «1.», «i)», «-»
ITEM_LINE = re.compile(r"\s*(?:\(?[α-ωa-z0-9]{1,4}[΄'’]?\)|[α-ωa-z]{1,3}[΄'’]?\.|\d+[α-ω]?\.|[-–•])")

# «Παράρτημα Ι Πίνακας αντιστοιχίας διατάξεων …», «ΠΙΝΑΚΑΣ ΠΕΡΙΕΧΟΜΕΝΩΝ»: a table's heading (case as written: «τον
# πίνακα αντιστοιχίας» in running text is a reference to one); the table runs to the law's closing formula or the
# end, and the article numbers in it are rows, not references (v15)
TABLE_HEADING = re.compile(r"(?:Π[ίι]νακας|ΠΙΝΑΚΑΣ|ΠΊΝΑΚΑΣ)\s+(?:[Αα]ντιστοιχ|ΑΝΤΙΣΤΟΙΧ|[Ππ]εριεχομ|ΠΕΡΙΕΧΟΜ)")
TABLE_END = re.compile(r"Παραγγέλλομε\s+τη\s+δημοσίευση")

# A title's nouns of change («Τροποποίηση του άρθρου 96 του ν. 4412/2016», «Τροποποιήσεις – Προσθήκες στο ν.
# 3920/2011», «Διόρθωση παροραμάτων … στον ν. 4791/2021»): the act the title names after them is the one the
# article's amendments are made to (v15)
TITLE_CHANGE = re.compile(r"\b(?:τροποποιησ\w*|αντικαταστασ\w*|προσθηκ\w*|καταργησ\w*|συμπληρωσ\w*|διορθωσ\w*|"
                          r"αναριθμησ\w*|αναδιατυπωσ\w*)\b")

# a noun in the nominative, of no provision («η Μεταφραστική Υπηρεσία», «οι πίνακες», «η έγκριση»): a subject of its
# own, after a reference, for the verb that follows (v15); not «η παρ.», «οι λέξεις», «η οποία», «οι εξής»
NOMINATIVE = re.compile(
    r"(?<![\w.])(?:η|ο|οι)\s+(?!(?:παρ|περ|εδ|υποπ|στοιχ|αρθρ|τελευται|πρωτ|δευτερ|τριτ|τεταρτ|πεμπτ|εκτ|λεξ|φρασ|"
    r"αριθμ|τιτλ|οποι|αναφορ|παραπομπ|διαταξ|εξησ|ακολουθ|ιδι|αυτ|ισχυουσ|υφισταμεν|σχετικ)\w*)[α-ω]{3,}")
# a clause that opens in a provision, or just after or before it («Στην παρ. 1 του άρθρου 86», «Μετά την παρ. 2 του»,
# «Στο τέλος της περ. β’ της»), up to the reference (folded): what its verb changes is in that provision, whatever
# the verb's subject (v15)
IN_PROVISION = re.compile(
    r"\s*(?:\d+[α-ω]?[.)]\s*|\(?[α-ω]{1,3}[΄'’]?\)\s*)?(?:στ(?:ο|ον|ην|η|α|ισ|ουσ)|μετα\s+(?:απο\s+)?τ\w{1,3}|"
    r"στο\s+τελοσ\s+τ\w{2,3}|στην\s+αρχη\s+τ\w{2,3}|πριν\s+απο\s+τ\w{1,3})\s+"
    r"(?:(?:\w*(?:παρ|περ|εδ|στοιχ)\S*|εδαφι\w*|(?:πρωτ|δευτερ|τριτ|τεταρτ|πεμπτ|εκτ|εβδομ|ογδο|τελευται)\w*|"
    r"[\dα-ω]{1,3}[΄'’)]?,?|τ\w{1,3}|και|,)(?:\s+|$))*$")
# the same opening written with a capital, which starts a clause wherever it stands (a title's tail runs into the
# text with no boundary: «… - Τροποποίηση της παρ. 2 του άρθρου 115 του ΚΠολΔ Στην παρ. 2 …»)
CAPITAL_LOCATIVE = re.compile(r"(?<!\w)(?:Στ(?:ο|ον|ην|η|α|ις|ους)|Μετά|Πριν)\s")
