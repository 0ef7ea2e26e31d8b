"""The portal's backoff after the node refused its own account (nomos/portal/credentials.py), step by step on a
clock the test moves; the guard on a real secured node is tests/test_secure_node.py
``test_the_portal_backs_off_its_account_after_a_401``."""

from __future__ import annotations

import pytest

from nomos.portal.credentials import MOST_SECONDS, CredentialBackoff, CredentialsBackoff


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_refusal_waits_doubles_after_each_failed_try_and_an_answer_ends_it():
    clock = Clock()
    backoff = CredentialBackoff("nomos_portal", "NOMOS_PORTAL_OPENSEARCH_USER", clock=clock)
    assert backoff.before() is False and backoff.seconds_left() == 0  # healthy: requests go
    backoff.refused(probe=False)
    backoff.refused(probe=False)  # a request already on its way when the first was refused: no longer wait
    assert backoff.wait == 1.0
    with pytest.raises(CredentialsBackoff) as err:
        backoff.before()
    assert err.value.status == 401 and err.value.retry_after == 1 and "nomos_portal" in str(err.value)
    assert "NOMOS_PORTAL_OPENSEARCH_PASSWORD(_FILE)" in str(err.value)
    tries = [clock.now]
    for _ in range(8):  # each wait over: one try, refused again
        clock.now = backoff.until
        assert backoff.before() is True  # this request is the try
        with pytest.raises(CredentialsBackoff):
            backoff.before()  # the others wait for its answer
        backoff.refused(probe=True)
        tries.append(clock.now)
    assert backoff.wait == MOST_SECONDS
    in_first_minute = [t for t in tries if t < tries[0] + 60]
    assert len(in_first_minute) < 10  # fewer than the node's ten failures a minute: it never blocks the account
    clock.now = backoff.until
    assert backoff.before() is True
    backoff.answered(probe=True)
    assert backoff.before() is False and backoff.wait == 0  # accepted: healthy again


def test_a_try_without_an_answer_leaves_the_wait_as_it_was():
    clock = Clock()
    backoff = CredentialBackoff(clock=clock)
    backoff.refused(probe=False)
    clock.now = backoff.until
    assert backoff.before() is True
    backoff.failed_otherwise(probe=True)  # the node did not answer: nothing learnt
    assert backoff.wait == 1.0 and backoff.before() is True  # the next request tries
