"""The OpenAI-compatible policy through the real `openai` client, with scripted responses served by an
`httpx2.MockTransport` (the HTTP library the client uses); nothing leaves the process.

Covers: native tool calls end to end, every kind of malformed tool call (each a structured error observation
naming the problem, state unchanged, episode goes on), timeouts and retries, a dead endpoint, the final
answer and output criteria compared as values, settings precedence, and that the API key is never written.
"""
import json, time
import httpx2
import pytest
from compoworld_nb.author import default_library, generate_tasks
from compoworld_nb.compose import joint_hash
from compoworld_nb.harness import META_TOOLS, run_episode
from compoworld_nb.policies import OpenAIPolicy, make_policy
from compoworld_nb.llm import LLMConfig, LLMError, api_messages, chat, llm_config, make_client
from compoworld_nb.rubric import Criterion, check
from compoworld_nb.trajectory import save_jsonl

LIB, WORLD = default_library()


@pytest.fixture(scope="module")
def task():
    "The first admitted K=3 task (from a fixed list of seeds) whose reference writes with a required string argument."
    for seed in (0, 11, 1, 2, 3, 4, 5):
        ts, _ = generate_tasks(1, seed=seed, library=LIB, world_factory=WORLD, k=3, l_min=4, l_max=6, n_distractors=3,
                               progress=False, max_attempts=20)
        if ts and _write(ts[0]): return ts[0]
    raise AssertionError("no suitable task for seeds 0-5 and 11")


def _write(task):
    "The first reference call that changes the state and has a required string argument."
    from compoworld_nb.harness import TaskEnvironment
    env = TaskEnvironment(task, LIB)
    for c in task.reference:
        h = env._joint_hash(); env._call_tool(c["tool"], c["arguments"])
        t = env.env.get_tool(c["tool"])
        if env._joint_hash() != h and any(t.parameters["properties"][k].get("type") == "string" for k in t.required): return c
    return None


def completion(message: dict) -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "mock",
            "choices": [{"index": 0, "finish_reason": "tool_calls" if message.get("tool_calls") else "stop", "message": message}]}

def tool_turn(name, arguments, i=0) -> dict:
    "An assistant message with one native tool call; `arguments` is sent verbatim (a string, or anything JSON)."
    return {"role": "assistant", "content": None,
            "tool_calls": [{"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": arguments}}]}

class Server:
    "A scripted chat endpoint: answers request k with `script[k]` (a message dict, an exception to raise, or an httpx2.Response)."
    def __init__(self, script):
        self.script, self.requests = list(script), []
    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        item = self.script[min(len(self.requests), len(self.script)) - 1]
        if isinstance(item, Exception): raise item
        if isinstance(item, httpx2.Response): return item
        return httpx2.Response(200, json=completion(item))
    def bodies(self): return [json.loads(r.content) for r in self.requests]

def policy(server, **kw):
    return OpenAIPolicy("mock-model", base_url="http://mock.local/v1", http_client=httpx2.Client(transport=httpx2.MockTransport(server)),
                        api_key="sk-test-secret", **kw)


