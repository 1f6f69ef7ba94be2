"""The kernel bench's scenarios as data (benches/linux/scenarios.py): the file format, its
errors, and the bench building its ccsim side and tables from a scenario it was given. Fast,
no root, no network."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benches" / "linux"))
import scenarios as S  # noqa: E402

GOOD = """
[[scenario]]
name = "r20-d30"
description = "1 flow, 1 BDP"
rate = "20Mbps"
delay = "30ms"
queue = 100

[[scenario]]
name = "pair-lossy"
rate = "5000kbps"
delay = "0.015s"
queue = 20
loss = 0.005
extra_delay = ["0ms", "10ms"]
"""


def write(tmp_path, text):
    f = tmp_path / "s.toml"
    f.write_text(text)
    return f


@pytest.mark.needs_core  # units read by ccsim._units
def test_a_file_gives_its_scenarios_with_units_read(tmp_path):
    out = S.load_file(write(tmp_path, GOOD))
    a, b = out["r20-d30"], out["pair-lossy"]
    assert (a.rate_bps, a.one_way_ms, a.limit, a.loss, a.extra_ms, a.flows) == (20_000_000, 30.0, 100, 0.0, (0.0,), 1)
    assert (b.rate_bps, b.one_way_ms, b.limit, b.loss, b.extra_ms, b.flows) == (5_000_000, 15.0, 20, 0.005,
                                                                                 (0.0, 10.0), 2)
    assert S.BenchScenario.from_json(json.loads(json.dumps(b.to_json()))) == b


@pytest.mark.needs_core
@pytest.mark.parametrize("change, message", [
    (('queue = 100', 'queue = 100\nbuffer = 3'), "unknown key(s) ['buffer']"),
    (('name = "r20-d30"', 'name = "q33"'), "a built-in scenario's name"),
    (('rate = "20Mbps"', 'rate = "200Mbps"'), "scenario[0] (r20-d30).rate: 200 Mb/s is outside [1, 100] Mb/s"),
    (('rate = "20Mbps"', 'rate = "20 furlongs"'), ".rate: '20 furlongs' is not a quantity like '20Mbps'"),
    (('delay = "30ms"', 'delay = 30'), ".delay: 30 is not a quantity"),
    (('queue = 100', 'queue = 2.5'), ".queue: 2.5 is not a whole number of packets"),
    (('loss = 0.005', 'loss = 0.5'), "scenario[1] (pair-lossy).loss: 0.5 is outside [0, 0.2]"),
    (('extra_delay = ["0ms", "10ms"]', 'extra_delay = ["0ms", "0ms", "0ms", "0ms", "0ms"]'),
     "extra_delay: a list of 1–4 delays"),
    (('name = "pair-lossy"', 'name = "r20-d30"'), "'r20-d30' appears twice"),
    (('name = "r20-d30"', 'name = "no spaces"'), ".name: 'no spaces': 1–40 letters"),
    (('queue = 20\n', ''), "scenario[1]: `queue` is required"),
])
def test_a_wrong_field_is_named_with_its_file_and_scenario(tmp_path, change, message):
    f = write(tmp_path, GOOD.replace(*change, 1))
    with pytest.raises(S.ScenarioFileError) as e:
        S.load_file(f)
    assert str(e.value).startswith(str(f)) and message in str(e.value)


def test_a_file_that_is_not_toml_or_has_no_scenario_says_so(tmp_path):
    with pytest.raises(S.ScenarioFileError, match="not TOML"):
        S.load_file(write(tmp_path, "[[scenario]\n"))
    with pytest.raises(S.ScenarioFileError, match=r"one or more \[\[scenario\]\] tables, found \['scenarios'\]"):
        S.load_file(write(tmp_path, "[[scenarios]]\nname='x'\n"))
    with pytest.raises(S.ScenarioFileError, match="No such file"):
        S.load_file(tmp_path / "missing.toml")


@pytest.mark.needs_core
def test_the_bench_builds_ccsim_and_its_tables_from_a_given_scenario(tmp_path):
    import ccsim
    import kernel_bench as kb

    for sc in S.load_file(write(tmp_path, GOOD)).values():
        kb.register(sc, "test")
    doc = kb.ccsim_doc("pair-lossy", "cubic", 5.0, 1, [0.0, 0.0], profile="linux")
    ccsim.Scenario(doc).validate()
    r1r2, r2r1 = doc["link"][0], doc["link"][1]
    assert (r1r2["rate"], r1r2["delay"], r1r2["queue"]["limit"], r1r2["loss"]) == ("5000000bps", "15.0ms", 20, 0.005)
    assert (r2r1["rate"], r2r1["delay"]) == ("5000000bps", "15.0ms") and "loss" not in r2r1
    assert len(doc["flow"]) == 2
    delays = {tuple(x.get("between", ())): x["delay"] for x in doc["link"]}
    assert delays[("s1", "r1")] == "10.0ms"
    # a definition that differs from the one registered under the same name is refused
    with pytest.raises(S.ScenarioFileError, match="defined differently"):
        kb.register(S.BenchScenario("pair-lossy", "", 21, 0.005, (0.0, 10.0), 5_000_000, 15.0), "test")
    # a saved run carries its scenario, so --from-kernel can rebuild ccsim's side without the file
    saved = tmp_path / "results.json"
    run = {"scenario": "r20-d30", "scenario_def": kb.SCENARIOS["r20-d30"].to_json()}
    saved.write_text(json.dumps({"kernel": [run]}))
    del kb.SCENARIOS["r20-d30"]
    kb.register_saved(saved)
    assert kb.SCENARIOS["r20-d30"].rate_bps == 20_000_000
    assert "r20-d30: 1 flow(s), 20 Mb/s, base RTT 60 ms, DropTail 100 p (1 flow, 1 BDP)" == kb.describe(
        kb.SCENARIOS["r20-d30"])
    assert kb.describe(kb.SCENARIOS["pair-lossy"]).startswith(
        "pair-lossy: 2 flow(s), 5 Mb/s, base RTT 30/50 ms, DropTail 20 p, loss 0.005")
    for name in ("r20-d30", "pair-lossy"):
        del kb.SCENARIOS[name]


def test_the_built_in_scenarios_are_those_of_the_measured_tables():
    b = S.BUILTIN
    assert list(b) == ["q8", "q33", "q133", "loss1e-3", "loss1e-2", "two", "rtt40-80"]
    assert {(s.rate_bps, s.one_way_ms) for s in b.values()} == {(10_000_000, 20.0)}
    assert [b[n].limit for n in ("q8", "q33", "q133")] == [8, 33, 133]
    assert b["rtt40-80"].extra_ms == (0.0, 20.0) and b["loss1e-2"].loss == 0.01


def test_early_sends_counts_segments_and_retransmissions_between_the_kernels_sample_times():
    import early_sends as E

    edges = [0.0, 0.02, 0.04, 0.06]
    frames = [(0.001, 0, 1448), (0.005, 1448, 1448), (0.01, 0, 0),  # an ACK-only frame is no segment
              (0.02, 2896, 1448),  # on an edge: the earlier interval, (0, 0.02]
              (0.03, 1448, 1448),  # below the highest sent: a retransmission
              (0.05, 4344, 1448), (0.07, 5792, 1448)]  # after the last edge: not counted
    assert E.capture_counts(frames, edges) == [(3, 0), (1, 1), (1, 0)]
    snd = {"fields": ["t_ns", "bytes_sent", "total_retrans", "ca_state", "snd_cwnd"],
           "flows": [{"start_ns": 1_000_000_000, "samples": [
               [1_001_000_000, 0, 0, 0, 10], [1_021_000_000, 14480, 0, 0, 10], [1_041_000_000, 14480 + 2896, 1, 3, 8],
               [1_061_000_000, 20272, 1, 3, 8]]}]}
    rows = E.kernel_rows(snd, 0, 0.05)
    assert [(round(t, 3), n, r, ca, cw) for t, n, r, ca, cw in rows] == [(0.021, 10.0, 0, 0, 10), (0.041, 2.0, 1, 3, 8)]
