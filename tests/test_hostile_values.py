"""Values that `str()`/`repr()`/`json.loads` cannot handle, sent through the meta-tools and an episode.

Before: an integer of thousands of digits (`str()` raises ValueError past 4300 digits), a list nested 100 000 levels deep
(`repr()` raises RecursionError) or function-call text nested deeper than the JSON decoder recurses made `_step` and
`run_episode` raise instead of answering a 400; a refused call nested a few hundred levels deep was recorded as it came,
so its trajectory could not be saved (pydantic: "Maximum serialization depth exceeded")."""
import json
import pytest
from compoworld_nb.compose import joint_hash
from compoworld_nb.harness import TaskEnvironment, decode_arguments, run_episode
from compoworld_nb.service import check_arguments
from compoworld_nb.trajectory import Trajectory, load_trajectories, save_jsonl
from compoworld_nb.author import default_library
LIB, _ = default_library()   # tests/conftest.py builds the same; "from conftest import" resolves to tests/services/conftest.py in a whole-suite run

BIG = 10 ** 5000


def _deep(n):
    x = []
    for _ in range(n): x = [x]
    return x


DEEP = _deep(100_000)


def _cases(tool):
    return [("call_tool", BIG), ("call_tool", DEEP), (BIG, {}), ("call_tool", {"tool": BIG}), ("list_tools", {"service": DEEP}),
            ("call_tool", {"tool": tool, "arguments": BIG}), ("call_tool", {"tool": tool, "arguments": DEEP}),
            ("call_tool", {"tool": tool, "arguments": {"x": BIG}}), ("call_tool", {"tool": tool, "arguments": {BIG: 1}}),
            ("call_tool", {"tool": tool, "arguments": {"x": _deep(400)}}), ("describe_tool", {"tool": _deep(400)})]


def test_meta_tools_answer_400_for_values_repr_cannot_print_and_the_trajectory_saves(task, tmp_path):
    env = TaskEnvironment(task, LIB)
    tool, h0 = task.reference[0]["tool"], joint_hash(env.js)
    for name, args in _cases(tool):
        o = env._step(name, args)
        assert o["ok"] is False and o["error"]["code"] == 400, o
        assert len(o["error"]["message"]) < 300 and joint_hash(env.js) == h0
    assert "an integer of 16610 bits" in env.steps[7].observation["error"]["message"]
    f = tmp_path / "t.jsonl"
    save_jsonl(f, [Trajectory(task_id=task.id, policy="p", seed=0, steps=env.steps, final_answer=None, criteria=[], rewards={}, messages=[])])
    back = load_trajectories(f)[0]
    assert len(back.steps) == len(_cases(tool))
    assert back.steps[9].call["arguments"] == "{'arguments': {'x': [[[...]]]}, 'tool': %r}" % tool   # the refused call as text


def test_service_arguments_with_a_huge_integer_or_too_deep_json_text_are_400():
    svc = LIB["gmail"]; t = svc.tools["send_email"]
    st = svc.initial_state(0)
    for args in ({"to": BIG}, {BIG: 1}, BIG, "[" * 100_000 + "]" * 100_000):
        s1, o = svc.call(st, "send_email", args)
        assert s1 is st and o["ok"] is False and o["error"]["code"] == 400, o
    assert check_arguments(t, {"to": BIG})[1]["error"]["message"] == "argument 'to': an integer of 16610 bits is outside +/-2**63"


class DeepPolicy:
    "Sends one function call whose argument text nests deeper than the JSON decoder recurses, then answers."
    name = "deep"
    def reset(self, task, seed): self.n = 0
    def act(self, messages):
        self.n += 1
        if self.n > 1: return {"role": "assistant", "content": "done"}
        text = '{"tool": "gmail.send_email", "arguments": ' + "[" * 50_000 + "]" * 50_000 + "}"
        return {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "function": {"name": "call_tool", "arguments": text}},
                                                                     {"id": "c2", "function": {"name": BIG, "arguments": "{}"}}]}


