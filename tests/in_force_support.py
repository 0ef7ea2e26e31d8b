"""A small corpus with amended articles for the text-in-force tests (the portal page, the browser, search), and the
one way those tests store a text in force beside an article: the contract's own document
(:meth:`nomos.legal.in_force.InForce.to_doc`) and its searchable copy, written as ingest writes them.

PK::372 is amended by N_4855_2021::86 (its paragraph 1 replaced: «πέντε ετών» and «διάρρηξη» are only in the new
wording); PK::374 by N_4855_2021::87, one of whose two instructions cannot be applied (partial); PK::375 by
N_4855_2021::88, none of whose instructions applied (none). PK::49 cites PK::46 and is amended by nothing."""

from __future__ import annotations

from typing import Any

from opensearchpy import OpenSearch

from nomos.legal.in_force import Applied, InForce, Passage, Unapplied

PK = {"source": "PK", "law": "Ποινικός Κώδικας"}
LAW_4855 = {"source": "N_4855_2021", "law": "Νόμος 4855/2021 Τροποποιήσεις του Ποινικού Κώδικα"}
P372_1 = "1. Όποιος αφαιρεί ξένο κινητό πράγμα από την κατοχή άλλου με σκοπό να το ιδιοποιηθεί παράνομα τιμωρείται με φυλάκιση έως τρία έτη."
P372_2 = "2. Η κλοπή διώκεται κατ' έγκληση, όπως ορίζει το άρθρο 46."
NEW_372_1 = ("1. Όποιος αφαιρεί ξένο κινητό πράγμα από την κατοχή άλλου με σκοπό να το ιδιοποιηθεί παράνομα τιμωρείται με "
             "φυλάκιση έως πέντε ετών και, αν η πράξη τελέστηκε με διάρρηξη, με φυλάκιση τουλάχιστον ενός έτους.")
P374_1 = "1. Η κλοπή τιμωρείται με κάθειρξη αν το αντικείμενο είναι ιδιαίτερα μεγάλης αξίας."
P374_2 = "2. Η απόπειρα τιμωρείται."
NEW_374_2 = "2. Η απόπειρα τιμωρείται με μειωμένη ποινή."
AMENDS_372, AMENDS_374, AMENDS_375 = "N_4855_2021::86", "N_4855_2021::87", "N_4855_2021::88"
ARTICLES: list[dict[str, Any]] = [
    {"_id": "PK::46", "title": "Άμεσοι συνεργοί", "text": "Με την ποινή του αυτουργού τιμωρείται όποιος παρέσχε άμεση συνδρομή.", **PK},
    {"_id": "PK::49", "title": "Συνεργοί και ιδιότητες",
     "text": "Οι ιδιότητες του αυτουργού δεν μεταβιβάζονται στους συνεργούς κατά το άρθρο 46.", **PK},
    {"_id": "PK::372", "title": "Κλοπή", "text": f"{P372_1}\n{P372_2}", **PK},
    {"_id": "PK::374", "title": "Διακεκριμένη κλοπή", "text": f"{P374_1}\n{P374_2}", **PK},
    {"_id": "PK::375", "title": "Υπεξαίρεση", "text": "1. Όποιος ιδιοποιείται παράνομα ξένο κινητό πράγμα που έχει στην κατοχή του τιμωρείται με φυλάκιση.", **PK},
    {"_id": AMENDS_372, "title": "Τροποποίηση του άρθρου 372 ΠΚ", **LAW_4855,
     "text": f"Η παρ. 1 του άρθρου 372 ΠΚ αντικαθίσταται ως εξής: «{NEW_372_1}»"},
    {"_id": AMENDS_374, "title": "Τροποποίηση του άρθρου 374 ΠΚ", **LAW_4855,
     "text": f"1. Η παρ. 2 του άρθρου 374 ΠΚ αντικαθίσταται ως εξής: «{NEW_374_2}» "
             "2. Στην παρ. 4 του άρθρου 374 ΠΚ προστίθεται εδάφιο ως εξής: «Η πράξη διώκεται αυτεπαγγέλτως.»"},
    {"_id": AMENDS_375, "title": "Τροποποίηση του άρθρου 375 ΠΚ", **LAW_4855,
     "text": "Στο άρθρο 375 ΠΚ η φράση «ξένο ακίνητο» αντικαθίσταται από τη φράση «ξένο πράγμα»."},
]

UNAPPLIED_374 = Unapplied(AMENDS_374, "Στην παρ. 4 του άρθρου 374 ΠΚ προστίθεται εδάφιο ως εξής: «Η πράξη διώκεται αυτεπαγγέλτως.»",
                          "δεν βρέθηκε παράγραφος 4")
IN_FORCE: dict[str, InForce] = {
    "PK::372": InForce("full", (Passage(NEW_372_1, AMENDS_372, True), Passage(P372_2)), (AMENDS_372,),
                       (Applied(AMENDS_372, "replace-paragraph", "1", "Η παρ. 1 του άρθρου 372 ΠΚ αντικαθίσταται ως εξής"),)),
    "PK::374": InForce("partial", (Passage(P374_1), Passage(NEW_374_2, AMENDS_374, True)), (AMENDS_374,),
                       (Applied(AMENDS_374, "replace-paragraph", "2", "Η παρ. 2 του άρθρου 374 ΠΚ αντικαθίσταται ως εξής"),),
                       (UNAPPLIED_374,)),
    "PK::375": InForce("none", (Passage(ARTICLES[4]["text"]),), (), (),
                       (Unapplied(AMENDS_375, "η φράση «ξένο ακίνητο» αντικαθίσταται από τη φράση «ξένο πράγμα»",
                                  "δεν βρέθηκε η φράση «ξένο ακίνητο»"),)),
}

# As the article mapping will carry them (nomos/mappings/articles.json): the stored value, not indexed, and its
# searchable copy, analysed as ``text`` is.
IN_FORCE_FIELDS = {
    "in_force": {"type": "object", "enabled": False},
    "in_force_text": {"type": "text", "analyzer": "greek_stemmed", "similarity": "nomos_bm25", "index_options": "offsets"},
}


def store_in_force(client: OpenSearch, alias: str, values: dict[str, InForce]) -> None:
    """Store each article's text in force as ingest does (``in_force`` and ``in_force_text``), adding the two
    fields to the index's mapping where it lacks them; refreshed, so the next search sees them."""
    mapping = next(iter(client.indices.get_mapping(index=alias).values()))["mappings"]["properties"]
    missing = {f: m for f, m in IN_FORCE_FIELDS.items() if f not in mapping}
    if missing:
        client.indices.put_mapping(index=alias, body={"properties": missing})
    for article_id, value in values.items():
        client.update(index=alias, id=article_id, body={"doc": {"in_force": value.to_doc(), "in_force_text": value.text}})
    client.indices.refresh(index=alias)
