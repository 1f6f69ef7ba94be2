"""The ``cmt-berp`` experiment (CMT-SCTP with CMT-CC and CMT-BERP) in quick mode."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ccsim import cli
from ccsim.api import run
from ccsim.experiments import cmt_berp as cb
from ccsim.experiments import get, registry
from ccsim.results import load

pytestmark = pytest.mark.needs_core


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cmt_berp")
    assert cli.main(["reproduce", "cmt-berp", "--quick", "--out", str(out), "-q", "--jobs", "2"]) == 0
    return out


def test_registered_with_quick_and_full_plans():
    assert "cmt-berp" in registry()
    exp = get("cmt-berp")
    q, f = cb.QUICK, cb.FULL
    assert len(exp.plans("quick")) == 2 * (2 * len(q["losses"]) + len(q["loads"]))
    full = exp.plans("full")
    assert len(full) == 2 * (2 * 10 + 9) and all(p.seeds == 10 for p in full)
    sens = exp.plans("sensitivity")
    assert len(sens) == 2 * (2 * 4 + 3) and all(p.seeds == 4 for p in sens)
    # The paper's A: 60 MB, 1 Mb/s core links with loss p, 10 Mb/s access links with 1 %.
    doc = cb.scenario_a("CMT-BERP", 0.07, 60).doc
    core = [lk for lk in doc["link"] if lk.get("name") == "core1"][0]
    assert (core["rate"], core["loss"]) == ("1Mbps", 0.07)
    flow = doc["flow"][0]
    assert flow["app"]["size"] == "60000000B" and flow["transport"] == "sctp"
    assert flow["paths"] == [["S", "N1", "N3", "D"], ["S", "N2", "N4", "D"]]
    assert flow["cc"]["p"] == 0.9 and flow["cc"]["floor"] == 4  # BERP keeps its stated floor
    # The baseline is ns-2.35's CMT agent: ssthresh floor 2 MTUs, CMT-PF, its window rule.
    base = cb.scenario_a("CMT-CC", 0.07, 60).doc["flow"][0]
    assert base["cc"] == {"kind": "cmt", "floor": 2.0}
    assert base["sctp"]["pf"] is True and base["sctp"]["cwnd_rule"] == "ns2"
    assert base["sctp"]["init_cwnd"] == "4380B" and base["sctp"]["fast_rtx_threshold"] == 4
    # Every declared value has a source and reaches the scenario when moved.
    names = {u.name for u in exp.unstated}
    assert {"cmt_floor", "pf", "cwnd_rule", "init_cwnd", "fast_rtx_threshold", "core_delay_ms"} <= names
    moved = cb.scenario_a("CMT-CC", 0.07, 60, values={"cmt_floor": 4.0, "fast_rtx_threshold": 3,
                                                      "loss_direction": "data"}).doc
    assert moved["flow"][0]["cc"]["floor"] == 4.0 and moved["flow"][0]["sctp"]["fast_rtx_threshold"] == 3
    assert any(lk.get("from") == "N1" and lk.get("loss") == 0.07 for lk in moved["link"])
    # B: both paths cross the one shared link.
    b = cb.scenario_b("CMT-CC", 0.05, 60).doc["flow"][0]["paths"]
    assert all(["N1", "N2"] == p[2:4] for p in b)


def test_quick_store_completes_every_transfer(out):
    df = load(out / "cmt-berp" / "store")
    sctp = df[df["transport"] == "sctp"]
    ab = sctp[sctp["part"] != "C"]
    assert ab["completion_time_s"].notna().all()
    assert (ab["bytes_delivered"] == 2_000_000).all()
    assert set(sctp["cc"]) == {"cmt", "berp"}
    # C: the association's throughput falls as the UDP load rises.
    m = cb.mean_by(df, "C", "load", "goodput_bps")
    assert (m.diff().dropna() < 0).all().all()


def test_report_has_figures_and_claims(out):
    html = (out / "report" / "index.html").read_text()
    section = html.split('id="cmt-berp"', 1)[1].split('<section class="experiment"', 1)[0]
    assert len(re.findall(r'src="data:image/png;base64,', section)) == len(get("cmt-berp").figures)
    assert "Fig. 2" in section and "Fig. 8" in section
    assert "figure failed" not in section


def test_quick_claims_keep_their_status(out):
    """The claims quick mode can decide keep the status they have (issue #16): B slower than A,
    and C's two throughput ratios within 10 %; A's and B's BERP-faster claims need 60 MB runs."""
    from ccsim.sensitivity import HOLDS, UNDECIDED, verdict

    df = load(out / "cmt-berp" / "store")
    df.attrs["store"] = str(out / "cmt-berp" / "store")
    exp = get("cmt-berp")
    status = {c.text: verdict(c, c.compute(df), "quick") for c in exp.claims}
    for c in exp.claims:
        expected = HOLDS if c.quick else UNDECIDED
        assert status[c.text] == expected, (c.text, status[c.text])


def test_path_series_has_beta_and_alpha():
    doc = cb.scenario_a("CMT-BERP", 0.05, 0.5).doc
    doc["trace"] = {"interval": "100ms"}
    res = run(doc, progress=False)
    ps = res.path_series
    assert list(ps.columns) == ["time_s", "flow", "path", "cwnd_bytes", "ssthresh_bytes", "srtt_s", "bwe_bps",
                                "beta", "alpha"]
    assert set(ps["path"]) == {1.0, 2.0}
    late = ps[ps["time_s"] > 2]
    assert late["bwe_bps"].notna().all() and (late["bwe_bps"] > 0).all()
    # β_i sums to one over the two paths at each instant (eq. 2).
    sums = late.groupby("time_s")["beta"].sum()
    assert ((sums - 1).abs() < 1e-9).all()
