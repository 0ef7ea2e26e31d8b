"""Process entry point of the local LLM server: ``python -m nomos.localllm.serve --gguf F --port P``.

:func:`nomos.localllm.server.start` launches it detached. xllamacpp's ``Server`` answers HTTP from its own
threads for as long as the object lives, so this process only keeps it alive until SIGTERM/SIGINT.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m nomos.localllm.serve", description=__doc__)
    ap.add_argument("--gguf", required=True, type=Path, help="GGUF model file")
    ap.add_argument("--port", required=True, type=int)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--ctx", type=int, default=4096, help="context size in tokens")
    ap.add_argument("--threads", type=int, default=1, help="CPU threads for generation and prompt processing")
    ap.add_argument("--alias", default=None, help="model name /v1/models reports (default: the file's stem)")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import xllamacpp as xlc

    p = xlc.CommonParams()
    p.model.path = str(args.gguf)
    p.model_alias = {args.alias or args.gguf.stem}
    p.n_ctx = args.ctx
    p.cpuparams.n_threads = args.threads
    p.cpuparams_batch.n_threads = args.threads
    p.hostnames = [args.host]
    p.port = args.port
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    server = xlc.Server(p)
    print(f"nomos.localllm.serve: {args.gguf} on {server.listening_address} (ctx {args.ctx}, threads {args.threads})", flush=True)
    while not stop.wait(1.0):
        pass
    print("nomos.localllm.serve: stopping", flush=True)
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
