"""`fwadvisor compare a.json b.json`: two saved reports side by side (two machines, or before/after)."""

from __future__ import annotations

import argparse
from typing import Any

HELP = "show two saved reports side by side (two machines, or before/after a change)"


def configure(parser: argparse.ArgumentParser) -> None:
    """Two report files; `--json` prints the comparison as JSON."""
    parser.add_argument("a", metavar="A.json")
    parser.add_argument("b", metavar="B.json")
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value != 0


def _g(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, int | float) and not isinstance(value, bool) else "-"


def comparison(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """What differs between two reports: machines, winners, totals, ranks and shared benchmark figures."""

    def ranks(r: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {e["framework"]: e for e in r["ranking"]}

    ra, rb = ranks(a), ranks(b)
    frameworks = list(dict.fromkeys([*ra, *rb]))
    rows = []
    for fid in frameworks:
        ea, eb = ra.get(fid), rb.get(fid)
        rows.append(
            {
                "framework": fid,
                "a": {"rank": ea["rank"], "total": ea["total"], "status": ea["status"]} if ea else None,
                "b": {"rank": eb["rank"], "total": eb["total"], "status": eb["status"]} if eb else None,
                "delta": (eb["total"] - ea["total"]) if ea and eb else None,
            }
        )

    def figures(r: dict[str, Any]) -> dict[str, dict[str, Any]]:
        out = {}
        for x in (r.get("benchmarks") or {}).get("results") or []:
            key = f"{x.get('framework')}/{x.get('device')}/{x.get('benchmark')}/{x.get('variant')}"
            out[key] = {"value": x.get("value"), "unit": x.get("unit")}
        return out

    fa, fb = figures(a), figures(b)
    bench = [
        {
            "key": k,
            "a": fa[k]["value"],
            "b": fb[k]["value"],
            "unit": fa[k]["unit"],
            "ratio": fb[k]["value"] / fa[k]["value"] if _number(fa[k]["value"]) and _number(fb[k]["value"]) else None,
        }
        for k in fa
        if k in fb
    ]
    return {
        "machines": {"a": a["machine"], "b": b["machine"]},
        "knowledge": {"a": a["knowledge"]["version"], "b": b["knowledge"]["version"]},
        "winner": {"a": a["recommendation"]["framework"], "b": b["recommendation"]["framework"]},
        "verdict": {"a": a["recommendation"]["verdict"], "b": b["recommendation"]["verdict"]},
        "ranking": rows,
        "benchmarks": bench,
    }


def run(args: argparse.Namespace) -> int:
    """Load both reports (validated against the schema) and print the comparison."""
    from advisor.cli.output import cell, console, emit_text
    from advisor.jsonio import json_text
    from advisor.report import load_report

    a, b = load_report(args.a), load_report(args.b)
    data = comparison(a, b)
    if args.json:
        emit_text(json_text(data))
        return 0
    from rich.table import Table

    out = console()
    ma, mb = data["machines"]["a"], data["machines"]["b"]
    head = Table(title="Machines", title_justify="left")
    head.add_column("")
    head.add_column(cell(f"A: {args.a}"), overflow="fold")
    head.add_column(cell(f"B: {args.b}"), overflow="fold")
    for label, key in (("host", "hostname"), ("cpu", "cpu"), ("cores", "logical_cores"), ("os", "os")):
        head.add_row(label, cell(ma.get(key) or "-"), cell(mb.get(key) or "-"))
    head.add_row("gpus", cell(", ".join(ma["gpus"]) or "-"), cell(", ".join(mb["gpus"]) or "-"))
    head.add_row("knowledge", cell(data["knowledge"]["a"]), cell(data["knowledge"]["b"]))
    head.add_row(
        "winner",
        cell(f"{data['winner']['a']} ({data['verdict']['a']})"),
        cell(f"{data['winner']['b']} ({data['verdict']['b']})"),
    )
    out.print(head)
    table = Table(title="Ranking", title_justify="left")
    for col in ("framework", "A rank", "A score", "B rank", "B score", "change"):
        table.add_column(col, justify="left" if col == "framework" else "right")
    for row in data["ranking"]:
        a_, b_ = row["a"], row["b"]
        table.add_row(
            cell(row["framework"]),
            str(a_["rank"]) if a_ else "excluded",
            f"{a_['total']:.2f}" if a_ else "-",
            str(b_["rank"]) if b_ else "excluded",
            f"{b_['total']:.2f}" if b_ else "-",
            f"{row['delta']:+.2f}" if row["delta"] is not None else "-",
        )
    out.print(table)
    if data["benchmarks"]:
        bt = Table(title="Benchmarks measured in both", title_justify="left")
        for col in ("benchmark", "A", "B", "unit", "B/A"):
            bt.add_column(col, justify="left" if col in ("benchmark", "unit") else "right")
        for row in data["benchmarks"]:
            bt.add_row(
                cell(row["key"]),
                _g(row["a"]),
                _g(row["b"]),
                cell(row["unit"] or ""),
                f"{row['ratio']:.2f}" if row["ratio"] is not None else "-",
            )
        out.print(bt)
    return 0
