"""Results of a run as pandas DataFrames, built column-wise from numpy arrays.

pandas is imported when a table is first asked for, so code that only needs the summary
(the benchmark worker, for one) does not pay for it.
"""

from __future__ import annotations

import functools
import json
from functools import cached_property
from pathlib import Path
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import numpy as np

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from ccsim.scenario import Scenario

__all__ = ["Result", "load", "fct_table", "SIZE_BUCKETS", "DROP_CAUSES", "FLOW_COLUMNS", "LINK_COLUMNS", "PATH_COLUMNS", "FLOW_SERIES_COLUMNS", "LINK_SERIES_COLUMNS", "PATH_SERIES_COLUMNS",
           "BACKOFF_COLUMNS", "BACKOFF_CAUSES", "EVENT_KINDS", "DROP_EVENT_COLUMNS", "MARK_EVENT_COLUMNS",
           "RETX_EVENT_COLUMNS", "TIMEOUT_EVENT_COLUMNS", "PACKET_KINDS", "RETX_KINDS"]

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
    "size_bytes": "float64",  # NaN for greedy and on/off sources
    "fct_s": "float64",
    "ideal_fct_s": "float64",
    "slowdown": "float64",
    "data_packets_sent": "int64",
    "retransmissions": "int64",
    "fast_recoveries": "int64",
    "timeouts": "int64",
    "drops": "drops",
    "rtt_min_s": "float64",
    "rtt_mean_s": "float64",
    "rtt_max_s": "float64",
    "rtt_p50_s": "float64",  # with [measure]; NaN otherwise
    "rtt_p95_s": "float64",
    "rtt_p99_s": "float64",
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
    "queue_delay": "queue_delay",  # with [measure]: queue_delay_<stat>; NaN otherwise
}
#: The queueing-delay statistics of a link (``queue_delay_<stat>`` columns).
QUEUE_DELAY_STATS = ("packets", "mean_s", "p50_s", "p95_s", "p99_s", "max_s")


def _expand(fields: dict[str, str]) -> tuple[str, ...]:
    cols: list[str] = []
    for name, kind in fields.items():
        if kind != "skip":
            if kind == "drops":
                cols += [f"drops_{c}" for c in DROP_CAUSES]
            elif kind == "queue_delay":
                cols += [f"queue_delay_{s}" for s in QUEUE_DELAY_STATS]
            else:
                cols.append(name)
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

#: The per-packet event tables (``[trace] events``): kind → (``Result`` attribute, core table).
EVENT_KINDS = {"drop": "drop_events", "mark": "mark_events", "retx": "retx_events", "timeout": "timeout_events"}
#: Columns of the event frames (docs/python.md, "Event tables").
DROP_EVENT_COLUMNS = ("time_s", "link", "flow", "cause", "packet", "seq")
MARK_EVENT_COLUMNS = ("time_s", "link", "flow", "seq")
RETX_EVENT_COLUMNS = ("time_s", "flow", "seq", "kind")
TIMEOUT_EVENT_COLUMNS = ("time_s", "flow", "rto_s", "backoff")
#: Packet kinds in the core's order (``packet`` column of ``drop_events``; packet.rs).
PACKET_KINDS = ("data", "ack", "syn", "synack", "udp", "sctp_data", "sctp_sack", "route")
#: Why a segment was retransmitted (``kind`` column of ``retx_events``; trace/events.rs).
RETX_KINDS = ("fast", "rto", "other")
# attribute → (core table, columns, categorical columns: column → categories or "flows"/"links")
_EVENT_FRAMES: dict[str, tuple[str, tuple[str, ...], dict[str, Any]]] = {
    "drop_events": ("drops", DROP_EVENT_COLUMNS, {"link": "links", "flow": "flows", "cause": DROP_CAUSES, "packet": PACKET_KINDS}),
    "mark_events": ("marks", MARK_EVENT_COLUMNS, {"link": "links", "flow": "flows"}),
    "retx_events": ("retx", RETX_EVENT_COLUMNS, {"flow": "flows", "kind": RETX_KINDS}),
    "timeout_events": ("timeouts", TIMEOUT_EVENT_COLUMNS, {"flow": "flows"}),
}
_EVENT_INTS = ("seq", "backoff")


#: Default flow-size buckets of ``fct_table`` (bytes; upper bounds, the last open): the
#: short/medium/long split of data-centre papers (e.g. pFabric, Homa).
SIZE_BUCKETS = (10_000, 100_000, 1_000_000, 10_000_000)


