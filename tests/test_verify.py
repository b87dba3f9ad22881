"""Independent verification: a deliberately faulty service gets each fault quarantined with the right reason, inputs are
distinct, derandomised and at least `n` per tool, reports are cached by the service's source and settings, quarantine
reaches `describe_tool`, `library_stats` and the `verify-services` command, and the shipped library verifies clean on a
small sample."""
import argparse, json
import pytest
from compoworld_nb.core import ToolError, canonical_json
from compoworld_nb.service import Record, Service, State
from compoworld_nb.specs import library_stats
from compoworld_nb.verify import (QUARANTINE_REASONS, boundary_inputs, mark_quarantined, quarantined_tools, register_cli, run_tool,
                                  service_fingerprint, tool_inputs, verify_library, verify_service, fixture_values)


class Item(Record):
    id: str
    qty: int = 0
    tags: list[str] = []

class StockState(State):
    items: dict[str, Item] = {}


def make_faulty() -> Service:
    "One clean tool and one tool per fault kind."
    svc = Service("faulty", "utilities", StockState, "A service with planted faults.")
    calls = {"n": 0}
    svc.calls = calls

    @svc.fixture
    def _fx(seed: int) -> StockState:
        return StockState(seed=seed, items={"i1": Item(id="i1", qty=3), "i2": Item(id="i2", qty=0)})

    @svc.tool(read_only=True)
    def get_item(state: StockState, id: str):  # the item's id
        "Read an item (correct)."
        calls["n"] += 1
        if id not in state.items: raise ToolError(404, f"no item {id!r}", "id")
        return state.items[id]

    @svc.tool
    def set_qty(state: StockState, id: str, qty: int):  # the item's id; the new quantity (>= 0)
        "Set a quantity (correct: a refused change leaves the state alone)."
        if id not in state.items: raise ToolError(404, f"no item {id!r}", "id")
        state.items[id].qty = qty                        # edits the call's private copy ...
        if qty < 0: raise ToolError(422, f"qty={qty} must be >= 0", "qty")   # ... which is dropped on an error
        return state.items[id]

    @svc.tool(read_only=True)
    def lookup(state: StockState, id: str):  # the item's id
        "Raises on an unknown id instead of answering 404."
        return state.items[id].model_dump() if id in ("i1", "i2") else {"qty": state.items[id].qty}

    @svc.tool(read_only=True)
    def tag_set(state: StockState, id: str):  # the item's id
        "Answers a Python set (not JSON)."
        return {"tags": {"a", "b"}}

    @svc.tool(read_only=True)
    def reserve(state: StockState, id: str):  # the item's id
        "Moves the clock of the state it was given, then always refuses (its records are sealed: a field is what it can change)."
        state.clock = state.clock + 60
        raise ToolError(409, f"item {id!r} cannot be reserved", "id")

    @svc.tool
    def sneaky_reserve(state: StockState, id: str):  # the item's id
        "Reaches past the copy-on-write view to the shared record, then refuses: the record is sealed, so the write raises."
        state.items._peek("i2").tags.append("reserved")
        raise ToolError(409, f"item {id!r} cannot be reserved", "id")

    @svc.tool(read_only=True)
    def count(state: StockState):
        "Counts the items, and bumps a counter of the state it was given while at it (then succeeds)."
        state.counters["count"] = state.counters.get("count", 0) + 1
        return len(state.items)

    @svc.tool(read_only=True)
    def spin(state: StockState, id: str):  # the item's id
        "Never returns."
        while True: pass
    return svc


EXPECTED = {"get_item": None, "set_qty": None, "lookup": "exception", "tag_set": "non_json_observation",
            "reserve": "state_changed_after_error", "sneaky_reserve": "exception",
            "count": "input_state_mutated", "spin": "timeout"}


