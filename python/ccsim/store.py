"""The result store of a sweep: a directory of Parquet files plus a manifest.

Layout::

    DIR/manifest.json                 plans run into the store, their points, each point's status
    DIR/points/<id>.json              a finished point's record: overrides, seed, status, error, wall time
    DIR/points/<id>.<table>.parquet   its tables: flows, links, and the kept series
                                      (flow_series, link_series)

Every file is written under a temporary name (``.tmp-…``) and renamed into place with
``os.replace``, so a reader never sees half a file. A point's record is written after its
tables: the record is what marks the point finished, and the manifest is rebuilt from the
records when a store is opened (a sweep killed before it wrote the manifest loses nothing).
Temporary files left by a killed sweep are removed when the store is next opened.
"""

from __future__ import annotations

import io
import json
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from ccsim.sweep import Point

__all__ = ["Store", "StoreError", "load", "sweep_frame", "table_bytes", "TABLES", "FORMAT"]

FORMAT = 1
MANIFEST = "manifest.json"
POINTS = "points"
TMP_PREFIX = ".tmp-"
#: Tables a point may have.
TABLES = ("flows", "links", "paths", "flow_series", "link_series", "route_series", "backoffs")
#: Seconds between manifest rewrites while a sweep runs (it is always written at the end).
MANIFEST_EVERY_S = 2.0


class StoreError(ValueError):
    """The directory is not a store this sweep may write into, or not a store at all."""


def table_bytes(df: pd.DataFrame) -> bytes:
    """A DataFrame as Parquet bytes (what workers send back)."""
    buf = io.BytesIO()
    df.to_parquet(buf, engine="pyarrow", index=False)
    return buf.getvalue()


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f"{TMP_PREFIX}{path.name}.{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _json_bytes(value: Any) -> bytes:
    from ccsim.scenario import _json_default

    return (json.dumps(value, indent=1, default=_json_default, allow_nan=True) + "\n").encode("utf-8")


