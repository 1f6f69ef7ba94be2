"""Distance-vector routing from Python, the WELFARE optimum and the fast-multipath-rip experiment."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from ccsim import theory
from ccsim.api import run
from ccsim.exceptions import ScenarioError
from ccsim.experiments import fast_multipath_rip as rip
from ccsim.experiments import registry


def test_optimum_of_the_paper_topology() -> None:
    opt = theory.solve_welfare(theory.network_from_scenario(rip.paper_doc()))
    assert opt.success
    # (c1 + c2)/2 in 1040-byte packets: (37.5 + 25) Mb/s / 2 / 8320 bit = 3756 pkt/s each.
    for x in opt.rates_pps.values():
        assert x == pytest.approx(3756.0, rel=1e-3)
    assert opt.splits[("1", "4")]["2"] == pytest.approx(0.2, abs=1e-3)
    assert opt.saturated == {"2->4", "3->4"}


def test_optimum_of_one_link_is_proportional_to_k() -> None:
    doc = rip.topology("ring")
    doc["link"] = [doc["link"][0]]
    doc["flow"] = [rip._flow("a", "r0", "r1", 100), rip._flow("b", "r0", "r1", 300)]
    opt = theory.solve_welfare(theory.network_from_scenario(doc))
    total = 20e6 / (8 * 1040) * (1 - 0)  # ACKs go the other way
    assert opt.rates_pps["a"] == pytest.approx(total / 4, rel=1e-3)
    assert opt.rates_pps["b"] == pytest.approx(3 * total / 4, rel=1e-3)


def test_route_series_splits_sum_to_one() -> None:
    doc = rip.paper_doc()
    doc["simulation"]["duration"] = "5s"
    r = run(doc)
    rs = r.route_series
    assert list(rs.columns) == ["time_s", "node", "dest", "next_hop", "alpha", "metric_s", "price_s"]
    sums = rs.groupby(["time_s", "node", "dest"], observed=True)["alpha"].sum()
    assert np.allclose(sums.to_numpy(), 1.0)
    assert r.summary["routing"]["announcements_sent"] > 0


def test_routing_errors_name_the_field() -> None:
    doc = rip.paper_doc()
    bad = copy.deepcopy(doc)
    bad["routing"]["initial"] = [{"node": "1", "dest": "4", "split": {"4": 1.0}}]
    bad["routing"]["kind"] = "distance_vector"
    bad["event"] = [{"at": "1s", "between": ["1", "9"], "action": "off"}]
    with pytest.raises(ScenarioError) as e:
        run(bad)
    text = str(e.value)
    assert "routing.kind" in text and "distance-vector" in text
    assert "event[0].action" in text and "event[0].between[1]" in text
    jit = copy.deepcopy(doc)
    jit["routing"]["period_jitter"] = 1.5
    with pytest.raises(ScenarioError) as e:
        run(jit)
    assert "routing.period_jitter" in str(e.value) and "0 ≤ period_jitter < 1" in str(e.value)


def test_declared_values_reach_the_paper_scenario() -> None:
    doc = rip.paper_doc()
    r, f = doc["routing"], doc["flow"][0]
    # Defaults: learned routes, ns-2's DV jitter, ns-2.29's TCP start, the module's FAST.
    assert "initial" not in r and (r["first_update"], r["period_jitter"]) == ("500ms", 0.1)
    assert f["handshake"] and f["rto"]["initial"] == "6s" and f["rto"]["estimator"] == "ns2"
    assert f["cc"]["mi_threshold"] == "5ms" and f["cc"]["update_interval"] == "100ms" and f["cc"]["pace_increases"]
    assert not f["cc"]["every_other_rtt"] and f["app"]["start"] == "0s"
    assert all(link["queue"]["limit"] == "4000p" for link in doc["link"])
    moved = rip.paper_doc({"routes": "seeded", "dv_timers": "synchronised", "rtxcur_init": 3.0,
                           "fast_update": "round", "fast_mi_threshold": 0.0, "buffer": 50, "start": 1.0})
    r, f = moved["routing"], moved["flow"][0]
    assert r["initial"] == rip.SEEDED_TABLES and (r["first_update"], r["period_jitter"]) == ("0s", 0.0)
    assert f["rto"]["initial"] == "3s" and f["app"]["start"] == "1s"
    assert "update_interval" not in f["cc"] and "mi_threshold" not in f["cc"] and "pace_increases" not in f["cc"]
    assert all(link["queue"]["limit"] == "50p" for link in moved["link"])
    # The larger topologies take the FAST and timer settings too.
    ring = rip.topology("ring", {"fast_every_other_rtt": True, "dv_timers": "rfc2453"})
    assert ring["flow"][0]["cc"]["every_other_rtt"] and abs(ring["routing"]["period_jitter"] - 1 / 6) < 1e-12


def test_experiment_is_registered_with_quick_plans() -> None:
    exp = registry()["fast-multipath-rip"]
    plans = exp.plans("quick")
    assert [p.labels["topology"] for p in plans] == ["paper", "ring", "grid", "random"]
    assert all("routes" in p.series for p in plans)
