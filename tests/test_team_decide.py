"""Team decide in the core: aggregated weights, the union of constraints, consensus, disagreements and fragility."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from _scoring_support import load_small_kb, probe_fixture
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.profile import load_profile_text, resolve_profile
from advisor.report.words import exclusion_reasons, fragility_statement, left_out_words
from advisor.team.aggregate import aij, kendall_w
from advisor.team.decide import TeamDecision, decide
from advisor.team.fragility import FRAGILE_CHANGE, FragilityCode
from advisor.team.members import LeftOutCode, Member, clean_label, load_members
from advisor.team.warnings import TeamWarningCode

KB = load_small_kb()
DRAWS = 200


def member(label: str, text: str) -> Member:
    profile = load_profile_text(text, f"{label}.yaml")
    return Member(label, f"{label}.yaml", resolve_profile(profile, KB))


def team_of(*members: Member) -> TeamDecision:
    return decide(KB, list(members), probe=probe_fixture(), draws=DRAWS)


DEPLOYER = "weights: {deployment: 1}\n"  # TensorFlow's strongest criterion in the test pack
DEBUGGER = "weights: {developer_experience: 3, deployment: 1}\n"
JUDGE = "pairwise:\n  - [performance, deployment, 3]\n  - [performance, ecosystem, 2]\n  - [ecosystem, deployment, 1]\n"


def test_team_totals_are_the_members_mean_and_the_block_counts_per_member() -> None:
    a, b, c = member("ana", DEPLOYER), member("ben", DEBUGGER), member("cho", JUDGE)
    d = team_of(a, b, c)
    block = aij([c.judgements]).weights
    for row in d.team.ranking:
        scores = {x.criterion: x.score for x in row.contributions}
        own = [math.fsum(m.weights[k] * s for k, s in scores.items()) for m in (a, b)]
        via_block = math.fsum(block.get(k, 0.0) * s for k, s in scores.items())
        assert row.total == pytest.approx((own[0] + own[1] + via_block) / 3, abs=1e-9)
    assert d.weights["deployment"] == pytest.approx((1.0 + 0.25 + block["deployment"]) / 3)


def test_every_members_constraints_apply_and_name_the_member() -> None:
    a = member("ana", DEPLOYER + "constraints: {exclude: [jax]}\n")
    b = member(
        "ben", DEBUGGER + "constraints: {must_deploy_to: [mobile]}\nframeworks: [pytorch, tensorflow, jax, mlx]\n"
    )
    d = team_of(a, b)
    reasons = {x.framework: exclusion_reasons(x) for x in d.team.exclusions}
    assert "excluded by ana's profile" in reasons["jax"]
    assert "not among the frameworks ben considers" in reasons["mindspore"]
    causes = {x.framework: x.causes for x in d.team.exclusions}
    assert any(c.code == "excluded" and (c.by, c.name) == ("member", "ana") for c in causes["jax"])
    assert any(c.code == "not_considered" and c.name == "ben" for c in causes["mindspore"])
    assert "jax" not in [r.framework for r in d.team.ranking]
    assert set(d.members[0].team_ranks) == {r.framework for r in d.team.ranking}  # W over the team's candidates
    # Each member's own answer uses only their own constraints: ana's list still has mindspore.
    assert "mindspore" in [r.framework for r in d.members[0].assessment.ranking]


def test_consensus_figures() -> None:
    a, b, c = member("ana", DEPLOYER), member("ben", DEBUGGER), member("cho", JUDGE)
    d = team_of(a, b, c)
    names = [r.framework for r in d.team.ranking]
    rows = [[v.team_ranks[f] for f in names] for v in d.members]
    assert d.kendall_w == pytest.approx(kendall_w(rows))
    assert 0 <= d.kendall_w <= 1  # type: ignore[operator]
    own = {v.member.label: v.winner for v in d.members}
    assert own["ana"] == "tensorflow" and own["ben"] == "pytorch"
    assert d.agreeing == [k for k, w in own.items() if w == d.winner]
    assert d.winner_share == pytest.approx(len(d.agreeing) / 3)


def test_disagreements_name_who_is_at_each_end() -> None:
    d = team_of(member("ana", DEPLOYER), member("ben", DEBUGGER), member("cho", JUDGE))
    top = d.disagreements[0]
    assert top.criterion == "deployment" and top.low_members == ["cho"]  # the largest spread comes first
    by = {x.criterion: x for x in d.disagreements}
    dep = by["deployment"]
    assert dep.high_members == ["ana"] and dep.high == pytest.approx(1.0)
    assert dep.spread == pytest.approx(1.0 - min(v.member.weights["deployment"] for v in d.members))
    devx = by["developer_experience"]
    assert devx.high_members == ["ben"] and set(devx.low_members) == {"ana", "cho"}


def _rescaled_weights(m: Member, criterion: str, share: float) -> str:
    """A weights profile where `criterion` has `share` of the member's weight and the rest keep their ratios."""
    others = {k: v for k, v in m.weights.items() if k != criterion and v > 0}
    rest = math.fsum(others.values())
    weights = {k: (1 - share) * v / rest for k, v in others.items()} | {criterion: share}
    return "weights: {" + ", ".join(f"{k}: {v!r}" for k, v in weights.items()) + "}\n"


