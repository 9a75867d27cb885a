"""Warnings as sentences, written here once from their codes and parameters for every shell that shows them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from advisor.evidence.hardware.requirements import RequirementCode, requirement_words
from advisor.profile.warnings import ProfileWarningCode
from advisor.scoring.constraints import Exclusion, ExclusionCause, ExclusionCode
from advisor.scoring.decision_words import break_even_statement as break_even_statement  # scoring's steps say it too
from advisor.scoring.engine import AssessmentWarning, WarningCode
from advisor.scoring.explain import NoteCode
from advisor.scoring.fleet import floor_words, python_words
from advisor.scoring.note_words import finding_words
from advisor.scoring.result import Param

if TYPE_CHECKING:  # a type only: the team package imports the report, not the other way round
    from advisor.team.decision_schema import LeftOutSection
    from advisor.team.fragility import Fragility
    from advisor.team.members import LeftOut
    from advisor.team.warnings import TeamWarning

Params = Mapping[str, Param]


def _hardware(p: Params) -> str:
    form = p["form"]
    if form == "cpu_only_build":
        return f"installed, but its build does not use the accelerator here ({p['accelerators']}); a CPU-only wheel?"
    if form == "requirement":
        if "detail" in p:  # a report from before requirement codes
            return f"{p['check']}: {p['detail']}"
        code = RequirementCode(str(p["requirement"]))
        return f"{p['check']}: {requirement_words(str(p['checked']), code, False, p)}"
    return floor_words(p)  # gpu_floor: the fleet's finding on the team's oldest GPU


_PROFILE_WORDS: dict[ProfileWarningCode, Callable[[Params], str]] = {
    ProfileWarningCode.PAIRWISE_INCONSISTENT: lambda p: "pairwise judgements are inconsistent (consistency ratio "
    f"{float(p['consistency_ratio']):.2f} > {float(p['threshold']):g}); the derived weights may not reflect your "
    "intent",
    ProfileWarningCode.EQUAL_WEIGHTS: lambda p: f"no scenario '{p['scenario']}' in the knowledge base and no weights: "
    "equal weights used",
    ProfileWarningCode.WEIGHT_ABOVE_SCALE: lambda p: f"weights are read on the 0-{float(p['scale']):g} scale beside a "
    f"scenario; {p['criterion']}={float(p['weight']):g} is above it and outweighs every preset weight",
    ProfileWarningCode.WEIGHTS_SWAMPED: lambda p: f"your weights ({p['criteria']}) carry "
    f"{100 * float(p['share']):.0f}% of the total; the scenario's {p['others']} other criteria carry "
    f"{100 * (1 - float(p['share'])):.0f}%. Set the others to 0, or drop the scenario, if only yours should count",
    ProfileWarningCode.NO_TEAM_SIZE: lambda p: "team.size is not given: the migration's share of the team's capacity "
    "assumes a team of 1 engineer; give team.size for a fair cost",
}


def profile_warning_words(code: ProfileWarningCode | str, params: Params) -> str:
    """A profile warning's words from its code and parameters."""
    return _PROFILE_WORDS[ProfileWarningCode(code)](params)


def _saved_or(render: Callable[[Params], str]) -> Callable[[Params], str]:
    # A report written before these warnings had parameters of their own kept its sentence as `detail`.
    return lambda p: str(p["detail"]) if "detail" in p else render(p)


#: A benchmark figure's own warning (its code) in a few words, for a warning about the figure.
_FLAG_WORDS = {
    "unstable": "unstable timing", "few_samples": "too few samples", "short_blocks": "timed blocks too short",
    "wide_spread": "median far above the minimum", "timed_once": "timed once", "one_round": "one round only",
    "few_calls": "too few calls", "rounds_disagree": "the rounds disagree", "above_peak": "above the estimated peak",
    "below_reference": "far below its reference", "disagrees": "numerical agreement failed",
}


def _spread(p: Params) -> str:
    label = f"{p['benchmark']}/{p['variant']}"
    if "spread" in p:
        why = f"wide spread ({100 * float(p['spread']):.0f}% IQR/median)"
        why += ", left out of the ratios" if p.get("left_out") else ""
    else:
        why = _FLAG_WORDS.get(str(p["flag"]), str(p["flag"]))
    return f"{label}: {why}; one of {p['measurements']} measurements - close other programs or use a longer preset"


