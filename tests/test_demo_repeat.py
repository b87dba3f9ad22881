"The held-out evaluation's repeat guard: a repeated identical call ends the episode, unexecuted, and is counted."
import json
from compoworld_nb.author import default_library, generate_tasks
from compoworld_nb.cli import REPEAT_STOP, StopOnRepeat, score_group, summarize
from compoworld_nb.harness import run_episode

class _Script:
    "Replays fixed assistant turns, then answers."
    name, thread_safe = "script", True
    def __init__(self, turns): self.turns = turns
    def reset(self, task, seed): self.i = 0
    def act(self, messages):
        self.i += 1
        if self.i > len(self.turns): return {"role": "assistant", "content": "Done."}
        name, args = self.turns[self.i - 1]
        return {"role": "assistant", "content": "", "tool_calls": [{"id": f"c{self.i}", "type": "function",
                "function": {"name": name, "arguments": args}}]}

def _task():
    lib, world = default_library()
    return generate_tasks(1, 0, lib, world, k=(2, 2), l_min=2, l_max=4)[0][0], lib

def test_repeat_with_the_same_arguments_written_differently_stops_unexecuted():
    t, lib = _task()
    # the same list_tools call, once as a JSON string and once as a dict with other spacing: one call, repeated
    turns = [("list_services", "{}"), ("list_tools", '{"service": "gmail"}'), ("list_tools", {"service": "gmail"}),
             ("list_tools", {"service": "crm"})]
    tr = run_episode(t, StopOnRepeat(_Script(turns)), lib, max_steps=10)
    assert [s.call["name"] for s in tr.steps] == ["list_services", "list_tools"]
    assert tr.final_answer == REPEAT_STOP and not tr.truncated
    score_group([tr], 0.5, 1e-3, t.v.weights())
    assert summarize([tr])["repeat_stops"] == 1

def test_different_calls_pass_through_unchanged():
    t, lib = _task()
    turns = [("list_services", "{}"), ("list_tools", {"service": "gmail"}), ("list_tools", {"service": "crm"})]
    tr = run_episode(t, StopOnRepeat(_Script(turns)), lib, max_steps=10)
    assert [s.call["arguments"] for s in tr.steps][1:] == [{"service": "gmail"}, {"service": "crm"}]
    assert tr.final_answer == "Done."
    score_group([tr], 0.5, 1e-3, t.v.weights())
    assert summarize([tr])["repeat_stops"] == 0
