"""One error family for everything a user can cause or meet: :class:`NomosError` and its subclasses.

Every verb of the command line and every portal route turns a ``NomosError`` into one clear message (a Greek
page or a JSON error in the portal), never a stack trace; anything else is a bug and keeps its traceback. The
message is written for the person at the keyboard: what went wrong and, where there is one, what to do
(``hint``). ``-v`` on the command line still shows the stack.

Cluster errors carry the HTTP ``status`` and OpenSearch's ``reason`` so callers decide by type and status, never
by matching words in a message.
"""

from __future__ import annotations


class NomosError(Exception):
    """Base of the project's expected failures. ``str(exc)`` is the whole message, hint included."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        self.message = message
        self.hint = hint
        super().__init__(f"{message}: {hint}" if hint else message)


class ConfigError(NomosError, ValueError):
    """A setting, option or argument is invalid (names the option or variable)."""


class DataError(NomosError, ValueError):
    """Input data is invalid or missing (names the file and line, or the Hub row)."""


class NotFound(NomosError, LookupError):
    """Something asked for by name does not exist (a run folder, an article, an index)."""


class ClusterError(NomosError):
    """OpenSearch failed a request. ``status`` is the HTTP status (None when no answer came), ``reason``
    OpenSearch's own reason (or the connection error's)."""

    def __init__(self, message: str, *, status: int | None = None, reason: str = "", hint: str | None = None) -> None:
        self.status = status
        self.reason = reason
        super().__init__(message, hint=hint)


class ClusterUnavailable(ClusterError):
    """No cluster answered (connection refused or timed out), also after retrying for ``NOMOS_RETRY_SECONDS``."""


class AccessDenied(ClusterError):
    """The cluster did not accept who we are (401: wrong user or password, expired AWS credentials) or what the
    user asked (403: the role lacks the permission), or its TLS certificate is not trusted; names the user."""


class SearchError(ClusterError):
    """OpenSearch refused a search (a 4xx other than a missing index): names the query where there is one."""


class SearchCancelled(SearchError):
    """The cluster cut a search at its time bound (``cancel_after_time_interval``, ``NOMOS_SEARCH_TIMEOUT_SECONDS``:
    OpenSearch's ``task_cancelled_exception``): a query too costly for the node, or a node too busy."""


class QueryTooLong(DataError):
    """A portal query with more words than ``NOMOS_MAX_QUERY_WORDS`` once the stop words are left out; the message
    is Greek (the reader who typed it reads it)."""


class IndexNotFound(ClusterError, NotFound):
    """The index or alias does not exist (HTTP 404, ``index_not_found_exception``)."""


class VectorsMissing(ClusterError):
    """The method needs an encoder's vectors and the index has none for it."""


class LLMError(NomosError):
    """An LLM endpoint failed, refused, or is not configured."""