def _busy(p: Params) -> str:
    causes = []
    if "steal_pct_max" in p and float(p["steal_pct_max"]) > 0:
        causes.append(f"CPU steal up to {float(p['steal_pct_max']):.0f}%")
    if "others_cores_max" in p:
        of = f" of {p['cores']}" if "cores" in p else ""
        median = f" (median {float(p['others_cores_median']):.1f})" if "others_cores_median" in p else ""
        causes.append(f"other processes used up to {float(p['others_cores_max']):.1f}{of} cores{median}")
    if "reasons" in p:
        causes.append(str(p["reasons"]))
    figures = f"{p.get('busy_figures', '?')} of {p.get('figures', '?')} figures"
    return (f"the machine was too busy while measuring ({'; '.join([figures, *causes])}); the ranking uses the "
            "knowledge base only - measure again on a quiet machine")


_WARNING_WORDS: dict[WarningCode, Callable[[Params], str]] = {
    WarningCode.PROFILE: _saved_or(lambda p: profile_warning_words(str(p["kind"]), p)),
    WarningCode.HARDWARE: _hardware,
    WarningCode.PYTHON_VERSION: python_words,
    WarningCode.KNOWLEDGE: _saved_or(lambda p: f"no migration entry {p['source']} -> {p['target']} in the "
                                     "knowledge base"),
    WarningCode.STALE_FACT: lambda p: f"{p['subject']} ({p['as_of']}) is past its {p['review_days']}-day review "
    f"interval [{p['fact']}]",
    WarningCode.BENCHMARK_OUTLIER: _saved_or(lambda p: f"{p['benchmark']}/{p['variant']} at "
                                             f"{100 * float(p['ratio']):.1f}% of the best framework's throughput is "
                                             f"implausibly far behind; counted as {100 * float(p['floor']):.0f}% - "
                                             "check the measurement (other load, thread settings)"),
    WarningCode.BENCHMARK_SPREAD: _saved_or(_spread),
    WarningCode.MACHINE_BUSY: _saved_or(_busy),
    WarningCode.BENCH_FAILURE: lambda p: f"{p.get('device')}/{p['benchmark']}: {p['outcome']}: {p['error']}",
    WarningCode.IMPORT_FAILURE: lambda p: f"probe {p['outcome']}: {p['error'] or 'no detail'}",
    WarningCode.METHOD: lambda p: f"TOPSIS ranks {p['topsis_first']} first where the weighted sum ranks "
    f"{p['weighted_first']} first: a sign that the choice depends on how criteria trade off",
}


def warning_words(warning: AssessmentWarning) -> str:
    """The warning's words from its code and parameters, without the framework it is about.

    A report written before warnings carried parameters (schema 1.2 and older) keeps the words it was saved with.
    """
    saved = getattr(warning, "message", None)
    if saved and not warning.params:
        return str(saved)
    # The fact and its date are fields of their own: the words take them from there.
    params = {**warning.params, "fact": warning.fact or "", "as_of": warning.as_of or ""}
    return _WARNING_WORDS[warning.code](params)


def warning_sentence(warning: AssessmentWarning) -> str:
    """The warning as one sentence: the framework it is about (its field, never read from the words), its words."""
    message = warning_words(warning) or warning.code
    return f"{warning.framework}: {message}" if warning.framework else message


#: Warnings made one per benchmark figure, said in one line per framework (the model keeps one per figure).
_PER_FIGURE = (WarningCode.BENCHMARK_SPREAD, WarningCode.BENCHMARK_OUTLIER)


def _figure_words(w: AssessmentWarning) -> str:
    p = w.params
    label = f"{p['benchmark']}/{p['variant']}"
    if w.code is WarningCode.BENCHMARK_OUTLIER:
        return f"{label} at {100 * float(p['ratio']):.1f}%"
    if "spread" in p:
        return f"{label} {100 * float(p['spread']):.0f}%" + (" (left out)" if p.get("left_out") else "")
    return f"{label}: {_FLAG_WORDS.get(str(p['flag']), str(p['flag']))}"


def _grouped(code: WarningCode, group: list[AssessmentWarning]) -> str:
    items = ", ".join(_figure_words(w) for w in group)
    if code is WarningCode.BENCHMARK_OUTLIER:
        floor = float(group[0].params["floor"])
        return (f"implausibly far behind the best framework ({items} of its throughput); counted as "
                f"{100 * floor:.0f}% - check the measurement (other load, thread settings)")
    return (f"{len(group)} of {group[0].params['measurements']} measurements have a wide spread (IQR/median) or "
            f"too few samples: {items}; close other programs or use a longer preset")


def warning_items(warnings: Sequence[AssessmentWarning]) -> list[tuple[str, str]]:
    """(code, sentence) per line a person reads, in the report's order.

    A framework's per-figure benchmark warnings are said in one line (at the first one's place); a warning a
    file saved as words (`detail`) is said as saved.
    """
    groups: dict[tuple[WarningCode, str | None], list[AssessmentWarning]] = {}
    for w in warnings:
        if w.code in _PER_FIGURE and "detail" not in w.params:
            groups.setdefault((w.code, w.framework), []).append(w)
    lines: list[tuple[str, str]] = []
    for w in warnings:
        group = groups.get((w.code, w.framework)) if w.code in _PER_FIGURE and "detail" not in w.params else None
        if group is None:
            lines.append((w.code.value, warning_sentence(w)))
        elif group[0] is w:
            said = _grouped(w.code, group)
            lines.append((w.code.value, f"{w.framework}: {said}" if w.framework else said))
    return lines


