"""Tests for `compoworld_nb.tinymodel` and `compoworld_nb.train` (TRL 1.14.2, CPU, tiny offline model).

Real optimizer steps: 2 SFT steps, a short SFT warm-up that teaches the tiny model the toy tool call, then 2 GRPO
steps in a toy environment. The whole file runs in well under a minute on 2 CPU cores.
"""
import itertools
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
    """Four meta-tools with fixed text; criterion 0 passes once `call_tool` ran `mail.send`; criterion 1 passes in every
    other episode (a check the policy does not control), so every rollout group has rewards that differ."""
    episodes = itertools.count()

    def reset(self, **row):
        assert "prompt" in row and "task_id" in row
        self.calls, self.odd = [], next(ToyEnv.episodes) % 2
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

    def _criteria(self, answer=None) -> list[int]:
        "The b vector (private: TRL shows public methods as tools)."
        return [int("mail.send" in self.calls), self.odd]


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


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    "A model this small runs fastest on one thread of a busy machine; restored after the module."
    from compoworld_nb.train import torch_threads
    with torch_threads(1):
        yield


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    corpus = [json.dumps(r) for r in DATA]
    return build_tiny_model(corpus, tmp_path_factory.mktemp("tiny") / "model", vocab_size=512, hidden_size=64, head_dim=16,
                            seed=0)


@pytest.fixture(scope="module")
def warm(tiny, tmp_path_factory):
    "The tiny model after a short SFT warm-up, so its GRPO rollouts sometimes make the rewarded call."
    out = tmp_path_factory.mktemp("warm") / "sft"
    sft(tiny, DATA, TrainConfig(sft_batch_size=8, max_steps=40, sft_lr=1e-2, threads=1), out)
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
    res = sft(tiny, DATA, TrainConfig(sft_batch_size=4, max_steps=2, sft_lr=1e-3, threads=1), tmp_path / "sft")
    assert (res["steps"], res["max_steps"], res["stopped"], len(res["losses"])) == (2, 2, False, 2)
    assert res["out_dir"] == str(tmp_path / "sft") and sorted(p.name for p in (tmp_path / "sft").iterdir()) == [
        "chat_template.jinja", "config.json", "generation_config.json", "model.safetensors", "tokenizer.json",
        "tokenizer_config.json"]  # a plain HF directory: no TRL work folder, no staging leftovers
    assert not list(tmp_path.glob(".sft.partial-*"))
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
    before, seen, order = params(warm), [], []
    cfg = TrainConfig(num_generations=4, grpo_batch_size=4, max_steps=2, max_turns=2, max_completion_length=64,
                      grpo_lr=1e-3, threads=1)
    tasks = [{"prompt": PROMPT, "task_id": "t0"}]
    from transformers import TrainerCallback

    class Extra(TrainerCallback):
        "Runs after the built-in callbacks: when it sees a step's log, `on_step` has already had that step's entry."
        def on_log(self, args, state, control, logs=None, **kw):
            if "loss" in (logs or {}): order.append((state.global_step, [h["step"] for h in seen]))

    res = grpo(warm, tasks, ToyEnv, completion_focused, cfg, tmp_path / "grpo", on_step=seen.append, callbacks=[Extra()])
    assert (res["steps"], res["max_steps"], res["stopped"]) == (2, 2, False)
    assert len(res["history"]) == 2 and seen == res["history"]
    assert order == [(1, [1]), (2, [1, 2])]
    for h in res["history"]:
        assert len(h["rewards"]) == 4 and len(h["pass_rate"]) == 2 and len(h["weight"]) == 2
        assert np.allclose(h["weight"], [0.01 + 1 - p for p in h["pass_rate"]])
        g = h["groups"][0]
        assert g["task_id"] == "t0" and np.array(g["b"]).shape == (4, 2)
        assert np.allclose(g["rewards"], completion_focused(np.array(g["b"], dtype=float)))
        assert h["pass_rate"][1] == 0.5 and h["reward_std"] > 0  # every other episode passes criterion 1
        assert h["trl"]["reward"] == pytest.approx(h["reward_mean"], abs=1e-6)   # TRL's logged reward is the mean R
        assert h["trl"]["reward_std"] == pytest.approx(np.std(h["rewards"], ddof=1), abs=1e-5)
        assert np.allclose(g["advantages"], (np.array(g["rewards"]) - np.mean(g["rewards"])) / (np.std(g["rewards"]) + 1e-6))
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


