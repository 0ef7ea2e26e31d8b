"""Reading what a model wrote, in one place: the answer separated from the reasoning around it
(:func:`clean_reply`), and the JSON object inside an answer however it was wrapped (:func:`parse_json_object`).

Servers hand back a model's thinking in several shapes, and each one, left in, breaks every parser downstream (the
observer's JSON extraction fails, the sparse reformulation searches the model's thoughts):

* ``<think>…</think>`` before the answer (Qwen3, DeepSeek-R1 served without a reasoning parser); an opening
  ``<think>`` never closed (the reply was cut by ``max_tokens`` while still thinking: no answer at all); or only
  ``</think>`` (R1's chat template opens the block itself, so the reply starts inside it);
* raw harmony text from gpt-oss (``<|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>final
  <|message|>…``), when the server does not parse the channels;
* ``reasoning_content`` / ``reasoning`` fields beside ``content`` (vLLM and Ollama with a reasoning parser): kept,
  never parsed;
* a code fence around the whole answer.

The reasoning is never thrown away: :class:`~nomos.retrieval.llm.config.Reply` keeps it, so the trace shows why a
model answered as it did.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_THINK_BLOCK = re.compile(r"<think(?:ing)?>(.*?)</think(?:ing)?>", re.S | re.I)
_THINK_OPEN = re.compile(r"<think(?:ing)?>", re.I)
_THINK_CLOSE = re.compile(r"</think(?:ing)?>", re.I)
_HARMONY_PART = re.compile(
    r"(?:<\|start\|>\s*\w*\s*)?<\|channel\|>\s*(?P<channel>\w+)[^<]*?(?:<\|constrain\|>[^<]*)?<\|message\|>"
    r"(?P<body>.*?)(?=<\|end\|>|<\|return\|>|<\|call\|>|<\|start\|>|<\|channel\|>|$)",
    re.S,
)
_HARMONY_TOKEN = re.compile(r"<\|(?:start|end|return|call|message|channel|constrain)\|>")
_WHOLE_FENCE = re.compile(r"^```[\w-]*[ \t]*\n?(.*?)\n?```$", re.S)


@dataclass(frozen=True)
class Cleaned:
    """A reply split into the answer to parse and the reasoning removed from it (``""`` when there was none)."""

    text: str
    reasoning: str = ""


def clean_reply(content: str | None, reasoning_field: str | None = None) -> Cleaned:
    """The answer in ``content`` without thinking text, harmony analysis or a fence around it, and the reasoning
    that was removed, joined after ``reasoning_field`` (a server's ``reasoning_content``/``reasoning``).

    A reply that is nothing but reasoning (cut off while thinking) answers ``""``, so callers see an empty reply
    and fall back, instead of parsing the thoughts.
    """
    text = content or ""
    reasoning: list[str] = [reasoning_field.strip()] if reasoning_field and reasoning_field.strip() else []
    if "<|channel|>" in text or "<|message|>" in text:
        text = _harmony(text, reasoning)
    text = _think(text, reasoning)
    s = text.strip()
    fence = _WHOLE_FENCE.match(s)
    if fence:
        s = fence.group(1).strip()
    return Cleaned(s, "\n\n".join(r for r in reasoning if r))


def _harmony(text: str, reasoning: list[str]) -> str:
    """The ``final`` channel of raw harmony text (the analysis and commentary go to ``reasoning``); ``""`` when the
    reply stopped before a final message."""
    parts = list(_HARMONY_PART.finditer(text))
    if not parts:
        return _HARMONY_TOKEN.sub("", text)
    finals = [m.group("body").strip() for m in parts if m.group("channel").lower() == "final"]
    reasoning.extend(m.group("body").strip() for m in parts if m.group("channel").lower() != "final")
    return finals[-1] if finals else ""


def _think(text: str, reasoning: list[str]) -> str:
    """``text`` without ``<think>`` blocks (closed, left open at the start, or only closed)."""
    for m in _THINK_BLOCK.finditer(text):
        reasoning.append(m.group(1).strip())
    text = _THINK_BLOCK.sub("", text)
    close = _THINK_CLOSE.search(text)
    if close:  # the template opened the block: everything before the close was thinking
        reasoning.append(text[: close.start()].strip())
        text = text[close.end():]
    opened = _THINK_OPEN.search(text)
    if opened and not text[: opened.start()].strip():  # opened, never closed: cut off while thinking
        reasoning.append(text[opened.end():].strip())
        text = ""
    return text


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The JSON object in a reply already cleaned (:func:`clean_reply`: every caller cleans first): the whole reply,
    or inside a ``` fence, or from the first ``{`` to the last ``}``."""
    s = text.strip()
    fence = re.search(r"```(?:json)?\s*(.*?)```", s, re.S)
    tries = [s] + ([fence.group(1).strip()] if fence else [])
    if "{" in s and "}" in s:
        tries.append(s[s.index("{") : s.rindex("}") + 1])
    for t in tries:
        try:
            obj = json.loads(t)
        except (json.JSONDecodeError, ValueError):
            continue
        if isinstance(obj, dict):
            return obj
    return None


def parse_json_list(text: str) -> list[Any] | None:
    """A reply that is a bare JSON list (``["PK::372", …]``), or None."""
    if not text.lstrip().startswith("["):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, list) else None
