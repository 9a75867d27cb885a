"""`--html`: the pages for report, team decide and team merge, built from real evidence through the real CLI."""

from __future__ import annotations

import html
import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from _scoring_support import FIXTURES, ROOT, bench_fixture, probe_fixture, run_cli

from advisor.report import Report, build_report, to_json_text
from advisor.report.html import report_html

#: A string from outside that would run if it reached the page as markup.
HOSTILE = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">&amp;"\' $\\frac{$ $x$'
#: To matplotlib with math parsing on, `$...$` is TeX: a parse error (a traceback), or a formula drawn.
MATH = "$\\frac{$ $x$"
#: A member's label (at most 80 characters in a profile).
MEMBER = "<script>window.__pwned=1</script>"
HOME = "/home/alice-secret/work/profile.yaml"


def h200_report(kb: Any, **kw: Any) -> dict[str, Any]:
    """A report from the shipped knowledge and the recorded H200 evidence (its figures carry 95% intervals)."""
    from advisor.profile import parse_profile, resolve_profile
    from advisor.scoring import assess

    probe, bench = probe_fixture("probe_real_nvidia_h200.json"), bench_fixture("bench_real_h200_quick_gpu.json")
    profile = kw.pop("profile", {"team": {"current": ["pytorch"]}})
    resolved = resolve_profile(parse_profile(profile, "p.yaml"), kb)
    a = assess(kb, resolved, probe=probe, bench=bench, draws=300)
    return build_report(a, kb, probe=probe, bench=bench, profile_source=kw.pop("source", "p.yaml"), **kw)


def hostile_report(kb: Any) -> dict[str, Any]:
    """The H200 report with hostile text wherever a saved report from elsewhere could carry it."""
    data = h200_report(kb, identify=True, hostname="host", source=HOME).model_dump(mode="json")
    data["ranking"][0]["name"] = "PyTorch " + HOSTILE
    data["ranking"][0]["notes"].append("note " + HOSTILE)
    data["ranking"][1]["name"] = MATH
    data["recommendation"]["name"] = "PyTorch " + HOSTILE
    data["recommendation"]["summary"] = "summary " + HOSTILE
    data["benchmarks"]["results"][0]["variant"] = "variant " + HOSTILE
    # Codes are an enum (a foreign code is refused on read): the hostile text rides in saved words and in params.
    data["warnings"].append({"code": "profile", "message": HOSTILE})
    data["warnings"].append({"code": "hardware", "params": {"form": "requirement", "check": "x" + HOSTILE,
                                                           "detail": HOSTILE}})
    return data


def save_h200(kb: Any, folder: Path) -> Path:
    """The H200 report saved as `report -o` writes it (so that `--from-json` re-scores measured evidence)."""
    path = folder / "h200.json"
    path.write_text(to_json_text(h200_report(kb)))
    return path


def charts_of(page: str) -> list[str]:
    """The inline SVG charts of a page."""
    return re.findall(r"<svg role=\"img\".*?</svg>", page, re.S)


