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

def _record_durations(monkeypatch) -> list[str]:
    """The durations of the points run, in the order they ran (``jobs=1`` runs in this
    process)."""
    order: list[str] = []
    real = sweep_backends.run_point

    def spy(task):
        order.append(task["doc"]["simulation"]["duration"])
        return real(task)

    monkeypatch.setattr(sweep_backends, "run_point", spy)
    return order


def test_longest_points_run_first(tmp_path, monkeypatch):
    order = _record_durations(monkeypatch)
    sweeps = [Sweep(tmp_path / "s", [Plan(base=_scenario(d)) for d in ("1s", "3s")]),
              Sweep(tmp_path / "t", [Plan(base=_scenario("2s"))])]
    run_batch(sweeps, jobs=1)
    assert order == ["3s", "2s", "1s"]
    pts = expand_plans([Plan(base=_scenario("2s", 3))])
    assert estimated_cost(pts[0]) == 6.0  # simulated seconds × flows (count included)


def test_groups_go_in_order_and_are_told_when_done(tmp_path, monkeypatch):
    order = _record_durations(monkeypatch)
    done = Sweep(tmp_path / "u", [Plan(base=_scenario("1s"))])
    run_batch([done], jobs=1)
    order.clear()
    sweeps = [Sweep(tmp_path / "s", [Plan(base=_scenario(d)) for d in ("1s", "3s")]),
              Sweep(tmp_path / "t", [Plan(base=_scenario("2s"))]), done]
    told = []

    def on_group(group, outcomes):
        # the group's store is readable (its manifest written) when it is told
        told.append((group, list(order), [len(load(o.store, plan=o.plan_id)) for o in outcomes]))

    work = {}
    out = run_batch(sweeps, jobs=1, groups=["x", "y", "z"], on_group=on_group,
                    group_order=lambda w: (work.update(w), ["y", "x", "z"])[1])
    assert work == {"x": 4.0, "y": 2.0, "z": 0.0}  # each group's pending points' estimated cost
    assert order == ["2s", "3s", "1s"]  # group by group, longest first within each
    assert told == [("z", [], [1]), ("y", ["2s"], [1]), ("x", ["2s", "3s", "1s"], [2])]
    assert [o.done for o in out] == [2, 1, 0]
    with pytest.raises(ValueError, match="lacks the groups"):
        run_batch(sweeps, jobs=1, groups=["x", "y", "z"], group_order=["x", "y"])


_REAL_RUN_POINT = sweep_backends.run_point


def _slow_run_point(task):
    """A worker's run_point that takes at least 0.4 s (module-level: the pool pickles it)."""
    import time

    time.sleep(0.4)
    return _REAL_RUN_POINT(task)


def test_background_batch_hands_each_group_over_while_the_pool_runs(tmp_path):
    from ccsim.sweep_batch import BackgroundBatch

    sweeps = _sweeps(tmp_path / "bg")
    got = []
    with BackgroundBatch(sweeps, ["a", "a", "b"], ["b", "a"], jobs=2) as batch:
        for group, outcomes in batch.finished():
            got.append((group, [o.plan_id for o in outcomes]))
    want = run_batch(_sweeps(tmp_path / "fg"), jobs=2)
    assert sorted(g for g, _ in got) == ["a", "b"]  # each group once (which finishes first depends on the workers)
    got = dict(got)
    assert len(got) == 2 and got["a"] == [o.plan_id for o in want[:2]] and got["b"] == [want[2].plan_id]
    assert [(o.done, o.skipped) for o in batch.outcomes] == [(o.done, o.skipped) for o in want]


def test_leaving_a_background_batch_stops_it_as_ctrl_c_does(tmp_path, monkeypatch):
    import multiprocessing
    import time

    from ccsim.sweep_batch import BackgroundBatch

    monkeypatch.setattr(sweep_backends, "run_point", _slow_run_point)  # the forked workers inherit it
    sweeps = [Sweep(tmp_path / "first", [Plan(base=_scenario())]),
              Sweep(tmp_path / "second", [Plan(base=_scenario(), grid={"link.bottleneck.loss": [i / 100 for i in range(30)]})])]
    with pytest.raises(KeyboardInterrupt):
        with BackgroundBatch(sweeps, [0, 1], [0, 1], jobs=2) as batch:
            for group, _ in batch.finished():
                assert group == 0 and batch.outcomes is None  # the second group is still running
                t0 = time.perf_counter()
                raise KeyboardInterrupt
    assert time.perf_counter() - t0 < 3.0  # 30 points of 0.4 s on 2 workers would take 6 s more
    assert not [p for p in multiprocessing.active_children() if p.is_alive()]
    first = load(tmp_path / "first", table="points", plan="all")
    assert list(first["status"]) == ["ok"]
    second = load(tmp_path / "second", table="points", plan="all")  # its manifest was written
    assert (second["status"] == "ok").sum() < 30
    monkeypatch.setattr(sweep_backends, "run_point", _REAL_RUN_POINT)
    again = run_batch(sweeps, jobs=2)  # a rerun finishes the rest
    assert again[0].done == 0 and again[1].done + again[1].skipped == 30 and again[1].done > 0
