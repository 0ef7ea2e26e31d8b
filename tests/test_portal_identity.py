"""Issue 26, who is who in the portal: user headers believed only from trusted proxies, sign-in required for
judgments when configured, per-client rate limits on searches and judgments, a host allow-list the trailing-slash
redirect cannot get around, and /judgments a page at a time (newest first), so a flood cannot push real ones off."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from nomos.portal import create_app
from tests.portal_support import indexed_mini

pytestmark = pytest.mark.integration

PROXY = ("10.1.2.3", 40000)  # the oauth2-proxy container's address, as the portal sees it
STRANGER = ("192.0.2.7", 40000)
JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def mini_settings(cluster, tmp_path_factory):
    with indexed_mini(cluster, tmp_path_factory.mktemp("identity"), alias_prefix="pytest-who") as settings:
        # sign-in is on by default where a proxy is trusted; these tests judge anonymously too, so it is off here
        # (the default and what it guards: the "identity" tests below)
        yield settings.with_overrides(trusted_proxies=("10.1.0.0/16",), require_sign_in=False)


def portal(settings, client=STRANGER, **changes) -> TestClient:
    return TestClient(create_app(settings.with_overrides(**changes)), client=client)


def judge(web, query="κλοπή ρολογιού", user=None, headers=None, article="PK::372"):
    body = {"query": query, "article_id": article, "grade": 2} | ({"user": user} if user else {})
    return web.post("/api/judgments", json=body, headers=headers or {})


# ------------------------------------------------------------------------------------------------ user headers
@pytest.mark.parametrize("header", ["X-Remote-User", "X-Forwarded-User"])
def test_user_headers_count_only_from_a_trusted_proxy(mini_settings, header):
    mini_settings = mini_settings.with_overrides(user_header=header)
    with portal(mini_settings, STRANGER) as web:
        r = judge(web, user="reader", headers={header: "mallory"})
        assert r.status_code in (200, 201) and r.json()["user"] == "reader"  # the stranger's header is ignored
    with portal(mini_settings, PROXY) as web:
        r = judge(web, user="reader", headers={header: "eleni@uni.gr"})
        assert r.status_code in (200, 201) and r.json()["user"] == "eleni@uni.gr"
        bad = judge(web, headers={header: "<script>"})
        assert bad.status_code == 400 and header in bad.json()["detail"]


def test_no_proxy_is_trusted_by_default(mini_settings):
    with portal(mini_settings, PROXY, trusted_proxies=()) as web:
        assert judge(web, headers={"X-Remote-User": "mallory"}).json()["user"] == "anonymous"


def test_judgments_need_a_signed_in_user_when_sign_in_is_required(mini_settings):
    with portal(mini_settings, STRANGER, require_sign_in=True) as web:
        r = judge(web, user="reader", headers={"X-Forwarded-User": "eleni"})
        assert r.status_code == 401 and "sign in first" in r.json()["detail"]
        form = web.post("/judgments", content="query=κλοπή&article_id=PK::372&grade=1",
                        headers={"content-type": "application/x-www-form-urlencoded"}, follow_redirects=False)
        assert form.status_code == 401 and "Traceback" not in form.text
        assert web.get("/api/search", params={"q": "κλοπή"}).status_code == 200  # reading needs no sign-in
    with portal(mini_settings, PROXY, require_sign_in=True) as web:
        r = judge(web, user="someone-else", headers={"X-Forwarded-User": "eleni"})
        assert r.status_code in (200, 201) and r.json()["user"] == "eleni"


def test_settings_name_a_bad_proxy_address():
    from nomos.settings import Settings

    with pytest.raises(ValueError, match="NOMOS_TRUSTED_PROXIES='10.0.0.1, not-an-address': 'not-an-address' is not an IP"):
        Settings.from_env({"NOMOS_TRUSTED_PROXIES": "10.0.0.1, not-an-address"})
    assert Settings.from_env({"NOMOS_TRUSTED_PROXIES": "10.0.0.1, 172.16.0.0/12"}).trusted_proxies == ("10.0.0.1", "172.16.0.0/12")


# ------------------------------------------------------------------------------------------------ rate limits
def test_searches_are_limited_per_client(mini_settings):
    with portal(mini_settings, STRANGER, search_rate="3/minute") as web:
        assert [web.get("/api/search", params={"q": "κλοπή"}).status_code for _ in range(3)] == [200] * 3
        over = web.get("/api/search", params={"q": "κλοπή"})
        assert over.status_code == 429 and 1 <= int(over.headers["retry-after"]) <= 60
        assert "Πάρα πολλές αναζητήσεις" in over.json()["detail"]
        page = web.get("/search", params={"q": "κλοπή"})
        assert page.status_code == 429 and "Πάρα πολλές αναζητήσεις" in page.text
        assert web.get("/search").status_code == 200  # the empty form is no search
        # another client has its own count (same app, another address)
        other = TestClient(web.app, client=("192.0.2.8", 1))
        assert other.get("/api/search", params={"q": "κλοπή"}).status_code == 200


def test_behind_the_proxy_each_user_and_address_has_its_own_count(mini_settings):
    with portal(mini_settings, PROXY, search_rate="2/minute") as web:
        for who in ({"X-Forwarded-User": "eleni"}, {"X-Forwarded-User": "nikos"}, {"X-Forwarded-For": "198.51.100.1"},
                    {"X-Forwarded-For": "198.51.100.2, 10.1.0.9"}):
            codes = [web.get("/api/search", params={"q": "κλοπή"}, headers=who).status_code for _ in range(3)]
            assert codes == [200, 200, 429], (who, codes)
        # a stranger's X-Forwarded-For is not believed: both requests count against its own address
        stranger = TestClient(web.app, client=STRANGER)
        codes = [stranger.get("/api/search", params={"q": "κλοπή"}, headers={"X-Forwarded-For": f"203.0.113.{i}"}).status_code
                 for i in range(3)]
        assert codes == [200, 200, 429]


def test_a_junk_flood_is_cut_and_real_judgments_stay_reachable(mini_settings):
    settings = mini_settings.with_overrides(judgment_rate="20/minute")
    with portal(settings, ("192.0.2.50", 1)) as reader:
        assert judge(reader, query="πραγματικό ερώτημα για κλοπή", user="lawyer").status_code == 201
    with portal(settings, ("192.0.2.66", 1)) as flood:
        codes = [judge(flood, query=f"junk {i}").status_code for i in range(60)]
    assert codes.count(201) == 20 and set(codes[20:]) == {429}
    with portal(settings) as web:
        queries = [r["query"] for r in web.get("/api/judgments/queries").json()]
        assert "πραγματικό ερώτημα για κλοπή" in queries
        pages = [web.get("/api/judgments/queries", params={"page": p, "size": 10}).json() for p in (1, 2, 3, 4)]
        assert [len(p) for p in pages[:2]] == [10, 10]
        seen = [r["query"] for p in pages for r in p]
        assert "πραγματικό ερώτημα για κλοπή" in seen and len(seen) == len(set(seen))  # no row on two pages
        updated = [r["updated"] for p in pages for r in p]
        assert updated == sorted(updated, reverse=True)  # newest first, across pages


def test_the_judgments_page_pages(mini_settings):
    with portal(mini_settings) as web:
        for i in range(3):
            assert judge(web, query=f"σελιδοποίηση {i}").status_code in (200, 201)
        first = web.get("/judgments", params={"size": 2})
        assert first.status_code == 200 and 'id="pages"' in first.text and "page=2&amp;size=2" in first.text
        assert first.text.index("σελιδοποίηση 2") < first.text.index("σελιδοποίηση 1")  # newest first
        second = web.get("/judgments", params={"size": 2, "page": 2})
        assert "σελιδοποίηση 2" not in second.text and "‹ Νεότερα" in second.text
        assert web.get("/judgments", params={"page": 5000, "size": 200}).status_code == 422
        assert web.get("/judgments", params={"page": "9" * 5000}).status_code == 422


# ------------------------------------------------------------------------------------------------ hosts
def test_a_foreign_host_is_refused_and_never_echoed(mini_settings):
    with portal(mini_settings) as web:
        for path in ("/judgments/", "/api/search/?q=κλοπή", "/"):
            r = web.get(path, headers={"host": "evil.example"}, follow_redirects=False)
            assert r.status_code == 400 and "evil.example" not in r.text and "evil.example" not in str(r.headers), path
            assert r.headers["x-frame-options"] == "DENY"  # the refusal carries the security headers too
        ok = web.get("/judgments/", follow_redirects=False)
        assert ok.status_code in (307, 308) and ok.headers["location"] == "http://testserver/judgments"
    with portal(mini_settings, allowed_hosts=("nomos.example.gr",)) as web:
        assert web.get("/api/health", headers={"host": "nomos.example.gr"}).status_code == 200
        assert web.get("/api/health").status_code == 400  # testserver is not on this list


# ------------------------------------------------------------------------------------------------ identity (issue 39)
def test_one_identity_header_and_any_other_refused_from_the_proxy(mini_settings):
    """A proxy that signs in with X-Remote-User: bob passed on a client's X-Forwarded-User: alice, which was stored."""
    settings = mini_settings.with_overrides(user_header="X-Remote-User", require_sign_in=True)
    with portal(settings, PROXY) as web:
        both = judge(web, headers={"X-Remote-User": "bob", "X-Forwarded-User": "alice"})
        assert both.status_code == 400 and "X-Forwarded-User header" in both.json()["detail"]
        assert judge(web, headers={"X-Remote-User": "bob"}).json()["user"] == "bob"


