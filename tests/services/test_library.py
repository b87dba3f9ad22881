"Library-wide checks: the world, spec conformance, fixtures, framework 400s and every step template."
import importlib, json, re, zlib
from datetime import timedelta
import pytest
from compoworld_nb.core import EPOCH, FACT_KINDS, state_hash
from compoworld_nb.steps import Visit
from sample_services import LIBRARY_MODULES, load_library
from sample_services.world import make_world, WINDOW_START, WINDOW_END
from svc_testkit import SPECS, FakeCtx, all_dates, check_err, evaluate

LIB = load_library()
SERVICES = list(LIB.values())
TOOLS = [(s, t) for s in SERVICES for t in s.tools]
SIZES = {  # collection -> (min, max) records in the seed-0..2 fixtures
    "gmail": {"messages": (190, 210), "labels": (13, 13)},
    "slack": {"messages": (140, 160), "channels": (9, 9), "users": (12, 12)},
    "calendar": {"events": (115, 125), "calendars": (4, 4)},
    "weather": {"forecasts": (16, 16), "alerts": (6, 10)},
    "maps": {"places": (80, 80)},
    "linear": {"issues": (75, 85), "comments": (50, 70), "teams": (4, 4), "users": (12, 12)},
    "retail": {"products": (30, 30), "users": (150, 150), "orders": (400, 400)},
    "sqlite": {"rows": (1200, 1400), "objects": (8, 8)},
    "memory": {"entities": (200, 200), "relations": (400, 400)},
    "filesystem": {"files": (190, 230), "directories": (20, 40)},
    "time": {},
    "trello": {"cards": (150, 260), "boards": (5, 5), "lists": (21, 21), "comments": (150, 150), "actions": (400, 520)},
    "github": {"repos": (8, 8), "issues": (110, 210), "commits": (120, 240), "files": (150, 420), "comments": (250, 250)},
    "notion": {"pages": (170, 190), "blocks": (180, 320), "data_sources": (3, 3), "comments": (60, 60)},
    "crm": {"companies": (60, 60), "contacts": (250, 250), "deals": (120, 120), "activities": (300, 300)},
    "forum": {"topics": (120, 120), "posts": (400, 800), "users": (40, 40), "categories": (8, 8)},
}
NO_SPEC, NO_STEPS, NO_DATES = {"retail", "crm", "forum"}, {"time"}, {"maps", "time", "retail", "memory"}


# --- library and world ----------------------------------------------------------------------------
def test_load_library_order_and_names():
    assert list(LIB) == ["gmail", "slack", "calendar", "weather", "maps", "linear", "retail", "sqlite", "memory", "filesystem",
                         "time", "trello", "github", "notion", "crm", "forum"]
    assert len(LIBRARY_MODULES) == len(LIB) and list(load_library()) == list(LIB)
    for s in SERVICES:
        assert s.domain and s.description and s.tools
        assert s.spec or s.name in NO_SPEC
        assert s.steps or s.name in NO_STEPS

def test_world_deterministic_and_seeded():
    a, b, c = make_world(11), make_world.__wrapped__(11), make_world(12)
    assert a == b and a != c
    assert len(a.people) == 12 and len(a.places) == 16 and len(a.teams) == 4 and len(a.channels) == 8
    assert len({p.email for p in a.people}) == 12 and len({p.slack_id for p in a.people}) == 12
    assert len({p.label for p in a.places}) == 16 and all(re.fullmatch(r"[A-Z]{2}", p.state) for p in a.places)
    assert all(re.fullmatch(r"[A-Z]{3}", t.id) for t in a.teams) and a.team("ENG")
    assert WINDOW_START >= EPOCH - timedelta(days=730) and WINDOW_END <= EPOCH + timedelta(days=365)

def test_services_agree_on_world():
    w = make_world(3)
    st = {n: s.initial_state(3) for n, s in LIB.items()}
    assert st["gmail"].address == w.me.email and st["slack"].me == w.me.slack_id
    assert {p.formatted_address.removesuffix(", USA") for p in st["maps"].places.values() if "locality" in p.types} == {p.label for p in w.places}
    assert {f.place for f in st["weather"].forecasts.values()} == {p.label for p in w.places}
    assert set(st["linear"].teams) == {t.id for t in w.teams}
    assert {u.email for u in st["linear"].users.values()} == {p.email for p in w.people}
    assert any(c.primary and c.id == w.me.email for c in st["calendar"].calendars.values())


# --- conformance with the MCP specs ---------------------------------------------------------------
def _types(p: dict) -> set:
    if "anyOf" in p: return set().union(*(_types(a) for a in p["anyOf"]))
    t = p.get("type")
    return set(t) if isinstance(t, list) else ({t} if t else {"any"})

