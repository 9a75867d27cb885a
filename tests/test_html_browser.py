"""The HTML pages in a real browser: Debian's Chromium, headless, driven by Playwright; one launch for all pages.

Opened from disk, each page must make no request but for itself, log no console error, draw every chart,
and show the answer without scrolling at 1280x800. Chromium comes from the OS (`apt-get install chromium`,
see .ci/run); `playwright install` is never run, so nothing is downloaded.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _scoring_support import FIXTURES, ROOT
from test_html_pages import MEMBER, h200_report, hostile_report

from advisor.report import Report
from advisor.report.html import decision_html, merge_html, report_html

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1280, "height": 800}
#: Elements that draw something in a matplotlib SVG.
DRAWN = "path, rect, line, polyline, polygon, circle, ellipse, use, text"


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One Chromium for the module, with an empty profile folder."""
    if not CHROMIUM.exists():
        why = f"{CHROMIUM} is missing: `apt-get install -y chromium` (Debian) or deselect with -m 'not browser'"
        # CI installs it and sets FWADVISOR_REQUIRE_BROWSER (.ci/run), where a skip would hide its absence; a
        # machine that reaches only the package index has no OS browser, and the README's test command still passes.
        if os.environ.get("FWADVISOR_REQUIRE_BROWSER"):
            pytest.fail(why)
        pytest.skip(why)
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_api.sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(profile), executable_path=str(CHROMIUM), args=ARGS, headless=True, viewport=VIEWPORT
        )
        try:
            yield ctx
        finally:
            ctx.close()


@pytest.fixture(scope="module")
def pages(kb: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The four kinds of page from the calls the CLI makes (the CLI itself: test_html_pages), and a hostile one."""
    from advisor.privacy import scrub
    from advisor.report import report_from_json
    from advisor.report.compare import compare_reports
    from advisor.report.html.compare_page import compare_html
    from advisor.team import merge_reports
    from advisor.team.decision_schema import TeamDecisionDoc
    from advisor.team.session import decide_files

    folder = tmp_path_factory.mktemp("pages")
    saved = h200_report(kb)
    hostile_member = folder / "hostile.yaml"
    hostile_member.write_text(f"member: '{MEMBER}'\nweights: {{performance: 5}}\n")
    members = [*sorted((ROOT / "docs" / "examples" / "team").glob("*.yaml")), hostile_member]
    from advisor.evidence.saved_report import read_evidence

    evidence = saved.model_dump(mode="json", exclude_unset=True)
    probe, bench = read_evidence(evidence["probe"], evidence["benchmarks"], file="saved report")
    decision = decide_files(kb, members, probe=probe, bench=bench, evidence="saved report")
    team = merge_reports(kb, sorted((FIXTURES / "team").glob("*.json")))
    compared = compare_reports([
        ("h200.json", saved),
        ("h200-jax.json", h200_report(kb, profile={"team": {"current": ["jax"]}})),
        ("cpu.json", report_from_json(json.loads((FIXTURES / "team" / "real-cpu-quick.json").read_text()), "cpu.json")),
    ])
    texts = {
        "report": report_html(saved),
        "decide": decision_html(TeamDecisionDoc.model_validate(scrub(decision.document.model_dump(mode="json"),
                                                                     drop_keys=False))),
        "merge": merge_html(team),
        "compare": compare_html(compared),
        "hostile": report_html(Report.model_validate(hostile_report(kb))),
    }
    out = {kind: folder / f"{kind}.html" for kind in texts}
    for kind, text in texts.items():
        out[kind].write_text(text, encoding="utf-8")
    return out


def open_page(context: Any, path: Path) -> tuple[Any, list[str], list[str]]:
    """Open `path` from disk; the requests it made and its console errors (and uncaught exceptions)."""
    page = context.new_page()
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri(), wait_until="load")
    return page, requests, errors


@pytest.mark.parametrize("kind", ["report", "decide", "merge", "compare"])
def test_page_in_chromium(kind: str, context: Any, pages: dict[str, Path], tmp_path: Path) -> None:
    page, requests, errors = open_page(context, pages[kind])
    try:
        assert requests == [pages[kind].as_uri()], "the page asked for something besides itself"
        assert errors == []
        charts = page.locator("svg.chart")
        assert charts.count() >= 2
        for i in range(charts.count()):
            chart = charts.nth(i)
            box = chart.bounding_box()
            assert box and box["width"] > 100 and box["height"] > 50, chart.get_attribute("data-chart")
            assert chart.locator(DRAWN).count() > 10, f"{chart.get_attribute('data-chart')} draws nothing"
        answer = page.locator("#answer")
        box = answer.bounding_box()
        assert answer.is_visible() and box and box["y"] >= 0 and box["y"] + box["height"] <= VIEWPORT["height"]
        page.screenshot(path=str(tmp_path / f"{kind}.png"))
        assert (tmp_path / f"{kind}.png").stat().st_size > 10_000
    finally:
        page.close()


def test_hostile_text_shows_as_text_and_runs_nothing(context: Any, pages: dict[str, Path]) -> None:
    for kind in ("hostile", "decide"):
        page, requests, errors = open_page(context, pages[kind])
        try:
            assert page.evaluate("window.__pwned") is None, "a script from the report ran"
            assert page.locator("script, img, iframe").count() == 0
            assert MEMBER in page.inner_text("body")
            assert len(requests) == 1 and errors == []
        finally:
            page.close()

