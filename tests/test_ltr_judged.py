"""The judged queries as the ranker's evidence (nomos.retrieval.ltr.judged): what the log holds, that a query never
vouches for itself (``without``), the columns, the file and its digest, and the model that reads them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from nomos.errors import ConfigError
from nomos.retrieval.ltr.judged import JUDGED_FEATURES, JudgedLog, load_log, stems
from nomos.retrieval.ltr.model import JUDGED_MODEL_FEATURES, JUDGED_VERSION, load, train

TEXTS = {
    "ev1": "Μου πήραν το πορτοφόλι μέσα στο λεωφορείο.",
    "ev2": "Έκλεψαν το πορτοφόλι μου στο μετρό, 2 φορές.",
    "ev3": "Ο γείτονας κράτησε τηλεόραση δανεική.",
    "ev4": "Κάτι άσχετο χωρίς κρίση.",
}
QRELS = {"ev1": {"PK::372": 1}, "ev2": {"PK::372": 1, "PK::374": 0}, "ev3": {"PK::375": 1}}


def test_stems_fold_word_forms_and_leave_numbers_and_short_words_out() -> None:
    assert stems("πορτοφόλι") == stems("ΠΟΡΤΟΦΌΛΙ") == stems("πορτοφολιού") == {"πορτοφολ"}
    assert stems("Το πορτοφόλι, 2 φορές και 150 ευρώ") == {"πορτοφολ", "φορ", "κα", "ευρ"}  # no «το», no numbers


def test_the_log_counts_each_articles_judged_queries_and_their_words() -> None:
    log = JudgedLog.build(TEXTS, QRELS)
    assert log.queries == 3  # ev4 has no relevant article; PK::374 (grade 0) answered nothing
    assert log.count == {"PK::372": 2, "PK::375": 1}
    wallet = next(iter(stems("πορτοφόλι")))
    assert log.bags["PK::372"][wallet] == 2 and log.df[wallet] == 2 and wallet not in log.bags["PK::375"]


def test_a_query_about_a_wallet_finds_the_article_people_asked_about_wallets() -> None:
    log = JudgedLog.build(TEXTS, QRELS)
    cols = log.columns("Βρήκα ανοιχτή τσάντα, λείπει πορτοφόλι.", ["PK::375", "PK::372", "PK::999"])
    assert cols.shape == (3, len(JUDGED_FEATURES)) and cols.dtype == np.float32
    assert cols[1, 0] == pytest.approx(math.log1p(2)) and cols[0, 0] == pytest.approx(math.log1p(1))
    assert cols[1, 1] > 0 and cols[0, 1] == 0  # the wallet's stem is in PK::372's queries, not in PK::375's
    idf = math.log((3 + 1) / (2 + 0.5))  # the wallet's stem: in 2 of the 3 judged queries, in both of PK::372's
    assert cols[1, 1] == pytest.approx(idf * 2 / 2, rel=1e-6)
    assert cols[1, 2] == pytest.approx(cols[1, 1] / len(stems("Βρήκα ανοιχτή τσάντα, λείπει πορτοφόλι.")),
                                       rel=1e-6)
    assert not cols[2].any()  # an article no judged query answered: zeros, not missing values


def test_without_is_the_log_of_the_other_queries_so_a_case_never_vouches_for_itself() -> None:
    log = JudgedLog.build(TEXTS, QRELS)
    rest = log.without(["ev1"])
    assert rest == JudgedLog.build({q: t for q, t in TEXTS.items() if q != "ev1"}, QRELS)
    assert rest.count == {"PK::372": 1, "PK::375": 1} and rest.queries == 2
    assert not log.without(["ev1", "ev2"]).columns(TEXTS["ev1"], ["PK::372"]).any()  # nothing left to vouch for it


def test_the_log_saves_and_loads_back_and_an_altered_file_is_refused(tmp_path: Path) -> None:
    log = JudgedLog.build(TEXTS, QRELS)
    digest = log.save(tmp_path / "m.judged.json")
    back = load_log(tmp_path / "m.judged.json", digest)
    assert back == log and np.array_equal(back.columns(TEXTS["ev2"], ["PK::372", "PK::375"]),
                                          log.columns(TEXTS["ev2"], ["PK::372", "PK::375"]))
    (tmp_path / "m.judged.json").write_text(json.dumps({**log.to_json(), "queries": 4}), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"m\.judged\.json is not the judged queries' log the model was trained with"):
        load_log(tmp_path / "m.judged.json", digest)
    (tmp_path / "bad.json").write_text('{"format": 1, "tokenizer": "x"}', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.json: field format/tokenizer"):
        load_log(tmp_path / "bad.json")
    with pytest.raises(ConfigError, match=r"the judged queries' log .*absent\.json"):
        load_log(tmp_path / "absent.json")


def _judged_model(tmp_path: Path) -> Path:
    """A model over the judged features (synthetic pools: the relevant rows are those with a judged match)."""
    rng = np.random.default_rng(4)
    matrices, labels = [], []
    for _ in range(30):
        x = rng.random((10, len(JUDGED_MODEL_FEATURES))).astype(np.float32)
        y = np.zeros(10)
        y[:2] = 1
        x[:, -2] = 0.0  # judged_match: the relevant rows' only
        x[:2, -2] = rng.uniform(0.2, 1.0, 2)
        matrices.append(x)
        labels.append(y)
    model = train(matrices, labels, rounds=10, feature_names=JUDGED_MODEL_FEATURES)
    assert model.card["features_version"] == JUDGED_VERSION
    model = model.with_log(JudgedLog.build(TEXTS, QRELS), tmp_path / "m.judged.json")
    model.save(tmp_path / "m")
    return tmp_path / "m"


def test_a_model_reading_the_judged_queries_ships_its_log_and_scores_with_it(tmp_path: Path) -> None:
    base = _judged_model(tmp_path)
    card = json.loads(base.with_suffix(".json").read_text(encoding="utf-8"))
    assert card["judged"]["file"] == "m.judged.json" and card["judged"]["queries"] == 3 and card["judged"]["articles"] == 2
    model = load(base)
    assert model.log is not None and model.bridged
    features = np.zeros((2, len(JUDGED_MODEL_FEATURES) - len(JUDGED_FEATURES)), dtype=np.float32)
    rows = model.matrix("το πορτοφόλι μου", ["PK::375", "PK::372"], features)
    assert rows.shape == (2, len(JUDGED_MODEL_FEATURES)) and rows[1, -2] > 0 == rows[0, -2]
    assert model.score(rows)[1] > model.score(rows)[0]  # the wallet's article, by its judged queries
    plain = load(Path(__file__).resolve().parent.parent / "nomos/retrieval/ltr/models/ltr-v6")
    one = features[:1]
    assert plain.log is None and plain.matrix("x", ["a"], one) is one  # a model without a log: the rows as read


def test_a_judged_model_without_its_log_or_a_log_without_the_features_is_one_clear_error(tmp_path: Path) -> None:
    base = _judged_model(tmp_path)
    card_file = base.with_suffix(".json")
    good = json.loads(card_file.read_text(encoding="utf-8"))
    (tmp_path / "m.judged.json").unlink()
    with pytest.raises(ConfigError, match=r"the judged queries' log .*m\.judged\.json"):
        load(base)
    card_file.write_text(json.dumps({k: v for k, v in good.items() if k != "judged"}), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"m\.json: field judged: a model reading the judged queries' features"):
        load(base)
    card_file.write_text(json.dumps({**good, "judged": {**good["judged"], "file": "../elsewhere.json"}}), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"field judged\.file: '\.\./elsewhere\.json' is not a file beside the card"):
        load(base)
