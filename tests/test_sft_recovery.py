"Recovery turns: a wrong call the policy is not trained on (weight 0 in the chat template), then trained turns that read the real value."
import json
from compoworld_nb.author import default_library, generate_tasks
from compoworld_nb.sft_data import (recovering_reference, revealing_reference, sft_trajectories, unseen_values, untrained_steps,
                                    discovery_plan, guessed)
from compoworld_nb.tinymodel import build_tokenizer, CHAT_TEMPLATE
from compoworld_nb.policies import _tc

TOOLS = [{"type": "function", "function": {"name": "call_tool", "description": "Call a tool.", "parameters": {
    "type": "object", "properties": {"tool": {"type": "string"}, "arguments": {"type": "object"}}, "required": ["tool"]}}}]

def _conv(weight=None):
    wrong = {"role": "assistant", "content": "", "tool_calls": [_tc(1, "call_tool", {"tool": "mail.read", "arguments": {"id": "m9"}})]}
    if weight is not None: wrong["weight"] = weight
    return [{"role": "user", "content": "Read the mail about x."}, wrong,
            {"role": "tool", "content": '{"error":{"code":404},"ok":false}'},
            {"role": "assistant", "content": "", "tool_calls": [_tc(2, "call_tool", {"tool": "mail.search", "arguments": {"q": "x"}})]},
            {"role": "tool", "content": '{"data":["m1"],"ok":true}'}, {"role": "assistant", "content": "Done."}]

def test_weight_zero_leaves_the_mask_and_nothing_else():
    tok = build_tokenizer(["Read the mail about x.", "Done.", '{"error":{"code":404},"ok":false}'] * 3, vocab_size=300)
    enc = lambda ms: tok.apply_chat_template(ms, tools=TOOLS, tokenize=True, return_dict=True, return_assistant_tokens_mask=True)
    full, w0, wnone, w1 = enc(_conv()), enc(_conv(0)), enc(_conv(None)), enc(_conv(1))
    assert w0["input_ids"] == full["input_ids"] == w1["input_ids"]
    wrong_call = tok('<tool_call>{"name": "call_tool", "arguments": {"tool": "mail.read", "arguments": {"id": "m9"}}}</tool_call><|im_end|>')["input_ids"]
    assert sum(full["assistant_masks"]) - sum(w0["assistant_masks"]) == len(wrong_call)
    assert (sum(full["assistant_masks"]), sum(w0["assistant_masks"]), len(wrong_call)) == (58, 31, 27)
    trained = tok.decode([t for t, m in zip(w0["input_ids"], w0["assistant_masks"]) if m])
    assert trained == '<tool_call>{"name": "call_tool", "arguments": {"tool": "mail.search", "arguments": {"q": "x"}}}</tool_call><|im_end|>Done.<|im_end|>'
    assert wnone["assistant_masks"] == full["assistant_masks"] == w1["assistant_masks"]

def test_untrained_calls_are_not_checked_for_shown_values():
    assert unseen_values(_conv(0)) == []
    assert unseen_values(_conv()) == [{"turn": 1, "tool": "mail.read", "value": "m9"}]

def test_recovering_reference_on_a_demo_task():
    lib, world = default_library()
    tasks, _ = generate_tasks(15, 0, lib, world, k=(2, 2), l_min=3, l_max=4, n_distractors=2)
    refs = [(t, revealing_reference(t, lib)) for t in tasks]
    t, ref = next((t, r) for t, r in refs if len(recovering_reference(t, lib, r)) > len(r))      # the first task with an id to guess (its mailbox read)
    rr = recovering_reference(t, lib, ref)
    bad = [i for i, c in enumerate(rr) if c.get("untrained")]
    assert [c for c in rr if not c.get("untrained")] == ref and len(bad) == 1
    assert (rr[bad[0]], ref[bad[0]]["tool"]) == ({"tool": "gmail.read_email", "arguments": {"messageId": "msg_p2"}, "untrained": True},
                                                 "gmail.search_emails")
    assert sorted(untrained_steps(rr)) == [2, 3] and [discovery_plan(rr)[i][0] for i in (2, 3)] == ["describe_tool", "call_tool"]
    kept, why = sft_trajectories([t], lib, recovery=True)
    assert (len(kept), why) == (2, {"not_success": 0, "unseen_value": 0})
    tr = kept[1]
    weights = [m.get("weight") for m in tr.messages if m["role"] == "assistant"]
    assert weights[:5] == [None, None, 0, 0, None] and weights.count(0) == 2 and tr.success
    err = json.loads(tr.messages[9]["content"])
    assert (err["ok"], err["error"]["code"]) == (False, 404)

def test_guessed_moves_every_digit():
    assert [guessed("msg_p3"), guessed("t_0109", 2), guessed("x@y.com")] == ["msg_p4", "t_2321", None]
