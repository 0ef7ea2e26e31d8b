"""What lenient reply parsing costs per LLM reply (issue 23): the observer's reading of one batch of 100 candidate
ids, side by side for a JSON reply, the paper notebook's ``<id> | reason`` lines with variant ids, and the same
after 2 kB of ``<think>`` text; plus the planner. Pure Python, no server: the number to hold against an LLM call's
seconds.

    PYTHONPATH=$PWD python bench/reply_parsing.py
"""

from __future__ import annotations

import json
import timeit

from nomos.retrieval.llm.replies import parse_json_object
from nomos.retrieval.react_parts import parse_observer, parse_planner

IDS = [f"PK::{n}" for n in range(300, 390)] + [f"AK::{n}Α" for n in range(900, 910)]
KEPT = IDS[::7]
JSON_REPLY = json.dumps({"keep": [{"id": d, "reason": "σχετικό με την υπόθεση"} for d in KEPT]}, ensure_ascii=False)
LINES_REPLY = "RELEVANT:\n" + "\n".join(f"{d.lower().replace('Α', 'A')} | σχετικό με την υπόθεση" for d in KEPT)
THINK_REPLY = "<think>\n" + "Εξετάζω κάθε άρθρο χωριστά. " * 70 + "\n</think>\n" + LINES_REPLY
PLANNER_REPLY = "REASON:\nΚλοπή ξένου κινητού.\n\nQUERY:\n" + ", ".join(["κλοπή", "αφαίρεση", "ξένο κινητό πράγμα"] * 8)


def per_call_us(fn, n: int = 2000) -> float:
    return 1e6 * min(timeit.repeat(fn, number=n, repeat=5)) / n


def main() -> None:
    assert len(parse_observer(LINES_REPLY, IDS)[0]) == len(KEPT) == len(parse_observer(THINK_REPLY, IDS)[0])
    rows = [
        ("old path: parse_json_object (JSON reply)", per_call_us(lambda: parse_json_object(JSON_REPLY))),
        ("parse_observer, JSON reply", per_call_us(lambda: parse_observer(JSON_REPLY, IDS))),
        ("parse_observer, notebook lines, variant ids", per_call_us(lambda: parse_observer(LINES_REPLY, IDS))),
        ("parse_observer, 2 kB <think> + lines", per_call_us(lambda: parse_observer(THINK_REPLY, IDS))),
        ("parse_planner, REASON/QUERY sections", per_call_us(lambda: parse_planner(PLANNER_REPLY))),
    ]
    print(f"{len(IDS)} candidate ids, {len(KEPT)} kept")
    for name, us in rows:
        print(f"{name:<48} {us:9.1f} µs/reply")


if __name__ == "__main__":
    main()