# ------------------------------------------------------------------ malformed tool calls, end to end
def test_malformed_tool_calls_become_observations_and_the_episode_goes_on(task):
    w = _write(task)
    tool = LIB[w["tool"].split(".")[0]].tools[w["tool"].split(".")[1]]
    args = w["arguments"]
    req = tool.required
    str_arg = next(k for k in req if tool.parameters["properties"][k].get("type") == "string")
    bad = [  # (what the model sends as function name and arguments string, expected code, expected `argument`)
        ("call_tool", json.dumps({"tool": w["tool"], "arguments": json.dumps(args)}), 400, "arguments"),   # arguments as a JSON string
        ("call_tool", json.dumps(json.dumps({"tool": w["tool"], "arguments": args})), 400, "arguments"),   # doubly encoded
        ("call_tool", json.dumps({"tool": w["tool"], "arguments": json.dumps(json.dumps(args))}), 400, "arguments"),
        ("send_email", json.dumps(args), 400, "name"),                                                     # unknown function
        ("call_tool", json.dumps({"tool": w["tool"].split(".")[0] + ".no_such_tool", "arguments": args}), 404, "tool"),
        ("call_tool", json.dumps({"tool": "nosuchservice.tool", "arguments": args}), 404, "tool"),
        ("call_tool", json.dumps({"tool": w["tool"].replace(".", "__"), "arguments": args}), 400, "tool"),   # not namespaced
        ("call_tool", json.dumps({"tool": w["tool"], "arguments": args, "priority": 1}), 400, "priority"),  # extra meta field
        ("call_tool", json.dumps({"tool": w["tool"], "arguments": {**args, "bogusField": 1}}), 400, "bogusField"),
        ("call_tool", json.dumps({"tool": w["tool"], "arguments": {k: v for k, v in args.items() if k != req[0]}}), 400, req[0]),
        ("call_tool", json.dumps({"arguments": args}), 400, "tool"),                                        # missing field
        ("call_tool", json.dumps({"tool": 7, "arguments": args}), 400, "tool"),                             # wrong types
        ("call_tool", json.dumps({"tool": w["tool"], "arguments": {**args, str_arg: ["not", "a", "string"]}}), 400, str_arg),
        ("list_tools", json.dumps({"service": ["gmail"]}), 400, "service"),
        ("call_tool", "{oops, not json", 400, "arguments"),                                                 # not JSON at all
        ("call_tool", "[1, 2]", 400, "arguments"),
        ("call_tool", json.dumps({"tool": w["tool"], "arguments": 5}), 400, "arguments"),
        (None, "{}", 400, "name"),                                                                          # no function name
    ]
    script = [tool_turn("list_services", "")]
    script += [tool_turn(n, a, i + 1) for i, (n, a, _, _) in enumerate(bad)]
    script += [tool_turn("call_tool", json.dumps({"tool": c["tool"], "arguments": c["arguments"]}), 100 + i) for i, c in enumerate(task.reference)]
    script += [{"role": "assistant", "content": task.answer or "All done."}]
    srv = Server(script)
    t = run_episode(task, policy(srv), LIB, seed=5, max_steps=80)

    assert t.policy == "openai:mock-model" and not t.truncated
    assert t.steps[0].observation["ok"] and t.steps[0].call == {"name": "list_services", "arguments": {}}
    h0 = task.s0_hash
    for step, (_, _, code, arg) in zip(t.steps[1:], bad):
        e = step.observation["error"]
        assert (e["code"], e["argument"]) == (code, arg), (step.call, e)
        assert e["message"] and step.state_hash == h0                     # state unchanged by every malformed call
    assert all(s.observation["ok"] for s in t.steps[1 + len(bad):])      # the episode went on and solved the task
    assert t.success and t.steps[-1].state_hash == task.g_hash and t.final_answer == (task.answer or "All done.")
    assert len(srv.requests) == len(script)

    bodies = srv.bodies()
    assert all(b["model"] == "mock-model" and b["tools"] == META_TOOLS and b["temperature"] == 0 for b in bodies)
    assert [b["seed"] for b in bodies[:3]] == [5001, 5002, 5003]
    last = bodies[-1]["messages"]
    assert [m["role"] for m in last[:3]] == ["system", "user", "assistant"]
    tools = [m for m in last if m["role"] == "tool"]
    assert len(tools) == len(t.steps) and all(set(m) == {"role", "tool_call_id", "content"} for m in tools)
    assert [m["tool_call_id"] for m in tools[:2]] == ["call_0", "call_1"]
    assert json.loads(tools[15]["content"])["error"]["message"].startswith("function-call arguments are not JSON")


def test_a_turn_with_several_tool_calls_and_odd_shapes(task):
    c0, c1 = task.reference[0], task.reference[1]
    two = {"role": "assistant", "content": "working on it", "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "call_tool", "arguments": json.dumps({"tool": c0["tool"], "arguments": c0["arguments"]})}},
        {"id": "b", "type": "function", "function": {"name": "call_tool", "arguments": {"tool": c1["tool"], "arguments": c1["arguments"]}}},
        {"id": "c", "type": "function"}]}                                   # arguments as an object; a call without a function
    srv = Server([two, {"role": "assistant", "content": "ok"}])
    t = run_episode(task, policy(srv), LIB)
    assert [s.observation["ok"] for s in t.steps] == [True, True, False]
    assert t.steps[2].observation["error"]["code"] == 400 and t.final_answer == "ok"


# ------------------------------------------------------------------ timeouts, retries, dead endpoints
def test_timeout_is_retried_by_the_client(task):
    ok_turn = {"role": "assistant", "content": "nothing to do"}
    srv = Server([httpx2.ReadTimeout("slow model"), ok_turn])
    t = run_episode(task, policy(srv, max_retries=2, timeout=3), LIB)
    assert len(srv.requests) == 2 and t.final_answer == "nothing to do"
    assert srv.requests[1].headers["x-stainless-retry-count"] == "1"

def test_rate_limit_is_retried_after_the_servers_delay(task):
    srv = Server([httpx2.Response(429, headers={"retry-after-ms": "5"}, json={"error": {"message": "slow down"}}),
                  {"role": "assistant", "content": "fine"}])
    import openai._base_client as bc
    slept = []
    with pytest.MonkeyPatch.context() as mp:            # the delay the client chose, not the clock: the server's 5 ms, not its own backoff
        mp.setattr(bc.time, "sleep", slept.append)
        t = run_episode(task, policy(srv, max_retries=1), LIB)
    assert t.final_answer == "fine" and len(srv.requests) == 2 and slept == [0.005]