def _bucket_label(lo: float, hi: float) -> str:
    def size(b: float) -> str:
        for unit, k in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
            if b >= k:
                return f"{b / k:g}{unit}"
        return f"{b:g}B"

    if lo <= 0:
        return f"<= {size(hi)}"
    if hi == float("inf"):
        return f"> {size(lo)}"
    return f"{size(lo)}-{size(hi)}"


def fct_table(
    flows: pd.DataFrame,
    buckets: tuple[float, ...] | list[float] = SIZE_BUCKETS,
    percentiles: tuple[float, ...] | list[float] = (50, 95, 99),
) -> pd.DataFrame:
    """Flow completion times by flow-size bucket: one row per bucket of ``size_bytes``
    (upper bounds ``buckets``, in bytes, inclusive; a last bucket above the largest), with
    ``flows`` (finite transfers in the bucket), ``completed``, ``fct_mean_s``, ``fct_p<q>_s``
    and ``slowdown_mean``, ``slowdown_p<q>`` over the completed ones (NaN where none did).

    ``flows`` is ``Result.flows`` or a sweep's flow frame (``ccsim.results.load``); rows
    without a size (greedy and on/off sources) are left out. See docs/python.md.
    """
    import pandas as pd

    edges = [0.0, *sorted(float(b) for b in buckets), float("inf")]
    sized = flows[flows["size_bytes"].notna()] if "size_bytes" in flows else flows.iloc[0:0]
    rows = []
    for lo, hi in zip(edges, edges[1:]):
        sel = sized[(sized["size_bytes"] > lo) & (sized["size_bytes"] <= hi)]
        done = sel[sel["fct_s"].notna()]
        row: dict[str, Any] = {
            "bucket": _bucket_label(lo, hi),
            "size_min_bytes": lo,
            "size_max_bytes": hi,
            "flows": len(sel),
            "completed": len(done),
        }
        fct = done["fct_s"].to_numpy(dtype=np.float64)
        slow = done["slowdown"].dropna().to_numpy(dtype=np.float64)
        row["fct_mean_s"] = float(fct.mean()) if len(fct) else np.nan
        for q in percentiles:
            row[f"fct_p{q:g}_s"] = float(np.percentile(fct, q)) if len(fct) else np.nan
        row["slowdown_mean"] = float(slow.mean()) if len(slow) else np.nan
        for q in percentiles:
            row[f"slowdown_p{q:g}"] = float(np.percentile(slow, q)) if len(slow) else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


class RawResultLike(Protocol):
    """What ``Result`` needs from the native ``RawResult`` (tests pass stand-ins)."""

    def summary_json(self) -> str: ...
    def table(self, name: str) -> dict[str, bytes]: ...


class _Codes(NamedTuple):
    """A categorical column before it is a pandas or Arrow one: ``codes`` into ``names``
    (-1: missing); ``string_index``: the categories are a pandas string-dtype Index (else
    the dtype pandas infers from a list of names)."""

    codes: np.ndarray
    names: list[str]
    string_index: bool = True


# A table's columns, in order, before pandas or Arrow: a numpy array (int64, float64, or
# what numpy picked for a field this module does not know), a list of str (pandas' string
# dtype), or _Codes (a categorical). The frames ``Result`` gives and the Parquet bytes a sweep
# worker writes are both made from these (``_frame``, ``_arrow_table``).
_Columns = dict[str, Any]


def _column(values: list[Any], kind: str) -> Any:
    """One summary column as a numpy array (or a list of str) of the given kind."""
    if kind == "str":
        return ["" if v is None else str(v) for v in values]
    if kind == "int64":
        return np.array([0 if v is None else v for v in values], dtype=np.int64)
    if kind == "float64":  # JSON null (NaN, or a missing Option) → NaN
        return np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    # a field this module does not know yet: let numpy pick
    return np.array(values)


def _frame(cols: _Columns) -> pd.DataFrame:
    """The pandas DataFrame of a table's columns."""
    import pandas as pd

    data: dict[str, Any] = {}
    for name, v in cols.items():
        if isinstance(v, list):
            data[name] = pd.array(v, dtype="string")
        elif isinstance(v, _Codes):
            categories = pd.Index(v.names, dtype="string") if v.string_index else v.names
            data[name] = pd.Categorical.from_codes(v.codes, categories=categories)
        else:
            data[name] = v
    return pd.DataFrame(data)