def _whose(cause: ExclusionCause) -> str:
    return {"profile": "profile", "member": f"{cause.name}'s profile", "policy": f"policy {cause.name!r}"}[cause.by]


def _jurisdiction(p: Params) -> str:
    by = f"{p['maintainer']}, {p['jurisdiction']}" if p["maintainer"] and p["jurisdiction"] else "unknown"
    return f"maintainer jurisdiction ({by}) is not among the allowed ({p['who']}): {p['allowed']}"


_EXCLUSION_WORDS: dict[ExclusionCode, Callable[[Params], str]] = {
    ExclusionCode.NOT_CONSIDERED: lambda p: "not in the profile's list of frameworks to consider"
    if p["by"] == "profile" else f"not among the frameworks {p['name']} considers",
    ExclusionCode.EXCLUDED: lambda p: f"excluded by {p['who']}",
    ExclusionCode.HARDWARE: lambda p: f"must run on {p['hardware']} ({p['who']}): {p['framework']}'s support is "
    f"'{p['support']}'",
    ExclusionCode.NO_ROUTE: lambda p: f"must deploy to {p['target']} ({p['who']}): the knowledge base knows no route",
    ExclusionCode.ROUTE: lambda p: f"must deploy to {p['target']} ({p['who']}): route '{p['route']}' is "
    f"'{p['support']}'",
    ExclusionCode.LICENCE: lambda p: f"licence {p['licence']} is not among the allowed ({p['who']}): {p['allowed']}",
    ExclusionCode.JURISDICTION: _jurisdiction,
    ExclusionCode.MULTI_BACKEND: lambda p: f"one code base must run under several frameworks' backends ({p['who']}): "
    + (str(p["detail"]) or "no portability fact in the knowledge base"),
    ExclusionCode.OS: lambda p: f"does not run natively on {p['os']} (knowledge base) ({p['who']} environment)",
    ExclusionCode.NVIDIA: lambda p: f"cannot use the team's NVIDIA GPUs ({p['who']}): {floor_words(p)}",
    ExclusionCode.SAVED: lambda p: str(p["words"]),
}


def exclusion_cause_words(cause: ExclusionCause) -> str:
    """One cause of an exclusion in words, from its code, whose constraint it is, and its parameters."""
    return _EXCLUSION_WORDS[cause.code]({**cause.params, "by": cause.by, "name": cause.name, "who": _whose(cause)})


def exclusion_reasons(exclusion: Exclusion) -> list[str]:
    """Why a framework is left out, one phrase per cause (a report written before codes: the words it saved)."""
    return [exclusion_cause_words(c) for c in exclusion.causes]


def exclusion_words(exclusion: Exclusion) -> str:
    """Why a framework is left out, as one line: its causes' words joined by "; "."""
    return "; ".join(exclusion_reasons(exclusion))


def _finding(code: NoteCode) -> Callable[[Params], str]:
    return lambda p: f"{p['name']}: {finding_words(code, p)}"


_NOTE_WORDS: dict[NoteCode, Callable[[Params], str]] = {
    NoteCode.GPU_FLOOR: floor_words,
    NoteCode.PYTHON_VERSION: python_words,
    NoteCode.SERVING_GAP: lambda p: f"the team's serving stack {p['stack']} does not take {p['framework']} models "
    "natively: a move also means replacing or bridging it",
    NoteCode.NO_MIGRATION_ENTRY: lambda p: f"no migration entry {p['source']} -> {p['target']} in the knowledge base",
    NoteCode.ON_TEAM_HARDWARE: _finding(NoteCode.ON_TEAM_HARDWARE),
    NoteCode.HARDWARE_CAP: _finding(NoteCode.HARDWARE_CAP),
    NoteCode.DOMAINS: _finding(NoteCode.DOMAINS),
    NoteCode.PORTABILITY: _finding(NoteCode.PORTABILITY),
}


def note_words(code: NoteCode, params: Params) -> str:
    """A ranking note's words, from its code and parameters (report 1.4 and newer; older ones keep their notes)."""
    return _NOTE_WORDS[code](params)


