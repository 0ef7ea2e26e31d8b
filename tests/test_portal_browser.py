"""The search page driven in a real headless Chromium (Debian's chromium + chromedriver, through selenium): type a
Greek case, submit, see results and facets, grade the first result and find it on /judgments, open an article, go
to a neighbour; screenshots are saved."""

from __future__ import annotations

import os

import pytest

from nomos.portal import create_app
from tests.portal_support import CHROMEDRIVER, CHROMIUM, chromium, indexed_mini, live_portal

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # slow: a headless Chromium

CASE = "Ο Νίκος αφαίρεσε από ένα κατάστημα ξένο κινητό πράγμα, ένα ρολόι, για να το ιδιοποιηθεί."


@pytest.fixture
def browser(tmp_path):
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip("Debian's chromium and chromium-driver are not installed (make install installs them)")
    with chromium(tmp_path / "profile") as driver:
        yield driver


def test_search_and_open_an_article_in_chromium(cluster, tmp_path, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import Select, WebDriverWait

    wait = WebDriverWait(browser, 20)
    with indexed_mini(cluster, tmp_path) as settings, live_portal(create_app(settings)) as base:
        browser.get(base + "/")
        assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "el"
        assert "Αναζήτηση" in browser.title
        box = browser.find_element(By.ID, "q")
        box.send_keys(CASE)
        Select(browser.find_element(By.ID, "method")).select_by_value("bm25")
        Select(browser.find_element(By.ID, "k")).select_by_value("10")
        browser.find_element(By.ID, "submit").click()

        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#results .hit")))
        assert "/search?q=" in browser.current_url  # shareable: the query is in the address
        titles = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".hit-title")]
        assert titles[0] == "Κλοπή"
        assert browser.find_elements(By.CSS_SELECTOR, ".snippet mark")
        facets = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".facets a")]
        assert any("Ποινικός Κώδικας" in f for f in facets)
        assert browser.find_element(By.ID, "q").get_attribute("value") == CASE
        browser.save_screenshot(str(tmp_path / "search.png"))

        # grade the first result 2 with a note: a plain form post, back to the same search, saved
        search_address = browser.current_url
        judge = browser.find_elements(By.CSS_SELECTOR, ".hit form.judge")[0]
        judge.find_element(By.CSS_SELECTOR, "input[name=note]").send_keys("κλοπή ρολογιού")
        judge.find_element(By.CSS_SELECTOR, "button.grade-2").click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, ".judge-saved")))
        assert "judged=PK%3A%3A372" in browser.current_url and browser.current_url.endswith("#j-PK%3A%3A372")
        assert browser.find_element(By.CSS_SELECTOR, ".judge-saved").text == "Αποθηκεύτηκε: 2"
        kept = browser.find_elements(By.CSS_SELECTOR, ".hit form.judge")[0].find_element(By.CSS_SELECTOR, "input[name=note]")
        assert kept.get_attribute("value") == "κλοπή ρολογιού"  # issue 50: the note stays in its field
        assert browser.find_elements(By.CSS_SELECTOR, ".hit-title")[0].text == "Κλοπή"  # the same search
        browser.find_element(By.LINK_TEXT, "Αξιολογήσεις").click()
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#judgments tr.judged")))
        [row] = browser.find_elements(By.CSS_SELECTOR, "#judgments tr.judged")
        assert CASE[:40] in row.text and "0 / 0 / 1" in row.text
        row.find_element(By.CSS_SELECTOR, "a.judged-link").click()
        wait.until(EC.url_contains("query_id="))
        table = browser.find_element(By.CSS_SELECTOR, "#judgments table").text
        assert "PK::372" in table and "κλοπή ρολογιού" in table and "anonymous" in table and "bm25" in table
        browser.save_screenshot(str(tmp_path / "judgments.png"))
        browser.get(search_address)
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#results .hit")))

        browser.find_elements(By.CSS_SELECTOR, ".hit-title")[0].click()
        wait.until(EC.presence_of_element_located((By.ID, "article")))
        assert "/articles/PK%3A%3A372" in browser.current_url
        heading = browser.find_element(By.CSS_SELECTOR, "#article h1").text
        assert "372" in heading and "Κλοπή" in heading
        assert browser.find_elements(By.CSS_SELECTOR, ".article-text mark")  # the case's terms, highlighted
        neighbours = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#neighbours li")]
        assert len(neighbours) == 4
        assert browser.find_elements(By.CSS_SELECTOR, "#similar li")
        browser.save_screenshot(str(tmp_path / "article.png"))

        browser.find_element(By.CSS_SELECTOR, ".pager .next").click()
        wait.until(EC.url_contains("PK%3A%3A375"))
        assert "Υπεξαίρεση" in browser.find_element(By.CSS_SELECTOR, "#article h1").text

        # the browser reports no CSP violations or failed loads on these pages
        problems = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
        assert not problems, problems

        # a narrow phone screen still shows the form and the results, one column
        browser.set_window_size(390, 844)
        browser.get(base + "/search?q=" + CASE)
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#results .hit")))
        width = browser.execute_script("return document.documentElement.scrollWidth")
        assert width <= 400, width  # no horizontal scrolling
        browser.save_screenshot(str(tmp_path / "phone.png"))
    for name in ("search.png", "judgments.png", "article.png", "phone.png"):
        assert (tmp_path / name).stat().st_size > 10_000