def test_an_episode_survives_function_call_text_nested_too_deep_to_decode(task, tmp_path):
    assert decode_arguments("[" * 100_000 + "]" * 100_000)[1]["error"]["code"] == 400
    tr = run_episode(task, DeepPolicy(), LIB, max_steps=4)
    assert [s.observation["error"]["code"] for s in tr.steps] == [400, 400] and tr.final_answer == "done"
    assert tr.steps[1].observation["error"]["message"].startswith("unknown meta-tool '<integer of 16610 bits>'")


def test_the_resources_server_answers_400_to_a_body_nested_too_deep(task):
    from starlette.testclient import TestClient
    from compoworld_nb.resources import ResourcesServer, resources_app
    with TestClient(resources_app(ResourcesServer([task], LIB)), raise_server_exceptions=False) as tc:
        r = tc.post("/seed_session", content=b"[" * 100_000 + b"]" * 100_000)
        assert r.status_code == 400 and r.json()["error"]["message"] == "/seed_session: the body is not JSON: the JSON is nested too deeply to decode"


# Any JSON value a model emits, in any field of its message, and any Python value a policy returns. Before: a tool call
# whose function name or id was a 5000-digit integer, a role that was one, a key that was not text, made the episode's
# messages unsaveable (save_jsonl: "Exceeds the limit (4300 digits) for integer string conversion"; an id already made
# run_episode raise), a content that was an integer or a list made scoring raise (AttributeError / TypeError), text with a
# lone surrogate could not be written (UnicodeEncodeError). After: the messages are recorded as `core.recordable` keeps
# them (what JSON holds unchanged, the rest as its short_repr text), and every trajectory saves and loads back.
class OnceThenDone:
    name = "once"
    def __init__(self, msg): self.msg = msg
    def reset(self, task, seed): self.n = 0
    def act(self, messages):
        self.n += 1
        return self.msg if self.n == 1 else {"role": "assistant", "content": "done"}

def _call(**kw):
    return {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "function": {"name": "list_services", "arguments": "{}"}, **kw}]}

BIG_TEXT = "<integer of 16610 bits>"
SAID = [  # (what the policy returns, the assistant message recorded, the final answer)
    (_call(function={"name": BIG, "arguments": "{}"}), _call(function={"name": BIG_TEXT, "arguments": "{}"}), "done"),
    (_call(id=BIG), _call(id=BIG_TEXT), "done"),
    (_call(function={"name": "call_tool", "arguments": {"tool": "gmail.send_email", "arguments": {"to": BIG}}}),
     _call(function={"name": "call_tool", "arguments": {"tool": "gmail.send_email", "arguments": {"to": BIG_TEXT}}}), "done"),
    (_call(type=float("nan")), _call(type="nan"), "done"),
    (_call(function={"name": "list_services", "arguments": "{}", 7: BIG}), _call(function={"name": "list_services", "arguments": "{}", "7": BIG_TEXT}), "done"),
    ({"role": BIG, "content": "x"}, {"role": BIG_TEXT, "content": "x"}, "x"),
    ({"role": "assistant", "content": BIG}, {"role": "assistant", "content": BIG_TEXT}, BIG_TEXT),
    ({"role": "assistant", "content": [1, {"a": 2}]}, {"role": "assistant", "content": [1, {"a": 2}]}, '[1,{"a":2}]'),
    ({"role": "assistant", "content": "a\ud800b"}, {"role": "assistant", "content": "a\ufffdb"}, "a\ufffdb"),
    ({"role": "assistant", "content": {1, 2}}, {"role": "assistant", "content": "{1, 2}"}, "{1, 2}"),
]

@pytest.mark.parametrize("said,recorded,answer", SAID)
def test_whatever_a_model_writes_is_recorded_so_the_trajectory_saves(task, tmp_path, said, recorded, answer):
    tr = run_episode(task, OnceThenDone(said), LIB, max_steps=3)
    f = tmp_path / "t.jsonl"
    save_jsonl(f, [tr])
    back = load_trajectories(f)[0]
    assert (back.messages[2], back.final_answer) == (recorded, answer)
    assert back.messages[3]["role"] == "tool" if said.get("tool_calls") else len(back.messages) == 3
