"""The learned ranker's model: LightGBM's LambdaMART, saved as its own text file beside a JSON card.

The card (``<name>.json``) says what the model reads and how it was made: the feature list and its version, the
index fields it needs, the training sets and their fingerprint, the parameters and seed, and the cross-validated
figures it was adopted on. Loading checks the card against the code's feature list, so a model trained on other
features is one clear error, never a silent misranking. LightGBM's text format is its own stable, portable format
(no pickle).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nomos.errors import ConfigError
from nomos.retrieval.ltr.features import BRIDGED_FEATURES, BRIDGED_VERSION, FEATURES, FEATURES_VERSION

MODELS = Path(__file__).resolve().parent / "models"
# the shipped model: <name>.txt (LightGBM) and <name>.json (its card: features, the sets it was trained on, the
# nested cross-validation it was adopted on, the commit); trained by `bench/ltr_study.py --save` (docs/benchmarks.md)
DEFAULT_MODEL = MODELS / "ltr-v6"
# where the index holds no dense bridge yet (built before it, or its anchors still being encoded): the ranker
# without the bridge's features, trained on the same queries
PLAIN_MODEL = MODELS / "ltr-v3"

# LambdaMART as chosen by bench/ltr_study.py's grouped cross-validation (docs/benchmarks.md); single-threaded and
# deterministic, so a retrain on the same features gives the same file
PARAMS: dict[str, Any] = {
    "objective": "lambdarank", "metric": "ndcg", "eval_at": [10], "learning_rate": 0.05, "num_leaves": 15,
    "min_data_in_leaf": 20, "feature_fraction": 0.8, "lambdarank_truncation_level": 30, "verbose": -1,
    "deterministic": True, "force_row_wise": True, "num_threads": 1, "seed": 13,
}
ROUNDS = 150
# Named settings over PARAMS that bench/ltr_study.py chooses among by nested cross-validation (each outer fold
# chooses by an inner grouped CV on its training queries only): with about 230 training queries, fewer leaves and
# bagging generalise better than LightGBM's usual defaults.
GRID: dict[str, tuple[dict[str, Any], int]] = {
    "leaves15": ({}, 150),
    "leaves7": ({"num_leaves": 7, "min_data_in_leaf": 50}, 100),
    "leaves7-bagged": ({"num_leaves": 7, "min_data_in_leaf": 50, "bagging_fraction": 0.8, "bagging_freq": 1}, 100),
    "leaves3": ({"num_leaves": 3, "min_data_in_leaf": 50}, 200),
}


def query_key(text: str) -> str:
    """A training query as the card lists it (``trained_queries``): a short digest of its text, spaces folded, so a
    card names the queries it learned from without carrying them."""
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()[:16]


@dataclass
class RankerModel:
    """A trained LambdaMART booster and its card."""

    booster: Any  # lightgbm.Booster (imported when a model is trained or loaded)
    card: dict[str, Any] = field(default_factory=dict)

    @property
    def bridged(self) -> bool:
        """Whether the model reads the dense bridge's features (:data:`BRIDGED_FEATURES`)."""
        return list(self.card.get("features", [])) == list(BRIDGED_FEATURES)

    def learned_from(self, texts: Iterable[str]) -> int:
        """How many of ``texts`` were training queries of this model: an evaluation over them is in-sample."""
        trained = set(self.card.get("trained_queries") or ())
        return sum(query_key(t) in trained for t in texts)

    def score(self, matrix: np.ndarray) -> np.ndarray:
        """One score per row (higher ranks first)."""
        if matrix.shape[0] == 0:
            return np.zeros(0)
        return np.asarray(self.booster.predict(matrix, num_threads=1), dtype=np.float64)

    def save(self, path: Path) -> None:
        """``path``.txt and ``path``.json (the folder is made)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self.booster.save_model(str(path.with_suffix(".txt")))
        path.with_suffix(".json").write_text(json.dumps(self.card, ensure_ascii=False, indent=1) + "\n",
                                             encoding="utf-8")


def train(matrices: Sequence[np.ndarray], labels: Sequence[np.ndarray], *, params: Mapping[str, Any] | None = None,
          rounds: int = ROUNDS, card: Mapping[str, Any] | None = None,
          feature_names: Sequence[str] = FEATURES) -> RankerModel:
    """LambdaMART over one pool per query (``matrices[i]`` rows, ``labels[i]`` their relevance). ``feature_names``:
    the matrices' columns (a subset of :data:`FEATURES` in an ablation; a model to ship reads them all)."""
    import lightgbm

    sizes = [m.shape[0] for m in matrices if m.shape[0]]
    x = np.concatenate([m for m in matrices if m.shape[0]])
    y = np.concatenate([lab for m, lab in zip(matrices, labels, strict=True) if m.shape[0]])
    data = lightgbm.Dataset(x, y, group=sizes, feature_name=list(feature_names), free_raw_data=True)
    chosen = {**PARAMS, **(params or {})}
    booster = lightgbm.train(chosen, data, num_boost_round=rounds)
    version = BRIDGED_VERSION if list(feature_names) == list(BRIDGED_FEATURES) else FEATURES_VERSION
    full_card = {"kind": "lambdamart", "library": f"lightgbm {lightgbm.__version__}", "features": list(feature_names),
                 "features_version": version, "params": chosen, "rounds": rounds,
                 "training_queries": len(sizes), "training_rows": int(x.shape[0]), **(card or {})}
    return RankerModel(booster, full_card)


def load(path: Path | str = DEFAULT_MODEL) -> RankerModel:
    """The model at ``path`` (``.txt`` and ``.json``); a missing file or a card whose features differ from the code's
    is a :class:`ConfigError` that names the file."""
    import lightgbm

    base = Path(path)
    base = base.with_suffix("") if base.suffix in (".txt", ".json") else base
    txt, card_file = base.with_suffix(".txt"), base.with_suffix(".json")
    for f in (txt, card_file):
        if not f.is_file():
            raise ConfigError(f"learned ranker: no model file at {f}",
                              hint="train one with `bench/ltr_study.py --save PATH` and pass --rerank ltr:PATH, or use --rerank none")
    try:
        card = json.loads(card_file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"learned ranker: {card_file}:{exc.lineno}: not JSON ({exc.msg})") from None
    check_features(card, card_file)
    return RankerModel(lightgbm.Booster(model_file=str(txt)), card)


def check_features(card: Mapping[str, Any], where: Path | str) -> None:
    """The card's feature list must be one the code computes, in order, at its version: :data:`FEATURES` (v3) or
    with the dense bridge's, :data:`BRIDGED_FEATURES` (:data:`BRIDGED_VERSION`: v6 reads the law's place in the pool)."""
    got, version = list(card.get("features", [])), str(card.get("features_version", ""))
    if (got, version) in ((list(FEATURES), FEATURES_VERSION), (list(BRIDGED_FEATURES), BRIDGED_VERSION)):
        return
    wanted = BRIDGED_FEATURES if len(got) > len(FEATURES) else FEATURES
    missing = [f for f in wanted if f not in got]
    extra = [f for f in got if f not in BRIDGED_FEATURES]
    raise ConfigError(
        f"learned ranker: {where} was trained on features v{version or '?'} ({len(got)} features), this code "
        f"computes v{FEATURES_VERSION} ({len(FEATURES)}) or, with the dense bridge, v{BRIDGED_VERSION} "
        f"({len(BRIDGED_FEATURES)})"
        + (f"; missing {', '.join(missing)}" if missing else "") + (f"; unknown {', '.join(extra)}" if extra else ""),
        hint="retrain it with `bench/ltr_study.py --save PATH` on this version")
