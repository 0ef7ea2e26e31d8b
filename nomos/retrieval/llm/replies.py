"""Reading what a model wrote: the JSON object inside a reply, however it was wrapped.

Every LLM method's reply parsing starts here (ReAct's planner and observer, the LLM reranker), so that how
tolerant the reading is gets decided in one place.
"""

from __future__ import annotations

import json
import re
from typing import Any


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The JSON object in a reply: the whole reply, or inside a ``` fence, or from the first ``{`` to the last ``}``."""
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
