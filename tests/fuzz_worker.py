"""The process the fuzz campaign runs its cases in (tests/fuzz.py starts it).

Reads one case per line on stdin (JSON), runs it in this process, writes one result line.
The parent limits this process's address space (RLIMIT_AS) and kills it when a case takes
too long; the core's memory limit is set lower (CCSIM_MEMORY_LIMIT) so that the engine's
guard, not the kernel, is what stops a run that grows. A case is:

* ``{"kind": "cli", "argv": [...], "summary": DIR or null}``: ``ccsim.cli.main(argv)`` with
  its output captured; with ``summary``, the conservation account of ``DIR/summary.json``;
* ``{"kind": "api", "doc": {...}}``: ``Scenario(doc).validate()``;
* ``{"kind": "load", "store": DIR}``: ``ccsim.results.load`` of every table of a store.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import traceback


def run_case(case: dict) -> dict:
    from ccsim import ScenarioError, cli
    from ccsim.scenario import Scenario

    out, err = io.StringIO(), io.StringIO()
    result: dict = {}
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            if case["kind"] == "cli":
                result["code"] = cli.main(case["argv"])
                if case.get("summary") and result["code"] == 0:
                    with open(f"{case['summary']}/summary.json", encoding="utf-8") as f:
                        result["conservation"] = json.load(f)["conservation"]
            elif case["kind"] == "api":
                try:
                    Scenario(case["doc"]).validate()
                    result["code"] = 0
                except ScenarioError as e:
                    result["code"] = 2
                    print(str(e), file=sys.stderr)
            elif case["kind"] == "load":
                from ccsim.results import load
                from ccsim.store import StoreError

                try:
                    for table in ("points", "flows", "links"):
                        load(case["store"], table=table, plan="all")
                    result["code"] = 0
                except StoreError as e:
                    result["code"] = 2
                    print(str(e), file=sys.stderr)
        except BaseException:  # noqa: BLE001 - every escape is a finding
            traceback.print_exc()
            result["code"] = "exception"
    o, e = out.getvalue(), err.getvalue()
    # the head says what happened (a summary's first line), the tail how it ended
    result["stdout"] = o if len(o) <= 8000 else o[:4000] + "\n[...]\n" + o[-4000:]
    result["stderr"] = e if len(e) <= 8000 else e[:4000] + "\n[...]\n" + e[-4000:]
    return result


def main() -> None:
    import ccsim  # noqa: F401 - load everything before the first case is timed

    sys.stdout.write(json.dumps({"ready": True}) + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        res = run_case(json.loads(line))
        sys.stdout.write(json.dumps(res) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
