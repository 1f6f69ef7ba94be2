"""Results of a run as pandas DataFrames, built column-wise from numpy arrays.

pandas is imported when a table is first asked for, so code that only needs the summary
(the benchmark worker, for one) does not pay for it.
"""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from ccsim.scenario import Scenario

__all__ = ["Result", "load", "DROP_CAUSES", "FLOW_COLUMNS", "LINK_COLUMNS", "PATH_COLUMNS", "FLOW_SERIES_COLUMNS", "LINK_SERIES_COLUMNS", "PATH_SERIES_COLUMNS",
           "BACKOFF_COLUMNS", "BACKOFF_CAUSES"]

#: Drop causes in the core's column order (results.rs `DropCause::ALL`).
DROP_CAUSES = ("queue_overflow", "red", "random_loss", "scripted_loss", "no_route", "link_down", "aqm")

# Summary fields → dtype. "str" columns use pandas' string dtype; "drops" expands to drops_<cause>.
_FLOW_FIELDS: dict[str, str] = {
    "name": "str",
    "transport": "str",
    "cc": "str",
    "recovery": "str",
    "src": "str",
    "dst": "str",
    "start_s": "float64",
    "bytes_delivered": "int64",
    "goodput_bps": "float64",
    "completion_time_s": "float64",
    "data_packets_sent": "int64",
    "retransmissions": "int64",
    "fast_recoveries": "int64",
    "timeouts": "int64",
    "drops": "drops",
    "rtt_min_s": "float64",
    "rtt_mean_s": "float64",
    "rtt_max_s": "float64",
    "connections": "int64",
    "delay_backoffs": "int64",
    "ecn_marks": "int64",
    "ecn_reductions": "int64",
    "paths": "skip",  # nested: the paths table
}
#: One row per (flow, pinned path); see ``Result.paths``.
_PATH_FIELDS: dict[str, str] = {
    "flow": "str",
    "path": "int64",
    "bytes_delivered": "int64",
    "connections": "int64",
}
_LINK_FIELDS: dict[str, str] = {
    "name": "str",
    "packets_in": "int64",
    "packets_out": "int64",
    "bytes_out": "int64",
    "utilisation": "float64",
    "drops": "drops",
    "ecn_marks": "int64",
}


def _expand(fields: dict[str, str]) -> tuple[str, ...]:
    cols: list[str] = []
    for name, kind in fields.items():
        if kind != "skip":
            cols += [f"drops_{c}" for c in DROP_CAUSES] if kind == "drops" else [name]
    return tuple(cols)


#: Column order of ``Result.flows`` and ``Result.links`` (fields the core adds later follow).
FLOW_COLUMNS = _expand(_FLOW_FIELDS)
LINK_COLUMNS = _expand(_LINK_FIELDS)
PATH_COLUMNS = _expand(_PATH_FIELDS)
#: Columns of the time-series frames.
FLOW_SERIES_COLUMNS = ("time_s", "flow", "cwnd_bytes", "ssthresh_bytes", "srtt_s", "rate_bps")
LINK_SERIES_COLUMNS = ("time_s", "link", "queue_packets", "queue_bytes")
#: Columns of the per-path frame (multipath transports; path is 1-based).
PATH_SERIES_COLUMNS = ("time_s", "flow", "path", "cwnd_bytes", "ssthresh_bytes", "srtt_s", "bwe_bps", "beta", "alpha")
ROUTE_SERIES_COLUMNS = ("time_s", "node", "dest", "next_hop", "alpha", "metric_s", "price_s")
#: Columns of the MPTCP backoff table (one row per subflow window reduction; ``flow`` is the
#: subflow's row name, e.g. ``mp/sf1``) and the meaning of its ``cause`` codes.
BACKOFF_COLUMNS = ("time_s", "flow", "cause", "cwnd_before_bytes", "cwnd_after_bytes")
BACKOFF_CAUSES = ("loss", "timeout", "delay", "drain")


class RawResultLike(Protocol):
    """What ``Result`` needs from the native ``RawResult`` (tests pass stand-ins)."""

    def summary_json(self) -> str: ...
    def table(self, name: str) -> dict[str, bytes]: ...


