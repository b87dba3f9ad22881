"""World-model tools through the real `openai` client, with scripted chat responses served by an `httpx2.MockTransport`
(nothing leaves the process): answers that break the state schema (wrong type, unknown field, non-JSON, ...) are
rejected and re-asked with the reason, a valid one is applied through the service's Pydantic models and seen by the
deterministic tools that run next; exhausting the retries gives an error observation with the state unchanged; the
harness records which steps were simulated and `library_stats` reports both simulated shares."""
import json
import httpx2
import pytest
from compoworld_nb.core import ToolError, ok, state_hash
from compoworld_nb.service import Record, Service, State
from compoworld_nb.specs import library_stats
from compoworld_nb.task import Task, materialize_s0
from compoworld_nb.harness import TaskEnvironment
from compoworld_nb.trajectory import Trajectory, load_trajectories, save_jsonl, simulated_trajectory_share
from compoworld_nb.world_model import WorldModel, apply_update, use_world_model, world_model_retries


class Book(Record):
    id: str
    title: str
    pages: int = 0
    summary: str = ""

class ShelfState(State):
    books: dict[str, Book] = {}


def make_shelf() -> Service:
    "A fresh service per test: one deterministic reader, one simulated writer, one simulated reader."
    svc = Service("shelf", "knowledge & files", ShelfState, "A shelf of books.")

    @svc.fixture
    def _fx(seed: int) -> ShelfState:
        return ShelfState(seed=seed, books={"b1": Book(id="b1", title="Dune", pages=412), "b2": Book(id="b2", title="Emma", pages=300)})

    @svc.tool(read_only=True)
    def get_book(state: ShelfState, id: str):  # the book's id
        "Read one book."
        if id not in state.books: raise ToolError(404, f"no book with id={id!r}", "id")
        return state.books[id]

    @svc.tool(simulated=True)
    def summarize_book(state: ShelfState, id: str):  # the book to summarise
        "Write a one-line summary of a book into its record."

    @svc.tool(simulated=True, read_only=True)
    def recommend(state: ShelfState, mood: str):  # the reader's mood
        "Recommend a book for a mood."
    return svc


class Endpoint:
    "A scripted chat endpoint: request k gets chat content `answers[k]` (a string), or an `httpx2.Response` as is."
    def __init__(self, answers):
        self.answers, self.bodies = list(answers), []
    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.bodies.append(json.loads(request.content))
        a = self.answers[min(len(self.bodies), len(self.answers)) - 1]
        if isinstance(a, httpx2.Response): return a
        return httpx2.Response(200, json={"id": "c1", "object": "chat.completion", "created": 0, "model": "wm", "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": a}}]})


def world_model(answers, **kw):
    ep = Endpoint(answers)
    wm = WorldModel("wm-model", base_url="http://mock.local/v1", api_key="sk-test",
                    http_client=httpx2.Client(transport=httpx2.MockTransport(ep)), **kw)
    return wm, ep


def reply(update, observation) -> str: return json.dumps({"update": update, "observation": observation})

GOOD = reply({"books": {"b1": {"summary": "A desert planet."}}}, {"ok": True, "data": {"summary": "A desert planet."}})


def test_schema_violations_are_rejected_and_retried_then_a_valid_answer_is_applied():
    svc = make_shelf()
    bad = [reply({"books": {"b1": {"pages": "many"}}}, {"ok": True, "data": None}),        # wrong type
           reply({"books": {"b1": {"blurb": "x"}}}, {"ok": True, "data": None}),           # unknown record field
           reply({"shelves": {}}, {"ok": True, "data": None}),                             # unknown state field
           "Sure! The summary is: a desert planet.",                                       # not JSON
           reply({}, {"ok": True, "data": 1, "extra": 2}),                                 # observation off the envelope
           reply({"books": {"b1": {"summary": "x"}}}, {"ok": False, "error": {"code": 404, "message": "no", "argument": "id"}})]
    wm, ep = world_model(bad + [GOOD], retries=len(bad))
    use_world_model([svc], wm)
    s0 = svc.initial_state()
    h0 = state_hash(s0)
    s1, o = svc.call(s0, "summarize_book", {"id": "b1"})
    assert o == ok({"summary": "A desert planet."})
    assert s1.books["b1"].summary == "A desert planet." and s1.books["b1"].pages == 412 and s1.books["b2"] is s0.books["b2"]
    assert state_hash(s0) == h0                                                           # the given state is a value: untouched
    log = wm.log[-1]
    assert (log.tool, log.attempts, log.accepted, len(log.rejections)) == ("shelf.summarize_book", 7, True, 6)
    for reason, words in zip(log.rejections, ["'pages'", "unknown field 'blurb'", "unknown state field 'shelves'", "not JSON",
                                              "'extra'", "empty update"]):
        assert words in reason, (reason, words)
    # each re-ask carries the model's own answer and the reason it was refused
    assert len(ep.bodies) == 7 and ep.bodies[1]["messages"][-2] == {"role": "assistant", "content": bad[0]}
    assert log.rejections[0] in ep.bodies[1]["messages"][-1]["content"]
    assert ep.bodies[0]["model"] == "wm-model" and ep.bodies[0]["temperature"] == 0.0
    sent = json.loads(ep.bodies[0]["messages"][1]["content"])
    assert sent["arguments"] == {"id": "b1"} and sent["state"]["books"]["b1"]["title"] == "Dune" and sent["tool"]["name"] == "summarize_book"
    # later deterministic tools see the simulated change
    _, r = svc.call(s1, "get_book", {"id": "b1"})
    assert r["data"]["summary"] == "A desert planet."


