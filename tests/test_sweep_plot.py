"""The sweep plotting helper: per-point reduction, replicate statistics, the figure."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import ccsim
from ccsim.sweep_plot import plot_sweep, summarise


def frame() -> pd.DataFrame:
    # Two flows per point; x in {1, 2}; group cc in {a, b}; three replicates each.
    rows = []
    pid = 0
    for cc in ("a", "b"):
        for x in (1, 2):
            for rep in range(3):
                pid += 1
                for flow, share in (("f0", 1.0), ("f1", 3.0)):
                    rows.append({"point_id": f"p{pid}", "cc": cc, "x": x, "replicate": rep, "name": flow,
                                 "goodput_bps": share * x * (10 if cc == "b" else 1) + rep})
    return pd.DataFrame(rows)


def test_summarise_reduces_per_point_then_over_replicates():
    t = summarise(frame(), "x", "goodput_bps", by="cc", per_point="sum", err="sd")
    assert list(t.columns) == ["cc", "x", "mean", "n", "err"]
    row = t[(t.cc == "a") & (t.x == 2)].iloc[0]
    # Per point: (2 + r) + (6 + r) = 8 + 2r for r = 0, 1, 2: mean 10, s.d. 2.
    assert row["mean"] == pytest.approx(10.0) and row["err"] == pytest.approx(2.0) and row["n"] == 3
    ci = summarise(frame(), "x", "goodput_bps", by="cc", per_point="sum", err="ci95")
    assert ci.iloc[0]["err"] == pytest.approx(4.303 * 2.0 / math.sqrt(3))
    one = summarise(frame(), "x", "goodput_bps", by="cc", flow="f1")
    assert one[(one.cc == "b") & (one.x == 1)].iloc[0]["mean"] == pytest.approx(31.0)


def test_summarise_says_what_is_wrong():
    with pytest.raises(KeyError, match="no column 'nope'"):
        summarise(frame(), "nope", "goodput_bps")
    with pytest.raises(ValueError, match="per_point must be one of"):
        summarise(frame(), "x", "goodput_bps", per_point="median")
    with pytest.raises(ValueError, match="no rows of flow 'f9'"):
        summarise(frame(), "x", "goodput_bps", flow="f9")


def test_plot_sweep_draws_one_line_per_group():
    import matplotlib

    matplotlib.use("Agg")
    ax = plot_sweep(frame(), "x", "goodput_bps", by="cc", per_point="sum", scale=1e-3)
    assert len(ax.containers) == 2 and ax.get_xlabel() == "x"
    assert "3 replicates" in ax.get_title()
    assert ccsim.plot_sweep is plot_sweep


@pytest.mark.needs_core
def test_plot_sweep_on_a_real_sweep(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    base = ccsim.dumbbell(2, duration="2s", trace_interval="0s", bottleneck_rate="10Mbps")
    df = ccsim.sweep(base, grid={"link.bottleneck.loss": [0.0, 0.01]}, seeds=2, out=tmp_path / "s", jobs=1,
                     progress=False)
    t = summarise(df, "link.bottleneck.loss", "goodput_bps", per_point="sum")
    assert list(t["n"]) == [2, 2] and t["mean"].iloc[0] > t["mean"].iloc[1]
    plot_sweep(df, "link.bottleneck.loss", "goodput_bps", per_point="sum")
