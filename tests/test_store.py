"""The store: interrupted sweeps (SIGKILL of the command, Ctrl-C in a worker) resume with
every point exactly once and nothing corrupt or temporary left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

import ccsim
from ccsim import cli
from ccsim import sweep as sw
from ccsim import sweep_backends as swb  # where the backends look run_point up
from ccsim.results import load as load_results
from ccsim.store import Store
from tests.sweep_helpers import write_base, write_plan

pytestmark = pytest.mark.needs_core

PLAN_20 = """\
name = "twenty"
base = "two_flows.toml"
seeds = 5

[grid]
"link.bottleneck.loss" = [0.0, 0.001, 0.005, 0.01]
"""


def check_store_complete(out: Path, n_points: int, n_flows: int = 2) -> None:
    """Every point exactly once, every file readable, no temporary file."""
    names = sorted(p.name for p in (out / "points").iterdir())
    assert not [n for n in names if n.startswith(".tmp-")], names
    assert not [n for n in os.listdir(out) if n.startswith(".tmp-")]
    records = [n for n in names if n.endswith(".json")]
    assert len(records) == n_points
    for n in records:
        rec = json.loads((out / "points" / n).read_text())
        assert rec["status"] == "ok"
        for t in rec["tables"]:
            pq.read_table(out / "points" / f"{rec['id']}.{t}.parquet")  # not corrupt
    df = load_results(out)
    assert df["point_id"].nunique() == n_points
    assert df.groupby("point_id").size().eq(n_flows).all()
    manifest = json.loads((out / "manifest.json").read_text())
    assert all(e["status"] == "ok" for e in manifest["points"].values())
    assert len(manifest["points"]) == n_points


def test_sigkill_mid_sweep_then_resume(tmp_path):
    # longer runs so the sweep is still going when it is killed
    plan = write_plan(tmp_path, PLAN_20, duration="20s")
    out = tmp_path / "store"
    cmd = [sys.executable, "-m", "ccsim", "sweep", str(plan), "--out", str(out), "--jobs", "1", "-q"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            done = list((out / "points").glob("*.json")) if (out / "points").exists() else []
            if len(done) >= 3 or proc.poll() is not None:
                break
            time.sleep(0.01)
        assert proc.poll() is None, "the sweep finished before it could be killed; make the points slower"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    stored = {p.stem for p in (out / "points").glob("*.json")}
    assert 3 <= len(stored) < 20
    # resume: the finished points are not run again
    t_before = {p.name: p.stat().st_mtime_ns for p in (out / "points").glob("*.json")}
    r = subprocess.run([sys.executable, "-m", "ccsim", "sweep", str(plan), "--out", str(out), "--jobs", "2", "--resume"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert f"{len(stored)} already stored, {20 - len(stored)} run now, 0 failed" in r.stdout
    for name, mtime in t_before.items():
        assert (out / "points" / name).stat().st_mtime_ns == mtime
    check_store_complete(out, 20)


def test_keyboard_interrupt_in_worker_then_rerun(tmp_path, monkeypatch, capsys):
    plan = write_plan(tmp_path, PLAN_20)
    out = tmp_path / "store"
    real = sw.run_point
    calls = {"n": 0}

    def interrupt_at_7(task):
        calls["n"] += 1
        if calls["n"] == 7:
            raise KeyboardInterrupt
        return real(task)

    monkeypatch.setattr(swb, "run_point", interrupt_at_7)
    assert cli.main(["sweep", str(plan), "--out", str(out), "--jobs", "1", "-q"]) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and "Rerun the same command" in err
    assert len(list((out / "points").glob("*.json"))) == 6
    manifest = json.loads((out / "manifest.json").read_text())
    assert sum(e["status"] == "ok" for e in manifest["points"].values()) == 6  # written on the way out
    monkeypatch.setattr(swb, "run_point", real)
    assert cli.main(["sweep", str(plan), "--out", str(out), "--jobs", "1"]) == 0
    assert "6 already stored, 14 run now" in capsys.readouterr().out
    check_store_complete(out, 20)


def test_opening_cleans_temporary_files_and_reconciles(tmp_path):
    base = ccsim.load(write_base(tmp_path))
    out = tmp_path / "store"
    ccsim.sweep(base, grid={"link.bottleneck.loss": [0.0, 0.01]}, out=out, jobs=1, progress=False)
    # what a kill can leave: a temporary file, a table without its record, a stale manifest
    (out / "points" / ".tmp-abc.flows.parquet.123").write_bytes(b"half a file")
    (out / ".tmp-manifest.json.99").write_text("{")
    pts = sw.Plan(base=base, grid={"link.bottleneck.loss": [0.0, 0.01]}).expand()
    (out / "points" / f"{pts[1].id}.json").unlink()
    calls = []
    ccsim.sweep(base, grid={"link.bottleneck.loss": [0.0, 0.01]}, out=out, jobs=1,
                progress=lambda d, f, t, e: calls.append((d, f, t)))
    assert calls[0] == (1, 0, 2)  # one point was missing its record: run again
    assert not list(out.rglob(".tmp-*"))
    check_store_complete(out, 2)


def test_store_refuses_another_plan_in_python(tmp_path):
    base = ccsim.load(write_base(tmp_path))
    out = tmp_path / "store"
    ccsim.sweep(base, grid={"link.bottleneck.loss": [0.0]}, out=out, jobs=1, progress=False)
    with pytest.raises(ValueError, match="different plan"):
        ccsim.sweep(base, grid={"link.bottleneck.loss": [0.02]}, out=out, jobs=1, progress=False)
    df = ccsim.sweep(base, grid={"link.bottleneck.loss": [0.02]}, out=out, jobs=1, progress=False, resume=True)
    assert set(df["link.bottleneck.loss"]) == {0.02}


def test_override_values_of_mixed_types_and_tables(tmp_path):
    base = ccsim.load(write_base(tmp_path))
    df = ccsim.sweep(
        base,
        points=[{"link.bottleneck.queue": {"kind": "droptail", "limit": 20}}, {"link.bottleneck.queue": "red"}],
        grid={"link.bottleneck.loss": [0, 0.01]},
        out=tmp_path / "s",
        jobs=1,
        progress=False,
    )
    assert df["point_id"].nunique() == 4
    assert set(df["link.bottleneck.queue"]) == {'{"kind":"droptail","limit":20}', "red"}
    assert pd.api.types.is_numeric_dtype(df["link.bottleneck.loss"])
    assert isinstance(Store, type)


KILL_SEED = 3


def die_on_seed(task):
    """Stand-in for run_point (module level so the worker can unpickle it): the worker
    running the point with seed KILL_SEED dies as if killed."""
    if task["doc"]["simulation"]["seed"] == KILL_SEED:
        os.kill(os.getpid(), signal.SIGKILL)
    return sw_run_point(task)


sw_run_point = sw.run_point


def test_killed_worker_fails_only_its_point(tmp_path, monkeypatch, capsys):
    plan = write_plan(tmp_path, PLAN_20)
    out = tmp_path / "store"
    monkeypatch.setattr(swb, "run_point", die_on_seed)
    assert cli.main(["sweep", str(plan), "--out", str(out), "--jobs", "2"]) == 1
    err = capsys.readouterr().err
    assert "Failed points (4)" in err and "WorkerDied" in err
    points = load_results(out, table="points")
    assert set(points.loc[points["status"] == "error", "seed"]) == {KILL_SEED}
    assert (points.loc[points["seed"] != KILL_SEED, "status"] == "ok").all()
    assert not list(out.rglob(".tmp-*"))