def tags_and_handlers(page: str) -> tuple[set[str], set[str]]:
    """The script/img/iframe/object tags and the on* event attributes of a page, as a browser's parser sees them."""
    found: tuple[set[str], set[str]] = (set(), set())

    class Parser(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag in ("script", "img", "iframe", "object", "embed"):
                found[0].add(tag)
            found[1].update(name for name, _ in attrs if name.startswith("on"))

    Parser().feed(page)
    return found


def check_self_contained(page: str) -> None:
    """No attribute that could fetch anything: only in-page references (#id); a CSP that forbids loading."""
    assert "default-src 'none'" in html.unescape(page)
    for attr, value in re.findall(r"\b(src|href|xlink:href|action|poster|srcset)=\"([^\"]*)\"", page):
        assert value.startswith("#"), f"{attr}={value!r} points outside the page"
    assert "url(" not in page.replace("url(#", "") and "@import" not in page and "<script" not in page.lower()


def check_answer_first(page: str, headline: str) -> None:
    """The answer box is the first section, before any chart or table."""
    answer = page.index('id="answer"')
    assert answer < page.index("<svg") and answer < page.index("<table")
    assert headline in page[answer: page.index("</h2>", answer)]


def test_report_page_charts_tables_and_answer(kb: Any) -> None:
    page = report_html(h200_report(kb))
    check_self_contained(page)
    check_answer_first(page, "PyTorch")
    charts = charts_of(page)
    names = [re.search(r'data-chart="([^"]+)"', c).group(1) for c in charts]  # type: ignore[union-attr]
    assert names[:2] == ["scores", "sensitivity"] and any(n.startswith("bench-") for n in names)
    for figure in re.findall(r"<figure>.*?</figure>", page, re.S):
        assert "<svg" in figure and "<table" in figure, "a chart without its table"
    # The benchmark table carries the 95% interval the bench computed, and the share of peak.
    bench = json.loads((FIXTURES / "evidence" / "bench_real_h200_quick_gpu.json").read_text())
    first = next(r for r in bench["results"] if r.get("ci"))
    assert f"{first['ci'][0]:.4g} to {first['ci'][1]:.4g}" in page
    assert "% of peak" in page


def test_hostile_text_is_escaped_and_names_scrubbed(kb: Any) -> None:
    data = hostile_report(kb)
    page = report_html(Report.model_validate(data), identify=False)
    assert tags_and_handlers(page) == (set(), set()), "markup from the report reached the page as markup"
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in page
    assert MATH in re.search(r'data-chart="scores".*?</svg>', page, re.S).group()  # type: ignore[union-attr]
    assert "alice-secret" not in page and "/home/&lt;user&gt;" in page  # the home folder, as in the JSON
    assert "alice-secret" in report_html(Report.model_validate(data), identify=True)


def run_html(args: list[str], tmp_path: Path) -> tuple[Any, str]:
    """Run `fwadvisor ARGS --html FILE` with the shipped knowledge; the page written."""
    out = tmp_path / "page.html"
    result = run_cli([*args, "--html", str(out)], base=None)
    assert result.returncode == 0, result.stderr
    return result, out.read_text(encoding="utf-8")


def test_report_cli_html_file_and_stdout(kb: Any, tmp_path: Path) -> None:
    saved = save_h200(kb, tmp_path)
    (tmp_path / "page.html").write_text("old")
    result, page = run_html(["report", "--from-json", str(saved)], tmp_path)
    check_self_contained(page)
    check_answer_first(page, "PyTorch")
    assert "HTML report written" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h200.json", "page.html"]  # no temp file left
    stdout = run_cli(["report", "--from-json", str(saved), "--html"], base=None)
    assert stdout.returncode == 0 and stdout.stdout.startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("other", ["--json", "--markdown"])
def test_report_html_to_stdout_beside_json_is_refused(other: str, tmp_path: Path) -> None:
    result = run_cli(["report", "--from-json", str(tmp_path / "none.json"), other, "--html"], base=None)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().count("\n") == 0 and "--html" in result.stderr


def test_unwritable_html_path_is_refused_before_anything_runs(tmp_path: Path) -> None:
    folder = tmp_path / "dir.html"
    folder.mkdir()
    result = run_cli(["team", "merge", str(FIXTURES / "team" / "real-cpu-quick.json"), "--html", str(folder)],
                     base=None)
    assert result.returncode == 2 and "--html" in result.stderr and "folder" in result.stderr
    assert "Traceback" not in result.stderr


def test_team_decide_html(kb: Any, tmp_path: Path) -> None:
    saved = save_h200(kb, tmp_path)
    hostile = tmp_path / "hostile.yaml"
    hostile.write_text(f"member: '{MEMBER}'\nweights: {{performance: 5}}\n")
    members = sorted(str(p) for p in (ROOT / "docs" / "examples" / "team").glob("*.yaml"))
    result, page = run_html(["team", "decide", *members, str(hostile), "--from-json", str(saved)], tmp_path)
    assert "left out" not in result.stderr
    check_self_contained(page)
    assert tags_and_handlers(page) == (set(), set()) and "&lt;script&gt;" in page
    assert {"consensus", "disagreements", "scores", "sensitivity"} <= set(re.findall(r'data-chart="([^"]+)"', page))
    assert 'id="answer"' in page and page.index('id="answer"') < page.index('data-chart="consensus"')


def test_team_merge_html_per_machine_type(tmp_path: Path) -> None:
    files = sorted(str(p) for p in (FIXTURES / "team").glob("*.json"))
    result, page = run_html(["team", "merge", *files], tmp_path)
    check_self_contained(page)
    check_answer_first(page, "JAX")
    assert 'data-chart="machine-types"' in page and 'data-chart="fleet-bench-0"' in page
    assert "2x NVIDIA H100 80GB HBM3" in page  # alice's (fake) machine type
    assert "carol-corrupt.json: not valid JSON" in result.stderr
    assert os.environ.get("HOME", "/root") not in page


def test_compare_html_differences_first(kb: Any, tmp_path: Path) -> None:
    saved = save_h200(kb, tmp_path)
    other = tmp_path / "h200-jax-team.json"  # the same figures, another profile
    other.write_text(to_json_text(h200_report(kb, profile={"team": {"current": ["jax"]}})))
    files = [str(saved), str(other), str(FIXTURES / "team" / "real-cpu-quick.json")]
    _, page = run_html(["compare", *files], tmp_path)
    check_self_contained(page)
    check_answer_first(page, "3 reports")
    assert "scored under different profiles" in page and "different presets" not in page  # in the answer box
    assert page.index("scored under different profiles") < page.index("<svg")
    assert 'data-chart="compare-ranking"' in page and 'data-chart="compare-fig-' in page