class Store:
    """An open store (use :meth:`open`)."""

    def __init__(self, root: Path, manifest: dict[str, Any]) -> None:
        self.root = root
        self.dir = root / POINTS
        self.manifest = manifest
        self._last_flush = 0.0

    # -- opening

    @classmethod
    def open(
        cls,
        root: str | os.PathLike[str],
        plan_id: str,
        plans: Sequence[Mapping[str, Any]],
        points: Sequence[Point],
        *,
        version: str,
        resume: bool = False,
    ) -> Store:
        """Open (or create) the store at ``root`` for the plan ``plan_id``.

        Refuses (``StoreError``) a directory that is neither empty nor a store, and a store
        holding finished points of a different plan unless ``resume``."""
        root = Path(root)
        if root.exists() and not root.is_dir():
            raise StoreError(f"{root} is a file, not a store directory")
        manifest_path = root / MANIFEST
        if root.is_dir() and not manifest_path.exists() and any(root.iterdir()):
            raise StoreError(f"{root} is not empty and is not a ccsim sweep store (no {MANIFEST}); choose another --out")
        (root / POINTS).mkdir(parents=True, exist_ok=True)
        manifest = _read_manifest(root) if manifest_path.exists() else {"format": FORMAT, "plans": [], "points": {}}
        store = cls(root, manifest)
        store._clean_temporary()
        store._reconcile()
        known = [p for p in manifest["plans"] if p["plan_id"] == plan_id]
        finished = [i for i, e in manifest["points"].items() if e.get("status") in ("ok", "error")]
        if not known and finished and not resume:
            others = ", ".join(p.get("name") or p["plan_id"] for p in manifest["plans"][-3:]) or "another plan"
            raise StoreError(
                f"{root} holds {len(finished)} finished points of a different plan ({others}); "
                "rerun with --resume (Python: resume=True) to add this plan's points to it and skip "
                "those already there, or choose another --out"
            )
        entry = known[0] if known else {"plan_id": plan_id, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        if known:
            manifest["plans"].remove(entry)
        entry.update(
            plans=list(plans),
            version=version,
            updated=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            points=[_point_meta(p) for p in points],
        )
        manifest["plans"].append(entry)  # the last plan is the latest
        for p in points:
            manifest["points"].setdefault(p.id, {"status": "pending"})
        store.flush()
        return store

    def _clean_temporary(self) -> None:
        for d in (self.root, self.dir):
            for f in d.glob(f"{TMP_PREFIX}*"):
                try:
                    f.unlink()
                except FileNotFoundError:
                    pass

    def _reconcile(self) -> None:
        """Make the manifest's statuses agree with the point records on disk."""
        pts = self.manifest.setdefault("points", {})
        on_disk = set()
        for rec_path in self.dir.glob("*.json"):
            pid = rec_path.stem
            on_disk.add(pid)
            try:
                rec = json.loads(rec_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):  # cannot happen with atomic writes; be safe
                rec_path.unlink(missing_ok=True)
                on_disk.discard(pid)
                continue
            if rec.get("status") == "ok" and not all((self.dir / f"{pid}.{t}.parquet").exists() for t in rec.get("tables", [])):
                rec_path.unlink()
                on_disk.discard(pid)
                continue
            pts[pid] = {k: rec.get(k) for k in ("status", "error", "wall_s") if rec.get(k) is not None}
        for pid, e in pts.items():
            if pid not in on_disk:
                e.clear()
                e["status"] = "pending"

    # -- writing

    def status(self, pid: str) -> str:
        return self.manifest["points"].get(pid, {}).get("status", "pending")

    def write_point(self, point: Point, res: Mapping[str, Any]) -> None:
        """Store a point's outcome: its tables, then its record (the commit)."""
        tables = res.get("tables") or {}
        for name, data in tables.items():
            _atomic_write(self.dir / f"{point.id}.{name}.parquet", data)
        record = {
            **_point_meta(point),
            "status": res.get("status", "error"),
            "error": res.get("error"),
            "wall_s": res.get("wall_s"),
            "tables": sorted(tables),
            "end_time_s": res.get("end_time_s"),
            "events": res.get("events"),
            "conservation": res.get("conservation"),
            "version": res.get("version"),
            "host": res.get("host"),
            "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "doc": point.doc,
        }
        _atomic_write(self.dir / f"{point.id}.json", _json_bytes(record))
        self.manifest["points"][point.id] = {k: record[k] for k in ("status", "error", "wall_s") if record[k] is not None}
        if time.monotonic() - self._last_flush >= MANIFEST_EVERY_S:
            self.flush()

    def flush(self) -> None:
        """Write the manifest (atomically)."""
        _atomic_write(self.root / MANIFEST, _json_bytes(self.manifest))
        self._last_flush = time.monotonic()


def _point_meta(p: Point) -> dict[str, Any]:
    return {
        "id": p.id,
        "index": p.index,
        "overrides": p.overrides,
        "replicate": p.replicate,
        "seed": p.seed,
        "labels": p.labels,
        "series": list(p.series),
    }


def _read_manifest(root: Path) -> dict[str, Any]:
    try:
        m = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise StoreError(f"cannot read {root / MANIFEST}: {e}") from None
    if not isinstance(m, dict) or m.get("format") != FORMAT:
        raise StoreError(f"{root / MANIFEST} is not a ccsim store manifest of format {FORMAT}")
    return m


# ---------------------------------------------------------------------------- reading


def _cell(v: Any) -> Any:
    """Override values that are tables or lists become canonical JSON text (one column type)."""
    if isinstance(v, (dict, list)):
        return json.dumps(v, sort_keys=True, separators=(",", ":"))
    return v


def _point_rows(root: Path, plan: str | None) -> list[dict[str, Any]]:
    """Point records selected by ``plan``: ``"latest"``, ``"all"`` or a plan id."""
    m = _read_manifest(root)
    if plan == "all" or not m["plans"]:
        metas = {}
        for p in m["plans"]:
            for meta in p.get("points", []):
                metas.setdefault(meta["id"], meta)
    else:
        chosen = m["plans"][-1] if plan in (None, "latest") else next((p for p in m["plans"] if p["plan_id"] == plan), None)
        if chosen is None:
            raise StoreError(f"{root} has no plan {plan!r}; plans: {', '.join(p['plan_id'] for p in m['plans'])}")
        metas = {meta["id"]: meta for meta in chosen.get("points", [])}
    rows = []
    for pid, meta in metas.items():
        rec_path = root / POINTS / f"{pid}.json"
        rec = json.loads(rec_path.read_text(encoding="utf-8")) if rec_path.exists() else {"status": "pending"}
        rows.append({**meta, "status": rec.get("status", "pending"), "error": rec.get("error"), "wall_s": rec.get("wall_s"),
                     "end_time_s": rec.get("end_time_s"), "events": rec.get("events")})
    rows.sort(key=lambda r: r["index"])
    return rows


def load(root: str | os.PathLike[str], table: str = "flows", plan: str | None = "latest") -> pd.DataFrame:
    """The store's results as one DataFrame.

    ``table``: ``"flows"`` (default: one row per point and flow), ``"links"`` (per point and
    directed link), ``"flow_series"``, ``"link_series"`` (kept series), or ``"points"`` (one row
    per point: status, error, wall time). ``plan``: ``"latest"`` (the plan run last into the
    store), ``"all"``, or a plan id.

    Columns: ``point_id``, ``point`` (index in the plan), the plan's labels, one column per
    override key (dotted, e.g. ``link.bottleneck.loss``), ``replicate``, ``seed``, then the
    table's own columns. Only points that succeeded have rows in the result tables.
    """
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    root = Path(root)
    if not (root / MANIFEST).exists():
        raise StoreError(f"{root} is not a ccsim sweep store (no {MANIFEST})")
    if table not in TABLES and table != "points":
        raise ValueError(f"unknown table {table!r}; allowed: points, {', '.join(TABLES)}")
    rows = _point_rows(root, plan)
    override_keys = list(dict.fromkeys(k for r in rows for k in r["overrides"]))
    label_keys = list(dict.fromkeys(k for r in rows for k in r.get("labels", {})))

    def meta_columns(rs: list[dict[str, Any]]) -> dict[str, list[Any]]:
        cols: dict[str, list[Any]] = {"point_id": [r["id"] for r in rs], "point": [r["index"] for r in rs]}
        for k in label_keys:
            cols[k] = [_cell(r.get("labels", {}).get(k)) for r in rs]
        for k in override_keys:
            cols[k] = [_cell(r["overrides"].get(k)) for r in rs]
        cols["replicate"] = [r["replicate"] for r in rs]
        cols["seed"] = [r["seed"] for r in rs]
        return cols

    if table == "points":
        cols = meta_columns(rows)
        for k in ("status", "error", "wall_s", "end_time_s", "events"):
            cols[k] = [r.get(k) for r in rows]
        df = pd.DataFrame(cols)
        df["wall_s"] = df["wall_s"].astype("float64")
        return sweep_frame(df)

    parts: list[pa.Table] = []
    owners: list[dict[str, Any]] = []
    lengths: list[int] = []
    for r in rows:
        path = root / POINTS / f"{r['id']}.{table}.parquet"
        if r["status"] != "ok" or not path.exists():
            continue
        t = pq.read_table(path)
        parts.append(t)
        owners.append(r)
        lengths.append(t.num_rows)
    meta = meta_columns(owners)
    import numpy as np

    reps = np.asarray(lengths, dtype=np.int64)
    front = pd.DataFrame({k: np.repeat(np.asarray(v, dtype=object), reps) for k, v in meta.items()})
    for k in ("point", "replicate", "seed"):
        front[k] = front[k].astype("int64")
    front["point_id"] = front["point_id"].astype("string")
    for k in override_keys + label_keys:
        front[k] = front[k].infer_objects()
    if parts:
        body = pa.concat_tables(parts, promote_options="permissive").to_pandas()
    else:
        body = pd.DataFrame()
    for col in list(body.columns):
        if col in front.columns:  # a table column with an override's name: keep both
            body = body.rename(columns={col: f"{col}_"})
    return sweep_frame(pd.concat([front.reset_index(drop=True), body.reset_index(drop=True)], axis=1))


_SWEEP_FRAME: Any = None


def sweep_frame(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` as a sweep results frame: a pandas DataFrame in every respect but its notebook
    display, a compact summary of the sweep (``ccsim._html.sweep_html``). Frames derived
    from it (selections, groupings, copies) are plain DataFrames."""
    global _SWEEP_FRAME
    if _SWEEP_FRAME is None:
        import pandas as pd

        class SweepFrame(pd.DataFrame):
            """A sweep's results; displays as a summary in Jupyter (``print`` shows the rows)."""

            @property
            def _constructor(self) -> type[pd.DataFrame]:
                return pd.DataFrame

            def _repr_html_(self) -> str:
                from ccsim._html import sweep_html

                return sweep_html(self)

        _SWEEP_FRAME = SweepFrame
    return _SWEEP_FRAME(df)
