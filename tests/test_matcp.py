"""The ``matcp`` experiment (Dimopoulos, Zeephongsekul & Tari 2006) in quick mode, and the
path-selection plumbing it relies on (pinned paths, per-path results)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import ccsim
from ccsim import cli
from ccsim.experiments import get, registry
from ccsim.experiments import matcp
from ccsim.results import load

pytestmark = pytest.mark.needs_core


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("matcp")
    assert cli.main(["reproduce", "matcp", "--quick", "--out", str(out), "-q", "--jobs", "2"]) == 0
    return out


def test_scenario_is_the_papers_topology():
    sc = matcp.scenario("wrtt", [3, 0, 2, 1], [65.0] * 4, duration_s=10)
    doc = sc.doc
    flows = doc["flow"]
    assert len(flows) == 6
    f = flows[0]
    assert (f["recovery"], f["max_window"], f["mss"], f["delayed_ack"]) == ("sack1", 16, 1460, False)
    assert f["paths"] == [["s1_0", "e1", f"h{p}", f"t{p}", "k"] for p in range(1, 5)]
    assert f["select"] == {"kind": "wrtt", "refresh": 4}
    assert f["app"]["on"] == "8s" and f["app"]["off"] == "6s"
    bott = [lk for lk in doc["link"] if lk.get("name", "").startswith("b") and not lk["name"].endswith("r")]
    assert [(lk["rate"], lk["delay"], lk["queue"]["kind"], lk["queue"]["min_th"]) for lk in bott] == [
        ("40Mbps", "65ms", "red", 25)
    ] * 4
    # ns-2.35's defaults for what the paper leaves open: RED in bytes of 500-byte mean packets,
    # TCP starting at 2 segments with a 200 ms minimum RTO on a 10 ms tick.
    q = bott[0]["queue"]
    assert (q["queue_in_bytes"], q["bytes"], q["mean_pktsize"], q["w_q"]) == (True, True, "500B", "auto")
    assert f["init_cwnd"] == 2 and f["rto"] == {"min": "200ms", "initial": "3s", "max": "60s", "granularity": "10ms"}
    moved = matcp.scenario("wrtt", [1, 1, 1, 1], [65.0] * 4, duration_s=10,
                           values={"red_bytes": False, "refresh": 8, "delayed_ack": True}).doc
    assert "queue_in_bytes" not in moved["link"][0]["queue"]
    assert moved["flow"][0]["select"]["refresh"] == 8 and moved["flow"][0]["delayed_ack"] is True
    single = matcp.scenario("single", [1, 1, 1, 1], [65.0] * 4, duration_s=10).doc["flow"]
    assert [fl["paths"] for fl in single] == [[[f"s{e}_0", f"e{e}", f"h{e}", f"t{e}", "k"]] for e in range(1, 5)]
    assert all("select" not in fl for fl in single)
    sc.validate()


def test_sources_and_delays_are_drawn_per_seed_and_shared_by_configurations():
    a, b = matcp.draw_sources(80, 40, 1), matcp.draw_sources(80, 40, 2)
    assert a != b and all(40 <= n <= 120 for n in a + b)
    assert matcp.draw_sources(80, 40, 1) == a
    d = matcp.draw_delays("b: U[13,52] ms", 3)
    assert all(13 <= x <= 52 for x in d) and matcp.draw_delays(None, 3) == [65.0] * 4
    plans = [p for p in get("matcp").plans("quick") if p.labels["part"] == "fig3" and p.labels["x"] == 25]
    assert {p.labels["config"] for p in plans} == set(matcp.CONFIGS)
    assert len({p.labels["sources_per_edge"] for p in plans}) == 1


def test_a_run_reports_every_path_and_its_bytes():
    res = ccsim.run(matcp.scenario("drop", [4, 4, 4, 4], [65.0] * 4, duration_s=30), progress=False)
    paths = res.paths
    assert list(paths.columns[:4]) == ["flow", "path", "bytes_delivered", "connections"]
    assert len(paths) == 16 * 4
    per_flow = paths.groupby("flow")["bytes_delivered"].sum()
    flows = res.flows.set_index("name")["bytes_delivered"]
    assert (per_flow.sort_index().values == flows.sort_index().values).all()
    assert (paths.groupby("flow")["connections"].sum().sort_index().values
            == res.flows.set_index("name")["connections"].sort_index().values).all()


def test_registered_with_quick_and_full_plans():
    assert "matcp" in registry()
    exp = get("matcp")
    q, f = matcp.QUICK, matcp.FULL
    per_x = len(matcp.CONFIGS) * q["seeds"]
    assert len(exp.plans("quick")) == per_x * (len(q["fig2_n"]) + len(q["fig3_v"]) + len(q["fig4_idle"])
                                              + 2 * len(q["fig5_n"]))
    full = exp.plans("full")
    assert len(full) == len(matcp.CONFIGS) * f["seeds"] * (6 + 5 + 5 + 2 * 6)
    assert all(p.base.doc["simulation"]["duration"] == "500s" for p in full[:5])
    sens = exp.plans("sensitivity")
    assert len(sens) == len(matcp.CONFIGS) * (2 + 1 + 2 * 2)
    # Fig. 5's "WRTT is best" is a claim per reading, per load and per metric.
    wrtt = [c for c in exp.claims if c.text.startswith("reading (") and "WRTT's rank" in c.text]
    assert len(wrtt) == 2 * len(f["fig5_n"]) * len(matcp.METRICS) and not any(c.quick for c in wrtt)


def test_quick_report_has_figures_and_claims(out):
    html = (out / "report" / "index.html").read_text()
    section = html.split('id="matcp"', 1)[1]
    assert len(re.findall(r'src="data:image/png;base64,', section)) == len(get("matcp").figures) == 5
    assert "figure failed" not in section
    assert section.count("<tr><td>Fig. ") == len(matcp.CLAIMS)


def test_quick_matcp_balances_the_paths_that_single_path_does_not(out):
    df = load(out / "matcp" / "store")
    df.attrs["store"] = str(out / "matcp" / "store")  # as the report hands it to claims
    spread = matcp.path_spread(df)
    f3 = spread[(spread["part"] == "fig3") & (spread["x"] == 25)].set_index("config")["goodput"]
    # With V = 25 the edges carry 5 to 55 sources: single path leaves some bottlenecks idle
    # while others are overloaded; every selector evens them out.
    for c in ("drop", "rttvar", "wrtt"):
        assert f3[c] < 0.6 * f3["single"], (c, f3.to_dict())
    # Fig. 5 reading (b): the RTT selector sends less to the longest-delay path than RTT variation.
    assert matcp.rtt_underuse(df) < 1.0


def test_quick_claims_keep_their_status(out):
    """The claims quick mode can decide keep their status (issue #16): MATCP balances the paths
    single path does not, and the RTT selector under-uses the longest-delay path."""
    from ccsim.sensitivity import HOLDS, UNDECIDED, verdict

    df = load(out / "matcp" / "store")
    df.attrs["store"] = str(out / "matcp" / "store")
    for c in get("matcp").claims:
        expected = HOLDS if c.quick else UNDECIDED
        assert verdict(c, c.compute(df), "quick") == expected, c.text


def test_stored_seed_spread_covers_every_fig5_cell():
    """The run-to-run evidence the Fig. 5 claims read (docs/matcp-results.md): every (reading,
    N, metric) cell has at least two seeds of the three selectors, and the intervals are the
    ones the doc quotes."""
    stored = matcp.stored_seeds()
    empty = stored.iloc[0:0]
    for reading in matcp.DELAY_READINGS_KEYS:
        for n in matcp.FULL["fig5_n"]:
            for metric in matcp.METRICS:
                assert len(matcp.combine_seeds(empty, stored, reading, n, metric).margins) >= 2
    a, b = matcp.DELAY_READINGS_KEYS
    _, lo, hi = matcp.combine_seeds(empty, stored, a, 120, "sd").interval()
    assert hi < 0 and lo == pytest.approx(-9.47e-06, rel=1e-2)  # WRTT best, outside the spread
    _, lo, hi = matcp.combine_seeds(empty, stored, b, 20, "spread").interval()
    assert lo > 0 and lo == pytest.approx(0.00337, rel=1e-2)  # WRTT worse, outside the spread
    _, lo, hi = matcp.combine_seeds(empty, stored, a, 40, "spread").interval()
    assert lo < 0 < hi  # not resolved


def test_seed_spread_uses_this_runs_seed_and_refuses_stale_evidence():
    stored = matcp.stored_seeds()
    a = matcp.DELAY_READINGS_KEYS[0]
    this = stored[stored["run_seed"] == 1]
    same = matcp.combine_seeds(this, stored, a, 40, "spread")
    assert len(same.margins) == 3 and not same.note
    changed = this.copy()
    changed["spread"] = changed["spread"] * 1.01  # as if the model had moved since the evidence
    stale = matcp.combine_seeds(changed, stored, a, 40, "spread")
    assert len(stale.margins) == 1 and "differs from this run" in stale.note
    assert stale.interval()[1] != stale.interval()[1]  # no interval: the claim's verdict stays "does not hold"
