"""The Greek prompts of the LLM methods, as Jinja2 templates in ``retrieval/prompts/``.

Each template has a ``system`` and a ``user`` block and renders to a two-message chat. The templates are the
method as much as the code is, so :func:`prompts_info` hashes them (names and bytes) and every manifest of an
LLM run records that hash: two runs with the same hash asked the model the same questions.

The first line of every system message names the role (``Ρόλος: …``); :func:`prompt_kind` reads it back, which
lets a scripted test server answer each kind of prompt without parsing the rest.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
NAMES = ("sparse", "dense", "planner_first", "planner_next", "observer", "rerank")
ROLE_LINES = {
    "Ρόλος: αναδιατυπωτής (λέξεις-κλειδιά).": "sparse",
    "Ρόλος: αναδιατυπωτής (κείμενο).": "dense",
    "Ρόλος: σχεδιαστής αναζήτησης.": "planner",
    "Ρόλος: παρατηρητής.": "observer",
    "Ρόλος: κατατάκτης.": "rerank",
}


@lru_cache(maxsize=1)
def _env() -> Environment:
    return Environment(loader=FileSystemLoader(str(PROMPTS_DIR)), undefined=StrictUndefined, trim_blocks=True,
                       lstrip_blocks=True, autoescape=False, keep_trailing_newline=False)


def _block(template: Template, name: str, context: dict[str, Any]) -> str:
    return "".join(template.blocks[name](template.new_context(context))).strip()


def render(name: str, **context: Any) -> list[dict[str, str]]:
    """The chat messages of prompt ``name`` (one of :data:`NAMES`) filled with ``context``."""
    if name not in NAMES:
        raise ValueError(f"unknown prompt {name!r}; prompts: {', '.join(NAMES)}")
    template = _env().get_template(f"{name}.j2")
    return [{"role": "system", "content": _block(template, "system", context)},
            {"role": "user", "content": _block(template, "user", context)}]


def prompts_info() -> dict[str, Any]:
    """One hash over every template (name and bytes, sorted), plus each file's own short hash."""
    files = sorted(PROMPTS_DIR.glob("*.j2"))
    combined = hashlib.sha256()
    each: dict[str, str] = {}
    for f in files:
        data = f.read_bytes()
        combined.update(f.name.encode() + b"\0" + data + b"\0")
        each[f.name] = hashlib.sha256(data).hexdigest()[:12]
    return {"hash": combined.hexdigest(), "files": each}


def prompt_kind(messages: list[dict[str, Any]]) -> str | None:
    """Which prompt produced ``messages`` ("sparse", "dense", "planner", "observer", "rerank"), from the role line."""
    for m in messages:
        if m.get("role") == "system":
            first = str(m.get("content", "")).strip().splitlines()[:1]
            return ROLE_LINES.get(first[0].strip()) if first else None
    return None
