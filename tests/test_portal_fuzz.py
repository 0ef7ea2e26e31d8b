"""Fuzz the JSON API from its own OpenAPI description (schemathesis), against a real node: whatever the
parameters (valid, out of bounds, odd Unicode, query syntax), the portal never answers with a 5xx.

schemathesis' pytest plugin (``from_fixture`` / ``parametrize``) does not run under pytest 9, so the test walks the
schema's operations itself and drives each one's hypothesis strategy, valid and invalid inputs both.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode

from nomos.portal import create_app
from tests.portal_support import indexed_mini

pytestmark = pytest.mark.integration

EXAMPLES = 50  # per operation and mode: 3 operations x 2 modes keep the run well under a minute


@pytest.fixture(scope="module")
def api_schema(cluster, tmp_path_factory):
    with indexed_mini(cluster, tmp_path_factory.mktemp("portal-fuzz")) as s:
        yield schemathesis.openapi.from_asgi("/api/openapi.json", create_app(s))


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=lambda m: m.value)
def test_api_never_answers_5xx(api_schema, mode):
    operations = [op.ok() for op in api_schema.get_all_operations()]
    assert {op.path for op in operations} == {"/api/search", "/api/articles/{article_id}", "/api/health"}
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
