"""Several sweeps in one pool (ccsim.sweep_batch): the stores hold what the sweeps run one
by one would have written, each distinct point runs once, the longest points go first."""

from __future__ import annotations

import pytest

from ccsim import sweep_backends
from ccsim.results import load
from ccsim.scenario import Scenario
from ccsim.sweep import Plan, expand_plans, plan_id, run_plans
from ccsim.sweep_batch import Sweep, estimated_cost, run_batch

pytestmark = pytest.mark.needs_core


def _scenario(duration: str = "1s", flows: int = 1) -> Scenario:
    return Scenario({
        "simulation": {"duration": duration},
        "link": [{"name": "bottleneck", "between": ["s", "d"], "rate": "10Mbps", "delay": "5ms",
                  "queue": {"kind": "droptail", "limit": "50p"}}],
        "flow": [{"name": "f", "from": "s", "to": "d", "count": flows, "app": {"kind": "bulk"}}],
    })


def _sweeps(root):
    """Three sweeps: two into store A sharing the point loss = 0.01, one into store B."""
    a, b = root / "a", root / "b"
    return [
        Sweep(a, [Plan(base=_scenario(), grid={"link.bottleneck.loss": [0.0, 0.01]}, labels={"part": "main"})]),
        Sweep(a, [Plan(base=_scenario(), grid={"link.bottleneck.loss": [0.01, 0.02]}, labels={"part": "rerun"})]),
        Sweep(b, [Plan(base=_scenario("2s", 3), seeds=2)]),
    ]


def _frame(store, pid):
    df = load(store, plan=pid)
    return df.drop(columns=[c for c in df.columns if c in ("point",)]).sort_values(["point_id", "name"]).reset_index(drop=True)


def test_one_pool_writes_what_sweeps_one_by_one_write(tmp_path):
    batch = run_batch(_sweeps(tmp_path / "batch"), jobs=2)
    one_by_one = [run_plans(sw.plans, sw.store, jobs=2, resume=True) for sw in _sweeps(tmp_path / "seq")]
    for got, want in zip(batch, one_by_one):
        assert got.plan_id == want.plan_id == plan_id(expand_plans(_sweeps(tmp_path)[batch.index(got)].plans))
        assert (got.total, got.skipped, got.done, len(got.failed)) == (want.total, want.skipped, want.done, 0)
        store_b, store_s = got.store, want.store
        fb, fs = _frame(store_b, got.plan_id), _frame(store_s, want.plan_id)
        keep = ["point_id", "part", "link.bottleneck.loss", "seed", "name", "bytes_delivered", "goodput_bps",
                "retransmissions"]
        keep = [c for c in keep if c in fb.columns]
        assert fb[keep].equals(fs[keep])
    # the shared point ran once: A holds three points, the second sweep ran one of its two
    assert batch[1].done == 1 and batch[1].skipped == 1
    assert len(list((tmp_path / "batch" / "a" / "points").glob("*.json"))) == 3
    # a rerun of the batch runs nothing
    again = run_batch(_sweeps(tmp_path / "batch"), jobs=2)
    assert [o.done for o in again] == [0, 0, 0] and [o.skipped for o in again] == [2, 2, 2]


def test_longest_points_run_first(tmp_path, monkeypatch):
    order = []
    real = sweep_backends.run_point

    def spy(task):
        order.append(task["doc"]["simulation"]["duration"])
        return real(task)

    monkeypatch.setattr(sweep_backends, "run_point", spy)  # jobs=1 runs in this process
    sweeps = [Sweep(tmp_path / "s", [Plan(base=_scenario(d)) for d in ("1s", "3s")]),
              Sweep(tmp_path / "t", [Plan(base=_scenario("2s"))])]
    run_batch(sweeps, jobs=1)
    assert order == ["3s", "2s", "1s"]
    pts = expand_plans([Plan(base=_scenario("2s", 3))])
    assert estimated_cost(pts[0]) == 6.0  # simulated seconds × flows (count included)
