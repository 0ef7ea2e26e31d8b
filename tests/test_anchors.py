"""Anchor text (nomos.ingest.anchors): what citing articles say around a citation, built from the legal graph."""

from __future__ import annotations

from nomos.ingest.anchors import anchors_key, citing_clause, corpus_anchors
from nomos.ingest.bridge import Bridge
from nomos.ingest.bulk import article_document, content_sha
from nomos.ingest.graph import CorpusReading
from nomos.ingest.records import Article

CITED = Article("PK::372", "Κλοπή", "Όποιος αφαιρεί ξένο κινητό πράγμα με σκοπό να το ιδιοποιηθεί παράνομα τιμωρείται.",
                "PK", "Ποινικός Κώδικας (ν. 4619/2019)")
CITING = Article("PK::377", "Κλοπή και υπεξαίρεση μικρής αξίας",
                 "1. Αν τα εγκλήματα του άρθρου 372 έχουν αντικείμενο πράγμα μικρής αξίας, επιβάλλεται χρηματική "
                 "ποινή. 2. Η παρ. 1 του άρθρου 372 αντικαθίσταται ως εξής: «Όποιος αφαιρεί ξένο πορτοφόλι»",
                 "PK", "Ποινικός Κώδικας (ν. 4619/2019)")
REPEALING = Article("PK::999", "Καταργούμενες διατάξεις", "Καταργείται το άρθρο 372.", "PK",
                    "Ποινικός Κώδικας (ν. 4619/2019)")


def test_the_clause_loses_the_citation_numbers_and_quoted_wording() -> None:
    text = CITING.text
    start = text.index("του άρθρου 372")
    clause = citing_clause(text, start, start + len("του άρθρου 372"))
    assert "εγκλήματα" in clause and "πράγμα μικρής αξίας" in clause
    assert "372" not in clause and "άρθρου" not in clause
    later = text.index("του άρθρου 372 αντικαθίσταται")
    assert "πορτοφόλι" not in citing_clause(text, later, later + 14)  # the quoted new wording is the target's own


def test_anchors_come_from_citing_articles_with_their_titles_and_skip_repeals() -> None:
    articles = [CITED, CITING, REPEALING]
    table = corpus_anchors(articles, CorpusReading.of(articles))
    anchors = table["PK::372"]
    assert anchors.citing == 1  # PK::377 only: the repeal gives no anchor
    assert "Κλοπή και υπεξαίρεση μικρής αξίας" in anchors.texts
    assert any("πράγμα μικρής αξίας" in t for t in anchors.texts)
    assert not any("Καταργ" in t for t in anchors.texts)
    assert "PK::377" not in table  # nothing cites it


def test_documents_carry_the_bridge_fields_and_their_hash_moves_with_them() -> None:
    articles = [CITED, CITING]
    reading = CorpusReading.of(articles)
    bridge = Bridge.of(articles, reading)
    doc = article_document(CITED, reading, bridge)
    assert doc["anchor_count"] == len(bridge.anchors["PK::372"].texts) > 0 and doc["cited_by_count"] == 1
    assert "μικρής αξίας" in doc["anchors"] and doc["context"].startswith("Ποινικός Κώδικας")
    plain = article_document(CITING, reading, bridge)
    assert plain["anchors"] == "" and plain["anchor_count"] == 0
    # an article with no anchors and no heading hashes as before the bridge existed; one with anchors does not
    assert plain["content_sha"] == content_sha(CITING, reading.source(CITING))
    assert doc["content_sha"] != content_sha(CITED, reading.source(CITED))
    assert anchors_key(bridge.anchors["PK::372"]) != ""
