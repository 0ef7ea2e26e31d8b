"""The Greek prompts of the LLM methods, as Jinja2 templates in ``retrieval/prompts/<set>/``.

Two sets, both written by this project: ``neutral`` (the default) speaks to every area the benchmark spans (civil,
commercial, procedural, public and criminal law) and asks the observer to keep whatever may apply, since only kept
articles are ranked and a strict observer lowers Recall@100 directly; ``paper`` follows the structure of the
GreekBarRetrieval notebook (a worked example in each prompt, an inclusive observer, a planner told not to invent
article ids). Both ask for the same reply shapes, so every parser reads either set.

Each template has a ``system`` and a ``user`` block and renders to a two-message chat. The templates are the
method as much as the code is, so :func:`prompts_info` hashes a set (names and bytes) and every manifest of an
LLM run records the set and that hash: two runs with the same hash asked the model the same questions.

The first line of every system message names the role (``Ρόλος: …``); :func:`prompt_kind` reads it back, which
lets a scripted test server answer each kind of prompt without parsing the rest. Every set keeps those lines.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nomos.errors import ConfigError

if TYPE_CHECKING:  # jinja2 is imported when a prompt is rendered: PROMPT_SETS is read at every start-up (settings)
    from jinja2 import Environment, Template

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
DEFAULT_SET = "neutral"
PROMPT_SETS = ("neutral", "paper")  # the folders of PROMPTS_DIR (NOMOS_PROMPTS, --prompts)
NAMES = ("sparse", "dense", "planner_first", "planner_next", "observer", "rerank")
ROLE_LINES = {
    "Ρόλος: αναδιατυπωτής (λέξεις-κλειδιά).": "sparse",
    "Ρόλος: αναδιατυπωτής (κείμενο).": "dense",
    "Ρόλος: σχεδιαστής αναζήτησης.": "planner",
    "Ρόλος: παρατηρητής.": "observer",
    "Ρόλος: κατατάκτης.": "rerank",
}


def check_set(prompt_set: str) -> str:
    """``prompt_set`` if it is one of :data:`PROMPT_SETS`, else a :class:`ConfigError` naming the setting."""
    if prompt_set not in PROMPT_SETS:
        raise ConfigError(f"unknown prompt set {prompt_set!r} (NOMOS_PROMPTS / --prompts); sets: {', '.join(PROMPT_SETS)}")
    return prompt_set


@lru_cache(maxsize=len(PROMPT_SETS))
def _env(prompt_set: str) -> Environment:
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    return Environment(loader=FileSystemLoader(str(PROMPTS_DIR / prompt_set)), undefined=StrictUndefined,
                       trim_blocks=True, lstrip_blocks=True, autoescape=False, keep_trailing_newline=False)


def _block(template: Template, name: str, context: dict[str, Any]) -> str:
    return "".join(template.blocks[name](template.new_context(context))).strip()


def render(name: str, prompt_set: str = DEFAULT_SET, /, **context: Any) -> list[dict[str, str]]:
    """The chat messages of prompt ``name`` (one of :data:`NAMES`) of ``prompt_set``, filled with ``context``."""
    if name not in NAMES:
        raise ValueError(f"unknown prompt {name!r}; prompts: {', '.join(NAMES)}")
    template = _env(check_set(prompt_set)).get_template(f"{name}.j2")
    return [{"role": "system", "content": _block(template, "system", context)},
            {"role": "user", "content": _block(template, "user", context)}]


def prompts_info(prompt_set: str = DEFAULT_SET) -> dict[str, Any]:
    """The set's name, one hash over its templates (name and bytes, sorted), and each file's own short hash."""
    files = sorted((PROMPTS_DIR / check_set(prompt_set)).glob("*.j2"))
    combined = hashlib.sha256()
    each: dict[str, str] = {}
    for f in files:
        data = f.read_bytes()
        combined.update(f.name.encode() + b"\0" + data + b"\0")
        each[f.name] = hashlib.sha256(data).hexdigest()[:12]
    return {"set": prompt_set, "hash": combined.hexdigest(), "files": each}


def prompt_kind(messages: list[dict[str, Any]]) -> str | None:
    """Which prompt produced ``messages`` ("sparse", "dense", "planner", "observer", "rerank"), from the role line."""
    for m in messages:
        if m.get("role") == "system":
            first = str(m.get("content", "")).strip().splitlines()[:1]
            return ROLE_LINES.get(first[0].strip()) if first else None
    return None