def test_each_planted_fault_is_quarantined_with_its_reason(tmp_path):
    svc = make_faulty()
    reps = {r.tool: r for r in verify_service(svc, inputs=25, seed=0, cache_dir=tmp_path, call_timeout=0.3)}
    assert {t: r.quarantined for t, r in reps.items()} == EXPECTED
    assert set(EXPECTED.values()) - {None} == set(QUARANTINE_REASONS)
    assert "KeyError" in reps["lookup"].detail and "set is not JSON serializable" in reps["tag_set"].detail
    assert "error 409" in reps["reserve"].detail and "input:" in reps["reserve"].detail
    # the clean tools ran every input, reached the success path, and left the state alone
    for t in ("get_item", "set_qty"):
        assert reps[t].inputs == 25 and reps[t].ok >= 1 and sum(reps[t].errors.values()) + reps[t].ok == 25
    assert reps["set_qty"].errors.get("400", 0) >= 1
    # marks: set on the service's tools and read back from the cache
    assert svc.tools["lookup"].quarantined.startswith("exception: KeyError") and svc.tools["get_item"].quarantined is None
    q = quarantined_tools([svc], tmp_path)
    assert set(q) == {f"faulty.{t}" for t, why in EXPECTED.items() if why}


def test_inputs_are_distinct_derandomised_and_cover_boundaries_and_wrong_types():
    svc = make_faulty()
    vals = fixture_values(svc)
    t = svc.tools["set_qty"]
    xs, problem = tool_inputs(t, 200, 0, vals)
    assert problem is None and len(xs) == 200 and len({json.dumps(x, sort_keys=True) for x in xs}) == 200   # distinct JSON texts (1 and 1.0 differ)
    small = tool_inputs(t, 30, 0, vals)[0]
    assert tool_inputs(t, 30, 0, vals)[0] == small and tool_inputs(t, 30, 1, vals)[0] != small     # derandomised by the seed
    b = boundary_inputs(t.parameters, None, vals)
    assert b[0] == {"id": "i1", "qty": 3}                                   # fixture values first (success path)
    for case in ({"id": "i1", "qty": -1}, {"id": "i1", "qty": 2**63}, {"id": "i1", "qty": "3"}, {"id": "i1", "qty": "x"}, {"id": "i1", "qty": None},
                 {"id": "", "qty": 3}, {"id": 0, "qty": 3}, {"qty": 3}, {"id": "i1"}, {"id": "i1", "qty": 3, "unexpected_argument": 1},
                 None, [], json.dumps({"id": "i1", "qty": 3})):
        assert case in b, case
    # a tool without arguments still gets n distinct inputs
    xs0, _ = tool_inputs(svc.tools["count"], 50, 0, vals)
    assert len(xs0) == 50 and len({json.dumps(x, sort_keys=True) for x in xs0}) == 50


def test_reports_are_cached_by_source_and_settings(tmp_path):
    svc = make_faulty()
    verify_service(svc, inputs=10, seed=0, cache_dir=tmp_path, call_timeout=0.3)
    n = svc.calls["n"]
    assert n >= 1                                                # inputs that pass the argument check reach the tool
    verify_service(svc, inputs=10, seed=0, cache_dir=tmp_path, call_timeout=0.3)          # same source and settings: cached
    assert svc.calls["n"] == n and len(list(tmp_path.glob("faulty-*.json"))) == 1
    verify_service(svc, inputs=11, seed=0, cache_dir=tmp_path, call_timeout=0.3)          # other settings: a new run
    assert svc.calls["n"] > n and len(list(tmp_path.glob("faulty-*.json"))) == 2
    fp = service_fingerprint(svc)
    @svc.tool(read_only=True)
    def ping(state: StockState):
        "A new tool changes the source."
        return "pong"
    assert service_fingerprint(svc) != fp and quarantined_tools([svc], tmp_path) == {}    # old reports no longer count


def test_quarantine_reaches_stats_describe_tool_and_authoring_marks(tmp_path):
    from compoworld_nb.harness import TaskEnvironment
    from compoworld_nb.task import Task, materialize_s0
    from compoworld_nb.compose import joint_hash
    svc = make_faulty()
    lib = {"faulty": svc}
    verify_service(svc, inputs=20, seed=0, cache_dir=tmp_path, call_timeout=0.3, mark=False)
    assert all(t.quarantined is None for t in svc.tools.values())
    q = mark_quarantined(lib, tmp_path)
    st = library_stats(lib, quarantined=q)
    assert (st["tools"], st["quarantined_tools"], st["deterministic_tools"]) == (8, 6, 2)
    assert library_stats(lib)["quarantined_tools"] == 6                                 # from the marks
    draft = Task(id="t", u="u", services=["faulty"], walk=["faulty"], graph={}, s0={"seed": 0, "overrides": {}}, s0_hash="",
                 reference=[], g_hash="", rubric=[])
    task = draft.model_copy(update={"s0_hash": joint_hash(materialize_s0(draft, lib, check=False))})
    env = TaskEnvironment(task, lib)
    assert env._describe_tool("faulty.lookup")["data"]["quarantined"].startswith("exception: KeyError")
    assert "quarantined" not in env._describe_tool("faulty.get_item")["data"]


