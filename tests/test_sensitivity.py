"""The one-at-a-time sweeps of unstated values and the verdicts they give (ccsim.sensitivity)."""

from __future__ import annotations

import math

import pytest

from ccsim.experiments import Claim, Experiment, Spread, Unstated
from ccsim.report import render_html, render_markdown, run_experiment
from ccsim.scenario import Scenario
from ccsim.sensitivity import FAILS, HOLDS, HOLDS_OVER_SEEDS, NOT_RESOLVED, UNDECIDED, verdict
from ccsim.sweep import Plan

pytestmark = pytest.mark.needs_core


def _scenario(rate_mbps: float) -> Scenario:
    """One Reno flow over a single bottleneck of ``rate_mbps``, 3 simulated seconds."""
    return Scenario({
        "simulation": {"duration": "3s"},
        "link": [{"name": "bottleneck", "between": ["s", "d"], "rate": f"{rate_mbps}Mbps", "delay": "10ms",
                  "queue": {"kind": "droptail", "limit": "100p"}}],
        "flow": [{"name": "f", "from": "s", "to": "d", "app": {"kind": "bulk"}}],
    })


def _plans(values):
    return Plan(base=_scenario(values["rate"]), labels={"rate": values["rate"]}, name=f"rate {values['rate']}")


def _goodput(df) -> float:
    return float(df["goodput_bps"].sum() / 1e6)


def _experiment() -> Experiment:
    return Experiment(
        name="toy", title="toy", quick=_plans, full=_plans,
        claims=[
            Claim("r1", "goodput above 1 Mb/s", 1.0, _goodput, unit="Mb/s", kind="at_least"),
            Claim("r2", "goodput above 15 Mb/s", 15.0, _goodput, unit="Mb/s", kind="at_least"),
            Claim("r3", "goodput above 100 Mb/s", 100.0, _goodput, unit="Mb/s", kind="at_least",
                  mechanism="the link carries at most 40 Mb/s in every declared setting (sweep: rate)"),
            Claim("r4", "not for quick runs", 1.0, _goodput, kind="at_least", quick=False),
            Claim("r5", "goodput above 200 Mb/s, one run of several", 200.0, _goodput, kind="at_least", quick=False,
                  spread=lambda df: Spread((-1.0, 2.0, 0.5), "toy evidence: `make seeds`")),
        ],
        unstated=[Unstated("rate", 10.0, "our choice: a test", [5.0, 10.0, 20.0, 40.0], "bottleneck rate", "Mb/s")],
    )


def test_unstated_declarations_are_checked():
    with pytest.raises(ValueError, match="source"):
        Unstated("x", 1, " ", [1, 2])
    with pytest.raises(ValueError, match="no value other than the default"):
        Unstated("x", 1, "our choice", [1])
    with pytest.raises(ValueError, match="declared twice"):
        Experiment("e", "t", _plans, _plans, unstated=[Unstated("a", 1, "s", [2]), Unstated("a", 1, "s", [3])])
    exp = _experiment()
    assert exp.defaults() == {"rate": 10.0}
    assert exp.plans("full", {"rate": 20.0})[0].labels == {"rate": 20.0}
    with pytest.raises(KeyError, match="declares no value nosuch"):
        exp.plans("full", {"nosuch": 1})


def test_verdicts_without_runs():
    c = Claim("r", "x", 5.0, lambda df: 0.0, kind="at_least")
    assert verdict(c, 6.0, "full") == HOLDS
    assert verdict(c, 4.0, "full") == FAILS
    assert verdict(c, math.nan, "quick") == UNDECIDED
    assert verdict(c, math.nan, "full") == "error"
    assert verdict(Claim("r", "x", 5.0, lambda df: 0.0, quick=False), 5.0, "quick") == UNDECIDED


def test_run_to_run_spread_verdicts():
    c = Claim("r", "x", 1.0, lambda df: 0.0, kind="at_most")
    straddles, above, below = Spread((0.2, -0.1, 0.05), "e"), Spread((0.2, 0.25, 0.22), "e"), Spread((-0.2, -0.25, -0.22), "e")
    assert verdict(c, 2.0, "full", spread=straddles) == NOT_RESOLVED
    assert verdict(c, 2.0, "full", spread=above) == FAILS  # outside the spread: a disagreement
    assert verdict(c, 2.0, "full", spread=below) == HOLDS_OVER_SEEDS
    assert verdict(c, 1.0, "full", spread=above) == HOLDS  # this run decides first
    assert verdict(c, 2.0, "quick", spread=straddles) == FAILS  # quick mode reads no spread
    assert verdict(c, 2.0, "full", spread=Spread((0.3,), "one seed")) == FAILS  # no interval from one run
    mean, lo, hi = straddles.interval()
    assert mean == pytest.approx(0.05) and lo < 0 < hi
    assert hi - mean == pytest.approx(4.303 * 0.15 / 3 ** 0.5)  # t(2) · s / √n, s = 0.15
    assert "holds in 1 of 3" in straddles.text()


def test_full_mode_sweeps_each_value_and_reports_what_decides(tmp_path):
    exp = _experiment()
    run = run_experiment(exp, "full", tmp_path)
    # one rerun per alternative value (5, 20, 40), the default being the main run
    assert [(v.name, v.value) for v in run.variants] == [("rate", 5.0), ("rate", 20.0), ("rate", 40.0)]
    by = {c.claim.paper_ref: c for c in run.claims}
    assert by["r1"].status == HOLDS
    # fails at 10 Mb/s, holds at 20 and 40: "depends on rate", with the envelope spanning the values
    assert 8 < by["r2"].value < 10 and by["r2"].status == "depends on rate"
    lo, hi = by["r2"].sensitivity.envelope
    assert 4 < lo < 5 and 15 < hi < 40  # slow start keeps 3 s runs below the link rate
    assert [v for _, v in by["r2"].sensitivity.holds_at] == [20.0, 40.0]
    assert by["r2"].sensitivity.moved_most_by == "rate"
    assert by["r3"].status == FAILS  # at no declared value
    assert by["r5"].status == NOT_RESOLVED and by["r5"].spread is not None
    html = render_html([run])
    md = render_markdown([run], tmp_path)
    assert "What decides each claim" in html and "Values the paper does not state" in html
    assert "depends on rate (holds at rate = 20 Mb/s, 40 Mb/s)" in md
    assert "our choice: a test" in md and "5 Mb/s, 10 Mb/s, 20 Mb/s, 40 Mb/s" in md
    assert "the link carries at most 40 Mb/s" in md  # the cited mechanism beside a failing claim
    assert "not resolved by the run-to-run spread (margin over 3 seeds" in md
    assert "Run-to-run spread: toy evidence: `make seeds`" in md
    assert '<td class="undecided">not resolved by the run-to-run spread' in html


def test_quick_mode_is_a_smoke_test(tmp_path):
    exp = _experiment()
    run = run_experiment(exp, "quick", tmp_path)
    assert [(v.name, v.value) for v in run.variants] == [("rate", 5.0)]
    by = {c.claim.paper_ref: c for c in run.claims}
    assert by["r4"].status == UNDECIDED
    assert by["r2"].status == FAILS  # quick mode gives no "depends on" verdicts
    assert "What decides each claim" not in render_html([run])