def _compatible(ours: dict, spec: dict, where: str):
    ot, stp = _types(ours) - {"null"}, _types(spec)
    for t in ot:
        assert "any" in stp or t in stp or (t == "integer" and "number" in stp), f"{where}: our type {t} vs spec {stp}"
    if "enum" in ours and "enum" in spec: assert set(ours["enum"]) <= set(spec["enum"]), where
    if ot == {"array"} and "items" in ours:
        si = next((a.get("items", {}) for a in spec.get("anyOf", [spec]) if a.get("type") == "array"), {})
        if si: _compatible(ours["items"], si, where + "[]")

@pytest.mark.parametrize("svc", SERVICES, ids=lambda s: s.name)
def test_conforms_to_spec(svc):
    if svc.spec is None: pytest.skip(f"{svc.name} has no public spec")
    spec = json.loads((SPECS / f"{svc.spec}.json").read_text())
    tools = {t["name"]: t["inputSchema"] for t in spec["tools"]}
    for name, tool in svc.tools.items():
        assert name in tools, f"{svc.name}: tool {name} not in {svc.spec}.json"
        sp, ours = tools[name].get("properties", {}), tool.parameters
        raw = tool.args_model.model_json_schema()["properties"]        # also covers a parameter the schema cleaner dropped
        for p, schema in {**raw, **ours["properties"]}.items():
            assert p in sp, f"{name}: parameter {p} not in the spec"
            _compatible(schema, sp[p], f"{name}.{p}")
        assert set(tools[name].get("required", [])) == set(ours["required"]), f"{name}: required differ"
        assert tool.description and all(schema.get("description") for schema in raw.values()), name

@pytest.mark.parametrize("svc,tool", TOOLS, ids=[f"{s.name}.{t}" for s, t in TOOLS])
def test_schema_lists_every_parameter(svc, tool):
    t = svc.tools[tool]
    assert set(t.parameters["properties"]) == set(t.args_model.model_fields)
    assert set(t.required) <= set(t.parameters["properties"])

def test_every_spec_tool_of_fully_covered_services():
    for name, slug in [("slack", "slack"), ("maps", "google-maps"), ("linear", "linear"), ("weather", "weather-python")]:
        spec = json.loads((SPECS / f"{slug}.json").read_text())
        assert set(LIB[name].tools) == {t["name"] for t in spec["tools"]}


# --- fixtures -------------------------------------------------------------------------------------
@pytest.mark.parametrize("svc", SERVICES, ids=lambda s: s.name)
def test_fixture_deterministic_and_seeded(svc):
    a = svc.initial_state(5)
    mod = importlib.import_module(type(a).__module__)
    if hasattr(mod, "_build"): mod._build.cache_clear()
    make_world.cache_clear()
    b = svc.initial_state(5)
    assert a is not b and state_hash(a) == state_hash(b)
    assert state_hash(svc.initial_state(6)) != state_hash(a)
    b.clock += 1          # a fixture hands out its own copy
    assert state_hash(svc.initial_state(5)) == state_hash(a)

@pytest.mark.parametrize("svc", SERVICES, ids=lambda s: s.name)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fixture_sizes_and_dates(svc, seed):
    s = svc.initial_state(seed)
    assert s.seed == seed and s.clock == 0
    for coll, (lo, hi) in SIZES[svc.name].items():
        n = len(getattr(s, coll))
        assert lo <= n <= hi, f"{svc.name}.{coll}: {n} records"
    for coll in type(s).collection_names():
        for k, r in getattr(s, coll).items(): assert getattr(r, "id", k) == k, f"{coll}: key {k} != id"
    dates = list(all_dates(s.model_dump(mode="json")))
    assert dates or svc.name in NO_DATES, svc.name      # maps and time hold no dates
    assert all(EPOCH - timedelta(days=730) <= d <= EPOCH + timedelta(days=365) for d in dates)


# --- the framework's 400s, for every tool ----------------------------------------------------------
_DUMMY = {"string": "x", "number": 1.5, "integer": 1, "array": [], "object": {}, "boolean": True}

@pytest.mark.parametrize("svc,tool", TOOLS, ids=lambda x: getattr(x, "name", x))
def test_bad_arguments_are_400(svc, tool):
    s = svc.initial_state(0)
    t = svc.tools[tool]
    props = t.args_model.model_json_schema()["properties"]
    valid = {p: props[p]["enum"][0] if "enum" in props[p] else _DUMMY[sorted(_types(props[p]) - {"null"})[-1]] for p in t.required}
    check_err(svc, s, tool, {**valid, "bogus_argument": 1}, 400, "bogus_argument")
    check_err(svc, s, tool, "not json", 400, "arguments")
    if t.required:
        check_err(svc, s, tool, {}, 400, t.required[0])


# --- step templates -------------------------------------------------------------------------------
_VALUES = {"key": lambda c: c.new_key(), "place": lambda c: c.world.places[3].label,
           "coords": lambda c: c.world.places[3].coords, "forecast": lambda c: "Light Rain, 54°F", "ref": lambda c: "ENG-81"}