# --- tokenizer corpus, model shape, settings, command line ------------------------------------------------------------
import contextlib
import io

from compoworld_nb.core import load_settings
from compoworld_nb.tinymodel import build_tokenizer, render_corpus
from compoworld_nb.cli import TrainArgError, sft_data_rows, train_main


def test_tokenizer_learns_from_rendered_conversations_and_splits_digits(tiny):
    convs = [{"messages": r["messages"], "tools": TOOLS} for r in DATA]
    texts = render_corpus(convs)
    _, tok = load_model(tiny)
    assert texts[0] == tok.apply_chat_template(DATA[0]["messages"], tools=TOOLS, tokenize=False)
    tok = build_tokenizer(convs, vocab_size=400)
    assert [t for t in tok.tokenize("ticket 90417") if t.isdigit()] == ["9", "0", "4", "1", "7"]  # one token per digit
    assert tok.decode(tok("code 90417")["input_ids"]) == "code 90417"
    with pytest.raises(TypeError, match="corpus item 1"):
        render_corpus(["ok", 7])


def test_build_tiny_model_shape_and_bad_values(tmp_path):
    d = build_tiny_model(["hello world"] * 4, tmp_path / "m", vocab_size=300, hidden_size=96, num_layers=3, head_dim=32)
    cfg = json.loads((d / "config.json").read_text())
    assert (cfg["hidden_size"], cfg["num_hidden_layers"], cfg["num_attention_heads"], cfg["num_key_value_heads"],
            cfg["head_dim"]) == (96, 3, 3, 1, 32)
    with pytest.raises(ValueError, match="hidden_size=100 must be a positive multiple of head_dim=16"):
        build_tiny_model(["x"], tmp_path / "bad", hidden_size=100)
    with pytest.raises(ValueError, match="num_layers=0"):
        build_tiny_model(["x"], tmp_path / "bad", num_layers=0)


def test_train_config_from_settings_profile_and_overrides():
    paper = TrainConfig.from_settings(load_settings(), "grpo")
    assert (paper.num_generations, paper.grpo_lr, paper.lam, paper.epsilon, paper.epsilon_high, paper.beta,
            paper.max_steps, paper.sft_epochs, paper.sft_batch_size, paper.sft_lr) == (8, 1e-5, 0.01, 0.2, 0.28, 0.0,
                                                                                     200, 3.0, 32, 1e-4)
    assert TrainConfig.from_settings(load_settings(), "sft").max_steps == -1  # SFT runs its epochs
    demo = load_settings("demo")
    c = TrainConfig.from_settings(demo, "grpo", seed=5)
    assert (c.num_generations, c.grpo_batch_size, c.grpo_lr, c.sft_lr, c.seed) == (
        demo["grpo"]["n"], demo["grpo"]["n"], demo["grpo"]["lr"], demo["sft"]["lr"], 5)
    c = TrainConfig.from_settings({"sft": {"max_steps": "300", "max_length": "4096"}, "grpo": {"n": "4", "temperature": "0.7"}},
                                  "sft")
    assert (c.max_steps, c.max_length, c.num_generations, c.grpo_batch_size, c.temperature) == (300, 4096, 4, 4, 0.7)
    with pytest.raises(ValueError, match=r"unknown TrainConfig field\(s\) \['lr'\]"):
        TrainConfig.from_settings({}, "sft", lr=1.0)
    with pytest.raises(ValueError, match="stage must be 'sft' or 'grpo', got stage='rl'"):
        TrainConfig.from_settings({}, "rl")


