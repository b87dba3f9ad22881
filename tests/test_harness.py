"The four meta-tools, the Arguments contract, episodes and rollout groups over a real authored task."
import json
import numpy as np
import pytest
from compoworld_nb.author import default_library, generate_tasks
from compoworld_nb.compose import joint_hash
from compoworld_nb.harness import TaskEnvironment, run_episode, rollout_group, META_NAMES, decode_arguments, parameter_lines
from compoworld_nb.policies import ScriptedPolicy, make_policy

LIB, WORLD = default_library()


def _write_call(task):
    "The first reference call that changes state, and its namespaced tool."
    env = TaskEnvironment(task, LIB)
    for c in task.reference:
        h = joint_hash(env.js); env._call_tool(c["tool"], c["arguments"])
        if joint_hash(env.js) != h: return c
    raise AssertionError("reference has no write")

def test_meta_tools_list_and_describe(task):
    env = TaskEnvironment(task, LIB)
    names = [s["name"] for s in env._list_services()["data"]]
    assert names == sorted(task.services + task.distractors)  # distractors listed like the others
    svc = task.services[0]
    lines = env._list_tools(svc)["data"]
    assert lines and all(l.startswith(f"{svc}.") and l.endswith(")") for l in lines)
    tool = task.reference[0]["tool"]
    d = env._describe_tool(tool)["data"]
    assert d["tool"] == tool and d["parameters"] == parameter_lines(env.env.get_tool(tool).parameters)
    req = env.env.get_tool(tool).parameters.get("required", [])      # every argument has its line, required ones marked so
    assert [l.split(" (")[0] for l in d["parameters"]] == list(env.env.get_tool(tool).parameters["properties"])
    assert [", required" in l.split(")")[0] for l in d["parameters"]] == [p in req for p in env.env.get_tool(tool).parameters["properties"]]
    assert env._describe_tool("nope.tool")["error"]["code"] == 404
    assert env._list_tools("nope")["error"]["code"] == 404

@pytest.mark.parametrize("mangle,arg", [
    (lambda a: json.dumps(a), "arguments"),                  # arguments as a JSON string
    (lambda a: json.dumps(json.dumps(a)), "arguments"),      # doubly encoded
    (lambda a: {**a, "bogusField": 1}, "bogusField"),        # unknown field
    (lambda a: {k: v for k, v in list(a.items())[1:]}, None),  # a required field missing (named below)
    (lambda a: 42, "arguments"),                             # not an object
])
def test_arguments_contract_gives_400_and_changes_nothing(task, mangle, arg):
    c = _write_call(task)
    env = TaskEnvironment(task, LIB)
    tool = env.env.get_tool(c["tool"])
    args = {k: c["arguments"][k] for k in tool.required} | {k: v for k, v in c["arguments"].items() if k not in tool.required}
    h0 = joint_hash(env.js)
    o = env._step("call_tool", {"tool": c["tool"], "arguments": mangle(args)})
    assert o["ok"] is False and o["error"]["code"] == 400
    assert o["error"]["argument"] == (arg or tool.required[0])
    assert joint_hash(env.js) == h0 and env.steps[-1].state_hash == h0
    o2 = env._step("call_tool", {"tool": c["tool"], "arguments": args})  # the episode goes on
    assert o2["ok"] and joint_hash(env.js) != h0

def test_malformed_meta_calls_never_raise(task):
    env = TaskEnvironment(task, LIB)
    assert env._step("fly", {})["error"]["code"] == 400
    assert env._step("call_tool", {"tool": 3})["error"]["argument"] == "tool"
    assert env._step("list_tools", {})["error"]["argument"] == "service"
    assert env._step("call_tool", {"tool": "gmail", "arguments": {}})["error"]["code"] == 400
    assert decode_arguments("{not json")[1]["error"]["code"] == 400
    assert decode_arguments('""')[0] == ""
    assert set(META_NAMES) == {"list_services", "list_tools", "describe_tool", "call_tool"}

def test_scripted_policy_solves_and_empty_fails(task):
    t = run_episode(task, ScriptedPolicy(), LIB, seed=0)
    assert t.success and t.rewards["uniform"] == 1.0 and t.steps[-1].state_hash == task.g_hash
    class Quiet:
        name = "quiet"
        def reset(self, task, seed): pass
        def act(self, messages): return {"role": "assistant", "content": "nothing to do"}
    e = run_episode(task, Quiet(), LIB)
    assert not e.success and e.steps == []

def test_episode_continues_after_non_json_arguments(task):
    class Sloppy:
        name = "sloppy"
        def reset(self, task, seed): self.n = 0
        def act(self, messages):
            self.n += 1
            if self.n == 1: return {"role": "assistant", "content": "", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "call_tool", "arguments": "{oops"}}]}
            if self.n == 2: return {"role": "assistant", "content": "", "tool_calls": [{"id": "b", "type": "function", "function": {"name": "list_services", "arguments": ""}}]}
            return {"role": "assistant", "content": "done"}
    t = run_episode(task, Sloppy(), LIB)
    assert [s.observation["ok"] for s in t.steps] == [False, True] and t.steps[0].observation["error"]["code"] == 400
    assert t.final_answer == "done"

def test_rollout_group_is_independent_and_reproducible(task):
    g1 = rollout_group(task, lambda: make_policy("scripted:perturb=0.5"), LIB, n=6, seed=3, workers=2)
    g2 = rollout_group(task, lambda: make_policy("scripted:perturb=0.5"), LIB, n=6, seed=3, workers=1)
    def content(g):  # everything but wall-clock latency
        return [t.model_dump(exclude={"steps": {"__all__": {"latency"}}}) for t in g]
    assert content(g1) == content(g2)
    assert len({tuple(t.criteria) for t in g1}) > 1  # perturbations differ by seed
    from compoworld_nb.task import materialize_s0
    assert joint_hash(materialize_s0(task, LIB)) == task.s0_hash
    with pytest.raises(ValueError, match="unknown policy spec"): make_policy("gpt")


def test_task_environment_is_a_plain_trl_environment(task):
    "Public methods: exactly reset, the four meta-tools and get_reward; b is private and scores the final answer."
    import inspect, json
    from compoworld_nb.harness import META_TOOLS, TaskEnvironment
    public = sorted(n for n, _ in inspect.getmembers(TaskEnvironment, inspect.isfunction) if not n.startswith("_"))
    assert public == ["call_tool", "describe_tool", "get_reward", "list_services", "list_tools", "reset"]
    assert [m["function"]["name"] for m in META_TOOLS] == ["call_tool", "describe_tool", "list_services", "list_tools"]
    env = TaskEnvironment(task, LIB)                      # one task: reset needs no id
    assert env.reset() is None
    with pytest.raises(KeyError, match="unknown task_id='nope'"): env.reset(task_id="nope")
    obs = env.list_services()
    assert obs.startswith('{"data":[') and len(obs) <= env.obs_chars   # observations are text, cut to obs_chars
    assert json.loads(env.call_tool("nope.tool", {}))["error"]["code"] == 404
    assert env.get_reward() == pytest.approx(np.mean(env._criteria(None)))
    for c in task.reference: env.call_tool(c["tool"], c["arguments"])
    assert all(env._criteria(task.answer))                # the reference and its answer pass every criterion
    has_output = any(c["kind"] == "output" for c in task.rubric)
    assert (env.get_reward() == 1.0) is (not has_output)  # get_reward has no final answer: an output criterion fails there
    assert env._weights() == [c["weight"] for c in task.rubric]
