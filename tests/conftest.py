"""Shared fixtures: scenario files written into tmp_path, and a stand-in for the native
RawResult so result handling is tested without the engine."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from ccsim.results import Result

VALID_TOML = """\
[simulation]
duration = "2s"
seed = 1

[trace]
interval = "100ms"
flows = "all"
links = "all"

[[link]]
between = ["s1", "r1"]
rate = "1Gbps"
delay = "5ms"

[[link]]
between = ["r1", "d1"]
rate = "10Mbps"
delay = "20ms"
queue = { kind = "droptail", limit = "100p" }
loss = 0.001

[[flow]]
name = "f1"
from = "s1"
to = "d1"
transport = "tcp"
cc = "reno"
recovery = "newreno"
app = { kind = "bulk", size = "1MB", start = "0s" }
"""

# Well-formed TOML, invalid scenario: unknown controller, bad rate, unknown node.
INVALID_TOML = VALID_TOML.replace('cc = "reno"', 'cc = "nosuchcc"').replace(
    'rate = "10Mbps"', 'rate = "fast"'
).replace('to = "d1"', 'to = "nowhere"')

# Line 5 is broken: a key without a value.
SYNTAX_ERROR_TOML = """\
[simulation]
duration = "2s"

[[link]]
between =
rate = "1Gbps"
"""


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    p = tmp_path / "valid.toml"
    p.write_text(VALID_TOML)
    return p


@pytest.fixture
def invalid_scenario_file(tmp_path: Path) -> Path:
    p = tmp_path / "invalid.toml"
    p.write_text(INVALID_TOML)
    return p


@pytest.fixture
def syntax_error_file(tmp_path: Path) -> Path:
    p = tmp_path / "broken.toml"
    p.write_text(SYNTAX_ERROR_TOML)
    return p


def _drops(**nonzero: int) -> dict[str, int]:
    d = dict.fromkeys(["queue_overflow", "red", "random_loss", "scripted_loss", "no_route", "link_down", "aqm"], 0)
    d.update(nonzero)
    return d


def _flow(name: str, completion: float | None, rtt: float) -> dict:
    return {
        "name": name, "transport": "tcp", "cc": "reno", "recovery": "sack", "src": "s", "dst": "d",
        "start_s": 0.0, "bytes_delivered": 1_000_000, "goodput_bps": 8e6, "completion_time_s": completion,
        "data_packets_sent": 700, "retransmissions": 3, "fast_recoveries": 1, "timeouts": 0,
        "drops": _drops(queue_overflow=3), "rtt_min_s": rtt, "rtt_mean_s": rtt, "rtt_max_s": rtt,
        "connections": 1,
    }


class FakeRaw:
    """Behaves like ``ccsim._core.RawResult``: summary JSON (NaN as null) and f64 LE column bytes."""

    def __init__(self, summary: dict, tables: dict[str, dict[str, list[float]]]) -> None:
        self._summary = summary
        self._tables = tables

    def summary_json(self) -> str:
        def nan_to_null(x):
            if isinstance(x, float) and math.isnan(x):
                return None
            if isinstance(x, dict):
                return {k: nan_to_null(v) for k, v in x.items()}
            if isinstance(x, list):
                return [nan_to_null(v) for v in x]
            return x

        return json.dumps(nan_to_null(self._summary))

    def table(self, name: str) -> dict[str, bytes]:
        return {k: np.asarray(v, dtype="<f8").tobytes() for k, v in self._tables[name].items()}


def make_fake_raw(empty: bool = False) -> FakeRaw:
    if empty:
        summary = {
            "version": "0.1.0", "end_time_s": 1.0, "seed": 1, "events": 0, "flows": [], "links": [],
            "conservation": {"created": 0, "delivered": 0, "dropped": _drops(), "in_flight": 0},
        }
        return FakeRaw(summary, {"flows": {}, "links": {}})
    summary = {
        "version": "0.1.0", "end_time_s": 2.0, "seed": 7, "events": 12345,
        "flows": [_flow("f1", 1.5, 0.05), _flow("f2", None, float("nan"))],
        "links": [
            {"name": "r1->r2", "packets_in": 1400, "packets_out": 1394, "bytes_out": 2_000_000,
             "utilisation": 0.8, "drops": _drops(queue_overflow=6)},
            {"name": "r2->r1", "packets_in": 700, "packets_out": 700, "bytes_out": 28_000,
             "utilisation": 0.01, "drops": _drops()},
        ],
        "conservation": {"created": 2100, "delivered": 2090, "dropped": _drops(queue_overflow=6), "in_flight": 4},
    }
    t = [0.0, 0.1, 0.2]
    flows = {
        "time_s": t + t, "flow": [0, 0, 0, 1, 1, 1], "cwnd_bytes": [4380, 5840, 7300, 4380, 2920, 4380],
        "ssthresh_bytes": [1e9] * 6, "srtt_s": [0.05] * 6, "rate_bps": [1e6] * 6,
    }
    links = {"time_s": t, "link": [0, 0, 0], "queue_packets": [0, 3, 5], "queue_bytes": [0, 4500, 7500]}
    return FakeRaw(summary, {"flows": flows, "links": links})


@pytest.fixture
def fake_result() -> Result:
    return Result(make_fake_raw())


@pytest.fixture
def empty_result() -> Result:
    return Result(make_fake_raw(empty=True))
