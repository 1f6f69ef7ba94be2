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


def test_experiment_is_registered_with_quick_plans() -> None:
    exp = registry()["fast-multipath-rip"]
    plans = exp.plans("quick")
    assert [p.labels["topology"] for p in plans] == ["paper", "ring", "grid", "random"]
    assert all("routes" in p.series for p in plans)
