"""The figures hint: versions a fact states that none of its quotes gives, found in the real base and a planted one."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

from conftest import ROOT

from advisor.knowledge.figures import FIGURE, stated_not_quoted, unquoted_figures
from advisor.knowledge.schema import Score


def _score(rationale: str, quote: str, score: float = 3.0) -> Score:
    return Score.model_validate({"score": score, "rationale": rationale, "as_of": dt.date(2026, 12, 5),
                                 "sources": [{"url": "https://example.invalid/notes", "quote": quote}]})


def test_a_version_no_quote_gives_is_named_and_one_a_quote_gives_is_not() -> None:
    fact = _score("Wheels stop at 2.20; the plugin needs 0.0.52 and Python 3.11-3.14.", "wheels up to 2.20 only")
    assert stated_not_quoted(fact) == ("0.0.52", "3.11", "3.14")


def test_the_scores_own_value_and_dotted_names_are_not_figures() -> None:
    fact = _score("Scores 3.5: torch.onnx and tf2onnx export; 2.15.0rc0 is a candidate.", "nothing", score=3.5)
    assert stated_not_quoted(fact) == ()
    assert FIGURE.findall("torch 2.15.0, cp314, jax.numpy, v1.2.3.dev0 and CUDA 12.6.") == ["2.15.0", "12.6"]


def test_a_planted_fact_is_listed_with_its_file_line_and_field(tmp_path: Path) -> None:
    pack = tmp_path / "kb"
    shutil.copytree(ROOT / "tests" / "fixtures" / "kb_small", pack)
    jax = pack / "frameworks" / "jax.yaml"
    text = jax.read_text(encoding="utf-8")
    before = {(f.file, f.field) for f in unquoted_figures(pack)}
    planted = text.replace("rationale:", "rationale: Needs jaxlib 9.8.7 at least.", 1)
    assert planted != text
    jax.write_text(planted, encoding="utf-8")
    after = [f for f in unquoted_figures(pack) if (f.file, f.field) not in before]
    assert [(f.file, f.figures) for f in after] == [("kb/frameworks/jax.yaml", ("9.8.7",))]
    assert after[0].line is not None and after[0].field.startswith("scores.")
