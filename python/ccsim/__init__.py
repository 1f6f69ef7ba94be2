"""ccsim: a packet-level network simulator for congestion-control research.

    >>> import ccsim
    >>> result = ccsim.run(ccsim.dumbbell(n_flows=4, duration="10s"))   # doctest: +SKIP
    >>> result.flows[["name", "goodput_bps"]]                           # doctest: +SKIP

See docs/python.md.
"""

from ccsim import _core
from ccsim.api import run
from ccsim.exceptions import ScenarioError, SimError
from ccsim.results import Result
from ccsim.scenario import Scenario, dumbbell, load
from ccsim import examples  # shipped scenario files: examples.names(), examples.path(name)
from ccsim import topology  # ready-made networks: fat_tree, leaf_spine, parking_lot, ring, grid, ...
from ccsim import traffic  # traffic matrices: permutation, all_to_all, incast, random_pairs, poisson
from ccsim.netx import from_networkx, read_graphml
from ccsim import sweep  # the module, callable as sweep.sweep (ccsim.sweep(base, grid=...))

__version__: str = _core.version()

__all__ = ["load", "run", "dumbbell", "sweep", "examples", "topology", "traffic", "from_networkx", "read_graphml",
           "Scenario", "Result", "ScenarioError", "SimError", "__version__"]
