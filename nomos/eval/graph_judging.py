"""The legal graph's blind batches (issue 36) scored from readers' judgments: precision on edges drawn at random
(the warnings batch: amendment-kind edges that land on a corpus article; the random batch: any edge that does),
recall on passages drawn at random, each against what readers who have not seen the extractor's rules found there.

The batches are files written by bench/graph_batches.py under bench/data/graph-judging/ (how they were drawn is in
their ``about.json``); the judgments are a file the readers fill in, one JSON object a line, keyed by item id:

* an edge: ``{"id": "w-003", "target_right": "yes", "kind_right": "no", "right_kind": "cites"}`` (``right_target``
  / ``right_kind`` / ``note`` optional). The edge is right when both are "yes".
* a passage: ``{"id": "r-012", "references": [{"target": "PD_54_2018::13", "kind": "replaces"}, …]}``: every article
  reference in the passage's own voice, the target as a corpus-style id or a citation («άρθρο 13 π.δ. 54/2018»).
  A reference is found when an extracted one in the passage names the same article (each extracted reference
  matches one listed at most), and found with its kind when that one's kind is the reader's too.

Files and numbers only, like the rest of ``nomos.eval``: the extractor's edges come in the batch files.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nomos.json_input import parse_json
from nomos.legal.graph.vocabulary import ORDINAL, ordinal_value
from nomos.legal.text.citations import parse_citation
from nomos.legal.text.folding import fold
from nomos.legal.text.ids import IdResolver

YES, NO = "yes", "no"


class JudgmentError(ValueError):
    """A judgments or batch file that cannot be read as the README describes (names the file, line and field)."""


def wilson(right: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of ``right/total`` (95% by default): one batch of 170 does not pin a rate to the
    third decimal, and the interval says how far it does."""
    if not total:
        return 0.0, 0.0
    p = right / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The objects of a JSON-lines file, blank lines skipped; an unreadable line names its file and number."""
    out: list[dict[str, Any]] = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        item = parse_json(line, f"{path}:{n}", lambda where, why: JudgmentError(f"{where}: not JSON ({why})"))
        if not isinstance(item, dict) or "id" not in item:
            raise JudgmentError(f"{path}:{n}: an object with an 'id' is expected")
        out.append(item)
    return out


def article_id(written: str) -> str:
    """A reader's target as the key ids are compared by: an id («PD_54_2018::13», any case) or a citation («άρθρο 13
    π.δ. 54/2018», «ΠΚ 372»); the citation's first article where it names several."""
    written = written.strip()
    if "::" in written:
        return IdResolver.key(written)
    cited = parse_citation(written) or parse_citation(_numbered(written))
    if not cited:
        raise JudgmentError(f"{written!r} is neither an article id nor a citation")
    return IdResolver.key(cited[0].id)


def _numbered(written: str) -> str:
    """An article numbered in words as a reader writes it («άρθρο έκτο ν. 4057/2012») with its number in
    figures («άρθρο 6 ν. 4057/2012»), as the extractor files it; anything else as it is."""
    folded = fold(written)
    m = ORDINAL.search(folded)
    number = ordinal_value(m["ord"]) if m else None
    return written if m is None or number is None else f"άρθρο {number} {folded[m.end():].strip()}"


@dataclass
class EdgeScore:
    """Precision on one batch of edges: judged, target right, kind right, both (right), and what was wrong."""

    batch: str
    judged: int = 0
    target_right: int = 0
    kind_right: int = 0
    right: int = 0
    unjudged: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)  # edge kind -> judged
    right_by_kind: Counter[str] = field(default_factory=Counter)
    wrong: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.right / self.judged if self.judged else 0.0


def _yes_no(judgment: Mapping[str, Any], key: str, where: str) -> bool:
    value = str(judgment.get(key, "")).strip().lower()
    if value not in (YES, NO):
        raise JudgmentError(f"{where}: '{key}' must be \"yes\" or \"no\", not {judgment.get(key)!r}")
    return value == YES


