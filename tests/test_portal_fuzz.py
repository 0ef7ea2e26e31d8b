"""Fuzz the JSON API from its own OpenAPI description (schemathesis), against a real node: whatever the
parameters (valid, out of bounds, odd Unicode, query syntax), the portal never answers with a 5xx. The judgments
endpoints too: the API's JSON bodies from the schema, any text stored through it, and the search page's form
(``POST /judgments``, not in the schema) with arbitrary fields, bodies and content types.

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

from nomos.legal.text.areas import areas
from nomos.portal import create_app
from tests.portal_support import indexed_mini

pytestmark = pytest.mark.integration

EXAMPLES = 50  # per operation and mode: 8 operations x 2 modes keep the run around a minute
JUDGMENT_PATHS = {"/api/judgments", "/api/judgments/queries"}


@pytest.fixture(scope="module")
def mini(cluster, tmp_path_factory):
    with indexed_mini(cluster, tmp_path_factory.mktemp("portal-fuzz")) as s:
        yield s


@pytest.fixture(scope="module")
def app(mini):
    return create_app(mini)


@pytest.fixture(scope="module")
def api_schema(app):
    return schemathesis.openapi.from_asgi("/api/openapi.json", app)


@pytest.fixture(scope="module")
def web_mini(app):
    with TestClient(app) as c:
        yield c


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=lambda m: m.value)
def test_api_never_answers_5xx(api_schema, mode):
    operations = [op.ok() for op in api_schema.get_all_operations()]
    assert {op.path for op in operations} == {"/api/search", "/api/articles/{article_id}", "/api/health", *JUDGMENT_PATHS,
                                              "/api/articles/{article_id}/graph", "/api/articles/{article_id}/in-force",
                                              "/api/articles/{article_id}/versions",
                                              "/api/articles/{article_id}/versions/{law}",
                                              "/api/articles/{article_id}/diff", "/api/laws/{source}"}
    assert {(op.method.upper(), op.path) for op in operations if op.path == "/api/judgments"} == {("GET", "/api/judgments"),
                                                                                                  ("POST", "/api/judgments")}
    search = next(op for op in operations if op.path == "/api/search")
    assert {"q", "method", "k", "source", "area"} <= {p.name for p in search.iter_parameters()}  # area is fuzzed too
    statuses: dict[str, set[int]] = {}

    for op in operations:
        if mode is GenerationMode.NEGATIVE and not list(op.iter_parameters()) and not len(op.body):
            continue  # nothing to make invalid
        @given(case=op.as_strategy(generation_mode=mode))
        @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
                  database=None)
        def run(case):
            response = case.call_and_validate(checks=[not_a_server_error])
            assert response.status_code < 500, (case.path, case.query, case.path_parameters, response.text[:200])
            assert "content-security-policy" in {k.lower() for k in response.headers}
            statuses.setdefault(f"{case.method.upper()} {case.operation.path}", set()).add(response.status_code)

        run()
    if mode is GenerationMode.NEGATIVE:
        assert 422 in statuses["GET /api/search"]  # invalid inputs were really sent, and refused cleanly
        assert statuses["POST /api/judgments"] & {400, 415, 422}
    else:
        assert 200 in statuses["GET /api/search"]
        assert 422 in statuses["POST /api/judgments"]  # well-formed, but random article ids are not in the index


ARTICLES = ("PK::372", "PK::375", "AK::914")
ANY_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30),
                        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3),
                        max_leaves=8)


def test_judgments_store_any_text_and_refuse_anything_else_without_5xx(app):
    """Real articles with any Unicode query and note: stored (2xx) or refused (4xx), never a 5xx, and what is
    stored reads back the same."""
    seen: set[int] = set()
    with TestClient(app) as web:
        @given(query=st.text(min_size=1, max_size=300), note=st.none() | st.text(max_size=200), article=st.sampled_from(ARTICLES),
               grade=st.integers(0, 2) | ANY_JSON, user=st.none() | st.text(max_size=70),
               extra=st.dictionaries(st.text(max_size=10), ANY_JSON, max_size=2))
        @settings(max_examples=EXAMPLES * 2, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None)
        def run(query, note, article, grade, user, extra):
            body = {**extra, "query": query, "article_id": article, "grade": grade, "note": note, "user": user}
            r = web.post("/api/judgments", json=body)
            assert r.status_code < 500, (body, r.text[:300])
            seen.add(r.status_code)
            if r.status_code in (200, 201):
                got = r.json()
                assert (got["query"], got["article_id"], got["grade"]) == (query.strip(), article, grade)
                listed = web.get("/api/judgments", params={"query_id": got["query_id"]}).json()["judgments"]
                assert got["id"] in {j["id"] for j in listed}

        run()
    assert seen & {200, 201} and 422 in seen  # both paths were really taken


def test_the_judgment_form_never_answers_5xx(app):
    """``POST /judgments`` with any fields, any bytes, any content type: a redirect or a 4xx page."""
    fields = st.dictionaries(st.sampled_from(["query", "article_id", "grade", "note", "user", "method", "k", "source", "x"]),
                             st.text(max_size=40), max_size=8)
    ctypes = st.sampled_from(["application/x-www-form-urlencoded", "application/x-www-form-urlencoded; charset=utf-8",
                              "multipart/form-data; boundary=x", "application/json", "text/plain", ""])
    seen: set[int] = set()
    with TestClient(app) as web:
        @given(data=fields, raw=st.none() | st.binary(max_size=200), ctype=ctypes, article=st.sampled_from(ARTICLES))
        @settings(max_examples=EXAMPLES * 2, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None)
        def run(data, raw, ctype, article):
            if raw is None:
                form = {"query": "κλοπή", "article_id": article, "grade": "1", **data}
                r = web.post("/judgments", data=form, follow_redirects=False)
            else:
                r = web.post("/judgments", content=raw, headers={"Content-Type": ctype} if ctype else {}, follow_redirects=False)
            assert r.status_code < 500, (data, raw, ctype, r.text[:300])
            assert r.status_code == 303 or r.headers["content-type"].startswith("text/html")
            seen.add(r.status_code)

        run()
    assert 303 in seen and seen & {400, 415, 422}


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
