"""Scenario documents: load from TOML, build with ``dumbbell``, override with ``set``.

A :class:`Scenario` is the plain document (nested dicts and lists, as in the TOML file) plus
the name of where it came from. The core checks it (``validate`` or ``run``) and reports every
problem at once in a :class:`~ccsim.ScenarioError`; ``set`` checks the key and value it sets
the same way, at once (paths are described in :mod:`ccsim.paths`).
"""

from __future__ import annotations

import copy as _copy
import json
import math
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ccsim import _core, paths
from ccsim.exceptions import scenario_error

__all__ = ["Scenario", "load", "dumbbell"]

#: The largest scenario or plan file read (the core's limit too, docs/reliability.md).
MAX_INPUT_BYTES = 16 << 20
#: The deepest nesting of tables and lists a document may have (the core's limit too).
MAX_DEPTH = 32
#: Stands for a non-finite float in the JSON handed to the core (JSON has no NaN); the core
#: reports it by key. A real string cannot hold NUL (the core refuses control characters).
NON_FINITE = "\x00"

# tomllib's messages end with "(at line L, column C)" (Python 3.11-3.13 have no attributes).
_TOML_POS = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")


def _json_default(value: Any) -> Any:
    """Values json cannot write: numpy scalars and arrays, paths, TOML dates."""
    if hasattr(value, "tolist"):  # numpy scalar or array
        return value.tolist()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if hasattr(value, "isoformat"):  # TOML dates and times; the core will say what it wants
        return value.isoformat()
    raise TypeError(f"cannot put a {type(value).__name__} in a scenario: {value!r}")


def read_text(path: str | os.PathLike[str], what: str = "file") -> str:
    """A UTF-8 text file of at most ``MAX_INPUT_BYTES`` (devices and pipes included: what
    they give is read only up to the limit). Raises ``OSError``, ``UnicodeDecodeError`` or
    ``ValueError`` (too large)."""
    with open(path, "rb") as f:
        data = f.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise ValueError(f"larger than {MAX_INPUT_BYTES >> 20} MiB; a {what} is a small text file")
    return data.decode("utf-8")


def _path_text(parts: list[Any]) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def json_ready(doc: Any, source: str = "<python>", *, cut_deep: bool = False) -> Any:
    """A copy of ``doc`` that ``json.dumps`` can write and the core reads: numpy values and
    paths converted, non-finite floats as the marker the core reports by key. Walks without
    recursion. Nesting deeper than ``MAX_DEPTH`` (a structure that contains itself is
    infinitely deep) raises ``ScenarioError`` (located), or with ``cut_deep`` is cut there
    (an empty list just below the limit, which the core reports with every other problem).
    Values no scenario holds raise ``ScenarioError``."""
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, list[Any]]] = [(doc, root, 0, [])]
    while stack:
        value, holder, slot, where = stack.pop()
        if len(where) > MAX_DEPTH and cut_deep:
            holder[slot] = []
            continue
        if len(where) > MAX_DEPTH:
            raise scenario_error(source, [(_path_text(where), f"nested more than {MAX_DEPTH} tables or lists deep; a scenario needs a few levels")])
        if isinstance(value, Mapping):
            out: Any = {}
            for k, v in value.items():
                if not isinstance(k, str):
                    raise scenario_error(source, [(_path_text(where + [str(k)]), f"keys are strings, not {type(k).__name__}")])
                out[k] = None
                stack.append((v, out, k, where + [k]))
        elif isinstance(value, (list, tuple)):
            out = [None] * len(value)
            for i, v in enumerate(value):
                stack.append((v, out, i, where + [i]))
        elif isinstance(value, float) and not math.isfinite(value):
            out = NON_FINITE + ("nan" if math.isnan(value) else "inf" if value > 0 else "-inf")
        elif value is None or isinstance(value, (str, int, float, bool)):
            out = value
        else:
            try:
                conv = _json_default(value)
            except TypeError as e:
                raise scenario_error(source, [(_path_text(where), str(e))]) from None
            stack.append((conv, holder, slot, where))
            continue
        holder[slot] = out
    return root[0]


