"""Every shipped scenario runs through the Python API, conserves packets and reports one
row per flow (and per MPTCP subflow)."""

from pathlib import Path

import pytest

import ccsim

SCENARIOS = sorted((Path(__file__).parent.parent / "python" / "ccsim" / "scenarios").glob("*.toml"))


def expected_rows(doc: dict) -> int:
    """Flow rows a run reports: each `[[flow]]` entry `count` times (default 1), plus one row
    per subflow (one per pinned path) for MPTCP."""
    rows = 0
    for f in doc.get("flow", []):
        per_entry = 1 + (len(f.get("paths", [])) if f.get("transport") == "mptcp" else 0)
        rows += f.get("count", 1) * per_entry
    return rows


def test_every_shipped_scenario_is_checked():
    assert len(SCENARIOS) >= 7


@pytest.mark.needs_core
@pytest.mark.parametrize("path", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_scenario_conserves_packets(path):
    sc = ccsim.load(path)
    sc.set("simulation.duration", "5s")
    r = ccsim.run(sc, progress=False)
    c = r.conservation
    assert c["created"] > 0
    dropped = sum(c["dropped"].values())
    assert c["created"] == c["delivered"] + dropped + c["in_flight"]
    assert len(r.flows) == expected_rows(sc.doc)
