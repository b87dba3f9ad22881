"""Shared helpers for the service tests: call checks, a criterion evaluator and a fake author context for steps.

Imported by the test modules (conftest.py puts this folder on sys.path in any pytest import mode)."""
from __future__ import annotations
import random, re
from datetime import datetime, timezone
from pathlib import Path
from compoworld_nb.core import state_hash
from sample_services.world import make_world

SPECS = Path(__file__).resolve().parents[2].parent / "shared/specs/mcp"


def check_ok(svc, state, tool, args=None):
    "Call `tool`; assert success, that the input state is untouched, and that read-only tools write nothing. Returns (new, data)."
    before = state_hash(state)
    new, o = svc.call(state, tool, args)
    assert o["ok"], (tool, args, o)
    assert state_hash(state) == before, f"{tool} changed its input state"
    if svc.tools[tool].read_only: assert new is state and state_hash(new) == before, f"read-only {tool} wrote"
    return new, o["data"]


def check_err(svc, state, tool, args, code, argument):
    "Call `tool`; assert the error code and argument, and that the very same state comes back unchanged."
    before = state_hash(state)
    new, o = svc.call(state, tool, args)
    assert not o["ok"], (tool, args, o)
    e = o["error"]
    assert (e["code"], e["argument"]) == (code, argument), (tool, args, e)
    assert e["message"]
    assert new is state and state_hash(state) == before
    return e


# --- criteria --------------------------------------------------------------------------------------
def _get(rec, path):
    cur = rec
    for part in path.split("."):
        if isinstance(cur, dict) and part in cur: cur = cur[part]
        else: return None, False
    return cur, True

def evaluate(state, crit) -> bool:
    "A minimal evaluator of the criteria that steps emit (the rubric layer owns the real one)."
    recs = [r.model_dump(mode="json") for r in getattr(state, crit["collection"]).values()]
    recs = [r for r in recs if all(_get(r, k)[0] == v for k, v in crit["where"].items())]
    op, val = crit["op"], crit["value"]
    if op == "count_eq": return len(recs) == val
    for r in recs:
        x, found = _get(r, crit["field"])
        if op == "exists" and found: return True
        if op == "absent" and not found: return True
        if not found: continue
        if op == "eq" and x == val: return True
        if op == "ne" and x != val: return True
        if op == "contains" and isinstance(x, (str, list)) and val in x: return True
        if op == "in" and x in val: return True
        if op == "approx" and abs(float(x) - float(val)) <= 1e-6: return True
        if op == "gte" and x >= val: return True
        if op == "lte" and x <= val: return True
    return False


# --- the fake author context ----------------------------------------------------------------------
_WORDS = ["falcon", "cobalt", "juniper", "harbor", "quartz", "maple", "ember", "orbit", "lumen", "saffron"]

class FakeCtx:
    "Implements the author context API over `service.call`: plant into s0 and the current state, reference calls, criteria."
    def __init__(self, service, seed: int = 0, first: bool = True, in_phrase: str = '"x"', rng_seed: int = 0):
        self.service, self.world = service, make_world(seed)
        self.rng = random.Random(rng_seed)
        self.s0 = service.initial_state(seed)
        self.cur = self.s0.model_copy(deep=True)
        self.first, self.in_phrase = first, in_phrase
        self.calls, self._keys, self._labels, self._pid = [], set(), 0, 0
        self.memory = {}      # what a step keeps for a later visit of the task (as the author's StepContext)

    def new_key(self) -> str:
        while True:
            k = f"{self.rng.choice(_WORDS)}-{self.rng.randint(100, 999)}"
            if k not in self._keys: self._keys.add(k); return k

    def label(self, prefix: str) -> str:
        self._labels += 1; return f"{prefix} #{self._labels}"

    def state(self, name: str):
        assert name == self.service.name, f"step reads another service's state: {name}"
        return self.cur

    def plant_id(self, prefix: str) -> str:
        self._pid += 1; return f"{prefix}_p{self._pid}"

    def plant(self, name: str, fn):
        assert name == self.service.name
        c0, c1 = dict(self.s0.counters), dict(self.cur.counters)
        r = fn(self.s0); fn(self.cur)
        assert self.s0.counters == c0 and self.cur.counters == c1, "plants must not draw ids from the state's factory"
        self.s0 = type(self.s0).model_validate(self.s0.model_dump())    # planted records must validate
        return r

    def call(self, tool: str, **args):
        new, o = self.service.call(self.cur, tool, args)
        self.calls.append((tool, args, o))
        if not o["ok"]: raise AssertionError(f"reference call {tool}({args}) failed: {o}")
        self.cur = new
        return o["data"]

    def criterion(self, collection, where, field, op, value) -> dict:
        assert op in ("eq", "ne", "approx", "contains", "in", "exists", "absent", "count_eq", "gte", "lte")
        assert collection in type(self.cur).collection_names(), collection
        return {"kind": "state", "service": self.service.name, "collection": collection, "where": dict(where),
                "field": field, "op": op, "value": value}        # the shape compoworld_nb.author.StepContext emits


# --- dates ---------------------------------------------------------------------------------------
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$")
_TS = re.compile(r"^\d{10}\.\d{6}$")

def all_dates(obj, key=""):
    "Every datetime in a dumped state: ISO strings, Slack ts strings and unix-second `created` fields."
    if isinstance(obj, dict):
        for k, v in obj.items(): yield from all_dates(v, k)
    elif isinstance(obj, list):
        for v in obj: yield from all_dates(v, key)
    elif isinstance(obj, str) and _ISO.match(obj):
        d = datetime.fromisoformat(obj.replace("Z", "+00:00"))
        yield d if d.tzinfo else d.replace(tzinfo=timezone.utc)
    elif isinstance(obj, str) and _TS.match(obj):
        yield datetime.fromtimestamp(float(obj), timezone.utc)
    elif key == "created" and isinstance(obj, int):
        yield datetime.fromtimestamp(obj, timezone.utc)
