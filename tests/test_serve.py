"""MCP serving (nbs/42_serve.ipynb): the SDK's real client over stdio and streamable HTTP, in-process sessions, CLI values."""
import contextlib, io, json, os, signal, subprocess, sys, tempfile, threading, time
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

import sample_services
from compoworld_nb.serve import ServedWorld, ServeError, main, make_server, parse_services, run_client, served_env

ROOT = Path(__file__).resolve().parents[1]
SERVICES = "gmail,slack"
LIB = sample_services.load_library()
N_TOOLS = len(LIB["gmail"].tools) + len(LIB["slack"].tools)   # 13 + 8 today
LABEL = "Served over MCP"                                       # not in the seed-0 fixture
SERVER_ARGS = ["-m", "compoworld_nb.serve", "--services", SERVICES, "--seed", "0"]


async def _session_checks(c: Client) -> None:
    "List, write, read back, then an invalid call and a conflicting call that leave the state as it was."
    tools = (await c.list_tools()).tools
    names = [t.name for t in tools]
    assert len(tools) == N_TOOLS and names[0] == "gmail__send_email" and "slack__slack_post_message" in names
    cl = next(t for t in tools if t.name == "gmail__create_label")
    assert cl.title == "gmail.create_label" and cl.input_schema == LIB["gmail"].tools["create_label"].parameters
    assert cl.input_schema["required"] == ["name"] and cl.input_schema["additionalProperties"] is False
    assert next(t for t in tools if t.name == "gmail__list_email_labels").annotations.read_only_hint is True

    before = await c.call_tool("gmail__list_email_labels", {})
    assert not before.is_error and LABEL not in before.content[0].text
    made = await c.call_tool("gmail__create_label", {"name": LABEL})
    assert not made.is_error and made.structured_content["ok"] is True
    assert json.loads(made.content[0].text) == made.structured_content
    after = await c.call_tool("gmail__list_email_labels", {})
    assert LABEL in after.content[0].text and after.content[0].text != before.content[0].text

    bad = await c.call_tool("gmail__create_label", {"name": 7})       # wrong type: 400, state unchanged
    assert bad.is_error and bad.structured_content["error"]["code"] == 400 and bad.structured_content["error"]["argument"] == "name"
    dup = await c.call_tool("gmail__create_label", {"name": LABEL})   # conflict: 409, state unchanged
    assert dup.is_error and dup.structured_content["error"]["code"] == 409
    assert (await c.call_tool("gmail__list_email_labels", {})).content[0].text == after.content[0].text

    with pytest.raises(MCPError) as e:                                 # a name not served: protocol error -32602
        await c.call_tool("gmail.create_label", {"name": "x"})
    assert e.value.code == INVALID_PARAMS and "gmail.create_label" in e.value.message


def _run(coro_fn, timeout=60):
    async def go():
        with anyio.fail_after(timeout): return await coro_fn()
    return anyio.run(go)


class _HttpServer:
    "`python -m compoworld_nb.serve --transport http --port 0` in a subprocess; `url` waits for the line naming where it listens."
    def __init__(self):
        self.err = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([sys.executable, *SERVER_ARGS, "--transport", "http", "--port", "0"], cwd=ROOT,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.err, text=True)
        self._url = None

    def url(self) -> str:
        "Wait for the server's ready line (or its exit, which fails the test); no clock involved."
        while self._url is None:
            self.err.seek(0); text = self.err.read()
            for line in text.splitlines():
                if line.startswith("compoworld: serving") and " at http://" in line: self._url = line.rsplit(" at ", 1)[1]
            if self._url is None:
                assert self.proc.poll() is None, f"server exited {self.proc.returncode}: {text}"
                time.sleep(0.1)
        return self._url

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try: self.proc.wait(10)
            except subprocess.TimeoutExpired: self.proc.kill(); self.proc.wait(10)
        self.err.close()


@pytest.fixture(scope="module")
def http_server():
    s = _HttpServer()
    try: yield s
    finally: s.close()


def test_stdio_client_lists_calls_and_keeps_state(http_server):  # http_server: starts booting meanwhile (one CPU-bound wait instead of two)
    params = StdioServerParameters(command=sys.executable, args=SERVER_ARGS, cwd=str(ROOT))
    with tempfile.TemporaryFile(mode="w+") as errlog:
        async def go():
            async with Client(stdio_client(params, errlog=errlog)) as c:
                await _session_checks(c)
        try: _run(go)
        except BaseException:
            errlog.seek(0); print(errlog.read(), file=sys.stderr); raise