def run_cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = train_main(argv)
        except SystemExit as e:
            code = e.code
    return code, out.getvalue(), err.getvalue()


def test_train_cli_bad_values_exit_2_with_one_line(tiny, tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(json.dumps(r) for r in DATA))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"messages": []}\nnot json\n')
    cases = [
        (["sft", "--model", str(tmp_path / "none"), "--data", str(rows), "--out", str(tmp_path / "o")],
         f"--model '{tmp_path / 'none'}' is not a model directory (no config.json); use --model tiny to build one"),
        (["sft", "--model", str(tiny), "--data", str(tmp_path / "nofile.jsonl"), "--out", str(tmp_path / "o")],
         f"--data '{tmp_path / 'nofile.jsonl'}' does not exist"),
        (["sft", "--model", str(tiny), "--data", str(bad), "--out", str(tmp_path / "o")],
         f"--data '{bad}' line 2: not JSON (Expecting value: line 1 column 1 (char 0))"),
        (["sft", "--model", str(tiny), "--data", str(rows), "--out", str(tmp_path / "o"), "--lr", "0"],
         "argument --lr: --lr '0' must be a finite number > 0"),
        (["sft", "--model", str(tiny), "--data", str(rows), "--out", str(tmp_path / "o"), "--max-steps", "0"],
         "argument --max-steps: --max-steps '0' must be -1 (run the epochs) or >= 1"),
        (["sft", "--model", str(tiny), "--data", str(rows), "--out", str(tmp_path / "o"), "--profile", "nope"],
         "--profile 'nope' is not a profile in settings.ini"),
        (["grpo", "--model", str(tiny), "--tasks", str(rows), "--out", str(tmp_path / "o"), "--n", "1"],
         f"--tasks {str(rows)!r} line 1: id: Field required (and 11 more) (7 more bad lines)"),
        (["sft", "--model", "tiny", "--data", str(rows), "--out", str(tmp_path / "o"), "--hidden", "100"],
         "--hidden 100 must be a multiple of 16 (the tiny model's head width)"),
        (["grpo", "--model", str(tiny), "--tasks", str(rows), "--out", str(tmp_path / "o"), "--backend", "tpu"],
         "argument --backend: invalid choice: 'tpu' (choose from 'trl', 'unsloth')"),
    ]
    if not torch.cuda.is_available():
        cases.append((["sft", "--model", str(tiny), "--data", str(rows), "--out", str(tmp_path / "o"), "--backend", "unsloth"],
                      "--backend unsloth needs a CUDA GPU and none is available here; use --backend trl"))
    for argv, message in cases:
        code, out, err = run_cli(argv)
        assert (code, out) == (2, ""), argv
        assert err == f"compoworld: error: {message}\n", argv
    assert not (tmp_path / "o").exists()  # nothing was trained or written


def test_sft_data_rows_keeps_verified_successes_only():
    from compoworld_nb.trajectory import Trajectory
    msgs = DATA[0]["messages"]
    ok = Trajectory(task_id="t1", policy="scripted", seed=0, criteria=[1, 1], messages=msgs).model_dump(mode="json")
    fail = Trajectory(task_id="t2", policy="scripted", seed=0, criteria=[1, 0], messages=msgs).model_dump(mode="json")
    rows = sft_data_rows([ok, fail, {"messages": msgs}], tools=TOOLS)
    assert rows == [{"messages": msgs, "tools": TOOLS}, {"messages": msgs, "tools": TOOLS}]
    with pytest.raises(TrainArgError, match=r"--data line 1 is neither a trajectory nor an SFT row with 'messages' \(keys \['x'\]\)"):
        sft_data_rows([{"x": 1}], tools=TOOLS)


