"""Scenario documents: loading, overrides, builders, validation errors."""

from __future__ import annotations

import json
import tomllib

import numpy as np
import pytest

import ccsim
from ccsim import Scenario, ScenarioError, SimError, _core, dumbbell, load

from conftest import VALID_TOML


def test_exception_hierarchy():
    assert issubclass(ScenarioError, SimError)
    assert issubclass(SimError, Exception)
    assert ScenarioError.__module__ == "ccsim.exceptions"
    from ccsim import exceptions

    assert exceptions.ScenarioError is ScenarioError


def test_load_reads_toml(scenario_file):
    sc = load(scenario_file)
    assert sc.doc == tomllib.loads(VALID_TOML)
    assert sc.source == str(scenario_file)


def test_load_json(tmp_path):
    p = tmp_path / "s.json"
    p.write_text(json.dumps(tomllib.loads(VALID_TOML)))
    assert load(p).doc == tomllib.loads(VALID_TOML)


def test_load_syntax_error_names_line_and_column(syntax_error_file):
    with pytest.raises(ScenarioError) as info:
        load(syntax_error_file)
    err = info.value
    assert "line 5, column" in str(err)
    assert str(syntax_error_file) in str(err)
    assert err.source == str(syntax_error_file)
    assert len(err.problems) == 1
    path, message = err.problems[0]
    assert path == "" and "TOML syntax error at line 5, column" in message


def test_load_missing_file(tmp_path):
    with pytest.raises(ScenarioError, match="file not found"):
        load(tmp_path / "nope.toml")


def test_load_directory(tmp_path):
    with pytest.raises(ScenarioError, match="directory"):
        load(tmp_path)


def test_set_overrides_tables_and_arrays(scenario_file):
    sc = load(scenario_file)
    assert sc.set("simulation.duration", "5s") is sc
    sc.set("link.1.rate", "20Mbps").set("link[1].queue.limit", "50p").set("flow.-1.app.size", "2MB")
    assert sc.doc["simulation"]["duration"] == "5s"
    assert sc.doc["link"][1]["rate"] == "20Mbps"
    assert sc.doc["link"][1]["queue"] == {"kind": "droptail", "limit": "50p"}
    assert sc.doc["flow"][0]["app"]["size"] == "2MB"
    assert sc.get("link[1].rate") == "20Mbps"


def test_set_creates_missing_tables(scenario_file):
    sc = load(scenario_file)
    # A missing kind-tagged table is created with its default kind.
    sc.set("routing.beta", 0.25, check=False)
    assert sc.doc["routing"] == {"kind": "static", "beta": 0.25}
    sc.set("link.0.queue.limit", "10p")
    assert sc.doc["link"][0]["queue"] == {"kind": "droptail", "limit": "10p"}
    sc.set("flow.0.rto.min", "200ms")
    assert sc.doc["flow"][0]["rto"] == {"min": "200ms"}


def test_set_turns_a_kind_name_into_a_table_to_set_a_key_below_it(scenario_file):
    sc = load(scenario_file).set("flow.f1.cc", "cubic")
    sc.set("flow.f1.cc.beta", 0.8)
    assert sc.doc["flow"][0]["cc"] == {"kind": "cubic", "beta": 0.8}


def test_set_accepts_entry_names_as_sweeps_do(scenario_file):
    sc = load(scenario_file)
    sc.doc["link"][1]["name"] = "bottleneck"
    sc.set("link.bottleneck.rate", "20Mbps").set("flow[f1].recovery", "sack")
    assert sc.doc["link"][1]["rate"] == "20Mbps" and sc.get("link.bottleneck.rate") == "20Mbps"
    assert sc.doc["flow"][0]["recovery"] == "sack"


