"""The JSON Schema of scenario documents (generated from the core's parameter declarations,
shipped as ``ccsim/schema/scenario.schema.json``): it accepts every shipped scenario and
every document the experiments build, rejects the malformed documents of the parser tests,
and never rejects a document the core accepts."""

from __future__ import annotations

import copy
import json
import re
import tomllib
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from ccsim import _core, paths
from ccsim.experiments import registry
from ccsim.sweep import expand_plans

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft7Validator:
    schema = paths.schema()
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def core_accepts(doc: dict) -> bool:
    return not _core.problems(json.dumps(doc), "t")


def shipped() -> list[tuple[str, dict]]:
    out = []
    for f in sorted(resources.files("ccsim").joinpath("scenarios").iterdir(), key=lambda p: p.name):
        if f.name.endswith(".toml"):
            out.append((f.name, tomllib.loads(f.read_text())))
    return out


def test_the_shipped_file_is_what_the_core_exports():
    assert paths.schema_file().read_text() == _core.schema()
    assert (ROOT / "python/ccsim/schema/scenario.schema.json").read_text() == _core.schema()


@pytest.mark.parametrize("name, doc", shipped(), ids=[n for n, _ in shipped()])
def test_every_shipped_scenario_is_valid(validator, name, doc):
    errors = [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(doc)]
    assert not errors, errors


def test_the_reference_example_and_every_experiment_document_are_valid(validator):
    text = (ROOT / "docs/scenario.md").read_text()
    block = re.search(r"```toml\n(.*?)```", text, re.S).group(1)
    docs = [("docs/scenario.md", tomllib.loads(block))]
    for name, exp in registry().items():
        for pt in expand_plans(exp.plans("quick"), version="t"):
            docs.append((f"{name}/{pt.index}", pt.doc))
    assert len(docs) > 50
    for name, doc in docs:
        assert core_accepts(doc), name
        errors = [e.message for e in validator.iter_errors(doc)]
        assert not errors, (name, errors[:3])


BASE = """
[simulation]
duration = "1s"
[[link]]
between = ["a", "b"]
rate = "1Mbps"
delay = "1ms"
[[flow]]
from = "a"
to = "b"
app = "bulk"
"""

