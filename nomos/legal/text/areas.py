"""Legal sources: the legal area each belongs to (for the portal's area facet and filter) and the short name a
citation uses («άρθρο 372 ΠΚ», «άρθρο 5 ν. 4624/2019»).

The data lives in ``areas.json`` beside this file (its ``_doc`` says where each assignment comes from); this module
only applies it. An article's area is decided, first match wins, by:

1. the corpus record's own ``area`` field (a key or a Greek label of ``areas``), so a corpus that knows better wins;
2. ``sources[source].area``: the real benchmark's code prefixes (``AK``, ``KPolD``, ``PK``, ``KPD`` …), common
   commercial statutes, and each of the stand-in's 67 sources;
3. ``title_rules``: keyword patterns (regular expressions, written in folded form) on the law's title, lowercased
   with accents and final sigma folded (a new law of a known kind gets its area without editing the table);
4. the fallback, «Λοιπή νομοθεσία».

Short names: ``sources[source].short`` (the codes' abbreviations), else the number of a law or presidential decree
read from the source id (``N_4624_2019`` → ``ν. 4624/2019``, ``PD_131_2003`` → ``π.δ. 131/2003``), else
``short_rules`` on the law title (``Ποινικός Κώδικας`` → ``ΠΚ``), else a law number found in the title
(``Ν. 4727/2020`` → ``ν. 4727/2020``), else the source id itself.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nomos.mappings import MappingError, load_json

AREAS_FILE = Path(__file__).parent / "areas.json"


@dataclass(frozen=True)
class Area:
    """A legal area: a stable key (what the index stores and the ``area`` parameter takes) and its Greek label."""

    key: str
    label: str


@dataclass(frozen=True)
class AreaTable:
    areas: dict[str, Area]
    fallback: str
    sources: dict[str, dict[str, str]]
    title_rules: tuple[tuple[re.Pattern[str], str], ...]
    short_rules: tuple[tuple[re.Pattern[str], str], ...]


def fold(text: str) -> str:
    """Lowercase without accents, final sigma as sigma: what title rules are written against."""
    decomposed = unicodedata.normalize("NFD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c)).replace("ς", "σ").replace("\u00ad", "")


def _compile(rules: Any, value: str, areas: dict[str, Area] | None, path: Path) -> tuple[tuple[re.Pattern[str], str], ...]:
    out = []
    for i, rule in enumerate(rules or ()):
        try:
            pattern, target = re.compile(rule["pattern"].replace("ς", "σ")), str(rule[value])
        except (KeyError, TypeError, re.error) as exc:
            raise MappingError(f"{path}: rule {i}: {exc}") from None
        if areas is not None and target not in areas:
            raise MappingError(f"{path}: rule {i} names unknown area {target!r}")
        out.append((pattern, target))
    return tuple(out)


def load_table(path: Path = AREAS_FILE) -> AreaTable:
    """Read and check ``areas.json``: every area a source or rule names exists, and so does the fallback."""
    raw = load_json(path)
    try:
        areas = {k: Area(k, str(v["label"])) for k, v in raw["areas"].items()}
        fallback = str(raw["fallback"])
        sources = {str(k): dict(v) for k, v in raw["sources"].items()}
    except (KeyError, TypeError, AttributeError) as exc:
        raise MappingError(f"{path}: expected areas, fallback and sources ({exc})") from None
    if fallback not in areas:
        raise MappingError(f"{path}: fallback {fallback!r} is not one of the areas")
    for src, entry in sources.items():
        if entry.get("area") not in areas:
            raise MappingError(f"{path}: source {src!r} names unknown area {entry.get('area')!r}")
    return AreaTable(areas, fallback, sources, _compile(raw.get("title_rules"), "area", areas, path),
                     _compile(raw.get("short_rules"), "short", None, path))


@functools.lru_cache(maxsize=1)
def table() -> AreaTable:
    """The packaged table, read once."""
    return load_table()


def areas() -> dict[str, Area]:
    """Every area, in the table's order (the order a page lists them in)."""
    return table().areas


def resolve_area(value: str) -> str | None:
    """A corpus's ``area`` value (a key, in any case, or a Greek label) as a key; None when it is neither."""
    t = table()
    v = value.strip()
    if v.lower() in t.areas:
        return v.lower()
    by_label = {fold(a.label): a.key for a in t.areas.values()}
    return by_label.get(fold(v))


def area_of(source: str, law: str = "") -> str:
    """The area key of a legal source (steps 2–4 of the module docstring; the corpus field is the loader's)."""
    t = table()
    entry = t.sources.get(source)
    if entry:
        return entry["area"]
    title = fold(law)
    for pattern, key in t.title_rules:
        if pattern.search(title):
            return key
    return t.fallback


def label(key: str) -> str:
    """The Greek label of an area key (the key itself for an unknown one, e.g. from an older table)."""
    a = table().areas.get(key)
    return a.label if a else key


_NUMBERED = re.compile(r"^(N|PD)_(\d+[A-Za-z]?)_(\d{4})$")
_IN_TITLE = re.compile(r"\b(ν|π\.\s?δ)\.\s?(\d+[α-ω]?)\s?/\s?(\d{4})")
_KIND = {"N": "ν.", "PD": "π.δ.", "ν": "ν."}


def short_name(source: str, law: str = "") -> str:
    """How a citation names a legal source: «ΠΚ», «ν. 4624/2019», «π.δ. 131/2003» (rules in the module docstring)."""
    t = table()
    entry = t.sources.get(source) or {}
    if entry.get("short"):
        return entry["short"]
    m = _NUMBERED.match(source)
    if m:
        return f"{_KIND[m.group(1)]} {m.group(2)}/{m.group(3)}"
    title = fold(law)
    for pattern, short in t.short_rules:
        if pattern.search(title):
            return short
    m = _IN_TITLE.search(title)
    if m:
        kind = "ν." if m.group(1) == "ν" else "π.δ."
        return f"{kind} {m.group(2)}/{m.group(3)}"
    return source or law
