"""The fuzz campaign's machinery (tests/test_fuzz.py drives it with Hypothesis).

* ``Worker``: a ``tests.fuzz_worker`` process under an address-space limit, restarted when
  a case kills it or overruns its time limit.
* Mutations of scenario documents, TOML text, sweep plans and stores.
* ``classify``: the outcome class of a case; ``BUGS`` are the classes that must never occur
  (a traceback, a panic, a crash, a hang, a run that loses packets, an error without a
  message).
"""

from __future__ import annotations

import json
import math
import os
import resource
import select
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "python" / "ccsim" / "scenarios"
PLANS = SCENARIOS / "plans"
CORPUS = Path(__file__).resolve().parent / "fuzz_corpus"

#: Address-space limit of the worker: far above what a case may use (the core stops a run
#: at CORE_LIMIT), low enough that a runaway allocation fails instead of taking the machine.
ADDRESS_SPACE = 8 << 30
CORE_LIMIT = "512MiB"
#: Seconds a case may take, by kind.
TIME_LIMIT = {"validate": 30.0, "api": 30.0, "run": 90.0, "sweep": 180.0, "load": 60.0}

BUGS = {"crash", "timeout", "exception", "traceback", "panic", "not conserved", "silent error", "unexpected exit code"}

#: Outcome classes of the cases run in this process (reported at the end of the session).
COUNTS: Counter = Counter()


# ---------------------------------------------------------------------------- the worker


def _limit_memory() -> None:  # runs in the child before exec
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


class Worker:
    """One ``tests.fuzz_worker`` process; ``run(case)`` returns its result or a crash/timeout."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        env = {**os.environ, "CCSIM_MEMORY_LIMIT": CORE_LIMIT, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fuzz_worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, env=env, cwd=str(ROOT), preexec_fn=_limit_memory,
        )
        ready = self._read(120.0)
        assert ready == {"ready": True}, f"the fuzz worker did not start: {ready}"

    def _read(self, timeout: float) -> dict | None:
        assert self.proc is not None and self.proc.stdout is not None
        r, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not r:
            return None
        line = self.proc.stdout.readline()
        return json.loads(line) if line else {"died": self.proc.wait(timeout=30)}

    def run(self, case: dict, kind: str) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(case) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        res = self._read(TIME_LIMIT[kind])
        if res is None:
            self.stop()
            return {"timeout": TIME_LIMIT[kind]}
        if "died" in res:
            self.proc = None
        return res

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        self.proc = None


def conserved(c: dict) -> bool:
    return c["created"] == c["delivered"] + sum(c["dropped"].values()) + c["in_flight"]


def classify(res: dict) -> str:
    """The outcome class of a case's result."""
    if "timeout" in res:
        return "timeout"
    if "died" in res:
        return "crash"
    code, err = res.get("code"), res.get("stderr", "")
    if code == "exception":
        return "exception"
    if "Traceback" in err:
        return "traceback"
    if "panicked" in err or "internal error in the simulator core" in err:
        return "panic"
    if code == 0:
        if "conservation" in res and not conserved(res["conservation"]):
            return "not conserved"
        return "ran, conserved" if "conservation" in res else "accepted"
    if code == 2:
        return "clean error (exit 2)" if err.strip() else "silent error"
    if code == 1:
        if "memory limit" in err:
            return "stopped by the memory guard (exit 1)"
        if "Failed points" in err:
            return "sweep with failed points (exit 1)"
        return "failure with a message (exit 1)" if err.strip().startswith("error:") else "silent error"
    return "unexpected exit code"


# ---------------------------------------------------------------------------- TOML output


def _toml_key(k: str) -> str:
    return json.dumps(k, ensure_ascii=False)


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v if x is not None) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_toml_key(k)} = {toml_value(x)}" for k, x in v.items() if x is not None) + "}"
    return json.dumps(str(v))


def to_toml(doc: dict) -> str:
    """A document as TOML: scalars first, then tables, then arrays of tables (None dropped)."""
    lines, tables, arrays = [], [], []
    for k, v in doc.items():
        if isinstance(v, dict):
            tables.append((k, v))
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            arrays.append((k, v))
        elif v is not None:
            lines.append(f"{_toml_key(k)} = {toml_value(v)}")
    for k, v in tables:
        lines.append(f"\n[{_toml_key(k)}]")
        lines += [f"{_toml_key(kk)} = {toml_value(vv)}" for kk, vv in v.items() if vv is not None]
    for k, items in arrays:
        for item in items:
            lines.append(f"\n[[{_toml_key(k)}]]")
            lines += [f"{_toml_key(kk)} = {toml_value(vv)}" for kk, vv in item.items() if vv is not None]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- mutations


def paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    """Every place in a document (keys and indices from the root)."""
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += paths(v, prefix + (i,))
    return out


def get(doc: Any, path: tuple) -> Any:
    for p in path:
        doc = doc[p]
    return doc


def deep(n: int) -> Any:
    v: Any = 1
    for _ in range(n):
        v = [v]
    return v