def test_sign_in_is_required_by_default_behind_a_proxy_and_guards_reading_too(mini_settings):
    settings = mini_settings.model_copy(update={"require_sign_in": None})  # the default (with_overrides skips None)
    assert settings.sign_in_required
    with portal(settings, STRANGER) as web:
        assert judge(web, user="reader").status_code == 401
        for path in ("/judgments", "/api/judgments?query=κλοπή", "/api/judgments/queries"):
            assert web.get(path).status_code == 401, path  # cases, notes, names: not for anyone
    with portal(settings, PROXY) as web:
        assert judge(web, headers={"X-Forwarded-User": "eleni"}).status_code in (200, 201)
        assert web.get("/api/judgments", params={"query": "κλοπή ρολογιού"}, headers={"X-Forwarded-User": "eleni"}).status_code == 200
    assert not mini_settings.model_copy(update={"trusted_proxies": (), "require_sign_in": None}).sign_in_required


def test_a_signed_in_user_changes_only_their_own_grade(mini_settings):
    settings = mini_settings.model_copy(update={"require_sign_in": None})
    with portal(settings, PROXY) as web:
        judge(web, query="μόνο δικές μου", headers={"X-Forwarded-User": "eleni"})
        other = judge(web, query="μόνο δικές μου", user="eleni", headers={"X-Forwarded-User": "nikos"})
        assert other.json()["user"] == "nikos"  # the body's user is ignored: nikos's own grade, not eleni's
        rows = web.get("/api/judgments", params={"query": "μόνο δικές μου"}, headers={"X-Forwarded-User": "eleni"}).json()
        assert sorted(j["user"] for j in rows["judgments"]) == ["eleni", "nikos"]


