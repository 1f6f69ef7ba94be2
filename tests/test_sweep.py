"""Sweeps: plan expansion, point identity, named-entry overrides, plan errors, the local
backend, failing points and the ``ccsim sweep`` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ccsim
from ccsim import cli, sweep as sw
from ccsim.results import load as load_results
from tests.sweep_helpers import PLAN_12, TWO_FLOWS_TOML, write_base, write_plan

pytestmark = pytest.mark.needs_core


@pytest.fixture
def base(tmp_path: Path) -> ccsim.Scenario:
    return ccsim.load(write_base(tmp_path))


# ---------------------------------------------------------------------------- expansion and identity


def test_grid_expansion_order_and_seeds(base):
    plan = sw.Plan(base=base, grid={"link.bottleneck.loss": [0.0, 0.01], "flow.a.recovery": ["reno", "sack", "newreno"]}, seeds=2)
    pts = plan.expand()
    assert len(pts) == 2 * 3 * 2
    # last key fastest, then seeds
    assert [p.overrides["flow.a.recovery"] for p in pts[:6:2]] == ["reno", "sack", "newreno"]
    assert [p.replicate for p in pts[:4]] == [0, 1, 0, 1]
    assert [p.seed for p in pts[:2]] == [1, 2]  # seed = simulation.seed + replicate
    assert [p.index for p in pts] == list(range(12))
    assert pts[0].doc["link"][0]["loss"] == 0.0 and pts[-1].doc["link"][0]["loss"] == 0.01
    assert pts[-1].doc["flow"][0]["recovery"] == "newreno"
    assert len({p.id for p in pts}) == 12


def test_points_combined_with_grid(base):
    plan = sw.Plan(base=base, grid={"link.bottleneck.loss": [0.0, 0.01]}, points=[{"simulation.duration": "1s"}, {"simulation.duration": "3s"}])
    combos = plan.combinations()
    assert combos == [
        {"simulation.duration": "1s", "link.bottleneck.loss": 0.0},
        {"simulation.duration": "1s", "link.bottleneck.loss": 0.01},
        {"simulation.duration": "3s", "link.bottleneck.loss": 0.0},
        {"simulation.duration": "3s", "link.bottleneck.loss": 0.01},
    ]


def test_seed_derivation_from_overridden_seed(base):
    pts = sw.Plan(base=base, grid={"simulation.seed": [10, 20]}, seeds=3).expand()
    assert [p.seed for p in pts] == [10, 11, 12, 20, 21, 22]
    assert sw.point_seed(7, 0) == 7 and sw.point_seed(7, 4) == 11


def test_expansion_gives_the_documents_of_copy_set_and_write(base):
    """Plan.expand reads each point's document from the base's JSON (one copy per point): the
    documents, key order included, are those of copying the base, setting the overrides and
    the seed and writing it as JSON, for grids, explicit points, named entries, numpy values
    and a base without a seed."""
    import numpy as np

    doc = json.loads(base.to_json())
    del doc["simulation"]["seed"]
    bases = [base, ccsim.Scenario(doc, "no seed")]
    for b in bases:
        plan = sw.Plan(base=b, grid={"link.bottleneck.loss": [0.0, np.float64(0.01)]},
                       points=[{"flow.a.recovery": "sack"}, {"simulation.seed": np.int64(7)}], seeds=2)
        got = plan.expand()
        want = []
        for combo in plan.combinations():
            sc = b.copy()
            for key, value in combo.items():
                sc.set(sw.resolve_path(b.doc, key), value, check=False)
            sim = sc.doc.get("simulation")
            base_seed = sim.get("seed", 1) if isinstance(sim, dict) else 1
            for r in range(2):
                run = sc.copy()
                run.set("simulation.seed", sw.point_seed(base_seed if isinstance(base_seed, int) else 1, r), check=False)
                want.append(json.dumps(json.loads(run.to_json())))
        assert [json.dumps(p.doc) for p in got] == want


def test_point_identity_is_stable_and_sensitive(base):
    grid = {"link.bottleneck.loss": [0.0, 0.01]}
    a = [p.id for p in sw.Plan(base=base, grid=grid, seeds=2).expand()]
    b = [p.id for p in sw.Plan(base=base.copy(), grid=dict(grid), seeds=2).expand()]
    assert a == b  # same plan, same ids
    # the same document reached another way has the same id
    same = sw.Plan(base=base.copy().set("link.0.loss", 0.01), seeds=2).expand()
    assert [p.id for p in same] == a[2:]
    # another value changes the id
    c = [p.id for p in sw.Plan(base=base, grid={"link.bottleneck.loss": [0.0, 0.02]}, seeds=2).expand()]
    assert c[:2] == a[:2] and c[2:] != a[2:]
    # another version changes every id
    d = [p.id for p in sw.Plan(base=base, grid=grid, seeds=2).expand(version="0.0.0-other")]
    assert set(d).isdisjoint(a)
    # key order in the document does not matter (canonical JSON)
    doc = json.loads(base.to_json())
    reordered = dict(reversed(list(doc.items())))
    assert sw.point_id(doc, "1") == sw.point_id(reordered, "1")
    assert sw.point_id(doc, "1") != sw.point_id(doc, "1", series=["flows"])


def test_named_entry_overrides(base):
    assert sw.resolve_path(base.doc, "link.bottleneck.loss") == "link.0.loss"
    assert sw.resolve_path(base.doc, "link[bottleneck].queue.limit") == "link.0.queue.limit"
    assert sw.resolve_path(base.doc, "flow.b.recovery") == "flow.1.recovery"
    assert sw.resolve_path(base.doc, "flow[-1].cc") == "flow.1.cc"
    assert sw.resolve_path(base.doc, "link.3.rate") == "link.3.rate"
    pts = sw.Plan(base=base, grid={"flow.b.recovery": ["reno"]}).expand()
    assert pts[0].doc["flow"][1]["recovery"] == "reno" and pts[0].doc["flow"][0].get("recovery") is None
    with pytest.raises(ccsim.ScenarioError) as e:
        sw.resolve_path(base.doc, "link.nosuch.loss")
    assert "no [[link]] entry named 'nosuch'" in str(e.value) and "'bottleneck'" in str(e.value)


@pytest.mark.parametrize(
    "grid, expected",
    [
        ({"link.nosuch.loss": [0.1]}, "grid.'link.nosuch.loss': no [[link]] entry named 'nosuch'"),
        ({"link.9.rate": ["1Mbps"]}, "grid.'link.9.rate': index 9 is out of range"),
        ({"link.bottleneck.bandwith": ["1Mbps"]}, "grid.'link.bottleneck.bandwith': unknown key; allowed:"),
        ({"link..rate": ["1Mbps"]}, "bad path"),
        ({"link.0.rate": []}, "expected a non-empty list"),
    ],
)
def test_bad_override_paths_are_plan_errors(base, tmp_path, grid, expected):
    with pytest.raises(ccsim.ScenarioError) as e:
        ccsim.sweep(base, grid=grid, out=tmp_path / "store", jobs=1, progress=False)
    assert expected in str(e.value)
    assert "sweep plan" in str(e.value)
    assert not (tmp_path / "store").exists()


@pytest.mark.parametrize(
    "text, expected",
    [
        ('base = "two_flows.toml"\nseedz = 3\n', "seedz: unknown key; allowed: name, description, base"),
        ('base = "missing.toml"\n', "base: scenario file not found"),
        ("seeds = 2\n", "base: required"),
        ('base = "two_flows.toml"\nseeds = 0\n', "seeds: expected an integer >= 1"),
        ('base = "two_flows.toml"\nseries = ["queues"]\n', "series: unknown series 'queues'"),
        ('base = "two_flows.toml"\n[grid]\n"link.lossy.loss" = [0.1]\n', "no [[link]] entry named 'lossy'"),
        ('base = "two_flows.toml"\n[grid\n', "TOML syntax error"),
    ],
)
def test_plan_file_errors_exit_2_with_location(tmp_path, capsys, text, expected):
    plan = write_plan(tmp_path, text)
    assert cli.main(["sweep", str(plan), "--out", str(tmp_path / "store"), "-q"]) == 2
    err = capsys.readouterr().err
    assert expected in err and str(plan) in err
    assert "Traceback" not in err


def test_dotted_toml_keys_are_flattened(tmp_path):
    plan = sw.load_plan(write_plan(tmp_path, 'base = "two_flows.toml"\n[grid]\nlink.0.loss = [0.0, 0.1]\n[[point]]\nsimulation.duration = "1s"\n'))
    assert plan.grid == {"link.0.loss": [0.0, 0.1]}
    assert plan.points == [{"simulation.duration": "1s"}]
    assert plan.base.source.endswith("two_flows.toml")


# ---------------------------------------------------------------------------- running


def test_local_sweep_one_row_per_point_and_flow(tmp_path):
    plan = write_plan(tmp_path)
    out = tmp_path / "store"
    assert cli.main(["sweep", str(plan), "--out", str(out), "--jobs", "2", "-q"]) == 0
    df = load_results(out)
    assert len(df) == 12 * 2
    assert df.groupby("point_id").size().eq(2).all()
    assert df["point_id"].nunique() == 12
    for col in ("point_id", "point", "link.bottleneck.loss", "link.bottleneck.queue.limit", "seed", "replicate", "name", "goodput_bps", "retransmissions"):
        assert col in df.columns
    assert sorted(df["link.bottleneck.loss"].unique()) == [0.0, 0.001, 0.01]
    assert set(df["link.bottleneck.queue.limit"]) == {"20p", "50p"}
    assert set(df["seed"]) == {1, 2}
    assert set(df["name"]) == {"a", "b"}
    assert (df["goodput_bps"] > 0).all()
    # more loss, less goodput (summed over flows and seeds)
    by_loss = df.groupby("link.bottleneck.loss")["goodput_bps"].sum()
    assert by_loss[0.01] < by_loss[0.0]
    links = load_results(out, table="links")
    assert links["point_id"].nunique() == 12 and "utilisation" in links.columns
    points = load_results(out, table="points")
    assert len(points) == 12 and (points["status"] == "ok").all()
    # the store: one record and two tables per point, no temporary file
    files = sorted(p.name for p in (out / "points").iterdir())
    assert len([f for f in files if f.endswith(".json")]) == 12
    assert len([f for f in files if f.endswith(".parquet")]) == 24
    assert not [f for f in files if f.startswith(".tmp-")]


def test_python_api_matches_and_keeps_series(tmp_path, base):
    df = ccsim.sweep(base, grid={"link.bottleneck.loss": [0.0, 0.01]}, seeds=2, series=["flows", "links"], out=tmp_path / "s", jobs=1, progress=False)
    assert len(df) == 8 and df["point_id"].nunique() == 4
    fs = load_results(tmp_path / "s", table="flow_series")
    ls = load_results(tmp_path / "s", table="link_series")
    assert set(fs["point_id"]) == set(df["point_id"]) and "cwnd_bytes" in fs.columns
    assert "queue_packets" in ls.columns and len(ls) > 0
    # a rerun skips every point and gives the same frame
    calls = []
    df2 = ccsim.sweep(base, grid={"link.bottleneck.loss": [0.0, 0.01]}, seeds=2, series=["flows", "links"], out=tmp_path / "s", jobs=1,
                      progress=lambda done, failed, total, el: calls.append((done, failed, total)))
    assert calls[-1] == (4, 0, 4)
    import pandas as pd

    pd.testing.assert_frame_equal(df, df2)


def test_failing_point_is_recorded_and_others_complete(tmp_path, capsys):
    # Each value is valid on its own (checked before anything runs); one combination is not:
    # an RTO minimum above its maximum. That point fails, the others run.
    text = ('base = "two_flows.toml"\nseeds = 2\n[grid]\n"flow.a.rto.min" = ["2s"]\n'
            '"flow.a.rto.max" = ["60s", "1s", "30s"]\n')
    plan = write_plan(tmp_path, text)
    out = tmp_path / "store"
    assert cli.main(["sweep", str(plan), "--out", str(out), "--jobs", "2"]) == 1
    captured = capsys.readouterr()
    assert "2 failed" in captured.err and "Failed points (2)" in captured.err
    assert "flow.a.rto.max='1s'" in captured.err and "ScenarioError" in captured.err
    points = load_results(out, table="points")
    bad = points[points["status"] == "error"]
    assert len(bad) == 2 and set(bad["flow.a.rto.max"]) == {"1s"}
    assert bad["error"].str.contains("flow\\[0\\].rto").all()
    df = load_results(out)
    assert df["point_id"].nunique() == 4 and "1s" not in set(df["flow.a.rto.max"])
    manifest = json.loads((out / "manifest.json").read_text())
    assert sum(e["status"] == "error" for e in manifest["points"].values()) == 2


def test_store_of_another_plan_is_refused_without_resume(tmp_path, capsys):
    plan = write_plan(tmp_path)
    out = tmp_path / "store"
    assert cli.main(["sweep", str(plan), "--out", str(out), "-q", "--jobs", "1"]) == 0
    # the same plan again: nothing to do, fine
    assert cli.main(["sweep", str(plan), "--out", str(out), "--jobs", "1"]) == 0
    assert "12 already stored, 0 run now" in capsys.readouterr().out
    other = write_plan(tmp_path, PLAN_12.replace("0.01]", "0.02]"), name="other.toml")
    assert cli.main(["sweep", str(other), "--out", str(out), "-q"]) == 2
    err = capsys.readouterr().err
    assert "different plan" in err and "--resume" in err
    assert cli.main(["sweep", str(other), "--out", str(out), "--resume", "--jobs", "1"]) == 0
    assert "8 already stored, 4 run now" in capsys.readouterr().out
    assert load_results(out)["point_id"].nunique() == 12  # the latest plan
    assert load_results(out, plan="all")["point_id"].nunique() == 16


def test_non_store_directory_is_refused(tmp_path, capsys):
    plan = write_plan(tmp_path)
    out = tmp_path / "notastore"
    out.mkdir()
    (out / "precious.txt").write_text("x")
    assert cli.main(["sweep", str(plan), "--out", str(out), "-q"]) == 2
    assert "not a ccsim sweep store" in capsys.readouterr().err


def test_progress_bar_text():
    import io

    buf = io.StringIO()
    bar = sw.SweepProgress(10, 2, True, stream=buf)
    bar.update()
    bar.update(True)
    bar.update(False)
    for _ in range(6):
        bar.update(True)
    bar.close()
    last = buf.getvalue().strip().splitlines()[-1]
    assert "10/10" in last and "done 7" in last and "failed 1" in last and "left 0" in last and "ETA" in last


def test_two_flow_base_is_valid():
    ccsim.Scenario(__import__("tomllib").loads(TWO_FLOWS_TOML)).validate()
