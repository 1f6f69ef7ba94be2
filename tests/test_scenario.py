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
    sc.set("routing.metric", "hops")
    sc.set("link.0.queue.limit", "10p")
    assert sc.doc["routing"] == {"metric": "hops"}
    assert sc.doc["link"][0]["queue"] == {"limit": "10p"}


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


@pytest.mark.parametrize("params", [{"n_flows": 0}, {"n_flows": "many"}, {"no_such_parameter": 1}])
def test_dumbbell_rejects_bad_parameters(params):
    with pytest.raises(ValueError):
        dumbbell(**params)


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
