"""The auditor console in a real headless browser (Debian's chromium through Selenium)
against the real service: each view loads and shows the seeded records, stored text stays
text, and an agent key is refused. Screenshots go to CAPTURE_CONSOLE_SCREENSHOTS (set it to
docs/console to refresh the README's) or to the test's temporary folder."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from app.core.config import REPO_ROOT
from tests.console.conftest import INJECTION, PREFERENCE, Seeded

CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
CHROMEDRIVER = "chromedriver"


def _binary() -> tuple[str | None, str | None]:
    browser = next((found for name in CHROMIUM if (found := shutil.which(name))), None)
    return browser, shutil.which(CHROMEDRIVER)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    binary, driver_path = _binary()
    if binary is None or driver_path is None:
        reason = ("chromium and chromedriver are needed for the console's browser tests "
                  "(apt-get install chromium chromium-driver)")
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                     "--disable-gpu", "--window-size=1400,1000", "--hide-scrollbars"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("CAPTURE_CONSOLE_SCREENSHOTS")
    folder = (REPO_ROOT / given) if given else tmp_path_factory.mktemp("console")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _sign_in(driver: Any, base_url: str, key: str) -> None:
    driver.get(f"{base_url}/console/")
    driver.execute_script("sessionStorage.clear()")
    driver.get(f"{base_url}/console/")
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "signin").is_displayed())
    driver.find_element(By.ID, "key").send_keys(key)
    driver.find_element(By.CSS_SELECTOR, "#signin button").click()


def _open(driver: Any, view: str, query: str = "") -> Any:
    driver.execute_script("window.location.hash = arguments[0]", f"#{view}{query}")
    WebDriverWait(driver, 20).until(lambda d: d.execute_script(
        "const v = document.getElementById('view');"
        "return v.dataset.view === arguments[0] && v.dataset.ready === 'true'", view))
    status = driver.find_element(By.ID, "status").text
    assert status == "", status
    return driver.find_element(By.ID, "view")


def _rows(driver: Any, table_id: str) -> list[Any]:
    rows: list[Any] = driver.find_elements(By.CSS_SELECTOR, f"#{table_id} tbody tr")
    return rows


def _shot(driver: Any, folder: Path, name: str) -> None:
    path = folder / f"{name}.png"
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1400, max(700, min(int(height) + 40, 1800)))
    assert driver.save_screenshot(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    driver.set_window_size(1400, 1000)


def test_the_console_is_static_and_refuses_inline_script(console_service: Seeded) -> None:
    response = httpx.get(f"{console_service.base_url}/console/")
    assert response.status_code == 200
    assert "script-src 'self'" in response.headers["content-security-policy"]
    assert 'src="console.js"' in response.text
    assert httpx.get(f"{console_service.base_url}/console/console.js").status_code == 200


def test_an_agent_key_is_refused(browser: Any, console_service: Seeded) -> None:
    _sign_in(browser, console_service.base_url, console_service.agent)
    WebDriverWait(browser, 10).until(
        lambda d: "auditor or admin key" in d.find_element(By.ID, "signin-error").text)
    assert "agent key" in browser.find_element(By.ID, "signin-error").text
    assert not browser.find_element(By.ID, "nav").is_displayed()
    assert browser.execute_script("return sessionStorage.length") == 0
    _sign_in(browser, console_service.base_url, "cap_00000000_not-a-key")
    WebDriverWait(browser, 10).until(
        lambda d: "not accepted" in d.find_element(By.ID, "signin-error").text)


def test_every_view_shows_the_seeded_records(browser: Any, console_service: Seeded,
                                             shots: Path) -> None:
    s = console_service
    _sign_in(browser, s.base_url, s.auditor)
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "nav").is_displayed())

    view = _open(browser, "overview")
    cards = {c.get_attribute("data-metric"): int(c.find_element(By.TAG_NAME, "b").text)
             for c in view.find_elements(By.CSS_SELECTOR, ".card")}
    assert cards["events"] == 5  # alice's; bob's was erased with him
    assert cards["quarantines"] >= 1
    assert cards["admissions"] >= 1
    assert cards["questions"] >= 1
    assert cards["denies"] == 1
    bars = view.find_elements(By.CSS_SELECTOR, "#overview-chart rect[data-series]")
    assert sum(int(b.get_attribute("data-count")) for b in bars
               if b.get_attribute("data-series") == "denies") == 1
    _shot(browser, shots, "overview")

    view = _open(browser, "held")
    queue = _rows(browser, "quarantine-queue")
    assert any("Prefers detailed answers" in r.text for r in queue)  # the injection's claim
    questions = _rows(browser, "questions")
    assert any("Should I remember" in r.text and "French" in r.text for r in questions)
    held_actions = {r.find_elements(By.TAG_NAME, "td")[2].text
                    for r in _rows(browser, "held-decisions")}
    assert {"quarantine", "clarify"} <= held_actions
    _shot(browser, shots, "held")

    view = _open(browser, "tools", "?decision=deny")
    [denied] = _rows(browser, "tool-checks")
    assert "send_email" in denied.text
    [evidence] = denied.find_elements(By.CSS_SELECTOR, ".evidence")
    doc_event = s.ids["doc"]["event_id"]
    assert evidence.get_attribute("data-argument") == "recipients"
    assert evidence.get_attribute("data-event") == doc_event
    assert "audit@ext-review.io" in evidence.text  # the event's own text, quoted
    _shot(browser, shots, "tools")

    quarantined = s.ids["injection"]["decisions"][0]["id"]
    _open(browser, "held")
    node_id = next(r.get_attribute("data-node") for r in _rows(browser, "quarantine-queue")
                   if "Prefers detailed answers" in r.text)
    view = _open(browser, "lineage", f"?user=alice&node={node_id}")
    graph = view.find_element(By.ID, "lineage-graph")
    kinds = [g.get_attribute("data-kind")
             for g in graph.find_elements(By.CSS_SELECTOR, "g[data-kind]")]
    assert kinds.count("event") == 1
    assert {"hypothesis", "decision", "version"} <= set(kinds)
    assert graph.find_element(By.CSS_SELECTOR, f"g[data-id='d:{quarantined}']")
    assert len(graph.find_elements(By.CSS_SELECTOR, "path.edge")) >= 3
    assert INJECTION[:40] in graph.text
    _shot(browser, shots, "lineage")

    view = _open(browser, "session", "?user=alice&session=s3")
    graph = view.find_element(By.ID, "session-graph")
    deny_id = s.ids["check_send_email"]["decision_id"]
    assert graph.find_element(By.CSS_SELECTOR, f"g[data-id='action:{deny_id}']")
    assert graph.find_element(By.CSS_SELECTOR, "g[data-kind='retrieval']")
    relations = {p.get_attribute("data-relation")
                 for p in graph.find_elements(By.CSS_SELECTOR, "path.edge")}
    assert {"fed_argument", "returned", "decided_on"} <= relations
    _shot(browser, shots, "session")

    view = _open(browser, "timeline", "?user=alice&as_of=2026-11-01T09:03:00Z")
    held_then = [r.text for r in _rows(browser, "held-at")]
    assert held_then
    assert all("short answers" in text for text in held_then)
    assert len(_rows(browser, "timeline-events")) == 1
    view = _open(browser, "timeline", "?user=alice&as_of=2026-11-01T09:30:00Z")
    texts = " ".join(r.text for r in _rows(browser, "timeline-events"))
    assert PREFERENCE in texts
    assert '<img src=x onerror="window.pwned=1">' in texts  # shown as text, never run
    assert browser.execute_script("return window.pwned") is None
    _shot(browser, shots, "timeline")

    view = _open(browser, "erasures")
    [receipt] = _rows(browser, "erasure-receipts")
    assert receipt.get_attribute("data-erasure") == s.ids["erasure"]["id"]
    assert "done" in receipt.text
    assert "events 1" in receipt.text
    assert "bob" not in view.text
    _shot(browser, shots, "erasures")
