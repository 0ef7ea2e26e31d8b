"""The top settings object: every part, composed, under the names they always had.

Every command, test and the portal build a :class:`Settings` once (from the environment, then from flags) and pass
it, or its parts, down. Nothing reads the environment anywhere else, so two configurations run side by side without
globals. The parts live beside the layers that use them (:mod:`nomos.settings_base` says how they fit):

* ``settings.cluster``: :class:`~nomos.opensearch.settings.ClusterSettings` (the cluster, the client, the node, the index)
* ``settings.retrieval``: :class:`~nomos.retrieval.settings.RetrievalSettings` (encoder, fusion, re-ranking, ReAct)
* ``settings.llm``: :class:`~nomos.retrieval.llm.settings.LLMSettings` (the endpoint, sampling, the local server)
* ``settings.portal``: :class:`~nomos.portal.settings.PortalSettings` (deadline, proxies, hosts, rates)
* a run's own fields (``cache_dir``, ``runs_dir``…): :class:`~nomos.stages.settings.StageSettings`

The one table of names and defaults is :func:`table` (``python -m nomos.settings`` prints it, one line per
variable, with the part each lives in); README.md and docs/ name the variables, and tests/test_settings_parts.py
checks that every name they give still reads. Every field answers by its flat name as before:
``settings.http_port``, ``Settings(http_port=…)``, ``settings.with_overrides(http_port=…)``.

Where values come from:

* ``Settings(**fields)``: the defaults plus what is passed; never the environment (the same on every machine).
* ``Settings.from_env()``: ``OPENSEARCH_URL`` and the ``NOMOS_*`` variables (a field ``x`` is ``NOMOS_X`` unless
  its ``validation_alias`` names others: ``NOMOS_INDEX``, ``OPENAI_API_KEY``, ``OPENAI_BASE_URL``), over an
  optional ``.env`` file in the current directory (or the file ``NOMOS_ENV_FILE`` names), so a developer can keep
  the cluster URL and the LLM endpoint in one untracked file. The process environment wins over the file; empty
  values count as unset. ``Settings.from_env(mapping)`` reads only that mapping (no file).
* ``settings.with_overrides(...)``: command-line flags; ``None`` keeps the current value. Settings are frozen: a
  changed copy comes from ``with_overrides`` or ``model_copy(update=...)``.
"""

from __future__ import annotations

from typing import Any

from nomos.opensearch.settings import AUTH_KINDS, DEFAULT_ALIAS, DEFAULT_PORT, SEARCH_TYPES, ClusterSettings
from nomos.portal.settings import PortalConfig, PortalSettings
from nomos.retrieval.fusion_config import DEFAULT_WEIGHTS as DEFAULT_FUSION_WEIGHTS
from nomos.retrieval.fusion_config import parse_weights
from nomos.retrieval.llm.settings import TOKEN_PARAMS, LLMSettings
from nomos.retrieval.prompts import PROMPT_SETS
from nomos.retrieval.settings import RetrievalSettings, SearchSettings
from nomos.settings_base import ENV_FILE_VAR, ENV_PREFIX
from nomos.stages.settings import StageSettings

__all__ = ["AUTH_KINDS", "CHOICES", "DEFAULT_ALIAS", "DEFAULT_FUSION_WEIGHTS", "DEFAULT_PORT", "ENV_FILE_VAR", "ENV_PREFIX",
           "PROMPT_SETS", "SEARCH_TYPES", "TOKEN_PARAMS", "ClusterSettings", "LLMSettings", "PortalSettings",
           "RetrievalSettings", "SearchSettings", "Settings", "StageSettings", "parse_weights", "table"]

CHOICES = {"opensearch_auth": AUTH_KINDS, "prompts": PROMPT_SETS, "search_type": SEARCH_TYPES, "llm_token_param": TOKEN_PARAMS}


class Settings(PortalConfig):
    """Configuration shared by the CLI, the tests and the portal: every part (``cluster``, ``retrieval``, ``llm``,
    ``portal``) and a run's own fields. ``opensearch_url`` set means "use that cluster and install nothing"; unset
    means the project's own local node on ``http_port``."""


def table() -> list[tuple[tuple[str, ...], str, Any]]:
    """(variables, where the value lives, default) for every setting, in the parts' order."""
    return Settings.env_table()


def _print_table() -> None:
    for names, where, default in table():
        print(f"{' | '.join(names):<44} {where:<40} {default!r}")


if __name__ == "__main__":
    _print_table()
