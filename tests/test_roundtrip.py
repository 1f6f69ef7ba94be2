"""A run saved, loaded back and re-run from its saved scenario gives the same results
(docs/python.md, "Saving and loading")."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import ccsim
from ccsim.cli import main
from ccsim.results import Result


@pytest.mark.needs_core
def test_save_load_and_rerun_give_identical_results(scenario_file, tmp_path, capsys) -> None:
    sc = ccsim.load(scenario_file).set("measure.from", "0.5s").set("trace.events", ["drop", "mark", "retx", "timeout"])
    first = ccsim.run(sc, progress=False)
    out = tmp_path / "out"
    first.save(out)

    loaded = Result.load(out)
    same = ccsim.results.load(out)          # the module-level reader sees a saved run too
    assert isinstance(same, Result)
    assert loaded.summary == first.summary
    assert loaded.window == first.window == (0.5, 2.0)
    assert len(first.drop_events) > 0 and len(first.retx_events) > 0
    for name in ("flows", "links", "paths", "flow_series", "link_series", "backoffs", "path_series", "route_series",
                 "drop_events", "mark_events", "retx_events", "timeout_events"):
        pd.testing.assert_frame_equal(getattr(loaded, name), getattr(first, name), check_dtype=True, obj=name)
    assert loaded.scenario is not None and loaded.scenario.doc == sc.doc

    # The saved scenario re-runs, from Python and from the command line.
    again = ccsim.run(out / "scenario.json", progress=False)
    assert again.summary == first.summary
    code = main(["run", str(out / "scenario.json"), "--out", str(tmp_path / "cli")])
    capsys.readouterr()
    assert code == 0
    assert json.loads((tmp_path / "cli" / "summary.json").read_text()) == first.summary


def test_loading_a_directory_without_a_run_names_it(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="not a saved run"):
        Result.load(tmp_path)
