"""Per-packet event tables (``Result.drop_events`` …, docs/python.md "Event tables") and
trace-driven links (docs/scenario.md "Time-varying and trace-driven links") from Python and
the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import ccsim
from ccsim.cli import main
from ccsim.results import DROP_CAUSES, RETX_KINDS, Result

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.needs_core
def test_event_frames_name_links_flows_and_causes(scenario_file) -> None:
    sc = ccsim.load(scenario_file).set("trace.events", ["drop", "retx", "timeout"])
    r = ccsim.run(sc, progress=False)
    d = r.drop_events
    assert list(d.columns) == ["time_s", "link", "flow", "cause", "packet", "seq"]
    assert len(d) == sum(r.conservation["dropped"].values()) > 0
    assert set(d["link"].astype(str)) <= set(r.links["name"])
    assert set(d["flow"].astype(str)) == {"f1"}
    assert list(d["cause"].cat.categories) == list(DROP_CAUSES)
    assert d["time_s"].is_monotonic_increasing
    # Per link, as many rows as the link counted.
    per_link = d.groupby("link", observed=False).size()
    for _, row in r.links.iterrows():
        assert per_link.get(row["name"], 0) == sum(row[f"drops_{c}"] for c in DROP_CAUSES)
    x = r.retx_events
    assert len(x) == int(r.flows["retransmissions"].sum())
    assert set(x["kind"].astype(str)) <= set(RETX_KINDS)
    assert len(r.timeout_events) == int(r.flows["timeouts"].sum())
    # Not asked for: empty, with the columns.
    assert len(r.mark_events) == 0 and list(r.mark_events.columns) == ["time_s", "link", "flow", "seq"]


@pytest.mark.needs_core
def test_cli_events_are_saved_and_load_back(scenario_file, tmp_path, capsys) -> None:
    out = tmp_path / "out"
    assert main(["run", str(scenario_file), "--events", "drop,retx", "--out", str(out), "-q"]) == 0
    assert (out / "drop_events.parquet").is_file() and (out / "retx_events.parquet").is_file()
    back = Result.load(out)
    assert len(back.drop_events) > 0 and str(back.drop_events["cause"].dtype) == "category"
    assert back.drop_events["flow"].cat.categories.tolist() == ["f1"]
    assert main(["run", str(scenario_file), "--events", "drops"]) == 2
    assert "allowed: drop, mark, retx, timeout" in capsys.readouterr().err


def test_the_shipped_trace_is_what_its_script_generates(tmp_path) -> None:
    out = tmp_path / "cellular.trace"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_cellular_trace.py"), "--out", str(out)],
                   check=True, capture_output=True)
    shipped = ROOT / "python" / "ccsim" / "scenarios" / "traces" / "cellular.trace"
    assert out.read_bytes() == shipped.read_bytes()


@pytest.mark.needs_core
def test_trace_driven_example_runs_and_its_saved_scenario_reruns_elsewhere(tmp_path, monkeypatch) -> None:
    from ccsim import examples

    r = ccsim.run(examples.path("cellular"), progress=False)
    down = r.links.set_index("name").loc["r1->ue"]
    assert 0.5 < down["utilisation"] <= 1.0
    out = tmp_path / "out"
    r.save(out)
    doc = json.loads((out / "scenario.json").read_text())
    assert Path(doc["link"][1]["delivery_trace"]).is_absolute()
    monkeypatch.chdir(tmp_path)  # the saved scenario no longer depends on where it was loaded from
    again = ccsim.run(out / "scenario.json", progress=False)
    assert again.summary == r.summary


@pytest.mark.needs_core
def test_a_trace_file_error_is_located(tmp_path) -> None:
    bad = tmp_path / "bad.trace"
    bad.write_text("5\n3\n")
    doc = {
        "simulation": {"duration": "1s"},
        "link": [{"from": "a", "to": "b", "delivery_trace": str(bad), "delay": "1ms"}],
        "flow": [{"name": "f", "from": "a", "to": "b"}],
    }
    with pytest.raises(ccsim.ScenarioError, match=r"link\[0\]\.delivery_trace.*line 2"):
        ccsim.run(doc, progress=False)


@pytest.mark.needs_core
def test_a_sweep_of_a_trace_driven_scenario_finds_its_trace(tmp_path, monkeypatch) -> None:
    from ccsim import examples

    monkeypatch.chdir(tmp_path)  # the trace is found from the scenario file, not from here
    base = ccsim.load(examples.path("cellular")).set("simulation.duration", "3s").set("measure.from", "1s")
    df = ccsim.sweep(base, grid={"link.downlink.queue.limit": ["20p", "200p"]}, jobs=1, out=tmp_path / "store",
                     progress=False)
    assert len(df) == 2 and (df["bytes_delivered"] > 0).all()
