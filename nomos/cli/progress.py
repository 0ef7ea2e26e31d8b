"""Progress for the long stages (indexing, encoding, evaluating, tuning), wherever their output goes.

On a terminal, a tqdm bar. Anywhere else (``make run > run.log 2>&1``, CI, a cron job) a bar draws nothing, and a
person tailing the log saw nothing for most of an hour; there, a plain line every ``progress_seconds``
(``NOMOS_PROGRESS_SECONDS``, 30 s), one at the start and one at the end::

    encoding: 1,234/6,412 art (19%), 2.1 art/s, about 41 min left
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import Callable, Protocol, TextIO

import click

from nomos.eta import seconds_left
from nomos.stages.search_types import duration_text


class Bar(Protocol):
    """What the stages are handed: tqdm's bar, :class:`PlainProgress` or nothing at all, alike."""

    def update(self, n: int = 1) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> Bar: ...
    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None: ...


class PlainProgress:
    """A progress bar as plain lines on ``stream`` (default: stderr): at the start, every ``every_s`` and at the end.
    Safe to update from several threads.

    ``lazy``: it starts at its first update, not when it is made: ``index`` makes the encoding bar beside the
    indexing one, and a bar started then said «encoding: 0/6,412» while indexing was still running and counted the
    indexing time into its rate (issue 50: «about 2 h 15 min» in the log where ``server status`` said «1 h 9 min»);
    a lazy bar never updated says nothing. It ends when its count is reached, not when its block ends: ``eval``'s
    bar said «24/24 query in 53 s» of searching and scoring beside «query phase 0.26s».

    :meth:`skip` counts items an earlier run already did (a resumed ``index``: the articles whose vectors the index
    holds): they shorten what is left but never count in the rate; counted as done, the log said a resumed encode
    had the whole corpus left."""

    def __init__(self, total: int, desc: str, unit: str, every_s: float, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic, lazy: bool = False) -> None:
        self.total, self.desc, self.unit, self.every_s = total, desc, unit, every_s
        self.stream, self.clock = stream, clock
        self.done = self.skipped = 0
        self.started = self.said = 0.0
        self.begun = False
        self.closed = False
        self._lock = threading.Lock()
        if not lazy:
            self._begin()

    def _begin(self) -> None:
        if not self.begun:
            self.begun = True
            self.started = self.said = self.clock()
            self._say(f"{self.desc}: {self.done:,}/{self.total:,} {self.unit}")

    def _say(self, line: str) -> None:
        click.echo(line, file=self.stream or sys.stderr)

    def line(self, now: float) -> str:
        """«encoding: 1,234/6,412 art (19%), 2.1 art/s, about 41 min left» at time ``now`` of the clock."""
        elapsed = max(now - self.started, 1e-9)
        rate = (self.done - self.skipped) / elapsed  # this run's own work: skipped items took no time
        text = f"{self.desc}: {self.done:,}/{self.total:,} {self.unit}"
        if self.total:
            text += f" ({100 * self.done // self.total}%)"
        text += f", {rate:.1f} {self.unit}/s"
        left = seconds_left(self.total - self.done, rate)  # the one estimate (nomos.eta), as the index's readiness
        if left and self.total > self.done:
            text += f", about {duration_text(left)} left"
        return text

    def update(self, n: int = 1) -> None:
        with self._lock:
            self._begin()
            self.done += n
            if self.total and self.done >= self.total:
                self._end()
                return
            now = self.clock()
            if now - self.said >= self.every_s and not self.closed:
                self.said = now
                self._say(self.line(now))

    def skip(self, n: int) -> None:
        """``n`` items done before this run: counted done, left out of the rate; says nothing by itself (a lazy bar
        starts at its first update)."""
        with self._lock:
            self.done += n
            self.skipped += n
            if self.total and self.done >= self.total:
                self._end()

    def close(self) -> None:
        with self._lock:
            self._end()

    def _end(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.begun:
            self._say(f"{self.desc}: {self.done:,}/{self.total:,} {self.unit} in {duration_text(self.clock() - self.started)}")

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def skipper(bar: object) -> Callable[[int], None]:
    """What tells ``bar`` of items done before this run (:meth:`PlainProgress.skip`); tqdm's bar has no skip, so
    its total is lowered instead (its rate and time left then count this run's items only)."""
    own = getattr(bar, "skip", None)
    if callable(own):
        return own  # type: ignore[no-any-return]

    def lower(n: int) -> None:
        total = getattr(bar, "total", None)
        if n > 0 and total:
            bar.total = max(total - n, 0)  # type: ignore[attr-defined]
            getattr(bar, "refresh", lambda: None)()

    return lower


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def skip(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> _Silent:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def progress(total: int, desc: str, unit: str, every_s: float = 30.0, *, disable: bool = False, lazy: bool = False) -> Bar:
    """A context manager with ``update(n)`` and ``close()``: tqdm on a terminal, :class:`PlainProgress` elsewhere
    (``lazy``: started at its first update), nothing when ``disable`` or there is nothing to count."""
    if disable or total <= 0:
        return _Silent()
    if sys.stderr.isatty():
        from tqdm import tqdm

        return tqdm(total=total, unit=unit, desc=desc)  # tqdm is a Bar (untyped: mypy reads it as Any)
    return PlainProgress(total, desc, unit, every_s, lazy=lazy)