def _plain(doc: Any) -> bool:
    """Whether ``json_ready(doc)`` would be ``doc`` itself in JSON: only dicts with string
    keys, lists, tuples, strings, booleans, integers, finite floats and ``None``, nested at
    most ``MAX_DEPTH`` deep. (A check without the copy and the paths ``json_ready`` keeps for
    its messages: a MATCP point's document of 480 flows took 0.2 s to copy.)"""
    stack: list[tuple[Any, int]] = [(doc, 0)]
    scalars = (str, int, bool, type(None))
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            return False
        if type(value) is dict:
            for k, v in value.items():
                if type(k) is not str:
                    return False
                if not isinstance(v, scalars):
                    stack.append((v, depth + 1))
        elif type(value) in (list, tuple):
            for v in value:
                if not isinstance(v, scalars):
                    stack.append((v, depth + 1))
        elif isinstance(value, float):
            if not math.isfinite(value):
                return False
        elif not isinstance(value, scalars):
            return False
    return True


def dumps_ready(doc: Any, source: str = "<python>", *, cut_deep: bool = False) -> str:
    """``doc`` as the JSON text the core reads: ``json.dumps(json_ready(doc, ...))``, the
    same text without the copy when the document is plain (``_plain``)."""
    if _plain(doc):
        return json.dumps(doc, allow_nan=False)
    return json.dumps(json_ready(doc, source, cut_deep=cut_deep), allow_nan=False)


class Scenario:
    """A scenario document and the name of its source.

    ``doc`` is the document as nested dicts and lists (the TOML file's structure);
    ``source`` is the file name, or a description such as ``"<python>"``.
    """

    def __init__(self, doc: Mapping[str, Any], source: str = "<python>") -> None:
        if not isinstance(doc, Mapping):
            raise TypeError(f"a scenario document is a mapping, not {type(doc).__name__}")
        self.doc: dict[str, Any] = dict(doc)
        self.source = source

    def __repr__(self) -> str:
        n_links = len(self.doc.get("link", []) or [])
        n_flows = len(self.doc.get("flow", []) or [])
        return f"Scenario({self.source!r}, {n_links} link entries, {n_flows} flow entries)"

    def to_json(self) -> str:
        """The document as JSON text (what the core reads). Non-finite numbers are written
        as a marker the core reports by key, and nesting deeper than ``MAX_DEPTH`` levels is
        cut there (the core reports both by key)."""
        return dumps_ready(self.doc, self.source, cut_deep=True)

    def to_networkx(self) -> Any:
        """The network as a ``networkx.DiGraph``: one edge per directed link in the core's
        order, with the link entry's ``rate``, ``delay``, ``queue``, ``loss`` and ``name`` as
        written, ``rate_bps`` and ``delay_s`` as numbers, ``entry`` (its ``[[link]]`` index) and
        ``index`` (the directed link's); nodes carry ``host`` (true for flow endpoints) and the
        graph ``flows`` (the ``[[flow]]`` entries). ``ccsim.from_networkx`` reads it back."""
        from ccsim.netx import links_to_digraph

        flows = list(self.doc.get("flow", []) or [])
        hosts = {str(f[k]) for f in flows for k in ("from", "to") if isinstance(f, Mapping) and k in f}
        g = links_to_digraph(list(self.doc.get("link", []) or []), hosts, name=self.source)
        g.graph["flows"] = _copy.deepcopy(flows)
        return g

    def _repr_html_(self) -> str:
        from ccsim._html import scenario_html

        return scenario_html(self)

    def validate(self) -> None:
        """Check the whole document with the core; raise ``ScenarioError`` listing every problem."""
        _core.validate(self.to_json(), self.source)

    def explain_flows(self) -> list[dict[str, Any]]:
        """Every resolved parameter of every flow, without pandas: a list of
        ``{"name": flow, "params": [[key, value, origin], ...]}`` in flow order. Raises
        ``ScenarioError`` for an invalid scenario."""
        flows: list[dict[str, Any]] = json.loads(_core.explain(self.to_json(), self.source))
        return flows

    def explain(self) -> Any:
        """Every resolved parameter of every flow: a DataFrame with columns ``flow``, ``key``
        (``rto.min``, ``cc.beta``, …), ``value`` (as a document writes it) and ``origin``
        (``explicit``, ``default`` or ``profile <name>``). Raises ``ScenarioError`` for an
        invalid scenario."""
        import pandas as pd

        rows = [
            {"flow": f["name"], "key": k, "value": v, "origin": o}
            for f in self.explain_flows()
            for k, v, o in f["params"]
        ]
        return pd.DataFrame(rows, columns=["flow", "key", "value", "origin"])

    def copy(self) -> Scenario:
        """An independent deep copy. Raises ``ScenarioError`` for nesting deeper than
        ``MAX_DEPTH`` levels (checked first, so a hostile document cannot exhaust the stack)."""
        json_ready(self.doc, self.source)
        return Scenario(_copy.deepcopy(self.doc), self.source)

    def get(self, path: str) -> Any:
        """The value at a path such as ``"simulation.duration"``, ``"link.0.rate"`` or
        ``"link.bottleneck.rate"`` (array entries by index or by ``name``)."""
        parts = paths.resolve(self.doc, path, self.source)
        node: Any = self.doc
        for i, key in enumerate(parts):
            if isinstance(node, list):
                node = node[int(key)]
            elif isinstance(node, dict) and key in node:
                node = node[key]
            else:
                raise scenario_error(self.source, [(path, f"no key {'.'.join(parts[: i + 1])!r}")])
        return node

    def set(self, path: str, value: Any, *, check: bool = True) -> Scenario:
        """Set the value at a path and return ``self`` (so calls chain).

        Keys name table entries (``"simulation.duration"``); array entries are named by index
        (``"link.0.rate"``, also ``"link[0].rate"``; negative counts from the end) or by their
        ``name`` (``"link.bottleneck.rate"``), as in sweep overrides. Missing tables along the
        way are created (a kind-tagged one such as ``queue`` with its default kind); a kind
        given as a string (``cc = "cubic"``) becomes a table when a key below it is set; a
        missing array element is an error.

        With ``check`` (the default) the change is checked by the core's parser before it is
        made: a key the format does not have, or a bad value, raises ``ScenarioError`` with
        the message a scenario file would get, and the document is left as it was. Problems
        the document had before are not reported here (``validate`` reports everything).
        """
        parts = paths.resolve(self.doc, path, self.source)
        json_ready(self.doc, self.source)  # nesting checked before the copy (docs/reliability.md)
        new = _copy.deepcopy(self.doc)
        paths.set_at(new, parts, value, path, self.source)
        if check:
            bad = paths.new_problems(paths.problems(self.doc, self.source), paths.problems(new, self.source))
            if bad:
                raise scenario_error(self.source, bad)
        self.doc.clear()
        self.doc.update(new)
        return self


