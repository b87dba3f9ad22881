"""The verifiers adapter (nbs/45_verifiers.ipynb): a rollout through verifiers' own loop against a scripted
OpenAI-compatible endpoint on loopback; each rollout has its own episode; reward R of the rubric. verifiers 0.1.x does
not co-install with the dev set (see the notebook), so CI runs this file in a core + verifiers venv of its own
(it imports verifiers there first, so the file cannot skip in that run)."""
import asyncio, socket, threading

import pytest

pytest.importorskip("verifiers")
import uvicorn
import verifiers as vf
from openai import AsyncOpenAI

from compoworld_nb.author import default_library, generate_tasks
from compoworld_nb.verifiers_env import CompoWorldToolEnv, scripted_chat_app


@pytest.fixture(scope="module")
def setup():
    lib, world = default_library()
    tasks = generate_tasks(2, seed=0, library=lib, world_factory=world, k=3, l_min=4, l_max=6, n_distractors=3,
                           progress=False, max_attempts=40)[0]
    return lib, tasks


def _serve(app):
    sock = socket.socket(); sock.bind(("127.0.0.1", 0)); sock.listen(8)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    th = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), daemon=True); th.start()
    while not server.started: th.join(0.05)
    return server, th, f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


@pytest.mark.parametrize("i", [0, 1])
def test_rollout_of_the_reference_earns_r_1(setup, i):
    lib, tasks = setup
    t = tasks[i]
    env = CompoWorldToolEnv(tasks, lib)
    assert sorted(d.name for d in env.tool_defs) == ["call_tool", "describe_tool", "list_services", "list_tools"]
    assert all("episode" not in d.parameters.get("properties", {}) for d in env.tool_defs)
    server, th, url = _serve(scripted_chat_app(t))
    try:
        async def go():
            client = vf.clients.OpenAIChatCompletionsClient(AsyncOpenAI(base_url=url, api_key="local"))
            row = {**env.get_dataset()[i], "example_id": i}
            a = await env.rollout(row, client, "scripted")
            b = await env.rollout(row, client, "scripted")   # a second rollout of the same task: its own episode from s0
            for s in (a, b): await env.rubric.score_rollout(s)
            return a, b
        a, b = asyncio.run(go())
    finally:
        server.should_exit = True; th.join(10)
    for s in (a, b):
        sc = env.score(s)
        assert s["reward"] == 1.0 and sc["success"] and sc["b"] == [1] * len(t.v.criteria)
        assert len(s["episode"].steps) == len(t.reference)
    assert a["episode"] is not b["episode"]


def test_the_scripted_chat_endpoint_refuses_a_body_that_is_no_object(setup):
    from starlette.testclient import TestClient
    _, tasks = setup
    with TestClient(scripted_chat_app(tasks[0])) as tc:
        got = [(r.status_code, r.json()["error"]["message"]) for r in (tc.post("/v1/chat/completions", content=b) for b in (b'"x"', b"[1]", b"null"))]
    assert got == [(400, "/v1/chat/completions: the body must be a JSON object, got string 'x'"),
                   (400, "/v1/chat/completions: the body must be a JSON object, got array [1]"),
                   (400, "/v1/chat/completions: the body must be a JSON object, got null")]