def _cli(argv, capsys):
    ap = argparse.ArgumentParser(prog="compoworld")
    register_cli(ap.add_subparsers(dest="cmd"))
    a = ap.parse_args(argv)
    code = a.handler(a)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_verify_services_command(tmp_path, capsys):
    code, out, _ = _cli(["verify-services", "--services", "weather,time", "--inputs", "6", "--json", "--cache-dir", str(tmp_path)], capsys)
    res = json.loads(out.strip().splitlines()[-1])
    assert code == 0 and {"tools", "verified", "quarantined", "min_inputs_per_tool", "per_tool"} <= set(res)
    assert (res["quarantined"], res["min_inputs_per_tool"], res["verified"]) == (0, 6, res["tools"]) and res["tools"] == len(res["per_tool"]) == 4
    assert {r["name"].split(".")[0] for r in res["per_tool"]} == {"weather", "time"}
    code, out, _ = _cli(["verify-services", "--services", "weather", "--inputs", "6", "--cache-dir", str(tmp_path)], capsys)
    assert code == 0 and "verified" in out and json.loads(out.strip().splitlines()[-1])["tools"] == 2
    code, _, err = _cli(["verify-services", "--services", "nosuch", "--cache-dir", str(tmp_path)], capsys)
    assert code == 2 and err.strip().startswith("compoworld: error: --services 'nosuch'")
    code, _, err = _cli(["verify-services", "--inputs", "0", "--cache-dir", str(tmp_path)], capsys)
    assert code == 2 and err.strip() == "compoworld: error: --inputs 0: must be >= 1"


def test_the_shipped_library_verifies_clean_on_a_small_sample(tmp_path):
    from sample_services import load_library
    lib = load_library()
    res = verify_library(lib, inputs=3, seed=0, cache_dir=tmp_path, mark=False)
    bad = {r["name"]: r["detail"] for r in res["per_tool"] if r["quarantined"]}
    assert bad == {} and res["quarantined"] == 0
    assert res["tools"] == sum(len(s.tools) for s in lib.values()) and res["min_inputs_per_tool"] == 3
    assert all(r["strategy_error"] is None for r in res["per_tool"])


def test_simulated_tools_are_checked_without_calling_their_world_model(tmp_path):
    svc = make_faulty()
    @svc.tool(simulated=True)
    def forecast(state: StockState, id: str):  # the item's id
        "Predict demand (simulated)."
    seen = []
    svc.world_model = lambda *a: seen.append(a) or (a[1], {"ok": True, "data": None})
    rep = {r.tool: r for r in verify_service(svc, inputs=15, seed=0, cache_dir=tmp_path, call_timeout=0.3)}["forecast"]
    assert seen == [] and rep.quarantined is None and rep.simulated and rep.ok == 0
    assert rep.errors.get("501", 0) >= 1 and sum(rep.errors.values()) == 15 and svc.world_model is not None


@pytest.mark.parametrize("where", ["file/sub", "/proc/cw-no-cache"])
def test_an_unwritable_cache_dir_exits_2_before_any_verification(tmp_path, capsys, where):
    "Quarantine lives in the cache: a --cache-dir that cannot hold a report is a bad value, not a silent no-op."
    (tmp_path / "file").write_text("x")
    cache = where if where.startswith("/") else str(tmp_path / where)
    code, out, err = _cli(["verify-services", "--services", "time", "--inputs", "2", "--cache-dir", cache], capsys)
    assert code == 2 and out == "" and err.strip().splitlines() == [err.strip()]
    assert err.startswith(f"compoworld: error: --cache-dir {cache!r} is not writable: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]