def test_fragility_of_a_weights_member_is_exact() -> None:
    """Just short of the reported share the answer holds; just past it, the reported rival wins."""
    a, b = member("ana", DEPLOYER), member("ben", DEBUGGER)
    d = team_of(a, b)
    flip = next(f for f in d.fragility.flips if f.member == "ben")
    assert flip.how == "weight"
    step = 1e-4 if flip.to_share > flip.from_share else -1e-4
    for share, expected in ((flip.to_share - step, d.winner), (flip.to_share + step, flip.new_winner)):
        moved = member("ben", _rescaled_weights(b, flip.criterion, share))
        assert team_of(a, moved).winner == expected, (share, flip)


def test_fragility_of_a_pairwise_member_is_found_by_scaling_their_judgements() -> None:
    a, c = member("ana", DEPLOYER), member("cho", JUDGE)
    d = team_of(a, c)
    flip = next(f for f in d.fragility.flips if f.member == "cho")
    assert flip.how == "judgements" and flip.factor is not None
    crit = flip.criterion

    def scaled(f: float) -> Member:
        lines = ["pairwise:"]
        for x, y, v in c.judgements:
            v = v * f if x == crit else (v / f if y == crit else v)
            lines.append(f"  - [{x}, {y}, {v!r}]")
        return member("cho", "\n".join(lines) + "\n")

    inner, outer = (
        (flip.factor / 1.001, flip.factor * 1.001) if flip.factor > 1 else (flip.factor * 1.001, flip.factor / 1.001)
    )
    assert team_of(a, scaled(inner)).winner == d.winner
    assert team_of(a, scaled(outer)).winner == flip.new_winner


def test_fragile_statement_names_the_member_and_the_move() -> None:
    d = team_of(member("ana", DEPLOYER), member("ben", DEBUGGER))
    assert d.fragility.verdict == "fragile"  # two members pulling apart: each can tip it
    smallest = d.fragility.flips[0]
    assert smallest.member == "ben"  # ana has all her weight on deployment: moving that one weight changes nothing
    assert abs(smallest.change) < FRAGILE_CHANGE or any(w != d.winner for w in d.fragility.without.values())
    assert d.fragility.code == FragilityCode.FRAGILE
    text = fragility_statement(d.fragility)
    assert text.startswith("Fragile: ") and smallest.member in text
    assert f"{100 * smallest.from_share:.0f}%" in text and f"{100 * smallest.to_share:.0f}%" in text
    assert d.fragility.without == {"ana": "pytorch", "ben": "tensorflow"}  # each alone gets their own way


def test_one_member_team_is_that_members_answer() -> None:
    a = member("ana", DEPLOYER)
    d = team_of(a)
    assert d.winner == d.members[0].winner == "tensorflow"
    assert d.kendall_w is None and d.winner_share == 1.0
    assert [w.code for w in d.warnings] == [TeamWarningCode.TEAM_OF_ONE]


