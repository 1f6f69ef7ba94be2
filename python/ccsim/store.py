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

One sweep writes into a store at a time: it holds an exclusive lock on ``DIR/.lock``
(``fcntl.flock``, released by the kernel when the process ends, however it ends), and a second
sweep is refused with the holder's pid, host and start time. Reading (``load``) needs no lock.
Files that are damaged (a manifest or record that is not what ccsim writes, a Parquet file cut
short) are moved into ``DIR/damaged/`` with a warning, and the points they held run again.
"""

from __future__ import annotations

import io
import json
import os
import socket
import sys
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from ccsim.sweep import Point

__all__ = ["Store", "StoreError", "load", "sweep_frame", "table_bytes", "TABLES", "FORMAT"]

FORMAT = 1
MANIFEST = "manifest.json"
POINTS = "points"
TMP_PREFIX = ".tmp-"
LOCK = ".lock"
DAMAGED = "damaged"
PARQUET_MAGIC = b"PAR1"
#: Tables a point may have.
TABLES = ("flows", "links", "paths", "flow_series", "link_series", "route_series", "backoffs")
#: Seconds between manifest rewrites while a sweep runs (it is always written at the end).
MANIFEST_EVERY_S = 2.0
#: ... and at least this many times the last rewrite's own cost, so a large manifest (a
#: reproduction's store holds thousands of points over many plans) is not rewritten so often
#: that writing it costs more than the runs. Nothing is lost between rewrites: the point
#: records are the commit and the manifest is rebuilt from them when the store is opened.
MANIFEST_COST_FACTOR = 20.0


class StoreError(ValueError):
    """The directory is not a store this sweep may write into, or not a store at all."""


def table_bytes(table: pd.DataFrame | pa.Table) -> bytes:
    """A table as Parquet bytes (what workers send back): a DataFrame as ``to_parquet``
    writes it (without its index), or a ``pyarrow.Table`` (``Result.arrow_table``) written
    with the same options, which gives the same bytes for the table pandas would make."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    if isinstance(table, pa.Table):
        pq.write_table(table, buf, compression="snappy")  # pandas' to_parquet defaults
    else:
        table.to_parquet(buf, engine="pyarrow", index=False)
    return buf.getvalue()


def _atomic_write(path: Path, data: bytes, durable: bool = True) -> None:
    """Write under a temporary name and rename into place. ``durable=False`` skips the fsync:
    for a point's tables, whose size and Parquet magic are checked when the store is opened,
    so a table lost in a power failure makes its point run again (3 ms per file here)."""
    tmp = path.with_name(f"{TMP_PREFIX}{path.name}.{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise StoreError(f"cannot write {path}: {e.strerror or e}") from None


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


class StoreLock:
    """The exclusive lock of one writer on a store (``DIR/.lock``). The kernel releases it
    when the process ends, so a killed sweep never leaves a store locked. Where ``fcntl`` is
    missing (Windows) there is no lock and concurrent sweeps are not supported."""

    def __init__(self, root: Path) -> None:
        self.path = root / LOCK
        self.fd: int | None = None

    def acquire(self, what: str) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not on POSIX
            return
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise StoreError(f"cannot write into {self.path.parent}: {e.strerror or e}; choose another --out") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = ""
            try:
                holder = os.read(fd, 4096).decode("utf-8", "replace").strip()
            except OSError:
                pass
            os.close(fd)
            try:
                info = json.loads(holder)
                who = f"pid {int(info['pid'])} on {str(info['host'])!r}, since {str(info['since'])}"
                if info.get("plan"):
                    who += f", plan {str(info['plan'])!r}"
            except (ValueError, KeyError, TypeError):
                who = "another process"
            raise StoreError(
                f"store {self.path.parent} is in use by another ccsim sweep ({who}); wait for it "
                "to finish, or choose another --out"
            ) from None
        info = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "plan": what}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing releases the flock
            self.fd = None


def _json_bytes(value: Any, compact: bool = False) -> bytes:
    from ccsim.scenario import _json_default

    if compact:  # the manifest: machine-read, rewritten while the sweep runs
        text = json.dumps(value, separators=(",", ":"), default=_json_default, allow_nan=True)
    else:
        text = json.dumps(value, indent=1, default=_json_default, allow_nan=True)
    return (text + "\n").encode("utf-8")