def _records_columns(rows: list[dict[str, Any]], fields: dict[str, str]) -> _Columns:
    data: _Columns = {}
    extra_fields = [k for row in rows[:1] for k in row if k not in fields]
    for name, kind in list(fields.items()) + [(k, "auto") for k in extra_fields]:
        if kind == "skip":
            continue
        if kind == "drops":
            causes = list(DROP_CAUSES) + [c for row in rows[:1] for c in row.get(name, {}) if c not in DROP_CAUSES]
            for c in causes:
                data[f"drops_{c}"] = _column([row.get(name, {}).get(c, 0) for row in rows], "int64")
        elif kind == "queue_delay":
            for st in QUEUE_DELAY_STATS:
                data[f"queue_delay_{st}"] = _column([(row.get(name) or {}).get(st) for row in rows], "float64")
        else:
            data[name] = _column([row.get(name) for row in rows], kind)
    return data


def _series_columns(table: dict[str, bytes], key: str, names: list[str], columns: tuple[str, ...]) -> _Columns:
    """A time series' columns; the ``key`` column (flow/link index) becomes a categorical of names."""
    arrays = {name: np.frombuffer(buf, dtype="<f8") for name, buf in table.items()}
    n = len(next(iter(arrays.values()))) if arrays else 0
    data: _Columns = {}
    for col in columns:
        values = arrays.get(col, np.empty(n, dtype=np.float64))
        if col == key:
            data[col] = _Codes(values.astype(np.int32), names)
        else:
            data[col] = values.astype(np.float64, copy=False)
    for col, values in arrays.items():  # columns the core adds later
        if col not in data:
            data[col] = values
    return data


def _codes_dtype(n: int) -> type:
    """The integer type pandas keeps a categorical's codes in for ``n`` categories (the
    smallest that holds them: pandas' ``coerce_indexer_dtype``), which ``to_parquet``
    writes as the Arrow dictionary's index type."""
    for t in (np.int8, np.int16, np.int32):
        if n < np.iinfo(t).max:
            return t
    return np.int64


@functools.cache
def _pandas_arrow_types() -> dict[str, Any]:
    """How ``pyarrow.Table.from_pandas`` converts this pandas' string columns and the
    categories of a categorical (their Arrow type and pandas metadata depend on pandas'
    string storage): asked once of a one-row frame."""
    import pandas as pd
    import pyarrow as pa

    probe = pd.DataFrame({
        "str": pd.array(["a"], dtype="string"),
        "cat_string": pd.Categorical.from_codes([0], categories=pd.Index(["a"], dtype="string")),
        "cat_list": pd.Categorical.from_codes([0], categories=["a"]),
    })
    table = pa.Table.from_pandas(probe, preserve_index=False)
    described = {c["name"]: c for c in json.loads(table.schema.metadata[b"pandas"])["columns"]}
    return {
        "str": (table.schema.field("str").type, described["str"]["pandas_type"], described["str"]["numpy_type"]),
        "cat_string": table.schema.field("cat_string").type.value_type,
        "cat_list": table.schema.field("cat_list").type.value_type,
    }


