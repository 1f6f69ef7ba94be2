"""How a sweep point's tables are written (``Result.arrow_table`` → Parquet, without pandas)
and read back (``ccsim.store.load``): the same bytes as the frames' ``to_parquet``, and the
same frames as the way before (pandas all along), including the readers' caches."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pandas.testing import assert_frame_equal

import ccsim
from ccsim import store as store_mod
from ccsim.results import Result
from ccsim.store import TABLES, load, table_bytes

from sweep_helpers import TWO_FLOWS_TOML

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"

# The tables a sweep worker writes, and a short run of a shipped scenario that has each.
CASES = {
    "two_flows": (None, ("flows", "links", "flow_series", "link_series")),
    "fast_multipath_rip.toml": ("5s", ("flows", "links", "flow_series", "link_series", "route_series")),
    "mptcp_two_paths.toml": ("5s", ("flows", "links", "paths", "flow_series", "backoffs")),
    "cmt_berp.toml": ("5s", ("flows", "links", "paths", "path_series", "flow_series")),
}


def _scenario(name: str, duration: str | None, tmp_path: Path) -> ccsim.Scenario:
    if name == "two_flows":
        path = tmp_path / "two_flows.toml"
        path.write_text(TWO_FLOWS_TOML)
        return ccsim.load(path)
    return ccsim.load(SCENARIOS / name).set("simulation.duration", duration)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    tmp = tmp_path_factory.mktemp("runs")
    return {name: ccsim.run(_scenario(name, duration, tmp), progress=False) for name, (duration, _) in CASES.items()}


def _pandas_bytes(df: pd.DataFrame) -> bytes:
    """The way before: the frame through pandas' to_parquet."""
    return table_bytes(df)


@pytest.mark.parametrize("case", list(CASES))
def test_arrow_tables_are_the_bytes_pandas_writes(results: dict[str, Result], case: str) -> None:
    result = results[case]
    for name in CASES[case][1]:
        frame = getattr(result, name)
        assert len(frame), f"{case}: {name} is empty (the case does not test it)"
        table = result.arrow_table(name)
        assert isinstance(table, pa.Table), name
        new = table_bytes(table)
        assert new == _pandas_bytes(frame), f"{case}: {name} differs from to_parquet's bytes"
        back = pd.read_parquet(pa.BufferReader(new), engine="pyarrow")
        assert_frame_equal(back, pd.read_parquet(pa.BufferReader(_pandas_bytes(frame)), engine="pyarrow"), check_exact=True)


def test_nan_is_stored_as_null_as_pandas_does(results: dict[str, Result]) -> None:
    """Greedy flows have no size: NaN, which from_pandas writes as null (not as a NaN value)."""
    result = results["two_flows"]
    assert result.flows["size_bytes"].isna().all()
    table = result.arrow_table("flows")
    assert table.column("size_bytes").null_count == len(result.flows)
    assert pq.read_table(pa.BufferReader(table_bytes(table))).column("size_bytes").null_count == len(result.flows)


def test_a_table_only_pandas_converts_is_left_to_pandas(results: dict[str, Result]) -> None:
    # no adaptive routing: the empty route frame's columns have no type
    assert results["two_flows"].arrow_table("route_series") is None
    from ccsim.results import _arrow_table

    assert _arrow_table({"x": np.array(["a", "b"])}) is None  # a numpy str column: not known
    with pytest.raises(ValueError):  # a code past the names, as pandas refuses it
        from ccsim.results import _Codes

        _arrow_table({"k": _Codes(np.array([0, 2], dtype=np.int32), ["a", "b"])})


def _sweep(tmp_path: Path, out: str) -> Path:
    scen = _scenario("mptcp_two_paths.toml", "3s", tmp_path)
    store = tmp_path / out
    ccsim.sweep.sweep(scen, grid={"simulation.seed": [1, 2]}, series=["flows", "backoffs"], out=store, jobs=1, progress=False)
    return store