def score_edges(batch: str, items: Iterable[Mapping[str, Any]], judgments: Mapping[str, Mapping[str, Any]]
                ) -> EdgeScore:
    """Precision of a batch of edges (``items``: the batch file's) against the readers' ``judgments`` by item id;
    an item no reader judged is counted apart, never as right or wrong."""
    score = EdgeScore(batch)
    for item in items:
        judgment = judgments.get(item["id"])
        if judgment is None:
            score.unjudged += 1
            continue
        where = f"judgment {item['id']}"
        target, kind = _yes_no(judgment, "target_right", where), _yes_no(judgment, "kind_right", where)
        score.judged += 1
        score.by_kind[item["kind"]] += 1
        score.target_right += target
        score.kind_right += kind
        if target and kind:
            score.right += 1
            score.right_by_kind[item["kind"]] += 1
        else:
            what = " and ".join(w for w, ok in (("target", target), ("kind", kind)) if not ok)
            right = " ".join(str(judgment[k]) for k in ("right_target", "right_kind") if judgment.get(k))
            score.wrong.append(f"{item['id']} {item['source']} → {item['target']} {item['kind']}: {what} wrong"
                               + (f" (right: {right})" if right else ""))
    return score


@dataclass
class RecallScore:
    """Recall on passages: references the readers listed, found (same article), found with the same kind; what
    the extractor gave there that no reader listed; per stratum of the draw."""

    listed: int = 0
    found: int = 0
    found_kind: int = 0
    extra: int = 0
    passages: int = 0
    unjudged: int = 0
    misses: list[str] = field(default_factory=list)
    # references a reader listed to an act the id scheme has no form for (an act of legislative content, a royal
    # decree): the README asks readers to leave those out, so they are reported apart, not scored
    outside: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.found / self.listed if self.listed else 0.0


def score_passages(items: Iterable[Mapping[str, Any]], judgments: Mapping[str, Mapping[str, Any]]
                   ) -> dict[str, RecallScore]:
    """Recall per stratum of the draw (each item's ``stratum``), and over all (``"all"``)."""
    scores: dict[str, RecallScore] = {"all": RecallScore()}
    for item in items:
        judgment = judgments.get(item["id"])
        buckets = [scores["all"], scores.setdefault(item["stratum"], RecallScore())]
        if judgment is None:
            for s in buckets:
                s.unjudged += 1
            continue
        listed = judgment.get("references")
        if not isinstance(listed, list):
            raise JudgmentError(f"judgment {item['id']}: 'references' must be a list (empty where there are none)")
        extracted = [(IdResolver.key(e["cited"]), IdResolver.key(e["target"]) if e.get("target") else None, e["kind"])
                     for e in item["extracted"]]
        free = list(range(len(extracted)))
        found = found_kind = scored = 0
        for n, ref in enumerate(listed):
            if not isinstance(ref, dict) or not ref.get("target"):
                raise JudgmentError(f"judgment {item['id']}: reference {n} needs a 'target'")
            try:
                want = article_id(str(ref["target"]))
            except JudgmentError:
                for s in buckets:
                    s.outside.append(f"{item['id']} {item['source']}: {ref['target']} (no id for this act)")
                continue
            scored += 1
            match = next((i for i in free if want in extracted[i][:2]), None)
            if match is None:
                for s in buckets:
                    s.misses.append(f"{item['id']} {item['source']}: {ref['target']} {ref.get('kind', '')} not found")
                continue
            free.remove(match)
            found += 1
            found_kind += str(ref.get("kind", "")).strip() == extracted[match][2]
        for s in buckets:
            s.passages += 1
            s.listed += scored
            s.found += found
            s.found_kind += found_kind
            s.extra += len(free)
    return scores


def load_judgments(path: Path) -> dict[str, dict[str, Any]]:
    """The readers' judgments by item id (a later line for the same id replaces an earlier one)."""
    return {j["id"]: j for j in read_jsonl(path)}
