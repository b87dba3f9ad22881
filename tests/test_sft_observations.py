"Observations as the policy reads them: summarised within obs_chars, never cut past the names the next call needs."
import json
from compoworld_nb.author import default_library, generate_tasks
from compoworld_nb.core import canonical_json
from compoworld_nb.harness import TaskEnvironment, shown_observation
from compoworld_nb.sft_data import unseen_values
from compoworld_nb.policies import _tc

def test_every_tool_of_a_long_listing_stays_named():
    "A long tool list is paged (the summary kept its first 16 tools): its pages name every tool, in order, each page JSON within 600."
    lib, world = default_library()
    tasks = generate_tasks(4, 0, lib, world, k=(2, 2), l_min=2, l_max=4)[0]
    long = [(t, s["name"]) for t in tasks for s in TaskEnvironment(t, lib)._list_services()["data"]
            if len(canonical_json(TaskEnvironment(t, lib)._list_tools(s["name"]))) > 600]   # the old [:600] cut hid their later tools
    assert len(long) >= 3
    for t, svc in long:
        env = TaskEnvironment(t, lib)
        whole = env._list_tools(svc)["data"]
        first = json.loads(env.list_tools(svc))
        n = int(first["page"].split(" of ")[1].split(":")[0])
        assert n >= 2 and first["page"] == f"1 of {n}: list_tools again with page=2 for more"
        pages = [first] + [json.loads(env.list_tools(svc, page=k)) for k in range(2, n + 1)]
        assert all(len(canonical_json(p)) <= 600 for p in pages)
        assert [s for p in pages for s in p["data"]] == whole           # every signature, whole, in order
        assert json.loads(env.list_tools(svc, page=n + 1))["error"]["argument"] == "page"

def test_a_value_only_in_a_summarised_string_is_unseen():
    obs = {"ok": True, "data": {"body": "x" * 700 + " code harbor-55"}}
    text = shown_observation(obs, 600)
    assert "harbor-55" not in text and len(text) <= 600
    msgs = [{"role": "user", "content": "Use the code in the email."}, {"role": "tool", "content": text},
            {"role": "assistant", "tool_calls": [_tc(1, "call_tool", {"tool": "gmail.send_email", "arguments": {"body": "harbor-55"}})]}]
    assert unseen_values(msgs) == [{"turn": 2, "tool": "gmail.send_email", "value": "harbor-55"}]


def test_a_value_is_seen_by_the_rules_admission_knows_it():
    "A shown number written to other places and an ISO date-time whose parts were shown count as shown; a computed one does not."
    from compoworld_nb.sft_data import _seen, _shown
    ctx = _shown('{"data":{"amount":20900,"lng":-74.28459,"text":"Book it on 2025-03-07 from 10:00 to 10:30."},"ok":true}')
    seen = {w: _seen(w, ctx) for w in ("20900.00", "-74.2846", "2025-03-07T10:00:00", "2025-03-07T10:30:00Z",
                                       "2025-03-07T11:00:00", "2025-03-21T10:00:00", "20901.00")}
    assert seen == {"20900.00": True, "-74.2846": True, "2025-03-07T10:00:00": True, "2025-03-07T10:30:00Z": True,
                    "2025-03-07T11:00:00": False, "2025-03-21T10:00:00": False, "20901.00": False}
    msgs = [{"role": "user", "content": "Book the call."}, {"role": "tool", "content": ctx},
            {"role": "assistant", "tool_calls": [_tc(1, "call_tool", {"tool": "calendar.create-event",
             "arguments": {"start": "2025-03-07T10:00:00", "end": "2025-03-07T11:00:00"}})]}]
    assert unseen_values(msgs) == [{"turn": 2, "tool": "calendar.create-event", "value": "2025-03-07T11:00:00"}]