_FORMS = {"key": r"[a-z]+-\d{3}", "coords": r"-?\d+\.\d{4},-?\d+\.\d{4}", "forecast": r".+, -?\d+°F|.+ \((Minor|Moderate|Severe|Extreme)\)", "ref": r"\S+", "place": r".+, [A-Z]{2}"}
_CASES = [(svc, st, need, want) for svc in SERVICES for st in svc.steps for need in st.needs for want in list(st.reveals) + [None]]

def _forbidden(svc) -> set:
    words = set()
    for s in SERVICES: words |= set(s.tools)
    for t in svc.tools.values(): words |= {p for p in t.parameters["properties"] if re.search(r"[a-z][A-Z]|_", p)}
    return words

@pytest.mark.parametrize("svc,step,need,want", _CASES,
                         ids=[f"{s.name}.{st.name}:{n}->{w}" for s, st, n, w in _CASES])
def test_step(svc, step, need, want):
    assert set(step.needs) <= set(FACT_KINDS) and set(step.reveals) <= set(FACT_KINDS)
    ctx = FakeCtx(svc, seed=2, rng_seed=zlib.crc32(f"{step.name}{need}{want}".encode()))
    after = getattr(step.fn, "after", None)         # a step that re-reads what an earlier visit wrote: run that visit first
    if after is not None:
        first = next(s for s in svc.steps if s.name == after)
        first.fn(ctx, ctx.new_key(), first.reveals[0] if first.reveals else None)
        ctx.s0 = ctx.cur.model_copy(deep=True)      # the earlier visit's result is where this one starts
    value = _VALUES[need](ctx)
    ctx.in_phrase = f'"{value}"'
    h0 = state_hash(ctx.s0)
    v = step.fn(ctx, value, want)
    assert isinstance(v, Visit) and v.text and ctx.in_phrase in v.text
    assert not any(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", v.text) for w in _forbidden(svc)), v.text
    assert ctx.calls, "a step makes reference calls"
    if want is not None:
        assert v.reveals is not None and v.reveals_phrase
        assert re.fullmatch(_FORMS[want], str(v.reveals)), (want, v.reveals)
    if step.writes:
        assert v.criteria and state_hash(ctx.cur) != state_hash(ctx.s0)
        for c in v.criteria:
            assert set(c) >= {"kind", "service", "collection", "where", "field", "op", "value"} and json.dumps(c)
            assert evaluate(ctx.cur, c), f"criterion fails on the reference result: {c}"
            assert not evaluate(ctx.s0, c), f"criterion already holds in s0: {c}"
    else:
        assert not v.criteria and state_hash(ctx.cur) == state_hash(ctx.s0), "a read step's plants reach s0 and the current state alike"
        if want is None: assert v.answer and v.reveals is not None
        if want in ("key", "place") and step.name == "read":
            assert str(v.reveals) in json.dumps(ctx.s0.model_dump(mode="json"), ensure_ascii=False)
            assert str(v.reveals) not in json.dumps(FakeCtx(svc, seed=2).s0.model_dump(mode="json"), ensure_ascii=False) or want == "place"
    if svc.name == "slack" and step.name == "read":
        assert [c[0] for c in ctx.calls][-1] == "slack_get_channel_history"

def test_steps_plant_when_needed():
    "maps geocode plants an unknown place; weather plants a forecast point for uncovered coordinates."
    ctx = FakeCtx(LIB["maps"], seed=1); ctx.in_phrase = '"Springfield Depot"'
    v = LIB["maps"].steps[0].fn(ctx, "Springfield Depot", "coords")
    assert re.fullmatch(_FORMS["coords"], v.reveals) and state_hash(ctx.s0) != state_hash(LIB["maps"].initial_state(1))
    ctx = FakeCtx(LIB["weather"], seed=1); ctx.in_phrase = '"10.0000,10.0000"'
    v = LIB["weather"].steps[0].fn(ctx, "10.0000,10.0000", "forecast")
    assert re.fullmatch(_FORMS["forecast"], v.reveals)
    assert len(ctx.s0.forecasts) == 17

def test_chained_steps_geocode_then_forecast():
    "The coords revealed by maps feed the weather step without planting (the places agree)."
    w = make_world(4)
    c1 = FakeCtx(LIB["maps"], seed=4); c1.in_phrase = f'"{w.places[5].label}"'
    coords = LIB["maps"].steps[0].fn(c1, w.places[5].label, "coords").reveals
    c2 = FakeCtx(LIB["weather"], seed=4, first=False, in_phrase="those coordinates")
    v = LIB["weather"].steps[0].fn(c2, coords, None)
    assert v.answer and len(c2.s0.forecasts) == 16
    assert v.reveals.split(",")[0] in {p.short_forecast for f in c2.s0.forecasts.values() for p in f.periods[:1]}
