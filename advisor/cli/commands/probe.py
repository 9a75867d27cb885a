"""`fwadvisor probe`: describe this machine and each installed framework (Rich tables, or JSON on stdout)."""

from __future__ import annotations

import argparse
import sys
import threading
from typing import Any

HELP = "probe the hardware, software and installed frameworks (nothing leaves the machine)"


def configure(parser: argparse.ArgumentParser) -> None:
    """`probe [--json] [--fast] [--identify] [--framework ID]... [--timeout S]`."""
    parser.add_argument("--json", action="store_true", help="print the probe as JSON on stdout (progress on stderr)")
    parser.add_argument("--fast", action="store_true", help="skip framework imports: package metadata only")
    parser.add_argument(
        "--identify", action="store_true", help="include host name, user name, paths, GPU UUIDs and serial numbers"
    )
    parser.add_argument(
        "--framework", action="append", default=[], metavar="ID",
        help="probe only this framework (repeatable; see `fwadvisor kb list`)",
    )
    parser.add_argument(
        "--fresh", action="store_true",
        help="import every framework again instead of using the probe cache (entries live at most a day)",
    )
    parser.add_argument(
        "--timeout", type=float, default=60.0, metavar="S", help="seconds each framework child may take (default 60)"
    )


def run(args: argparse.Namespace) -> int:
    """Run the probe with live progress on stderr, then print tables or JSON."""
    # Deferred imports: rich and the core load only when this command runs, so `fwadvisor --help` stays fast.
    from advisor.evidence.probe import run_probe

    # --timeout was checked (finite, positive, bounded) in advisor.cli.checks.
    kb = None
    if args.kb:
        from advisor.knowledge import load_knowledge

        kb = load_knowledge(args.kb)  # a broken overlay pack is bad input: exit 2 with its file and line
    progress = _Progress(enabled=not args.fast)
    with progress:
        report = run_probe(
            fast=args.fast,
            identify=args.identify,
            frameworks=args.framework or None,
            timeout=args.timeout,
            on_event=progress.on_event,
            kb=kb,
            fresh=args.fresh,
        )
    from advisor.cli.output import emit_text
    from advisor.jsonio import json_text, model_json
    from advisor.privacy import scrub

    data = model_json(report)
    if not args.identify:
        data = scrub(data, drop_keys=False)  # the probe leaves names out already; this catches what slips in
    if args.json:
        emit_text(json_text(data))
        return 0
    _print_tables(data)
    return 0


class _Progress:
    """A Rich status line on stderr while framework children run (only on a terminal)."""

    def __init__(self, enabled: bool) -> None:
        # Rich is imported only when a status line will really be drawn: --fast and pipes skip ~70 ms.
        self.enabled = enabled and sys.stderr.isatty()
        self.lock = threading.Lock()  # events arrive from one thread per framework child and the main thread
        self.state: dict[str, str] = {}
        self.status: Any = None

    def __enter__(self) -> _Progress:
        if self.enabled:
            from advisor.cli.output import console, styled

            self.status = console(stderr=True).status(styled("probing the machine…"))
            self.status.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.status is not None:
            self.status.__exit__(*exc)

    def on_event(self, event: Any) -> None:
        """Called from the probe's threads; the lock keeps the state and the status line consistent."""
        if self.status is None:
            return
        with self.lock:
            if event.kind == "framework_start":
                self.state[event.name] = "importing"
            elif event.kind == "framework_event" and event.data.get("event") == "import":
                self.state[event.name] = "imported" if event.data.get("ok") else "import failed"
            elif event.kind == "framework_done":
                self.state[event.name] = str(event.data.get("outcome"))
            elif event.kind == "section":
                self.state["machine"] = event.message
            parts = [f"{k}: {v}" for k, v in self.state.items()]
            from advisor.cli.output import styled

            self.status.update(styled("probing — " + ", ".join(parts)))


def _bytes(n: int | None) -> str:
    if n is None:
        return "unknown"
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"


def _u(value: Any, unit: str = "") -> str:
    """A table cell: the value with its unit, or '?' when it could not be read (narrow columns)."""
    return "?" if value is None else _v(value) + unit


def _v(value: Any) -> str:
    if value is None:
        return "unknown"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _with_vendor(vendor: str, model: str) -> str:
    return model if model.lower().startswith(vendor.lower()) else f"{vendor} {model}"


