"""The retry policy of OpenSearch requests (nomos/opensearch/client.py ``retrying``, on tenacity): which errors are
waited for, the deadline, the retry callback. The real faults (a killed node, a restart mid-evaluation, msearch
items failing while shards recover) are in test_faults.py; here a plain callable raises opensearch-py's own
exception types, so the policy is checked in milliseconds. No OpenSearch."""

from __future__ import annotations

import time

import pytest
from opensearchpy.exceptions import ConnectionError as OSConnectionError
from opensearchpy.exceptions import ConnectionTimeout, TransportError

from nomos.opensearch.client import is_transient, retrying


def flaky(errors: list[Exception], result: str = "ok"):
    calls: list[float] = []

    def call() -> str:
        calls.append(time.monotonic())
        if len(calls) <= len(errors):
            raise errors[len(calls) - 1]
        return result

    return call, calls


def test_transient_errors_are_retried_with_growing_waits() -> None:
    call, calls = flaky([ConnectionTimeout("TIMEOUT", "read timed out", None), OSConnectionError("N/A", "refused", None),
                         TransportError(503, "search_phase_execution_exception", {}), TransportError(429, "rejected", {})])
    seen: list[tuple[int, str]] = []
    assert retrying(call, seconds=30, first_wait=0.02, max_wait=0.04, on_retry=lambda n, e: seen.append((n, type(e).__name__))) == "ok"
    assert [n for n, _ in seen] == [1, 2, 3, 4] and len(calls) == 5
    gaps = [b - a for a, b in zip(calls, calls[1:], strict=False)]
    assert gaps[0] >= 0.02 and all(g >= 0.04 for g in gaps[1:])  # 0.02, then doubled and capped at 0.04


@pytest.mark.parametrize("status", [400, 404, 500])
def test_other_errors_are_raised_at_once(status: int) -> None:
    call, calls = flaky([TransportError(status, "bad", {})])
    with pytest.raises(TransportError) as err:
        retrying(call, seconds=30, first_wait=0.01)
    assert err.value.status_code == status and len(calls) == 1


def test_the_deadline_ends_the_retries_with_the_last_error() -> None:
    call, calls = flaky([TransportError(503, f"still recovering {i}", {}) for i in range(1000)])
    started = time.monotonic()
    with pytest.raises(TransportError, match="still recovering"):
        retrying(call, seconds=0.3, first_wait=0.05, max_wait=0.1)
    # waits 0.05, 0.1, 0.1 fit in 0.3 s; the next would end past the deadline, so it is not made
    assert time.monotonic() - started < 0.3 + 0.25 and 3 <= len(calls) <= 4


def test_is_transient() -> None:
    assert is_transient(ConnectionTimeout("TIMEOUT", "x", None)) and is_transient(TransportError(502, "x", {}))
    assert not is_transient(TransportError(400, "x", {})) and not is_transient(ValueError("x"))


# ------------------------------------------------------------------------------------------- the transport's types
def test_the_transport_retries_transient_errors_and_types_the_rest() -> None:
    from opensearchpy import OpenSearch

    from nomos.errors import ClusterError, ClusterUnavailable, IndexNotFound, SearchError
    from nomos.opensearch.transport import Transport

    transport = Transport(OpenSearch(hosts=["http://127.0.0.1:9"]), retry_seconds=5, first_wait=0.01, max_wait=0.02)
    call, calls = flaky([TransportError(503, "recovering", {}), OSConnectionError("N/A", "refused", None)])
    assert transport.call(call, "a search") == "ok" and len(calls) == 3 and transport.retries == 2
    missing = {"error": {"root_cause": [{"type": "index_not_found_exception", "reason": "no such index [x]"}]}}
    cases = [(TransportError(404, "index_not_found_exception", missing), IndexNotFound, 404, "no such index [x]"),
             (TransportError(400, "parsing_exception", {"error": {"reason": "unknown query [q]"}}), SearchError, 400,
              "unknown query [q]"),
             (TransportError(500, "boom", {"error": {"reason": "shard failure"}}), ClusterError, 500, "shard failure")]
    for error, kind, status, reason in cases:
        call, calls = flaky([error])
        with pytest.raises(kind) as err:
            transport.call(call, "the probe")
        assert type(err.value) is kind and err.value.status == status and err.value.reason == reason
        assert "the probe" in str(err.value) and len(calls) == 1  # not transient: sent once
    call, _ = flaky([OSConnectionError("N/A", "refused", None)] * 1000)
    started = time.monotonic()
    with pytest.raises(ClusterUnavailable):
        Transport(transport.client, retry_seconds=0).call(call, "a search")  # a bare client's transport: no waiting
    assert time.monotonic() - started < 0.5