@pytest.mark.parametrize(
    "path, value, where, message",
    [
        ("link.0.bandwith", "1Mbps", "link[0].bandwith",
         "unknown key; allowed: between, from, to, rate, rate_schedule, delivery_trace, delay, jitter, queue, loss, loss_direction, name"),
        ("flow.f1.cc", "cubc", "flow[0].cc.kind", 'unknown controller "cubc"; allowed: reno, vegas'),
        ("flow.0.cc.beta", 0.8, "flow[0].cc.beta", "unknown key; allowed: kind, counting"),
        ("link.1.loss", 1.5, "link[1].loss", "1.5 is out of range; allowed 0 ≤ p < 1"),
        ("simulation.duration", 10, "simulation.duration", 'expected a duration as a string with a unit, e.g. "10ms"'),
    ],
)
def test_set_reports_a_bad_key_or_value_with_the_core_message(scenario_file, path, value, where, message):
    sc = load(scenario_file)
    before = json.dumps(sc.doc, sort_keys=True)
    with pytest.raises(ScenarioError) as info:
        sc.set(path, value)
    assert [(p, m[: len(message)]) for p, m in info.value.problems] == [(where, message)]
    assert json.dumps(sc.doc, sort_keys=True) == before  # left as it was
    # The same message the core gives for the whole document.
    sc.set(path, value, check=False)
    with pytest.raises(ScenarioError) as whole:
        sc.validate()
    assert any(p == where and m.startswith(message) for p, m in whole.value.problems)


@pytest.mark.parametrize(
    "path",
    ["link.5.rate", "link.x.rate", "simulation.duration.unit", "nosuch.0.rate", "link.-3.rate"],
)
def test_set_rejects_paths_that_do_not_fit(scenario_file, path):
    sc = load(scenario_file)
    with pytest.raises(ScenarioError) as info:
        sc.set(path, 1)
    assert info.value.problems[0][0] == path


@pytest.mark.parametrize("path", ["", "a..b", "simulation."])
def test_set_rejects_malformed_paths(scenario_file, path):
    with pytest.raises(ValueError):
        load(scenario_file).set(path, 1)


def test_copy_is_independent(scenario_file):
    sc = load(scenario_file)
    other = sc.copy().set("link.0.rate", "1Mbps")
    assert sc.doc["link"][0]["rate"] == "1Gbps"
    assert other.doc["link"][0]["rate"] == "1Mbps"
    assert other.source == sc.source


def test_to_json_accepts_numpy_values():
    sc = Scenario({"simulation": {"seed": np.int64(3), "duration": "1s"}})
    assert json.loads(sc.to_json()) == {"simulation": {"seed": 3, "duration": "1s"}}


def test_scenario_needs_a_mapping():
    with pytest.raises(TypeError):
        Scenario([1, 2])  # type: ignore[arg-type]


def test_dumbbell_builds_a_document():
    sc = dumbbell(n_flows=3, duration="1s")
    assert isinstance(sc.doc, dict)
    assert len(sc.doc["flow"]) == 3
    assert sc.source.startswith("dumbbell(")


@pytest.mark.parametrize("params, where", [
    ({"n_flows": 0}, "n_flows"), ({"n_flows": "many"}, "n_flows"), ({"cc": ["reno"]}, "cc"),
    ({"rtt": ["10ms", "40ms"]}, "rtt[0]"), ({"rtt": "1h", "queue_packets": 3, "queue_bdp": 1}, "queue_bdp"),
    ({"bottleneck_rate": [1]}, "bottleneck_rate"), ({"queue_bdp": -1}, "queue_bdp"),
])
def test_dumbbell_rejects_bad_parameters(params, where):
    with pytest.raises(ScenarioError) as e:
        dumbbell(**{"n_flows": 2, **params})
    assert [p for p, _ in e.value.problems] == [where]
    assert f"  {where}: " in str(e.value)


def test_dumbbell_has_an_explicit_signature():
    with pytest.raises(TypeError, match="no_such_parameter"):
        dumbbell(no_such_parameter=1)  # type: ignore[call-arg]


def test_dumbbell_per_flow_rtts_controllers_and_bdp_queue():
    # The sender's access link makes up each RTT: 2·(s_i + 5 ms + 10 ms + 5 ms) = rtt.
    sc = dumbbell(3, rtt=["40ms", 0.08, "200ms"], cc=["reno", "cubic", {"kind": "vegas", "alpha": 2}],
                  queue_bdp=1.0)
    delays = [sc.doc["link"][1 + i]["delay"] for i in range(3)]
    assert delays == ["5000000ns", "25000000ns", "85000000ns"]
    assert [f["cc"] for f in sc.doc["flow"]] == ["reno", "cubic", {"kind": "vegas", "alpha": 2}]
    # One BDP at the mean RTT (0.32 s / 3) of 100 Mb/s, in 1500-byte packets, rounded up.
    assert sc.doc["link"][0]["queue"]["limit"] == 889
    # Without lists the document is the core builder's (what it always was).
    plain = dumbbell(n_flows=3, duration="1s")
    assert plain.doc == json.loads(_core.dumbbell_doc(json.dumps({"n_flows": 3, "duration": "1s"})))


