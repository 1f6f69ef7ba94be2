"""Traffic matrices: lists of ``[[flow]]`` entries for a network's hosts.

Every function returns plain flow tables (dicts as in a scenario file), so they can be
combined, edited, and passed to ``Network.scenario(flows)`` or appended to a document's
``flow`` list. Random choices come from ``random.Random(seed)``: one seed, the same flows.

Each function takes the flow keys to put on every flow as keyword arguments
(``transport="tcp"``, ``cc="cubic"``, ``recovery="sack"``...) and an ``app`` (default: a
greedy bulk transfer, ``{"kind": "bulk", "size": "inf"}``); ``name`` is the prefix of the
flow names (``f0``, ``f1``, ...). See docs/python.md, "Traffic".
"""

from __future__ import annotations

import bisect
import math
import os
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ccsim._units import duration_s, duration_text, rate_bps

__all__ = ["permutation", "all_to_all", "incast", "random_pairs", "poisson", "FlowSizes", "flow_sizes"]

#: The application of a flow unless told otherwise: a greedy bulk transfer from time 0.
GREEDY = {"kind": "bulk", "size": "inf"}


def _hosts(hosts: Iterable[str], least: int = 2) -> list[str]:
    out = [str(h) for h in hosts]
    if len(set(out)) != len(out):
        raise ValueError("hosts: a host is listed twice")
    if len(out) < least:
        raise ValueError(f"hosts: need at least {least}, got {len(out)}")
    return out


def _flows(pairs: Iterable[tuple[str, str]], name: str, app: Mapping[str, Any] | None, keys: Mapping[str, Any]) -> list[dict[str, Any]]:
    application = dict(app) if app is not None else dict(GREEDY)
    return [{"name": f"{name}{i}", "from": s, "to": d, **keys, "app": dict(application)} for i, (s, d) in enumerate(pairs)]


def permutation(hosts: Iterable[str], *, seed: int = 1, name: str = "f", app: Mapping[str, Any] | None = None,
                **keys: Any) -> list[dict[str, Any]]:
    """A random permutation matrix: every host sends one flow and receives one, never to
    itself (a derangement drawn uniformly, by rejection). Flow ``i`` leaves ``hosts[i]``."""
    hs = _hosts(hosts)
    rng = random.Random(seed)
    while True:
        targets = hs[:]
        rng.shuffle(targets)
        if all(s != d for s, d in zip(hs, targets)):
            return _flows(zip(hs, targets), name, app, keys)


def all_to_all(hosts: Iterable[str], *, name: str = "f", app: Mapping[str, Any] | None = None,
               **keys: Any) -> list[dict[str, Any]]:
    """One flow from every host to every other: ``n·(n−1)`` flows, by source then destination."""
    hs = _hosts(hosts)
    return _flows(((s, d) for s in hs for d in hs if s != d), name, app, keys)


def incast(senders: Iterable[str], receiver: str, *, name: str = "f", app: Mapping[str, Any] | None = None,
           **keys: Any) -> list[dict[str, Any]]:
    """N to 1: one flow from each sender to ``receiver`` (the partition/aggregate pattern of
    DCTCP's incast; give them a finite ``app`` size for the classic synchronised burst)."""
    ss = _hosts(senders, least=1)
    if receiver in ss:
        raise ValueError(f"incast: the receiver {receiver!r} is also a sender")
    return _flows(((s, receiver) for s in ss), name, app, keys)


def random_pairs(hosts: Iterable[str], n: int, *, seed: int = 1, name: str = "f", app: Mapping[str, Any] | None = None,
                 **keys: Any) -> list[dict[str, Any]]:
    """``n`` flows between uniformly drawn hosts (source and destination distinct; a pair may
    repeat)."""
    hs = _hosts(hosts)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive integer, not {n!r}")
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        s, d = rng.sample(hs, 2)
        pairs.append((s, d))
    return _flows(pairs, name, app, keys)