def test_follow_a_reference_and_see_the_amendment_warning(cluster, tmp_path, browser):
    """The legal graph in a real browser: PK::49's text links «άρθρο 46»; following it lands on PK::46, which lists
    PK::49 under «Αναφέρεται από»; PK::372's original, amended by N_4855_2021::86, warns that it may not be the text
    in force; its text in force names the amendment, which the browser follows; the law's table of contents lists
    the code in order."""
    import uuid

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    from nomos.ingest.beir import load_beir
    from nomos.opensearch.client import make_client
    from nomos.stages.indexing import index_dataset
    from tests.beir_files import write_beir
    from tests.test_portal_graph import AMENDING, ARTICLES, QRELS, QUERIES

    wait = WebDriverWait(browser, 20)
    settings = cluster.with_overrides(index_alias=f"pytest-graph-{uuid.uuid4().hex[:8]}", runs_dir=tmp_path / "runs",
                                      cache_dir=tmp_path / "cache")
    index_dataset(settings, load_beir(write_beir(tmp_path / "graph", ARTICLES, QUERIES, QRELS)))
    try:
        with live_portal(create_app(settings)) as base:
            browser.get(base + "/articles/PK%3A%3A49")
            link = browser.find_element(By.CSS_SELECTOR, ".article-text a.ref")
            assert link.text.startswith("άρθρο 46")
            assert not browser.find_elements(By.ID, "amended")
            link.click()
            wait.until(EC.url_contains("PK%3A%3A46"))
            assert "Άμεσοι συνεργοί" in browser.find_element(By.CSS_SELECTOR, "#article h1").text
            assert "άρθρο 49 ΠΚ" in browser.find_element(By.ID, "cited-by").text
            browser.get(base + "/articles/PK%3A%3A372?text=original")
            warning = browser.find_element(By.ID, "amended")
            assert "μπορεί να μην είναι το ισχύον" in warning.text
            assert "παρ. 1" in browser.find_element(By.ID, "amendments").text
            browser.save_screenshot(str(tmp_path / "amended.png"))
            browser.get(base + "/articles/PK%3A%3A372")  # by default, its text in force, the amendment named
            note = browser.find_element(By.ID, "amended")
            assert "ενοποιημένο αυτόματα" in note.text
            note.find_element(By.LINK_TEXT, "άρθρο 86 ν. 4855/2021").click()
            wait.until(EC.url_contains(AMENDING.replace("::", "%3A%3A")))
            assert "Τροποποίηση" in browser.find_element(By.CSS_SELECTOR, "#article h1").text
            browser.get(base + "/laws/PK")
            toc = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".toc li")]
            assert [t.split()[1] for t in toc] == ["46", "47", "49", "372"]
            problems = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
            assert not problems, problems
    finally:
        make_client(settings.cluster).indices.delete(index=f"{settings.index_alias}*", ignore_unavailable=True)
    assert (tmp_path / "amended.png").stat().st_size > 10_000