def test_forwarded_host_only_from_a_proxy_and_an_opaque_origin_refused(mini_settings):
    body = {"query": "κλοπή", "article_id": "PK::372", "grade": 1}
    with portal(mini_settings, STRANGER) as web:
        forged = web.post("/api/judgments", json=body, headers={"Origin": "https://evil.example",
                                                                 "X-Forwarded-Host": "evil.example"})
        assert forged.status_code == 403  # a client's X-Forwarded-Host is not believed
        assert web.post("/api/judgments", json=body, headers={"Origin": "null"}).status_code == 403
    with portal(mini_settings, PROXY) as web:
        ok = web.post("/api/judgments", json=body, headers={"Origin": "https://nomos.example.gr",
                                                             "X-Forwarded-Host": "nomos.example.gr"})
        assert ok.status_code in (200, 201)  # the proxy's is


# ------------------------------------------------------------------------------------------------ identity (issue 47)
SECRET = "a-secret-the-proxy-and-portal-share"


def basic(user: str, password: str) -> str:
    import base64

    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def test_a_repeated_identity_header_is_refused(mini_settings):
    """Two X-Forwarded-User headers (a proxy that appends to the client's own): the first, the client's, was
    stored. Any identity header sent twice is a 400 now."""
    with portal(mini_settings, PROXY) as web:
        body = {"query": "κλοπή ρολογιού", "article_id": "PK::372", "grade": 2}
        for name in ("X-Forwarded-User", "X-Forwarded-Email"):
            twice = web.post("/api/judgments", json=body, headers=[(name, "mallory"), (name, "eleni")])
            assert twice.status_code == 400 and f"{name} header: sent 2 times" in twice.json()["detail"], twice.text


