"""A field a request names that its receiver does not take.

Before: the resources server's POST /seed_session and POST /verify, and the MCP task server's `reset` and `score`
meta-tools, skipped unknown fields: `{"anwser": "done"}` (a typo) was scored as no answer at all (200, the output
criteria failed), `{"task_id": ..., "seed": 3}` started a session from the task's own seed as if the field were taken.
After: one check (`serve.unknown_field`) answers 400 naming the first unknown field and the known ones, before anything
is done: no session is started, the episode's state is the same. A tool's own unknown argument was already refused by
the tool (pydantic extra="forbid": "unknown argument 'x'")."""
import json
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


_WRONG = [("t1", "string 't1'"), (["t1"], "array ['t1']"), (3, "integer 3"), (2.5, "number 2.5"), (True, "boolean true"), (None, "null")]


@pytest.mark.parametrize("route", ["/seed_session", "/verify", "/tools/x"])
@pytest.mark.parametrize("body,named", _WRONG)
def test_every_route_refuses_a_body_of_the_wrong_json_type_and_does_nothing(task, route, body, named):
    """Before: POST /seed_session with the bare JSON string of a task id started a session of that task, and POST /verify
    took a bare string as the answer. After: every route refuses a body that is not a JSON object with a 400 naming its type."""
    rs = ResourcesServer([task], LIB)
    with TestClient(resources_app(rs)) as tc:
        sid = tc.post("/seed_session", json={"task_id": task.id}).json()["data"]["session"]
        tool = next(iter(rs.task_sessions(task.id).template.by_mcp_name))
        path = route.replace("/tools/x", f"/tools/{tool}")
        before = (dict(rs._task_of), rs._sessions[task.id].world(sid).joint_hash())
        r = tc.post(path, content=json.dumps(body if route != "/seed_session" or body != "t1" else task.id), headers={"content-type": "application/json"})
        named = named if route != "/seed_session" or body != "t1" else f"string {task.id!r}"
        assert (r.status_code, r.json()["error"]) == (400, {"code": 400, "type": "bad_arguments", "argument": "body",
                                                            "message": f"{path}: the body must be a JSON object, got {named}"})
        assert (dict(rs._task_of), rs._sessions[task.id].world(sid).joint_hash()) == before


def test_a_meta_tool_refuses_arguments_that_are_no_object(task):
    ts = TaskSessions(task, LIB)
    r = ts.call("s1", "score", "done")
    assert (r.is_error, r.structured_content["error"]) == (True, {"code": 400, "type": "bad_arguments", "argument": "arguments",
                                                                 "message": "score: the arguments must be a JSON object, got string 'done'"})
    assert ts.call("s1", "reset", ["x"]).structured_content["error"]["message"] == "reset: the arguments must be a JSON object, got array ['x']"