def test_an_amended_article_shows_its_text_in_force_and_the_original_one_click_away(cluster, tmp_path, browser):
    """PK::372 in a real browser: the text in force by default, its changed paragraph framed and labelled in words
    with the article that changed it (not told by colour alone), the note naming the amendment; one click to the
    original (the old wording, the warning), one click back; PK::374's partial consolidation lists what it could
    not apply. Screenshots of both texts."""
    import uuid

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    from nomos.ingest.beir import load_beir
    from nomos.opensearch.client import make_client
    from nomos.stages.indexing import index_dataset
    from tests.beir_files import write_beir
    from tests.in_force_support import AMENDS_372, ARTICLES, IN_FORCE, store_in_force

    wait = WebDriverWait(browser, 20)
    settings = cluster.with_overrides(index_alias=f"pytest-in-force-{uuid.uuid4().hex[:8]}", runs_dir=tmp_path / "runs",
                                      cache_dir=tmp_path / "cache")
    index_dataset(settings, load_beir(write_beir(tmp_path / "in-force", ARTICLES, [{"_id": "q1", "text": "κλοπή"}],
                                                 [("q1", "PK::372", 1)])))
    client = make_client(settings.cluster)
    store_in_force(client, settings.index_alias, IN_FORCE)
    try:
        with live_portal(create_app(settings)) as base:
            browser.get(base + "/articles/PK%3A%3A372")
            text = browser.find_element(By.ID, "in-force-text")
            assert "πέντε ετών" in text.text and "τρία έτη" not in text.text
            [changed] = text.find_elements(By.CSS_SELECTOR, ".passage.changed")
            label = changed.find_element(By.CSS_SELECTOR, ".provenance")
            assert label.is_displayed() and label.text.endswith("Νέα διατύπωση από άρθρο 86 ν. 4855/2021")
            # framed, not only tinted: a border a reader without colour sees, where the unchanged passage has none
            framed = browser.execute_script("const s = getComputedStyle(arguments[0]); return [s.borderLeftStyle, "
                                            "parseFloat(s.borderLeftWidth)];", changed)
            plain = browser.execute_script("return getComputedStyle(arguments[0]).borderLeftStyle;",
                                           text.find_element(By.CSS_SELECTOR, ".passage:not(.changed)"))
            assert framed[0] not in ("none", "hidden") and framed[1] >= 3 and plain == "none"
            note = browser.find_element(By.ID, "amended")
            assert "ενοποιημένο αυτόματα" in note.text and "άρθρο 86 ν. 4855/2021" in note.text
            assert note.find_element(By.LINK_TEXT, "άρθρο 86 ν. 4855/2021").get_attribute("href").endswith(
                AMENDS_372.replace("::", "%3A%3A"))
            browser.save_screenshot(str(tmp_path / "in-force.png"))

            browser.find_element(By.ID, "show-original").click()
            wait.until(EC.url_contains("text=original"))
            original = browser.find_element(By.CSS_SELECTOR, ".article-text").text
            assert "τρία έτη" in original and "πέντε ετών" not in original
            assert "μπορεί να μην είναι το ισχύον" in browser.find_element(By.ID, "amended").text
            current = browser.find_element(By.CSS_SELECTOR, "#text-versions [aria-current=page]")
            assert current.text == "Αρχικό κείμενο"
            browser.save_screenshot(str(tmp_path / "original.png"))
            browser.find_element(By.ID, "show-in-force").click()
            wait.until(EC.presence_of_element_located((By.ID, "in-force-text")))
            assert "text=original" not in browser.current_url

            browser.get(base + "/articles/PK%3A%3A374")
            partial = browser.find_element(By.ID, "partial")
            assert "Μερική ενοποίηση" in partial.text and "«πολύ μεγάλης αξίας» δεν βρέθηκε" in partial.text
            problems = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
            assert not problems, problems
    finally:
        client.indices.delete(index=f"{settings.index_alias}*", ignore_unavailable=True)
    for name in ("in-force.png", "original.png"):
        assert (tmp_path / name).stat().st_size > 10_000


