"""The fuzz campaign (issue 23): mutated shipped scenarios (as TOML, JSON, TOML text and
Python dicts), mutated sweep plans and damaged stores, each run in a worker process under a
time and address-space limit. Every case must end as one of the accepted outcome classes —
ran with packets conserved, accepted, one clean error (exit 2), stopped by the memory guard
or a sweep with failed points (exit 1, with a message) — never a traceback, panic, crash,
hang, lost packet or silent error.

The default run is a fixed-seed few hundred cases (``CCSIM_FUZZ_CASES``, default 300, split
over the kinds); ``CCSIM_FUZZ_CASES=5000`` runs thousands. ``CCSIM_FUZZ_REPORT=FILE`` writes
the counts of outcome classes as JSON. A failing case is kept under
tests/fuzz_corpus/found/ (move it to tests/fuzz_corpus/ once fixed: ``test_corpus`` replays
every file there).
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import fuzz
from tests.sweep_helpers import write_plan

pytestmark = pytest.mark.needs_core

CASES = int(os.environ.get("CCSIM_FUZZ_CASES", "300"))
# shares of the cases by kind
SHARE = {"scenario": 0.40, "text": 0.20, "api": 0.15, "plan": 0.12, "store": 0.13}


def examples(kind: str) -> int:
    return max(5, int(CASES * SHARE[kind]))


def fuzz_settings(kind: str):
    return settings(max_examples=examples(kind), derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck), print_blob=False)


SHIPPED = sorted(fuzz.SCENARIOS.glob("*.toml"))
SHIPPED_DOCS = {p.name: tomllib.loads(p.read_text()) for p in SHIPPED}


@pytest.fixture(scope="module")
def worker():
    w = fuzz.Worker()
    yield w
    w.stop()
    text = fuzz.report()
    print("\n" + text)
    if os.environ.get("CCSIM_FUZZ_REPORT"):
        Path(os.environ["CCSIM_FUZZ_REPORT"]).write_text(json.dumps(
            {"cases": sum(fuzz.COUNTS.values()), "classes": {f"{k}: {c}": n for (k, c), n in sorted(fuzz.COUNTS.items())}}, indent=1))


def check(worker, kind: str, case: dict, files: dict[str, bytes], what: str, limit_kind: str) -> str:
    res = worker.run(case, limit_kind)
    cls = fuzz.classify(res)
    fuzz.record(kind, cls)
    if cls in fuzz.BUGS:
        where = fuzz.save_finding(kind, cls, files, f"{what}\n{json.dumps(case)}\n{res.get('stderr', '')}")
        pytest.fail(f"{kind} case gave {cls} (kept in {where}): {what}\n{res.get('stderr', '')[-2000:]}")
    return cls


def _draws(data, mild: bool = False):
    """Pickers of an index and of a value (hostile, or with ``mild`` often a valid one)."""
    draw_index = lambda n: data.draw(st.integers(0, max(0, n - 1)))  # noqa: E731
    pool = fuzz.MILD if mild else fuzz.WEIRD
    # a copy: a drawn list or table is changed by later mutations, and the pool must not be
    draw_weird = lambda: copy.deepcopy(data.draw(st.sampled_from(pool)))  # noqa: E731
    return draw_index, draw_weird


def _capped(doc: dict) -> dict:
    """A shipped scenario made quick to run: at most 0.5 s, sampled coarsely."""
    doc = json.loads(json.dumps(doc))
    sim = doc.setdefault("simulation", {})
    sim["duration"] = "0.5s"
    trace = doc.setdefault("trace", {})
    if isinstance(trace, dict):
        trace["interval"] = "50ms"
    return doc


# ---------------------------------------------------------------------------- scenarios


@fuzz_settings("scenario")
@given(st.data())
def test_mutated_scenarios(worker, tmp_path_factory, data):
    draw_index, draw_weird = _draws(data, mild=data.draw(st.booleans()))
    name = data.draw(st.sampled_from(sorted(SHIPPED_DOCS)))
    doc, done = fuzz.mutate(_capped(SHIPPED_DOCS[name]), draw_index, draw_weird, data.draw(st.integers(1, 3)))
    d = tmp_path_factory.mktemp("sc")
    as_json = data.draw(st.booleans()) and data.draw(st.booleans())
    f = d / ("case.json" if as_json else "case.toml")
    body = json.dumps(doc, allow_nan=True) if as_json else fuzz.to_toml(doc)
    f.write_text(body)
    # a mutated duration may be long; such cases are only validated
    touches_time = any("duration" in x or x.endswith("simulation") for x in done)
    argv = ["validate", str(f)] if touches_time else ["run", str(f), "-q", "--out", str(d / "out")]
    case = {"kind": "cli", "argv": argv, "summary": None if touches_time else str(d / "out")}
    check(worker, "scenario", case, {f.name: body.encode()}, f"{name}: {'; '.join(done)}", "validate" if touches_time else "run")


@fuzz_settings("text")
@given(st.data())
def test_mutated_toml_text(worker, tmp_path_factory, data):
    draw_index, _ = _draws(data)
    path = data.draw(st.sampled_from(SHIPPED))
    body = fuzz.mutate_bytes(path.read_bytes(), draw_index, data.draw(st.integers(1, 5)))
    f = tmp_path_factory.mktemp("tx") / "case.toml"
    f.write_bytes(body)
    check(worker, "text", {"kind": "cli", "argv": ["validate", str(f)]}, {"case.toml": body}, path.name, "validate")


@fuzz_settings("api")
@given(st.data())
def test_mutated_documents_through_the_api(worker, data):
    draw_index, draw_weird = _draws(data)
    name = data.draw(st.sampled_from(sorted(SHIPPED_DOCS)))
    doc, done = fuzz.mutate(SHIPPED_DOCS[name], draw_index, draw_weird, data.draw(st.integers(1, 4)))
    case = {"kind": "api", "doc": doc}
    check(worker, "api", case, {"case.json": json.dumps(doc, allow_nan=True).encode()}, f"{name}: {'; '.join(done)}", "api")


# ---------------------------------------------------------------------------- plans


def _small_plan(d: Path) -> dict:
    """The shipped sweep plan on a quick copy of its base: two values per grid key, one seed."""
    raw = tomllib.loads((fuzz.PLANS / "dumbbell_sweep.toml").read_text())
    base = tomllib.loads((fuzz.PLANS / raw["base"]).read_text())
    (d / "base.toml").write_text(fuzz.to_toml(_capped(base) | {"simulation": {"duration": "0.2s"}}))
    raw["base"] = "base.toml"
    raw["seeds"] = 1
    raw["grid"] = {k: v[:2] for k, v in raw.get("grid", {}).items()}
    return raw


@fuzz_settings("plan")
@given(st.data())
def test_mutated_plans(worker, tmp_path_factory, data):
    draw_index, draw_weird = _draws(data)
    d = tmp_path_factory.mktemp("plan")
    plan, done = fuzz.mutate(_small_plan(d), draw_index, draw_weird, data.draw(st.integers(1, 3)))
    body = fuzz.to_toml(plan)
    f = d / "plan.toml"
    f.write_text(body)
    case = {"kind": "cli", "argv": ["sweep", str(f), "--out", str(d / "store"), "--jobs", "1", "-q"]}
    check(worker, "plan", case, {"plan.toml": body.encode(), "base.toml": (d / "base.toml").read_bytes()}, "; ".join(done), "sweep")


# ---------------------------------------------------------------------------- stores


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    d = tmp_path_factory.mktemp("store0")
    plan = write_plan(d, duration="0.3s")
    from ccsim import cli

    assert cli.main(["sweep", str(plan), "--out", str(d / "store"), "--jobs", "1", "-q"]) == 0
    return plan, d / "store"


def _damage(f: Path, draw_index, draw_weird) -> str:
    data = f.read_bytes()
    op = draw_index(5)
    if op == 0:
        f.write_bytes(data[: draw_index(len(data) + 1)])
        return f"truncate {f.name}"
    if op == 1 and data:
        at = draw_index(len(data))
        f.write_bytes(data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:])
        return f"flip a byte of {f.name}"
    if op == 2 and f.suffix == ".json":
        try:
            doc = json.loads(data)
        except ValueError:
            return "nothing"
        doc, done = fuzz.mutate(doc, draw_index, draw_weird, 2)
        f.write_text(json.dumps(doc, allow_nan=True))
        return f"{f.name}: {'; '.join(done)}"
    if op == 3:
        f.unlink()
        return f"delete {f.name}"
    f.write_bytes(b"\xff\xfe" + data[:50])
    return f"garbage in {f.name}"


@fuzz_settings("store")
@given(st.data())
def test_damaged_stores(worker, small_store, tmp_path_factory, data):
    draw_index, draw_weird = _draws(data)
    plan, store0 = small_store
    d = tmp_path_factory.mktemp("st")
    store = d / "store"
    shutil.copytree(store0, store)
    done = []
    for _ in range(data.draw(st.integers(1, 3))):
        files = sorted(p for p in store.rglob("*") if p.is_file() and p.name != ".lock")
        if files:
            done.append(_damage(files[draw_index(len(files))], draw_index, draw_weird))
    what = "; ".join(done)
    check(worker, "store", {"kind": "load", "store": str(store)}, {}, what, "load")
    argv = ["sweep", str(plan), "--out", str(store), "--jobs", "1", "-q", "--resume"]
    cls = check(worker, "store", {"kind": "cli", "argv": argv}, {}, what, "sweep")
    if cls == "accepted":  # repaired: every point is there again
        from ccsim.results import load

        assert load(store, table="points")["status"].eq("ok").all(), what


# ---------------------------------------------------------------------------- regression inputs


CORPUS_FILES = sorted(p for p in fuzz.CORPUS.glob("*") if p.suffix in (".toml", ".json"))


@pytest.mark.parametrize("path", CORPUS_FILES, ids=[p.name for p in CORPUS_FILES])
def test_corpus(worker, tmp_path, path):
    """Every kept input: plans (``plan-*.toml``) are swept, scenarios validated and, when
    valid, run; each must end in an accepted class."""
    if path.name.startswith("plan-"):
        case = {"kind": "cli", "argv": ["sweep", str(path), "--out", str(tmp_path / "s"), "--jobs", "1", "-q"]}
        check(worker, "corpus", case, {}, path.name, "sweep")
        return
    cls = check(worker, "corpus", {"kind": "cli", "argv": ["validate", str(path)]}, {}, path.name, "validate")
    if cls == "accepted":
        case = {"kind": "cli", "argv": ["run", str(path), "-q", "--out", str(tmp_path / "o")], "summary": str(tmp_path / "o")}
        check(worker, "corpus", case, {}, path.name, "run")
