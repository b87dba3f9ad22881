"The LLM author, driven through the real openai client with scripted replies on an httpx2 MockTransport (no network)."
import json
import pytest
from compoworld_nb.llm import LLMError
from compoworld_nb.walk import DependencyGraph
from compoworld_nb.admission import admission_errors
from compoworld_nb.task import _fixture
from compoworld_nb.author import default_library, AuthoringError
from sample_services.demo_task import demo_parts
from compoworld_nb.llm_author import LLMAuthor, ScriptedModel, parse_design, Sandbox, EXPLORE_TOOLS
from compoworld_nb.compose import ComposedEnv
from compoworld_nb.harness import describe_tool_observation

LIB, WORLD = default_library()
G = DependencyGraph(["slack", "gmail"], ["slack", "gmail", "slack"], ["maps"])

def design(message_id: str = "msg_p1", extra_rubric: list | None = None, text: str = "Venue: Tyler, TX") -> dict:
    P = demo_parts(LIB, 3)                         # the demo task (sample_services.demo_task), as the model would design it
    plant, me = P["plant"], P["me"]
    return {"s0_overrides": plant,
            "instruction": "Open the chat channel named 'quartz-552' and read the latest message. Find the email about the code "
                           "posted there, and post the venue it names in the #general channel.",
            "reference": [{"tool": "slack.slack_list_channels", "arguments": {"limit": 100}, "visit": 0},
                          {"tool": "slack.slack_get_channel_history", "arguments": {"channel_id": "C_p2"}, "visit": 0},
                          {"tool": "gmail.search_emails", "arguments": {"query": "falcon-417"}, "visit": 1},
                          {"tool": "gmail.read_email", "arguments": {"messageId": message_id}, "visit": 1},
                          {"tool": "slack.slack_post_message", "arguments": {"channel_id": P["general"], "text": text}, "visit": 2}],
            "answer": None,
            "rubric": [{"id": "c1", "kind": "state", "service": "slack", "collection": "messages", "where": {"channel_id": P["general"], "user": me},
                        "field": "text", "op": "contains", "value": "Tyler, TX", "edge": [1, 2], "covers": [[0, 1]]}] + (extra_rubric or []),
            "changes": [{"visit": 2, "service": "slack", "criteria": ["c1"]}]}

fenced = lambda d: "Here is the task.\n```json\n" + json.dumps(d) + "\n```"

def run(script: ScriptedModel, max_revisions: int = 2, **kw):
    a = LLMAuthor(LIB, client=script.client(), model="scripted", max_revisions=max_revisions, **kw)
    return a, a.author(seed=7, graph=G, world_seed=3)

def test_explore_design_probe_submit_admits_a_task():
    script = ScriptedModel([[("list_services", {}), ("describe_tool", {"tool": "gmail.read_email"})],
                            [("call_tool", {"tool": "gmail.search_emails", "arguments": {"query": "budget"}})],
                            "I know the services now.", fenced(design())])
    a, task = run(script)
    assert admission_errors(task, LIB) == [] and task.meta["author"] == "llm" and task.meta["revisions"] == 0
    assert task.meta["visits"] == [0, 0, 1, 1, 2] and task.s0["seed"] == 3
    kinds = [c["kind"] for c in task.rubric]
    assert kinds[0] == "state" and "unchanged" in kinds                       # collateral criteria derived from wrong writes
    first = script.requests[0]
    assert first["model"] == "scripted" and [t["function"]["name"] for t in first["tools"]] == [t["function"]["name"] for t in EXPLORE_TOOLS]
    assert "slack" in first["messages"][1]["content"] and "'slack', 'gmail', 'slack'" in first["messages"][1]["content"]
    tool_msgs = [m for m in script.requests[1]["messages"] if m["role"] == "tool"]
    assert len(tool_msgs) == 2 and json.loads(tool_msgs[1]["content"]) == {   # describe_tool as an agent reads it (harness), no raw schema
        "ok": True, "data": {"tool": "gmail.read_email", "description": "Open one message: headers, body and labels.",
                             "parameters": ["messageId (string, required): id of the message to open"]}}
    assert "tools" not in script.requests[3]                                    # the design turn offers no tool
    assert [p for p, _ in a.log][:3] == ["explore", "explore", "explore"] and a.log[-1] == ("probe", "admitted")

