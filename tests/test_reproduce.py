"""``ccsim reproduce``: the experiment registry, the foundation experiment and the report."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ccsim import cli
from ccsim.experiments import Claim, Experiment, get, jain, quick_claim_failures, registry

pytestmark = pytest.mark.needs_core


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reproduce")
    assert cli.main(["reproduce", "foundation", "--quick", "--out", str(out), "-q"]) == 0
    return out


def test_registry_and_claims():
    reg = registry()
    assert "foundation" in reg
    exp = get("foundation")
    assert isinstance(exp, Experiment) and exp.figures and exp.claims
    assert len(exp.plans("quick")) >= 2 and len(exp.plans("full")) == len(exp.plans("quick"))
    with pytest.raises(KeyError, match="known: foundation"):
        get("nosuch")
    c = Claim("ref", "x", 0.95, lambda df: 0.0, kind="at_least")
    assert c.holds(0.96) and not c.holds(0.9) and c.paper_text() == "≥ 0.95"
    c = Claim("ref", "x", 10.0, lambda df: 0.0, unit="%", tolerance=1.0)
    assert c.holds(10.8) and not c.holds(11.5) and c.paper_text() == "10 %" and c.tolerance_text() == "± 1 %"
    assert c.holds_quick(10.8) and not c.holds_quick(11.5) and c.holds(11.5, tolerance=2.0)
    assert Claim("ref", "x", 10.0, lambda df: 0.0, tolerance=1.0, quick_tolerance=2.0).holds_quick(11.5)
    c = Claim("ref", "x", 0.0, lambda df: 0.0, unit="%", tolerance=10.0, kind="at_most")
    assert c.holds(4.35) and c.tolerance_text() == "≤ 10 % (bound + 10)"
    assert jain([1, 1, 1, 1]) == pytest.approx(1.0) and jain([1, 0, 0, 0]) == pytest.approx(0.25)


def test_unknown_experiment_exits_2(tmp_path, capsys):
    assert cli.main(["reproduce", "nosuch", "--out", str(tmp_path)]) == 2
    assert "unknown experiment 'nosuch'; known: foundation" in capsys.readouterr().err


def test_reproduce_writes_store_and_report(report):
    store = report / "foundation" / "store"
    assert (store / "manifest.json").exists() and list((store / "points").glob("*.flows.parquet"))
    html = (report / "report" / "index.html").read_text()
    md = (report / "report" / "README.md").read_text()
    assert '<section class="experiment" id="foundation">' in html
    assert "Paper vs ccsim" in html and "paper says" in html and "ccsim gives" in html and "difference" in html
    imgs = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert len(imgs) == len(get("foundation").figures)
    for data in imgs:
        assert base64.b64decode(data)[:8] == b"\x89PNG\r\n\x1a\n"
    assert 'src="http' not in html and "<script" not in html  # self-contained
    assert html.count("<tr><td>ccsim requirement</td>") == len(get("foundation").claims)
    assert "holds" in html and "does not hold" not in html
    assert "seeds:" in html and "ccsim " in html
    # Markdown: the same tables, images beside it
    assert "| paper says | accepted | ccsim gives | difference | status |" in md
    assert "quick mode." in md and "quick mode" in html  # the mode and what it means, at the top
    for m in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md):
        assert (report / "report" / m).read_bytes()[:4] == b"\x89PNG"
    assert md.count("](foundation/") == len(get("foundation").figures)


def test_quick_decidable_claims_hold(report):
    from ccsim.results import load

    exp = get("foundation")
    df = load(report / "foundation" / "store")
    df.attrs["store"] = str(report / "foundation" / "store")
    assert all(c.quick for c in exp.claims)
    assert quick_claim_failures(exp, df) == []


def test_rerun_reuses_the_store(report, capsys):
    assert cli.main(["reproduce", "foundation", "--out", str(report)]) == 0
    out = capsys.readouterr().out
    assert "0 run now, 0 failed" in out and "[ok ]" in out


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_report_renders_in_headless_chromium(report, tmp_path):
    page = (report / "report" / "index.html").resolve()
    dom = subprocess.run(
        ["chromium", "--headless", "--disable-gpu", "--no-sandbox", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    ).stdout
    assert 'id="foundation"' in dom and "Paper vs ccsim" in dom
    assert dom.count("data:image/png;base64,") == len(get("foundation").figures)
    shot = tmp_path / "report.png"
    subprocess.run(
        ["chromium", "--headless", "--disable-gpu", "--no-sandbox", f"--screenshot={shot}", "--window-size=1100,3000", page.as_uri()],
        capture_output=True, timeout=120,
    )
    assert shot.exists() and shot.read_bytes()[:4] == b"\x89PNG"


def test_help_lists_every_experiment(capsys):
    assert cli.main(["reproduce", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for name in registry():
        assert name in out


def test_cached_tables_read_a_plans_table_once(report, monkeypatch):
    from ccsim import results
    from ccsim.experiments import cached_tables, load_table

    store = report / "foundation" / "store"
    df = results.load(store)
    df.attrs["store"], df.attrs["plan"] = str(store), None
    want = results.load(store, table="flow_series")
    reads = []
    real = results.load
    monkeypatch.setattr(results, "load", lambda *a, **kw: (reads.append(kw.get("table")), real(*a, **kw))[1])
    with cached_tables():
        a = load_table(df, "flow_series")
        a["mine"] = 1.0  # a caller's column stays its own
        b = load_table(df, "flow_series")
        load_table(df, "links")
    assert reads == ["flow_series", "links"]
    assert "mine" not in b.columns and b.equals(want)
    load_table(df, "flow_series")  # outside the block: read again
    assert reads == ["flow_series", "links", "flow_series"]


def test_pool_takes_the_experiments_least_work_first():
    from ccsim.report import pool_order

    assert pool_order({0: 5.0, 1: 1.0, 2: 3.0, 3: 1.0}) == [1, 3, 2, 0]  # ties in the order named