def test_streamable_http_client_and_state_across_connections(http_server):
    url = http_server.url()
    assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
    async def go():
        async with Client(url) as c: await _session_checks(c)
        async with Client(url, mode="legacy") as c2:   # a second connection (2025 handshake era) sees the state the first left
            assert c2.protocol_version < "2026" and len((await c2.list_tools()).tools) == N_TOOLS
            labels = await c2.call_tool("gmail__list_email_labels", {})
            assert labels.content[0].text.count(LABEL) == 1
    _run(go)
    assert http_server.proc.poll() is None


def test_http_refuses_foreign_host_header(http_server):
    import httpx2
    url = http_server.url()
    r = httpx2.post(url, headers={"Host": "evil.example:80", "Accept": "application/json, text/event-stream",
                                  "Content-Type": "application/json"},
                    content=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}), timeout=10)
    assert r.status_code == 421   # the SDK's DNS-rebinding protection stays on for loopback


def test_in_process_session_and_world_state():
    world = ServedWorld(served_env(SERVICES, LIB), seed=0)
    h0 = world.joint_hash()
    run_client(make_server(world), _session_checks)
    assert world.calls == 6 and world.joint_hash() != h0
    assert LABEL in json.dumps(world.call("gmail__list_email_labels").structured_content)


def test_tool_exception_is_an_error_result_and_keeps_state():
    world = ServedWorld(served_env("gmail", LIB), seed=0)
    js = world.js
    def boom(*a, **k): raise RuntimeError("world model down")
    world.env.call = boom
    r = world.call("gmail__create_label", {"name": LABEL})
    assert r.is_error and r.structured_content["error"] == {"code": 500, "type": "internal_error", "argument": None,
                                                           "message": "gmail.create_label: RuntimeError: world model down"}
    assert world.js is js


def test_parse_services():
    assert parse_services(None, LIB) == list(LIB)
    assert parse_services(" slack , gmail", LIB) == ["slack", "gmail"]
    with pytest.raises(ServeError, match="unknown service 'nope'"): parse_services("gmail,nope", LIB)
    with pytest.raises(ServeError, match="'gmail' given twice"): parse_services(["gmail", "gmail"], LIB)


@pytest.mark.parametrize("argv,msg", [
    (["--services", "gmail,nope"], "compoworld: error: --services: unknown service 'nope'"),
    (["--transport", "http", "--host", "10.1.2.3"], "compoworld: error: --host '10.1.2.3' is not a loopback address"),
    (["--transport", "http", "--host", "no-such-host.invalid"], "compoworld: error: --host 'no-such-host.invalid' does not resolve"),
])
def test_cli_bad_values_exit_2(argv, msg):
    e = io.StringIO()
    with contextlib.redirect_stderr(e): assert main(argv) == 2
    assert e.getvalue().startswith(msg) and e.getvalue().count("\n") == 1, e.getvalue()


@pytest.mark.parametrize("argv,msg", [
    (["--port", "70000"], "compoworld: error: argument --port: --port '70000' is not in 0..65535"),
    (["--port", "http"], "compoworld: error: argument --port: --port 'http' is not an integer"),
    (["--transport", "sse"], "compoworld: error: argument --transport: invalid choice: 'sse'"),
])
def test_cli_bad_arguments_exit_2(argv, msg):
    e = io.StringIO()
    with contextlib.redirect_stderr(e), pytest.raises(SystemExit) as x: main(argv)
    assert x.value.code == 2 and e.getvalue().startswith(msg) and e.getvalue().count("\n") == 1, e.getvalue()


def test_cli_port_in_use_exit_2():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); s.listen(1); port = s.getsockname()[1]
        e = io.StringIO()
        with contextlib.redirect_stderr(e): assert main(["--services", "gmail", "--transport", "http", "--port", str(port)]) == 2
    assert e.getvalue().startswith(f"compoworld: error: --port {port} on --host '127.0.0.1': ") and e.getvalue().count("\n") == 1


def test_a_quarantined_tool_is_served_with_its_reason():
    from compoworld_nb.serve import mcp_tool, served_env
    import sample_services
    lib = sample_services.load_library()
    env = served_env("time", lib)
    tool = lib["time"].tools["convert_time"]
    assert "QUARANTINED" not in mcp_tool(env, "time.convert_time").description
    tool.quarantined = "uncaught OSError on a 5000-character zone name"
    try:
        assert mcp_tool(env, "time.convert_time").description.endswith(
            "[QUARANTINED by independent verification: uncaught OSError on a 5000-character zone name]")
    finally:
        tool.quarantined = None


