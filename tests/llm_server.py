"""A scripted OpenAI-protocol chat server for tests and benchmarks (no LLM involved).

It speaks ``POST /v1/chat/completions`` with ``usage`` tokens, so the real ``openai`` client talks to it as to any
endpoint. Each request is answered by the kind of prompt it carries (read from the role line, see
:func:`retrieval.prompts.prompt_kind`), by an *oracle* that knows the gold articles of each query:

* observer: keeps the candidates that are gold for the case in the prompt (plus, with ``noise``, the first
  candidate of each batch, so non-gold articles get kept too);
* planner: round 1 asks with the case's first words; round r ≥ 2 asks with the title and a 25-word window of
  gold article (r - 2) mod |gold| (the window moves on each time round), so the curve rises over rounds;
* sparse / dense reformulation: gold titles plus the question's words / the first gold sentence;
* rerank (listwise): the gold candidates first, then the others in reverse order.

So numbers produced against it measure the machinery (search, fetch, batching, bookkeeping, ranking), never an
LLM. Tests script other replies per prompt kind (``script``) and inject faults (``inject``: HTTP 429 / 500,
slow replies that time out, dropped connections, a quota 429, a 429 with a long Retry-After, a 400 context-length
error); ``delay`` makes every answer take a fixed time.

A script answers with a string (the ``content``) or with a :class:`Shape`, to answer the way real servers do: a
``reasoning_content`` / ``reasoning`` field beside the content (vLLM, Ollama), a ``finish_reason`` of ``length``
(cut by max tokens) or ``content_filter`` (a refusal), ``content: null``. :data:`SHAPES` holds the texts servers
send (thinking text, raw harmony, fences, the paper notebook's formats).

Run it standalone for end-to-end runs: ``python -m tests.llm_server --dataset ../shared/data/greek-statutes``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, HTTPServer, ThreadingHTTPServer
from pathlib import Path
from socketserver import ForkingMixIn
from typing import Any

from nomos.retrieval.llm import LLMClient, LLMConfig, Reply
from nomos.retrieval.prompts import prompt_kind, render

CASE = re.compile(r'"""\n(.*?)\n"""', re.S)
CANDIDATE = re.compile(r"^=== \[([^\]]+)\]", re.M)
ROUND = re.compile(r"Γύρος (\d+) από (\d+)")



@dataclass(frozen=True)
class Shape:
    """A whole reply as a server sends it: ``content`` (None: JSON null), an optional reasoning field under its
    server's name, and the ``finish_reason``."""

    content: str | None
    finish_reason: str = "stop"
    reasoning_content: str | None = None  # vLLM's field
    reasoning: str | None = None  # Ollama's / OpenRouter's field


Script = Callable[[dict[str, Any]], "str | Shape | None"]

SHAPES: dict[str, str] = {
    # Qwen3 / R1 without a reasoning parser: thinking in the content
    "think": "<think>\nΗ υπόθεση αφορά κλοπή· {\"keep\": []} δεν είναι η απάντηση.\n</think>\n\n{body}",
    # R1's template opened <think> itself: only the closing tag arrives
    "think_closed_only": "Σκέφτομαι τα άρθρα...\n</think>\n{body}",
    # cut while still thinking
    "think_unclosed": "<think>\nΣκέφτομαι ακόμη για το άρθρο PK::372 και",
    # gpt-oss served without a harmony parser
    "harmony": "<|channel|>analysis<|message|>Need the theft articles; maybe PK::999.<|end|>"
               "<|start|>assistant<|channel|>final<|message|>{body}<|return|>",
    "fence": "```json\n{body}\n```",
}


def shaped(name: str, body: str) -> str:
    """:data:`SHAPES` ``name`` around ``body``."""
    return SHAPES[name].replace("{body}", body)