def test_a_pasted_case_file_is_searched_whole_and_one_too_long_is_given_back(cluster, tmp_path, browser):
    """Issue 50: the box stopped at 2,000 characters (maxlength), so a pasted case lost its blank line and its
    question; sent whole, it came back as an English 422 with the box empty. A paste is what a script setting the
    value gives (the box has no maxlength to cut it)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import Select, WebDriverWait

    from nomos.query_text import MAX_QUERY_CHARS

    facts = ("Ο Νίκος αφαίρεσε από ένα κατάστημα ξένο κινητό πράγμα, ένα ρολόι, για να το ιδιοποιηθεί. Ο υπάλληλος "
             "τον είδε και ειδοποίησε την αστυνομία.\n")
    question = "\nΠοια πράξη τέλεσε ο Νίκος;"
    whole = (facts * 200)[: MAX_QUERY_CHARS - len(question)] + question
    too_long = facts * 160 + question
    assert len(whole) == MAX_QUERY_CHARS and len(too_long) > MAX_QUERY_CHARS
    wait = WebDriverWait(browser, 60)
    with indexed_mini(cluster, tmp_path) as settings, live_portal(create_app(settings)) as base:
        for case, refused in ((whole, False), (too_long, True)):
            browser.get(base + "/")
            box = browser.find_element(By.ID, "q")
            browser.execute_script("arguments[0].value = arguments[1];", box, case)
            Select(browser.find_element(By.ID, "method")).select_by_value("bm25")
            browser.find_element(By.ID, "submit").click()
            wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#error" if refused else "#results .hit")))
            kept = browser.find_element(By.ID, "q").get_attribute("value")
            assert kept == case, (len(kept), len(case))  # the whole text in the box, blank line and question
            if refused:
                error = browser.find_element(By.ID, "error").text
                assert f"{len(too_long):,}".replace(",", ".") in error and "20.000" in error, error
            else:
                assert browser.find_elements(By.CSS_SELECTOR, ".hit-title")[0].text == "Κλοπή"


def test_a_repealed_article_is_marked_and_listed_after_those_in_force(cluster, tmp_path, browser):
    """Issue 50: N_3979_2011::5 came first, unmarked, though its text in force is «[Καταργείται]». In a real browser:
    PK::46, repealed by the small corpus's N_4855_2021::90 and ranked first by BM25, is listed last, its entry says
    in words that it was repealed and by what (a link to the repealing article), framed apart from the others; a
    note above the list says why it stands last."""
    import uuid

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import Select, WebDriverWait

    from nomos.ingest.beir import load_beir
    from nomos.opensearch.client import make_client
    from nomos.stages.indexing import index_dataset
    from tests.beir_files import write_beir
    from tests.in_force_support import ARTICLES, LAW_4855

    words = "άμεση συνδρομή του αυτουργού"
    wait = WebDriverWait(browser, 20)
    settings = cluster.with_overrides(index_alias=f"pytest-repealed-{uuid.uuid4().hex[:8]}", runs_dir=tmp_path / "runs",
                                      cache_dir=tmp_path / "cache")
    articles = [*ARTICLES, {"_id": "N_4855_2021::90", "title": "Καταργούμενες διατάξεις", **LAW_4855,
                            "text": "Το άρθρο 46 ΠΚ καταργείται."}]
    index_dataset(settings, load_beir(write_beir(tmp_path / "repealed", articles, [{"_id": "q1", "text": words}],
                                                 [("q1", "PK::49", 1)])))
    try:
        with live_portal(create_app(settings)) as base:
            browser.get(base + "/")
            browser.find_element(By.ID, "q").send_keys(words)
            Select(browser.find_element(By.ID, "method")).select_by_value("bm25")
            browser.find_element(By.ID, "submit").click()
            wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#results .hit")))
            hits = browser.find_elements(By.CSS_SELECTOR, "#results .hit")
            ids = [h.find_element(By.CSS_SELECTOR, ".badge").text for h in hits]
            assert ids[0] == "PK::49" and ids[-1] == "PK::46"
            last = hits[-1]
            mark = last.find_element(By.CSS_SELECTOR, ".standing-repealed")
            assert mark.is_displayed()
            assert mark.text == "Καταργήθηκε με το άρθρο 90 ν. 4855/2021· εμφανίζεται μετά τα ισχύοντα άρθρα."
            assert not hits[0].find_elements(By.CSS_SELECTOR, ".standing")  # in force as written: nothing said
            colours = browser.execute_script("return [getComputedStyle(arguments[0]).borderLeftColor, "
                                             "getComputedStyle(arguments[1]).borderLeftColor];", last, hits[0])
            assert colours[0] != colours[1]  # framed apart, besides the words
            assert "έχει καταργηθεί" in browser.find_element(By.ID, "repealed-note").text
            browser.save_screenshot(str(tmp_path / "repealed.png"))
            mark.find_element(By.LINK_TEXT, "άρθρο 90 ν. 4855/2021").click()
            wait.until(EC.url_contains("N_4855_2021%3A%3A90"))
            assert "Καταργούμενες διατάξεις" in browser.find_element(By.CSS_SELECTOR, "#article h1").text
            problems = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
            assert not problems, problems
    finally:
        make_client(settings.cluster).indices.delete(index=f"{settings.index_alias}*", ignore_unavailable=True)
    assert (tmp_path / "repealed.png").stat().st_size > 10_000
