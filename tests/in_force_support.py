"""A small corpus with amended articles for the text-in-force tests (the portal page, the browser, search), its
texts in force as the consolidation engine computes them (what ingest stores), and a way to store one of another
shape: the contract's own document (:meth:`nomos.legal.inforce.result.InForce.to_doc`) and its searchable copy.

PK::372 is amended by N_4855_2021::86 (its paragraph 1 replaced: «πέντε ετών» and «διάρρηξη» are only in the new
wording): full. PK::374 by N_4855_2021::87, whose second instruction names a phrase paragraph 1 does not hold:
partial. PK::375 by N_4855_2021::88, whose one instruction names a phrase the article does not hold: none. PK::49
cites PK::46 and is amended by nothing."""

from __future__ import annotations

from typing import Any

from opensearchpy import OpenSearch

from nomos.legal.inforce.result import InForce

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
     "text": f"1. Η παρ. 2 του άρθρου 374 ΠΚ αντικαθίσταται ως εξής: «{NEW_374_2}»\n"
             "2. Στην παρ. 1 του άρθρου 374 ΠΚ η φράση «πολύ μεγάλης αξίας» αντικαθίσταται από τη φράση «μεγάλης αξίας»."},
    {"_id": AMENDS_375, "title": "Τροποποίηση του άρθρου 375 ΠΚ", **LAW_4855,
     "text": "Στο άρθρο 375 ΠΚ η φράση «ξένο ακίνητο» αντικαθίσταται από τη φράση «ξένο πράγμα»."},
]



def engine_in_force(articles: list[dict[str, Any]] = ARTICLES) -> dict[str, InForce]:
    """The text in force of every amended article of ``articles`` (BEIR rows), as the consolidation engine
    computes it from the legal graph's amendment edges, read as ingest reads them."""
    from nomos.ingest.graph import CorpusReading
    from nomos.ingest.records import Article
    from nomos.legal.inforce.engine import Amending, consolidate
    from nomos.pages.graph import AMENDMENT_KINDS

    arts = [Article(id=a["_id"], title=a["title"], text=a["text"], source=a["source"], law=a["law"]) for a in articles]
    reading = CorpusReading.of(arts)
    refs = {a.id: [r.as_dict() for r in reading.references(a)] for a in arts}
    out: dict[str, InForce] = {}
    for target in arts:
        amending = [Amending(a.id, a.text, refs[a.id], a.source, a.law) for a in arts
                    if any(r.get("target") == target.id and r.get("kind") in AMENDMENT_KINDS for r in refs[a.id])]
        if amending:
            out[target.id] = consolidate(target.id, target.title, target.text, amending, target.source,
                                         target.law).in_force
    return out


IN_FORCE: dict[str, InForce] = engine_in_force()


def store_in_force(client: OpenSearch, alias: str, values: dict[str, InForce]) -> None:
    """Store a text in force beside each article as ingest stores one (``in_force``, ``in_force_text``): for values
    of a shape the small corpus's own amendments do not give; refreshed, so the next search sees them."""
    for article_id, value in values.items():
        client.update(index=alias, id=article_id, body={"doc": {"in_force": value.to_doc(), "in_force_text": value.text}})
    client.indices.refresh(index=alias)