def with_absolute_traces(doc: dict[str, Any], source: str) -> dict[str, Any]:
    """``doc`` with each link's relative ``delivery_trace`` made absolute, in place. The core
    reads a relative path from the scenario file's directory (``source``, when it names a
    file; else the current directory); a copy run or saved elsewhere (a saved
    ``scenario.json``, a sweep point) no longer shares that directory."""
    src = Path(source)
    base = src.parent if src.is_file() else Path.cwd()
    links = doc.get("link") if isinstance(doc, dict) else None
    for entry in links if isinstance(links, list) else []:
        trace = entry.get("delivery_trace") if isinstance(entry, dict) else None
        if isinstance(trace, str) and trace and not Path(trace).is_absolute():
            entry["delivery_trace"] = str((base / trace).resolve())
    return doc


def load(path: str | os.PathLike[str]) -> Scenario:
    """Read a scenario file (TOML; ``.json`` files are read as JSON).

    Only the file's syntax is checked here; call ``validate()`` or ``run()`` for the rest.
    Raises ``ScenarioError`` when the file cannot be read or parsed; a syntax error names the
    line and column.
    """
    p = Path(path)
    source = str(p)
    try:
        text = read_text(p, "scenario file")
    except FileNotFoundError:
        raise scenario_error(source, [("", "file not found")]) from None
    except IsADirectoryError:
        raise scenario_error(source, [("", "is a directory, not a scenario file")]) from None
    except UnicodeDecodeError as e:
        raise scenario_error(source, [("", f"not UTF-8 text ({e.reason} at byte {e.start})")]) from None
    except ValueError as e:
        raise scenario_error(source, [("", str(e))]) from None
    except OSError as e:
        raise scenario_error(source, [("", f"cannot read: {e.strerror or e}")]) from None
    too_deep = f"nested more than {MAX_DEPTH} tables or lists deep; a scenario needs a few levels"
    if p.suffix.lower() == ".json":
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            raise scenario_error(source, [("", f"JSON syntax error at line {e.lineno}, column {e.colno}: {e.msg}")]) from None
        except RecursionError:
            raise scenario_error(source, [("", too_deep)]) from None
        if not isinstance(doc, dict):
            raise scenario_error(source, [("", "a scenario document is a JSON object")])
        return Scenario(doc, source)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = _TOML_POS.search(msg)
        if m:
            where = f"line {m.group(1)}, column {m.group(2)}"
            msg = f"TOML syntax error at {where}: {msg[: m.start()]}"
        else:
            msg = f"TOML syntax error: {msg}"
        raise scenario_error(source, [("", msg)]) from None
    except RecursionError:
        raise scenario_error(source, [("", too_deep)]) from None
    return Scenario(doc, source)