def test_validate_raises_scenario_error_with_problems(invalid_scenario_file):
    sc = load(invalid_scenario_file)
    with pytest.raises(ScenarioError) as info:
        sc.validate()
    err = info.value
    assert err.source == str(invalid_scenario_file)
    assert err.problems and all(isinstance(p, tuple) and len(p) == 2 for p in err.problems)
    assert all(isinstance(s, str) for p in err.problems for s in p)
    assert "problem" in str(err)


def test_core_validate_rejects_non_json():
    with pytest.raises(ScenarioError) as info:
        _core.validate("{not json", "inline")
    assert info.value.source == "inline"


def test_run_rejects_other_types():
    with pytest.raises(TypeError):
        ccsim.run(42)  # type: ignore[arg-type]


@pytest.mark.needs_core
def test_valid_scenario_validates(scenario_file):
    load(scenario_file).validate()


@pytest.mark.needs_core
def test_dumbbell_validates():
    dumbbell(n_flows=2, duration="1s").validate()


@pytest.mark.needs_core
def test_problems_are_collected_and_located(invalid_scenario_file):
    with pytest.raises(ScenarioError) as info:
        load(invalid_scenario_file).validate()
    paths = [p for p, _ in info.value.problems]
    assert len(paths) >= 3, info.value.problems  # every problem, not only the first
    assert "link[1].rate" in paths
    assert any(p.startswith("flow[0].cc") for p in paths)
    assert "nosuchcc" in str(info.value)


def test_explain_lists_every_resolved_parameter_with_its_origin(scenario_file):
    df = load(scenario_file).set("flow.f1.rto.min", "200ms").explain()
    assert list(df.columns) == ["flow", "key", "value", "origin"]
    row = lambda key: df[(df.flow == "f1") & (df.key == key)].iloc[0]  # noqa: E731
    assert (row("rto.min").value, row("rto.min").origin) == ('"200ms"', "explicit")
    assert (row("rto.max").value, row("rto.max").origin) == ('"60s"', "default")
    assert (row("cc.kind").value, row("recovery").value) == ('"reno"', '"newreno"')
    assert row("init_cwnd").value == "3"


def test_plain_documents_take_the_short_way_to_the_same_json_text():
    # `dumps_ready` skips json_ready's copy for a plain document; the text must be the one
    # the copy gives, and anything json_ready converts or refuses must take its way.
    import math

    import numpy as np

    from pathlib import Path

    from ccsim.scenario import MAX_DEPTH, _plain, dumps_ready, json_ready

    plain = {"simulation": {"duration": "10s", "seed": 3}, "flow": [{"name": "f", "paths": [("a", "b"), ["a", "c"]],
             "rate": 1.5, "on": True, "x": None, "n": 7}], "link": []}
    assert _plain(plain)
    assert dumps_ready(plain) == json.dumps(json_ready(plain), allow_nan=False)
    # a float subclass (numpy's float64) is written as the float it is, either way
    assert dumps_ready({"x": np.float64(2.0)}) == json.dumps(json_ready({"x": np.float64(2.0)}))
    for odd in ({"x": np.int64(2)}, {"x": math.inf}, {"x": [math.nan]},
                {"x": {"y": Path("p")}}):
        assert not _plain(odd), odd
        assert dumps_ready(odd) == json.dumps(json_ready(odd), allow_nan=False)
    assert not _plain({1: "a"})
    with pytest.raises(ScenarioError, match="keys are strings"):
        dumps_ready({1: "a"})
    deep: dict = {}
    d = deep
    for _ in range(MAX_DEPTH + 2):
        d["a"] = {}
        d = d["a"]
    assert not _plain(deep)
    assert dumps_ready(deep, cut_deep=True) == json.dumps(json_ready(deep, cut_deep=True), allow_nan=False)
    with pytest.raises(ScenarioError):
        dumps_ready(deep)