def _arrow_table(cols: _Columns) -> Any:
    """A table's columns as the ``pyarrow.Table`` that ``pyarrow.Table.from_pandas`` makes of
    ``_frame(cols)`` (``preserve_index=False``): the same Arrow types, NaN stored as null, and
    the same ``pandas`` schema metadata, so Parquet written from it is byte for byte what
    ``DataFrame.to_parquet`` writes and reads back as the same frame -- without building the
    frame and converting it (most of a small sweep point's cost). ``None`` for a column this
    does not know how to convert (the caller goes through pandas)."""
    import pandas as pd
    import pyarrow as pa

    kinds = _pandas_arrow_types()
    arrays: list[Any] = []
    described: list[dict[str, Any]] = []
    for name, v in cols.items():
        meta: Any = None
        if isinstance(v, list):
            str_type, pandas_type, numpy_type = kinds["str"]
            arr = pa.array(v, type=str_type)
        elif isinstance(v, _Codes):
            codes = np.asarray(v.codes)
            if len(codes) and (codes.min() < -1 or codes.max() >= len(v.names)):
                raise ValueError("codes need to be between -1 and len(categories)-1")
            codes = codes.astype(_codes_dtype(len(v.names)))
            missing = codes < 0
            indices = pa.array(codes, mask=missing) if missing.any() else pa.array(codes)
            names = pa.array(v.names, type=kinds["cat_string" if v.string_index else "cat_list"])
            arr = pa.DictionaryArray.from_arrays(indices, names)
            pandas_type, numpy_type = "categorical", str(codes.dtype)
            meta = {"num_categories": len(v.names), "ordered": False}
        elif isinstance(v, np.ndarray) and v.dtype == np.float64:
            arr = pa.array(v, from_pandas=True)  # NaN → null, as from_pandas does
            pandas_type = numpy_type = "float64"
        elif isinstance(v, np.ndarray) and v.dtype == np.int64:
            arr = pa.array(v)
            pandas_type = numpy_type = "int64"
        else:
            return None
        arrays.append(arr)
        described.append({"name": name, "field_name": name, "pandas_type": pandas_type, "numpy_type": numpy_type, "metadata": meta})
    pandas_meta = {
        "index_columns": [],
        "column_indexes": [],
        "columns": described,
        "attributes": {},
        "creator": {"library": "pyarrow", "version": pa.__version__},
        "pandas_version": pd.__version__,
    }
    return pa.Table.from_arrays(arrays, names=list(cols), metadata={b"pandas": json.dumps(pandas_meta).encode()})


#: The frames ``save`` writes (and ``load`` reads back), as ``<name>.parquet``.
_SAVED_TABLES = ("flows", "links", "paths", "flow_series", "link_series", "backoffs", "path_series", "route_series",
                 *_EVENT_FRAMES)


