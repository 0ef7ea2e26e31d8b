"""The portal's HTTP edge: request heads bounded (431), slow requests cut (408), connections bounded by the
process's file descriptors (503), on uvicorn's httptools protocol (issue 47).

uvicorn bounds none of these on its httptools protocol (the one requirements.txt pins, for its speed): a 50 MB
request header was read whole and answered 200; a connection that sends its head a byte at a time, or nothing, was
held for ever (uvicorn's keep-alive timer is stopped by any byte and armed only after a response); and 1,100 slow
connections took all of a default 1,024 descriptors, after which the event loop's ``accept`` failed and real
requests were reset, logged nowhere. ``h11_max_incomplete_event_size`` bounds the head on the h11 protocol only,
with a 400; ``limit_concurrency`` answers 503 only once a request's head has come, on a connection already held.
:class:`BoundedHttpToolsProtocol` adds, per connection:

* **the head**: more than ``HEAD_BYTES`` before a request's headers end is a 431 and the connection closed (the
  portal's longest honest URL is a whole case file, 20,000 Greek characters percent-encoded, 120 KB: issue 50);
* **the read time**: a request's head and body must have come ``READ_SECONDS`` after the connection opened or the
  last response ended; else a 408 (a body too slow: the connection is closed);
* **the connections**: past ``connection_limit()`` open connections, a new one gets a 503 at once and is closed,
  so its descriptor is free again; a warning says so, at most once a minute (with how many were turned away).

``connection_limit()`` is the process's descriptors less ``RESERVED_FDS`` (the node's connection pool of 32, the
LLM client's, the log files, the encoder's and Python's own files), after raising its soft limit to the hard one
(``ulimit -n``; systemd's ``LimitNOFILE=``); each uvicorn worker counts its own. docs/security.md, "Limits".
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger("nomos.portal")

HEAD_BYTES = 256 * 1024  # a 20,000-character case percent-encoded (6 bytes a Greek letter) and headers
READ_SECONDS = 10.0
RESERVED_FDS = 128
MOST_FDS = 65_536  # the soft limit is raised to the hard one, but no further than this
WARN_EVERY = 60.0


def connection_limit() -> int:
    """How many connections one portal process holds at most: its descriptors less ``RESERVED_FDS``, its soft
    limit first raised to its hard one (up to ``MOST_FDS``) where that is higher."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = MOST_FDS if hard == resource.RLIM_INFINITY else min(hard, MOST_FDS)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    soft = MOST_FDS if soft == resource.RLIM_INFINITY else soft
    return max(16, soft - RESERVED_FDS)


def describe_limits() -> str:
    """One line for ``cli.py serve`` to print: the bounds this process serves with."""
    return (f"at most {connection_limit()} connections per process (descriptors less {RESERVED_FDS}), request heads "
            f"of {HEAD_BYTES // 1024} KiB, {READ_SECONDS:g} s to send a request (docs/security.md, Limits)")


def _answer(status: int, reason: str, text: str, extra: str = "") -> bytes:
    body = text.encode("utf-8")
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {len(body)}\r\n"
            f"{extra}connection: close\r\n\r\n").encode("ascii") + body


TOO_LARGE = _answer(431, "Request Header Fields Too Large", "Request header fields too large.")
TOO_SLOW = _answer(408, "Request Timeout", "The request did not arrive in time.")
TOO_MANY = _answer(503, "Service Unavailable", "Too many connections; try again.", "retry-after: 1\r\n")


class _Turned:
    """Connections turned away at the limit: counted, and a warning at most once a minute (one process's)."""

    count = 0
    next_warning = 0.0

    @classmethod
    def note(cls, limit: int) -> None:
        cls.count += 1
        now = time.monotonic()
        if now >= cls.next_warning:
            log.warning("%d connection(s) turned away with a 503: the portal holds at most %d (its descriptors less "
                        "%d; docs/security.md, Limits)", cls.count, limit, RESERVED_FDS)
            cls.count, cls.next_warning = 0, now + WARN_EVERY


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the bounds of the module's docstring. The bounds are class attributes
    (tests lower them on a subclass); ``max_connections`` None: :func:`connection_limit`, looked up once."""

    head_bytes: int = HEAD_BYTES
    read_seconds: float = READ_SECONDS
    max_connections: int | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # uvicorn's
        super().__init__(*args, **kwargs)
        self._in_head = True  # before the current request's headers have all come
        self._head_seen = 0  # bytes of the current head so far
        self._boundary = False  # a head or a request ended inside the chunk being parsed (it is not counted)
        self._reading: asyncio.TimerHandle | None = None

    @classmethod
    def limit(cls) -> int:
        if cls.max_connections is None:
            cls.max_connections = connection_limit()
        return cls.max_connections

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.limit():
            _Turned.note(self.limit())
            self._close_with(TOO_MANY)
            return
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._boundary = False
        super().data_received(data)
        if self._in_head and not self._boundary and not self.transport.is_closing():
            self._head_seen += len(data)
            if self._head_seen > self.head_bytes:
                self.logger.info("a request head past %d bytes: 431", self.head_bytes)
                self._close_with(TOO_LARGE)

    def on_headers_complete(self) -> None:
        self._in_head, self._head_seen, self._boundary = False, 0, True
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()  # the whole request has come: the app's time is the portal's deadline, not this clock
        self._in_head, self._boundary = True, True

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request's head: idle, uvicorn's keep-alive timer closes first; any byte stops that

    # -------------------------------------------------------------------------------------------- the clock
    def _arm(self) -> None:
        self._disarm()
        self._reading = self.loop.call_later(self.read_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._reading is not None:
            self._reading.cancel()
            self._reading = None

    def _too_slow(self) -> None:
        self._reading = None
        if self.transport.is_closing():
            return
        self.logger.info("a request not read within %g s: closed", self.read_seconds)
        if self._in_head:
            self._close_with(TOO_SLOW)
        else:  # a body too slow while the app waits for it: no answer fits, just close
            self.transport.close()

    def _close_with(self, answer: bytes) -> None:
        self._disarm()
        self.transport.write(answer)
        self.transport.close()