def test_a_huge_bad_argument_is_not_echoed_back_whole():
    import sample_services
    lib = sample_services.load_library()
    svc = lib["gmail"]
    s = svc.initial_state(0)
    # over the size limit: refused at the argument boundary, before validation, naming the size and the limit
    s2, obs = svc.call(s, "create_label", {"name": ["x" * 1_000_000]})
    assert s2 is s and obs["error"]["code"] == 400 and obs["error"]["argument"] == "name"
    assert obs["error"]["message"] == "argument 'name': text of 1000000 characters is longer than the limit of 100000"
    # within the limit but of the wrong type: the validation message shows the value cut short
    s2, obs = svc.call(s, "create_label", {"name": ["x" * 90_000]})
    assert s2 is s and obs["error"]["code"] == 400 and obs["error"]["argument"] == "name"
    msg = obs["error"]["message"]
    assert msg.startswith("argument 'name': Input should be a valid string (got ['xxx") and msg.endswith("…)")
    assert len(msg) < 200


def test_stdio_answers_lines_that_are_not_json_rpc_and_keeps_serving_then_stops_on_sigterm():
    "issue 21: -32700 for text that is not JSON, -32600 for JSON that is no message (id null), serving goes on; SIGTERM ends it."
    import signal
    p = subprocess.Popen([sys.executable, *SERVER_ARGS], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        def send(o): p.stdin.write((o if isinstance(o, str) else json.dumps(o)) + "\n"); p.stdin.flush()
        def recv(): return json.loads(p.stdout.readline())
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                                             "clientInfo": {"name": "t", "version": "0"}}})
        assert recv()["id"] == 1
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for line, code in (("this is not json", -32700), ('{"jsonrpc": "2.0", "id": 5', -32700), ('{"hello": 1}', -32600), ("[1, 2]", -32600)):
            send(line)
            assert recv() == {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": ("Parse error: the line is not JSON" if code == -32700
                                                                                             else "Invalid Request: the line is not a JSON-RPC message")}}
        # a non-finite number in the arguments is a normal tool error (400), not a protocol failure with code 0
        send('{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "gmail__create_label", "arguments": {"name": 1e999}}}')
        r = recv()
        assert r["id"] == 2 and r["result"]["isError"] is True and r["result"]["structuredContent"]["error"]["code"] == 400
        send({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
        r = recv()
        assert r["id"] == 3 and len(r["result"]["tools"]) == N_TOOLS
        p.send_signal(signal.SIGTERM)
        assert (p.wait(timeout=60), p.stderr.read().splitlines()[-1:]) == (143, [INTERRUPTED["SIGTERM"]])
    finally:
        if p.poll() is None: p.kill(); p.wait(10)


INTERRUPTED = {n: f"compoworld: interrupted by {n}; unfinished outputs were removed" for n in ("SIGTERM", "Ctrl-C")}

@pytest.mark.parametrize("sig,rc,name", [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGINT, 130, "Ctrl-C")])
def test_a_signal_ends_the_stdio_server_as_it_ends_every_command(sig, rc, name):
    """Before: SIGTERM killed `compoworld serve-mcp` over stdio by the signal itself (status -15, no line) and Ctrl-C left
    it waiting for the client's next line (it never ended). After: the answers so far are flushed, then the CLI's one
    line and 143 / 130, as `tasks` or `serve-mcp --transport http` end."""
    child = "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); from compoworld_nb.cli import main; sys.exit(main())"
    p = subprocess.Popen([sys.executable, "-c", child, "serve-mcp", "--services", "gmail"], cwd=ROOT, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}) + "\n"); p.stdin.flush()
        assert json.loads(p.stdout.readline())["id"] == 1                # serving
        p.send_signal(sig)
        try: status = p.wait(timeout=60)
        except subprocess.TimeoutExpired: status = "still running 60 s after the signal"
        assert (status, p.stderr.read().splitlines() if status != "still running 60 s after the signal" else None) == (rc, [INTERRUPTED[name]])
    finally:
        if p.poll() is None: p.kill(); p.wait(10)


def test_a_reply_that_is_not_strict_json_is_refused_before_the_state_is_kept():
    world = ServedWorld(served_env("gmail", LIB), seed=0)
    js, real = world.js, world.env.call
    def inf_reply(j, name, args):
        j2, o = real(j, name, args)
        return j2, {"ok": True, "data": {"x": float("inf")}}
    world.env.call = inf_reply
    r = world.call("gmail__create_label", {"name": LABEL})
    assert r.is_error and r.structured_content["error"]["code"] == 500 and "not strict JSON" in r.structured_content["error"]["message"]
    assert world.js is js
