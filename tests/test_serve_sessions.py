"""One task per MCP session (nbs/42_serve.ipynb): `serve-mcp --tasks FILE` over streamable HTTP and stdio with the SDK's
client; two sessions in parallel never see each other's writes; reset and score; bad values exit 2."""
import contextlib, io, subprocess, sys, tempfile, time
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from compoworld_nb.author import default_library, generate_tasks
from compoworld_nb.compose import to_openai_name
from compoworld_nb.serve import SESSION_META, main

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def task_file(tmp_path_factory):
    lib, world = default_library()
    tasks = generate_tasks(2, seed=0, library=lib, world_factory=world, k=3, l_min=4, l_max=6, n_distractors=3,
                           progress=False, max_attempts=40)[0]
    p = tmp_path_factory.mktemp("tasks") / "tasks.jsonl"
    p.write_text("".join(t.to_jsonl() + "\n" for t in tasks), encoding="utf-8")
    return p, tasks


def _run(fn, timeout=300):   # a hang guard only (no test asserts on time)
    async def go():
        with anyio.fail_after(timeout): return await fn()
    return anyio.run(go)


def _data(r): return r.structured_content["data"]


async def _replay(c: Client, task, meta=None) -> dict:
    "The reference calls in one session, then its score."
    for call in task.reference:
        r = await c.call_tool(to_openai_name(call["tool"]), call["arguments"], meta=meta)
        assert not r.is_error, r.content[0].text
    return _data(await c.call_tool("score", {"answer": task.answer or ""}, meta=meta))


def test_http_two_parallel_sessions_are_isolated(task_file):
    path, tasks = task_file
    task = tasks[1]
    err = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen([sys.executable, "-m", "compoworld_nb.serve", "--tasks", str(path), "--task-id", task.id,
                             "--transport", "http", "--port", "0"], cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=err, text=True)
    try:
        url = None
        while url is None:                                   # until the ready line, or the server's exit fails the test
            err.seek(0); text = err.read()
            line = next((l for l in text.splitlines() if l.startswith(f"compoworld: serving task {task.id}")), None)
            if line: url = line.rsplit(" at ", 1)[1]; break
            assert proc.poll() is None, text
            time.sleep(0.1)
        out = {}
        async def session_a():   # names its episode in _meta (works in the stateless 2026-07-28 era)
            async with Client(url) as c:
                names = [t.name for t in (await c.list_tools()).tools]
                assert names[-2:] == ["reset", "score"]
                out["a"] = await _replay(c, task, {SESSION_META: "A"})
        async def session_b():   # a 2025-era session: its Mcp-Session-Id names the episode
            async with Client(url, mode="legacy") as c:
                out["b0"] = _data(await c.call_tool("score", {}))
                await anyio.sleep(0)          # let A run its writes meanwhile
                out["b_ref"] = await _replay(c, task)
        async def both():
            async with anyio.create_task_group() as tg:
                tg.start_soon(session_a); tg.start_soon(session_b)
            async with Client(url) as c:      # a third session, after both: still s0; A's state is still A's
                out["c"] = _data(await c.call_tool("score", {}, meta={SESSION_META: "C"}))
                out["a_again"] = _data(await c.call_tool("score", {"answer": task.answer or ""}, meta={SESSION_META: "A"}))
                out["reset"] = _data(await c.call_tool("reset", {}, meta={SESSION_META: "A"}))
                out["a_reset"] = _data(await c.call_tool("score", {}, meta={SESSION_META: "A"}))
                stateless = await c.call_tool("score", {})   # 2026 era, no session named: refused, nothing lost
                out["stateless"] = stateless
        _run(both)
        m = len(task.v.criteria)
        assert out["a"]["success"] is True and out["a"]["R"] == 1.0 and out["a"]["b"] == [1] * m
        assert out["b_ref"]["b"] == [1] * m                       # B replayed on its own copy: no 409 from A's writes
        assert out["b0"]["success"] is False and out["b0"]["b"] == out["c"]["b"] == out["a_reset"]["b"]
        assert out["a_again"] == out["a"]
        assert out["reset"]["task_id"] == task.id and out["reset"]["instruction"] == task.u
        assert out["stateless"].is_error and out["stateless"].structured_content["error"]["code"] == 400
        assert proc.poll() is None
    finally:
        proc.terminate()
        try: proc.wait(10)
        except subprocess.TimeoutExpired: proc.kill(); proc.wait(10)
        err.close()


def test_stdio_one_episode(task_file):
    path, tasks = task_file
    task = tasks[0]
    params = StdioServerParameters(command=sys.executable, cwd=str(ROOT),
                                   args=["-m", "compoworld_nb.serve", "--tasks", str(path), "--task-id", task.id])
    async def go():
        with tempfile.TemporaryFile(mode="w+") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as c:
                before = _data(await c.call_tool("score", {}))
                after = await _replay(c, task)
                assert _data(await c.call_tool("reset", {}))["task_id"] == task.id
                again = _data(await c.call_tool("score", {}))
        return before, after, again
    before, after, again = _run(go)
    assert after["success"] and not before["success"] and again == before


@pytest.mark.parametrize("argv, msg", [
    (["--tasks", "/nonexistent/tasks.jsonl"], "--tasks '/nonexistent/tasks.jsonl' does not exist"),
    (["--task-id", "x"], "--task-id 'x' needs --tasks FILE"),
    (["--tasks", "{path}"], "holds 2 tasks: pick one with --task-id"),
    (["--tasks", "{path}", "--task-id", "nope"], "--task-id 'nope' is not in --tasks"),
    (["--tasks", "{path}", "--services", "gmail"], "--services and --tasks exclude each other"),
])
def test_cli_bad_task_values_exit_2(task_file, argv, msg):
    argv = [a.format(path=task_file[0]) for a in argv]
    e = io.StringIO()
    with contextlib.redirect_stderr(e): assert main(argv) == 2
    assert e.getvalue().startswith("compoworld: error:") and msg in e.getvalue() and e.getvalue().count("\n") == 1, e.getvalue()
