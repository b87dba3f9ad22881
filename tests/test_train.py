"""Tests for `compoworld_nb.tinymodel` and `compoworld_nb.train` (TRL 1.14.2, CPU, tiny offline model).

Real optimizer steps: 2 SFT steps, a short SFT warm-up that teaches the tiny model the toy tool call, then 2 GRPO
steps in a toy environment. The whole file runs in well under a minute on 2 CPU cores.
"""
import json

import numpy as np
import pytest
import torch
import trl
from trl.chat_template_utils import (has_generation_markers, is_chat_template_prefix_preserving,
                                     is_chat_template_stop_token_trained, parse_response, supports_tool_calling)

from compoworld_nb.tinymodel import build_tiny_model, generate_turn, load_model, parse_tool_calls
from compoworld_nb.train import TrainConfig, env_tool_schemas, grpo, sft


class ToyEnv:
    """Four meta-tools with fixed text; criterion 0 passes once `call_tool` ran `mail.send`."""

    def reset(self, **row):
        assert "prompt" in row and "task_id" in row
        self.calls = []
        return None

    def list_services(self) -> str:
        """List the services.

        Returns:
            Service names.
        """
        return '["mail"]'

    def list_tools(self, service: str) -> str:
        """List a service's tools.

        Args:
            service: The service name.
        """
        return '["mail.send"]'

    def describe_tool(self, tool: str) -> str:
        """Describe a tool.

        Args:
            tool: The namespaced tool name.
        """
        return '{"to": "string"}'

    def call_tool(self, tool: str, arguments: dict) -> str:
        """Call a tool.

        Args:
            tool: The namespaced tool name.
            arguments: The tool arguments.
        """
        self.calls.append(tool)
        return '{"ok": true}'

    def criteria(self) -> list[int]:
        return [1, 0] if "mail.send" in self.calls else [0, 0]


TOOLS = env_tool_schemas(ToyEnv)
PROMPT = "Send the note by mail."


def trajectory(i: int) -> dict:
    call = {"type": "function", "function": {"name": "call_tool",
                                             "arguments": json.dumps({"tool": "mail.send", "arguments": {}})}}
    return {"messages": [{"role": "user", "content": PROMPT},
                         {"role": "assistant", "content": "", "tool_calls": [call]},
                         {"role": "tool", "name": "call_tool", "content": f'{{"ok": true, "id": "obs{i}"}}'},
                         {"role": "assistant", "content": "Done."}],
            "tools": TOOLS}


DATA = [trajectory(i) for i in range(8)]


def completion_focused(b: np.ndarray, lam: float = 0.01) -> np.ndarray:
    w = lam + 1 - b.mean(0)
    return (b * w).sum(1) / w.sum()


def params(model_dir) -> dict:
    model, _ = load_model(model_dir)
    return {k: v.clone() for k, v in model.state_dict().items()}


def changed(a: dict, b: dict) -> bool:
    return any(not torch.equal(a[k], b[k]) for k in a)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    corpus = [json.dumps(r) for r in DATA]
    return build_tiny_model(corpus, tmp_path_factory.mktemp("tiny") / "model", vocab_size=512, seed=0)


@pytest.fixture(scope="module")
def warm(tiny, tmp_path_factory):
    "The tiny model after a short SFT warm-up, so its GRPO rollouts sometimes make the rewarded call."
    out = tmp_path_factory.mktemp("warm") / "sft"
    sft(tiny, DATA, TrainConfig(sft_batch_size=8, max_steps=60, sft_lr=1e-2), out)
    return out


def test_chat_template_renders_tools_and_trl_accepts_it(tiny):
    _, tok = load_model(tiny)
    text = tok.apply_chat_template(DATA[0]["messages"], tools=TOOLS, tokenize=False)
    assert '<tool_call>{"name": "call_tool", "arguments": {"tool": "mail.send", "arguments": {}}}</tool_call>' in text
    assert '<|im_start|>tool\n<tool_response>{"ok": true, "id": "obs0"}</tool_response><|im_end|>' in text
    assert "call_tool(tool: string, arguments: object) - Call a tool." in text  # compact tool line
    assert len(tok(text)["input_ids"]) < 400
    # dict arguments (what TRL's parser produces in GRPO) render the same as JSON-string arguments
    as_dict = json.loads(json.dumps(DATA[0]["messages"]))
    as_dict[1]["tool_calls"][0]["function"]["arguments"] = {"tool": "mail.send", "arguments": {}}
    assert tok.apply_chat_template(as_dict, tools=TOOLS, tokenize=False) == text
    # TRL's own checks: GRPO tool support, multi-turn prefix preservation, SFT stop token, generation markers
    assert supports_tool_calling(tok)
    assert is_chat_template_prefix_preserving(tok)
    assert is_chat_template_stop_token_trained(tok)
    assert has_generation_markers(tok.chat_template)
    prefix = tok.apply_chat_template(DATA[0]["messages"][:1], tools=TOOLS, add_generation_prompt=True,
                                     tokenize=True, return_dict=False)
    gen = tok('<tool_call>{"name": "call_tool", "arguments": {"tool": "mail.send", "arguments": {}}}</tool_call>'
              '<|im_end|>')["input_ids"]
    parsed = parse_response(tok, gen, prefix=prefix)
    assert parsed["tool_calls"] == [{"type": "function", "function": {
        "name": "call_tool", "arguments": {"tool": "mail.send", "arguments": {}}}}]


