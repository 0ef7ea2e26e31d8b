"""Small BEIR folders written by the tests themselves, so loader and indexing tests need no shared data."""

from __future__ import annotations

import json
from pathlib import Path

ARTICLES = [
    {"_id": "PK::372", "title": "Κλοπή", "text": "Όποιος αφαιρεί ξένο (ολικά ή εν μέρει) κινητό πράγμα από την κατοχή άλλου με σκοπό να το ιδιοποιηθεί παράνομα τιμωρείται με φυλάκιση.", "source": "PK", "law": "Ποινικός Κώδικας"},
    {"_id": "PK::375", "title": "Υπεξαίρεση", "text": "Όποιος ιδιοποιείται παράνομα ξένο κινητό πράγμα που περιήλθε στην κατοχή του με οποιονδήποτε τρόπο τιμωρείται με φυλάκιση έως δύο ετών.", "source": "PK", "law": "Ποινικός Κώδικας"},
    {"_id": "PK::386", "title": "Απάτη", "text": "Όποιος με σκοπό να αποκομίσει ο ίδιος ή άλλος παράνομο περιουσιακό όφελος βλάπτει ξένη περιουσία πείθοντας κάποιον σε πράξη με εν γνώσει παράσταση ψευδών γεγονότων ως αληθινών τιμωρείται με φυλάκιση.", "source": "PK", "law": "Ποινικός Κώδικας"},
    {"_id": "PK::308", "title": "Απλή σωματική βλάβη", "text": "Όποιος προκαλεί σε άλλον βλάβη του σώματος ή της υγείας του τιμωρείται με φυλάκιση έως δύο ετών ή χρηματική ποινή.", "source": "PK", "law": "Ποινικός Κώδικας"},
    {"_id": "AK::914", "title": "Έννοια αδικοπραξίας", "text": "Όποιος ζημιώσει άλλον παράνομα και υπαίτια έχει υποχρέωση να τον αποζημιώσει.", "source": "AK", "law": "Αστικός Κώδικας"},
    {"_id": "AK::932", "title": "Χρηματική ικανοποίηση λόγω ηθικής βλάβης", "text": "Σε περίπτωση αδικοπραξίας, ανεξάρτητα από την αποζημίωση για την περιουσιακή ζημία, το δικαστήριο μπορεί να επιδικάσει εύλογη χρηματική ικανοποίηση λόγω ηθικής βλάβης.", "source": "AK", "law": "Αστικός Κώδικας"},
]
QUERIES = [
    {"_id": "q1", "text": "Ο Νίκος αφαίρεσε από ένα κατάστημα ξένο κινητό πράγμα, ένα ρολόι, για να το ιδιοποιηθεί.\n\nΠοια πράξη τέλεσε;", "area": "criminal"},
    {"_id": "q2", "text": "Ο Γιώργος τραυμάτισε τον γείτονά του και εκείνος ζητά αποζημίωση για την ηθική βλάβη.\n\nΤι δικαιούται;", "area": "civil"},
]
QRELS = [("q1", "PK::372", 1), ("q2", "AK::914", 1), ("q2", "AK::932", 1)]


def write_beir(folder: Path, articles=None, queries=None, qrels=None, *, corpus_text: str | None = None) -> Path:
    """Write a BEIR folder; ``corpus_text`` replaces the corpus file verbatim (for malformed-input tests)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "qrels").mkdir(exist_ok=True)
    if corpus_text is None:
        corpus_text = "".join(json.dumps(a, ensure_ascii=False) + "\n" for a in (ARTICLES if articles is None else articles))
    (folder / "corpus.jsonl").write_text(corpus_text, encoding="utf-8")
    (folder / "queries.jsonl").write_text(
        "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in (QUERIES if queries is None else queries)), encoding="utf-8"
    )
    rows = QRELS if qrels is None else qrels
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t{s}\n" for q, d, s in rows), encoding="utf-8"
    )
    return folder
