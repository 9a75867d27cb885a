"""Sources carry quotes: the quoted form loads, a bare URL still loads, a bad quote names file, line and field."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from advisor.errors import KnowledgeError
from advisor.knowledge import validate_dirs
from advisor.knowledge.schema import MAX_QUOTE_CHARS, Basis, Source

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


def test_unknown_basis_is_refused(tmp_path: Path) -> None:
    (tmp_path / "pack.yaml").write_text(
        PACK.format(quote='"q"').replace("basis: judgement", "basis: hunch"), encoding="utf-8"
    )
    with pytest.raises(KnowledgeError) as info:
        validate_dirs([tmp_path])
    assert info.value.field == "score_overrides[1].score.basis" and info.value.line == 20
