"""The measurement window and flow completion times through the Python API (docs/python.md,
"Summary columns")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ccsim
from ccsim.results import fct_table

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.needs_core
def test_a_window_bounds_the_sum_of_goodputs_by_the_payload_ceiling() -> None:
    sc = ccsim.load(ROOT / "scenarios" / "dumbbell.toml").set("simulation.duration", "20s")
    whole = ccsim.run(sc.copy(), progress=False)
    r = ccsim.run(sc.set("measure.from", "10s"), progress=False)
    assert whole.window is None and "measure" not in whole.summary
    assert r.window == (10.0, 20.0)
    ceiling = 100e6 * 1460 / 1500
    total = r.flows["goodput_bps"].sum()
    # Delivery is counted at the receivers: what was in flight or held out of order when
    # the window opened (about a BDP, 100 Mb/s × 40 ms) may add to the window's bytes.
    allowance = 100e6 * 0.040 / 10
    assert 0.9 * ceiling <= total <= ceiling + allowance
    assert r.links.loc[r.links["name"] == "r1->r2", "utilisation"].item() <= 1.0
    # Sliced into 100 run_until calls by ccsim.run: the edges are still exact, and the run
    # itself is unchanged.
    assert r.summary["events"] == whole.summary["events"]
    assert r.conservation == whole.conservation
    assert (r.flows["bytes_delivered"] < whole.flows["bytes_delivered"]).all()
    # Queueing delay and RTT distributions come with the window.
    bn = r.links.set_index("name").loc["r1->r2"]
    assert 0 < bn["queue_delay_mean_s"] <= bn["queue_delay_max_s"] <= 333 * 1500 * 8 / 100e6 * (1 + 1 / 64)
    assert bn["queue_delay_p50_s"] <= bn["queue_delay_p99_s"]
    assert (r.flows["rtt_p50_s"] >= 0.04).all()          # at least the 40 ms propagation RTT
    assert whole.links["queue_delay_mean_s"].isna().all()


def test_a_misspelt_window_key_is_located() -> None:
    sc = ccsim.load(ROOT / "scenarios" / "dumbbell.toml")
    with pytest.raises(ccsim.ScenarioError, match=r"measure\.form"):
        sc.set("measure.form", "10s")
    with pytest.raises(ccsim.ScenarioError, match=r"measure\.until"):
        sc.copy().set("measure.until", "40s").validate()


def transfers_doc(sizes: list[str]) -> dict:
    doc = {
        "simulation": {"duration": "10s"},
        "link": [
            {"between": ["s", "r"], "rate": "1Gbps", "delay": "1ms"},
            {"between": ["r", "d"], "rate": "10Mbps", "delay": "10ms", "queue": {"kind": "droptail", "limit": "100p"}},
        ],
        "flow": [
            {"name": f"f{i}", "from": "s", "to": "d", "app": {"kind": "bulk", "size": size, "start": f"{i * 0.5}s"}}
            for i, size in enumerate(sizes)
        ],
    }
    return doc


@pytest.mark.needs_core
def test_fct_and_slowdown_by_size_bucket() -> None:
    sizes = ["5kB", "8kB", "50kB", "500kB", "5MB"]
    r = ccsim.run(transfers_doc(sizes), progress=False)
    f = r.flows
    assert (f["fct_s"] == f["completion_time_s"] - f["start_s"]).all() or np.allclose(
        f["fct_s"], f["completion_time_s"] - f["start_s"], rtol=0, atol=1e-9
    )
    assert (f["slowdown"] >= 1.0).all()
    assert list(f["size_bytes"]) == [5000, 8000, 50000, 500000, 5000000]
    t = r.fct_table()
    assert list(t["bucket"]) == ["<= 10kB", "10kB-100kB", "100kB-1MB", "1MB-10MB", "> 10MB"]
    assert list(t["flows"]) == [2, 1, 1, 1, 0]
    assert list(t["completed"]) == [2, 1, 1, 1, 0]
    small = f[f["size_bytes"] <= 10_000]
    assert t.loc[0, "fct_p50_s"] == pytest.approx(small["fct_s"].median())
    assert t.loc[0, "slowdown_mean"] == pytest.approx(small["slowdown"].mean())
    assert np.isnan(t.loc[4, "fct_p50_s"])


def test_fct_table_on_a_plain_frame() -> None:
    df = pd.DataFrame({
        "size_bytes": [1e3, 2e3, 3e3, np.nan, 2e6],
        "fct_s": [0.1, 0.2, np.nan, 5.0, 1.0],
        "slowdown": [1.0, 2.0, np.nan, np.nan, 4.0],
    })
    t = fct_table(df, buckets=[10_000], percentiles=[50, 100])
    assert list(t["bucket"]) == ["<= 10kB", "> 10kB"]
    assert list(t["flows"]) == [3, 1]   # the greedy row (no size) is left out
    assert list(t["completed"]) == [2, 1]
    assert t.loc[0, "fct_p50_s"] == pytest.approx(0.15)
    assert t.loc[0, "fct_p100_s"] == pytest.approx(0.2)
    assert t.loc[1, "slowdown_p50"] == 4.0