def test_endpoint_that_keeps_timing_out_ends_the_episode_with_504(task):
    srv = Server([httpx2.ReadTimeout("slow")])
    t = run_episode(task, policy(srv, max_retries=1, timeout=1), LIB)
    assert len(srv.requests) == 2 and t.final_answer is None and t.steps == [] and not t.success
    assert t.messages[-1]["content"].startswith("[policy error 504: LLMError")
    with pytest.raises(LLMError) as e:
        p = policy(Server([httpx2.ConnectError("refused")]), max_retries=0); p.reset(task, 0); p.act([{"role": "user", "content": "hi"}])
    assert e.value.code == 503 and e.value.observation()["error"]["type"] == "model_unavailable"

def test_server_error_status_maps_to_503(task):
    srv = Server([httpx2.Response(500, json={"error": {"message": "boom"}})])
    with pytest.raises(LLMError) as e:
        chat(make_client(LLMConfig("m", "http://mock.local/v1", max_retries=1), http_client=httpx2.Client(transport=httpx2.MockTransport(srv))),
             "m", [{"role": "user", "content": "hi"}])
    assert e.value.code == 503 and e.value.status == 500 and len(srv.requests) == 2


# ------------------------------------------------------------------ final answers are compared as values
def test_output_criterion_expecting_10_does_not_pass_on_dollar_100(task):
    for op, value in [("eq", 10), ("contains", 10), ("contains", "10"), ("approx", 10)]:
        c = Criterion(id="x", kind="output", op=op, value=value, tolerance=0.5)
        assert check(c, {}, None, "The total is $100.") == 0, (op, value)
        assert check(c, {}, None, "The total is 10.") == 1, (op, value)
    crit = {"id": "c_out", "kind": "output", "op": "eq", "value": 10}
    t2 = task.model_copy(update={"rubric": task.rubric + [crit]})
    script = [tool_turn("call_tool", json.dumps({"tool": c["tool"], "arguments": c["arguments"]}), i) for i, c in enumerate(task.reference)]
    for answer, last in [("It came to $100.", 0), ("It came to 10 dollars.", 1)]:
        t = run_episode(t2, policy(Server(script + [{"role": "assistant", "content": answer}])), LIB)
        assert t.final_answer == answer and t.criteria[-1] == last


# ------------------------------------------------------------------ settings, key handling, specs
def test_settings_precedence_and_the_key_is_never_written(task, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-123")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env.local/v1")
    monkeypatch.delenv("COMPOWORLD_MODEL_BASE_URL", raising=False)
    srv = Server([{"role": "assistant", "content": "done"}])
    p = make_policy("openai:gpt-x", http_client=httpx2.Client(transport=httpx2.MockTransport(srv)))
    assert p.name == "openai:gpt-x" and p.cfg.base_url == "http://env.local/v1"
    t = run_episode(task, p, LIB)
    r = srv.requests[0]
    assert str(r.url) == "http://env.local/v1/chat/completions" and r.headers["authorization"] == "Bearer sk-from-env-123"
    save_jsonl(tmp_path / "t.jsonl", [t])
    assert "sk-from-env" not in (tmp_path / "t.jsonl").read_text() and "sk-from-env" not in repr(p.cfg)
    monkeypatch.setenv("COMPOWORLD_MODEL_BASE_URL", "http://compoworld.local/v1")
    assert llm_config("m").base_url == "http://compoworld.local/v1"                 # COMPOWORLD_* beats OPENAI_BASE_URL
    assert llm_config("m", base_url="http://arg.local/v1").base_url == "http://arg.local/v1"  # arguments beat both

def test_bad_specs_and_configs_name_the_value():
    for spec, word in [("openai:", "openai:"), ("openai", "openai"), ("gpt-4", "gpt-4"), ("scripted:perturb=lots", "lots")]:
        with pytest.raises(ValueError, match=word): make_policy(spec)
    with pytest.raises(ValueError, match="timeout=0"): LLMConfig("m", timeout=0)
    with pytest.raises(ValueError, match="max_retries=-1"): LLMConfig("m", max_retries=-1)
    with pytest.raises(ValueError, match="role='robot'"): api_messages([{"role": "robot", "content": "x"}])
    assert api_messages([{"role": "assistant", "content": "", "tool_calls": [{"id": "a"}], "name": "x"},
                         {"role": "tool", "tool_call_id": "a", "name": "list_services", "content": "{}"}]) == [
        {"role": "assistant", "content": None, "tool_calls": [{"id": "a"}]}, {"role": "tool", "tool_call_id": "a", "content": "{}"}]