def test_parse_tool_calls_never_raises():
    assert parse_tool_calls('hi<tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call>') == (
        "hi", [{"name": "a", "arguments": {"x": 1}}])
    content, calls = parse_tool_calls('<tool_call>{"name": "call_tool", "arguments": {"tool": </tool_call>')
    assert calls == [{"name": "call_tool", "arguments": '{"name": "call_tool", "arguments": {"tool":'}]
    for junk in ["<tool_call>", "<tool_call>[1,2]</tool_call>", "</tool_call>", "\x00{{", "<tool_call>null"]:
        parse_tool_calls(junk)


def test_generate_turn_openai_format(tiny):
    model, tok = load_model(tiny)
    msg = generate_turn(model, tok, DATA[0]["messages"][:1], TOOLS, max_new_tokens=24, temperature=1.0, seed=1)
    assert msg["role"] == "assistant" and isinstance(msg["content"], str)
    for tc in msg["tool_calls"]:
        assert tc["type"] == "function" and isinstance(tc["function"]["arguments"], str)
    assert msg == generate_turn(model, tok, DATA[0]["messages"][:1], TOOLS, max_new_tokens=24, temperature=1.0, seed=1)


def test_sft_two_steps_assistant_only(tiny, tmp_path, monkeypatch):
    seen = {}
    train = trl.SFTTrainer.train

    def spy(self, *a, **k):
        seen["dataset"] = self.train_dataset
        return train(self, *a, **k)

    monkeypatch.setattr(trl.SFTTrainer, "train", spy)
    before = params(tiny)
    res = sft(tiny, DATA, TrainConfig(sft_batch_size=4, max_steps=2, sft_lr=1e-3), tmp_path / "sft")
    assert res["steps"] == 2 and len(res["losses"]) == 2
    assert changed(before, params(tmp_path / "sft"))
    _, tok = load_model(tmp_path / "sft")
    for row in seen["dataset"]:
        ids, labels = row["input_ids"], row["labels"]
        trained = tok.decode([t for t, l in zip(ids, labels) if l != -100])
        assert trained == ('<tool_call>{"name": "call_tool", "arguments": {"tool": "mail.send", "arguments": {}}}'
                           '</tool_call><|im_end|>Done.<|im_end|>')
        masked = tok.decode([t for t, l in zip(ids, labels) if l == -100])
        assert "<tool_response>" in masked and "obs" in masked and PROMPT in masked


def test_grpo_two_steps_with_environment(warm, tmp_path, monkeypatch):
    outs = []
    gen = trl.GRPOTrainer._generate_and_score_completions

    def spy(self, inputs):
        out = gen(self, inputs)
        outs.append((out, self.processing_class))
        return out

    monkeypatch.setattr(trl.GRPOTrainer, "_generate_and_score_completions", spy)
    before, seen = params(warm), []
    cfg = TrainConfig(num_generations=4, grpo_batch_size=4, max_steps=2, max_turns=2, max_completion_length=64,
                      grpo_lr=1e-3)
    tasks = [{"prompt": PROMPT, "task_id": "t0"}]
    res = grpo(warm, tasks, ToyEnv, completion_focused, cfg, tmp_path / "grpo", on_step=seen.append)
    assert res["steps"] == 2 and len(res["history"]) == 2 and seen == res["history"]
    for h in res["history"]:
        assert len(h["rewards"]) == 4 and len(h["pass_rate"]) == 2 and len(h["weight"]) == 2
        assert np.allclose(h["weight"], [0.01 + 1 - p for p in h["pass_rate"]])
        g = h["groups"][0]
        assert g["task_id"] == "t0" and np.array(g["b"]).shape == (4, 2)
        assert np.allclose(g["rewards"], completion_focused(np.array(g["b"], dtype=float)))
        assert h["pass_rate"][1] == 0.0
    assert any(h["reward_std"] > 0 for h in res["history"]), "toy rollouts should differ in reward"
    assert changed(before, params(tmp_path / "grpo"))
    # TRL masks tool-result tokens from the loss: what the mask removes is exactly the tool turn
    n_masked = 0
    for out, tok in outs:
        for ids, cm, tm in zip(out["completion_ids"], out["completion_mask"], out["tool_mask"]):
            ids, tm = ids[cm.bool()].tolist(), tm[cm.bool()].tolist()
            removed = tok.decode([t for t, m in zip(ids, tm) if m == 0])
            if removed:
                n_masked += 1
                assert removed.startswith("\n<|im_start|>tool\n<tool_response>")
                assert "<tool_call>" not in removed
    assert n_masked > 0


def test_unsloth_backend_needs_gpu(tiny, tmp_path):
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(RuntimeError, match="backend='unsloth' needs a CUDA GPU"):
        sft(tiny, DATA, TrainConfig(backend="unsloth"), tmp_path / "u")
    with pytest.raises(RuntimeError, match="backend='unsloth'"):
        grpo(tiny, [{"prompt": PROMPT, "task_id": "t0"}], ToyEnv, completion_focused,
             TrainConfig(backend="unsloth"), tmp_path / "u")


def test_train_config_defaults_and_rules():
    c = TrainConfig()
    assert (c.sft_epochs, c.sft_batch_size, c.sft_lr) == (3.0, 32, 1e-4)
    assert (c.num_generations, c.lam, c.epsilon, c.epsilon_high, c.beta, c.grpo_lr) == (8, 0.01, 0.2, 0.28, 0.0, 1e-5)
    with pytest.raises(ValueError, match="divisible"):
        TrainConfig(num_generations=4, grpo_batch_size=6)
