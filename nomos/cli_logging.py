"""Logging for the command line: ``-v``/``-q`` choose how much of the project's own log reaches stderr.

The library modules log through ``logging.getLogger(__name__)`` (under ``nomos``) and never configure logging;
the node's progress lines come through ``log=`` callbacks, which the CLI points at a logger (:func:`progress`).
Only the command line decides what is shown:

======== ================= ===========================================
flags    ``nomos.*``        other libraries (opensearch-py, urllib3…)
======== ================= ===========================================
(none)   WARNING           WARNING
-q       ERROR             ERROR
-v       INFO (progress)   WARNING (their INFO is one line per request)
-vv      DEBUG             WARNING
-vvv     DEBUG             DEBUG
======== ================= ===========================================

Everything goes to stderr, so stdout holds only the command's answer (``--json`` relies on that).

The OpenSearch client and urllib3 log a warning, with a full traceback, for every failed connection attempt; the
project's transport retries those and then raises one typed error that the CLI prints as one line, so below
``-vvv`` those loggers are silenced (:data:`CONNECTION_LOGGERS`), and ``-vvv`` shows them again.
"""

from __future__ import annotations

import logging
import sys
from typing import Callable

from nomos.safe_text import escape_controls

PROJECT_LOGGER = "nomos"
CONNECTION_LOGGERS = ("opensearch", "urllib3")  # opensearch-py's connection log and urllib3's retries
_SILENT = logging.CRITICAL + 1


def levels(verbose: int, quiet: bool) -> tuple[int, int]:
    """(the project's level, everyone else's) for ``-v`` given ``verbose`` times and ``-q``."""
    if quiet:
        return logging.ERROR, logging.ERROR
    project = {0: logging.WARNING, 1: logging.INFO}.get(verbose, logging.DEBUG)
    return project, logging.DEBUG if verbose >= 3 else logging.WARNING


class _Formatter(logging.Formatter):
    """Progress (INFO) as the bare message; warnings and errors with their level; DEBUG with the logger's name."""

    def format(self, record: logging.LogRecord) -> str:
        msg = escape_controls(record.getMessage(), keep="\n\t")  # a message may quote a path, a query, a reason
        if record.exc_info:
            msg += "\n" + self.formatException(record.exc_info)
        if record.levelno >= logging.WARNING:
            return f"{record.levelname.lower()}: {msg}"
        if record.levelno < logging.INFO:
            return f"debug {record.name}: {msg}"
        return msg


class _StderrHandler(logging.Handler):
    """Writes each record to the *current* ``sys.stderr`` (click's test runner swaps it per invocation)."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(_Formatter())

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:  # logging must never break the command
            self.handleError(record)


def configure(verbose: int = 0, quiet: bool = False) -> int:
    """Install the CLI's one stderr handler on the root logger (replacing an earlier one, so a second call, as
    in tests, does not print twice) and set the levels; returns the project's level."""
    project, others = levels(verbose, quiet)
    root = logging.getLogger()
    for h in [h for h in root.handlers if isinstance(h, _StderrHandler)]:
        root.removeHandler(h)
    root.addHandler(_StderrHandler())
    root.setLevel(others)
    logging.getLogger(PROJECT_LOGGER).setLevel(project)
    for name in CONNECTION_LOGGERS:
        logging.getLogger(name).setLevel(logging.NOTSET if verbose >= 3 and not quiet else _SILENT)
    return project


def progress(logger: logging.Logger, level: int = logging.INFO) -> Callable[[str], None]:
    """A ``log=`` callback (one message string) that logs at ``level``: the node's progress lines shown with -v."""

    def emit(message: str) -> None:
        logger.log(level, "%s", message)

    return emit