class Store:
    """An open store (use :meth:`open`)."""

    def __init__(self, root: Path, manifest: dict[str, Any], lock: StoreLock | None = None, plan_id: str = "") -> None:
        self.root = root
        self.dir = root / POINTS
        self.manifest = manifest
        self.lock = lock
        self.plan_id = plan_id
        self._last_flush = 0.0
        self._flush_cost = 0.0

    def close(self) -> None:
        """Release the store's lock (the manifest is written by ``flush``)."""
        if self.lock is not None:
            self.lock.release()
            self.lock = None

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
        try:
            foreign = root.is_dir() and not any((root / n).exists() for n in (MANIFEST, LOCK, POINTS)) and any(root.iterdir())
        except OSError as e:
            raise StoreError(f"cannot read {root}: {e.strerror or e}") from None
        if foreign:
            raise StoreError(f"{root} is not empty and is not a ccsim sweep store (no {MANIFEST}); choose another --out")
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(f"cannot create the store {root}: {e.strerror or e}; choose another --out") from None
        lock = StoreLock(root)
        lock.acquire(next((str(p.get("name")) for p in plans if p.get("name")), plan_id))
        try:
            try:
                (root / POINTS).mkdir(exist_ok=True)
            except OSError as e:
                raise StoreError(f"cannot write into {root}: {e.strerror or e}; choose another --out") from None
            manifest = _read_manifest(root, repair=True) if manifest_path.exists() else _empty_manifest()
            store = cls(root, manifest, lock, plan_id)
            store._clean_temporary()
            store._reconcile()
            store._attach(plan_id, plans, points, version=version, resume=resume)
        except BaseException:
            lock.release()
            raise
        return store

    def attach(self, plan_id: str, plans: Sequence[Mapping[str, Any]], points: Sequence[Point], *, version: str) -> None:
        """Enter one more plan into a store already open (several sweeps run into one store
        in one pool, :mod:`ccsim.sweep_batch`): as a resumed ``open`` would."""
        self._attach(plan_id, plans, points, version=version, resume=True)

    def _attach(self, plan_id: str, plans: Sequence[Mapping[str, Any]], points: Sequence[Point], *, version: str, resume: bool) -> None:
        """Enter the plan in the manifest (refused if another plan's points are there and not
        ``resume``) and write it."""
        root, manifest = self.root, self.manifest
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
        self.flush()

    def _clean_temporary(self) -> None:
        for d in (self.root, self.dir):
            for f in d.glob(f"{TMP_PREFIX}*"):
                try:
                    f.unlink()
                except FileNotFoundError:
                    pass

    def _quarantine(self, files: Sequence[Path], why: str) -> None:
        """Move damaged files into ``DIR/damaged/`` (kept for inspection, out of the way)."""
        dest = self.root / DAMAGED
        moved = []
        for f in files:
            if not f.exists():
                continue
            try:
                dest.mkdir(exist_ok=True)
                os.replace(f, dest / f"{f.name}.{time.strftime('%Y%m%dT%H%M%S')}")
                moved.append(f.name)
            except OSError:
                f.unlink(missing_ok=True)
        if moved:
            _warn(f"{why}: moved {', '.join(moved)} to {dest}; the point will run again")

    def _reconcile(self) -> None:
        """Make the manifest's statuses agree with the point records on disk; a record or
        table that is damaged is moved aside and its point is pending again."""
        pts = self.manifest.setdefault("points", {})
        on_disk = set()
        # One listing of the directory (a glob per record made opening a store of n points
        # cost n directory scans).
        records: list[Path] = []
        tables_of: dict[str, list[Path]] = {}
        with os.scandir(self.dir) as it:
            for entry in it:
                name = entry.name
                if name.startswith(TMP_PREFIX):
                    continue
                if name.endswith(".json"):
                    records.append(Path(entry.path))
                elif name.endswith(".parquet") and "." in name[: -len(".parquet")]:
                    tables_of.setdefault(name.split(".", 1)[0], []).append(Path(entry.path))
        for rec_path in sorted(records):
            pid = rec_path.stem
            tables = sorted(tables_of.get(pid, []))
            rec, problem = _read_record(rec_path)
            if problem is None and rec.get("status") == "ok":
                problem = _check_tables(self.dir, pid, rec)
            if problem is not None:
                self._quarantine([rec_path, *tables], f"point {pid}: {problem}")
                continue
            on_disk.add(pid)
            pts[pid] = {k: rec.get(k) for k in ("status", "error", "wall_s") if rec.get(k) is not None}
        for pid, e in pts.items():
            if pid not in on_disk:
                e.clear()
                e["status"] = "pending"

    # -- writing

    def status(self, pid: str) -> str:
        return self.manifest["points"].get(pid, {}).get("status", "pending")

    def write_point(self, point: Point, res: Mapping[str, Any], plan_id: str | None = None) -> None:
        """Store a point's outcome: its tables, then its record (the commit). ``plan_id``: the
        plan that ran it (default: the plan the store was opened for)."""
        plan_id = self.plan_id if plan_id is None else plan_id
        tables = res.get("tables") or {}
        for name, data in tables.items():
            _atomic_write(self.dir / f"{point.id}.{name}.parquet", data, durable=False)
        record = {
            **_point_meta(point),
            "status": res.get("status", "error"),
            "error": res.get("error"),
            "wall_s": res.get("wall_s"),
            "tables": sorted(tables),
            "table_bytes": {name: len(data) for name, data in tables.items()},
            "plans": [plan_id] if plan_id else [],
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
        if time.monotonic() - self._last_flush >= max(MANIFEST_EVERY_S, MANIFEST_COST_FACTOR * self._flush_cost):
            self.flush()

    def flush(self) -> None:
        """Write the manifest (atomically)."""
        t0 = time.monotonic()
        _atomic_write(self.root / MANIFEST, _json_bytes(self.manifest, compact=True))
        self._last_flush = time.monotonic()
        self._flush_cost = self._last_flush - t0


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


def _empty_manifest() -> dict[str, Any]:
    return {"format": FORMAT, "plans": [], "points": {}}


def _shape_problem(m: Any) -> str | None:
    """What is wrong with a manifest's shape (None: it is one ccsim writes)."""
    if not isinstance(m, dict) or m.get("format") != FORMAT:
        return f"not a ccsim store manifest of format {FORMAT}"
    if not isinstance(m.get("plans"), list) or not isinstance(m.get("points"), dict):
        return "'plans' is not a list or 'points' not a table"
    for e in m["points"].values():
        if not isinstance(e, dict):
            return "a point entry is not a table"
    for p in m["plans"]:
        if not isinstance(p, dict) or not isinstance(p.get("plan_id"), str) or not isinstance(p.get("points", []), list):
            return "a plan entry has no plan_id or points"
        for meta in p.get("points", []):
            if _meta_problem(meta) is not None:
                return f"a point of plan {p['plan_id']!r}: {_meta_problem(meta)}"
    return None


def _meta_problem(meta: Any) -> str | None:
    if not isinstance(meta, dict):
        return "not a table"
    types = {"id": str, "index": int, "overrides": dict, "replicate": int, "seed": int}
    for key, typ in types.items():
        if not isinstance(meta.get(key), typ) or isinstance(meta.get(key), bool):
            return f"'{key}' is missing or not a {typ.__name__}"
    if not isinstance(meta.get("labels", {}), dict):
        return "'labels' is not a table"
    return None


def _read_record(path: Path) -> tuple[dict[str, Any], str | None]:
    """A point record and what is wrong with it (None: nothing)."""
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as e:
        return {}, f"unreadable record ({type(e).__name__})"
    problem = _meta_problem(rec)
    if problem is None and rec.get("id") != path.stem:
        problem = "its id is not its file name"
    if problem is None and rec.get("status") not in ("ok", "error"):
        problem = f"unknown status {rec.get('status')!r}"
    tables = rec.get("tables", []) if isinstance(rec, dict) else []
    if problem is None and (not isinstance(tables, list) or not all(t in TABLES for t in tables)):
        problem = "its list of tables is not one ccsim writes"
    return (rec if problem is None else {}), (f"damaged record: {problem}" if problem else None)


def _check_tables(points: Path, pid: str, rec: Mapping[str, Any]) -> str | None:
    """Whether a finished point's tables are all there and whole: the size written (when
    recorded) and Parquet's magic number at both ends."""
    sizes = rec.get("table_bytes") if isinstance(rec.get("table_bytes"), dict) else {}
    for t in rec.get("tables", []):
        f = points / f"{pid}.{t}.parquet"
        try:
            size = f.stat().st_size
            with open(f, "rb") as fh:
                head = fh.read(4)
                fh.seek(max(0, size - 4))
                tail = fh.read(4)
        except OSError:
            return f"its {t} table is missing"
        if (t in sizes and sizes[t] != size) or head != PARQUET_MAGIC or tail != PARQUET_MAGIC:
            return f"its {t} table is damaged (cut short or overwritten)"
    return None


def _rebuild_manifest(root: Path) -> dict[str, Any]:
    """A manifest made from the point records: one plan per plan id the records name (in
    the order first written), the records without one in a plan 'recovered'."""
    m = _empty_manifest()
    plans: dict[str, list[dict[str, Any]]] = {}
    for rec_path in sorted((root / POINTS).glob("*.json"), key=lambda p: p.stat().st_mtime_ns):
        rec, problem = _read_record(rec_path)
        if problem is not None:
            continue
        meta = {k: rec.get(k) for k in ("id", "index", "overrides", "replicate", "seed", "labels", "series")}
        ids = rec.get("plans") if isinstance(rec.get("plans"), list) and rec.get("plans") else ["recovered"]
        for pid in ids:
            plans.setdefault(str(pid), []).append(meta)
        m["points"][rec["id"]] = {k: rec.get(k) for k in ("status", "error", "wall_s") if rec.get(k) is not None}
    for pid, metas in plans.items():
        m["plans"].append({"plan_id": pid, "name": "rebuilt from the point records", "points": metas})
    return m


def _read_manifest(root: Path, *, repair: bool = False) -> dict[str, Any]:
    """The store's manifest. One that cannot be read or is not of the shape ccsim writes is
    rebuilt from the point records; with ``repair`` (a sweep opening the store) the bad one
    is moved into ``DIR/damaged/`` first, else (reading) it is left alone."""
    path = root / MANIFEST
    m: Any = None
    try:
        m = json.loads(path.read_text(encoding="utf-8"))
        problem = _shape_problem(m)
    except (ValueError, RecursionError) as e:
        problem = f"not valid JSON ({type(e).__name__})"
    except OSError as e:
        raise StoreError(f"cannot read {path}: {e.strerror or e}") from None
    if problem is None:
        return m
    if isinstance(m, dict) and isinstance(m.get("format"), int) and m.get("format") != FORMAT and problem.startswith("not a ccsim"):
        raise StoreError(f"{path} is of store format {m.get('format')}, this ccsim reads format {FORMAT}")
    if repair:
        dest = root / DAMAGED
        try:
            dest.mkdir(exist_ok=True)
            os.replace(path, dest / f"{MANIFEST}.{time.strftime('%Y%m%dT%H%M%S')}")
        except OSError:
            pass
        _warn(f"{path}: {problem}; rebuilt from the point records (the old one is in {dest})")
    return _rebuild_manifest(root)


# ---------------------------------------------------------------------------- reading


def _cell(v: Any) -> Any:
    """Override values that are tables or lists become canonical JSON text (one column type)."""
    if isinstance(v, (dict, list)):
        return json.dumps(v, sort_keys=True, separators=(",", ":"))
    return v


# What a reader has parsed, keyed by a file's path and identity (inode, mtime, size): ccsim
# replaces its files (``os.replace``), never changes one in place, so an entry is good while
# the identity is. Reading a plan's tables reads its manifest and every point's record, and
# an experiment's figures and claims read the same plans many times (a MATCP record is
# ~200 kB: its scenario document; FAST + RIP's claims made 950 loads in one run).
_READ_MANIFESTS: dict[str, tuple[tuple[int, int, int], dict[str, Any]]] = {}
_READ_RECORDS: dict[str, tuple[tuple[int, int, int], dict[str, Any], str | None]] = {}
_READ_CACHE_MAX = 200_000  # records: a few hundred bytes each
# ... and the Arrow tables read (immutable, so shared safely), least recently used first,
# up to READ_CACHE_BYTES of Arrow memory in all.
_READ_TABLES: OrderedDict[str, tuple[tuple[int, int, int], pa.Table]] = OrderedDict()
_read_tables_bytes = 0
#: Arrow memory the readers keep of the tables they read (0: none).
READ_CACHE_BYTES = 512 << 20
#: The fields of a point record the readers use.
_ROW_FIELDS = ("status", "error", "wall_s", "end_time_s", "events")


def _identity(st: os.stat_result) -> tuple[int, int, int]:
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def _manifest_for_reading(root: Path) -> dict[str, Any]:
    """The store's manifest as ``_read_manifest`` reads it (the returned dict is shared
    between readers: not to be changed)."""
    path = root / MANIFEST
    try:
        key = _identity(path.stat())
    except OSError:
        return _read_manifest(root)  # its located error
    hit = _READ_MANIFESTS.get(str(path))
    if hit is not None and hit[0] == key:
        return hit[1]
    try:
        m = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        m = None
    if m is None or _shape_problem(m) is not None:
        return _read_manifest(root)  # rebuilt from the records (or its located error)
    _READ_MANIFESTS[str(path)] = (key, m)
    return m


def _record_fields(rec_path: Path) -> tuple[dict[str, Any], str | None]:
    """A point record's ``_ROW_FIELDS`` and what is wrong with it (``_read_record``); a
    missing record is a pending point."""
    try:
        key = _identity(rec_path.stat())
    except OSError:
        return {"status": "pending"}, None
    hit = _READ_RECORDS.get(str(rec_path))
    if hit is not None and hit[0] == key:
        return hit[1], hit[2]
    rec, problem = _read_record(rec_path)
    fields = {k: rec[k] for k in _ROW_FIELDS if k in rec}
    if len(_READ_RECORDS) >= _READ_CACHE_MAX:
        _READ_RECORDS.clear()
    _READ_RECORDS[str(rec_path)] = (key, fields, problem)
    return fields, problem


def _read_point_table(path: Path) -> pa.Table | None:
    """A point's table (``None``: there is no such file), from the cache if unchanged."""
    global _read_tables_bytes
    import pyarrow.parquet as pq

    try:
        key = _identity(path.stat())
    except OSError:
        return None
    hit = _READ_TABLES.get(str(path))
    if hit is not None and hit[0] == key:
        _READ_TABLES.move_to_end(str(path))
        return hit[1]
    try:
        # one file's reader, without the dataset machinery of pq.read_table (~1 ms a file)
        # or threads (a point's tables are small)
        table = pq.ParquetFile(path).read(use_threads=False)
    except (OSError, ValueError) as e:  # pyarrow's errors derive from these
        raise StoreError(
            f"{path} is damaged ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}); "
            "run the sweep again into this store to recompute the point"
        ) from None
    if table.nbytes <= READ_CACHE_BYTES:
        old = _READ_TABLES.pop(str(path), None)
        if old is not None:
            _read_tables_bytes -= old[1].nbytes
        _READ_TABLES[str(path)] = (key, table)
        _read_tables_bytes += table.nbytes
        while _read_tables_bytes > READ_CACHE_BYTES:
            _, (_, dropped) = _READ_TABLES.popitem(last=False)
            _read_tables_bytes -= dropped.nbytes
    return table


def _point_rows(root: Path, plan: str | None) -> list[dict[str, Any]]:
    """Point records selected by ``plan``: ``"latest"``, ``"all"`` or a plan id."""
    m = _manifest_for_reading(root)
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
        rec, problem = _record_fields(root / POINTS / f"{pid}.json")
        if problem is not None:
            rec = {"status": "pending", "error": problem}
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
        if r["status"] != "ok":
            continue
        t = _read_point_table(root / POINTS / f"{r['id']}.{table}.parquet")
        if t is None:
            continue
        parts.append(t)
        owners.append(r)
        lengths.append(t.num_rows)
    import numpy as np

    # The point columns, one row per point with rows, typed (the pandas conversions and
    # inference see the same values as on the repeated rows), then repeated by a take: the
    # same frame as typing the repeated rows, without a Python object per row (FAST + RIP's
    # route series have 600 000 rows a plan).
    with_rows = [i for i, n in enumerate(lengths) if n]
    per_point = pd.DataFrame({k: np.asarray(v, dtype=object) for k, v in meta_columns([owners[i] for i in with_rows]).items()})
    for k in ("point", "replicate", "seed"):
        per_point[k] = per_point[k].astype("int64")
    per_point["point_id"] = per_point["point_id"].astype("string")
    for k in override_keys + label_keys:
        per_point[k] = per_point[k].infer_objects()
    take = np.repeat(np.arange(len(with_rows), dtype=np.int64), np.asarray([lengths[i] for i in with_rows], dtype=np.int64))
    front = per_point.take(take).reset_index(drop=True)
    if parts:
        body = pa.concat_tables(parts, promote_options="permissive").to_pandas()
    else:
        body = pd.DataFrame()
    for col in list(body.columns):
        if col in front.columns:  # a table column with an override's name: keep both
            body = body.rename(columns={col: f"{col}_"})
    return sweep_frame(pd.concat([front, body.reset_index(drop=True)], axis=1))


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
