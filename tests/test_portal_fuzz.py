"""Fuzz the JSON API from its own OpenAPI description (schemathesis), against a real node: whatever the
parameters (valid, out of bounds, odd Unicode, query syntax), the portal never answers with a 5xx.

schemathesis' pytest plugin (``from_fixture`` / ``parametrize``) does not run under pytest 9, so the test walks the
schema's operations itself and drives each one's hypothesis strategy, valid and invalid inputs both.
"""

from __future__ import annotations

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode

from nomos.mappings.areas import areas
from nomos.portal import create_app
from tests.portal_support import indexed_mini

pytestmark = pytest.mark.integration

EXAMPLES = 50  # per operation and mode: 3 operations x 2 modes keep the run well under a minute


@pytest.fixture(scope="module")
def mini(cluster, tmp_path_factory):
    with indexed_mini(cluster, tmp_path_factory.mktemp("portal-fuzz")) as s:
        yield s


@pytest.fixture(scope="module")
def api_schema(mini):
    return schemathesis.openapi.from_asgi("/api/openapi.json", create_app(mini))


@pytest.fixture(scope="module")
def web_mini(mini):
    with TestClient(create_app(mini)) as c:
        yield c


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=lambda m: m.value)
def test_api_never_answers_5xx(api_schema, mode):
    operations = [op.ok() for op in api_schema.get_all_operations()]
    assert {op.path for op in operations} == {"/api/search", "/api/articles/{article_id}", "/api/health"}
    search = next(op for op in operations if op.path == "/api/search")
    assert {"q", "method", "k", "source", "area"} <= {p.name for p in search.iter_parameters()}  # area is fuzzed too
    statuses: dict[str, set[int]] = {}

    for op in operations:
        if mode is GenerationMode.NEGATIVE and not list(op.iter_parameters()):
            continue  # nothing to make invalid
        @given(case=op.as_strategy(generation_mode=mode))
        @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
                  database=None)
        def run(case):
            response = case.call_and_validate(checks=[not_a_server_error])
            assert response.status_code < 500, (case.path, case.query, case.path_parameters, response.text[:200])
            assert "content-security-policy" in {k.lower() for k in response.headers}
            statuses.setdefault(case.operation.path, set()).add(response.status_code)

        run()
    if mode is GenerationMode.NEGATIVE:
        assert 422 in statuses["/api/search"]  # invalid inputs were really sent, and refused cleanly
    else:
        assert 200 in statuses["/api/search"]


@given(area=st.one_of(st.sampled_from(sorted(areas())), st.from_regex(r"\A[a-z_]{1,40}\Z"), st.text(max_size=60)),
       source=st.one_of(st.none(), st.sampled_from(["PK", "AK", "NOPE"])))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None)
def test_any_area_is_answered_cleanly(web_mini, area, source):
    """Every ``area``: a known key filters (200, only that area's articles), a well-formed unknown one is a 400
    naming the field, anything else a 422 naming it; never a 5xx."""
    params = {"q": "φυλάκιση αποζημίωση βλάβη", "area": area, **({"source": source} if source else {})}
    r = web_mini.get("/api/search", params=params)
    assert r.status_code in (200, 400, 422), (params, r.text[:200])
    if area in areas():
        assert r.status_code == 200 and r.json()["area"] == area
        want = {"criminal": {"PK"}, "civil": {"AK"}}.get(area, set())
        assert {h["source"] for h in r.json()["hits"]} <= want
    elif r.status_code == 400:
        assert r.json()["detail"].startswith("area: ")
    else:
        assert any(d.startswith("area:") for d in r.json()["detail"]), r.json()
