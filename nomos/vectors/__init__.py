"""Encoders (text → L2-normalised vectors) and the on-disk vector cache: the one place both ``ingest`` (filling
k-NN fields) and ``retrieval`` (embedding queries) get vectors from, so neither imports the other. Import public
names from here (``from nomos.vectors import make_encoder``); they load on first use (:mod:`nomos.exports`)."""

from nomos.exports import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    ".encoders": ("Encoder", "EncoderError", "make_encoder", "slug"),
    ".cache": ("EncodeStats", "VectorCache", "encode_cached"),
    ".stored": ("stored_vectors",),
})
