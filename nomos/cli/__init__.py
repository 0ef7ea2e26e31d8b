"""Command line: one verb per stage, one module per verb group. ``cli`` is the click group, ``main`` the
``nomos`` script's entry point. Each module only parses options, calls a stage and prints (nomos/cli/output.py);
errors of the NomosError family become one message in nomos/cli/main.py."""

from nomos.cli import (  # noqa: F401 - registers the verbs
    article,
    compare,
    dashboards,
    evaluate,
    graph,
    index,
    judgments,
    llm,
    search,
    serve,
    server,
    tune,
)
from nomos.cli.main import cli, main
from nomos.cli.server import _node_or_exit

__all__ = ["cli", "main", "_node_or_exit"]
