"""The ``daimd`` experiment (González et al., MELECON 2016) in quick mode, and MPTCP results
from Python (subflow rows, the backoff table, scenario errors)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ccsim import cli, run
from ccsim.experiments import daimd, get, quick_claim_failures, registry
from ccsim.results import load
from ccsim.scenario import Scenario
from ccsim.sweep import expand_plans, plan_id

pytestmark = pytest.mark.needs_core


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("daimd")
    assert cli.main(["reproduce", "daimd", "--quick", "--out", str(out), "-q", "--jobs", "2"]) == 0
    return out


def test_registered_with_the_papers_scenarios():
    assert "daimd" in registry()
    exp = get("daimd")
    full = exp.plans("full")
    # Table I: 2 settings, Table II: 3, each DAIMD and LIA.
    assert len(full) == (2 + 3) * 2 and all(p.seeds == 10 for p in full)
    doc = daimd.scenario("cap", "DAIMD", True).doc
    links = {lk.get("name"): lk for lk in doc["link"]}
    # BDP-sized queues: 10 Mb/s × 100 ms = 83 packets, 5 Mb/s × 100 ms = 42 (1500 B).
    assert (links["pathA"]["rate"], links["pathA"]["delay"], links["pathA"]["queue"]["limit"]) == ("10Mbps", "50ms", "83p")
    assert (links["pathB"]["rate"], links["pathB"]["queue"]["limit"]) == ("5Mbps", "42p")
    assert daimd.bdp_packets(5, 25) == 21
    mp, reno_a, reno_b = doc["flow"]
    assert mp["transport"] == "mptcp" and mp["paths"] == [["s", "a", "d"], ["s", "b", "d"]]
    assert mp["cc"] == {"kind": "daimd", "d0": "20ms", "w0": 4, "hold": "srtt", "delay_beta": 0.7, "quiet": "hold",
                        "signal": "sample", "counting": "per_ack"}
    # The paper's Linux: its RTO, per-ACK counting for the subflows and for Reno, cwnd/2.
    for f in (mp, reno_a):
        assert f["rto"] == {"min": "200ms", "estimator": "linux"} and f["ssthresh_from"] == "cwnd"
        assert (f["mss"], f["header"], f["init_cwnd"], f["delayed_ack"], f["recovery"]) == (1448, 52, 10, "40ms", "prr")
    assert reno_a["cc"] == {"kind": "reno", "counting": "per_ack"}
    assert reno_a["paths"] == [["s", "a", "d"]] and reno_b["paths"] == [["s", "b", "d"]]
    assert len(daimd.CLAIMS) == 6 + 1 + 18 + 6 + 4


def test_every_unstated_value_is_declared_with_a_source_and_swept_alone():
    exp = get("daimd")
    names = [u.name for u in exp.unstated]
    assert {"hold", "w0", "d0", "signal", "quiet", "rto", "counting", "equal_owd", "warmup"} <= set(names)
    assert all(u.source and u.alternatives() for u in exp.unstated)
    hold = next(u for u in exp.unstated if u.name == "hold")
    assert hold.value == "srtt" and "2s" in hold.range
    w0 = next(u for u in exp.unstated if u.name == "w0")
    assert min(w0.range) <= 4 and max(w0.range) >= 32
    # A DAIMD parameter moves only the DAIMD plans: the LIA points are shared with the
    # defaults' (the store skips them), so the one-at-a-time reruns stay affordable.
    base = {p.name: p.base.doc for p in exp.plans("sensitivity")}
    moved = {p.name: p.base.doc for p in exp.plans("sensitivity", {"hold": "2s"})}
    assert [n for n in base if base[n] != moved[n]] == [n for n in base if n.endswith("DAIMD")]
    assert moved["table1 cap DAIMD"]["flow"][0]["cc"]["hold"] == "2s"
    # A stack value moves every flow, Reno included.
    rfc = {p.name: p.base.doc for p in exp.plans("sensitivity", {"rto": "rfc6298"})}
    assert all(f["rto"]["estimator"] == "rfc6298" for f in rfc["table2 cap LIA"]["flow"])
    # D0 as a fraction of the smallest RTT.
    rel = {p.name: p.base.doc for p in exp.plans("sensitivity", {"d0": "0.9 minRTT"})}
    cc = rel["table1 cap DAIMD"]["flow"][0]["cc"]
    assert cc["d0_rtt"] == 0.9 and "d0" not in cc


def test_linux_rto_removes_the_spurious_timeouts_of_reno_alone_on_path_a():
    # Reno alone on path A (10 Mb/s, 50 ms, 83-packet queue) with the experiment's stack: the
    # BDP queue doubles the RTT within a few round trips, faster than RFC 6298's RTTVAR
    # follows, and its timer fires while the data is only queued. Linux's variance term never
    # falls below rto_min (docs/sources/linux.md §1.3).
    def reno_alone(rto: str):
        doc = daimd.scenario("cap", "LIA", True, {"rto": rto}, 100).doc
        doc["flow"] = [f for f in doc["flow"] if f["name"] == "renoA"]
        r = run(Scenario(doc))
        f = r.flows.set_index("name").loc["renoA"]
        return int(f["timeouts"]), int(f["retransmissions"]), int(f["drops_queue_overflow"])

    rfc, linux = reno_alone("rfc6298"), reno_alone("linux")
    assert rfc[0] >= 3 and rfc[1] > 2 * rfc[2], rfc
    assert linux[0] == 0 and linux[1] == linux[2], linux


def test_quick_store_has_subflow_rows_and_backoffs(out):
    df = load(out / "daimd" / "store")
    assert {"mp", "mp/sf1", "mp/sf2"} <= set(df["name"])
    sub = df[df["transport"] == "mptcp-subflow"]
    assert (sub["bytes_delivered"] > 0).all()
    b = load(out / "daimd" / "store", table="backoffs")
    assert set(b["cause"].astype(str)) >= {"loss", "delay"}
    delay = b[b["cause"].astype(str) == "delay"]
    assert set(delay["cc"]) == {"DAIMD"}
    assert (delay["cwnd_after_bytes"] < delay["cwnd_before_bytes"]).all()


def test_report_has_figures_tables_and_claims(out):
    html = (out / "report" / "index.html").read_text()
    section = html.split('id="daimd"', 1)[1]
    assert len(re.findall(r'src="data:image/png;base64,', section)) >= 8
    assert "Table I" in section and "Table II" in section
    tables = (out / "report" / "daimd" / "tables.md").read_text()
    assert "9.4 / " in tables and "4.4 / " in tables


def _quick_frame(out: Path):
    """The quick plan's flows table (the store's latest plan is the quick smoke rerun of a
    declared value), as the report hands it to claims."""
    store = out / "daimd" / "store"
    pid = plan_id(expand_plans(get("daimd").plans("quick")))
    df = load(store, plan=pid)
    df.attrs["store"], df.attrs["plan"] = str(store), pid
    return df


def test_quick_decidable_claims_hold(out):
    # Quick mode (40 s, one seed) decides the idle-path claims and DAIMD's share against Reno;
    # every other claim is marked quick=False (Table II's cells move by more than their
    # tolerance between one 40 s run and ten 120 s runs, or hold only at other declared values).
    df = _quick_frame(out)
    exp = get("daimd")
    decided = [c for c in exp.claims if c.quick]
    assert len(decided) == 9 and not any(c.mechanism for c in decided)
    assert quick_claim_failures(exp, df) == []
    t1 = daimd.table_values(df, "idle", "DAIMD")
    # Idle paths: DAIMD uses most of both paths.
    assert t1.loc["cap", "total"] > 0.9 * 15 and t1.loc["delay", "total"] > 0.9 * 10
    # The report says so too, and "not decided in quick mode" for the others.
    md = (out / "report" / "README.md").read_text()
    assert md.count("not decided in quick mode") >= len(exp.claims) - len(decided)


def test_one_delay_cut_per_build_up_on_idle_paths(out):
    # The quiet time comes before the next hold: on idle paths no two delay cuts of a subflow
    # are closer than two smoothed RTTs (the shipped code cut twice, ~1 srtt apart).
    df = _quick_frame(out)
    b = load(out / "daimd" / "store", table="backoffs", plan=df.attrs["plan"])
    runs = df[(df["cross"] == "idle") & (df["cc"] == "DAIMD") & df["name"].isin(daimd.ROW.values())]
    assert len(runs) == 4
    for _, r in runs.iterrows():
        t = b[(b["point_id"] == r["point_id"]) & (b["flow"].astype(str) == r["name"]) & (b["cause"].astype(str) == "delay")]
        gaps = t["time_s"].sort_values().diff().dropna()
        assert len(gaps) >= 2 and gaps.min() > 2 * r["rtt_min_s"], (r["name"], list(gaps))


def test_loss_events_after_slow_start_are_counted_from_the_backoffs(out):
    # The claim's count (a subflow's loss and timeout reductions after the first, which ends
    # slow start), recomputed from the backoff table's own rows. LIA's idle runs have several
    # per subflow, so an off-by-one in either count shows; DAIMD's idle runs have none.
    df = _quick_frame(out)
    b = load(out / "daimd" / "store", table="backoffs", plan=df.attrs["plan"])
    runs = df[df["part"].isin(["table1", "table2"]) & df["name"].isin(daimd.ROW.values())]
    b = b[b["cause"].astype(str).isin(["loss", "timeout"])]
    for cc in ("LIA", "DAIMD"):
        sel = runs[(runs["cross"] == "idle") & (runs["cc"] == cc)]
        per_run = []
        for pid, g in sel.groupby("point_id", observed=True):
            events = b[(b["point_id"] == pid)].groupby("flow", observed=True).size()
            per_run.append(sum(max(events.get(name, 0) - 1, 0) for name in g["name"]))
        expected = sum(per_run) / len(per_run)
        assert daimd.losses_after_slow_start(df, "idle", cc) == pytest.approx(expected), cc
        if cc == "LIA":
            assert expected >= 2
        else:
            assert expected == 0


TWO_PATHS = {
    "simulation": {"duration": "20s"},
    "trace": {"interval": "100ms"},
    "link": [
        {"between": ["s", "a"], "rate": "10Mbps", "delay": "10ms"},
        {"between": ["a", "d"], "rate": "10Mbps", "delay": "10ms"},
        {"between": ["s", "b"], "rate": "5Mbps", "delay": "20ms"},
        {"between": ["b", "d"], "rate": "5Mbps", "delay": "20ms"},
    ],
    "flow": [{"name": "mp", "from": "s", "to": "d", "transport": "mptcp", "cc": "daimd",
              "paths": [["s", "a", "d"], ["s", "b", "d"]], "app": {"kind": "bulk"}}],
}


def test_result_frames_expose_subflows_and_backoffs():
    res = run(Scenario(TWO_PATHS))
    assert list(res.flows["name"]) == ["mp", "mp/sf1", "mp/sf2"]
    assert list(res.flows["transport"]) == ["mptcp", "mptcp-subflow", "mptcp-subflow"]
    assert set(res.flow_series["flow"].astype(str)) == {"mp", "mp/sf1", "mp/sf2"}
    b = res.backoffs
    assert list(b.columns) == ["time_s", "flow", "cause", "cwnd_before_bytes", "cwnd_after_bytes"]
    assert set(b["flow"].astype(str)) <= {"mp/sf1", "mp/sf2"} and len(b) > 0
    assert int((b["cause"] == "delay").sum()) == int(res.flows["delay_backoffs"].iloc[0])
    # The paths table: one row per subflow path, its subflow-level bytes.
    p = res.paths
    mp = p[p["flow"] == "mp"].sort_values("path")
    assert list(mp["path"]) == [1, 2]
    sub = res.flows.set_index("name")
    assert list(mp["bytes_delivered"]) == [sub.loc["mp/sf1", "bytes_delivered"], sub.loc["mp/sf2", "bytes_delivered"]]


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"cc": "cubic"}, "flow[0].cc.kind"),
        ({"cc": {"kind": "daimd", "d0": 20}}, "flow[0].cc.d0"),
        ({"cc": {"kind": "daimd", "delay_beta": 1.5}}, "flow[0].cc.delay_beta"),
        ({"cc": {"kind": "daimd", "quiet": "never"}}, "flow[0].cc.quiet"),
        ({"cc": {"kind": "daimd", "signal": "owd"}}, "flow[0].cc.signal"),
        ({"scheduler": "fastest"}, "flow[0].scheduler"),
        ({"joins": ["0s"]}, "flow[0].joins"),
        ({"paths": None}, "flow[0]"),
        ({"app": {"kind": "onoff", "on": "1s", "off": "1s"}}, "flow[0].app.kind"),
        ({"window": 3}, "flow[0].window"),
    ],
)
def test_bad_mptcp_input_is_a_clear_error(change, where):
    from ccsim.exceptions import ScenarioError

    doc = {**TWO_PATHS, "flow": [dict(TWO_PATHS["flow"][0])]}
    for k, v in change.items():
        if v is None:
            doc["flow"][0].pop(k)
        else:
            doc["flow"][0][k] = v
    with pytest.raises(ScenarioError) as e:
        Scenario(doc).validate()
    assert any(p == where for p, _ in e.value.problems), e.value.problems
