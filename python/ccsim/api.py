"""``run``: build a simulation in the core, advance it in chunks, collect a ``Result``."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ccsim import _core
from ccsim.progress import ProgressLine
from ccsim.results import Result
from ccsim.scenario import Scenario, load

__all__ = ["run", "as_scenario"]

#: The simulated duration is run in this many equal slices (progress, Ctrl-C between slices).
CHUNKS = 100


def as_scenario(scenario: Scenario | Mapping[str, Any] | str | os.PathLike[str]) -> Scenario:
    """A ``Scenario`` from a Scenario, a document dict, or a path to a scenario file."""
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, Mapping):
        return Scenario(scenario)
    if isinstance(scenario, (str, os.PathLike)):
        return load(Path(scenario))
    raise TypeError(f"run() takes a Scenario, a dict or a path, not {type(scenario).__name__}")


def run(
    scenario: Scenario | Mapping[str, Any] | str | os.PathLike[str],
    *,
    progress: bool | None | Callable[[float, float, float], object] = None,
    threads: int | str | None = None,
) -> Result:
    """Run a scenario to its end and return its ``Result``.

    ``scenario`` is a ``Scenario``, a document dict or a path to a scenario file.
    ``progress``: ``None`` (default) shows a one-line indicator on stderr once the run has
    taken 2 s, if stderr is a terminal; ``True`` always shows it; ``False`` never; a callable
    is called as ``progress(sim_s, end_s, wall_s)`` after each of the 100 slices.
    ``threads``: 1, 2 or ``"auto"``, overriding the scenario's ``[simulation] threads`` (same
    results; with 2 the network is split across its longest links, see docs/performance.md;
    ``"auto"`` chooses two when that pays now and says what it chose in the warnings).

    The core runs without the GIL, so other Python threads keep running. Raises
    ``ScenarioError`` for an invalid scenario and ``SimError`` if the core fails.
    """
    sc = as_scenario(scenario)
    if threads is not None:
        sc = sc.copy().set("simulation.threads", threads)
    t0 = time.perf_counter()
    sim = _core.Simulation(sc.to_json(), sc.source)
    end = sim.end_s()
    line = ProgressLine(progress)
    try:
        for i in range(1, CHUNKS + 1):
            sim.run_until(end * i / CHUNKS)
            line.update(sim.now_s(), end)
        raw = sim.finish()
    finally:
        line.close()
    return Result(raw, scenario=sc, wall_s=time.perf_counter() - t0)