def test_train_cli_sft_and_grpo_print_json_summary(tiny, tmp_path):
    from compoworld_nb.author import default_library, generate_tasks
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(json.dumps(r) for r in DATA))
    code, out, err = run_cli(["sft", "--model", "tiny", "--data", str(rows), "--out", str(tmp_path / "sft"),
                              "--max-steps", "2", "--batch", "4", "--hidden", "32", "--vocab", "300", "--threads", "1",
                              "--json"])
    assert code == 0, err
    s = json.loads(out.strip().splitlines()[-1])
    assert (s["command"], s["steps"], s["rows"], len(s["losses"])) == ("train sft", 2, 8, 2)
    assert s["config"]["sft_batch_size"] == 4 and s["config"]["sft_lr"] == 1e-4  # the paper's lr unless --lr/--profile
    assert (tmp_path / "sft" / "config.json").is_file() and (tmp_path / "sft" / "base" / "config.json").is_file()
    lib, world = default_library()
    tasks, _ = generate_tasks(1, 3, {k: lib[k] for k in ("gmail", "linear")}, world, k=2, l_min=3, l_max=3,
                              n_distractors=0, progress=False)
    (tmp_path / "tasks.jsonl").write_text(tasks[0].to_jsonl() + "\n")
    code, out, err = run_cli(["grpo", "--model", str(tiny), "--tasks", str(tmp_path / "tasks.jsonl"),
                              "--out", str(tmp_path / "grpo"), "--profile", "demo", "--n", "2", "--max-steps", "1",
                              "--max-turns", "1", "--max-completion-length", "32", "--json"])
    assert code == 0, err
    g = json.loads(out.strip().splitlines()[-1])
    assert (g["command"], g["steps"], g["tasks"], len(g["reward_by_step"])) == ("train grpo", 1, 1, 1)
    assert g["config"]["num_generations"] == 2 and g["config"]["grpo_lr"] == load_settings("demo")["grpo"]["lr"]
    assert len(g["pass_rate_last"]) == len(tasks[0].rubric) and len(g["weight_last"]) == len(tasks[0].rubric)
    assert (tmp_path / "grpo" / "config.json").is_file()


def test_sft_stopped_by_a_callback_is_reported_and_saves_nothing(tiny, tmp_path):
    from transformers import TrainerCallback

    class StopAfterOne(TrainerCallback):
        def on_step_end(self, args, state, control, **kw):
            if state.global_step >= 1:
                control.should_training_stop = True

    res = sft(tiny, DATA, TrainConfig(sft_batch_size=4, max_steps=5, sft_lr=1e-3, threads=1), tmp_path / "out",
              callbacks=[StopAfterOne()])
    assert {k: res[k] for k in ("steps", "max_steps", "stopped", "out_dir")} == {
        "steps": 1, "max_steps": 5, "stopped": True, "out_dir": None}
    assert len(res["losses"]) == 1 and not (tmp_path / "out").exists() and list(tmp_path.iterdir()) == []


def test_register_cli_sets_handler_like_the_compoworld_parser(tiny, tmp_path, capsys):
    import argparse
    from compoworld_nb.cli import register_train_cli as register_cli, train_handler

    class OneLine(argparse.ArgumentParser):  # what `compoworld`'s own parser does with a bad value
        def error(self, message):
            self.exit(2, f"compoworld: error: {message}\n")

    p = OneLine(prog="compoworld")
    assert register_cli(p.add_subparsers(dest="cmd", required=True)) is train_handler
    a = p.parse_args(["train", "sft", "--model", str(tiny), "--data", str(tmp_path / "none.jsonl"),
                      "--out", str(tmp_path / "o"), "--json"])
    assert a.handler is train_handler and (a.cmd, a.train_cmd, a.json) == ("train", "sft", True)
    assert a.handler(a) == 2
    assert capsys.readouterr() == ("", f"compoworld: error: --data '{tmp_path / 'none.jsonl'}' does not exist\n")
    with pytest.raises(SystemExit) as e:
        p.parse_args(["train", "grpo", "--model", "m", "--tasks", "t", "--out", "o", "--temperature", "hot"])
    assert e.value.code == 2
    assert capsys.readouterr().err == ("compoworld: error: argument --temperature: --temperature 'hot' is not a float\n")