def _kv(title: str, rows: list[tuple[str, Any]]) -> Any:
    from rich.table import Table

    table = Table(title=title, title_justify="left", show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    for key, value in rows:
        table.add_row(key, _v(value))
    return table


def _print_tables(data: dict[str, Any]) -> None:
    from rich.table import Table

    from advisor.cli.output import console as make_console
    from advisor.cli.output import styled

    console = make_console()
    cpu, mem, sw = data["cpu"], data["memory"], data["software"]
    caches = ", ".join(
        f"L{c['level']}{c['type'][0].lower() if c['type'] != 'Unified' else ''} {_bytes(c['size_bytes'])}"
        for c in cpu.get("caches") or []
    )
    clocks = f"base {_v(cpu.get('base_mhz'))} / max {_v(cpu.get('max_mhz'))} / current {_v(cpu.get('current_mhz'))} MHz"
    peak = cpu.get("peak")
    rows: list[tuple[str, Any]] = [
        ("model", f"{_with_vendor(cpu['vendor'], cpu['model'])} ({cpu['arch']})"),
        ("cores", f"{_v(cpu['physical_cores'])} physical, {_v(cpu['logical_cores'])} logical, "
                  f"{cpu['usable_cores']} usable (affinity {_v(cpu.get('affinity_cores'))}, "
                  f"cgroup quota {_v(cpu.get('cgroup_quota_cpus')) if cpu.get('cgroup_quota_cpus') else 'none'})"),
        ("clock", clocks),
        ("caches", caches or "unknown"),
        ("vector extensions", ", ".join(cpu.get("flags") or []) or "none found"),
        ("NUMA nodes", cpu.get("numa_nodes")),
        ("peak fp32 (estimate)", f"{peak['fp32_gflops']:.1f} GFLOP/s" if peak else "unknown"),
        ("peak bf16 (estimate)", f"{peak['bf16_gflops']:.1f} GFLOP/s" if peak and peak.get("bf16_gflops") else
         "no bf16 path" if peak else "unknown"),
        ("formula", peak["formula"] if peak else "unknown"),
    ]
    for note in (peak or {}).get("assumptions") or []:
        rows.append(("assumption", note))
    console.print(_kv("CPU", rows))
    console.print(_kv("Memory", [
        ("total", _bytes(mem.get("total_bytes"))),
        ("available", _bytes(mem.get("available_bytes"))),
        ("cgroup limit", _bytes(mem["cgroup_limit_bytes"]) if mem.get("cgroup_limit_bytes") else "none"),
        ("swap", _bytes(mem.get("swap_total_bytes"))),
    ]))
    _print_gpus(console, data["gpus"])
    acc = Table(title="Other accelerators", title_justify="left")
    acc.add_column("kind")
    acc.add_column("present")
    acc.add_column("detail", overflow="fold")
    for key, status in data["accelerators"].items():
        acc.add_row(key, _v(status["present"]), status["detail"])
    console.print(acc)
    tk = sw.get("cuda_toolkit")
    sw_rows: list[tuple[str, Any]] = [
        ("OS", sw["os"]), ("kernel", sw.get("kernel")), ("libc", sw.get("libc")),
        ("Python", f"{sw['python']} ({sw['python_implementation']}, {sw['env_kind']})"), ("pip", sw.get("pip")),
        ("CUDA toolkit", f"{tk['version']} ({tk['source']})" if tk else "not found"),
        ("cuDNN", sw.get("cudnn") or "not found"),
    ]
    for key in ("hostname", "user", "python_executable"):
        if sw.get(key):
            sw_rows.append((key, sw[key]))
    for key, value in (sw.get("env") or {}).items():
        sw_rows.append((f"${key}", value))
    console.print(_kv("Software", sw_rows))
    _print_frameworks(console, data["frameworks"])
    if data.get("requirements"):
        req = Table(title="Requirements", title_justify="left")
        req.add_column("framework")
        req.add_column("check")
        req.add_column("ok")
        req.add_column("detail", overflow="fold")
        for r in data["requirements"]:
            mark = {True: ("yes", "green"), False: ("no", "red"), None: ("unknown", "yellow")}[r["ok"]]
            req.add_row(str(r["framework"]), str(r["check"]), styled(mark), str(r["detail"]))
        console.print(req)
    for note in data.get("notes") or []:
        console.print(styled((f"note: {note}", "dim")))


def _print_gpus(console: Any, gpus: dict[str, Any]) -> None:
    from rich.table import Table

    from advisor.cli.output import styled

    if gpus["status"] != "ok":
        console.print(styled(("NVIDIA GPUs:", "bold"), f" {gpus['message']} ", (f"({gpus['status']})", "dim")))
        return
    table = Table(
        title=f"NVIDIA GPUs — driver {_v(gpus.get('driver_version'))}, CUDA {_v(gpus.get('cuda_driver_version'))}; "
        "listed in NVML (PCI bus) order",
        title_justify="left",
    )
    # Seven short columns fit 80 terminal columns (twelve cut every header to 'me…'); the bus, links and MIG
    # go on a line per GPU under the table, and everything is in the JSON.
    for col in ("NVML/CUDA", "name", "memory", "CC", "SM max", "power", "util"):
        table.add_column(col, overflow="fold")
    details: list[str] = []
    for d in gpus["devices"]:
        table.add_row(
            f"{d['index']}/{_u(d.get('cuda_index'))}", _v(d.get("name")).removeprefix("NVIDIA "),
            _bytes(d.get("memory_total_bytes")), _u(d.get("compute_capability")),
            _u(d.get("sm_clock_max_mhz"), " MHz"), _u(d.get("power_limit_w"), " W"),
            _u(d.get("utilization_gpu_pct"), "%"),
        )
        parts = [f"PCI {d['pci_bus_id']}" if d.get("pci_bus_id") else ""]
        if d.get("pcie_gen_current") is not None:
            parts.append(f"PCIe gen {d['pcie_gen_current']}/{_u(d.get('pcie_gen_max'))} "
                         f"x{_u(d.get('pcie_width_current'))}/{_u(d.get('pcie_width_max'))}")
        parts.append(f"{len(d.get('nvlinks') or [])} NVLinks")
        if d.get("peak_fp32_gflops"):
            peak = d["peak_fp32_gflops"] / 1000
            parts.append(f"fp32 peak {peak:.1f} TFLOP/s ({d.get('cuda_cores')} cores, estimate)")
        if d.get("mig_mode") is not None:
            parts.append(f"MIG {d['mig_mode']}" + (f" ({d['mig_devices']} instances)" if d.get("mig_devices") else ""))
        details.append(f"  GPU {d['index']}: " + ", ".join(p for p in parts if p))
    console.print(table)
    for line in details:
        console.print(line, highlight=False)
    if gpus.get("cuda_order_basis"):
        console.print(styled((f"CUDA numbering: {gpus['cuda_order_basis']}", "dim")))
    topo = gpus.get("topology")
    if topo:
        matrix = Table(title="GPU topology (like `nvidia-smi topo -m`)", title_justify="left")
        matrix.add_column("")
        for label in topo["labels"]:
            matrix.add_column(label)
        for label, row in zip(topo["labels"], topo["matrix"], strict=True):
            matrix.add_row(label, *row)
        console.print(matrix)
        console.print(styled(("; ".join(f"{k} = {v}" for k, v in topo["legend"].items()), "dim")))


def _print_frameworks(console: Any, frameworks: dict[str, Any]) -> None:
    from rich.table import Table

    from advisor.cli.output import styled

    table = Table(title="Frameworks (each probed in its own child process)", title_justify="left")
    # Build flags and thread counts are long: they go under the table, one line per framework, so the
    # table itself stays readable in an 80-column terminal.
    for col in ("framework", "version", "outcome", "import", "devices", "accelerator"):
        table.add_column(col, overflow="fold")
    details: list[Any] = []
    colours = {"ok": "green", "missing": "dim", "skipped": "dim"}
    for fid, fw in frameworks.items():
        outcome = fw["outcome"] + (f" ({fw['signal']})" if fw.get("signal") else "")
        colour = colours.get(fw["outcome"], "red")
        if fw.get("error") and fw["outcome"] not in ("ok", "missing"):
            outcome += f": {fw['error']}"
        if fw.get("cached_age_s") is not None:  # an answer from the probe cache is not a probe of this run
            outcome += f" (from the probe cache, {fw['cached_age_s']:.0f} s old)"
        devices = ", ".join(f"{d.get('id')} {d.get('name')}" for d in fw.get("devices") or [])
        build = ", ".join(f"{k}={v}" for k, v in (fw.get("build") or {}).items() if v not in (None, False, ""))
        threads = ", ".join(f"{k}={v}" for k, v in (fw.get("threads") or {}).items())
        label = styled(fid, (f" ({fw['distribution']})", "dim") if fw.get("distribution") else "")
        table.add_row(
            label, _v(fw.get("version")) if fw["installed"] else "not installed", styled((outcome, colour)),
            f"{fw['import_s']:.2f} s" if fw.get("import_s") is not None else "",
            devices, "" if fw.get("accelerator_ok") is None else _v(fw["accelerator_ok"]),
        )
        if build or threads:
            details.append(styled("  ", (fid, "bold"), f": build {build or 'unknown'}; threads {threads or 'unknown'}"))
    console.print(table)
    for line in details:
        console.print(line, highlight=False)