class _SavedRaw:
    """The raw result of a saved run: its summary; the tables are read from Parquet."""

    def __init__(self, summary_json: str) -> None:
        self._summary = summary_json

    def summary_json(self) -> str:
        return self._summary

    def table(self, name: str) -> dict[str, bytes]:
        raise KeyError(name)  # every saved frame is set on the Result by Result.load


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

    def _repr_html_(self) -> str:
        from ccsim._html import result_html

        return result_html(self)

    def plot(self, panels: Sequence[str] = ("cwnd", "rate", "queue"), *, flows: Sequence[str] | None = None,
             links: Sequence[str] | None = None) -> Figure:
        """The standard figures over time, one panel each, sharing the time axis (s):
        ``"cwnd"`` (congestion window per flow, KB), ``"rate"`` (delivery rate per flow
        between samples, Mb/s) and ``"queue"`` (queue length per traced link, packets).
        ``flows`` and ``links`` pick the lines by name (default: every sampled one). Returns a
        matplotlib ``Figure`` (a notebook shows it; ``.savefig(path)`` writes it)."""
        from ccsim.plot import figure

        return figure(self, panels, flows=flows, links=links)

    @cached_property
    def summary(self) -> dict[str, Any]:
        """The core's summary: version, end_time_s, seed, events, flows, links, conservation."""
        return json.loads(self._raw.summary_json())

    @property
    def window(self) -> tuple[float, float] | None:
        """The measurement window ``(from_s, until_s)`` the flow and link summaries cover
        (``[measure]``), or ``None``: the whole run."""
        m = self.summary.get("measure")
        return None if m is None else (m["from_s"], m["until_s"])

    def fct_table(
        self,
        buckets: tuple[float, ...] | list[float] = SIZE_BUCKETS,
        percentiles: tuple[float, ...] | list[float] = (50, 95, 99),
    ) -> pd.DataFrame:
        """Flow completion times and slowdowns by flow-size bucket (``ccsim.results.fct_table``)."""
        return fct_table(self.flows, buckets, percentiles)

    @property
    def conservation(self) -> dict[str, Any]:
        """``{"created", "delivered", "dropped": {cause: n}, "in_flight"}``."""
        return self.summary["conservation"]

    @cached_property
    def flows(self) -> pd.DataFrame:
        """One row per flow (columns ``FLOW_COLUMNS``; drops by cause as ``drops_<cause>``)."""
        return self._frame("flows")

    @cached_property
    def links(self) -> pd.DataFrame:
        """One row per directed link (columns ``LINK_COLUMNS``)."""
        return self._frame("links")

    @cached_property
    def paths(self) -> pd.DataFrame:
        """One row per (flow, pinned path) for flows with ``paths`` (columns ``PATH_COLUMNS``:
        flow, path number, bytes delivered over it, connections that used it)."""
        return self._frame("paths")

    @cached_property
    def flow_series(self) -> pd.DataFrame:
        """time_s, flow (categorical flow name), cwnd_bytes, ssthresh_bytes, srtt_s, rate_bps."""
        return self._frame("flow_series")

    @cached_property
    def link_series(self) -> pd.DataFrame:
        """time_s, link (categorical link name), queue_packets, queue_bytes."""
        return self._frame("link_series")

    @cached_property
    def path_series(self) -> pd.DataFrame:
        """Per-path samples of multipath flows (SCTP/CMT): time_s, flow (categorical), path
        (1-based), cwnd_bytes, ssthresh_bytes, srtt_s, bwe_bps, beta, alpha. Empty when no
        flow has paths (or the core predates the table)."""
        return self._frame("path_series")

    @cached_property
    def route_series(self) -> pd.DataFrame:
        """Distance-vector routing (docs/routing.md): one row per sample and (node, dest,
        next_hop), with node names, the split ``alpha``, the route metric ``metric_s``
        (π = p + q of the next hop) and the node price ``price_s`` (q). Empty without
        adaptive routing."""
        import pandas as pd

        if not self.summary.get("routing"):
            return pd.DataFrame({c: [] for c in ROUTE_SERIES_COLUMNS})
        return self._frame("route_series")

    @cached_property
    def backoffs(self) -> pd.DataFrame:
        """MPTCP subflow window reductions: time_s, flow (categorical subflow row name such as
        ``mp/sf1``), cause (``loss``, ``timeout``, DAIMD's ``delay``, wVegas's ``drain``),
        cwnd_before_bytes, cwnd_after_bytes. Empty without MPTCP flows."""
        return self._frame("backoffs")

    def _frame(self, name: str) -> pd.DataFrame:
        return _frame(self._columns(name))

    def _columns(self, name: str) -> _Columns:
        """The columns of the table ``name`` (a frame property's name; ``route_series`` only
        with adaptive routing), from which both its frame and its Arrow table are made."""
        summary = self.summary
        flow_names = [f["name"] for f in summary.get("flows", [])]
        if name == "flows":
            return _records_columns(summary.get("flows", []), _FLOW_FIELDS)
        if name == "links":
            return _records_columns(summary.get("links", []), _LINK_FIELDS)
        if name == "paths":
            rows = [{"flow": f["name"], **p} for f in summary.get("flows", []) for p in f.get("paths") or []]
            return _records_columns(rows, _PATH_FIELDS)
        if name == "flow_series":
            return _series_columns(self._raw.table("flows"), "flow", flow_names, FLOW_SERIES_COLUMNS)
        if name == "link_series":
            link_names = [lk["name"] for lk in summary.get("links", [])]
            return _series_columns(self._raw.table("links"), "link", link_names, LINK_SERIES_COLUMNS)
        if name == "path_series":
            try:
                table = self._raw.table("paths")
            except KeyError:
                table = {c: b"" for c in PATH_SERIES_COLUMNS}
            return _series_columns(table, "flow", flow_names, PATH_SERIES_COLUMNS)
        if name == "route_series":
            nodes = summary["routing"]["nodes"]
            raw = self._raw.table("routes")
            cols: _Columns = {c: np.frombuffer(raw[c], dtype="<f8") for c in ROUTE_SERIES_COLUMNS}
            for c in ("node", "dest", "next_hop"):
                cols[c] = _Codes(cols[c].astype(int), nodes, string_index=False)
            return cols
        if name == "backoffs":
            try:
                raw = self._raw.table("backoffs")
            except KeyError:  # a stand-in or an older core without the table
                raw = {}
            cols = _series_columns(raw, "flow", flow_names, BACKOFF_COLUMNS)
            cause = cols["cause"]
            codes = cause.astype(np.int32) if len(cause) else np.empty(0, dtype=np.int32)
            cols["cause"] = _Codes(codes, list(BACKOFF_CAUSES), string_index=False)
            return cols
        raise KeyError(name)

    def arrow_table(self, name: str) -> Any:
        """The table ``name`` (``flows``, ``links``, ``paths``, a series or ``backoffs``) as a
        ``pyarrow.Table`` carrying pandas' schema metadata: Parquet written from it is what
        ``getattr(self, name).to_parquet(index=False)`` writes, made without pandas (what a
        sweep worker stores). ``None`` where the table has a column only pandas converts
        (the caller then writes the frame)."""
        if name == "route_series" and not self.summary.get("routing"):
            return None  # the empty frame's columns have no type
        return _arrow_table(self._columns(name))

    def _event_frame(self, attr: str) -> pd.DataFrame:
        """One event table as a frame: index columns become categoricals of names (NaN where
        the core wrote NaN: a drop at a node has no link, a routing announcement no flow)."""
        import pandas as pd

        table, columns, cats = _EVENT_FRAMES[attr]
        try:
            raw = self._raw.table(table)
        except KeyError:  # a stand-in, an older core, or a saved run without the table
            raw = {}
        arrays = {c: np.frombuffer(raw[c], dtype="<f8") if c in raw else np.empty(0) for c in columns}
        data: dict[str, Any] = {}
        for c in columns:
            values = arrays[c]
            cat = cats.get(c)
            if cat is None:
                data[c] = values.astype(np.int64) if c in _EVENT_INTS else values.astype(np.float64, copy=False)
                continue
            if cat in ("flows", "links"):
                names: list[str] = [x["name"] for x in self.summary.get(cat, [])]
                categories: Any = pd.Index(names, dtype="string")
            else:
                categories = list(cat)
            codes = np.where(np.isnan(values), -1, values).astype(np.int32)
            data[c] = pd.Categorical.from_codes(codes, categories=categories)
        return pd.DataFrame(data)

    @cached_property
    def drop_events(self) -> pd.DataFrame:
        """One row per dropped packet, in time order (``[trace] events = ["drop"]``): time_s,
        link (categorical name; NaN for a drop at a node without a route), flow (categorical;
        NaN for a routing announcement), cause (``DROP_CAUSES``), packet (``PACKET_KINDS``),
        seq (segment, cumulative ACK, datagram or TSN number). Empty when not recorded."""
        return self._event_frame("drop_events")

    @cached_property
    def mark_events(self) -> pd.DataFrame:
        """One row per packet a queue marked CE (``"mark"``): time_s, link, flow, seq."""
        return self._event_frame("mark_events")

    @cached_property
    def retx_events(self) -> pd.DataFrame:
        """One row per TCP retransmission (``"retx"``; MPTCP subflows under their flow):
        time_s, flow, seq, kind (``fast`` in fast recovery, ``rto`` after a timeout,
        ``other``)."""
        return self._event_frame("retx_events")

    @cached_property
    def timeout_events(self) -> pd.DataFrame:
        """One row per TCP retransmission timeout (``"timeout"``): time_s, flow, rto_s (the
        timer that expired), backoff (the exponent after it: the next RTO is the base RTO ×
        2^backoff, capped at rto.max)."""
        return self._event_frame("timeout_events")

    @property
    def pcap_names(self) -> list[str]:
        """Names of the packet captures the run wrote (``[trace] pcap``), in order."""
        names = getattr(self._raw, "pcap_names", None)
        return list(names()) if names is not None else []

    def pcap(self, name: str) -> bytes:
        """The packet capture ``name`` (a link named in ``[trace] pcap``) as the bytes of a
        pcap file (nanosecond timestamps, Ethernet): open it in Wireshark or tshark. See
        docs/scenario.md, "Packet captures". ``KeyError`` for a name not captured."""
        if name not in self.pcap_names:
            raise KeyError(f"no packet capture {name!r}; captured: {self.pcap_names} (name links in [trace] pcap)")
        return self._raw.pcap(name)

    def write_pcaps(self, out_dir: str | Path) -> list[Path]:
        """Write each packet capture into ``out_dir`` as ``<name>.pcap`` (``"a->b"`` becomes
        ``a-b.pcap``; other characters unsafe in file names become ``_``); return the paths."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []
        for name in self.pcap_names:
            path = out / f"{pcap_file_stem(name)}.pcap"
            while path in written:
                path = path.with_name(path.stem + "_.pcap")
            path.write_bytes(self.pcap(name))
            written.append(path)
        return written

    @classmethod
    def load(cls, out_dir: str | Path) -> Result:
        """A result written by ``save`` (or ``ccsim run --out``) read back: the same summary,
        tables and series, and ``scenario`` when ``scenario.json`` is there (``wall_s`` is
        ``None``). Raises ``FileNotFoundError`` naming the directory when it holds no
        ``summary.json``."""
        out = Path(out_dir)
        summary_path = out / "summary.json"
        if not summary_path.is_file():
            raise FileNotFoundError(f"{out} is not a saved run (no summary.json; written by Result.save or ccsim run --out)")
        scenario = None
        scenario_path = out / "scenario.json"
        if scenario_path.is_file():
            from ccsim.scenario import Scenario

            doc = json.loads(scenario_path.read_text(encoding="utf-8"))
            if set(doc) == {"source", "doc"}:  # written before the document was saved bare
                doc = doc["doc"]
            scenario = Scenario(doc, str(scenario_path))
        r = cls(_SavedRaw(summary_path.read_text(encoding="utf-8")), scenario=scenario)
        for name in _SAVED_TABLES:
            path = out / f"{name}.parquet"
            if path.is_file():
                import pandas as pd

                df = pd.read_parquet(path, engine="pyarrow")
                # Series keys: categoricals of every flow (link) name, as a run gives them
                # (Parquet keeps only the categories in use, not as pandas' string dtype).
                for key, rows in (("flow", "flows"), ("link", "links")):
                    if key in df and isinstance(df[key].dtype, pd.CategoricalDtype):
                        names = pd.Index([x["name"] for x in r.summary.get(rows, [])], dtype="string")
                        df[key] = pd.Categorical(df[key].astype("string"), categories=names)
                if name == "backoffs" and "cause" in df:
                    df["cause"] = pd.Categorical(df["cause"].astype(str), categories=list(BACKOFF_CAUSES))
                for col, cats in _EVENT_FRAMES.get(name, ("", (), {}))[2].items():
                    if col in df and cats not in ("flows", "links"):
                        df[col] = pd.Categorical(df[col].astype("string"), categories=list(cats))
                r.__dict__[name] = df
        return r

    def save(self, out_dir: str | Path) -> list[Path]:
        """Write summary.json, flows/links/paths/flow_series/link_series/backoffs .parquet,
        scenario.json when the scenario is known and the packet captures (``write_pcaps``)
        into ``out_dir``; return the paths."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        path = out / "summary.json"
        path.write_text(json.dumps(self.summary, indent=2) + "\n", encoding="utf-8")
        written.append(path)
        if self.scenario is not None:
            # The document itself, so that `ccsim run out/scenario.json` re-runs it.
            path = out / "scenario.json"
            from ccsim.scenario import with_absolute_traces

            doc = with_absolute_traces(json.loads(self.scenario.to_json()), self.scenario.source)
            path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
            written.append(path)
        names = ["flows", "links", "paths", "flow_series", "link_series", "backoffs"]
        if len(self.path_series):
            names.append("path_series")
        if len(self.route_series):
            names.append("route_series")
        names += [name for name in _EVENT_FRAMES if len(getattr(self, name))]
        for name in names:
            path = out / f"{name}.parquet"
            getattr(self, name).to_parquet(path, engine="pyarrow", index=False)
            written.append(path)
        written += self.write_pcaps(out)
        return written