def _column(values: list[Any], kind: str) -> Any:
    """One summary column as a numpy array (or pandas string array) of the given kind."""
    import pandas as pd

    if kind == "str":
        return pd.array(["" if v is None else str(v) for v in values], dtype="string")
    if kind == "int64":
        return np.array([0 if v is None else v for v in values], dtype=np.int64)
    if kind == "float64":  # JSON null (NaN, or a missing Option) → NaN
        return np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    # a field this module does not know yet: let numpy pick
    return np.array(values)


def _records_frame(rows: list[dict[str, Any]], fields: dict[str, str]) -> pd.DataFrame:
    import pandas as pd

    data: dict[str, Any] = {}
    extra_fields = [k for row in rows[:1] for k in row if k not in fields]
    for name, kind in list(fields.items()) + [(k, "auto") for k in extra_fields]:
        if kind == "skip":
            continue
        if kind == "drops":
            causes = list(DROP_CAUSES) + [c for row in rows[:1] for c in row.get(name, {}) if c not in DROP_CAUSES]
            for c in causes:
                data[f"drops_{c}"] = _column([row.get(name, {}).get(c, 0) for row in rows], "int64")
        else:
            data[name] = _column([row.get(name) for row in rows], kind)
    return pd.DataFrame(data)


def _series_frame(
    table: dict[str, bytes], key: str, names: list[str], columns: tuple[str, ...]
) -> pd.DataFrame:
    """A time-series frame; the ``key`` column (flow/link index) becomes a categorical of names."""
    import pandas as pd

    arrays = {name: np.frombuffer(buf, dtype="<f8") for name, buf in table.items()}
    n = len(next(iter(arrays.values()))) if arrays else 0
    data: dict[str, Any] = {}
    for col in columns:
        values = arrays.get(col, np.empty(n, dtype=np.float64))
        if col == key:
            codes = values.astype(np.int32)
            data[col] = pd.Categorical.from_codes(codes, categories=pd.Index(names, dtype="string"))
        else:
            data[col] = values.astype(np.float64, copy=False)
    for col, values in arrays.items():  # columns the core adds later
        if col not in data:
            data[col] = values
    return pd.DataFrame(data)


