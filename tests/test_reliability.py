"""Issue 23: nothing a user types crashes ccsim. One test (or a few) per defect found by the
hostile-user review; each failed before its fix. docs/reliability.md cites them."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import ccsim
from ccsim import cli
from ccsim.results import load as load_results
from ccsim.scenario import Scenario
from tests.sweep_helpers import PLAN_12, write_plan

pytestmark = pytest.mark.needs_core

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "python" / "ccsim" / "scenarios"

# A 10 Gb/s constant-rate source into a 1 Mb/s link (the third memory case).
FLOOD = """\
[simulation]
duration = "DURATION"

[[link]]
between = ["s", "r"]
rate = "10Gbps"
delay = "1ms"

[[link]]
between = ["r", "d"]
rate = "1Mbps"
delay = "1ms"
queue = { kind = "droptail", limit = "LIMIT" }

[[flow]]
name = "NAME"
from = "s"
to = "d"
transport = "udp"
app = { kind = "cbr", rate = "RATE" }
"""


def flood(tmp_path: Path, duration="10s", limit="100p", name="u", rate="10Gbps", extra="", file="s.toml") -> Path:
    p = tmp_path / file
    text = FLOOD.replace("DURATION", duration).replace("LIMIT", limit).replace("RATE", rate)
    p.write_text(text.replace('"NAME"', json.dumps(name)) + extra)
    return p


def ccsim_cmd(*args: str, timeout: float = 120, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, **kw.pop("env", {})}
    return subprocess.run([sys.executable, "-m", "ccsim", *args], capture_output=True, text=True, timeout=timeout, env=env, **kw)


def clean_error(r: subprocess.CompletedProcess, code: int = 2) -> str:
    """The command failed with ``code`` and a message, and no traceback or panic."""
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and "panicked" not in r.stderr, r.stderr
    assert r.stderr.strip(), "an error says what is wrong"
    return r.stderr


# ---------------------------------------------------------------------------- 1. memory


def test_memory_a_very_long_trace_is_refused_at_validation_naming_the_interval(tmp_path):
    p = flood(tmp_path, duration="1000000000s", rate="1Mbps")
    err = clean_error(ccsim_cmd("validate", str(p)))
    assert "trace.interval" in err and "memory limit" in err and "trace.max_samples" in err


def test_memory_a_1ns_trace_interval_is_refused(tmp_path):
    p = flood(tmp_path, rate="1Mbps", extra='\n[trace]\ninterval = "1ns"\n')
    err = clean_error(ccsim_cmd("validate", str(p)))
    assert "trace.interval" in err


def test_memory_max_samples_keeps_a_long_run_traced_at_a_coarser_interval(tmp_path):
    p = flood(tmp_path, duration="1000000000s", rate="1Mbps", extra="\n[trace]\nmax_samples = 1000\n")
    r = ccsim_cmd("validate", str(p))
    assert r.returncode == 0, r.stderr
    sc = ccsim.scenario.load(flood(tmp_path, duration="20s", rate="1Mbps", extra="\n[trace]\nmax_samples = 11\n", file="short.toml"))
    series = ccsim.run(sc, progress=False).link_series
    assert sorted(series["time_s"].unique()) == pytest.approx([2.0 * i for i in range(11)])


def test_memory_a_queue_the_source_can_fill_is_refused(tmp_path):
    p = flood(tmp_path, duration="1000s", limit="1000000000000p")
    err = clean_error(ccsim_cmd("validate", str(p)))
    assert "r->d" in err and "queue" in err


def test_memory_an_explicit_limit_is_a_documented_setting(tmp_path):
    p = flood(tmp_path, duration="10s", limit="1000000000000p", extra="")
    text = p.read_text().replace('duration = "10s"', 'duration = "10s"\nmemory_limit = "100MB"')
    p.write_text(text)
    err = clean_error(ccsim_cmd("validate", str(p)))
    assert "simulation.memory_limit" in err
    p.write_text(text.replace('"100MB"', '"10KB"'))
    assert "allowed memory_limit ≥ 1MiB" in clean_error(ccsim_cmd("validate", str(p)))


# Packets in flight on a 1000 s link are not in the validation estimate; the run-time guard
# stops the run when they outgrow the limit.
PLANETARY = FLOOD.replace('rate = "1Mbps"\ndelay = "1ms"', 'rate = "10Gbps"\ndelay = "1000s"')


def test_memory_the_run_time_guard_stops_cleanly_with_exit_1_and_a_sim_error(tmp_path):
    p = tmp_path / "far.toml"
    p.write_text(PLANETARY.replace("DURATION", "1100s").replace("LIMIT", "100p").replace("RATE", "1Gbps").replace('"NAME"', '"u"')
                 .replace('duration = "1100s"', 'duration = "1100s"\nmemory_limit = "64MiB"'))
    assert ccsim_cmd("validate", str(p)).returncode == 0
    err = clean_error(ccsim_cmd("run", str(p), "-q"), code=1)
    assert err.startswith("error: the run was stopped at") and "queued packets" in err, err
    assert len(err.strip().splitlines()) == 1
    with pytest.raises(ccsim.SimError, match="memory limit"):
        ccsim.run(p, progress=False)


# ---------------------------------------------------------------------------- 2. nesting


@pytest.mark.parametrize("text", [
    "a = " + "[" * 500 + "]" * 500,
    "a = " + "{b = " * 500 + "1" + "}" * 500,
])
def test_deep_toml_is_one_clean_error(tmp_path, text):
    p = tmp_path / "deep.toml"
    p.write_text(text)
    assert "nested more than 32" in clean_error(ccsim_cmd("validate", str(p)))


def test_deep_json_is_one_clean_error(tmp_path):
    p = tmp_path / "deep.json"
    p.write_text('{"a": ' + "[" * 990 + "]" * 990 + "}")
    assert "nested more than 32" in clean_error(ccsim_cmd("validate", str(p)))


def test_deep_values_through_the_api_raise_scenario_error():
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    sc = Scenario({"simulation": {"duration": "1s"}, "x": deep})
    with pytest.raises(ccsim.ScenarioError, match="nested more than 32"):
        sc.validate()  # through to_json
    with pytest.raises(ccsim.ScenarioError, match="nested more than 32"):
        sc.copy()
    cyclic: dict = {"simulation": {"duration": "1s"}}
    cyclic["again"] = cyclic
    with pytest.raises(ccsim.ScenarioError):
        Scenario(cyclic).validate()


# ---------------------------------------------------------------------------- 3. concurrent sweeps

# 48 points of 20 simulated seconds: a sweep that runs for several seconds
SLOW_PLAN = PLAN_12.replace('name = "twelve"', 'name = "slow"').replace("seeds = 2", "seeds = 8")
OTHER_PLAN = PLAN_12.replace('name = "twelve"', 'name = "other"').replace("seeds = 2", "seeds = 1")


def wait_for_points(out: Path, n: int, proc: subprocess.Popen, deadline_s: float = 60) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end and proc.poll() is None:
        if (out / "points").is_dir() and len(list((out / "points").glob("*.json"))) >= n:
            return
        time.sleep(0.02)
    raise AssertionError(f"the first sweep did not get going: {proc.poll()}")


@pytest.mark.parametrize("second", ["same plan", "other plan with --resume"])
def test_a_second_sweep_into_a_busy_store_is_refused_and_nothing_is_lost(tmp_path, second):
    # 600 simulated seconds a point: the first sweep must still be running when the second
    # command has started up, also on a loaded machine (at 20 s it once finished first)
    plan = write_plan(tmp_path, SLOW_PLAN, duration="600s")
    other = tmp_path / "other.toml"
    other.write_text(OTHER_PLAN)
    out = tmp_path / "store"
    first = subprocess.Popen([sys.executable, "-m", "ccsim", "sweep", str(plan), "--out", str(out), "--jobs", "1", "-q"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_points(out, 1, first)
        args = [str(plan)] if second == "same plan" else [str(other), "--resume"]
        r = ccsim_cmd("sweep", *args, "--out", str(out), "--jobs", "1", "-q")
        err = clean_error(r)
        assert "in use by another ccsim sweep" in err and f"pid {first.pid}" in err, err
    finally:
        _, first_err = first.communicate(timeout=300)
    assert first.returncode == 0, first_err
    # the refused sweep changed nothing; run now, it adds its plan beside the first
    r = ccsim_cmd("sweep", str(other), "--out", str(out), "--jobs", "1", "-q", "--resume")
    assert r.returncode == 0, r.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert [p["name"] for p in manifest["plans"][0]["plans"]] == ["slow"]
    assert len(manifest["plans"]) == 2
    slow_id = manifest["plans"][0]["plan_id"]
    assert load_results(out, table="points", plan=slow_id)["status"].eq("ok").sum() == 48
    assert load_results(out, table="points")["status"].eq("ok").sum() == 6


def test_a_killed_sweep_leaves_no_lock_behind(tmp_path):
    plan = write_plan(tmp_path, SLOW_PLAN, duration="20s")
    out = tmp_path / "store"
    first = subprocess.Popen([sys.executable, "-m", "ccsim", "sweep", str(plan), "--out", str(out), "--jobs", "1", "-q"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for_points(out, 1, first)
    finally:
        first.kill()
        first.wait(timeout=30)
    r = ccsim_cmd("sweep", str(plan), "--out", str(out), "--jobs", "2", "-q")
    assert r.returncode == 0, r.stderr
    assert load_results(out, table="points")["status"].eq("ok").all()


# ---------------------------------------------------------------------------- 4. unwritable output


def _boom(*_a, **_k):
    raise PermissionError(13, "Permission denied")


@pytest.mark.parametrize("case", ["new store", "existing store", "resume"])
def test_unwritable_sweep_store_is_exit_2_one_line(tmp_path, monkeypatch, capsys, case):
    plan = write_plan(tmp_path)
    out = tmp_path / "store"
    if case != "new store":
        assert cli.main(["sweep", str(plan), "--out", str(out), "--jobs", "1", "-q"]) == 0
        capsys.readouterr()
    monkeypatch.setattr(os, "open", _boom)
    monkeypatch.setattr(Path, "mkdir", _boom)
    args = ["sweep", str(plan), "--out", str(out), "--jobs", "1", "-q"] + (["--resume"] if case == "resume" else [])
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("error: ") and "Permission denied" in err, err


def test_an_out_path_through_a_file_is_exit_2(tmp_path):
    plan = write_plan(tmp_path)
    (tmp_path / "file").write_text("x")
    err = clean_error(ccsim_cmd("sweep", str(plan), "--out", str(tmp_path / "file" / "store"), "--jobs", "1", "-q"))
    assert len(err.strip().splitlines()) == 1
    err = clean_error(ccsim_cmd("reproduce", "foundation", "--quick", "--jobs", "1", "-q", "--out", str(tmp_path / "file" / "r")))
    assert len(err.strip().splitlines()) == 1


def test_unwritable_reproduce_output_is_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(Path, "mkdir", _boom)
    monkeypatch.setattr(os, "open", _boom)
    assert cli.main(["reproduce", "foundation", "--quick", "--jobs", "1", "-q", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("error: "), err


# ---------------------------------------------------------------------------- 5. plot names


def test_plot_draws_names_as_written(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    from ccsim import plot

    names = ["$\\foo{$", "$x$", "_hidden", "plain"]
    doc = ccsim.dumbbell(n_flows=4, duration="1s").doc
    for f, n in zip(doc["flow"], names):
        f["name"] = n
    seen = []
    real_finish = plot._finish

    def spy(ax, lines, empty):
        real_finish(ax, lines, empty)
        if ax.get_legend() is not None:
            seen.append([(t.get_text(), t.get_parse_math()) for t in ax.get_legend().get_texts()])

    monkeypatch.setattr(plot, "_finish", spy)
    pngs = plot.plot_result(ccsim.run(doc, progress=False), tmp_path)
    assert all(p.exists() for p in pngs)
    assert seen[0] == [(n, False) for n in names]


# ---------------------------------------------------------------------------- 6. control characters


@pytest.mark.parametrize("char", ["\x1b", "\x07", "\r", "\n", "\x00", "\u202e"])
def test_control_characters_in_names_are_refused_and_never_printed(tmp_path, char):
    p = flood(tmp_path, name=f"a{char}[2Jb", rate="1Mbps")
    err = clean_error(ccsim_cmd("validate", str(p)))
    assert "flow[0].name" in err and "control character" in err
    if char == "\n":
        assert len(err.strip().splitlines()) == 2  # the heading and the one problem
    else:
        assert char not in err


# ---------------------------------------------------------------------------- 7. NaN and infinity


def test_nan_and_inf_in_toml_name_the_key_and_hide_nothing(tmp_path):
    p = flood(tmp_path, rate="fast")
    p.write_text(p.read_text().replace('delay = "1ms"\nqueue', 'delay = "1ms"\nloss = nan\nqueue'))
    err = clean_error(ccsim_cmd("validate", str(p)))
    assert "link[1].loss: the number nan is not allowed" in err
    assert "flow[0].app.rate" in err  # the other problem is reported too
    assert "invalid JSON" not in err


def test_nan_through_the_api_names_the_key():
    # Scenario.set checks the value at once, so each bad value is refused where it is set.
    for key, value, where in [("link.0.loss", float("nan"), "link[0].loss"),
                              ("flow.0.app.size", math.inf, "flow[0].app.size")]:
        sc = ccsim.dumbbell(n_flows=1, duration="1s")
        with pytest.raises(ccsim.ScenarioError) as e:
            sc.set(key, value)
        paths = [p for p, _ in e.value.problems]
        assert where in paths, e.value.problems


# ---------------------------------------------------------------------------- 8. unbounded reads


def test_reading_dev_zero_stops_at_the_limit():
    t0 = time.monotonic()
    err = clean_error(ccsim_cmd("validate", "/dev/zero", timeout=60))
    assert "larger than 16 MiB" in err
    assert time.monotonic() - t0 < 30


def test_a_plan_from_dev_zero_stops_at_the_limit():
    assert "larger than 16 MiB" in clean_error(ccsim_cmd("sweep", "/dev/zero", "--jobs", "1", timeout=60))


# ---------------------------------------------------------------------------- 9. plans and stores


def test_a_plan_of_invalid_utf8_or_deep_nesting_is_one_clean_error(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b'base = "x.toml"\nname = "\xff\xfe"\n')
    assert "not UTF-8" in clean_error(ccsim_cmd("sweep", str(bad)))
    bad.write_text("x = " + "[" * 600 + "]" * 600)
    assert "nested more than" in clean_error(ccsim_cmd("sweep", str(bad)))
    bad.write_text("x = " + "[" * 40 + "]" * 40)
    assert "nested more than 32" in clean_error(ccsim_cmd("sweep", str(bad)))


@pytest.fixture
def finished_store(tmp_path):
    plan = write_plan(tmp_path)
    out = tmp_path / "store"
    assert cli.main(["sweep", str(plan), "--out", str(out), "--jobs", "1", "-q"]) == 0
    return plan, out


def resume(plan: Path, out: Path) -> subprocess.CompletedProcess:
    return ccsim_cmd("sweep", str(plan), "--out", str(out), "--jobs", "1", "-q")


@pytest.mark.parametrize("manifest", ["{not json", "[1, 2]", '{"format": 1, "plans": "x", "points": {}}',
                                      '{"format": 1, "plans": [{"plan_id": 3}], "points": {}}'])
def test_a_bad_manifest_is_rebuilt_from_the_records(finished_store, manifest):
    plan, out = finished_store
    before = load_results(out)
    (out / "manifest.json").write_text(manifest)
    # reading works at once (rebuilt in memory), and a sweep repairs the file
    assert len(load_results(out, plan="all")) == len(before)
    r = resume(plan, out)
    assert r.returncode == 0 and "rebuilt from the point records" in r.stderr, r.stderr
    assert list((out / "damaged").iterdir())
    after = load_results(out)
    assert sorted(after["point_id"]) == sorted(before["point_id"])
    assert json.loads((out / "manifest.json").read_text())["format"] == 1


@pytest.mark.parametrize("damage", ["truncate parquet", "record of the wrong shape", "record not json"])
def test_damaged_points_are_moved_aside_and_run_again(finished_store, damage):
    plan, out = finished_store
    before = load_results(out)
    victim = sorted((out / "points").glob("*.json"))[0]
    pid = victim.stem
    if damage == "truncate parquet":
        f = out / "points" / f"{pid}.flows.parquet"
        f.write_bytes(f.read_bytes()[:100])
    elif damage == "record of the wrong shape":
        victim.write_text(json.dumps({"id": pid, "status": "ok", "index": "zero", "tables": ["flows"]}))
    else:
        victim.write_text("{")
    r = resume(plan, out)
    assert r.returncode == 0, r.stderr
    assert f"point {pid}" in r.stderr and "damaged" in r.stderr
    after = load_results(out)
    assert len(after) == len(before)
    pd_equal = after.sort_values(["point_id", "name"]).reset_index(drop=True)
    ref = before.sort_values(["point_id", "name"]).reset_index(drop=True)
    assert pd_equal["bytes_delivered"].tolist() == ref["bytes_delivered"].tolist()  # rerun, same seed
    assert (out / "damaged").is_dir()


def test_load_of_a_damaged_table_is_a_store_error_naming_the_file(finished_store):
    plan, out = finished_store
    f = sorted((out / "points").glob("*.flows.parquet"))[0]
    f.write_bytes(b"PAR1" + b"\0" * 10)
    with pytest.raises(ccsim.store.StoreError, match=f.name):
        load_results(out)


# ---------------------------------------------------------------------------- 10. unbounded settings


@pytest.mark.parametrize("key", ["announce_interval", "adapt_interval"])
@pytest.mark.parametrize("value", ["1ns", "1us"])
def test_distance_vector_intervals_are_bounded(tmp_path, key, value):
    text = (SCENARIOS / "fast_multipath_rip.toml").read_text()
    text = text.replace(f'{key} = "500ms"', f'{key} = "{value}"')
    p = tmp_path / "dv.toml"
    p.write_text(text)
    err = clean_error(ccsim_cmd("validate", str(p)))
    assert f"routing.{key}" in err and "timer rounds" in err


@pytest.mark.parametrize("body", ["seeds = 1000000000000\n",
                                  '[grid]\n"link.bottleneck.loss" = [GRID]\n"link.bottleneck.delay" = [GRID]\n'])
def test_huge_plans_are_refused_at_once_with_the_count(tmp_path, body):
    body = body.replace("GRID", ", ".join(["0.0"] * 2000))
    plan = write_plan(tmp_path, f'base = "two_flows.toml"\n{body}')
    t0 = time.monotonic()
    err = clean_error(ccsim_cmd("sweep", str(plan), "--jobs", "1"))
    assert "more than the 100,000 one sweep may have" in err
    assert ("1,000,000,000,000 points" in err) or ("4,000,000 points" in err), err
    assert time.monotonic() - t0 < 30


# ---------------------------------------------------------------------------- 11. small


def test_a_rate_below_the_resolution_suggests_a_value_that_is_accepted(tmp_path):
    p = flood(tmp_path, rate="0.4bps")
    err = clean_error(ccsim_cmd("validate", str(p)))
    assert '"1bps"' in err and "0bps" not in err
    p.write_text(p.read_text().replace("0.4bps", "1bps"))
    assert ccsim_cmd("validate", str(p)).returncode == 0


def test_the_reproduce_readme_shows_any_store_path_as_written():
    from ccsim.report import _md_code

    assert _md_code("out/a`b") == "``out/a`b``"
    assert _md_code("`x") == "`` `x ``"
    assert "\n" not in _md_code("a\nb")
