"""Every shipped scenario runs through the Python API and conserves packets."""

from pathlib import Path

import pytest

import ccsim

SCENARIOS = sorted((Path(__file__).parent.parent / "scenarios").glob("*.toml"))


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
    assert len(r.flows) == len(sc.doc.get("flow", [])) or len(r.flows) >= 1