#: Bytes a dumbbell packet adds to its payload on the wire (the TCP sender's default header).
DUMBBELL_HEADER = 40


def dumbbell(
    n_flows: int = 16,
    *,
    bottleneck_rate: str | float = "100Mbps",
    bottleneck_delay: str | float = "10ms",
    access_rate: str | float = "1Gbps",
    access_delay: str | float = "5ms",
    rtt: str | float | Sequence[str | float] | None = None,
    queue_packets: int | None = None,
    queue_bdp: float | None = None,
    duration: str | float = "100s",
    seed: int = 1,
    cc: str | Mapping[str, Any] | Sequence[str | Mapping[str, Any]] = "reno",
    recovery: str = "sack",
    mss: int = 1460,
    start_spread: str | float = "0s",
    trace_interval: str | float = "100ms",
    link_model: str = "fast",
) -> Scenario:
    """A dumbbell: senders ``s<i>`` — ``r1`` — bottleneck — ``r2`` — receivers ``d<i>``, one
    greedy TCP flow ``f<i>`` per pair (the core's builder, ``ccsim_core::scenario::builders``).

    Per flow, ``cc`` and ``rtt`` may be lists of ``n_flows`` entries (a controller name or
    table; a two-way propagation delay). A flow's ``rtt`` is made by its sender's access link:
    its one-way delay is ``rtt/2 − bottleneck_delay − access_delay`` (the receiver's access
    link keeps ``access_delay``), so ``rtt`` must be at least ``2·(bottleneck_delay +
    access_delay)``. Without ``rtt`` every flow's RTT is ``2·(2·access_delay +
    bottleneck_delay)``.

    The DropTail limit of every link is ``queue_packets`` (default 333), or ``queue_bdp``
    bandwidth-delay products of the bottleneck at the flows' mean RTT, in packets of ``mss``
    + 40 bytes (rounded up); give one of the two. Rates and durations are strings with units
    or numbers (bit/s, seconds). Bad values raise ``ScenarioError`` naming the parameter
    (``rtt[2]: …``); an unknown parameter is a ``TypeError``."""
    params: dict[str, Any] = {
        "n_flows": n_flows, "bottleneck_rate": bottleneck_rate, "bottleneck_delay": bottleneck_delay,
        "access_rate": access_rate, "access_delay": access_delay, "rtt": rtt, "queue_packets": queue_packets,
        "queue_bdp": queue_bdp, "duration": duration, "seed": seed, "cc": cc, "recovery": recovery, "mss": mss,
        "start_spread": start_spread, "trace_interval": trace_interval, "link_model": link_model,
    }
    defaults = dumbbell.__kwdefaults__ or {}
    given = {k: v for k, v in params.items() if k == "n_flows" and v != 16 or k != "n_flows" and v is not defaults.get(k)}
    source = "dumbbell(" + ", ".join(f"{k}={v!r}" for k, v in given.items()) + ")"
    return _build_dumbbell(params, source)


