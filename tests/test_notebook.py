"""Notebook display: the compact HTML summaries of Result, Scenario, Network and sweep results,
and Result.plot()'s figure."""

from __future__ import annotations

import html.parser

import pandas as pd
import pytest

import ccsim
from ccsim._html import ROWS
from ccsim.store import sweep_frame


class _Checker(html.parser.HTMLParser):
    """Collects text and checks that every opened tag is closed."""

    VOID = {"br", "img"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def _text(markup: str) -> str:
    c = _Checker()
    c.feed(markup)
    assert not c.stack, f"unclosed {c.stack}"
    return " ".join(" ".join(c.text).split())


def test_result_summary_shows_the_key_facts(fake_result):
    text = _text(fake_result._repr_html_())
    for needle in ("simulated", "2 s", "events", "12345", "f1", "f2", "r1->r2", "80", "goodput Mb/s", "8"):
        assert needle in text, needle
    # The busiest link first.
    assert text.index("r1->r2") < text.index("r2->r1")


def test_result_summary_is_compact_with_many_flows():
    from tests.conftest import FakeRaw, _flow

    flows = [_flow(f"f{i}", 1.0, 0.01) for i in range(500)]
    summary = {"version": "x", "end_time_s": 1.0, "seed": 1, "events": 1, "flows": flows, "links": [],
               "conservation": {"created": 0, "delivered": 0, "dropped": {}, "in_flight": 0}}
    r = ccsim.Result(FakeRaw(summary, {}))
    text = _text(r._repr_html_())
    assert f"f{ROWS - 1}" in text and f"f{ROWS}" not in text and f"and {500 - ROWS} more" in text


def test_scenario_and_network_summaries_escape_and_count():
    sc = ccsim.topology.parking_lot(hops=2, cross_flows=2)
    sc.doc["flow"][0]["name"] = "<long & winding>"
    markup = sc._repr_html_()
    assert "<long" not in markup and "&lt;long &amp; winding&gt;" in markup
    text = _text(markup)
    n_links = sum(2 if e.get("between") else 1 for e in sc.doc["link"])
    assert f"directed links: {n_links}" in text and "flows: 5" in text and "transports: tcp 5" in text
    net = ccsim.topology.fat_tree(k=4)
    text = _text(net._repr_html_())
    assert "hosts: 16" in text and "routing: ecmp" in text and "h0_0_0" in text


def test_sweep_frame_is_a_dataframe_with_a_summary():
    df = pd.DataFrame({"point_id": ["a", "a", "b", "b"], "point": [0, 0, 1, 1], "link.x.loss": [0.0, 0.0, 0.01, 0.01],
                       "replicate": [0, 1, 0, 1], "seed": [1, 2, 1, 2], "name": ["f"] * 4,
                       "goodput_bps": [10e6, 12e6, 4e6, 6e6], "rtt_mean_s": [0.1] * 4, "retransmissions": [0, 0, 5, 7]})
    sf = sweep_frame(df)
    assert isinstance(sf, pd.DataFrame) and sf.equals(df)
    text = _text(sf._repr_html_())
    assert "rows: 4" in text and "points: 2" in text and "replicates: 2" in text and "link.x.loss: 0.0, 0.01" in text
    # Per point: the swept value, replicates, mean goodput (11 and 5 Mb/s), RTT (100 ms), retransmissions.
    assert "0 0 2 11 100 0" in text and "1 0.01 2 5 100 12" in text
    # Anything derived from it is a plain DataFrame with pandas' own display.
    assert type(sf[sf.point == 0]) is pd.DataFrame and type(sf.copy()) is pd.DataFrame
    assert type(sf.groupby("point").goodput_bps.mean().to_frame()) is pd.DataFrame
    # Tables without goodput (links, points) show their first rows.
    text = _text(sweep_frame(df.drop(columns=["goodput_bps"]))._repr_html_())
    assert "first rows" in text


def test_plot_gives_three_labelled_panels(fake_result):
    fig = fake_result.plot()
    axes = fig.get_axes()
    assert [ax.get_ylabel() for ax in axes] == ["cwnd (KB)", "rate (Mb/s)", "queue (packets)"]
    assert axes[-1].get_xlabel() == "time (s)"
    # cwnd of f1 in KB: 4.38, 5.84, 7.3.
    line = next(ln for ln in axes[0].get_lines() if ln.get_label() == "f1")
    assert list(line.get_ydata()) == pytest.approx([4.38, 5.84, 7.3])
    assert [ln.get_label() for ln in fake_result.plot(["cwnd"], flows=["f2"]).get_axes()[0].get_lines()] == ["f2"]
    with pytest.raises(ValueError, match="unknown panel"):
        fake_result.plot(["cwin"])


def test_plot_without_samples_says_so(empty_result):
    fig = empty_result.plot()
    assert all(any("no samples" in t.get_text() for t in ax.texts) for ax in fig.get_axes())


@pytest.mark.needs_core
def test_sweep_returns_a_summarised_frame(tmp_path):
    base = ccsim.topology.parking_lot(hops=2, duration="2s")
    df = ccsim.sweep(base, grid={"link.hop0.rate": ["5Mbps", "10Mbps"]}, out=tmp_path / "s", jobs=1, progress=False)
    assert type(df).__name__ == "SweepFrame" and len(df) == 2 * 3
    text = _text(df._repr_html_())
    assert "link.hop0.rate" in text and "5Mbps" in text and "10Mbps" in text
    assert type(ccsim.results.load(tmp_path / "s")).__name__ == "SweepFrame"