def test_exhausting_retries_gives_an_error_observation_and_the_state_unchanged():
    svc = make_shelf()
    wm, ep = world_model([reply({"books": {"b1": {"pages": -1.5}}}, {"ok": True, "data": None}), "not json at all"], retries=2)
    use_world_model([svc], wm)
    s0 = svc.initial_state()
    h0 = state_hash(s0)
    s1, o = svc.call(s0, "summarize_book", {"id": "b1"})
    assert s1 is s0 and state_hash(s1) == h0
    assert o["ok"] is False and o["error"]["code"] == 503 and o["error"]["type"] == "model_unavailable"
    assert "3 attempts" in o["error"]["message"] and "not JSON" in o["error"]["message"]
    assert len(ep.bodies) == 3 and wm.log[-1].accepted is False and wm.log[-1].error == o


def test_retry_bound_comes_from_settings(tmp_path, monkeypatch):
    ini = tmp_path / "settings.ini"
    ini.write_text("[simulate]\nworld_model_retries = 1\n")
    monkeypatch.setenv("COMPOWORLD_SETTINGS", str(ini))
    assert world_model_retries() == 1
    svc = make_shelf()
    wm, ep = world_model(["nope"])
    assert wm.retries == 1
    use_world_model([svc], wm)
    s0 = svc.initial_state()
    assert svc.call(s0, "summarize_book", {"id": "b1"})[0] is s0 and len(ep.bodies) == 2
    with pytest.raises(ValueError, match="-2"): world_model_retries(-2)


def test_a_simulated_error_and_a_read_only_tool_change_nothing():
    svc = make_shelf()
    wm, ep = world_model([reply({}, {"ok": False, "error": {"code": 404, "message": "no book with id='b9'", "argument": "id"}})])
    use_world_model([svc], wm)
    s0 = svc.initial_state()
    s1, o = svc.call(s0, "summarize_book", {"id": "b9"})
    assert s1 is s0 and o["error"] == {"code": 404, "type": "not_found", "message": "no book with id='b9'", "argument": "id"}
    # a read-only simulated tool may not update: rejected, then the valid empty update is taken
    wm2, _ = world_model([reply({"books": {"b1": {"summary": "x"}}}, {"ok": True, "data": "Dune"}), reply({}, {"ok": True, "data": "Dune"})])
    use_world_model([svc], wm2)
    s2, o = svc.call(s0, "recommend", {"mood": "epic"})
    assert s2 is s0 and o == ok("Dune") and "read-only" in wm2.log[-1].rejections[0]


def test_unreachable_model_is_a_503_and_bad_arguments_never_reach_it():
    svc = make_shelf()
    wm, ep = world_model([httpx2.Response(500, json={"error": {"message": "down"}})], max_retries=0)
    use_world_model([svc], wm)
    s0 = svc.initial_state()
    s1, o = svc.call(s0, "summarize_book", {"id": "b1"})
    assert s1 is s0 and o["error"]["code"] == 503 and "HTTP 500" in o["error"]["message"]
    n = len(ep.bodies)
    s1, o = svc.call(s0, "summarize_book", {"id": 7})
    assert s1 is s0 and o["error"]["code"] == 400 and len(ep.bodies) == n
    assert not svc.simulates("summarize_book", {"id": 7}) and svc.simulates("summarize_book", {"id": "b1"}) and not svc.simulates("get_book", {"id": "b1"})


def test_new_records_deletes_and_ids():
    svc = make_shelf()
    s0 = svc.initial_state()
    s1 = apply_update(s0, {"books": {"b3": {"title": "Ulysses"}, "b2": None}})
    assert s1.books["b3"] == Book(id="b3", title="Ulysses") and "b2" not in s1.books and "b2" in s0.books


