#!/usr/bin/env python3
"""The breakages of issue #28, applied one at a time to a scratch copy of the tree, each
followed by the engine-level test that must catch it (docs/testing.md lists the outcome).

    .venv/bin/python scripts/named_mutants.py [--keep] [NAME...]

Run it with the interpreter that has ccsim's dependencies (the Python mutant runs pytest).

The tree is copied (without target/) to a temporary directory that reuses this checkout's
target directory for the `mutants` build profile, so only the mutated crate rebuilds. Each
mutant is a text replacement that must match exactly once; a mutant whose text is gone
(the code moved) is reported as "stale" rather than silently passing. Exit status 1 if a
mutant survives its test or is stale.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = "crates/ccsim-core/src/"
SENDER = CORE + "transport/tcp/sender.rs"

# (name, file, original text, mutated text, test command)
ENGINE = ["cargo", "test", "--profile", "mutants", "-p", "ccsim-core", "--test", "core_constants", "--"]
MUTANTS = [
    ("rto-backoff-not-applied", SENDER,
     "        self.signal_congestion(now, CongestionKind::Timeout);\n        self.rtt.back_off();\n",
     "        self.signal_congestion(now, CongestionKind::Timeout);\n",
     ENGINE + ["the_retransmission_timer_doubles"]),
    ("recover-guard-disabled", SENDER,
     "        reno_after_recovery || self.una >= self.recover_guard\n",
     "        true\n",
     ENGINE + ["after_a_timeout_no_fast_retransmit"]),
    ("reno-decrease-0.6", CORE + "cc/reno.rs",
     "let ssthresh = (flight.0 as f64 / 2.0).max(2.0 * mss);",
     "let ssthresh = (flight.0 as f64 * 0.6).max(2.0 * mss);",
     ENGINE + ["reno_sets_ssthresh"]),
    ("sack-dupthresh-plus-one", SENDER,
     "                _ => self.cfg.dupthresh as u64,\n",
     "                _ => self.cfg.dupthresh as u64 + 1,\n",
     ENGINE + ["the_default_dupthresh"]),
    ("sack-dupthresh-minus-one", SENDER,
     "                _ => self.cfg.dupthresh as u64,\n",
     "                _ => self.cfg.dupthresh as u64 - 1,\n",
     ENGINE + ["the_default_dupthresh"]),
    ("islost-strict", CORE + "transport/tcp/scoreboard.rs",
     "self.sacked_above_frontier >= threshold.max(1)",
     "self.sacked_above_frontier > threshold.max(1)",
     ENGINE + ["the_default_dupthresh"]),
    ("droptail-packets-plus-one", CORE + "net/droptail.rs",
     "QueueLimit::Packets(n) => packets < n,",
     "QueueLimit::Packets(n) => packets <= n,",
     ENGINE + ["the_droptail_queue"]),
    ("droptail-bytes-strict", CORE + "net/droptail.rs",
     "QueueLimit::Bytes(b) => bytes + size <= b,",
     "QueueLimit::Bytes(b) => bytes + size < b,",
     ENGINE + ["the_droptail_queue"]),
    ("delayed-ack-default-off", CORE + "scenario/parse_flow.rs",
     "None | Some(Value::Bool(true)) => Some(Dur::from_millis(100)),",
     "None => None, Some(Value::Bool(true)) => Some(Dur::from_millis(100)),",
     ENGINE + ["the_default_delayed_ack"]),
    ("delayed-ack-default-200ms", CORE + "scenario/parse_flow.rs",
     "None | Some(Value::Bool(true)) => Some(Dur::from_millis(100)),",
     "None | Some(Value::Bool(true)) => Some(Dur::from_millis(200)),",
     ENGINE + ["the_default_delayed_ack"]),
    ("dupthresh-default-4", CORE + "scenario/parse_flow.rs",
     '.and_then(|v| u32_at_least_1(cx, &join(path, "dupthresh"), v, "dupthresh"))\n        .unwrap_or(3);',
     '.and_then(|v| u32_at_least_1(cx, &join(path, "dupthresh"), v, "dupthresh"))\n        .unwrap_or(4);',
     ENGINE + ["the_default_dupthresh"]),
    ("dupthresh-default-2", CORE + "scenario/parse_flow.rs",
     '.and_then(|v| u32_at_least_1(cx, &join(path, "dupthresh"), v, "dupthresh"))\n        .unwrap_or(3);',
     '.and_then(|v| u32_at_least_1(cx, &join(path, "dupthresh"), v, "dupthresh"))\n        .unwrap_or(2);',
     ENGINE + ["the_default_dupthresh"]),
    ("inflation-two-segments", SENDER,
     "                    self.inflation += self.mss() as i64;\n",
     "                    self.inflation += 2 * self.mss() as i64;\n",
     ENGINE + ["fast_recovery_inflates"]),
    ("inflation-none", SENDER,
     "                    self.inflation += self.mss() as i64;\n",
     "",
     ENGINE + ["fast_recovery_inflates"]),
    ("daimd-losses-after-slow-start-minus-one", "python/ccsim/experiments/daimd.py",
     'f["losses_after_ss"] = (f["fast_recoveries"] + f["timeouts"] - 1).clip(lower=0)',
     'f["losses_after_ss"] = (f["fast_recoveries"] + f["timeouts"] - 2).clip(lower=0)',
     [sys.executable, "-m", "pytest", "-q", "-rf", "tests/test_daimd.py", "-k", "loss_events_after_slow_start"]),
]


def main(argv: list[str]) -> int:
    keep = "--keep" in argv
    names = [a for a in argv if not a.startswith("--")]
    chosen = [m for m in MUTANTS if not names or m[0] in names]
    scratch = Path(tempfile.mkdtemp(prefix="ccsim-named-mutants-"))
    tree = scratch / "tree"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns("target", ".git", ".venv", ".scratch", "__pycache__"))
    env = dict(os.environ, CARGO_TARGET_DIR=str(ROOT / "target"),
               PYTHONPATH=str(tree / "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    bad = 0
    print(f"{'mutant':42} outcome")
    for name, rel, old, new, cmd in chosen:
        path = tree / rel
        text = path.read_text()
        if text.count(old) != 1:
            print(f"{name:42} stale: the original text is not found exactly once in {rel}")
            bad += 1
            continue
        path.write_text(text.replace(old, new))
        try:
            r = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=3600)
        finally:
            path.write_text(text)
        # Caught only if a test ran and failed: a build error or a test that could not start
        # is an error of this script's setup, not a catch.
        lines = r.stdout.splitlines()
        failed = [ln.split()[1] for ln in lines if ln.startswith("test ") and ln.endswith("FAILED")]
        failed += [ln.split("::")[-1].split()[0] for ln in lines if ln.startswith("FAILED ")]
        if failed:
            outcome = "caught by " + ", ".join(failed)
        elif r.returncode == 0:
            outcome = "SURVIVED"
            bad += 1
        else:
            outcome = "ERROR: " + " | ".join((r.stdout + r.stderr).strip().splitlines()[-3:])[:200]
            bad += 1
        print(f"{name:42} {outcome}", flush=True)
    if not keep:
        shutil.rmtree(scratch, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
