"""The optimum that price-based multipath routing with FAST sources should reach.

Mallada & Paganini (NET-COOP 2007, §2.5) state that the equilibrium of FAST sources
(demand x = K/q, utility K·log x) and routers adapting their split ratios on queueing-delay
prices solves WELFARE: maximise Σ_k K_k·log x_k subject to link capacities and multipath
flow balance. This module formulates that problem for a scenario and solves it with
scipy's SLSQP, then compares a simulated equilibrium with it (docs/routing.md).

Formulation (one commodity per destination, because routers split per destination):

* variables: y[l, d] ≥ 0, traffic towards destination d on directed link l (Mb/s on the
  wire), and x_k > 0, flow k's data rate (Mb/s on the wire);
* flow balance at every node i ≠ d: Σ_out y[·, d] − Σ_in y[·, d] = traffic entering at i for
  d: x_k for flows from i to d, plus their acknowledgements (x_k·ack/data bytes) for flows
  from d to i when ``include_acks`` (ACKs share the links in the simulation);
* capacity: Σ_d y[l, d] ≤ c_l;
* objective: maximise Σ_k K_k·log(packets/s of flow k), less 10⁻⁴/max capacity per Mb/s carried so that
  the solver returns a routing without circulations (WELFARE itself is indifferent to them).

The rates x are unique (strictly concave objective); the link flows and splits need not be.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from ccsim.results import Result

__all__ = [
    "Network", "Demand", "Optimum", "network_from_scenario", "solve_welfare", "simulated_equilibrium",
    "compare", "compare_equilibrium", "parse_rate",
]

_RATE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([kKmMgG]?)(bps|b/s)\s*$")
_SCALE = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9}


def parse_rate(text: str | float) -> float:
    """A scenario rate ("37.5Mbps", "1Gbps", 1e6) in bit/s."""
    if isinstance(text, (int, float)):
        return float(text)
    m = _RATE.match(text)
    if not m:
        raise ValueError(f"cannot read the rate {text!r} (expected e.g. \"10Mbps\")")
    return float(m.group(1)) * _SCALE[m.group(2).lower()]


@dataclass(frozen=True)
class Demand:
    """A FAST source: K packets queued (utility K·log x), packet and ACK sizes in bytes."""

    name: str
    src: str
    dst: str
    weight: float
    data_bytes: int
    ack_bytes: int
    payload_bytes: int


@dataclass
class Network:
    """Directed links (from, to, capacity in bit/s) and FAST demands."""

    nodes: list[str]
    links: list[tuple[str, str, float]]
    demands: list[Demand]

    def link_names(self) -> list[str]:
        return [f"{a}->{b}" for a, b, _ in self.links]


@dataclass
class Optimum:
    """The WELFARE optimum: rates (packets/s of data), link loads, splits, saturated links."""

    rates_pps: dict[str, float]
    link_load_bps: dict[str, float]
    link_capacity_bps: dict[str, float]
    #: splits[(node, dest)][next_hop] for routers that forward data towards dest.
    splits: dict[tuple[str, str], dict[str, float]]
    saturated: set[str]
    utility: float
    success: bool
    message: str = ""
    flows_by_dest: dict[str, dict[str, float]] = field(default_factory=dict)


def network_from_scenario(doc: Mapping[str, Any]) -> Network:
    """The network of a scenario document (dict): links from ``[[link]]`` (``between`` gives
    both directions), FAST flows from ``[[flow]]`` (K = the controller's ``alpha``, packet =
    mss + header bytes, ACK = header bytes)."""
    links: list[tuple[str, str, float]] = []
    nodes: list[str] = []

    def node(n: str) -> None:
        if n not in nodes:
            nodes.append(n)

    for lk in doc.get("link", []):
        c = parse_rate(lk["rate"])
        if "between" in lk:
            a, b = lk["between"]
            pairs = [(a, b), (b, a)]
        else:
            pairs = [(lk["from"], lk["to"])]
        for a, b in pairs:
            node(a)
            node(b)
            links.append((a, b, c))
    demands = []
    for f in doc.get("flow", []):
        cc = f.get("cc", {})
        if isinstance(cc, str) or cc.get("kind") != "fast":
            raise ValueError(f"flow {f.get('name')!r}: the optimum is defined for FAST sources only")
        mss, header = int(f.get("mss", 1460)), int(f.get("header", 40))
        demands.append(Demand(f["name"], f["from"], f["to"], float(cc.get("alpha", 250)), mss + header, header, mss))
    return Network(nodes, links, demands)


def solve_welfare(net: Network, include_acks: bool = True, method: str = "trust-constr") -> Optimum:
    """Solve WELFARE for ``net`` with scipy (``"trust-constr"``, an interior-point method with
    sparse constraints, or ``"SLSQP"``, slower beyond a few dozen links); rates in Mb/s
    internally."""
    from scipy.optimize import minimize

    names = net.link_names()
    n_l, n_k = len(net.links), len(net.demands)
    dests = sorted({d.dst for d in net.demands} | ({d.src for d in net.demands} if include_acks else set()),
                   key=net.nodes.index)
    n_d = len(dests)
    n_y = n_l * n_d
    cap = np.array([c for _, _, c in net.links]) / 1e6
    pps = np.array([1e6 / (8 * d.data_bytes) for d in net.demands])  # packets/s per Mb/s
    w = np.array([d.weight for d in net.demands])
    w_scale = w / w.max()

    def yi(l: int, k: int) -> int:
        return k * n_l + l

    # Flow balance rows: for each destination d and node i != d.
    rows, rhs_cols = [], []
    for k, d in enumerate(dests):
        for i in net.nodes:
            if i == d:
                continue
            row = np.zeros(n_y + n_k)
            for l, (a, b, _) in enumerate(net.links):
                if a == i:
                    row[yi(l, k)] += 1.0
                if b == i:
                    row[yi(l, k)] -= 1.0
            for j, dem in enumerate(net.demands):
                if dem.src == i and dem.dst == d:
                    row[n_y + j] -= 1.0
                if include_acks and dem.dst == i and dem.src == d:
                    row[n_y + j] -= dem.ack_bytes / dem.data_bytes
            rows.append(row)
            rhs_cols.append((d, i))
    a_eq = np.array(rows)
    a_cap = np.zeros((n_l, n_y + n_k))
    for l in range(n_l):
        for k in range(n_d):
            a_cap[l, yi(l, k)] = 1.0

    # A tiny cost per Mb/s carried picks, among the optimal routings, one without
    # circulations (WELFARE is indifferent to them); it moves rates by about 10⁻⁵ relative.
    eps = 1e-4 / cap.max()

    def f(z: np.ndarray) -> float:
        return float(-(w_scale * np.log(np.maximum(z[n_y:], 1e-12))).sum() + eps * z[:n_y].sum())

    def grad(z: np.ndarray) -> np.ndarray:
        g = np.full_like(z, eps)
        g[n_y:] = -w_scale / np.maximum(z[n_y:], 1e-12)
        return g

    # Start: a small feasible-ish point (a fraction of the smallest capacity per flow).
    z0 = np.zeros(n_y + n_k)
    z0[n_y:] = cap.min() / (4 * max(n_k, 1))
    cons = [
        {"type": "eq", "fun": lambda z: a_eq @ z, "jac": lambda z: a_eq},
        {"type": "ineq", "fun": lambda z: cap - a_cap @ z, "jac": lambda z: -a_cap},
    ]
    bounds = [(0.0, None)] * n_y + [(1e-9, None)] * n_k
    if method == "SLSQP":
        res = minimize(f, z0, jac=grad, constraints=cons, bounds=bounds, method="SLSQP",
                       options={"maxiter": 2000, "ftol": 1e-12})
    else:
        from scipy.optimize import Bounds, LinearConstraint
        from scipy.sparse import csr_matrix, diags

        def hess(z: np.ndarray) -> Any:
            h = np.zeros_like(z)
            h[n_y:] = w_scale / np.maximum(z[n_y:], 1e-12) ** 2
            return diags(h)

        lin = [LinearConstraint(csr_matrix(a_eq), 0.0, 0.0), LinearConstraint(csr_matrix(a_cap), -np.inf, cap)]
        lo = np.r_[np.zeros(n_y), np.full(n_k, 1e-9)]
        res = minimize(f, z0, jac=grad, hess=hess, constraints=lin, bounds=Bounds(lo, np.inf),
                       method="trust-constr", options={"maxiter": 5000, "gtol": 1e-10, "xtol": 1e-12})
    z = res.x
    y = z[:n_y].reshape(n_d, n_l)
    x = z[n_y:]
    load = y.sum(axis=0)
    splits: dict[tuple[str, str], dict[str, float]] = {}
    by_dest: dict[str, dict[str, float]] = {}
    data_dests = {d.dst for d in net.demands}
    for k, d in enumerate(dests):
        by_dest[d] = {names[l]: float(y[k, l] * 1e6) for l in range(n_l) if y[k, l] > 1e-9}
        if d not in data_dests:
            continue
        for i in net.nodes:
            if i == d:
                continue
            out = {b: float(y[k, l]) for l, (a, b, _) in enumerate(net.links) if a == i}
            tot = sum(out.values())
            if tot > 1e-3 * cap.min():
                splits[(i, d)] = {b: v / tot for b, v in out.items()}
    return Optimum(
        rates_pps={dem.name: float(x[j] * pps[j]) for j, dem in enumerate(net.demands)},
        link_load_bps={names[l]: float(load[l] * 1e6) for l in range(n_l)},
        link_capacity_bps={names[l]: float(cap[l] * 1e6) for l in range(n_l)},
        splits=splits,
        saturated={names[l] for l in range(n_l) if load[l] >= cap[l] * (1 - 1e-3)},
        utility=float(sum(dem.weight * math.log(x[j] * pps[j]) for j, dem in enumerate(net.demands))),
        success=bool(res.success),
        message=str(res.message),
        flows_by_dest=by_dest,
    )


def simulated_equilibrium(doc: Mapping[str, Any], flow_series: pd.DataFrame, link_series: pd.DataFrame,
                          route_series: pd.DataFrame, window: tuple[float, float],
                          saturation_delay_s: float = 1e-3) -> dict[str, Any]:
    """Rates (packets/s of payload), mean queueing delays, mean splits and saturated links of
    a run of ``doc`` over ``window`` = (t0, t1) seconds, from its time series (``Result``'s
    ``flow_series``, ``link_series``, ``route_series``, or a sweep store's). A link is
    saturated if its mean queueing delay over the window exceeds ``saturation_delay_s``
    (FAST keeps standing queues only at bottlenecks)."""
    t0, t1 = window
    net = network_from_scenario(doc)
    payload = {d.name: d.payload_bytes for d in net.demands}
    cap_of = {f"{a}->{b}": c for a, b, c in net.links}
    fs = flow_series[(flow_series.time_s > t0) & (flow_series.time_s <= t1)]
    rates = {str(n): float(g.rate_bps.mean() / (8 * payload[str(n)])) for n, g in fs.groupby("flow", observed=True)}
    ls = link_series[(link_series.time_s > t0) & (link_series.time_s <= t1)]
    delay = {str(n): float(g.queue_bytes.mean() * 8 / cap_of[str(n)]) for n, g in ls.groupby("link", observed=True)
             if str(n) in cap_of}
    rs = route_series[(route_series.time_s > t0) & (route_series.time_s <= t1)]
    splits: dict[tuple[str, str], dict[str, float]] = {}
    for (node, dest, hop), g in rs.groupby(["node", "dest", "next_hop"], observed=True):
        splits.setdefault((str(node), str(dest)), {})[str(hop)] = float(g.alpha.mean())
    return {
        "rates_pps": rates,
        "queue_delay_s": delay,
        "saturated": {n for n, d in delay.items() if d > saturation_delay_s},
        "splits": splits,
    }


def compare(result: Result, opt: Optimum, window: tuple[float, float]) -> pd.DataFrame:
    """``compare_equilibrium`` for a ``Result`` (its scenario and time series)."""
    doc = result.scenario.doc
    sim = simulated_equilibrium(doc, result.flow_series, result.link_series, result.route_series, window)
    return compare_equilibrium(doc, sim, opt)


def compare_equilibrium(doc: Mapping[str, Any], sim: Mapping[str, Any], opt: Optimum) -> pd.DataFrame:
    """One row per quantity: simulated value (``simulated_equilibrium``), optimum and gap
    (relative for rates, absolute for splits and utility), then the saturated-link sets
    (gap 0 when they agree, NaN otherwise). Rates are packets/s."""
    import pandas as pd

    net = network_from_scenario(doc)
    rows = []
    for name, x_opt in opt.rates_pps.items():
        x_sim = sim["rates_pps"].get(name, float("nan"))
        rows.append({"quantity": f"rate {name} (pkt/s)", "simulated": x_sim, "optimum": x_opt,
                     "gap": (x_sim - x_opt) / x_opt})
    tot_sim = sum(sim["rates_pps"].values())
    tot_opt = sum(opt.rates_pps.values())
    rows.append({"quantity": "total rate (pkt/s)", "simulated": tot_sim, "optimum": tot_opt, "gap": (tot_sim - tot_opt) / tot_opt})
    u_sim = sum(d.weight * math.log(max(sim["rates_pps"].get(d.name, 0.0), 1e-9)) for d in net.demands)
    rows.append({"quantity": "utility Σ K log x", "simulated": u_sim, "optimum": opt.utility, "gap": u_sim - opt.utility})
    for (node, dest), split in sorted(opt.splits.items()):
        for hop, a_opt in sorted(split.items()):
            a_sim = sim["splits"].get((node, dest), {}).get(hop, 0.0)
            rows.append({"quantity": f"split {node}->{hop} for {dest}", "simulated": a_sim, "optimum": a_opt,
                         "gap": a_sim - a_opt})
    same = sim["saturated"] == opt.saturated
    rows.append({"quantity": "saturated links", "simulated": ", ".join(sorted(sim["saturated"])),
                 "optimum": ", ".join(sorted(opt.saturated)), "gap": 0.0 if same else float("nan")})
    return pd.DataFrame(rows)