def _build_dumbbell(p: dict[str, Any], source: str) -> Scenario:
    from ccsim._units import delay_param, duration_s, duration_text, rate_bps, rate_param

    problems: list[tuple[str, str]] = []
    n = p["n_flows"]
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise scenario_error(source, [("n_flows", f"expected an integer >= 1, found {n!r}")])

    def text(key: str, conv: Any) -> str:
        try:
            return conv(p[key], key)
        except (TypeError, ValueError) as e:
            problems.append((key, str(e).removeprefix(f"{key}: ")))
            return ""

    scalars = {k: text(k, rate_param) for k in ("bottleneck_rate", "access_rate")}
    scalars |= {k: text(k, delay_param) for k in ("bottleneck_delay", "access_delay", "duration", "start_spread",
                                                 "trace_interval")}

    def per_flow(key: str, value: Any) -> list[Any] | None:
        """A list of n_flows values, or None for one value for all."""
        if isinstance(value, (str, Mapping)) or not isinstance(value, Sequence):
            return None
        if len(value) != n:
            problems.append((key, f"{len(value)} values for {n} flows"))
            return None
        return list(value)

    ccs = per_flow("cc", p["cc"])
    rtts_in = per_flow("rtt", p["rtt"]) if p["rtt"] is not None else None
    if p["queue_packets"] is not None and p["queue_bdp"] is not None:
        problems.append(("queue_bdp", "give queue_packets or queue_bdp, not both"))
    qp = p["queue_packets"]
    if qp is not None and (isinstance(qp, bool) or not isinstance(qp, int) or qp < 1):
        problems.append(("queue_packets", f"expected an integer >= 1, found {qp!r}"))
    qb = p["queue_bdp"]
    if qb is not None and (isinstance(qb, bool) or not isinstance(qb, (int, float)) or not qb > 0 or math.isinf(qb)):
        problems.append(("queue_bdp", f"expected a number > 0, found {qb!r}"))
    mss = p["mss"]
    if isinstance(mss, bool) or not isinstance(mss, int) or mss < 1:
        problems.append(("mss", f"expected an integer >= 1, found {mss!r}"))
    if problems:
        raise scenario_error(source, problems)

    # Per-flow RTTs: the sender's access delay makes up the difference.
    fixed = 2 * (duration_s(scalars["bottleneck_delay"]) + duration_s(scalars["access_delay"]))
    sender_delays: list[float] | None = None
    rtts = [fixed + 2 * duration_s(scalars["access_delay"])] * n
    if p["rtt"] is not None:
        wanted = rtts_in if rtts_in is not None else [p["rtt"]] * n
        sender_delays, rtts = [], []
        for i, r in enumerate(wanted):
            where = f"rtt[{i}]" if rtts_in is not None else "rtt"
            try:
                secs = duration_s(delay_param(r, where))
            except (TypeError, ValueError) as e:
                problems.append((where, str(e).removeprefix(f"{where}: ")))
                continue
            if secs < fixed - 1e-15:
                problems.append((where, f"{r!r} is shorter than the path's fixed part 2·(bottleneck_delay + "
                                        f"access_delay) = {fixed * 1e3:g} ms"))
                continue
            sender_delays.append((secs - fixed) / 2)
            rtts.append(secs)
        if problems:
            raise scenario_error(source, problems)
    if qb is not None:
        bdp_bytes = rate_bps(scalars["bottleneck_rate"]) * (sum(rtts) / n) / 8
        qp = max(1, math.ceil(qb * bdp_bytes / (mss + DUMBBELL_HEADER) - 1e-9))
    core = {"n_flows": n, **scalars, "queue_packets": qp if qp is not None else 333, "seed": p["seed"],
            "cc": ccs[0] if ccs else p["cc"], "recovery": p["recovery"], "mss": mss, "link_model": p["link_model"]}
    if not isinstance(core["cc"], str):
        core["cc"] = "reno"  # a table is written into each flow below
    try:
        doc = json.loads(_core.dumbbell_doc(json.dumps(core, default=_json_default)))
    except ValueError as e:  # the core's message names the field
        raise scenario_error(source, [("", str(e).removeprefix("dumbbell parameters: "))]) from None
    if sender_delays is not None:
        for i, d in enumerate(sender_delays):
            doc["link"][1 + i]["delay"] = duration_text(d)  # entry 1 + i is s<i>–r1
    for i, f in enumerate(doc["flow"]):
        c = ccs[i] if ccs else p["cc"]
        f["cc"] = _copy.deepcopy(dict(c)) if isinstance(c, Mapping) else c
    return Scenario(doc, source)