def test_bad_member_files_are_left_out_with_one_line_each(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text("member: Gil\n" + DEPLOYER)
    bad_yaml = tmp_path / "broken.yaml"
    bad_yaml.write_text("weights: [unclosed\n")
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text("weights: {speed: 2}\n")
    members, left = load_members(KB, [good, bad_yaml, unknown, tmp_path / "missing.yaml"])
    assert [m.label for m in members] == ["Gil"]
    assert [Path(x.path).name for x in left] == ["broken.yaml", "unknown.yaml", "missing.yaml"]
    assert all("\n" not in left_out_words(x) and left_out_words(x) for x in left)
    assert "line 1: weights.speed: unknown criterion 'speed'" in left_out_words(left[1])
    assert [x.code for x in left] == [LeftOutCode.INVALID] * 3  # what programs read: the code and its parameters
    assert (left[1].params["line"], left[1].params["field"]) == (1, "weights.speed")
    d = decide(KB, members, left_out=left, draws=DRAWS)
    assert [w.member for w in d.warnings if w.code is TeamWarningCode.MEMBER_LEFT_OUT] == [x.path for x in left]


def test_labels_drop_control_characters() -> None:
    assert clean_label("Eve\x1b[31m\x07 (ops)\n") == "Eve [31m (ops)"


finite_or_not = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, 1e308, 1e-320, -1.0]),
    st.integers(min_value=-(10**30), max_value=10**30),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    weights=st.dictionaries(st.sampled_from(list(KB.criteria)), finite_or_not, max_size=4),
    judgement=finite_or_not,
)
def test_hostile_numbers_leave_the_member_out_or_decide(tmp_path_factory, weights, judgement) -> None:  # type: ignore[no-untyped-def]
    """Any number in a member file: that member is used or left out with one line; the decision is strict JSON."""
    import yaml

    from advisor.team.decision_schema import TeamDecisionDoc
    from advisor.team.session import decide_files

    folder = Path(tmp_path_factory.mktemp("hostile"))
    w_file, p_file = folder / "w.yaml", folder / "p.yaml"
    w_file.write_text(yaml.safe_dump({"weights": weights}))
    p_file.write_text(yaml.safe_dump({"pairwise": [["performance", "deployment", judgement]]}))
    good = folder / "good.yaml"
    good.write_text(DEBUGGER)
    out = decide_files(KB, [w_file, p_file, good], probe=None, bench=None, evidence="none")
    text = json.dumps(out.document.model_dump(mode="json"), allow_nan=False)
    assert TeamDecisionDoc.model_validate(json.loads(text)) == out.document  # the document is what its JSON reads
    used = {m.file for m in out.document.members}
    left = {x.path for x in out.left_out}
    assert used | left == {str(w_file), str(p_file), str(good)} and not used & left
    assert all("\n" not in left_out_words(x) for x in out.left_out)


def test_pairwise_members_who_judged_different_criteria_are_averaged_as_priorities() -> None:
    one = member("uma", "pairwise:\n  - [performance, deployment, 3]\n")
    two = member("vic", "pairwise:\n  - [ecosystem, community, 2]\n")
    d = team_of(one, two)
    assert d.aij is None
    assert TeamWarningCode.NO_GROUP_MATRIX in {w.code for w in d.warnings}
    # Each member's own eigenvector weights, averaged: performance 3/4 of uma's, ecosystem 2/3 of vic's.
    assert d.weights["performance"] == pytest.approx(0.75 / 2)
    assert d.weights["ecosystem"] == pytest.approx((2 / 3) / 2)
    assert d.fragility.verdict in ("fragile", "robust")


def test_the_same_member_twice_counts_once(tmp_path: Path) -> None:
    one = tmp_path / "ana.yaml"
    one.write_text("member: Ana\n" + DEPLOYER)
    copy = tmp_path / "ana-copy.yaml"
    copy.write_text("member: Ana\n" + DEPLOYER)
    twin = tmp_path / "bo.yaml"  # another person who happens to weigh the same: a member of their own
    twin.write_text(DEPLOYER)
    members, left = load_members(KB, [one, copy, twin, one])
    assert [m.label for m in members] == ["Ana", "bo"]
    assert [x.code for x in left] == [LeftOutCode.SAME_FILE] * 2
    assert [(Path(x.path).name, left_out_words(x)) for x in left] == [
        ("ana-copy.yaml", f"the same member as {one}: counted once"),
        ("ana.yaml", f"the same member as {one}: counted once"),
    ]


def test_decide_reports_each_member_scored_and_scanned() -> None:
    from advisor.team.progress import DecideProgress, DecideStep

    events: list[DecideProgress] = []
    members = [member("ana", DEPLOYER), member("ben", DEBUGGER), member("cho", JUDGE)]
    decide(KB, members, probe=probe_fixture(), draws=DRAWS, on_progress=events.append)
    assert [(e.step, e.done, e.total) for e in events] == [
        *((DecideStep.MEMBERS, k, 3) for k in (1, 2, 3)),
        *((DecideStep.FRAGILITY, k, 3) for k in (1, 2, 3)),
    ]
