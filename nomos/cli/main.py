"""The root group: global options (also accepted after the verb), logging, and the one error handler.

stdout carries the command's answer only (a table, or one JSON document with ``--json``); progress bars, the
node's progress and log messages go to stderr, at the level ``-v``/``-q`` choose (nomos/cli_logging.py).

Every verb's :class:`~nomos.errors.NomosError` becomes ``error: <message>`` on stderr and exit status 1, here and
only here, so no verb keeps its own list of error types; ``-v`` adds the stack. Anything else is a bug and keeps
its traceback.
"""

from __future__ import annotations

import functools
import traceback
from typing import Any

import click

from nomos import __version__
from nomos.cli.options import (
    GLOBAL_OPTIONS,
    VERBOSE,
    apply_globals,
    apply_target,
    apply_verbosity,
    global_option_names,
    global_options,
)
from nomos.errors import ConfigError, NomosError
from nomos.safe_text import escape_controls


def report_error(exc: NomosError, verbose: int) -> None:
    """The one way a NomosError reaches the user: its message, and the stack only when asked for (-v)."""
    if verbose:
        click.echo("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).rstrip(), err=True)
    click.echo(f"error: {escape_controls(str(exc), keep=chr(10) + chr(9))}", err=True)  # a reason may quote input


class NomosGroup(click.Group):
    """A group whose leaf commands also take the global options, and whose root turns NomosError into a message."""

    group_class = type  # subgroups (server, llm, …) are NomosGroups too

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        if not isinstance(cmd, click.Group):
            _take_global_options(cmd)
        super().add_command(cmd, name)

    def invoke(self, ctx: click.Context) -> Any:  # whatever the command returns
        if ctx.parent is not None:
            return super().invoke(ctx)
        try:
            return super().invoke(ctx)
        except NomosError as exc:
            report_error(exc, ctx.meta.get(VERBOSE, 0))
            ctx.exit(1)
        except Exception as exc:
            denied = _access_denied(exc, ctx.obj)
            if denied is None:
                raise
            report_error(denied, ctx.meta.get(VERBOSE, 0))
            ctx.exit(1)


def _access_denied(exc: Exception, settings: Any) -> NomosError | None:  # Settings or None
    """A write the cluster refused for who sent it (401/403, an untrusted certificate), outside the transport (bulk
    loads, index creation): the same clear error as a refused search, instead of opensearch-py's traceback."""
    if not type(exc).__module__.startswith("opensearchpy"):
        return None
    from nomos.opensearch.client import access_error

    return access_error(exc, "OpenSearch refused the request", getattr(settings, "cluster", None))


def _take_global_options(cmd: click.Command) -> None:
    """Add the global options to a leaf command (those whose flags it does not use itself: ``llm start --port`` is
    the LLM server's) and apply them before its callback runs, so ``search --index x`` means ``--index x search``."""
    taken = {flag for p in cmd.params for flag in getattr(p, "opts", ())}
    added = [opt for opt in GLOBAL_OPTIONS() if not taken & set(opt.opts)]
    cmd.params.extend(added)
    names = global_option_names(added)
    inner = cmd.callback
    if inner is None or not names:
        return

    @functools.wraps(inner)
    def callback(**kw: Any) -> Any:
        apply_globals(click.get_current_context(), **{n: kw.pop(n) for n in names})
        return inner(**kw)

    cmd.callback = callback


@click.group(cls=NomosGroup)
@click.version_option(__version__, "--version", prog_name="nomos", help="Print the version and exit.")
@global_options
@click.pass_context
def cli(ctx: click.Context, g_verbose: int, g_quiet: bool, g_url: str | None, g_index: str | None, g_port: int | None) -> None:
    """Greek statutory retrieval on OpenSearch: index articles, search them, evaluate methods.

    Settings come from OPENSEARCH_URL and the NOMOS_* variables (and a .env file), then from these flags; the flags
    may also follow the verb (``search --index x …``)."""
    from nomos.settings import Settings

    apply_verbosity(ctx, g_verbose, g_quiet)  # first: reading the settings logs the .env file it used (shown with -v)
    try:
        ctx.obj = Settings.from_env()
    except ValueError as exc:  # a bad NOMOS_* variable (named in the message)
        raise ConfigError(str(exc)) from None
    apply_target(ctx, g_url, g_index, g_port)


def main() -> None:
    """Entry point of the ``nomos`` script and of ``python cli.py``."""
    cli(prog_name="nomos")