def test_a_store_written_the_new_way_reads_as_the_old_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same points, their tables written from Arrow (now) and through pandas (before,
    forced by arrow_table declining every table): the same files and the same frames."""
    new = _sweep(tmp_path, "new")
    monkeypatch.setattr(Result, "arrow_table", lambda self, name: None)
    old = _sweep(tmp_path, "old")
    monkeypatch.undo()
    files = sorted(p.name for p in (new / "points").glob("*.parquet"))
    assert files == sorted(p.name for p in (old / "points").glob("*.parquet")) and len(files) == 2 * 5
    for name in files:
        assert (new / "points" / name).read_bytes() == (old / "points" / name).read_bytes(), name
    for table in ("points", *TABLES):
        a, b = load(old, table), load(new, table)
        ignore = ["wall_s"] if table == "points" else []  # the run's own wall time
        assert_frame_equal(a.drop(columns=ignore), b.drop(columns=ignore), check_exact=True)


def _reference_front(rows: list[dict], lengths: list[int], override_keys: list[str]) -> pd.DataFrame:
    """The point columns typed row by row, as load() made them before (one object per row)."""
    reps = np.asarray(lengths, dtype=np.int64)
    cols = {"point_id": [r["id"] for r in rows], "point": [r["index"] for r in rows]}
    for k in override_keys:
        cols[k] = [store_mod._cell(r["overrides"].get(k)) for r in rows]
    cols["replicate"] = [r["replicate"] for r in rows]
    cols["seed"] = [r["seed"] for r in rows]
    front = pd.DataFrame({k: np.repeat(np.asarray(v, dtype=object), reps) for k, v in cols.items()})
    for k in ("point", "replicate", "seed"):
        front[k] = front[k].astype("int64")
    front["point_id"] = front["point_id"].astype("string")
    for k in override_keys:
        front[k] = front[k].infer_objects()
    return front


def _fake_store(root: Path, overrides: list[dict], lengths: list[int]) -> None:
    """A store of points with the given overrides whose flows tables have ``lengths`` rows."""
    (root / "points").mkdir(parents=True)
    metas = []
    for i, (ov, n) in enumerate(zip(overrides, lengths)):
        pid = f"{i:016x}"
        meta = {"id": pid, "index": i, "overrides": ov, "replicate": 0, "seed": 1 + i, "labels": {}, "series": []}
        metas.append(meta)
        data = table_bytes(pd.DataFrame({"name": pd.array([f"f{j}" for j in range(n)], dtype="string"),
                                         "goodput_bps": np.arange(n, dtype=np.float64)}))
        (root / "points" / f"{pid}.flows.parquet").write_bytes(data)
        rec = {**meta, "status": "ok", "error": None, "wall_s": 0.1, "tables": ["flows"], "table_bytes": {"flows": len(data)}}
        (root / "points" / f"{pid}.json").write_text(json.dumps(rec))
    manifest = {"format": store_mod.FORMAT, "plans": [{"plan_id": "p", "points": metas}],
                "points": {m["id"]: {"status": "ok"} for m in metas}}
    (root / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("values", [
    [1, 2.5, 3, None],  # int and float: float64 (NaN for the missing one)
    ["a", None, "b", "a"],  # text with a missing value
    [True, False, True, False],
    [1, "x", 2.0, [1, 2]],  # mixed: object (the list as JSON text)
    [5, 6, 7, 8],
    [5, 6.5, 7, 8],  # the float only on the point without rows: int64
    ["a", 1, "b", "c"],  # the int only there: text
])
def test_point_columns_are_typed_as_row_by_row(tmp_path: Path, values: list) -> None:
    """load() types each point's columns once and repeats them: the same frame as typing the
    repeated rows, also when points without rows hold values the others do not."""
    lengths = [2, 0, 3, 1]  # the second point has no rows: its value must not count
    overrides = [{"k": v} if v is not None else {} for v in values]
    _fake_store(tmp_path / "s", overrides, lengths)
    df = load(tmp_path / "s")
    rows = sorted(store_mod._point_rows(tmp_path / "s", "latest"), key=lambda r: r["index"])
    with_rows = [(r, n) for r, n in zip(rows, lengths)]
    expected = _reference_front([r for r, _ in with_rows], [n for _, n in with_rows], ["k"])
    assert_frame_equal(df[list(expected.columns)], expected, check_exact=True)
    assert list(df.columns) == [*expected.columns, "name", "goodput_bps"]


def test_the_readers_caches_follow_the_files(tmp_path: Path) -> None:
    """A table, record or manifest replaced (as ccsim replaces them) is read again."""
    root = tmp_path / "s"
    _fake_store(root, [{"k": 1}, {"k": 2}], [2, 3])
    assert load(root)["goodput_bps"].tolist() == [0.0, 1.0, 0.0, 1.0, 2.0]
    assert load(root)["goodput_bps"].tolist() == [0.0, 1.0, 0.0, 1.0, 2.0]  # from the caches
    f = root / "points" / f"{1:016x}.flows.parquet"
    tmp = f.with_name(".tmp-x")
    tmp.write_bytes(table_bytes(pd.DataFrame({"name": pd.array(["z"], dtype="string"), "goodput_bps": [9.0]})))
    os.replace(tmp, f)
    assert load(root)["goodput_bps"].tolist() == [0.0, 1.0, 9.0]
    rec_path = root / "points" / f"{0:016x}.json"
    rec = json.loads(rec_path.read_text())
    rec["status"] = "error"
    tmp = rec_path.with_name(".tmp-y")
    tmp.write_text(json.dumps(rec))
    os.replace(tmp, rec_path)
    assert load(root)["goodput_bps"].tolist() == [9.0]
    assert load(root, "points")["status"].tolist() == ["error", "ok"]
    m = json.loads((root / "manifest.json").read_text())
    m["plans"].append({"plan_id": "q", "points": m["plans"][0]["points"][1:]})
    tmp = root / ".tmp-m"
    tmp.write_text(json.dumps(m))
    os.replace(tmp, root / "manifest.json")
    assert load(root, "points")["point"].tolist() == [1]


def test_the_table_cache_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "s"
    _fake_store(root, [{"k": i} for i in range(4)], [50, 50, 50, 50])
    one = pq.read_table(root / "points" / f"{0:016x}.flows.parquet").nbytes
    monkeypatch.setattr(store_mod, "READ_CACHE_BYTES", 2 * one)
    monkeypatch.setattr(store_mod, "_READ_TABLES", type(store_mod._READ_TABLES)())
    monkeypatch.setattr(store_mod, "_read_tables_bytes", 0)
    assert len(load(root)) == 200
    assert len(store_mod._READ_TABLES) == 2 and store_mod._read_tables_bytes <= 2 * one
