"""The ``fast-multipath-rip`` experiment (Mallada & Paganini, NET-COOP 2007) in quick mode:
the paper run and the three larger topologies, their equilibrium against the WELFARE
optimum, and every claim quick mode decides."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ccsim import cli
from ccsim.experiments import get, quick_claim_failures
from ccsim.results import load

pytestmark = pytest.mark.needs_core


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("fmr")
    assert cli.main(["reproduce", "fast-multipath-rip", "--quick", "--out", str(out), "-q", "--jobs", "2"]) == 0
    return out


@pytest.fixture(scope="module")
def df(out):
    df = load(out / "fast-multipath-rip" / "store")
    df.attrs["store"] = str(out / "fast-multipath-rip" / "store")  # as the report hands it to claims
    return df


def test_full_mode_adds_seeds_and_two_sensitivities():
    quick, full = (get("fast-multipath-rip").plans(m) for m in ("quick", "full"))
    assert full[0].seeds == 5 and len(full) == len(quick) + 2
    assert {p.labels["variant"] for p in full} == {"paper", "b^-1 = 30000", "jitter 1"}


def test_quick_decidable_claims_hold(df):
    # Quick runs are the paper's runs: every claim but the two early timeline points, whose
    # mechanism is documented.
    exp = get("fast-multipath-rip")
    assert all(c.quick for c in exp.claims)
    assert [c.text for c in exp.claims if c.mechanism] == [
        "link (2,4) saturates (queue first above 50 packets)",
        "the bottom link (3,4) fills (queue first above 50 packets)",
    ]
    assert quick_claim_failures(exp, df) == []


def test_report_has_the_figures(out):
    html = (out / "report" / "index.html").read_text()
    section = html.split('id="fast-multipath-rip"', 1)[1]
    assert len(re.findall(r'src="data:image/png;base64,', section)) == len(get("fast-multipath-rip").figures)
    assert "figure failed" not in section
