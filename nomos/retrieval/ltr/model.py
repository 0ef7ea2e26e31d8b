"""The learned ranker's model: LightGBM's LambdaMART, saved as its own text file beside a JSON card.

The card (``<name>.json``) says what the model reads and how it was made: the feature list and its version, the
index fields it needs, the training sets and their fingerprint, the parameters and seed, and the cross-validated
figures it was adopted on. Loading checks the card against the code's feature list, so a model trained on other
features is one clear error, never a silent misranking. LightGBM's text format is its own stable, portable format
(no pickle).

Two card formats (``format``): 1 (no key; ``ltr-v3``, ``ltr-v6``, ``ltr-v8``) is one booster in ``<name>.txt``; 2 is a bag of
boosters trained alike but for their seed (and row sampling), their scores averaged, the card naming their files,
and optionally a linear ranker (its coefficients in the card) whose ranks are blended with the bag's: several
scorers that err differently rank a held-out query better than one (issue 46, docs/benchmarks.md).
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
from nomos.retrieval.ltr.judged import JUDGED_FEATURES, JudgedLog, load_log

MODELS = Path(__file__).resolve().parent / "models"
# the shipped model: <name>.txt (LightGBM; a bag's further boosters <name>.booster2.txt…) and <name>.json (its card:
# features, the sets it was trained on, the nested cross-validation it was adopted on, the commit); trained by
# `bench/ltr_study.py --save` (docs/benchmarks.md). ltr-v8, the default, reads the judged queries (its log
# ltr-v8.judged.json beside it, nomos.retrieval.ltr.judged): held out it gained every dev set (objective 0.6986 /
# 0.2196 → 0.7177 / 0.3029). ltr-v7 (a bag of boosters and a linear ranker's ranks) is offered
# (`--rerank ltr:<models>/ltr-v7`): over three repeats it gained a little, nearly all on the extended set
DEFAULT_MODEL = MODELS / "ltr-v8"
# where the index is not the corpus the default model's judged queries speak of (judged.MIN_SHARE): the model
# without their columns, trained on the same queries
UNJUDGED_MODEL = MODELS / "ltr-v6"
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
# a bag's boosters: each samples 80% of the rows every round, with its own seed (PARAMS' seed, +1, +2, …)
BAGGING: dict[str, Any] = {"bagging_fraction": 0.8, "bagging_freq": 1}
FORMATS = (1, 2)  # the card formats this code reads (the module's docstring)
# the bridged features with the judged queries' (nomos.retrieval.ltr.judged): a model whose card names a log
JUDGED_MODEL_FEATURES = (*BRIDGED_FEATURES, *JUDGED_FEATURES)
JUDGED_VERSION = "8"
LINEAR_C = 0.1  # the linear ranker's inverse L2 strength (as scikit-learn's C; explored in session 24)


@dataclass(frozen=True, eq=False)  # arrays: two rankers are equal only when they are one
class LinearRanker:
    """A logistic scorer over standardised features (rows of every pool, classes weighed alike): little on its own,
    but its errors are not the trees', so its ranks blended with theirs steady the top (docs/benchmarks.md)."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float

    def score(self, matrix: np.ndarray) -> np.ndarray:
        return np.asarray(((matrix - self.mean) / self.scale) @ self.coef + self.intercept, dtype=np.float64)

    def to_card(self) -> dict[str, Any]:
        return {"mean": self.mean.tolist(), "scale": self.scale.tolist(), "coef": self.coef.tolist(),
                "intercept": self.intercept}

    @classmethod
    def from_card(cls, data: Mapping[str, Any], width: int, where: Path | str) -> LinearRanker:
        """The card's ``linear``; lists of another length than the features' are a :class:`ConfigError`."""
        try:
            parts = [np.asarray(data[k], dtype=np.float64) for k in ("mean", "scale", "coef")]
            intercept = float(data["intercept"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"learned ranker: {where}: field linear: {exc!s} (mean, scale, coef, intercept)") from None
        if any(p.shape != (width,) for p in parts) or not np.all(parts[1] > 0):
            raise ConfigError(f"learned ranker: {where}: field linear: mean, scale and coef must hold {width} numbers "
                              f"(one a feature; scales positive), got {[p.size for p in parts]}")
        return cls(parts[0], parts[1], parts[2], intercept)


def fit_linear(x: np.ndarray, y: np.ndarray, c: float = LINEAR_C, iterations: int = 50) -> LinearRanker:
    """L2-regularised logistic regression by Newton's method (deterministic, numpy only): every row standardised,
    relevant and other rows weighed alike (balanced classes), the intercept not penalised."""
    mean = x.mean(axis=0, dtype=np.float64)
    scale = x.std(axis=0, dtype=np.float64)
    scale = np.where(scale > 1e-12, scale, 1.0)
    z = np.hstack([(x - mean) / scale, np.ones((x.shape[0], 1))])
    pos = y > 0
    weight = np.where(pos, len(y) / (2.0 * max(int(pos.sum()), 1)), len(y) / (2.0 * max(int((~pos).sum()), 1)))
    penalty = np.full(z.shape[1], 1.0 / c)
    penalty[-1] = 0.0
    w = np.zeros(z.shape[1])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        gradient = z.T @ (weight * (p - pos)) + penalty * w
        hessian = (z * (weight * p * (1 - p))[:, None]).T @ z + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if float(np.max(np.abs(step))) < 1e-8:
            break
    return LinearRanker(mean, scale, w[:-1].copy(), float(w[-1]))


def ranks(scores: np.ndarray) -> np.ndarray:
    """1 for the best score, 2 for the next…; tied scores share their mean rank (so ids, not row order, break ties
    later)."""
    s = np.asarray(scores, dtype=np.float64)
    values, inverse, counts = np.unique(-s, return_inverse=True, return_counts=True)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return (first + (counts + 1) / 2.0)[inverse]


def query_key(text: str) -> str:
    """A training query as the card lists it (``trained_queries``): a short digest of its text, spaces folded, so a
    card names the queries it learned from without carrying them."""
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()[:16]


@dataclass
class RankerModel:
    """Trained LambdaMART boosters (one, or a bag whose scores are averaged), the linear ranker blended by rank where
    ``weight`` > 0, and the card."""

    boosters: list[Any]  # lightgbm.Booster (imported when a model is trained or loaded)
    card: dict[str, Any] = field(default_factory=dict)
    linear: LinearRanker | None = None
    weight: float = 0.0  # the linear ranker's share of the blended rank
    log: JudgedLog | None = None  # the judged queries, where the model reads their columns (card: ``judged``)

    @property
    def bridged(self) -> bool:
        """Whether the model reads the dense bridge's features (:data:`BRIDGED_FEATURES`, first)."""
        return list(self.card.get("features", []))[:len(BRIDGED_FEATURES)] == list(BRIDGED_FEATURES)

    def matrix(self, text: str, ids: Sequence[str], features: np.ndarray) -> np.ndarray:
        """The rows this model scores for a pool: the features read through the node, and where the model reads
        the judged queries (:mod:`nomos.retrieval.ltr.judged`), their columns for ``text`` after them."""
        if self.log is None:
            return features
        return np.hstack([features, self.log.columns(text, ids)])

    def learned_from(self, texts: Iterable[str]) -> int:
        """How many of ``texts`` were training queries of this model: an evaluation over them is in-sample."""
        trained = set(self.card.get("trained_queries") or ())
        return sum(query_key(t) in trained for t in texts)

    def score(self, matrix: np.ndarray) -> np.ndarray:
        """One score per row (higher ranks first): the boosters' mean score, or with the linear ranker the negated
        blend of the two ranks, (1 - weight) x the bag's + weight x the linear ranker's."""
        if matrix.shape[0] == 0:
            return np.zeros(0)
        bag = np.asarray(self.boosters[0].predict(matrix, num_threads=1), dtype=np.float64)
        if len(self.boosters) > 1:
            bag = np.mean([bag] + [b.predict(matrix, num_threads=1) for b in self.boosters[1:]], axis=0)
        if self.linear is None or self.weight <= 0:
            return bag
        return -((1.0 - self.weight) * ranks(bag) + self.weight * ranks(self.linear.score(matrix)))

    def with_linear(self, linear: LinearRanker | None, weight: float) -> RankerModel:
        """The same boosters blended with ``linear`` at ``weight`` (0: the bag alone); the card says so."""
        card = {**self.card, "linear_weight": weight}
        card.pop("linear", None)
        if linear is not None and weight > 0:
            card.update(format=2, linear=linear.to_card())
        return RankerModel(self.boosters, card, linear if weight > 0 else None, weight if linear is not None else 0.0,
                           self.log)

    def with_log(self, log: JudgedLog, path: Path) -> RankerModel:
        """The same model reading ``log``, saved at ``path`` (named in the card with its digest)."""
        digest = log.save(path)
        card = {**self.card, "judged": {"file": path.name, "sha256": digest, "queries": log.queries,
                                        "articles": len(log.count)}}
        return RankerModel(self.boosters, card, self.linear, self.weight, log)

    def save(self, path: Path) -> None:
        """``path``.txt and ``path``.json (the folder is made); a bag's further boosters in ``path``.booster2.txt…,
        named in the card's ``boosters``."""
        path.parent.mkdir(parents=True, exist_ok=True)
        files = booster_files(path, len(self.boosters))
        for booster, f in zip(self.boosters, files, strict=True):
            booster.save_model(str(f))
        card = {**self.card, "boosters": [f.name for f in files]} if self.card.get("format") == 2 else self.card
        path.with_suffix(".json").write_text(json.dumps(card, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def booster_files(base: Path, n: int) -> list[Path]:
    """Where a model's ``n`` boosters live: ``base``.txt, then ``base``.booster2.txt…"""
    return [base.with_suffix(".txt")] + [base.parent / f"{base.name}.booster{i}.txt" for i in range(2, n + 1)]


def train(matrices: Sequence[np.ndarray], labels: Sequence[np.ndarray], *, params: Mapping[str, Any] | None = None,
          rounds: int = ROUNDS, card: Mapping[str, Any] | None = None,
          feature_names: Sequence[str] = FEATURES, bag: int = 1) -> RankerModel:
    """LambdaMART over one pool per query (``matrices[i]`` rows, ``labels[i]`` their relevance). ``feature_names``:
    the matrices' columns (a subset of :data:`FEATURES` in an ablation; a model to ship reads them all). ``bag`` > 1:
    that many boosters, seeds PARAMS' seed + 0, 1, … and :data:`BAGGING` (a card of format 2)."""
    import lightgbm

    sizes = [m.shape[0] for m in matrices if m.shape[0]]
    x = np.concatenate([m for m in matrices if m.shape[0]])
    y = np.concatenate([lab for m, lab in zip(matrices, labels, strict=True) if m.shape[0]])
    chosen = {**PARAMS, **(BAGGING if bag > 1 else {}), **(params or {})}
    seeds = [int(chosen["seed"]) + i for i in range(bag)]
    boosters = []
    for seed in seeds:
        data = lightgbm.Dataset(x, y, group=sizes, feature_name=list(feature_names), free_raw_data=True)
        boosters.append(lightgbm.train({**chosen, "seed": seed}, data, num_boost_round=rounds))
    version = {tuple(BRIDGED_FEATURES): BRIDGED_VERSION, JUDGED_MODEL_FEATURES: JUDGED_VERSION}.get(
        tuple(feature_names), FEATURES_VERSION)
    full_card = {"kind": "lambdamart", "library": f"lightgbm {lightgbm.__version__}", "features": list(feature_names),
                 "features_version": version, "params": chosen, "rounds": rounds,
                 "training_queries": len(sizes), "training_rows": int(x.shape[0]), **(card or {})}
    if bag > 1:
        full_card.update(format=2, seeds=seeds, combine="mean of the boosters' scores")
    return RankerModel(boosters, full_card)


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
    log = judged_log(card, card_file)
    fmt = card.get("format", 1)
    if fmt not in FORMATS:
        raise ConfigError(f"learned ranker: {card_file}: card format {fmt!r}, this code reads formats "
                          f"{', '.join(map(str, FORMATS))}", hint="update nomos or retrain the model with this code")
    if fmt == 1:
        return RankerModel([lightgbm.Booster(model_file=str(txt))], card, log=log)
    names = card.get("boosters")
    if not isinstance(names, list) or not names or names[0] != txt.name:
        raise ConfigError(f"learned ranker: {card_file}: field boosters: a list of the bag's files, {txt.name} first")
    files = [base.parent / str(n) for n in names]
    for f in files:
        if not f.is_file() or f.parent != base.parent:
            raise ConfigError(f"learned ranker: {card_file}: field boosters: no model file at {f}")
    boosters = [lightgbm.Booster(model_file=str(f)) for f in files]
    width = len(card["features"])
    if any(b.num_feature() != width for b in boosters):
        raise ConfigError(f"learned ranker: {card_file}: field boosters: a booster reads "
                          f"{sorted({b.num_feature() for b in boosters})} features, the card lists {width}")
    weight = float(card.get("linear_weight") or 0.0)
    if not 0.0 <= weight < 1.0:
        raise ConfigError(f"learned ranker: {card_file}: field linear_weight: {weight} is not in [0, 1)")
    linear = LinearRanker.from_card(card["linear"], width, card_file) if weight > 0 and "linear" in card else None
    if weight > 0 and linear is None:
        raise ConfigError(f"learned ranker: {card_file}: field linear: missing while linear_weight is {weight}")
    return RankerModel(boosters, card, linear, weight, log)


def judged_log(card: Mapping[str, Any], card_file: Path) -> JudgedLog | None:
    """The judged queries' log the card names (beside it, its digest checked); None where the model reads none. A
    model reads the judged columns if and only if its card names a log: anything else is a :class:`ConfigError`."""
    named = card.get("judged")
    reads = list(card.get("features", [])) == list(JUDGED_MODEL_FEATURES)
    if named is None and not reads:
        return None
    if not isinstance(named, dict) or not reads or not isinstance(named.get("file"), str):
        raise ConfigError(f"learned ranker: {card_file}: field judged: a model reading the judged queries' features "
                          "names their log ({\"file\", \"sha256\"}) and only such a model does")
    where = card_file.parent / named["file"]
    if where.parent != card_file.parent:
        raise ConfigError(f"learned ranker: {card_file}: field judged.file: {named['file']!r} is not a file beside the card")
    return load_log(where, named.get("sha256"))


def check_features(card: Mapping[str, Any], where: Path | str) -> None:
    """The card's feature list must be one the code computes, in order, at its version: :data:`FEATURES` (v3),
    with the dense bridge's, :data:`BRIDGED_FEATURES` (:data:`BRIDGED_VERSION`: v6 reads the law's place in the pool),
    or with the judged queries' after them, :data:`JUDGED_MODEL_FEATURES` (:data:`JUDGED_VERSION`)."""
    got, version = list(card.get("features", [])), str(card.get("features_version", ""))
    if (got, version) in ((list(FEATURES), FEATURES_VERSION), (list(BRIDGED_FEATURES), BRIDGED_VERSION),
                          (list(JUDGED_MODEL_FEATURES), JUDGED_VERSION)):
        return
    wanted = (JUDGED_MODEL_FEATURES if len(got) > len(BRIDGED_FEATURES) else
              BRIDGED_FEATURES if len(got) > len(FEATURES) else FEATURES)
    missing = [f for f in wanted if f not in got]
    extra = [f for f in got if f not in JUDGED_MODEL_FEATURES]
    raise ConfigError(
        f"learned ranker: {where} was trained on features v{version or '?'} ({len(got)} features), this code "
        f"computes v{FEATURES_VERSION} ({len(FEATURES)}) or, with the dense bridge, v{BRIDGED_VERSION} "
        f"({len(BRIDGED_FEATURES)}), and with the judged queries' v{JUDGED_VERSION} ({len(JUDGED_MODEL_FEATURES)})"
        + (f"; missing {', '.join(missing)}" if missing else "") + (f"; unknown {', '.join(extra)}" if extra else ""),
        hint="retrain it with `bench/ltr_study.py --save PATH` on this version")
