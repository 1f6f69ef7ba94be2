"""The ``arc-planetary`` experiment (Grieco & Mascolo 2005) in quick mode."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ccsim import cli
from ccsim.experiments import get, quick_claim_failures, registry
from ccsim.experiments import arc_planetary as arc
from ccsim.results import load

pytestmark = pytest.mark.needs_core


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("arc")
    assert cli.main(["reproduce", "arc-planetary", "--quick", "--out", str(out), "-q", "--jobs", "2"]) == 0
    return out


def test_registered_with_quick_and_full_plans():
    assert "arc-planetary" in registry()
    exp = get("arc-planetary")
    quick, full = exp.plans("quick"), exp.plans("full")
    q = arc.QUICK
    assert len(quick) == len(q["protocols"]) * (len(q["fig3_rtts"]) + len(q["fig4_losses"])) + len(q["fig5_rtts"]) * len(q["fig5_sizes_mb"])
    # Six protocols in Figs. 3 and 4, ARC alone in Fig. 5.
    assert len(full) == 6 * (15 + 7) + 3 * 10 and all(p.seeds == 10 for p in full)
    sens = exp.plans("sensitivity")
    assert len(sens) == 6 * (12 + 7) + 2 * 10 and all(p.seeds == 2 for p in sens)
    # the paper's scenario: 1 Mb/s, RTT/2 each way, 100-packet buffer, 1500-byte packets
    doc = arc.scenario("NewReno", 600, 0.001, 1000).doc
    link, flow = doc["link"][0], doc["flow"][0]
    assert (link["rate"], link["delay"], link["queue"]["limit"], link["loss"]) == ("1Mbps", "300s", "100p", 0.001)
    assert (flow["mss"], flow["header"], flow["app"]["size"], flow["recovery"]) == (1460, 40, "1000000000B", "newreno")
    # ns-2 of the paper's era (docs/sources/ns2.md): declared timer bounds, tick estimator,
    # one timed segment, timer restart at fast retransmit, SYN, windowInit_ 2, singledup_.
    assert flow["rto"] == {"estimator": "ns2", "granularity": "10ms", "samples": "one_per_rtt",
                           "restart_at_fast_retransmit": True, "min": "1s", "initial": "6s", "max": "100000s"}
    assert (flow["handshake"], flow["init_cwnd"], flow["limited_transmit"], flow["ssthresh_from"]) == (True, 2, True, "cwnd")
    assert "max_window" not in flow
    assert flow["cc"] == {"kind": "reno", "counting": "per_ack"} and flow["delayed_ack"] == "100ms"
    assert doc["simulation"]["duration"] == "60000s"
    assert arc.time_limit_s(1000, 1) == 24000 and arc.time_limit_s(1000, 2000) == 200000
    # Each declared value reaches the flow it belongs to.
    moved = arc.scenario("NewReno", 1, 0.001, 1, values={"minrto": 0.2, "tcp_window": 20}).doc["flow"][0]
    assert moved["rto"]["min"] == "0.2s" and moved["max_window"] == 20
    a = arc.scenario("ARC", 1, 0.001, 1, values={"arc_window_cap": 8333, "arc_no_estimate": "zero",
                                                  "arc_rto_max": 60}).doc["flow"][0]
    assert a["arc"]["window_cap"] == "8333p" and a["arc"]["no_estimate"] == "zero" and a["rto"]["max"] == "60s"
    assert "window_cap" not in arc.scenario("ARC", 1, 0.001, 1).doc["flow"][0]["arc"]


def test_mathis_bound_and_the_levels_it_sets():
    # MSS/RTT·sqrt(3/(2bp)), b = 2, p = 0.001: 11 680 b × 27.39 / 0.8 s = 400 kb/s.
    assert abs(arc.mathis_goodput_bps(0.8) - 399_837) < 1
    assert abs(arc.mathis_rtt_at(0.8) - 0.39984) < 1e-4 and abs(arc.mathis_rtt_at(0.5) - 0.6397) < 1e-4
    assert arc.mathis_goodput_bps(0.01) == arc.CAPACITY_BPS * arc.PAYLOAD_SHARE

def test_quick_store_has_the_expected_points(out):
    df = load(out / "arc-planetary" / "store")
    assert (df["protocol"].unique().tolist()) == arc.QUICK_PROTOCOLS
    n_points = sum(p.seeds * len(p.combinations()) for p in get("arc-planetary").plans("quick"))
    assert len(df) == n_points == df["point_id"].nunique()
    for proto in arc.QUICK_PROTOCOLS:
        for rtt in arc.QUICK["fig3_rtts"]:
            sel = df[(df["protocol"] == proto) & (df["rtt_s"] == rtt) & (df["loss_p"] == 0.001)]
            assert sorted(sel["seed"]) == [1, 2]
    assert (df["goodput_bps"] > 0).all()


def test_report_has_figures_and_claims(out):
    html = (out / "report" / "index.html").read_text()
    assert '<section class="experiment" id="arc-planetary">' in html
    section = html.split('id="arc-planetary"', 1)[1]
    imgs = re.findall(r'src="data:image/png;base64,', section)
    assert len(imgs) == len(get("arc-planetary").figures) == 4
    assert "figure failed" not in section
    for ref in ("Fig. 3", "Fig. 4", "Fig. 5"):
        assert f"<tr><td>{ref}</td>" in section
    assert section.count("<tr><td>Fig. ") == len(arc.CLAIMS)
    assert "capped" in section and "time_limit_s" in section


def test_arc_beats_newreno_at_rtt_5s(out):
    df = load(out / "arc-planetary" / "store")
    a, n = arc.mean_goodput(df, "ARC", 5.0), arc.mean_goodput(df, "NewReno", 5.0)
    assert a > n > 0


def test_quick_decidable_claims_hold(out):
    # Quick decides Fig. 4 (ARC beats every TCP at RTT 600 s) and Fig. 5 (goodput falls with
    # RTT); the rest need the paper's 1 GB files or RTTs beyond the quick grid.
    exp = get("arc-planetary")
    df = load(out / "arc-planetary" / "store")
    assert sum(c.quick for c in exp.claims) == 2
    assert quick_claim_failures(exp, df) == []