#: What a team's profile takes where members state a field differently, by the field (`used` is the value taken).
_DIFFER_RULES: dict[str, Callable[[Params], str]] = {
    "team.current": lambda p: f"the team's move starts from all of {p['used']}",
    "team.size": lambda p: f"the largest ({p['used']}) is used",
    "team.horizon_months": lambda p: f"the shortest ({float(p['used']):g} months) is used",
    "codebase": lambda p: f"the largest figure of each kind is used ({p['used']})",
    "environment.python": lambda p: f"the oldest ({p['used']}) is used",
    "scenario": lambda p: "each member's preset counts through their own weights and constraints",
}

_TEAM_WORDS: dict[str, Callable[[Params], str]] = {
    "member_left_out": lambda p: f"left out: {p['reason']}",
    "member_profile": _saved_or(lambda p: profile_warning_words(str(p["kind"]), p)),
    "members_differ": lambda p: f"members state {p['field']} differently ({p['values']}); "
    + _DIFFER_RULES[str(p["field"])](p),
    "no_group_matrix": lambda p: "the pairwise members' judgements, pooled, do not link every criterion they name: "
    "no group matrix exists, so each pairwise member's own weights are averaged (AIP) instead",
    "group_inconsistent": lambda p: "the pairwise members' combined judgements are inconsistent (consistency ratio "
    f"{float(p['consistency_ratio']):.2f} > 0.10): they disagree with each other, not only within themselves",
    "team_of_one": lambda p: "a team of one: the team's answer is that member's own",
}


def _invalid(p: Params) -> str:
    return (f"line {p['line']}: " if p["line"] else "") + (f"{p['field']}: " if p["field"] else "") + str(p["detail"])


_LEFT_OUT_WORDS: dict[str, Callable[[Params], str]] = {
    "invalid": _invalid,
    "same_file": lambda p: f"the same member as {p['first']}: counted once",
    "same_member": lambda p: f"names member {str(p['member'])!r}, as {p['first']} does: one person, one vote (the "
    "first file counts; give each person one profile)",
}


def left_out_words(left: LeftOut | LeftOutSection) -> str:
    """Why a member file is left out, from its code and parameters (a decision older than 2.2: its saved words)."""
    if left.code is None:
        return str(getattr(left, "reason", "") or "")
    return _LEFT_OUT_WORDS[left.code](left.params)


def team_warning_words(warning: TeamWarning) -> str:
    """A team warning's words from its code and parameters, without the member it is about.

    A decision written before team warnings carried parameters (schema 2.0) keeps the words it was saved with.
    """
    saved = getattr(warning, "message", None)
    if saved and not warning.params:
        return str(saved)
    return _TEAM_WORDS[warning.code]({**warning.params, "field": warning.field or ""})


def team_warning_sentence(warning: TeamWarning) -> str:
    """A team decision's warning as one sentence: the member it is about (its field), then its words."""
    words = team_warning_words(warning)
    return f"{warning.member}: {words}" if warning.member else words


def _flip_clause(frag: Fragility, winner: str) -> str:
    f = frag.flips[0]
    crit = frag.params["criterion"]
    how = (
        f"moved their weight of {crit} from {100 * f.from_share:.0f}% to {100 * f.to_share:.0f}%"
        if f.how == "weight"
        else f"judged {crit} {f.factor:.2g} times as important against every other criterion as they do now "
        f"(their share {100 * f.from_share:.0f}% -> {100 * f.to_share:.0f}%)"
    )
    return f"if {f.member} {how}, {frag.names[f.new_winner]} would tie with {winner} and then lead"


def fragility_statement(frag: Fragility) -> str:
    """What the team decision's fragility finding says, from its code, parameters and fields.

    A decision written before the finding carried a code (schema 2.0) keeps the statement it was saved with.
    """
    code = frag.code
    if code is None:
        return str(getattr(frag, "statement", "") or "")
    if code == "fewer_than_two":
        return "With fewer than two candidates there is no answer to change."
    if code == "no_winner":
        return "No framework meets every member's hard constraints: there is no team answer to change."
    name = str(frag.params["winner"])
    if code == "only_candidate":
        return f"{name} is the only candidate left by the members' constraints: no weight can change that."
    parts = [
        f"without {member}, the team's answer would be {frag.names[other]}"
        for member, other in frag.without.items()
        if other in frag.names  # the decisive ones: without them the answer is another framework
    ]
    if frag.flips:
        parts.append(_flip_clause(frag, name))
    if code == "fragile":
        text = f"Fragile: {'; '.join(parts)}."
    elif code == "robust_to_one":
        text = (
            f"Robust to any one member: no member moving one weight by less than {100 * frag.fragile_below:.0f} "
            f"share points changes {name}; the smallest change that does: {parts[-1]}."
        )
    else:
        text = f"Robust: no member moving any one weight, and no member leaving, changes {name}."
    if frag.params.get("tie"):
        text += " The team's own ranking is a statistical tie (see the sensitivity)."
    return text
