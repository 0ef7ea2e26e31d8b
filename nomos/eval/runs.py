"""Run files in the standard formats: TREC (``qid Q0 docid rank score tag``) and ranx-compatible JSON.

Every write goes to a temporary file in the same folder and is renamed into place, so a crash never leaves a
half-written results file behind.

Why not ranx's ``Run.save`` / ``Run.from_file`` (ranx 0.3.21) for TREC files, though ranx computes the metrics: its
files would not be byte-identical to the ones already written, which ``compare``, the regression files and other
TREC tools read. ``Run.save`` writes the score as Python prints the float (``7.25``, not ``7.250000``), leaves out
the final newline, writes in place (a crash leaves half a file; here :func:`atomic_write_text`), and orders ties as
its numba sort leaves them (here: score desc, then doc id). ``Run.from_file`` reports a malformed line as a pandas
or numba error without the file and line (:class:`RunFormatError` names both). The files written here do read into
ranx unchanged (``Run.from_file(path, kind="trec")``; tests/test_metrics_and_runs.py checks it).
"""

from __future__ import annotations

import glob
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterable, Mapping

from nomos.errors import DataError
from nomos.json_input import parse_json
from nomos.ordering import score_order

Ranking = list[tuple[str, float]]
Run = dict[str, Ranking]
"""query id -> [(doc id, score)], already sorted by (score desc, doc id) and deduplicated."""


class RunFormatError(DataError):
    """A run file that cannot be parsed; names the file and line."""


def sort_ranking(pairs: Iterable[tuple[str, float]], k: int | None = None) -> Ranking:
    """Deduplicate (best score wins) and sort by :func:`nomos.ordering.score_order`: the project's tie rule."""
    best: dict[str, float] = {}
    for doc, score in pairs:
        if doc not in best or score > best[doc]:
            best[doc] = float(score)
    ordered = sorted(best.items(), key=lambda ds: score_order(*ds))
    return ordered if k is None else ordered[:k]


def atomic_write_text(path: Path, text: str, mode: int | None = None) -> None:
    """Write ``text`` to ``path`` via a temporary file and ``os.replace``; ``mode``: the file's (else as readable
    as any file the process makes, its umask applied).

    The temporary file is named after the writer's pid (``.<name>.<pid>.<random>.tmp``): a writer killed before its
    rename leaves one behind, and the next write of the same file removes those whose writer is gone (never one that
    a live process may still rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes 0600; a results file is as readable as any other, unless the caller says otherwise
        os.fchmod(fd, 0o666 & ~process_umask() if mode is None else mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _remove_orphans(path)


def process_umask() -> int:
    """The process's umask, read without changing it (``os.umask`` sets it to read it, which races with threads
    creating files); where /proc is absent, the set-and-restore fallback."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _remove_orphans(path: Path) -> None:
    """Delete temporary files of ``path`` left by writers that died before renaming them."""
    for leftover in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        pid = leftover.name[len(path.name) + 2 :].split(".", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            leftover.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def atomic_write_json(path: Path, obj: Any) -> None:
    atomic_write_text(path, json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=False) + "\n")


def _trec_word(value: str, what: str) -> str:
    """A TREC column: lines are split on white space, so an id with a space (or a NUL, which no reader expects in
    a text file) would shift every column after it; such an id is refused, never written."""
    if not value or any(c.isspace() or c == "\0" for c in value):
        raise DataError(f"{what} {value!r} cannot be written to a TREC run file (its columns are separated by white "
                        "space): ids must be non-empty words without spaces or NUL")
    return value


def format_trec(run: Mapping[str, Ranking], tag: str) -> str:
    """TREC run text; query ids in sorted order, ranks from 1. Ids TREC cannot represent raise :class:`DataError`
    before anything is written."""
    if not tag or any(c.isspace() for c in tag):
        raise ValueError(f"run tag must be a non-empty word, got {tag!r}")
    lines = []
    for qid in sorted(run):
        _trec_word(qid, "query id")
        for rank, (doc, score) in enumerate(run[qid], start=1):
            _trec_word(doc, f"article id (query {qid})")
            lines.append(f"{qid} Q0 {doc} {rank} {score:.6f} {tag}")
    return "\n".join(lines) + ("\n" if lines else "")


def write_trec(path: Path, run: Mapping[str, Ranking], tag: str) -> None:
    atomic_write_text(path, format_trec(run, tag))


def read_trec(path: Path) -> Run:
    """Parse a TREC run, re-sorting each query by the project's tie rule."""
    raw: dict[str, list[tuple[str, float]]] = {}
    with Path(path).open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            cols = line.split()
            if len(cols) != 6:
                raise RunFormatError(f"{path}:{lineno}: expected 6 columns (qid Q0 docid rank score tag), got {len(cols)}")
            try:
                score = float(cols[4])
            except ValueError:
                raise RunFormatError(f"{path}:{lineno}: score {cols[4]!r} is not a number") from None
            raw.setdefault(cols[0], []).append((cols[2], score))
    return {q: sort_ranking(p) for q, p in raw.items()}


def write_json_run(path: Path, run: Mapping[str, Ranking]) -> None:
    """ranx's JSON layout: ``{qid: {doc: score}}`` with documents in rank order."""
    atomic_write_json(path, {q: {d: s for d, s in run[q]} for q in sorted(run)})


def read_json_run(path: Path) -> Run:
    """A ranx JSON run (:func:`write_json_run`); whatever the parser or the layout refuses names the file."""
    text = Path(path).read_text(encoding="utf-8")
    obj = parse_json(text, str(path), lambda where, why: RunFormatError(f"{where}: {why}"))
    if not isinstance(obj, dict) or not all(isinstance(docs, dict) for docs in obj.values()):
        raise RunFormatError(f"{path}: expected an object of queries, each an object of document scores")
    return {q: sort_ranking((d, float(s)) for d, s in docs.items()) for q, docs in obj.items()}