class Result:
    """What a run produced.

    ``summary`` is the core's summary as a dict; ``flows`` and ``links`` are one row per flow
    and per directed link; ``flow_series`` and ``link_series`` are the sampled time series;
    ``conservation`` is the packet account. ``wall_s`` is the wall-clock time of the run and
    ``scenario`` the scenario it ran (when known).
    """

    def __init__(self, raw: RawResultLike, *, scenario: Scenario | None = None, wall_s: float | None = None) -> None:
        self._raw = raw
        self.scenario = scenario
        self.wall_s = wall_s

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<Result {len(s.get('flows', []))} flows, {len(s.get('links', []))} links, "
            f"end {s.get('end_time_s', 0):g} s, {s.get('events', 0)} events>"
        )

    @cached_property
    def summary(self) -> dict[str, Any]:
        """The core's summary: version, end_time_s, seed, events, flows, links, conservation."""
        return json.loads(self._raw.summary_json())

    @property
    def conservation(self) -> dict[str, Any]:
        """``{"created", "delivered", "dropped": {cause: n}, "in_flight"}``."""
        return self.summary["conservation"]

    @cached_property
    def flows(self) -> pd.DataFrame:
        """One row per flow (columns ``FLOW_COLUMNS``; drops by cause as ``drops_<cause>``)."""
        return _records_frame(self.summary.get("flows", []), _FLOW_FIELDS)

    @cached_property
    def links(self) -> pd.DataFrame:
        """One row per directed link (columns ``LINK_COLUMNS``)."""
        return _records_frame(self.summary.get("links", []), _LINK_FIELDS)

    @cached_property
    def paths(self) -> pd.DataFrame:
        """One row per (flow, pinned path) for flows with ``paths`` (columns ``PATH_COLUMNS``:
        flow, path number, bytes delivered over it, connections that used it)."""
        rows = [{"flow": f["name"], **p} for f in self.summary.get("flows", []) for p in f.get("paths") or []]
        return _records_frame(rows, _PATH_FIELDS)

    @cached_property
    def flow_series(self) -> pd.DataFrame:
        """time_s, flow (categorical flow name), cwnd_bytes, ssthresh_bytes, srtt_s, rate_bps."""
        names = [f["name"] for f in self.summary.get("flows", [])]
        return _series_frame(self._raw.table("flows"), "flow", names, FLOW_SERIES_COLUMNS)

    @cached_property
    def link_series(self) -> pd.DataFrame:
        """time_s, link (categorical link name), queue_packets, queue_bytes."""
        names = [lk["name"] for lk in self.summary.get("links", [])]
        return _series_frame(self._raw.table("links"), "link", names, LINK_SERIES_COLUMNS)

    @cached_property
    def path_series(self) -> pd.DataFrame:
        """Per-path samples of multipath flows (SCTP/CMT): time_s, flow (categorical), path
        (1-based), cwnd_bytes, ssthresh_bytes, srtt_s, bwe_bps, beta, alpha. Empty when no
        flow has paths (or the core predates the table)."""
        names = [f["name"] for f in self.summary.get("flows", [])]
        try:
            table = self._raw.table("paths")
        except KeyError:
            table = {c: b"" for c in PATH_SERIES_COLUMNS}
        return _series_frame(table, "flow", names, PATH_SERIES_COLUMNS)

    @cached_property
    def route_series(self) -> pd.DataFrame:
        """Distance-vector routing (docs/routing.md): one row per sample and (node, dest,
        next_hop), with node names, the split ``alpha``, the route metric ``metric_s``
        (π = p + q of the next hop) and the node price ``price_s`` (q). Empty without
        adaptive routing."""
        import pandas as pd

        routing = self.summary.get("routing")
        if not routing:
            return pd.DataFrame({c: [] for c in ROUTE_SERIES_COLUMNS})
        names = routing["nodes"]
        raw = self._raw.table("routes")
        cols = {c: np.frombuffer(raw[c], dtype="<f8") for c in ROUTE_SERIES_COLUMNS}
        df = pd.DataFrame(cols)
        for c in ("node", "dest", "next_hop"):
            df[c] = pd.Categorical.from_codes(df[c].astype(int), categories=names)
        return df

    @cached_property
    def backoffs(self) -> pd.DataFrame:
        """MPTCP subflow window reductions: time_s, flow (categorical subflow row name such as
        ``mp/sf1``), cause (``loss``, ``timeout``, DAIMD's ``delay``, wVegas's ``drain``),
        cwnd_before_bytes, cwnd_after_bytes. Empty without MPTCP flows."""
        import pandas as pd

        names = [f["name"] for f in self.summary.get("flows", [])]
        try:
            raw = self._raw.table("backoffs")
        except KeyError:  # a stand-in or an older core without the table
            raw = {}
        df = _series_frame(raw, "flow", names, BACKOFF_COLUMNS)
        codes = df["cause"].to_numpy().astype(np.int32) if len(df) else np.empty(0, dtype=np.int32)
        df["cause"] = pd.Categorical.from_codes(codes, categories=list(BACKOFF_CAUSES))
        return df

    def save(self, out_dir: str | Path) -> list[Path]:
        """Write summary.json, flows/links/paths/flow_series/link_series/backoffs .parquet (and
        scenario.json when the scenario is known) into ``out_dir``; return the paths."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        path = out / "summary.json"
        path.write_text(json.dumps(self.summary, indent=2) + "\n", encoding="utf-8")
        written.append(path)
        if self.scenario is not None:
            path = out / "scenario.json"
            doc = {"source": self.scenario.source, "doc": json.loads(self.scenario.to_json())}
            path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
            written.append(path)
        names = ["flows", "links", "paths", "flow_series", "link_series", "backoffs"]
        if len(self.path_series):
            names.append("path_series")
        if len(self.route_series):
            names.append("route_series")
        for name in names:
            path = out / f"{name}.parquet"
            getattr(self, name).to_parquet(path, engine="pyarrow", index=False)
            written.append(path)
        return written


def load(store_dir: str | Path, table: str = "flows", plan: str | None = "latest") -> pd.DataFrame:
    """A sweep store's results as one DataFrame: one row per (point, flow) by default.

    Columns: ``point_id``, ``point``, the plan's labels, one column per override key (e.g.
    ``link.bottleneck.loss``), ``replicate``, ``seed``, then the flow summary columns
    (``FLOW_COLUMNS``). ``table`` picks ``"links"``, ``"flow_series"``, ``"link_series"`` or
    ``"points"`` (one row per point with ``status``, ``error``, ``wall_s``) instead; ``plan`` is
    ``"latest"``, ``"all"`` or a plan id. See ``ccsim.store`` and docs/sweeps.md.
    """
    from ccsim.store import load as _load

    return _load(store_dir, table=table, plan=plan)
