"""The API page (``/api``) in Greek: what each endpoint and parameter does, as the portal's other pages say it.

The OpenAPI description (``/api/openapi.json``) stays in English, for tools and libraries; the page read its summaries
and parameter descriptions straight from it, so a Greek page showed English sentences between Greek headings (issue
50). The page now takes its words from here, keyed by endpoint and parameter; tests/test_portal_api_page.py checks
that every endpoint and parameter the API has is here, so a new one cannot come back in English.
"""

from __future__ import annotations

from collections.abc import Mapping

# (METHOD, path) -> what the endpoint gives
SUMMARIES: Mapping[tuple[str, str], str] = {
    ("GET", "/api/search"): "Τα πιο σχετικά άρθρα για την περιγραφή μιας υπόθεσης.",
    ("POST", "/api/search"): "Το ίδιο, με την υπόθεση σε JSON (για ολόκληρη δικογραφία, που δεν χωρά σε διεύθυνση): "
                             "πεδία q, method, k, source, area.",
    ("GET", "/api/articles/{article_id}"): "Ένα άρθρο, με τα γειτονικά άρθρα του νόμου του και παρόμοια άρθρα.",
    ("GET", "/api/articles/{article_id}/graph"): "Οι παραπομπές του άρθρου, τα άρθρα που παραπέμπουν σε αυτό ή το "
                                                 "τροποποιούν, και τα γειτονικά του.",
    ("GET", "/api/articles/{article_id}/in-force"): "Το ισχύον κείμενο του άρθρου: οι τροποποιήσεις της συλλογής "
                                                    "εφαρμοσμένες, με την προέλευση κάθε παραγράφου.",
    ("GET", "/api/articles/{article_id}/versions"): "Όλες οι εκδοχές του άρθρου: το αρχικό κείμενο και το κείμενο "
                                                    "μετά από κάθε τροποποιητικό νόμο, με τις οδηγίες που το "
                                                    "διαμόρφωσαν και την έναρξη ισχύος τους.",
    ("GET", "/api/articles/{article_id}/versions/{law}"): "Το άρθρο όπως ίσχυε μετά από έναν τροποποιητικό νόμο.",
    ("GET", "/api/articles/{article_id}/diff"): "Οι λέξεις που πρόσθεσε και διέγραψε μια μεταγενέστερη εκδοχή του "
                                                "άρθρου σε σχέση με μια προγενέστερη.",
    ("GET", "/api/laws/{source}"): "Τα περιεχόμενα ενός νόμου ή κώδικα.",
    ("GET", "/api/health"): "Λειτουργεί η μηχανή αναζήτησης; Και ποιες μέθοδοι είναι διαθέσιμες.",
    ("POST", "/api/judgments"): "Αξιολόγηση ενός αποτελέσματος αναζήτησης (συνάφεια 0, 1 ή 2, με προαιρετική "
                                "σημείωση), σε JSON.",
    ("GET", "/api/judgments"): "Οι αξιολογήσεις ενός ερωτήματος.",
    ("GET", "/api/judgments/queries"): "Όλα τα ερωτήματα που έχουν αξιολογηθεί, τα νεότερα πρώτα, ανά σελίδα.",
}

# parameter name -> what it is (the same name means the same thing on every endpoint)
PARAMETERS: Mapping[str, str] = {
    "q": "η υπόθεση, σε απλά ελληνικά (έως 20.000 χαρακτήρες)",
    "method": "η μέθοδος αναζήτησης· χωρίς αυτήν, η καλύτερη που προσφέρει το ευρετήριο (υβριδική όταν έχει "
              "διανύσματα, αλλιώς BM25)· οι μέθοδοι με γλωσσικό μοντέλο μόνο όπου έχει ρυθμιστεί",
    "k": "πόσα άρθρα",
    "source": "μόνο άρθρα αυτής της νομοθετικής πηγής (π.χ. PK)",
    "area": "μόνο άρθρα αυτού του νομικού τομέα (π.χ. criminal: Ποινικό δίκαιο, civil: Αστικό δίκαιο)",
    "article_id": "ο κωδικός του άρθρου, ΠΗΓΗ::ΑΡΙΘΜΟΣ (π.χ. PK::372)",
    "query": "το ερώτημα, όπως αξιολογήθηκε",
    "query_id": "ο κωδικός του ερωτήματος (αντί για το κείμενό του)",
    "user": "μόνο οι αξιολογήσεις αυτού του χρήστη",
    "page": "ο αριθμός της σελίδας, από το 1 (τα νεότερα πρώτα)",
    "size": "πόσα ερωτήματα ανά σελίδα",
    "after": "κάθε τροποποιημένο άρθρο των αποτελεσμάτων και με τη διατύπωσή του μετά από αυτόν τον νόμο "
             "(π.χ. ν. 4855/2021)· η κατάταξη μένει η ίδια",
    "before": "το ίδιο, όπως ίσχυε ακριβώς πριν από αυτόν τον νόμο (για πραγματικά περιστατικά πριν από αυτόν)",
    "law": "ο νόμος μετά τον οποίο: N_4855_2021, ν. 4855/2021, 4855/2021, ένα τροποποιητικό άρθρο του ή original "
           "(το αρχικό κείμενο)",
    "from": "η προγενέστερη εκδοχή, με τον νόμο της (χωρίς αυτήν: η αμέσως προηγούμενη της «to»)",
    "to": "η μεταγενέστερη εκδοχή, με τον νόμο της (χωρίς αυτήν: το ισχύον κείμενο)",
}

WHERE = {"query": "διεύθυνση (?όνομα=τιμή)", "path": "διαδρομή"}
TYPES = {"string": "κείμενο", "integer": "ακέραιος", "number": "αριθμός", "boolean": "ναι/όχι"}


def greek_type(type_text: str) -> str:
    """«κείμενο», «ακέραιος», or a list of values as it is (``bm25 | knn | …``: the names a caller sends)."""
    return " | ".join(TYPES.get(t, t) for t in type_text.split(" | ")) if type_text else "—"
