"""``llm``: the local LLM server (a GGUF served by xllamacpp on 127.0.0.1)."""

from __future__ import annotations

from pathlib import Path

import click

from nomos.cli.main import cli
from nomos.cli.output import print_llm_status
from nomos.settings import Settings


@cli.group("llm")
def llm_group() -> None:
    """The local LLM server (a GGUF served by xllamacpp on 127.0.0.1): LLM methods use it when NOMOS_LLM_BASE_URL
    is unset. The bundled SmolLM2-135M is English only (plumbing and tests, not Greek legal rewriting)."""


# --port here is the LLM server's, so these verbs do not take the global --port (the OpenSearch node's) after the verb
llm_port_option = click.option("--port", "llm_port", type=int, default=None, help="Port of the LLM server (default NOMOS_LLM_PORT, 8090).")


@llm_group.command("start")
@click.option("--gguf", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="GGUF model file (default NOMOS_LLM_GGUF, else the bundled SmolLM2-135M, English only).")
@llm_port_option
@click.option("--ctx", type=int, default=None, help="Context size in tokens (default NOMOS_LLM_CTX, 4096).")
@click.option("--threads", type=int, default=None, help="CPU threads (default NOMOS_LLM_THREADS, 1).")
@click.option("--timeout", default=300.0, show_default=True, help="Seconds to wait for the model to load.")
@click.pass_obj
def llm_start(settings: Settings, gguf: Path | None, llm_port: int | None, ctx: int | None, threads: int | None, timeout: float) -> None:
    """Start the server detached (a running one is left as it is) and wait until it answers."""
    from nomos.localllm import LocalLLMConfig, start

    st = start(LocalLLMConfig.from_settings(settings, gguf=gguf, port=llm_port, ctx=ctx, threads=threads), timeout=timeout)
    print_llm_status(st)
    click.echo(f"LLM methods use it while NOMOS_LLM_BASE_URL is unset (or set NOMOS_LLM_BASE_URL={st.base_url} "
               f"NOMOS_LLM_MODEL={st.model})")


@llm_group.command("stop")
@llm_port_option
@click.pass_obj
def llm_stop(settings: Settings, llm_port: int | None) -> None:
    """Stop the server this machine started on that port (SIGTERM, then SIGKILL)."""
    from nomos.localllm import LocalLLMConfig, stop

    cfg = LocalLLMConfig.from_settings(settings, port=llm_port)
    click.echo(f"local LLM server on port {cfg.port}: " + ("stopped" if stop(cfg) else "was not running"))


@llm_group.command("status")
@llm_port_option
@click.pass_obj
def llm_status(settings: Settings, llm_port: int | None) -> None:
    """Whether the server runs and answers, its endpoint, model, file and log."""
    from nomos.localllm import LocalLLMConfig, status

    print_llm_status(status(LocalLLMConfig.from_settings(settings, port=llm_port)))
