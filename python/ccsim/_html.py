"""Compact HTML summaries for Jupyter: one renderer behind ``Result._repr_html_``,
``Scenario._repr_html_``, ``Network._repr_html_`` and the sweep results' frame.

Each summary is a title, a line of key facts and a few short tables (at most ``ROWS`` rows,
with "… and N more"), so a notebook cell stays readable with thousands of flows.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from ccsim.results import Result
    from ccsim.scenario import Scenario
    from ccsim.topology import Network

__all__ = ["card", "result_html", "scenario_html", "network_html", "sweep_html", "ROWS"]

#: Rows shown per table.
ROWS = 8

_STYLE = ("font-family:sans-serif;font-size:12px;border:1px solid #ccc;border-radius:4px;"
          "padding:6px 10px;display:inline-block;max-width:100%;overflow-x:auto")
_TH = "text-align:left;padding:1px 8px;border-bottom:1px solid #ccc"
_TD = "text-align:left;padding:1px 8px"


def _cell(v: Any) -> str:
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        return f"{v:.4g}"
    return html.escape(str(v))


def card(title: str, facts: Sequence[tuple[str, Any]], tables: Sequence[tuple[str, Sequence[str], Sequence[Sequence[Any]], int]] = (),
         note: str | None = None) -> str:
    """A summary box: ``title``, ``facts`` as "key: value" pairs, then ``tables`` of
    ``(caption, header, rows, total)`` (``total`` rows exist, ``rows`` are shown)."""
    out = [f'<div style="{_STYLE}"><b>{html.escape(title)}</b>']
    if facts:
        out.append("<div>" + " · ".join(f"{html.escape(k)}: <b>{_cell(v)}</b>" for k, v in facts) + "</div>")
    for caption, header, rows, total in tables:
        out.append(f'<div style="margin-top:4px"><i>{html.escape(caption)}</i></div><table style="border-collapse:collapse">')
        out.append("<tr>" + "".join(f'<th style="{_TH}">{html.escape(h)}</th>' for h in header) + "</tr>")
        for row in rows:
            out.append("<tr>" + "".join(f'<td style="{_TD}">{_cell(v)}</td>' for v in row) + "</tr>")
        out.append("</table>")
        if total > len(rows):
            out.append(f"<div>… and {total - len(rows)} more</div>")
    if note:
        out.append(f"<div><i>{html.escape(note)}</i></div>")
    out.append("</div>")
    return "".join(out)


def _mbps(bps: Any) -> float:
    return float("nan") if bps is None else float(bps) / 1e6


def _ms(s: Any) -> float:
    return float("nan") if s is None else float(s) * 1e3


def result_html(result: Result) -> str:
    """Summary of a run: time, events, packet account, the first flows, the busiest links."""
    s = result.summary
    flows, links = s.get("flows", []), s.get("links", [])
    c = s.get("conservation", {})
    dropped = sum((c.get("dropped") or {}).values())
    facts = [("simulated", f"{s.get('end_time_s', 0):g} s"), ("seed", s.get("seed", "")), ("events", s.get("events", 0)),
             ("flows", len(flows)), ("directed links", len(links)), ("packets created", c.get("created", 0)),
             ("dropped", dropped), ("in flight at end", c.get("in_flight", 0))]
    if result.wall_s is not None:
        facts.append(("wall", f"{result.wall_s:.3g} s"))
    if result.pcap_names:
        facts.append(("packet captures", ", ".join(result.pcap_names)))
    flow_rows = [[f.get("name"), f.get("transport"), f.get("cc"), _mbps(f.get("goodput_bps")), f.get("retransmissions"),
                  f.get("timeouts"), _ms(f.get("rtt_mean_s"))] for f in flows[:ROWS]]
    busiest = sorted(links, key=lambda lk: -(lk.get("utilisation") or 0.0))[:ROWS]
    link_rows = [[lk.get("name"), 100 * (lk.get("utilisation") or 0.0), lk.get("packets_out"),
                  sum((lk.get("drops") or {}).values())] for lk in busiest]
    tables = [("flows", ["flow", "transport", "cc", "goodput Mb/s", "retransmissions", "timeouts", "mean RTT ms"], flow_rows, len(flows)),
              ("busiest links", ["link", "utilisation %", "packets out", "drops"], link_rows, len(links))]
    warnings = s.get("warnings") or []
    note = f"{len(warnings)} warning(s): {warnings[0]}" if warnings else None
    source = result.scenario.source if result.scenario is not None else ""
    return card(f"ccsim result{': ' + source if source else ''}", facts, tables, note)


def _ends(entry: Mapping[str, Any]) -> str:
    if entry.get("between"):
        a, b = entry["between"][:2]
        return f"{a} – {b}"
    return f"{entry.get('from')} → {entry.get('to')}"


def _queue(entry: Mapping[str, Any]) -> str:
    q = entry.get("queue")
    if q is None:
        return "droptail 100p"
    if isinstance(q, Mapping):
        return " ".join(str(v) for k, v in q.items() if k in ("kind", "limit"))
    return str(q)


def _link_table(links: Sequence[Mapping[str, Any]]) -> tuple[str, list[str], list[list[Any]], int]:
    rows = [[e.get("name", ""), _ends(e), e.get("rate"), e.get("delay"), _queue(e)] for e in links[:ROWS]]
    return ("link entries", ["name", "ends", "rate", "delay", "queue"], rows, len(links))


def _nodes(links: Sequence[Mapping[str, Any]]) -> int:
    names = set()
    for e in links:
        names.update(e.get("between") or [e.get("from"), e.get("to")])
    names.discard(None)
    return len(names)


def _routing(doc_routing: Any) -> str:
    if isinstance(doc_routing, Mapping):
        return str(doc_routing.get("kind", "static"))
    return "static"


def scenario_html(sc: Scenario) -> str:
    """Summary of a scenario document: its size, routing, the first links and flows."""
    doc = sc.doc
    sim = doc.get("simulation") or {}
    links = [e for e in (doc.get("link") or []) if isinstance(e, Mapping)]
    flows = [f for f in (doc.get("flow") or []) if isinstance(f, Mapping)]
    directed = sum(2 if e.get("between") else 1 for e in links)
    n_flows = sum(int(f.get("count", 1)) if isinstance(f.get("count", 1), int) else 1 for f in flows)
    transports: dict[str, int] = {}
    for f in flows:
        t = str(f.get("transport", "tcp"))
        transports[t] = transports.get(t, 0) + (int(f.get("count", 1)) if isinstance(f.get("count", 1), int) else 1)
    facts = [("duration", sim.get("duration", "?")), ("seed", sim.get("seed", 1)), ("nodes", _nodes(links)),
             ("directed links", directed), ("flows", n_flows), ("routing", _routing(doc.get("routing")))]
    if transports:
        facts.append(("transports", ", ".join(f"{k} {v}" for k, v in sorted(transports.items()))))
    flow_rows = []
    for f in flows[:ROWS]:
        app = f.get("app")
        app_text = app if isinstance(app, str) else " ".join(f"{k}={v}" for k, v in (app or {}).items())
        cc = f.get("cc", "")
        flow_rows.append([f.get("name", ""), f.get("from"), f.get("to"), f.get("transport", "tcp"),
                          cc.get("kind", "") if isinstance(cc, Mapping) else cc, app_text])
    tables = [_link_table(links), ("flow entries", ["name", "from", "to", "transport", "cc", "app"], flow_rows, len(flows))]
    return card(f"ccsim scenario: {sc.source}", facts, tables, "not validated: call .validate() or run it")


def network_html(net: Network) -> str:
    """Summary of a network part: nodes, links, hosts, routing, the first link entries."""
    hosts = net.hosts
    shown = ", ".join(hosts[:ROWS]) + (f" … (+{len(hosts) - ROWS})" if len(hosts) > ROWS else "")
    facts = [("nodes", len(net.nodes)), ("link entries", len(net.links)), ("hosts", len(hosts)),
             ("routing", _routing(net.routing))]
    return card(f"ccsim network: {net.name}", facts, [_link_table(net.links)], f"hosts: {shown}")


def sweep_html(df: pd.DataFrame) -> str:
    """Summary of a sweep's results frame: points, replicates, what was swept, and per point
    the mean goodput and RTT and the retransmissions (for the flows table)."""
    cols = list(df.columns)
    swept = cols[cols.index("point") + 1: cols.index("replicate")] if {"point", "replicate"} <= set(cols) else []
    points = df["point_id"].nunique() if "point_id" in cols else 0
    reps = df["replicate"].nunique() if "replicate" in cols else 0
    facts: list[tuple[str, Any]] = [("rows", len(df)), ("points", points), ("replicates", reps)]
    for k in swept:
        values = list(dict.fromkeys(df[k].astype(str)))
        facts.append((k, ", ".join(values[:6]) + (" …" if len(values) > 6 else "")))
    tables = []
    if {"point", "goodput_bps"} <= set(cols) and len(df):
        grouped = df.groupby("point", sort=True)
        rows = []
        for point, part in list(grouped)[:ROWS]:
            first = part.iloc[0]
            rows.append([point, *[first[k] for k in swept], part["replicate"].nunique() if "replicate" in cols else "",
                         part["goodput_bps"].mean() / 1e6,
                         part["rtt_mean_s"].mean() * 1e3 if "rtt_mean_s" in cols else float("nan"),
                         part["retransmissions"].sum() if "retransmissions" in cols else ""])
        tables.append(("per point (flows averaged over replicates)",
                       ["point", *swept, "replicates", "mean goodput Mb/s", "mean RTT ms", "retransmissions"],
                       rows, grouped.ngroups))
    else:
        head = df.head(ROWS)
        tables.append(("first rows", [str(c) for c in head.columns], head.values.tolist(), len(df)))
    return card("ccsim sweep results", facts, tables, "a pandas DataFrame: index, filter and group it as usual")