@dataclass(frozen=True)
class FlowSizes:
    """An empirical flow-size distribution: a piecewise-linear CDF through ``points``
    (``(size_bytes, cumulative probability)``, both non-decreasing, the last probability 1;
    a first probability above 0 is an atom at the first size)."""

    points: tuple[tuple[float, float], ...]
    name: str = ""

    def __post_init__(self) -> None:
        pts = self.points
        if len(pts) < 1:
            raise ValueError(f"{self.name or 'flow sizes'}: no points")
        for i, (x, p) in enumerate(pts):
            if not (x > 0 and math.isfinite(x)) or not (0 <= p <= 1):
                raise ValueError(f"{self.name or 'flow sizes'}: point {i + 1} ({x}, {p}): sizes must be > 0, probabilities in [0, 1]")
            if i and (x < pts[i - 1][0] or p < pts[i - 1][1]):
                raise ValueError(f"{self.name or 'flow sizes'}: point {i + 1} ({x}, {p}) is below the one before; sizes and probabilities must not decrease")
        if pts[-1][1] != 1:
            raise ValueError(f"{self.name or 'flow sizes'}: the last probability must be 1, not {pts[-1][1]}")

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, scale: float = 1.0) -> FlowSizes:
        """Read a CDF file: one ``size cdf`` pair per line (a third column, as in the ns-2
        ``size 1 cdf`` files of pFabric-era scripts, is allowed and the last one taken as the
        probability), ``#`` comments and blank lines ignored. Sizes are multiplied by
        ``scale`` (1460 for files in packets). ``ValueError`` names the file and line."""
        where = os.fspath(path)
        with open(where, encoding="utf-8") as f:
            text = f.read()
        pts = []
        for no, line in enumerate(text.splitlines(), 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.split()
            try:
                if len(fields) not in (2, 3):
                    raise ValueError
                pts.append((float(fields[0]) * scale, float(fields[-1])))
            except ValueError:
                raise ValueError(f"{where}:{no}: expected 'size cdf', found {line!r}") from None
        return cls(tuple(pts), name=os.path.basename(where))

    @property
    def mean(self) -> float:
        """Mean flow size in bytes (of the piecewise-linear distribution)."""
        x0, p0 = self.points[0]
        total = x0 * p0
        for (xa, pa), (xb, pb) in zip(self.points, self.points[1:]):
            total += (pb - pa) * (xa + xb) / 2
        return total

    def quantile(self, u: float) -> float:
        """The size at cumulative probability ``u`` in [0, 1] (inverse CDF, interpolated)."""
        ps = [p for _, p in self.points]
        i = bisect.bisect_left(ps, u)
        if i == 0:
            return self.points[0][0]
        (xa, pa), (xb, pb) = self.points[i - 1], self.points[min(i, len(ps) - 1)]
        return xb if pb == pa else xa + (u - pa) / (pb - pa) * (xb - xa)

    def sample(self, rng: random.Random) -> int:
        """One flow size in whole bytes (at least 1)."""
        return max(1, round(self.quantile(rng.random())))


def flow_sizes(name: str | os.PathLike[str], *, scale: float = 1.0) -> FlowSizes:
    """A shipped distribution by name, ``"websearch"`` (DCTCP, Alizadeh et al. 2010) or
    ``"datamining"`` (VL2, Greenberg et al. 2009), both as used by pFabric (Alizadeh et al.
    2013; sources in the files, ``ccsim/scenarios/flow_sizes/``), or a CDF file's path."""
    root = resources.files("ccsim") / "scenarios" / "flow_sizes"
    shipped = sorted(p.name[: -len(".cdf")] for p in root.iterdir() if p.name.endswith(".cdf"))
    if isinstance(name, str) and name in shipped:
        return FlowSizes.from_file(str(root / f"{name}.cdf"), scale=scale)
    if isinstance(name, str) and os.sep not in name and "." not in name:
        raise KeyError(f"no shipped flow-size distribution {name!r}; shipped: {', '.join(shipped)} (or give a file path)")
    return FlowSizes.from_file(name, scale=scale)


def poisson(
    hosts: Sequence[str],
    *,
    load: float,
    rate: str | float,
    sizes: FlowSizes | str,
    duration: str | float,
    start: str | float = "0s",
    seed: int = 1,
    name: str = "f",
    max_flows: int = 100_000,
    **keys: Any,
) -> list[dict[str, Any]]:
    """Flows arriving as a Poisson process at a given load, between random host pairs.

    ``load`` (0 < load) is the average offered load on each host's link as a fraction of
    ``rate`` (the hosts' link rate): flows arrive at the total rate
    ``λ = load · rate · len(hosts) / (8 · mean size)`` per second (the definition of the
    pFabric and DCTCP-era evaluations), from ``start`` for ``duration``, each between a
    uniformly drawn source and a distinct uniformly drawn destination, with a size drawn from
    ``sizes`` (a :class:`FlowSizes`, a shipped name or a CDF file). Each flow is a finite
    bulk transfer starting at its arrival time, named ``<name><k>`` in arrival order.
    ``max_flows`` guards against a load or duration that would make millions of flows.
    """
    hs = _hosts(hosts)
    dist = sizes if isinstance(sizes, FlowSizes) else flow_sizes(sizes)
    if not (load > 0 and math.isfinite(load)):
        raise ValueError(f"load must be a positive fraction of the link rate, not {load!r}")
    bps, span, t0 = rate_bps(rate), duration_s(duration), duration_s(start)
    lam = load * bps * len(hs) / (8 * dist.mean)
    if lam * span > max_flows:
        raise ValueError(f"about {lam * span:.0f} flows expected (λ = {lam:.4g}/s over {span:g} s), more than "
                         f"max_flows = {max_flows}; shorten the duration or raise max_flows")
    rng = random.Random(seed)
    flows, t = [], t0
    while True:
        t += rng.expovariate(lam)
        if t >= t0 + span:
            return flows
        s, d = rng.sample(hs, 2)
        app = {"kind": "bulk", "size": f"{dist.sample(rng)}B", "start": duration_text(t)}
        flows.append({"name": f"{name}{len(flows)}", "from": s, "to": d, **keys, "app": app})
