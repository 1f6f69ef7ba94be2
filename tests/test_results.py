"""Result tables: schema, dtypes, saving, plots. Uses a stand-in for the native result,
plus runs through the real engine marked needs_core."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import ccsim
from ccsim.plot import plot_result
from ccsim.results import FLOW_COLUMNS, FLOW_SERIES_COLUMNS, LINK_COLUMNS, LINK_SERIES_COLUMNS, Result

SUMMARY_KEYS = {"version", "end_time_s", "seed", "events", "flows", "links", "conservation"}
CONSERVATION_KEYS = {"created", "delivered", "dropped", "in_flight"}
STR_FLOW = {"name", "transport", "cc", "recovery", "src", "dst"}
FLOAT_FLOW = {"start_s", "goodput_bps", "completion_time_s", "rtt_min_s", "rtt_mean_s", "rtt_max_s",
              "size_bytes", "fct_s", "ideal_fct_s", "slowdown", "rtt_p50_s", "rtt_p95_s", "rtt_p99_s"}


def check_schema(r: Result) -> None:
    """The schema every result has, whatever the scenario."""
    assert SUMMARY_KEYS <= set(r.summary)
    assert set(r.conservation) == CONSERVATION_KEYS

    flows = r.flows
    assert tuple(flows.columns[: len(FLOW_COLUMNS)]) == FLOW_COLUMNS
    for col in FLOW_COLUMNS:
        if col in STR_FLOW:
            assert pd.api.types.is_string_dtype(flows[col]), col
        elif col in FLOAT_FLOW:
            assert flows[col].dtype == np.float64, col
        else:
            assert flows[col].dtype == np.int64, col

    links = r.links
    assert tuple(links.columns[: len(LINK_COLUMNS)]) == LINK_COLUMNS
    assert pd.api.types.is_string_dtype(links["name"])
    assert links["utilisation"].dtype == np.float64
    for col in LINK_COLUMNS[1:]:
        if col != "utilisation" and not col.startswith("queue_delay_"):
            assert links[col].dtype == np.int64, col
        elif col.startswith("queue_delay_"):  # with [measure]; NaN otherwise
            assert links[col].dtype == np.float64, col

    fs = r.flow_series
    assert tuple(fs.columns[: len(FLOW_SERIES_COLUMNS)]) == FLOW_SERIES_COLUMNS
    assert isinstance(fs["flow"].dtype, pd.CategoricalDtype)
    assert list(fs["flow"].cat.categories) == list(flows["name"])
    for col in FLOW_SERIES_COLUMNS:
        if col != "flow":
            assert fs[col].dtype == np.float64, col

    ls = r.link_series
    assert tuple(ls.columns[: len(LINK_SERIES_COLUMNS)]) == LINK_SERIES_COLUMNS
    assert isinstance(ls["link"].dtype, pd.CategoricalDtype)
    assert list(ls["link"].cat.categories) == list(links["name"])
    for col in LINK_SERIES_COLUMNS:
        if col != "link":
            assert ls[col].dtype == np.float64, col


def test_schema(fake_result):
    check_schema(fake_result)


def test_schema_of_an_empty_result(empty_result):
    check_schema(empty_result)
    assert len(empty_result.flows) == 0 and len(empty_result.flow_series) == 0


def test_values(fake_result):
    flows = fake_result.flows
    assert list(flows["name"]) == ["f1", "f2"]
    assert flows.loc[0, "completion_time_s"] == 1.5
    assert np.isnan(flows.loc[1, "completion_time_s"])  # never completed
    assert np.isnan(flows.loc[1, "rtt_min_s"])  # no samples (JSON null)
    assert list(flows["drops_queue_overflow"]) == [3, 3]
    fs = fake_result.flow_series
    assert list(fs["flow"]) == ["f1"] * 3 + ["f2"] * 3
    assert list(fs.loc[fs["flow"] == "f2", "cwnd_bytes"]) == [4380, 2920, 4380]
    assert list(fake_result.link_series["queue_packets"]) == [0, 3, 5]
    assert fake_result.conservation["dropped"]["queue_overflow"] == 6


def test_save_writes_files_that_read_back(fake_result, tmp_path):
    out = tmp_path / "out" / "nested"
    written = fake_result.save(out)
    names = {p.name for p in written}
    assert names == {
        "summary.json",
        "flows.parquet",
        "links.parquet",
        "paths.parquet",
        "flow_series.parquet",
        "link_series.parquet",
        "backoffs.parquet",
    }
    assert all(p.exists() for p in written)
    assert json.loads((out / "summary.json").read_text()) == fake_result.summary
    for name in ("flows", "links", "paths", "flow_series", "link_series", "backoffs"):
        back = pd.read_parquet(out / f"{name}.parquet")
        assert list(back.columns) == list(getattr(fake_result, name).columns)
        assert len(back) == len(getattr(fake_result, name))
    back = pd.read_parquet(out / "flow_series.parquet")
    assert list(back["flow"].astype(str)) == ["f1"] * 3 + ["f2"] * 3
    assert back["cwnd_bytes"].dtype == np.float64


def test_save_includes_the_scenario_when_known(tmp_path):
    from conftest import make_fake_raw

    r = Result(make_fake_raw(), scenario=ccsim.Scenario({"simulation": {"duration": "1s"}}, "x.toml"))
    r.save(tmp_path)
    # The document itself, so that `ccsim run out/scenario.json` re-runs it.
    assert json.loads((tmp_path / "scenario.json").read_text()) == {"simulation": {"duration": "1s"}}


def _is_png(path) -> bool:
    return path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_result_writes_pngs(fake_result, tmp_path):
    paths = plot_result(fake_result, tmp_path)
    assert [p.name for p in paths] == ["cwnd.png", "rate.png", "queue.png"]
    assert all(_is_png(p) for p in paths)


def test_plot_result_without_samples(empty_result, tmp_path):
    assert all(_is_png(p) for p in plot_result(empty_result, tmp_path))


# ------------------------------------------------------------------ with the real engine


@pytest.mark.needs_core
def test_real_run_schema_and_conservation(scenario_file):
    r = ccsim.run(scenario_file, progress=False)
    check_schema(r)
    assert list(r.flows["name"]) == ["f1"]
    assert r.summary["end_time_s"] == pytest.approx(2.0)
    assert r.flows.loc[0, "bytes_delivered"] > 0
    c = r.conservation
    assert c["created"] == c["delivered"] + sum(c["dropped"].values()) + c["in_flight"]
    assert len(r.flow_series) > 0 and len(r.link_series) > 0
    assert r.wall_s is not None and r.wall_s > 0


@pytest.mark.needs_core
def test_run_accepts_scenario_dict_and_path(scenario_file):
    sc = ccsim.load(scenario_file)
    a = ccsim.run(sc, progress=False).summary
    b = ccsim.run(sc.doc, progress=False).summary
    c = ccsim.run(str(scenario_file), progress=False).summary
    assert a == b == c  # same seed, same results


@pytest.mark.needs_core
def test_chunked_run_matches_a_single_finish(scenario_file):
    sc = ccsim.load(scenario_file)
    one = ccsim._core.Simulation(sc.to_json(), sc.source).finish()
    chunked = ccsim.run(sc, progress=False)
    # Every result is the same; only the engine's event count may differ, because inline
    # endpoints stop at each pause and the packets straddling it take an event instead.
    whole = json.loads(one.summary_json())
    assert whole.pop("events") <= chunked.summary["events"]
    assert whole == {k: v for k, v in chunked.summary.items() if k != "events"}
    assert one.table("flows") == chunked._raw.table("flows")


@pytest.mark.needs_core
def test_progress_callback_is_called_per_chunk(scenario_file):
    calls = []
    ccsim.run(scenario_file, progress=lambda s, e, w: calls.append((s, e, w)))
    assert len(calls) == 100
    assert calls[-1][0] == pytest.approx(2.0) and calls[-1][1] == pytest.approx(2.0)
    assert [c[0] for c in calls] == sorted(c[0] for c in calls)


@pytest.mark.needs_core
def test_dumbbell_runs():
    r = ccsim.run(ccsim.dumbbell(n_flows=3, duration="2s"), progress=False)
    assert len(r.flows) == 3
    check_schema(r)