#: Values a hostile user might put anywhere.
WEIRD: list[Any] = [
    None, True, False, 0, -1, 1, 2**63, 2**64 + 1, -(2**63), 0.5, 1e308, -0.0, float("nan"), float("inf"), float("-inf"),
    "", "x", "inf", "nan", "auto", "all", "none", "0s", "1ns", "-1s", "1e400s", "99999999999999999999h", "584y",
    "0bps", "0.4bps", "1Tbps", "1e30Gbps", "1000000000000p", "0p", "1.5p", "1TB", "64KiB", "1e20B", "-5ms", "5 ms",
    "s", "r", "d", "a->b", "->", "s->r", "reno", "cubic", "sack", "udp", "bulk", "cbr", "droptail", "red",
    "\x1b[2J", "a\x07b", "a\rb", "a\nb", "\x00", "\u202eevil", "$\\foo{$", "$x$", "_hidden", "é→Ω 流", "x" * 5000,
    [], [1], ["s", "r"], ["0s", "1s"], ["1s", "0s"], {}, {"kind": "x"}, {"kind": "bulk"}, deep(40), deep(5),
]


#: Values that are often valid somewhere: mutations with these reach the engine more often.
MILD: list[Any] = [
    "1Mbps", "10Mbps", "100Mbps", "1Gbps", "10Gbps", "100bps", "1ms", "10ms", "200ms", "1s", "0s", "1ns", "1p", "10p",
    "1000p", "100000p", "1500B", "64KiB", "10MB", 0, 1, 2, 3, 0.0, 0.001, 0.1, 0.5, 0.99, 1.0, 100, 1460, 65535, True,
    False, "reno", "cubic", "vegas", "westwood", "fast", "newreno", "sack", "red", "droptail", "bulk", "onoff", "cbr",
    "delay", "hops", "per_hop", "fast", "inf", "all", "none", ["0s", "0.1s"], {"kind": "red"}, {"kind": "bulk", "size": "10KB"},
]


def mutate(doc: Any, draw_index, draw_weird, ops: int) -> tuple[Any, list[str]]:
    """Apply ``ops`` mutations to a copy of ``doc``; ``draw_index(n)`` picks one of n,
    ``draw_weird()`` a hostile value. Returns the document and what was done."""
    doc = json.loads(json.dumps(doc, allow_nan=True))
    done = []
    for _ in range(ops):
        ps = paths(doc)
        path = ps[draw_index(len(ps))]
        op = ["replace", "delete", "add key", "duplicate", "wrap"][draw_index(5)]
        if not path:
            op = "add key"
        parent = get(doc, path[:-1]) if path else None
        here = get(doc, path)
        if op == "replace":
            parent[path[-1]] = draw_weird()
        elif op == "delete":
            del parent[path[-1]]
        elif op == "add key" and isinstance(here, dict):
            here[["bogus", "name", "rate", "limit", "kind", "\x1b", "duration", "seed"][draw_index(8)]] = draw_weird()
        elif op == "duplicate" and isinstance(parent, list):
            parent.append(json.loads(json.dumps(here, allow_nan=True)))
        elif op == "wrap" and path:
            parent[path[-1]] = [here]
        else:
            continue
        done.append(f"{op} {'.'.join(map(str, path))}")
    return doc, done


#: Bytes to splice into TOML text.
SPLICE = [b"[", b"]", b"[[", b"=", b'"', b"'", b"\n", b"{", b"}", b",", b".", b"\xff", b"\xc3", b"\x00", b"\x1b",
          b"nan", b"inf", b"1e999", b"= = 3", b"[simulation]", b"[[flow]]", b"\\u0000", b"#", b"'''", b'"""']


def mutate_bytes(data: bytes, draw_index, ops: int) -> bytes:
    for _ in range(ops):
        n = len(data)
        at = draw_index(n + 1)
        op = draw_index(4)
        if op == 0:
            data = data[:at] + data[at + draw_index(40):]
        elif op == 1:
            data = data[:at] + SPLICE[draw_index(len(SPLICE))] + data[at:]
        elif op == 2:
            data = data[:at]
        else:
            lines = data.split(b"\n")
            i = draw_index(len(lines))
            lines.insert(draw_index(len(lines) + 1), lines[i])
            data = b"\n".join(lines)
    return data


def record(kind: str, cls: str) -> None:
    COUNTS[(kind, cls)] += 1


def report() -> str:
    """The campaign's counts, by kind and outcome class."""
    total = sum(COUNTS.values())
    lines = [f"fuzz campaign: {total} cases"]
    for (kind, cls), n in sorted(COUNTS.items()):
        lines.append(f"  {kind:<10} {cls:<40} {n}")
    bugs = sum(n for (_, cls), n in COUNTS.items() if cls in BUGS)
    lines.append(f"  bugs: {bugs}")
    return "\n".join(lines)


_SAVED: dict[tuple[str, str], Path] = {}


def save_finding(kind: str, cls: str, files: dict[str, bytes], what: str) -> Path:
    """Keep a failing case's inputs under tests/fuzz_corpus/found/ to become a regression
    input: the first of each kind and class (Hypothesis then shrinks it; the shrunk case is
    in the test's failure message)."""
    import hashlib

    if (kind, cls) in _SAVED:
        return _SAVED[(kind, cls)]
    h = hashlib.sha256(b"".join(files.values()) + what.encode()).hexdigest()[:12]
    d = CORPUS / "found" / f"{kind}-{h}"
    d.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (d / name).write_bytes(data)
    (d / "what.txt").write_text(what + "\n")
    _SAVED[(kind, cls)] = d
    return d


def kill_quietly(proc: subprocess.Popen) -> None:
    try:
        proc.send_signal(signal.SIGKILL)
    except ProcessLookupError:
        pass
    time.sleep(0)
