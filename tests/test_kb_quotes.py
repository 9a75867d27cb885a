"""Sources carry quotes: the quoted form loads, a bare URL still loads, a bad quote names file, line and field."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from advisor.errors import KnowledgeError
from advisor.knowledge import validate_dirs
from advisor.knowledge.schema import MAX_QUOTE_CHARS, Basis, Source

ROOT = Path(__file__).resolve().parent.parent

PACK = """\
name: quoted
version: "1"
score_overrides:
  - framework: jax
    criterion: deployment
    score:
      score: 3
      rationale: The install page says so.
      sources:
        - url: https://docs.jax.dev/en/latest/installation.html
          quote: {quote}
          date: 2026-11-20
        - pkg:pypi/jax
      as_of: 2026-12-01
  - framework: jax
    criterion: performance
    score:
      score: 4
      rationale: Inferred from two benchmarks that each measure half of the claim.
      basis: judgement
      sources: [https://docs.jax.dev/en/latest/]
      as_of: 2026-12-01
"""


def _pack(tmp_path: Path, quote: str) -> Path:
    (tmp_path / "pack.yaml").write_text(PACK.format(quote=quote), encoding="utf-8")
    return tmp_path


def test_quoted_and_bare_sources_load_side_by_side(tmp_path: Path) -> None:
    kb = validate_dirs([_pack(tmp_path, '"JAX supports NVIDIA GPUs on Linux x86_64."')])
    score = kb.frameworks["jax"].scores["deployment"]
    quoted, bare = score.sources
    assert quoted == Source(
        url="https://docs.jax.dev/en/latest/installation.html",  # type: ignore[arg-type]
        quote="JAX supports NVIDIA GPUs on Linux x86_64.",
        date=dt.date(2026, 11, 20),
    )
    assert bare.quote is None and bare.date is None
    # Consumers that print or link sources see the URL, as when sources were bare strings.
    assert [str(s) for s in score.sources] == ["https://docs.jax.dev/en/latest/installation.html", "pkg:pypi/jax"]
    assert score.basis is Basis.SOURCED
    assert kb.frameworks["jax"].scores["performance"].basis is Basis.JUDGEMENT


def test_shipped_base_written_with_bare_urls_still_loads(kb) -> None:  # type: ignore[no-untyped-def]
    fw = kb.frameworks["pytorch"]
    assert all(isinstance(s, Source) for s in fw.sources)
    assert all(str(s) for score in fw.scores.values() for s in score.sources)


@pytest.mark.parametrize(
    ("quote", "message"),
    [("x" * (MAX_QUOTE_CHARS + 1), f"at most {MAX_QUOTE_CHARS} characters"), ('"  "', "at least 1 character")],
    ids=["too_long", "empty"],
)
def test_bad_quote_names_file_line_and_field(tmp_path: Path, quote: str, message: str) -> None:
    with pytest.raises(KnowledgeError) as info:
        validate_dirs([_pack(tmp_path, quote)])
    err = info.value
    assert message in err.message
    assert err.file is not None and str(err.file).endswith("pack.yaml")
    assert err.line == 11  # the `quote:` line
    assert err.field == "score_overrides[0].score.sources[0].quote"


@pytest.mark.parametrize(
    ("url", "quote", "refused"),
    [("pkg:pypi/jax", '"Requires-Python: >=3.12"', True),  # which release says so?
     ("pkg:pypi/jax@0.12.0.1", '"Requires-Python: >=3.12"', False),
     ("pkg:pypi/jax", '"jax (0.12.0.1)"', False),  # pip's newest-release line names its release
     ("pkg:pypi/jax", '"jax (0.12.0.1) Available versions: 0.12.0.1, 0.12.0"', False)],
    ids=["metadata_unversioned", "metadata_versioned", "pip_line", "pip_line_with_versions"],
)
def test_a_package_quote_names_its_release(tmp_path: Path, url: str, quote: str, refused: bool) -> None:
    cited = f"        - url: {url}\n          quote: {quote}\n"
    (tmp_path / "pack.yaml").write_text(PACK.format(quote='"q"').replace("        - pkg:pypi/jax\n", cited),
                                        encoding="utf-8")
    if not refused:
        validate_dirs([tmp_path])
        return
    with pytest.raises(KnowledgeError) as info:
        validate_dirs([tmp_path])
    assert "names the release it was read from: pkg:pypi/jax@VERSION" in info.value.message
    assert info.value.line == 13 and info.value.field == "score_overrides[0].score.sources[1]"


def test_unknown_basis_is_refused(tmp_path: Path) -> None:
    (tmp_path / "pack.yaml").write_text(
        PACK.format(quote='"q"').replace("basis: judgement", "basis: hunch"), encoding="utf-8"
    )
    with pytest.raises(KnowledgeError) as info:
        validate_dirs([tmp_path])
    assert info.value.field == "score_overrides[1].score.basis" and info.value.line == 20


# --- enforcement: `kb validate` lists and refuses unquoted facts (`--lenient` lists only); the base has none

#: Facts of the shipped base with a source that has no quote and no `basis: judgement`: none, and none may come.
UNQUOTED_IN_SHIPPED_BASE = 0

OVERLAY = """\
name: overlay
version: "1"
score_overrides:
  - framework: jax
    criterion: deployment
    score:
      score: 3
      rationale: Every source quoted.
      sources:
        - {url: "https://docs.jax.dev/", quote: "JAX runs on CPU, GPU and TPU."}
      as_of: 2026-12-01
  - framework: jax
    criterion: performance
    score:
      score: 4
      rationale: One of two sources quoted.
      sources:
        - {url: "https://docs.jax.dev/", quote: "JAX runs on CPU, GPU and TPU."}
        - pkg:pypi/jax
      as_of: 2026-12-01
  - framework: jax
    criterion: community
    score:
      score: 4
      rationale: Inferred from the size of the ecosystem.
      basis: judgement
      sources: [https://github.com/jax-ml/jax]
      as_of: 2000-01-01
"""


def _overlay(tmp_path: Path) -> Path:
    pack = tmp_path / "overlay"
    pack.mkdir()
    (pack / "pack.yaml").write_text(OVERLAY, encoding="utf-8")
    return pack


def test_unquoted_facts_name_file_line_and_field_and_spare_judgements(tmp_path: Path) -> None:
    from advisor.knowledge.facts import FactKind
    from advisor.knowledge.quotes import Unquoted, unquoted_facts

    pack = _overlay(tmp_path)
    validate_dirs([pack])  # valid first
    assert unquoted_facts(pack) == [
        Unquoted("overlay/pack.yaml", 14, "score_overrides[1].score", FactKind.SCORE, missing=1, sources=2)
    ]


def test_shipped_base_unquoted_facts_never_grow() -> None:
    from advisor.knowledge.quotes import unquoted_facts

    found = unquoted_facts(ROOT / "knowledge")
    assert len(found) <= UNQUOTED_IN_SHIPPED_BASE, (
        f"{len(found)} unquoted facts; the ratchet is at {UNQUOTED_IN_SHIPPED_BASE}"
    )
    # Every listing names a real line of its file.
    assert all(u.line and u.file.startswith("knowledge/") for u in found)


def test_kb_validate_refuses_unquoted_facts_and_lenient_lists_them(tmp_path: Path, cli_env: dict[str, str]) -> None:
    import subprocess
    import sys

    pack = _overlay(tmp_path)
    run = [sys.executable, "-m", "advisor", "kb", "validate", str(pack)]
    plain = subprocess.run(run, capture_output=True, text=True, env=cli_env, timeout=120)
    assert plain.returncode == 1, plain.stderr
    assert "overlay/pack.yaml:14: score_overrides[1].score (score, 1 of 2 sources unquoted)" in plain.stdout
    listed = [line for line in plain.stdout.splitlines() if line.endswith("sources unquoted)")]
    assert f"unquoted: {len(listed)} facts" in plain.stdout
    # A fact of 2000 is past any review interval on any day this test runs.
    assert "stale_fact:" in plain.stdout and "  jax.scores.community (score): as of 2000-01-01" in plain.stdout
    lenient = subprocess.run([*run, "--lenient"], capture_output=True, text=True, env=cli_env, timeout=120)
    assert lenient.returncode == 0 and lenient.stdout == plain.stdout
    # `--strict` fails on a stale fact too, even where every fact is quoted.
    (pack / "pack.yaml").write_text(OVERLAY.replace("        - pkg:pypi/jax\n",
                                                    '        - {url: "pkg:pypi/jax", quote: "jax (0.12.0.1)"}\n'),
                                    encoding="utf-8")
    quoted = subprocess.run([*run, "--lenient"], capture_output=True, text=True, env=cli_env, timeout=120)
    assert "quotes: every fact quotes" in quoted.stdout, quoted.stdout
    assert subprocess.run(run, capture_output=True, text=True, env=cli_env, timeout=120).returncode == 0
    strict = subprocess.run([*run, "--strict"], capture_output=True, text=True, env=cli_env, timeout=120)
    assert strict.returncode == 1 and "stale_fact:" in strict.stdout


def test_kb_show_puts_the_quote_beside_its_source_and_says_judgement(tmp_path: Path, cli_env: dict[str, str]) -> None:
    import subprocess
    import sys

    pack = _overlay(tmp_path)
    env = {**cli_env, "COLUMNS": "400"}
    out = subprocess.run(
        [sys.executable, "-m", "advisor", "--kb", str(pack), "kb", "show", "jax"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert 'https://docs.jax.dev/ "JAX runs on CPU, GPU and TPU."' in out.stdout
    assert "pkg:pypi/jax (no quote yet)" in out.stdout
    assert "judgement: reasoning in the rationale or notes" in out.stdout
    assert "\\x0a" not in out.stdout  # one source a line: the breaks between them are breaks, not escapes


def test_tui_source_panel_shows_the_reports_sources_as_text() -> None:
    """The breakdown shows each source the report carries (`contributions[].sources`, strings), never as markup."""
    from rich.console import Console

    from advisor.report.models import RankingEntry
    from advisor.tui.widgets.explain import breakdown

    entry = RankingEntry.model_validate({
        "rank": 1, "framework": "jax", "name": "JAX", "total": 1.0, "topsis": 1.0, "topsis_rank": 1,
        "status": "knowledge only", "installed": None, "notes": [],
        "contributions": [{
            "criterion": "community", "name": "Community", "weight": 1.0, "score": 1.0, "contribution": 1.0,
            "knowledge_score": 1.0, "evidence_weight": 0.0, "rationale": "Inferred.", "as_of": "2026-11-20",
            "evidence": "", "figures": [],
            "sources": ["https://github.com/jax-ml/jax#[b]An [/] excerpt", "pkg:pypi/jax"],
        }],
    })
    console = Console(width=200, record=True)
    console.print(breakdown(entry))
    text = console.export_text()
    assert "source: https://github.com/jax-ml/jax#[b]An [/] excerpt" in text  # text, not markup
    assert "source: pkg:pypi/jax" in text


def test_a_migration_route_is_a_fact_of_its_own(tmp_path: Path) -> None:
    """A migration's cheaper route (`via`) has its own cost class: it is sampled, and its quotes enforced."""
    import shutil

    import yaml

    from advisor.knowledge.facts import FactKind
    from advisor.knowledge.quotes import unquoted_facts

    shutil.copytree(ROOT / "knowledge", tmp_path / "knowledge")
    path = tmp_path / "knowledge" / "migration.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    index = next(i for i, m in enumerate(data["migrations"]) if m.get("via"))
    via = data["migrations"][index]["via"]
    via["sources"][0] = via["sources"][0]["url"]
    via.pop("basis", None)  # a judgement may leave a source unquoted; a sourced route may not
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")

    found = unquoted_facts(tmp_path / "knowledge")
    assert [(u.field, u.kind, u.missing) for u in found] == [(f"migrations[{index}].via", FactKind.MIGRATION, 1)]
    assert found[0].line and found[0].file == "knowledge/migration.yaml"