def test_oauth2_proxys_user_headers_are_accepted_and_the_user_is_the_configured_ones(mini_settings):
    """oauth2-proxy's pass_user_headers sends four headers (with some identity providers the preferred user name
    too): every judgment was a 400. They are accepted together from the proxy; the user is the configured header's;
    another kind of identity header beside them is still refused."""
    sent = {"X-Forwarded-User": "3f1c9a", "X-Forwarded-Email": "eleni@uni.gr",
            "X-Forwarded-Preferred-Username": "eleni", "X-Forwarded-Groups": "staff,lawyers"}
    with portal(mini_settings, PROXY) as web:
        assert judge(web, headers=sent).json()["user"] == "3f1c9a"
        refused = judge(web, headers={**sent, "X-Remote-User": "bob"})
        assert refused.status_code == 400 and "X-Remote-User header" in refused.json()["detail"]
    with portal(mini_settings, PROXY, user_header="X-Forwarded-Preferred-Username") as web:
        assert judge(web, headers=sent).json()["user"] == "eleni"
    with portal(mini_settings, PROXY, user_header="X-Remote-User") as web:  # another proxy: its header alone
        refused = judge(web, headers={"X-Remote-User": "bob", "X-Forwarded-Email": "eleni@uni.gr"})
        assert refused.status_code == 400 and "X-Forwarded-Email header" in refused.json()["detail"]


def test_with_a_proxy_secret_the_proxys_address_alone_is_not_the_proxy(mini_settings):
    """With NOMOS_TRUSTED_PROXIES=127.0.0.1 any local account was "the proxy" (one graded as another user and read
    every judged case). With NOMOS_PROXY_SECRET a request's identity headers count only where it also carries the
    secret as its basic-auth password, as oauth2-proxy sends it (docker-compose.yml's sso profile)."""
    settings = mini_settings.with_overrides(proxy_secret=SECRET)
    with portal(settings, PROXY) as web:
        assert judge(web, headers={"X-Forwarded-User": "eleni", "Authorization": basic("eleni", SECRET)}).json()["user"] == "eleni"
        for auth in (None, basic("eleni", "guessed-wrong-secret-value"), "Bearer " + SECRET, basic("eleni", "")):
            forged = judge(web, user="reader", headers={"X-Forwarded-User": "eleni", **({"Authorization": auth} if auth else {})})
            assert forged.status_code in (200, 201) and forged.json()["user"] == "reader", (auth, forged.text)
    with portal(settings.with_overrides(require_sign_in=True), PROXY) as web:
        assert web.get("/judgments", headers={"X-Forwarded-User": "eleni"}).status_code == 401  # no secret: no user
        assert web.get("/judgments", headers={"X-Forwarded-User": "eleni",
                                              "Authorization": basic("eleni", SECRET)}).status_code == 200


def test_without_the_secret_the_proxys_address_names_no_other_client_and_a_wrong_one_is_logged(mini_settings, caplog):
    """With NOMOS_PROXY_SECRET set, a local process on the proxy's address without it still named its own
    ``X-Forwarded-For``: a new client, a fresh rate, for every request. Now only the proxy (address and secret)
    names the client; a wrong secret is logged (one warning a minute at most, with the count), not throttled: it
    comes from the proxy's own address, and a block would shut the real proxy out too."""
    import logging

    settings = mini_settings.with_overrides(proxy_secret=SECRET, search_rate="2/minute")
    with portal(settings, PROXY) as web, caplog.at_level(logging.WARNING, logger="nomos.portal"):
        wrong = {"Authorization": basic("x", "guessed-wrong-secret-value")}
        codes = [web.get("/api/search", params={"q": "κλοπή"},
                         headers={"X-Forwarded-For": f"198.51.100.{i}", **wrong}).status_code for i in range(3)]
        assert codes == [200, 200, 429]  # one client, the proxy's address: its rate, whatever X-Forwarded-For says
        right = {"Authorization": basic("x", SECRET)}
        assert web.get("/api/search", params={"q": "κλοπή"},
                       headers={"X-Forwarded-For": "198.51.100.9", **right}).status_code == 200  # the proxy's reader
    warnings = [r.getMessage() for r in caplog.records if "NOMOS_PROXY_SECRET" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].startswith("1 request(s) from the proxy's address 10.1.2.3"), warnings