def _task(lib) -> Task:
    draft = Task(id="t-shelf", u="Summarise Dune.", services=["shelf"], walk=["shelf"], graph={}, s0={"seed": 0, "overrides": {}},
                 s0_hash="", reference=[], g_hash="", rubric=[])
    from compoworld_nb.compose import joint_hash
    return draft.model_copy(update={"s0_hash": joint_hash(materialize_s0(draft, lib, check=False))})


def test_trajectories_record_simulated_calls_and_stats_report_both_shares(tmp_path):
    svc = make_shelf()
    lib = {"shelf": svc}
    wm, _ = world_model([GOOD])
    use_world_model(lib, wm)
    env = TaskEnvironment(_task(lib), lib)
    env._step("call_tool", {"tool": "shelf.summarize_book", "arguments": {"id": "b1"}})   # reaches the world model
    env._step("call_tool", {"tool": "shelf.summarize_book", "arguments": {"id": 1}})      # 400 before it: not simulated
    env._step("call_tool", {"tool": "shelf.get_book", "arguments": {"id": "b1"}})         # deterministic, sees the update
    assert [s.simulated for s in env.steps] == [True, False, False]
    assert env.steps[2].observation["data"]["summary"] == "A desert planet." and env.steps[0].state_hash == env.steps[2].state_hash
    sim = Trajectory(task_id="t-shelf", policy="scripted", seed=0, steps=env.steps)
    plain = Trajectory(task_id="t-shelf", policy="scripted", seed=1, steps=env.steps[1:])
    f = tmp_path / "trajs.jsonl"
    save_jsonl(f, [sim, plain, plain, plain])
    rows = [json.loads(l) for l in f.read_text().splitlines()]
    assert rows[0]["steps"][0]["simulated"] is True and load_trajectories(f)[0].simulated_calls == 1
    assert simulated_trajectory_share(load_trajectories(f)) == 0.25
    st = library_stats(lib, trajectories=f)
    assert (st["tools"], st["simulated_tools"], st["deterministic_tools"], st["quarantined_tools"]) == (3, 2, 1, 0)
    assert st["simulated_share"] == pytest.approx(2 / 3)
    assert (st["trajectories"], st["simulated_trajectories"], st["simulated_trajectory_share"]) == (4, 1, 0.25)
    with pytest.raises(FileNotFoundError, match="nope.jsonl"): library_stats(lib, trajectories=tmp_path / "nope.jsonl")


@pytest.mark.parametrize("answer,words", [
    (reply({"books": {"b1": {"pages": "12"}}}, {"ok": True, "data": None}), "Input should be a valid integer (got '12')"),  # no coercion
    (reply({"books": {"b1": {"pages": True}}}, {"ok": True, "data": None}), "Input should be a valid integer (got 'True')"),
    (reply({"books": {"b1": {"title": ["Dune", 2]}}}, {"ok": True, "data": None}), "field 'title'"),                  # nested wrong type
    (reply({"books": {"b1": {"id": "b9"}}}, {"ok": True, "data": None}), "differs from the id it is stored under"),     # an id changed
    (reply({"seed": 7}, {"ok": True, "data": None}), "update.seed: the fixture seed and id counters are bookkeeping"),   # bookkeeping
    (reply({"counters": {}}, {"ok": True, "data": None}), "update.counters: the fixture seed and id counters are bookkeeping"),
    (reply({"clock": -60.0}, {"ok": True, "data": None}), "update.clock: -60.0 moves the clock back from 0.0"),
    (reply({"emails": {"e1": {"subject": "x"}}}, {"ok": True, "data": None}), "unknown state field 'emails'"),     # another service's state
    ('{"update": {}, "observation": ' + "[" * 50000 + "]" * 50000 + "}", "nests deeper than JSON parsing allows"),  # huge, deeply nested
    ('{"update": {"books": {"b1": {"pages": ' + "9" * 5000 + '}}}, "observation": {"ok": true, "data": null}}', "not usable JSON"),
    ('{"update": {"books": {"b2": null, "b1": {"pages": NaN}}}, "observation": {"ok": true, "data": null}}', "not a JSON value"),
])
def test_more_schema_violations_leave_the_state_exactly_as_it_was(answer, words):
    svc = make_shelf()
    wm, ep = world_model([answer], retries=0)
    use_world_model([svc], wm)
    s0 = svc.initial_state()
    h0 = state_hash(s0)
    s1, o = svc.call(s0, "summarize_book", {"id": "b1"})
    assert s1 is s0 and state_hash(s0) == h0 and sorted(s0.books) == ["b1", "b2"]
    assert o["ok"] is False and o["error"]["code"] == 503 and words in wm.log[-1].rejections[0], wm.log[-1].rejections


def test_the_clock_may_move_forward():
    s0 = make_shelf().initial_state()
    s1 = apply_update(s0, {"clock": 120})
    assert (s1.clock, s0.clock) == (120.0, 0.0)