# --- one loop: the environment TRL sees, the reward GRPO trains with ------------------------------------------------------
from compoworld_nb.harness import META_TOOLS, TaskEnvironment
from compoworld_nb.train import GroupReward, final_answer


def test_env_tool_schemas_are_the_meta_tools():
    assert env_tool_schemas(TaskEnvironment) == META_TOOLS
    assert env_tool_schemas(lambda: TaskEnvironment({}, {})) == META_TOOLS
    from compoworld_nb.data import sft_rows
    from compoworld_nb.trajectory import Trajectory
    t = Trajectory(task_id="t", policy="p", seed=0, criteria=[1], messages=DATA[0]["messages"])
    assert sft_rows([t])[0]["tools"] == META_TOOLS    # SFT rows default to the schemas GRPO shows


def test_environment_factory_used_directly_gets_exactly_the_four_meta_tools(task, tiny, tmp_path):
    "As TRL's docs show: `GRPOTrainer(environment_factory=TaskEnvironment...)` with no wrapper."
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer
    from compoworld_nb.author import default_library
    lib, _ = default_library()
    args = GRPOConfig(output_dir=str(tmp_path), use_cpu=True, per_device_train_batch_size=2, num_generations=2,
                      max_completion_length=16, report_to=[], save_strategy="no")
    ds = Dataset.from_list([{"prompt": [{"role": "user", "content": task.u}], "task_id": task.id}])
    trainer = GRPOTrainer(model=str(tiny), args=args, train_dataset=ds, environment_factory=lambda: TaskEnvironment({task.id: task}, lib))
    assert sorted(m.__name__ for m in trainer.tools) == ["call_tool", "describe_tool", "list_services", "list_tools"]
    assert trainer.reward_func_names == ["TaskEnvironment"]            # the single-episode `get_reward`, as TRL documents
    env = trainer._environment_pool[None][0]
    env.reset(task_id=task.id)
    assert env.get_reward() == pytest.approx(float(np.mean(env._criteria(None))))   # uniform of b on s0


def test_grpo_reward_scores_the_final_answer(task):
    "A task with an `output` criterion reaches success 1.0 under GRPO's reward when the final message answers."
    from compoworld_nb import rewards
    from compoworld_nb.author import default_library
    lib, _ = default_library()
    t = task.model_copy(update={"rubric": task.rubric + [{"id": "c_answer", "kind": "output", "op": "contains", "value": "falcon-417"}]})
    envs = []
    for _ in range(4):
        e = TaskEnvironment({t.id: t}, lib)
        e.reset(task_id=t.id)
        for c in t.reference: e.call_tool(c["tool"], c["arguments"])
        envs.append(e)
    call = {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "list_services", "arguments": {}}}]}
    tool = {"role": "tool", "name": "list_services", "content": "{}"}
    comps = [[call, tool, {"role": "assistant", "content": "Done: the code is falcon-417."}],
             [{"role": "assistant", "content": "falcon-417"}],
             [call, tool, {"role": "assistant", "content": "Done: the code is falcon-41."}],   # not the same token
             [call, tool, call]]                                                              # ran out of turns mid-call
    assert [final_answer(c) for c in comps] == ["Done: the code is falcon-417.", "falcon-417", "Done: the code is falcon-41.", None]
    gr = GroupReward("completion_focused", num_generations=4)
    R = gr(prompts=[None] * 4, completions=comps, environments=envs, task_id=[t.id] * 4)
    b = np.array(gr.pending[0]["b"])
    assert b[:, :-1].all() and b[:, -1].tolist() == [1, 1, 0, 0]
    assert R[:2] == [1.0, 1.0] and max(R[2:]) < 1
    assert rewards.success(b).tolist() == [1.0, 1.0, 0.0, 0.0]


