"""The ccsim command: exit codes, messages, output files."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

from ccsim.cli import format_bench, format_summary, main

from conftest import make_fake_raw


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ bad input: exit 2


@pytest.mark.parametrize("command", ["run", "validate"])
def test_missing_file_exits_2(capsys, tmp_path, command):
    code, out, err = run_cli(capsys, command, str(tmp_path / "nope.toml"))
    assert code == 2
    assert "file not found" in err and "nope.toml" in err
    assert "Traceback" not in err + out


@pytest.mark.parametrize("command", ["run", "validate"])
def test_syntax_error_exits_2_with_location(capsys, syntax_error_file, command):
    code, _, err = run_cli(capsys, command, str(syntax_error_file))
    assert code == 2
    assert "line 5, column" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("command", ["run", "validate"])
def test_invalid_scenario_exits_2_with_problems(capsys, invalid_scenario_file, command):
    code, out, err = run_cli(capsys, command, str(invalid_scenario_file))
    assert code == 2
    assert "problem" in err and str(invalid_scenario_file) in err
    assert "Traceback" not in err + out
    assert "OK" not in out


@pytest.mark.needs_core
def test_invalid_scenario_lists_every_problem(capsys, invalid_scenario_file):
    code, _, err = run_cli(capsys, "validate", str(invalid_scenario_file))
    assert code == 2
    for where in ("link[1].rate", "flow[0].cc"):
        assert where in err


@pytest.mark.parametrize(
    "argv",
    [[], ["frobnicate"], ["run"], ["run", "a.toml", "--no-such-option"], ["bench", "--only", "nope"],
     ["bench", "--repeat", "0"], ["bench", "--repeat", "x"]],
)
def test_bad_arguments_exit_2(capsys, argv):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2
    assert err  # usage or help on stderr
    assert "Traceback" not in err


def test_help_exits_0(capsys):
    code, out, _ = run_cli(capsys, "--help")
    assert code == 0 and "validate" in out and "bench" in out


def test_python_dash_m(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "ccsim", "validate", str(tmp_path / "nope.toml")], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert "file not found" in proc.stderr and "Traceback" not in proc.stderr


def test_write_failure_is_bad_input(capsys, tmp_path, monkeypatch, fake_result):
    """--out naming a file: a clear message and exit 2, not a traceback."""
    import ccsim.api

    monkeypatch.setattr(ccsim.api, "run", lambda sc, progress=None, threads=None: fake_result)
    scenario = tmp_path / "s.toml"
    scenario.write_text("[simulation]\n")
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, _, err = run_cli(capsys, "run", str(scenario), "--out", str(blocker))
    assert code == 2 and "cannot write results" in err


# ------------------------------------------------------------------ formatting


def test_format_summary():
    import json

    summary = json.loads(make_fake_raw().summary_json())
    text = format_summary(summary, wall_s=0.5)
    for piece in ["f1", "f2", "tcp/reno/sack", "8.00", "1,000,000", "50.0", "r1->r2", "80.0",
                  "queue_overflow 6", "created 2,100", "in flight 4", "conserved", "12,345 events",
                  "24,690 events/s"]:
        assert piece in text, piece
    assert "NOT CONSERVED" not in text


def test_format_bench():
    row = {"name": "dumbbell-16", "runs": 3, "median_s": 1.5, "min_s": 1.4, "max_s": 1.7, "events": 10,
           "delivered": 3_000_000, "delivered_per_s": 2e6, "data_packets_per_s": 1e6, "events_per_s": 5e6,
           "peak_rss_bytes": 100 * 2**20, "baseline_rss_bytes": 60 * 2**20}
    text = format_bench([row])
    assert "dumbbell-16" in text and "2,000,000" in text and "100.0" in text and "1.500" in text


# ------------------------------------------------------------------ with the real engine


@pytest.mark.needs_core
def test_validate_valid_exits_0(capsys, scenario_file):
    code, out, _ = run_cli(capsys, "validate", str(scenario_file))
    assert code == 0 and out.startswith("OK")


_STACK_TOML = """
[simulation]
duration = "1s"
stack = "ns2"

