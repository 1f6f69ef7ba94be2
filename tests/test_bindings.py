"""The native module ccsim._core: the thin layer the package is built on."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import ccsim
from ccsim import ScenarioError, SimError, _core


def test_version():
    assert _core.version() == ccsim.__version__ == _core.__version__
    assert ccsim.__version__.count(".") == 2


def test_simulation_rejects_an_invalid_document():
    with pytest.raises(ScenarioError) as info:
        _core.Simulation('{"simulation": {"duration": "fast"}}', "doc")
    assert info.value.source == "doc"
    assert info.value.problems


def test_dumbbell_doc_returns_json_text():
    import json

    doc = json.loads(_core.dumbbell_doc('{"n_flows": 2}'))
    assert isinstance(doc, dict)
    with pytest.raises(ValueError):
        _core.dumbbell_doc("[1, 2]")


@pytest.fixture
def sim(scenario_file):
    sc = ccsim.load(scenario_file)
    return _core.Simulation(sc.to_json(), sc.source)


@pytest.mark.needs_core
def test_simulation_lifecycle(sim):
    assert sim.now_s() == 0.0
    assert sim.end_s() == pytest.approx(2.0)
    sim.run_until(0.5)
    assert sim.now_s() == pytest.approx(0.5)
    sim.run_until(100.0)  # capped at the end
    assert sim.now_s() == pytest.approx(2.0)
    raw = sim.finish()
    assert sim.finished
    for call in (sim.now_s, sim.end_s, sim.finish, lambda: sim.run_until(1.0)):
        with pytest.raises(SimError, match="simulation already finished"):
            call()
    assert set(_core.RawResult.table_names()) == {"flows", "links", "paths", "routes", "backoffs", "drops", "marks", "retx", "timeouts"}
    flows = raw.table("flows")
    assert list(flows) == ["time_s", "flow", "cwnd_bytes", "ssthresh_bytes", "srtt_s", "rate_bps"]
    lengths = {len(b) for b in flows.values()}
    assert len(lengths) == 1 and lengths.pop() % 8 == 0
    assert np.all(np.frombuffer(flows["time_s"], dtype="<f8") <= 2.0)
    assert list(raw.table("links")) == ["time_s", "link", "queue_packets", "queue_bytes"]
    with pytest.raises(KeyError):
        raw.table("nope")


@pytest.mark.needs_core
@pytest.mark.parametrize("bad", [-1.0, float("nan")])
def test_run_until_rejects_bad_times(sim, bad):
    with pytest.raises(ValueError):
        sim.run_until(bad)


@pytest.mark.needs_core
def test_run_until_releases_the_gil():
    """A Python thread keeps counting while the core runs."""
    sc = ccsim.dumbbell(n_flows=16, duration="600s", trace_interval="0s")
    sim = _core.Simulation(sc.to_json(), sc.source)
    count = 0
    stop = threading.Event()

    def spin():
        nonlocal count
        while not stop.is_set():
            count += 1

    thread = threading.Thread(target=spin)
    thread.start()
    try:
        time.sleep(0.05)
        before = count
        t0 = time.perf_counter()
        sim.run_until(sim.end_s())
        wall = time.perf_counter() - t0
        during = count - before
    finally:
        stop.set()
        thread.join()
    if wall < 0.2:
        pytest.skip(f"the run took {wall:.3f} s, too short to tell")
    # Holding the GIL for the whole call would leave the counter (nearly) still.
    assert during > 10_000, (during, wall)


@pytest.mark.needs_core
def test_two_threads_give_the_same_results_as_one():
    sc = ccsim.dumbbell(n_flows=4, duration="3s", trace_interval="50ms", queue_packets=40)
    one = ccsim.run(sc, progress=False)
    two = ccsim.run(sc, progress=False, threads=2)
    assert two.summary["warnings"] == [] and one.summary["warnings"] == []
    for table in ["flows", "links"]:
        a, b = getattr(one, table), getattr(two, table)
        assert a.equals(b), table
    for table in ["flow_series", "link_series"]:
        a, b = getattr(one, table), getattr(two, table)
        assert len(a) > 0 and a.equals(b), table
    assert sc.get("simulation").get("threads") is None  # run(threads=...) does not edit the scenario


@pytest.mark.needs_core
def test_threads_auto_says_what_it_chose_and_gives_the_same_results():
    sc = ccsim.dumbbell(n_flows=4, duration="2s", trace_interval="50ms", queue_packets=40)
    one = ccsim.run(sc, progress=False)
    auto = ccsim.run(sc.copy().set("simulation.threads", "auto"), progress=False)
    said = [w for w in auto.summary["warnings"] if w.startswith('threads = "auto": ')]
    assert len(said) == 1, auto.summary["warnings"]
    assert said[0].startswith(('threads = "auto": one thread (', 'threads = "auto": two threads ('))
    for table in ["flows", "links", "flow_series", "link_series"]:
        assert getattr(one, table).equals(getattr(auto, table)), table


@pytest.mark.needs_core
def test_threads_on_a_network_that_does_not_split_warns_and_runs():
    sc = ccsim.dumbbell(n_flows=2, duration="1s", link_model="per_hop")
    r = ccsim.run(sc, progress=False, threads=2)
    assert any(w.startswith("threads = 2") for w in r.summary["warnings"])
    assert r.summary["conservation"]["created"] > 0
