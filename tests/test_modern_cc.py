"""The ``modern-cc`` experiment (issue 20) in quick mode: DCTCP against the analysis of
Alizadeh et al. (SIGCOMM 2010 §3.3), CoDel, PIE, FQ-CoDel and BBR, and ECN results from
Python."""

from __future__ import annotations

from pathlib import Path

import pytest

from ccsim import cli, run
from ccsim.experiments import get, modern_cc, quick_claim_failures, registry
from ccsim.results import load

pytestmark = pytest.mark.needs_core


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("modern_cc")
    assert cli.main(["reproduce", "modern-cc", "--quick", "--out", str(out), "-q", "--jobs", "2"]) == 0
    return out


def test_registered_with_the_analysis():
    assert "modern-cc" in registry()
    exp = get("modern-cc")
    assert len(exp.plans("quick")) == len(exp.plans("full")) == 4 + 3 + 4 + 6
    # C·RTT ≈ 84.5 packets; the bound K > C·RTT/7 lies between the two throughput points.
    assert 84 < modern_cc.C_RTT < 85
    assert modern_cc.K_BELOW < modern_cc.C_RTT / 7 < modern_cc.K_ABOVE
    # A = ½·√(2N(C·RTT + K)): N = 2, K = 40 gives 11.2 packets.
    assert abs(modern_cc.predicted_amplitude(2, 40) - 0.5 * (4 * (modern_cc.C_RTT + 40)) ** 0.5) < 1e-12
    doc = modern_cc.dctcp_scenario(2, 20).doc
    assert doc["link"][0]["queue"] == {"kind": "step", "k": 20, "limit": "1000p"}
    assert all(f["cc"] == "dctcp" for f in doc["flow"])


def test_quick_claims_hold(out):
    df = load(out / "modern-cc" / "store")
    df.attrs["store"] = str(out / "modern-cc" / "store")  # as the report hands it to claims
    assert quick_claim_failures(get("modern-cc"), df) == []
    html = (out / "report" / "index.html").read_text()
    assert 'id="modern-cc"' in html
    # CoDel keeps the standing queue near 5 ms where DropTail's is far above it.
    assert modern_cc.standing_queue_ms(df, "codel") < 10 < modern_cc.standing_queue_ms(df, "droptail")
    # PIE's mean delay is near its 15 ms target; FQ-CoDel isolates the sparse flow better than
    # one CoDel queue, which isolates it better than DropTail.
    assert 10 < modern_cc.mean_queue_delay_ms(df, "pie") < 20
    rise = {q: modern_cc.sparse_rtt_increase_ms(df, q) for q in ("fq_codel", "codel", "droptail")}
    assert rise["fq_codel"] < rise["codel"] < rise["droptail"], rise
    # BBR's section is part of the same experiment.
    assert {"bbr-alone", "bbr-cubic"} <= set(df["part"].astype(str))


def test_ecn_counts_reach_python():
    sc = modern_cc.dctcp_scenario(2, 20, duration="0.2s")
    sc.set("trace.interval", "0s")
    r = run(sc, progress=False)
    links = r.links.set_index("name")
    assert links.loc["r1->r2", "ecn_marks"] > 0 and links.loc["r1->r2", "drops_aqm"] == 0
    flows = r.flows
    assert (flows["ecn_marks"] > 0).all() and (flows["ecn_reductions"] > 0).all()
    assert (flows["cc"] == "dctcp").all()
    assert int(flows["ecn_marks"].sum()) <= int(links.loc["r1->r2", "ecn_marks"])


def test_probe_rtt_spacing_is_taken_within_each_seed(monkeypatch):
    """Full mode runs the lone BBR flow with three seeds: the spacing of PROBE_RTT episodes
    is each run's own (its series interleaved with the others' gave 1.6 s for 10.7 s)."""
    import pandas as pd

    from ccsim.experiments import modern_cc_bbr as m

    rows = []
    for seed, offset in [(1, 0.0), (2, 0.3), (3, 0.6)]:
        for k in range(400):
            t = 0.1 * k
            # a window of 4 segments from each episode start at 10.5 + offset + 10.2·j for 0.3 s
            low = any(0 <= t - (10.5 + offset + 10.2 * j) < 0.3 for j in range(3))
            rows.append({"part": "bbr-alone", "seed": seed, "time_s": t,
                         "cwnd_bytes": 4 * m.MSS if low else 80 * m.MSS})
    series = pd.DataFrame(rows)
    monkeypatch.setattr(m, "load_table", lambda df, table: series)
    assert abs(m.probe_rtt_spacing(pd.DataFrame()) - 10.2) < 0.11