[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "10ms"

[[flow]]
name = "n"
from = "a"
to = "b"
count = 2
app = "bulk"
rto = { min = "1s" }

[[flow]]
name = "l"
from = "a"
to = "b"
stack = "linux"
app = "bulk"
"""


def _explained(out: str) -> dict[str, dict[str, tuple[str, str]]]:
    """flow header -> key -> (value, origin), from ``validate --explain`` output."""
    flows: dict[str, dict[str, tuple[str, str]]] = {}
    current: dict[str, tuple[str, str]] = {}
    for line in out.splitlines()[1:]:
        if line.startswith("flow "):
            current = flows.setdefault(line[len("flow ") : -1], {})
        else:
            key, value, origin = line.split(None, 2)
            current[key] = (value, origin)
    return flows


@pytest.mark.needs_core
def test_validate_explain_prints_every_parameter_and_its_origin(capsys, tmp_path):
    p = tmp_path / "stack.toml"
    p.write_text(_STACK_TOML)
    code, out, _ = run_cli(capsys, "validate", "--explain", str(p))
    assert code == 0 and out.startswith("OK")
    flows = _explained(out)
    # the two copies of a counted entry have the same parameters: shown once
    assert list(flows) == ["n.0 … n.1", "l"]
    n, lx = flows["n.0 … n.1"], flows["l"]
    assert n["stack"] == ('"ns2"', "profile [simulation] stack")
    assert n["rto.min"] == ('"1s"', "explicit")
    assert n["rto.initial"] == ('"3s"', "profile ns2")
    assert n["cc.counting"] == ('"per_ack"', "profile ns2")
    assert n["dupthresh"] == ("3", "default")
    assert lx["stack"] == ('"linux"', "explicit")
    assert lx["init_cwnd"] == ("10", "profile linux")
    assert lx["rto.min"] == ('"200ms"', "profile linux")
    # the same from Python
    from ccsim.scenario import load

    df = load(p).explain()
    row = df[(df.flow == "l") & (df.key == "mss")].iloc[0]
    assert (row.value, row.origin) == ('"1448B"', "profile linux")


@pytest.mark.needs_core
def test_validate_explain_of_an_invalid_file_exits_2(capsys, invalid_scenario_file):
    code, out, err = run_cli(capsys, "validate", "--explain", str(invalid_scenario_file))
    assert code == 2 and out == "" and "Traceback" not in err


@pytest.mark.needs_core
def test_run_valid_exits_0_and_prints_summary(capsys, scenario_file):
    code, out, err = run_cli(capsys, "run", str(scenario_file))
    assert code == 0
    assert "f1" in out and "r1->d1" in out and "conserved" in out
    assert "NOT CONSERVED" not in out


@pytest.mark.needs_core
def test_run_quiet_prints_nothing(capsys, scenario_file):
    code, out, err = run_cli(capsys, "run", str(scenario_file), "--quiet")
    assert code == 0 and out == "" and err == ""


@pytest.mark.needs_core
def test_run_out_and_plot(capsys, scenario_file, tmp_path):
    out_dir = tmp_path / "results"
    code, _, _ = run_cli(capsys, "run", str(scenario_file), "--out", str(out_dir), "--plot")
    assert code == 0
    for name in ("summary.json", "flows.parquet", "links.parquet", "flow_series.parquet",
                 "link_series.parquet", "cwnd.png", "queue.png"):
        assert (out_dir / name).stat().st_size > 0, name
    assert list(pd.read_parquet(out_dir / "flows.parquet")["name"]) == ["f1"]


@pytest.mark.needs_core
def test_plot_without_out_uses_default_dir(capsys, scenario_file, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, _ = run_cli(capsys, "run", str(scenario_file), "--plot", "--quiet")
    assert code == 0
    assert (tmp_path / "ccsim-out" / "cwnd.png").exists()
    assert (tmp_path / "ccsim-out" / "queue.png").exists()


@pytest.mark.needs_core
def test_bench_one_repeat(capsys):
    code, out, _ = run_cli(capsys, "bench", "--repeat", "1", "--only", "dumbbell-64-1g")
    assert code == 0
    assert "dumbbell-64-1g" in out and "peak RSS" in out


def test_run_with_a_stand_in_engine_writes_results_and_plots(capsys, tmp_path, monkeypatch, fake_result):
    """The whole `run --out --plot` path, with the engine replaced by a canned result."""
    import ccsim.api

    monkeypatch.setattr(ccsim.api, "run", lambda sc, progress=None, threads=None: fake_result)
    scenario = tmp_path / "s.toml"
    scenario.write_text("[simulation]\n")
    out_dir = tmp_path / "out"
    code, out, _ = run_cli(capsys, "run", str(scenario), "--out", str(out_dir), "--plot")
    assert code == 0
    assert "f1" in out and "Plots:" in out
    for name in ("summary.json", "flows.parquet", "links.parquet", "flow_series.parquet",
                 "link_series.parquet", "cwnd.png", "queue.png"):
        assert (out_dir / name).stat().st_size > 0, name
    assert (out_dir / "cwnd.png").read_bytes()[:4] == b"\x89PNG"