def test_the_sandbox_describes_a_tool_with_the_harness_describe_tool():
    env = ComposedEnv([LIB["gmail"], LIB["slack"]])
    sb = Sandbox(env, {n: _fixture(LIB[n], 3) for n in ("gmail", "slack")})
    for tool in ("gmail.send_email", "slack.slack_post_message", "gmail.nope", "nodot"):
        assert json.loads(sb.run("describe_tool", {"tool": tool})) == describe_tool_observation(env, tool)
    sent = json.loads(sb.run("describe_tool", {"tool": "gmail.send_email"}))["data"]["parameters"]
    assert sent[:2] == ["to (array of string, required): recipient addresses (at least one)", "subject (string, required): subject line (not empty)"]
    assert [json.loads(sb.run("describe_tool", {"tool": t}))["error"]["code"] for t in ("gmail.nope", "nodot")] == [404, 400]

def test_revision_loop_feeds_back_the_broken_rules():
    script = ScriptedModel(["done", fenced(design("msg_9zz")), fenced(design())])
    a, task = run(script)
    assert task.meta["revisions"] == 1
    feedback = script.requests[2]["messages"][-1]["content"]
    assert "ids_exist: call 3 gmail.read_email messageId='msg_9zz'" in feedback and "probe_calls_succeed" in feedback

def test_the_loop_is_bounded_and_names_the_last_rules():
    made_up = design(text="Venue: Tyler, TX (ref 7731-QX)")
    script = ScriptedModel(["done", fenced(made_up), fenced(made_up)])
    with pytest.raises(AuthoringError) as e: run(script, max_revisions=1)
    assert e.value.rule == "revisions_exhausted" and any(x.startswith("values_derivable") for x in e.value.errors)
    assert len(script.requests) == 3                                            # explore turn + 2 designs, no more

def test_criteria_are_data_never_code():
    smuggled = design(extra_rubric=[{"id": "c9", "kind": "state", "service": "slack", "collection": "messages",
                                     "op": "eq", "value": 1, "code": "__import__('os').system('true')"}])
    script = ScriptedModel(["done", fenced(smuggled), "no json at all"])
    a = LLMAuthor(LIB, client=script.client(), model="scripted", max_revisions=1)
    with pytest.raises(AuthoringError) as e: a.author(seed=7, graph=G, world_seed=3)
    assert a.log[0][1][0].startswith("criteria_schema") and "code" in a.log[0][1][0]
    assert e.value.errors == ["design_json: the reply holds no JSON object"]

def test_bad_overrides_and_explore_budget():
    bad = design(); bad["s0_overrides"]["gmail"]["messages"]["msg_p1"]["nonsense"] = True
    two = [("list_services", {}), ("list_tools", {"service": "gmail"})]
    script = ScriptedModel([two, two, fenced(bad), fenced(design())])
    a, task = run(script, max_explore_calls=3)
    assert [p for p, _ in a.log].count("explore") == 3 and task.meta["revisions"] == 1
    tool_answers = [m for m in script.requests[2]["messages"] if m["role"] == "tool"]
    assert len(tool_answers) == 4 and json.loads(tool_answers[-1]["content"])["error"]["code"] == 422   # the 4th call: budget spent
    assert any("s0_materialises" in m["content"] for m in script.requests[-1]["messages"] if m["role"] == "user")

def test_model_errors_surface_as_llm_errors():
    script = ScriptedModel([])                                                   # the endpoint answers HTTP 500
    with pytest.raises(LLMError) as e: run(script)
    assert e.value.code == 503 and e.value.status == 500

def test_sandbox_and_parser_refuse_bad_input():
    sb = Sandbox(__import__("compoworld_nb.compose", fromlist=["ComposedEnv"]).ComposedEnv([LIB["gmail"]]), {"gmail": _fixture(LIB["gmail"], 3)})
    assert json.loads(sb.run("call_tool", "not an object"))["error"]["code"] == 400
    assert json.loads(sb.run("peek_records", {"service": "gmail", "collection": "nope"}))["error"]["code"] == 404
    before = sb.js["gmail"]
    sb.run("call_tool", {"tool": "gmail.delete_email", "arguments": {"messageId": next(iter(before.messages))}})
    assert sb.js["gmail"] is not before and _fixture(LIB["gmail"], 3) is before      # the sandbox never touches the fixture
    with pytest.raises(ValueError, match="lacks"): parse_design('{"instruction": "x"}')
    with pytest.raises(ValueError, match="not valid JSON"): parse_design("```json\n{nope}\n```")
