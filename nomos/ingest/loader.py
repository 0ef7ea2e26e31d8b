"""One entry point for every dataset spec the CLI accepts: ``greekbar`` or a BEIR folder path."""

from __future__ import annotations

from pathlib import Path

from nomos.ingest.beir import load_beir
from nomos.ingest.huggingface import load_greekbar
from nomos.ingest.records import Dataset

GREEKBAR = "greekbar"


def load_dataset(spec: str, corpus_file: str = "corpus.jsonl", cache_dir: Path | None = None) -> Dataset:
    """``greekbar`` (the default) loads the Hub benchmark; anything else is a path to a BEIR folder."""
    if spec == GREEKBAR:
        return load_greekbar(cache_dir=str(cache_dir / "hf") if cache_dir else None)
    return load_beir(Path(spec), corpus_file=corpus_file)