def pcap_file_stem(name: str) -> str:
    """A capture's file name (without ``.pcap``): ``"a->b"`` → ``"a-b"``, characters other
    than letters, digits, ``.``, ``_`` and ``-`` → ``_``."""
    import re

    return re.sub(r"[^A-Za-z0-9._-]", "_", name.replace("->", "-")) or "capture"


def load(store_dir: str | Path, table: str = "flows", plan: str | None = "latest") -> pd.DataFrame | Result:
    """A saved run's ``Result`` (a directory written by ``Result.save`` or ``ccsim run
    --out``: it holds ``summary.json``), or a sweep store's results as one DataFrame: one row
    per (point, flow) by default.

    Columns: ``point_id``, ``point``, the plan's labels, one column per override key (e.g.
    ``link.bottleneck.loss``), ``replicate``, ``seed``, then the flow summary columns
    (``FLOW_COLUMNS``). ``table`` picks ``"links"``, ``"flow_series"``, ``"link_series"`` or
    ``"points"`` (one row per point with ``status``, ``error``, ``wall_s``) instead; ``plan`` is
    ``"latest"``, ``"all"`` or a plan id. See ``ccsim.store`` and docs/sweeps.md.
    """
    from ccsim.store import MANIFEST
    from ccsim.store import load as _load

    root = Path(store_dir)
    if (root / "summary.json").is_file() and not (root / MANIFEST).exists():
        return Result.load(root)
    return _load(store_dir, table=table, plan=plan)
