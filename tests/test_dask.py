"""The Dask backend gives the same results as local worker processes."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import ccsim
from ccsim import cli
from ccsim.results import load as load_results
from tests.sweep_helpers import write_plan

pytestmark = pytest.mark.needs_core
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        yield c


def _sorted(df: pd.DataFrame) -> pd.DataFrame:
    return df.sort_values(["point_id", "name"]).reset_index(drop=True)


def test_dask_matches_local(tmp_path: Path, cluster):
    plan = write_plan(tmp_path)
    assert cli.main(["sweep", str(plan), "--out", str(tmp_path / "local"), "--jobs", "2", "-q"]) == 0
    assert cli.main(["sweep", str(plan), "--out", str(tmp_path / "dask"), "--dask", cluster.scheduler_address, "-q"]) == 0
    local, dask = load_results(tmp_path / "local"), load_results(tmp_path / "dask")
    assert len(local) == 24
    pd.testing.assert_frame_equal(_sorted(local), _sorted(dask))
    pd.testing.assert_frame_equal(_sorted(load_results(tmp_path / "local", table="links")), _sorted(load_results(tmp_path / "dask", table="links")))


def test_dask_client_in_python_with_a_failing_point(tmp_path: Path, cluster):
    base = ccsim.load(write_plan(tmp_path).parent / "two_flows.toml")
    with distributed.Client(cluster) as client:
        # Each value is valid alone (checked before anything runs); the second combination is
        # not (an RTO minimum above its maximum), so its points fail when they run.
        grid = {"flow.a.rto.min": ["2s"], "flow.a.rto.max": ["60s", "1s"]}
        df = ccsim.sweep(base, grid=grid, seeds=2, out=tmp_path / "s", dask=client, progress=False)
    assert df["point_id"].nunique() == 2
    points = load_results(tmp_path / "s", table="points")
    assert list(points["status"]) == ["ok", "ok", "error", "error"]
    assert points["error"].iloc[2].startswith("ScenarioError")