@dataclass
class ScriptedLLM:
    """The server; use as a context manager (``with ScriptedLLM(...) as llm: llm.base_url``)."""

    gold: Mapping[str, Sequence[str]] = field(default_factory=dict)  # case text -> gold article ids
    articles: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # id -> (title, text)
    delay: float = 0.0
    noise: bool = True
    host: str = "127.0.0.1"
    port: int = 0
    requests: list[dict[str, Any]] = field(default_factory=list)
    faults: deque = field(default_factory=deque)
    scripts: dict[str, Script] = field(default_factory=dict)
    forking: bool = False  # one process per request: the server's JSON parsing scales over cores (benchmarks only;
    # the request log, faults and scripts are then not shared back, so tests keep threads)
    fault_for: Callable[[dict[str, Any]], str | None] | None = None  # a fault chosen by looking at the prompt
    in_flight: int = 0
    max_in_flight: int = 0
    # a server's context: prompts over ``context`` tokens (at ``chars_per_token``) get the 400 llama.cpp answers;
    # ``tokenize`` serves POST /tokenize in "llama.cpp" or "vllm" shape (None: 404, as OpenAI and Ollama)
    context: int | None = None
    chars_per_token: float = 2.5
    tokenize: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _server: ThreadingHTTPServer | None = None

    # ----------------------------------------------------------------------------------------------- control
    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://{self.host}:{self._server.server_address[1]}/v1"

    def inject(self, *faults: str) -> None:
        """Queue faults for the next requests, one each: an HTTP status ("429", "500", "401"…), "timeout:SECONDS"
        (answer only after that long), "drop" (close the connection without an answer), "context" (vLLM's and
        OpenAI's 400 for a prompt over the context) or "context:llama.cpp" (llama.cpp's)."""
        with self._lock:
            self.faults.extend(faults)

    def script(self, kind: str, fn: Script) -> None:
        """Answer prompts of ``kind`` with ``fn(info)``; returning None falls back to the oracle."""
        self.scripts[kind] = fn

    def count(self, kind: str | None = None) -> int:
        with self._lock:
            return sum(1 for r in self.requests if kind is None or r["kind"] == kind)

    def start(self) -> ScriptedLLM:
        handler = type("Handler", (_Handler,), {"llm": self})
        self._server = (_ForkingHTTPServer if self.forking else ThreadingHTTPServer)((self.host, self.port), handler)
        self._server.daemon_threads = True
        # stop() waits for serve_forever's next poll: 0.5 s by default, paid by every test that uses the server
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> ScriptedLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ----------------------------------------------------------------------------------------------- answers
    def info(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        user = next((str(m.get("content", "")) for m in messages if m.get("role") == "user"), "")
        case = CASE.search(user)
        rnd = ROUND.search(user)
        return {
            "kind": prompt_kind(messages),
            "messages": messages,
            "user": user,
            "case": case.group(1) if case else "",
            "round": int(rnd.group(1)) if rnd else None,
            "candidates": CANDIDATE.findall(user),
            "batch": int(m.group(1)) if (m := re.search(r"ομάδα (\d+) από", user)) else None,
        }

    def answer(self, info: dict[str, Any]) -> str | Shape | None:
        fn = self.scripts.get(info["kind"] or "")
        if fn is not None:
            text = fn(info)
            if text is not None:
                return text
        gold = list(self.gold.get(info["case"].strip(), ()))
        kind = info["kind"]
        if kind == "observer":
            keep = [{"id": d, "reason": "ορίζει το έγκλημα της υπόθεσης"} for d in info["candidates"] if d in gold]
            if self.noise and info["candidates"] and info["candidates"][0] not in gold:
                keep.append({"id": info["candidates"][0], "reason": "πρώτο αποτέλεσμα"})
            return json.dumps({"keep": keep}, ensure_ascii=False)
        if kind == "planner":
            r = info["round"] or 1
            if r == 1 or not gold:
                query = " ".join(info["case"].split()[:40])
            else:
                title, text = self.articles.get(gold[(r - 2) % len(gold)], ("", ""))
                shift = ((r - 2) // len(gold)) * 25  # a new window of the article each time round
                words = text.split()[shift : shift + 25] or text.split()[:25]
                query = f"{title} {' '.join(words)}"
            return json.dumps({"thought": f"γύρος {r}", "query": query}, ensure_ascii=False)
        if kind == "sparse":
            titles = [self.articles.get(d, ("", ""))[0] for d in gold]
            words = [w.strip(";,.") for w in info["case"].split("\n\n")[-1].split()]
            return ", ".join(t for t in titles + words if t)
        if kind == "rerank":  # gold candidates first, then the rest reversed (so a re-ranking visibly moves things)
            cands = info["candidates"]
            ranking = [d for d in cands if d in gold] + [d for d in reversed(cands) if d not in gold]
            return json.dumps({"ranking": ranking}, ensure_ascii=False)
        if kind == "dense":
            titles = [self.articles.get(d, ("", ""))[0] for d in gold]
            first = self.articles.get(gold[0], ("", ""))[1].split(".")[0] if gold else info["case"]
            return f"{' '.join(titles)}. {first}."
        return ""


class _ForkingHTTPServer(ForkingMixIn, HTTPServer):
    max_children = 256


def _tokens(text: str, chars_per_token: float = 2.5) -> int:
    return math.ceil(len(text) / chars_per_token)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    llm: ScriptedLLM

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def setup(self) -> None:
        super().setup()
        # headers and body go out in separate writes: without TCP_NODELAY, Nagle's algorithm and the client's
        # delayed ACK add ~40 ms to every answer, which would be counted as LLM latency
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _send(self, status: int, body: dict[str, Any], headers: Mapping[str, str] | None = None) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up (timeout test)
            pass

    def do_POST(self) -> None:  # http.server's naming
        length = int(self.headers.get("Content-Length", 0))
        payload = json.loads(self.rfile.read(length) or b"{}")
        if self.path == "/tokenize" and self.llm.tokenize:
            self._tokenize(payload)
            return
        if not self.path.endswith("/chat/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        llm = self.llm
        messages = payload.get("messages", [])
        info = llm.info(messages)
        info["params"] = {k: v for k, v in payload.items() if k != "messages"}  # temperature, seed…: scripts may vary by them
        with llm._lock:
            fault = llm.faults.popleft() if llm.faults else None
            if fault is None and llm.fault_for is not None:
                fault = llm.fault_for(info)
            llm.in_flight += 1
            llm.max_in_flight = max(llm.max_in_flight, llm.in_flight)
        try:
            self._reply(llm, payload, messages, info, fault)
        finally:
            with llm._lock:
                llm.in_flight -= 1

    def _tokenize(self, payload: dict[str, Any]) -> None:
        """llama.cpp: {"content"} -> {"tokens": [...]}; vLLM: {"model", "prompt"} -> {"count", "tokens", ...}."""
        llm = self.llm
        text = payload.get("content") if llm.tokenize == "llama.cpp" else payload.get("prompt")
        if not isinstance(text, str):
            self._send(400, {"error": {"message": "missing field", "type": "invalid_request_error"}})
            return
        n = _tokens(text, llm.chars_per_token)
        with llm._lock:
            llm.requests.append({"kind": "tokenize", "round": None, "fault": None, "params": {}})
        body = {"tokens": list(range(n))} if llm.tokenize == "llama.cpp" else {"count": n, "max_model_len": llm.context, "tokens": list(range(n))}
        self._send(200, body)

    def _reply(self, llm: ScriptedLLM, payload: dict[str, Any], messages: list[dict[str, Any]], info: dict[str, Any], fault: str | None) -> None:
        record = {"kind": info["kind"], "round": info["round"], "fault": fault,
                  "params": {k: v for k, v in payload.items() if k != "messages"}}
        with llm._lock:
            llm.requests.append(record)
        if fault and fault.isdigit():  # "429", "500", "503", "401", "400"…: that status, with OpenAI's error body
            status = int(fault)
            headers = {"Retry-After": "0"} if status == 429 else {}
            self._send(status, {"error": {"message": f"scripted HTTP {status}", "type": "scripted"}}, headers)
            return
        if fault == "quota":  # OpenAI's answer when the account has no credit left
            self._send(429, {"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
                                       "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}})
            return
        if fault and fault.startswith("retry-after:"):  # a rate limit asking for a wait of that many seconds
            self._send(429, {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}},
                       {"Retry-After": fault.split(":", 1)[1]})
            return
        if fault == "context":  # vLLM's (OpenAI's) answer to a prompt longer than the model's context
            self._send(400, {"object": "error", "type": "BadRequestError", "code": 400, "param": None,
                             "message": "This model's maximum context length is 4096 tokens. However, you requested "
                                        "15633 tokens in the messages. Please reduce the length of the messages."})
            return
        if fault == "drop":
            self.close_connection = True
            self.connection.close()
            return
        if fault and fault.startswith("timeout:"):
            time.sleep(float(fault.split(":", 1)[1]))
        if llm.delay:
            time.sleep(llm.delay)
        prompt = "".join(str(m.get("content", "")) for m in messages)
        prompt_tokens = _tokens(prompt, llm.chars_per_token)
        if fault == "context:llama.cpp" or (llm.context is not None and prompt_tokens > llm.context):  # over n_ctx
            record["fault"], record["prompt_tokens"] = "context", prompt_tokens
            self._send(400, {"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it",
                                       "type": "exceed_context_size_error", "n_prompt_tokens": prompt_tokens, "n_ctx": llm.context}})
            return
        record["prompt_tokens"] = prompt_tokens
        answer = llm.answer(info)
        shape = answer if isinstance(answer, Shape) else Shape(answer)
        text = shape.content
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if shape.reasoning_content is not None:
            message["reasoning_content"] = shape.reasoning_content
        if shape.reasoning is not None:
            message["reasoning"] = shape.reasoning
        out_tokens = _tokens((text or "") + (shape.reasoning_content or shape.reasoning or ""))
        self._send(200, {
            "id": f"chatcmpl-{len(llm.requests)}",
            "object": "chat.completion",
            "created": 0,
            "model": payload.get("model", "scripted"),
            "choices": [{"index": 0, "message": message, "finish_reason": shape.finish_reason}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": out_tokens,
                      "total_tokens": prompt_tokens + out_tokens},
        })


# ------------------------------------------------------------------------------------- the tests' client of it
PLANNER = render("planner_first", query="Ο Νίκος πήρε ένα ρολόι.\n\nΤι έκανε;", rounds=10)


def client(server: ScriptedLLM, tmp_path: Path | None = None, **kw: Any) -> LLMClient:
    """A client of ``server`` with quick backoff (and a reply cache in ``tmp_path`` when given)."""
    cfg: dict[str, Any] = dict(base_url=server.base_url, model="scripted", backoff=0.01, retries=3,
                               cache_path=(tmp_path / "llm.sqlite") if tmp_path else None)
    cfg.update(kw)
    return LLMClient(LLMConfig(**cfg))


def chat(c: LLMClient, messages: Any = PLANNER, purpose: str = "planner") -> Reply:
    """One completion on a fresh event loop, the client's connections closed after it."""
    async def go() -> Reply:
        try:
            return await c.chat(messages, purpose)
        finally:
            await c.aclose()
    return asyncio.run(go())


def from_beir(folder: Path, **kwargs: Any) -> ScriptedLLM:
    """An oracle server for a BEIR folder: gold ids by query text, titles and texts of the gold articles."""
    folder = Path(folder)
    queries = {q["_id"]: q["text"] for q in map(json.loads, (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines()) if q}
    gold: dict[str, list[str]] = {}
    for line in (folder / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        q, d, s = line.split("\t")
        if int(s) > 0 and q in queries:
            gold.setdefault(queries[q].strip(), []).append(d)
    wanted = {d for ds in gold.values() for d in ds}
    articles: dict[str, tuple[str, str]] = {}
    with (folder / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            a = json.loads(line)
            if a["_id"] in wanted:
                articles[a["_id"]] = (a.get("title", ""), a.get("text", ""))
    return ScriptedLLM(gold=gold, articles=articles, **kwargs)


def main() -> None:
    ap = argparse.ArgumentParser(description="Scripted OpenAI-protocol chat server (an oracle that knows the qrels).")
    ap.add_argument("--dataset", type=Path, required=True, help="BEIR folder whose qrels the oracle uses.")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--delay", type=float, default=0.0, help="Seconds before every answer.")
    ap.add_argument("--no-noise", action="store_true", help="Observer keeps gold articles only.")
    ap.add_argument("--threads", action="store_true", help="Answer in threads of one process instead of a process per request.")
    args = ap.parse_args()
    server = from_beir(args.dataset, port=args.port, delay=args.delay, noise=not args.no_noise, forking=not args.threads).start()
    print(server.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
