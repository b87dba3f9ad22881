"""A field a request names that its receiver does not take.

Before: the resources server's POST /seed_session and POST /verify, and the MCP task server's `reset` and `score`
meta-tools, skipped unknown fields: `{"anwser": "done"}` (a typo) was scored as no answer at all (200, the output
criteria failed), `{"task_id": ..., "seed": 3}` started a session from the task's own seed as if the field were taken.
After: one check (`serve.unknown_field`) answers 400 naming the first unknown field and the known ones, before anything
is done: no session is started, the episode's state is the same. A tool's own unknown argument was already refused by
the tool (pydantic extra="forbid": "unknown argument 'x'")."""
import pytest
from starlette.testclient import TestClient
from compoworld_nb.author import default_library
from compoworld_nb.resources import ResourcesServer, resources_app
from compoworld_nb.serve import SESSION_META, TaskSessions, make_task_server, run_client
LIB, _ = default_library()


@pytest.mark.parametrize("route,body,field,known", [
    ("/seed_session", {"task_id": None, "seed": 3}, "seed", "task_id"),
    ("/verify", {"anwser": "done"}, "anwser", "answer"),
    ("/verify", {"answer": "done", "final": True}, "final", "answer"),
])
def test_a_route_refuses_a_field_it_does_not_take_and_does_nothing(task, route, body, field, known):
    rs = ResourcesServer([task], LIB)
    with TestClient(resources_app(rs)) as tc:
        if route == "/verify": sid = tc.post("/seed_session", json={"task_id": task.id}).json()["data"]["session"]
        before = (dict(rs._task_of), {k: ts.world(k).joint_hash() for k, ts in ((k, rs._sessions[v]) for k, v in rs._task_of.items())})
        r = tc.post(route, json={**body, **({"task_id": task.id} if "task_id" in body else {})})
        assert (r.status_code, r.json()) == (400, {"ok": False, "error": {"code": 400, "type": "bad_arguments", "argument": field,
                                                                        "message": f"{route}: unknown field {field!r}; its fields are {known}"}})
        after = (dict(rs._task_of), {k: ts.world(k).joint_hash() for k, ts in ((k, rs._sessions[v]) for k, v in rs._task_of.items())})
        assert after == before
        if route == "/verify":
            assert tc.post(route, json={"answer": "done"}).status_code == 200     # the same request without the field is served


def test_a_meta_tool_refuses_an_argument_it_does_not_take(task):
    ts = TaskSessions(task, LIB)
    async def calls(c):
        meta = {SESSION_META: "s1"}
        out = [await c.call_tool("reset", {}, meta=meta)]
        h0 = ts.world("s1").joint_hash()
        out += [await c.call_tool("score", {"anwser": "done"}, meta=meta), await c.call_tool("reset", {"x": 1}, meta=meta)]
        return out, h0
    (first, score, reset), h0 = run_client(make_task_server(ts), calls)
    assert not first.is_error
    assert (score.is_error, score.structured_content["error"]) == (True, {"code": 400, "type": "bad_arguments", "argument": "anwser",
                                                                        "message": "score: unknown field 'anwser'; its fields are answer"})
    assert (reset.is_error, reset.structured_content["error"]["message"]) == (True, "reset: unknown field 'x'; it takes no fields")
    assert ts.world("s1").joint_hash() == h0
