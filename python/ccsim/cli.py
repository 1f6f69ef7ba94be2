"""The ``ccsim`` command: ``run``, ``validate``, ``examples``, ``bench``, ``sweep``, ``reproduce``.

Exit codes: 0 success; 2 bad input (missing file, invalid scenario, bad arguments);
1 any other failure; 130 interrupted. Bad input never prints a traceback.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ccsim.exceptions import ScenarioError, SimError

__all__ = ["main"]

EXIT_OK, EXIT_FAILURE, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130
DEFAULT_PLOT_DIR = "ccsim-out"
DEFAULT_SWEEP_DIR = "ccsim-sweeps"
DEFAULT_REPRODUCE_DIR = "ccsim-reproduce"


class _BadInput(Exception):
    """A problem with what the user asked for (exit code 2)."""


# ---------------------------------------------------------------------------- formatting



def _event_kinds(text: str) -> list[str]:
    """``--events``: a comma-separated list of event kinds."""
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    allowed = ("drop", "mark", "retx", "timeout")
    bad = [k for k in kinds if k not in allowed]
    if bad or not kinds:
        what = f"unknown event kind {bad[0]!r}" if bad else "no event kinds given"
        raise argparse.ArgumentTypeError(f"{what}; allowed: {', '.join(allowed)}")
    return kinds


def _threads(text: str) -> int | str:
    """``--threads``: 1, 2 or auto (argparse's choices then say what is allowed)."""
    return text if text == "auto" else int(text) if text.isdigit() else text

def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> str:
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]

    def fmt(cells: Sequence[str]) -> str:
        return "  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)).rstrip()

    return "\n".join([fmt(headers), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


def _num(x: Any, fmt: str = ".2f", scale: float = 1.0) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return format(x * scale, fmt)


def _drops(d: dict[str, int]) -> str:
    parts = [f"{cause} {n}" for cause, n in d.items() if n]
    return ", ".join(parts) if parts else "0"


def format_summary(summary: dict[str, Any], wall_s: float | None = None) -> str:
    """The human-readable report ``ccsim run`` prints."""
    out = []
    flows = summary.get("flows", [])
    rows = []
    for f in flows:
        kind = f["transport"] + (f"/{f['cc']}" if f.get("cc") else "")
        if f.get("recovery"):
            kind += f"/{f['recovery']}"
        rows.append([
            f["name"],
            kind,
            _num(f["goodput_bps"], ".2f", 1e-6),
            f"{f['bytes_delivered']:,}",
            str(f["retransmissions"]),
            str(f["timeouts"]),
            "/".join(_num(f[k], ".1f", 1e3) for k in ("rtt_min_s", "rtt_mean_s", "rtt_max_s")),
            _num(f.get("completion_time_s"), ".3f"),
        ])
    out.append(f"Flows ({len(flows)})")
    out.append(_table(
        ["flow", "transport", "goodput Mb/s", "bytes", "retx", "RTOs", "RTT min/mean/max ms", "done s"],
        rows,
        [False, False] + [True] * 6,
    ))
    links = summary.get("links", [])
    rows = [
        [lk["name"], f"{lk['packets_out']:,}", _num(lk["utilisation"], ".1f", 100.0), _drops(lk.get("drops", {}))]
        for lk in links
    ]
    out.append("")
    out.append(f"Links ({len(links)})")
    out.append(_table(["link", "packets out", "util %", "drops"], rows, [False, True, True, False]))
    c = summary.get("conservation", {})
    dropped = c.get("dropped", {})
    n_dropped = sum(dropped.values())
    ok = c.get("created", 0) == c.get("delivered", 0) + n_dropped + c.get("in_flight", 0)
    out.append("")
    out.append(
        f"Packets: created {c.get('created', 0):,} = delivered {c.get('delivered', 0):,}"
        f" + dropped {n_dropped:,} ({_drops(dropped)}) + in flight {c.get('in_flight', 0):,}"
        f"  [{'conserved' if ok else 'NOT CONSERVED'}]"
    )
    line = f"Simulated {summary.get('end_time_s', 0):g} s, {summary.get('events', 0):,} events"
    if wall_s is not None:
        rate = summary.get("events", 0) / wall_s if wall_s > 0 else float("nan")
        line += f" in {wall_s:.2f} s wall ({_num(rate, ',.0f')} events/s)"
    out.append(line + f"; seed {summary.get('seed', '?')}, ccsim {summary.get('version', '?')}")
    return "\n".join(out)


def format_bench(rows: list[dict[str, Any]]) -> str:
    """The table ``ccsim bench`` prints."""
    table = _table(
        ["scenario", "threads", "runs", "median s", "min s", "max s", "pkts/s", "data pkts/s", "events/s", "peak RSS MB"],
        [
            [
                r["name"],
                str(r.get("threads", 1)),
                str(r["runs"]),
                f"{r['median_s']:.3f}",
                f"{r['min_s']:.3f}",
                f"{r['max_s']:.3f}",
                _num(r["delivered_per_s"], ",.0f"),
                _num(r["data_packets_per_s"], ",.0f"),
                _num(r["events_per_s"], ",.0f"),
                f"{r['peak_rss_bytes'] / 2**20:.1f}",
            ]
            for r in rows
        ],
        [False] + [True] * 9,
    )
    notes = (
        "pkts/s: packets delivered to their destination node (data and ACKs, the conservation count)\n"
        "per wall second at the median time; data pkts/s: payload delivered / MSS; wall time covers\n"
        "building, running and collecting; peak RSS is the whole worker process (interpreter and\n"
        f"libraries: about {max(r['baseline_rss_bytes'] for r in rows) / 2**20:.0f} MB before the run)."
    )
    return table + "\n\n" + notes


# ---------------------------------------------------------------------------- commands


def _scenario_file(args: argparse.Namespace) -> str:
    """FILE, or the shipped scenario named by ``--example`` (exactly one of them)."""
    from ccsim import examples

    example = getattr(args, "example", None)
    if (args.file is None) == (example is None):
        raise _BadInput("give a scenario FILE or --example NAME (one of them); `ccsim examples` lists the shipped ones")
    if example is None:
        return args.file
    try:
        return examples.path(example)
    except KeyError as e:
        raise _BadInput(e.args[0]) from None


def _cmd_run(args: argparse.Namespace) -> int:
    from ccsim.api import run
    from ccsim.scenario import load

    scenario = load(_scenario_file(args))
    if args.pcap:
        trace = scenario.doc.setdefault("trace", {})
        if not isinstance(trace, dict):
            raise _BadInput(f"{scenario.source}: [trace] must be a table to add --pcap links to it")
        asked = trace.get("pcap", [])
        asked = list(asked) if isinstance(asked, list) else ([] if asked == "none" else [asked])
        trace["pcap"] = asked + [n for n in args.pcap if n not in asked]
    if args.events:
        trace = scenario.doc.setdefault("trace", {})
        if not isinstance(trace, dict):
            raise _BadInput(f"{scenario.source}: [trace] must be a table to add --events to it")
        asked = trace.get("events", [])
        asked = list(asked) if isinstance(asked, list) else []
        trace["events"] = asked + [k for k in args.events if k not in asked]
    progress = False if args.quiet else None
    t0 = time.perf_counter()
    result = run(scenario, progress=progress, threads=args.threads)
    wall = time.perf_counter() - t0
    if not args.quiet:
        print(format_summary(result.summary, wall))
    try:
        if args.out is not None:
            written = result.save(args.out)
            if not args.quiet:
                print(f"\nWrote {len(written)} files to {args.out}/")
        if result.pcap_names and args.out is None:
            pcaps = result.write_pcaps(Path(DEFAULT_PLOT_DIR))
            if not args.quiet:
                print("Packet captures: " + ", ".join(str(p) for p in pcaps))
        if args.plot:
            from ccsim.plot import plot_result

            pngs = plot_result(result, args.out if args.out is not None else Path(DEFAULT_PLOT_DIR))
            if not args.quiet:
                print("Plots: " + ", ".join(str(p) for p in pngs))
    except OSError as e:
        raise _BadInput(f"cannot write results: {e}") from None
    return EXIT_OK


def _cmd_validate(args: argparse.Namespace) -> int:
    from ccsim.scenario import load

    file = _scenario_file(args)
    scenario = load(file)
    scenario.validate()
    print(f"OK: {file}")
    if args.explain:
        print(_explain_text(scenario.explain_flows()))
    return EXIT_OK


def _explain_text(flows: list[dict[str, Any]]) -> str:
    """Every resolved parameter of every flow, one per line, with where its value came from
    (``explicit``, ``profile <name>`` or ``default``); flows with identical parameters are
    shown once (``count`` copies)."""
    lines: list[str] = []
    i = 0
    while i < len(flows):
        j = i + 1
        while j < len(flows) and flows[j]["params"] == flows[i]["params"]:
            j += 1
        names = flows[i]["name"] if j == i + 1 else f"{flows[i]['name']} … {flows[j - 1]['name']}"
        lines.append(f"flow {names}:")
        params = flows[i]["params"]
        kw = max((len(k) for k, _, _ in params), default=0)
        vw = max((len(v) for _, v, _ in params), default=0)
        lines.extend(f"  {k:<{kw}}  {v:<{vw}}  {o}" for k, v, o in params)
        i = j
    return "\n".join(lines)


def _cmd_examples(args: argparse.Namespace) -> int:
    from ccsim import examples

    if args.name is not None:
        try:
            print(examples.read_text(args.name), end="")
        except KeyError as e:
            raise _BadInput(e.args[0]) from None
        return EXIT_OK
    print("Scenarios (ccsim run --example NAME; ccsim examples NAME prints one):")
    for name in examples.names():
        print(f"  {name:<22} {examples.path(name)}")
    print("Sweep plans (ccsim sweep --example NAME):")
    for name in examples.plan_names():
        print(f"  {name:<22} {examples.plan_path(name)}")
    return EXIT_OK


def _cmd_bench(args: argparse.Namespace) -> int:
    from ccsim.bench import BENCHMARKS, aggregate, run_repeated

    names = [args.only] if args.only else list(BENCHMARKS)
    rows = []
    for name in names:
        print(f"running {name} ({args.repeat}x) ...", file=sys.stderr, flush=True)
        try:
            rows.append(aggregate(run_repeated(name, args.repeat, args.threads)))
        except RuntimeError as e:
            print(f"error: {e}", file=sys.stderr)
            return EXIT_FAILURE
    print(format_bench(rows))
    return EXIT_OK


def _cmd_sweep(args: argparse.Namespace) -> int:
    from ccsim.store import StoreError
    from ccsim.sweep import BackendError, load_plan, run_plans

    from ccsim import examples

    if (args.plan is None) == (args.example is None):
        raise _BadInput("give a sweep PLAN file or --example NAME (one of them); `ccsim examples` lists the shipped ones")
    if args.example is not None:
        try:
            args.plan = examples.plan_path(args.example)
        except KeyError as e:
            raise _BadInput(e.args[0]) from None
    plan = load_plan(args.plan)
    out = args.out if args.out is not None else Path(DEFAULT_SWEEP_DIR) / Path(args.plan).stem
    progress = False if args.quiet else None
    try:
        outcome = run_plans(plan, out, jobs=args.jobs, dask=args.dask, progress=progress, resume=args.resume)
    except (StoreError, BackendError) as e:
        raise _BadInput(str(e)) from None
    except BrokenPipeError:
        raise
    except OSError as e:
        raise _BadInput(f"cannot write the store {out}: {e.strerror or e}") from None
    except KeyboardInterrupt:
        last = getattr(run_plans, "last_outcome", None)
        if last is not None:
            print(last.summary_text(), file=sys.stderr)
        raise
    if not args.quiet or outcome.failed:
        print(outcome.summary_text(), file=sys.stdout if not outcome.failed else sys.stderr)
    if not args.quiet:
        print(f"Results: ccsim.results.load({str(out)!r})")
    return EXIT_FAILURE if outcome.failed else EXIT_OK


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from ccsim.experiments import registry
    from ccsim.report import reproduce
    from ccsim.store import StoreError
    from ccsim.sweep import BackendError

    names = list(registry())
    if args.name is not None and args.name not in names:
        raise _BadInput(f"unknown experiment {args.name!r}; known: {', '.join(names)}")
    try:
        runs = reproduce(
            [args.name] if args.name else names,
            mode="full" if args.full else "quick",
            out=args.out,
            jobs=args.jobs,
            dask=args.dask,
            progress=False if args.quiet else None,
            log=None if args.quiet else sys.stdout,
        )
    except (StoreError, BackendError) as e:
        raise _BadInput(str(e)) from None
    except BrokenPipeError:
        raise
    except OSError as e:
        where = f" {e.filename}" if e.filename else ""
        raise _BadInput(f"cannot write{where}: {e.strerror or e}") from None
    failed = sum(len(r.outcome.failed) for r in runs)
    if not args.quiet:
        print(f"Report: {Path(args.out) / 'report' / 'index.html'} and README.md")
    return EXIT_FAILURE if failed else EXIT_OK


# ---------------------------------------------------------------------------- entry point


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def build_parser() -> argparse.ArgumentParser:
    from ccsim import __version__
    from ccsim.bench import BENCHMARKS

    p = argparse.ArgumentParser(prog="ccsim", description="Packet-level network simulator for congestion-control research.")
    p.add_argument("--version", action="version", version=f"ccsim {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    r = sub.add_parser("run", help="run a scenario file and print a summary")
    r.add_argument("file", metavar="FILE", nargs="?", help="scenario file (TOML or JSON)")
    r.add_argument("--example", metavar="NAME", help="run a scenario shipped with ccsim instead of FILE (see `ccsim examples`)")
    r.add_argument("--out", metavar="DIR", type=Path, help="write summary.json and Parquet tables into DIR")
    r.add_argument("--plot", action="store_true", help=f"write cwnd.png, rate.png and queue.png (into --out, else ./{DEFAULT_PLOT_DIR})")
    r.add_argument("--pcap", metavar="LINK", action="append", default=[],
                   help="write a packet capture (pcap) of LINK: a [[link]] entry's name (both directions) or 'a->b' "
                        f"(repeatable; into --out, else ./{DEFAULT_PLOT_DIR}); adds to the scenario's [trace] pcap")
    r.add_argument("--events", metavar="KINDS", type=_event_kinds, default=[],
                   help="record per-packet event tables: a comma-separated list of drop, mark, retx, timeout "
                        "(saved with --out as drop_events.parquet, …); adds to the scenario's [trace] events")
    r.add_argument("--quiet", "-q", action="store_true", help="print nothing on success, show no progress")
    r.add_argument("--threads", type=_threads, choices=[1, 2, "auto"], help="run on 1 or 2 threads, or auto (same results; default: the scenario's, else 1)")
    r.set_defaults(func=_cmd_run)

    v = sub.add_parser("validate", help="check a scenario file and print OK or every problem")
    v.add_argument("file", metavar="FILE", nargs="?", help="scenario file (TOML or JSON)")
    v.add_argument("--example", metavar="NAME", help="check a shipped scenario instead of FILE")
    v.add_argument(
        "--explain",
        action="store_true",
        help="also print every resolved parameter of every flow and where its value came from "
        "(explicit, profile <name>, default)",
    )
    v.set_defaults(func=_cmd_validate)

    ex = sub.add_parser("examples", help="list the scenarios and sweep plans shipped with ccsim, or print one")
    ex.add_argument("name", metavar="NAME", nargs="?", help="print this shipped scenario's TOML (to copy and edit)")
    ex.set_defaults(func=_cmd_examples)

    b = sub.add_parser("bench", help="time the built-in benchmark scenarios")
    b.add_argument("--repeat", "-n", type=_positive_int, default=5, metavar="N", help="runs per scenario (default 5)")
    b.add_argument("--only", choices=sorted(BENCHMARKS), metavar="NAME", help=f"one scenario: {', '.join(BENCHMARKS)}")
    b.add_argument("--threads", type=int, choices=[1, 2], default=1, help="threads per run (default 1)")
    b.set_defaults(func=_cmd_bench)

    sw = sub.add_parser("sweep", help="run a sweep plan (grid of overrides x seeds) into a resumable store")
    sw.add_argument("plan", metavar="PLAN", nargs="?", help="sweep plan file (TOML), see docs/sweeps.md")
    sw.add_argument("--example", metavar="NAME", help="run a sweep plan shipped with ccsim instead of PLAN (see `ccsim examples`)")
    sw.add_argument("--out", metavar="DIR", type=Path, help=f"the store directory (default ./{DEFAULT_SWEEP_DIR}/<plan file name without .toml>)")
    backend = sw.add_mutually_exclusive_group()
    backend.add_argument("--jobs", "-j", type=_positive_int, metavar="N", help="local worker processes (default: all cores; 1 runs in this process)")
    backend.add_argument("--dask", metavar="ADDRESS", help="run on the Dask cluster whose scheduler is at ADDRESS (e.g. tcp://host:8786)")
    sw.add_argument("--resume", action="store_true", help="add this plan's points to a store that holds another plan, skipping finished ones")
    sw.add_argument("--quiet", "-q", action="store_true", help="no progress bar and no summary on success")
    sw.set_defaults(func=_cmd_sweep)

    rp = sub.add_parser("reproduce", help="run experiments (validation, papers) and write a report")
    from ccsim.experiments import MODULES

    rp.add_argument("name", metavar="NAME", nargs="?",
                    help="experiment to run (default: all): " + ", ".join(m.replace("_", "-") for m in MODULES))
    mode = rp.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="small plans that check every experiment runs (default; not the reproduction)")
    mode.add_argument("--full", action="store_true", help="the reproduction: full plans, and sweeps of the values the papers leave unstated")
    rp.add_argument("--out", metavar="DIR", type=Path, default=Path(DEFAULT_REPRODUCE_DIR), help=f"output directory (default ./{DEFAULT_REPRODUCE_DIR})")
    rb = rp.add_mutually_exclusive_group()
    rb.add_argument("--jobs", "-j", type=_positive_int, metavar="N", help="local worker processes (default: all cores)")
    rb.add_argument("--dask", metavar="ADDRESS", help="run on a Dask cluster")
    rp.add_argument("--quiet", "-q", action="store_true", help="print nothing on success")
    rp.set_defaults(func=_cmd_reproduce)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``ccsim`` command with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: --help/--version (0) or bad arguments (2)
        return int(e.code) if isinstance(e.code, int) else EXIT_BAD_INPUT
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    try:
        return args.func(args)
    except ScenarioError as e:
        print(str(e), file=sys.stderr)
        return EXIT_BAD_INPUT
    except _BadInput as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except SimError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_FAILURE
    except Exception:  # a bug: keep the traceback, it is what a report needs
        traceback.print_exc()
        return EXIT_FAILURE