# Malformed documents of the parser tests (crates/ccsim-core/src/scenario/parse_tests.rs,
# parse_cc_tests.rs) that a schema can see: types, ranges, allowed values, unit strings,
# unknown and missing keys. (Unknown node names, duplicates and routes need the whole
# document; only ccsim checks those.)
MALFORMED = {
    "duration as a bare number": ('duration = "1s"', "duration = 10"),
    "seed as a string": ('duration = "1s"', 'duration = "1s"\nseed = "one"'),
    "unknown [simulation] key": ('duration = "1s"', 'duration = "1s"\nsed = 3'),
    "threads 3": ('duration = "1s"', 'duration = "1s"\nthreads = 3'),
    "threads word": ('duration = "1s"', 'duration = "1s"\nthreads = "many"'),
    "unknown routing metric": ('duration = "1s"', 'duration = "1s"\nrouting = "shortest"'),
    "unknown link key": ('delay = "1ms"', 'delay = "1ms"\nbandwith = "1Mbps"'),
    "rate with a space": ('rate = "1Mbps"', 'rate = "10 Mbps"'),
    "zero rate": ('rate = "1Mbps"', 'rate = "0Mbps"'),
    "negative loss": ('delay = "1ms"', 'delay = "1ms"\nloss = -0.1'),
    "queue as a number": ('delay = "1ms"', 'delay = "1ms"\nqueue = 5'),
    "unknown queue kind": ('delay = "1ms"', 'delay = "1ms"\nqueue = "sfq"'),
    "zero queue limit": ('delay = "1ms"', 'delay = "1ms"\nqueue = { kind = "droptail", limit = 0 }'),
    "RED max_p 0": ('delay = "1ms"', 'delay = "1ms"\nqueue = { kind = "red", max_p = 0 }'),
    "RED w_q word": ('delay = "1ms"', 'delay = "1ms"\nqueue = { kind = "red", w_q = "fast" }'),
    "queue without kind": ('delay = "1ms"', 'delay = "1ms"\nqueue = { limit = "10p" }'),
    "unknown loss kind": ('delay = "1ms"', 'delay = "1ms"\nloss = { kind = "gilbert" }'),
    "link without rate": ('rate = "1Mbps"\n', ""),
    "unknown controller": ('app = "bulk"', 'app = "bulk"\ncc = "cubc"'),
    "CUBIC beta 1.3": ('app = "bulk"', 'app = "bulk"\ncc = { kind = "cubic", beta = 1.3 }'),
    "CUBIC unknown key": ('app = "bulk"', 'app = "bulk"\ncc = { kind = "cubic", hystrat = true }'),
    "Vegas negative alpha": ('app = "bulk"', 'app = "bulk"\ncc = { kind = "vegas", alpha = -1 }'),
    "Reno counting": ('app = "bulk"', 'app = "bulk"\ncc = { kind = "reno", counting = "sometimes" }'),
    "FAST counting": ('app = "bulk"', 'app = "bulk"\ncc = { kind = "fast", counting = "bytes" }'),
    "unknown recovery": ('app = "bulk"', 'app = "bulk"\nrecovery = "rack"'),
    "zero mss": ('app = "bulk"', 'app = "bulk"\nmss = 0'),
    "zero delayed ACK": ('app = "bulk"', 'app = "bulk"\ndelayed_ack = "0s"'),
    "dupthresh true": ('app = "bulk"', 'app = "bulk"\ndupthresh = true'),
    "count 1.5": ('app = "bulk"', 'app = "bulk"\ncount = 1.5'),
    "unknown rto key": ('app = "bulk"', 'app = "bulk"\nrto = { typo = 1 }'),
    "TCP app on UDP": ('app = "bulk"', 'app = "bulk"\ntransport = "udp"'),
    "TCP key on UDP": ('app = "bulk"', 'app = { kind = "cbr", rate = "1Mbps" }\ntransport = "udp"\ncc = "reno"'),
    "CBR jitter 1": ('app = "bulk"', 'app = { kind = "cbr", rate = "1Mbps", jitter = 1.0 }\ntransport = "udp"'),
    "onoff on an ARC flow": ('app = "bulk"', 'app = { kind = "onoff", on = "1s", off = "1s" }\ntransport = "arc"'),
    "ARC filter_gain 1.5": ('app = "bulk"', 'app = "bulk"\ntransport = "arc"\narc = { filter_gain = 1.5 }'),
    "start list of one": ('app = "bulk"', 'app = { kind = "bulk", start = ["1s"] }'),
    "zero transfer size": ('app = "bulk"', 'app = { kind = "bulk", size = 0 }'),
    "flow without from": ('from = "a"\n', ""),
    "unknown transport": ('app = "bulk"', 'app = "bulk"\ntransport = "quic"'),
    "unknown selector": ('app = "bulk"', 'app = "bulk"\nselect = "fastest"'),
    "unknown top-level table": ("[simulation]", "[extra]\n[simulation]"),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_the_malformed_documents_of_the_parser_tests_are_rejected(validator, name):
    old, new = MALFORMED[name]
    assert old in BASE
    doc = tomllib.loads(BASE.replace(old, new, 1))
    assert not core_accepts(doc), f"{name}: the core accepts it"
    assert list(validator.iter_errors(doc)), f"{name}: the schema accepts it"


WEIRD = [None, True, 0, -1, 1.5, 1e300, "", "x", "inf", "auto", "0s", "5 ms", "1.5p", [], ["s1"], {}, {"kind": "red"}]


def _mutants(doc: dict):
    """Every value replaced by each of WEIRD, and every key removed (as the core's
    robustness test does)."""
    def walk(node, path):
        if isinstance(node, dict):
            for k in list(node):
                yield path + [k], "remove"
                yield from walk(node[k], path + [k])
        elif isinstance(node, list):
            for i, c in enumerate(node):
                yield from walk(c, path + [i])
        for w in WEIRD:
            yield path, w

    for path, w in walk(doc, []):
        if not path:
            continue
        d = copy.deepcopy(doc)
        parent = d
        for k in path[:-1]:
            parent = parent[k]
        if w == "remove":
            del parent[path[-1]]
        else:
            parent[path[-1]] = copy.deepcopy(w)
        yield d


#: Every SAMPLE-th mutant is checked (all of them: CCSIM_SCHEMA_SAMPLE=1).
SAMPLE = int(__import__("os").environ.get("CCSIM_SCHEMA_SAMPLE", "5"))


def test_the_schema_never_rejects_a_document_the_core_accepts(validator):
    """Editors must not underline what ccsim runs. Mutations of the shipped scenarios:
    whenever the core accepts one, the schema must too; and most it refuses, the schema
    refuses as well (the rest need the whole document: names, routes, min < max)."""
    accepted = rejected_both = rejected_core_only = 0
    for name, doc in shipped():
        for i, d in enumerate(_mutants(doc)):
            if i % SAMPLE:
                continue
            core_ok = core_accepts(d)
            schema_ok = validator.is_valid(d)
            if core_ok:
                accepted += 1
                assert schema_ok, (name, [e.message for e in validator.iter_errors(d)][:3], json.dumps(d)[:300])
            elif schema_ok:
                rejected_core_only += 1
            else:
                rejected_both += 1
    assert accepted > 100 // SAMPLE and rejected_both > 1000 // SAMPLE, (accepted, rejected_both, rejected_core_only)
    assert rejected_both > 3 * rejected_core_only, (accepted, rejected_both, rejected_core_only)