def test_a_registered_variant_is_the_one_grpo_trains_with(warm, tmp_path):
    from compoworld_nb import rewards

    @rewards.register_reward("test_quarter_first", replace=True)
    def quarter_first(b):
        "A variant defined by the caller: a quarter point for criterion 0 only."
        return 0.25 * np.asarray(b)[:, 0]

    cfg = TrainConfig(num_generations=4, grpo_batch_size=4, max_steps=1, max_turns=2, max_completion_length=48,
                      grpo_lr=1e-3, threads=1, reward="test_quarter_first")
    res = grpo(warm, [{"prompt": PROMPT, "task_id": "t0"}], ToyEnv, cfg=cfg, out_dir=tmp_path / "g")
    (h,) = res["history"]
    g = h["groups"][0]
    assert np.allclose(g["rewards"], 0.25 * np.array(g["b"])[:, 0])
    assert h["trl"]["reward"] == pytest.approx(h["reward_mean"], abs=1e-6)
    assert "rewards/test_quarter_first/mean" in h["trl"]
    with pytest.raises(KeyError, match="unknown reward 'nope'"):
        grpo(warm, [{"prompt": PROMPT, "task_id": "t0"}], ToyEnv, "nope", cfg, tmp_path / "x")


def test_sft_under_cpu_bf16_autocast_trains_fp32_weights(tiny, tmp_path, monkeypatch):
    "cpu_autocast_bf16: the training forward runs its linear layers in bf16; the saved weights are fp32 and changed; off, fp32."
    seen = []
    fwd = torch.nn.Linear.forward

    def spy(self, x):
        y = fwd(self, x)
        seen.append(y.dtype)
        return y

    monkeypatch.setattr(torch.nn.Linear, "forward", spy)
    before = params(tiny)
    res = sft(tiny, DATA[:1] * 3, TrainConfig(sft_batch_size=1, max_steps=3, sft_lr=1e-2, threads=1, use_cpu=True,
                                              cpu_autocast_bf16=True), tmp_path / "bf16")
    assert (res["steps"], res["stopped"]) == (3, False) and seen and set(seen) == {torch.bfloat16}
    # the same row three times: its loss falls (a bf16 weight copy cached for the whole run would keep it equal)
    assert res["losses"][2] < res["losses"][1] < res["losses"][0], res["losses"]
    from safetensors import safe_open
    with safe_open(str(tmp_path / "bf16" / "model.safetensors"), "pt") as f:   # the file itself, not a load that casts
        assert {f.get_tensor(k).dtype for k in f.keys()} == {torch.float32}
    assert changed(before, params(tmp_path / "bf16"))
    seen.clear()
    sft(tiny, DATA, TrainConfig(sft_batch_size=4, max_steps=1, sft_lr=1e-3, threads=1, use_cpu=True), tmp_path / "fp32")
    assert seen and set(seen) == {torch.float32}


def test_a_stop_noted_while_training_ends_the_run_and_saves_nothing(tiny, tmp_path):
    "A SIGTERM whose KeyboardInterrupt a finalizer swallowed (only `request_stop` noted it) ends SFT at the next step, as Ctrl-C does (was: trained all 5 steps and saved)."
    import signal
    from transformers import TrainerCallback
    from compoworld_nb.core import request_stop, clear_stop

    class SwallowedSignal(TrainerCallback):
        def on_step_end(self, args, state, control, **kw):
            if state.global_step == 1: request_stop(signal.SIGTERM)

    try:
        with pytest.raises(KeyboardInterrupt):
            sft(tiny, DATA, TrainConfig(sft_batch_size=4, max_steps=5, sft_lr=1e-3, threads=1), tmp_path / "out",
                callbacks=[SwallowedSignal()])
    finally: clear_stop()
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []      # no model, no checkpoint (TRL's empty work folder, as after a Ctrl-C)
