"""The knowledge base: the shipped base loads and is complete; every kind of bad file fails clearly."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.errors import KnowledgeError
from advisor.knowledge import load_knowledge, validate_dirs
from advisor.knowledge.schema import Basis, Hardware, OperatingSystem, Support
from advisor.yamlio import load_yaml_text

ROOT = Path(__file__).resolve().parent.parent
BAD = ROOT / "tests" / "fixtures" / "bad_packs"
ACME = ROOT / "docs" / "examples" / "acme-pack"
FRAMEWORKS = {"pytorch", "jax", "tensorflow", "keras", "paddlepaddle", "mindspore", "mlx"}


def test_shipped_base_loads_with_every_framework(kb) -> None:  # type: ignore[no-untyped-def]
    assert set(kb.frameworks) >= FRAMEWORKS
    assert len(kb.criteria) >= 10
    assert kb.packs[0].builtin and kb.packs[0].name == "builtin"


def test_every_framework_scored_on_every_criterion_with_sources(kb) -> None:  # type: ignore[no-untyped-def]
    for fid, fw in kb.frameworks.items():
        assert set(fw.scores) == set(kb.criteria), fid
        for cid, score in fw.scores.items():
            assert 0 <= score.score <= 5, (fid, cid)
            assert score.sources and score.rationale.strip(), (fid, cid)
            assert dt.date(2023, 1, 1) <= score.as_of <= dt.date.today(), (fid, cid)
        assert set(fw.hardware) == set(Hardware), f"{fid} must state every hardware backend (unknown is fine)"


def test_migration_matrix_covers_every_ordered_pair(kb) -> None:  # type: ignore[no-untyped-def]
    ids = sorted(kb.frameworks)
    missing = [(a, b) for a in ids for b in ids if a != b and (a, b) not in kb.migrations]
    assert not missing


def test_deployment_routes_cover_every_target_and_framework(kb) -> None:  # type: ignore[no-untyped-def]
    assert set(kb.targets) >= {"server", "batch", "mobile", "browser", "edge"}
    missing = [(t, f) for t in kb.targets for f in kb.frameworks if kb.route(f, t) is None]
    assert not missing


def test_tpu7x_is_jax_and_pytorch_only_and_tensorflow_tpu_generations_say_so(kb) -> None:  # type: ignore[no-untyped-def]
    # Google's TPU7x page: JAX and PyTorch can be used, TensorFlow is not supported.
    for fid in ("jax", "pytorch"):
        assert kb.frameworks[fid].hardware[Hardware.GOOGLE_TPU].generations["tpu7x"].status.usable, fid
    assert kb.frameworks["tensorflow"].hardware[Hardware.GOOGLE_TPU].generations["tpu7x"].status == Support.NONE
    for fw in kb.frameworks.values():
        for hw, entry in fw.hardware.items():
            for gen in entry.generations.values():
                assert gen.sources and gen.as_of <= dt.date.today(), (fw.id, hw, gen)


def test_the_audits_examples_stay_fixed(kb) -> None:  # type: ignore[no-untyped-def]
    # Issue 11's audit found these wrong; each was re-verified (sources in the YAML) and must not regress.
    fw = kb.frameworks
    tpu = fw["tensorflow"].hardware[Hardware.GOOGLE_TPU]
    assert not tpu.generations["tpu7x"].status.usable  # Google: "TensorFlow is not supported" on TPU7x
    assert tpu.basis is not Basis.JUDGEMENT  # the old "deprecated" was a judgement no source stated
    assert "tensorflow-cpu" not in (fw["tensorflow"].hardware[Hardware.CPU].install or "")  # no macOS/aarch64 wheels
    assert "3.13" in fw["keras"].python_versions
    # jax 0.12's extras pin plugin versions that do not exist: unpinned lines resolve to older jax.
    assert "==" in (fw["jax"].hardware[Hardware.INTEL_GPU].install or "")
    assert "==" in (fw["jax"].hardware[Hardware.AMD_ROCM].install or "")
    assert "7.5" in (fw["pytorch"].hardware[Hardware.NVIDIA_CUDA].notes or "")  # 2.15: sm_75 and newer only
    mobile = kb.route("keras", "mobile")
    assert mobile is not None and "TensorFlow or PyTorch backend" in mobile.route


def test_every_framework_describes_linux_windows_and_macos(kb) -> None:  # type: ignore[no-untyped-def]
    for fid, fw in kb.frameworks.items():
        assert set(fw.platforms) == set(OperatingSystem), fid
        assert fw.platforms[OperatingSystem.WINDOWS].wsl2 is not None, f"{fid}: say what WSL2 gives"
        assert fw.platforms[OperatingSystem.LINUX].wsl2 is None, fid


def test_engines_name_known_targets_frameworks_and_a_maintenance_state(kb) -> None:  # type: ignore[no-untyped-def]
    assert {
        "vllm",
        "sglang",
        "tensorrt_llm",
        "tgi",
        "llama_cpp",
        "ollama",
        "mlx_lm",
        "onnxruntime_genai",
        "litert_lm",
    } <= set(kb.engines)
    # TGI's own README: "now in maintenance mode"; the advisor must not present it as a fresh choice.
    assert kb.engines["tgi"].status == Support.DEPRECATED
    for eid, eng in kb.engines.items():
        assert set(eng.targets) <= set(kb.targets), eid
        assert eng.feeds and set(eng.feeds) <= set(kb.frameworks), eid
    assert kb.engines["mlx_lm"].feeds["mlx"].status == Support.SUPPORTED


def test_scenarios_weigh_known_criteria(kb) -> None:  # type: ignore[no-untyped-def]
    assert {"research_prototyping", "production_inference", "mobile_edge", "tpu_first", "generic"} <= set(kb.scenarios)
    for scenario in kb.scenarios.values():
        assert set(scenario.weights) <= set(kb.criteria)
        assert sum(scenario.weights.values()) > 0


def test_concept_mapping_between_the_big_three(kb) -> None:  # type: ignore[no-untyped-def]
    for a in ("pytorch", "jax", "tensorflow"):
        for b in ("pytorch", "jax", "tensorflow"):
            if a != b:
                assert len(kb.concept_mapping(a, b)) >= 10


def test_round_trip_through_json_keeps_every_framework(kb) -> None:  # type: ignore[no-untyped-def]
    from advisor.knowledge.schema import Framework

    for fw in kb.frameworks.values():
        again = Framework.model_validate(fw.model_dump(mode="json", by_alias=True))
        assert again == fw


def test_overlay_pack_adds_policy_and_overrides_one_score(kb) -> None:  # type: ignore[no-untyped-def]
    merged = load_knowledge([ACME], include_user=False)
    assert [p.name for p in merged.packs] == ["builtin", "acme"]
    assert "stay_on_cuda" in merged.policies
    assert merged.frameworks["tensorflow"].scores["deployment"].score == 5
    # Only that one score changed.
    assert merged.frameworks["tensorflow"].scores["ecosystem"] == kb.frameworks["tensorflow"].scores["ecosystem"]


def test_user_config_packs_load_before_command_line_packs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config"
    (config / "packs").mkdir(parents=True)
    shutil.copytree(ACME, config / "packs" / "acme")
    monkeypatch.setenv("FWADVISOR_CONFIG_DIR", str(config))
    monkeypatch.delenv("FWADVISOR_NO_USER_PACKS", raising=False)
    merged = load_knowledge()
    assert [p.name for p in merged.packs] == ["builtin", "acme"]


# Each bad pack: (folder, text expected in the message, the line it must name or None, field or None)
BAD_CASES = [
    ("syntax_error", "YAML syntax error", 6, None),
    ("duplicate_key", "duplicate key 'name' (first on line 3)", 4, None),
    ("billion_laughs", "aliases (*name) are not allowed", 2, None),
    ("wrong_type", "valid number", 6, "scenarios[0].weights.performance"),
    ("unknown_criterion", "unknown criterion 'vibes'", 7, "weights.vibes"),
    ("unknown_field", "unknown field", 5, "scenarios[0].wieghts"),
    ("unknown_framework", "unknown framework 'theano'", 4, "framework"),
    ("score_out_of_range", "less than or equal to 5", 7, "score_overrides[0].score.score"),
    ("missing_sources", "at least 1 item", 9, "score_overrides[0].score.sources"),
    ("unknown_engine_feed", "unknown framework 'theano'", 11, "feeds.theano"),
    ("not_a_mapping", "expected a mapping", 1, None),
    ("no_pack_file", "needs a pack.yaml", None, None),
    ("unexpected_file", "unexpected file", None, None),
]


@pytest.mark.parametrize(("name", "message", "line", "field"), BAD_CASES, ids=[c[0] for c in BAD_CASES])
def test_bad_pack_fails_with_file_line_and_field(name: str, message: str, line: int | None, field: str | None) -> None:
    with pytest.raises(KnowledgeError) as info:
        validate_dirs([BAD / name])
    err = info.value
    assert message in err.message
    assert err.file is not None and name in str(err.file)
    assert err.line == line
    assert err.field == field


def test_kb_validate_cli_prints_one_line_and_exits_2_for_each_bad_pack(cli_env: dict[str, str]) -> None:
    # One interpreter for all cases keeps this fast; each case is a separate main() call.
    code = (
        "import sys, contextlib, io\n"
        "from advisor.cli import main\n"
        "for d in sys.argv[1:]:\n"
        "    err = io.StringIO()\n"
        "    with contextlib.redirect_stderr(err):\n"
        "        rc = main(['kb', 'validate', d])\n"
        "    print(rc, repr(err.getvalue()))\n"
    )
    dirs = [str(BAD / c[0]) for c in BAD_CASES]
    out = subprocess.run([sys.executable, "-c", code, *dirs], capture_output=True, text=True, env=cli_env, check=True)
    lines = out.stdout.splitlines()
    assert len(lines) == len(BAD_CASES)
    for (name, *_), line in zip(BAD_CASES, lines, strict=True):
        rc, text = line.split(" ", 1)
        text = eval(text)  # noqa: S307 - our own repr() output
        assert rc == "2", (name, text)
        assert text.count("\n") == 1 and text.startswith("fwadvisor: error: "), (name, text)
        assert "Traceback" not in text and name in text


def test_kb_validate_real_process_on_good_and_bad(cli_env: dict[str, str]) -> None:
    ok = subprocess.run(
        [sys.executable, "-m", "advisor", "kb", "validate", str(ACME)], capture_output=True, text=True, env=cli_env
    )
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("ok: builtin")
    bad = subprocess.run(
        [sys.executable, "-m", "advisor", "kb", "validate", str(BAD / "duplicate_key")],
        capture_output=True,
        text=True,
        env=cli_env,
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip().endswith("scenarios.yaml:4: duplicate key 'name' (first on line 3)")


yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_fuzz_arbitrary_text_raises_only_knowledge_error(text: str) -> None:
    try:
        load_yaml_text(text, "fuzz.yaml", KnowledgeError)
    except KnowledgeError:
        pass


PACK_FILE_NAMES = st.sampled_from(["scenarios.yaml", "criteria.yaml", "pack.yaml", "frameworks/x.yaml"])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=yaml_values, which=PACK_FILE_NAMES)
def test_fuzz_arbitrary_yaml_in_a_pack_raises_only_knowledge_error(data: object, which: str) -> None:
    import tempfile

    pack = Path(tempfile.mkdtemp(prefix="fuzz"))
    (pack / "frameworks").mkdir()
    if which != "pack.yaml":
        (pack / "pack.yaml").write_text('name: fuzz\nversion: "1"\n')
    (pack / which).write_text(yaml.safe_dump(data), encoding="utf-8")
    try:
        validate_dirs([pack])
    except KnowledgeError as exc:
        assert str(exc)
    finally:
        shutil.rmtree(pack, ignore_errors=True)
