"""Proof-of-learning benchmark: does the tiny offline model learn the task family on CPU?

For each seed: build a tiny Qwen3 model whose tokenizer is trained on the training split only, evaluate it on held-out
tasks (untrained), SFT it on verified scripted trajectories of the training tasks, run GRPO through `TaskEnvironment`
with the completion-focused reward (Eq. 5), and evaluate again. Prints one JSON line with the means over seeds:
`uniform_before_mean`, `uniform_after_mean` (after SFT+GRPO), `success_after_mean`, `valid_call_rate_after_mean`,
plus the goal-criterion pass rates (uniform reward also counts collateral `unchanged` criteria, which an agent that
does nothing passes), the after-SFT figures and per-seed details.

Task family (fixed): services gmail + linear from the shipped library, K=2, walks of L=3, no distractors, authored
with seed 1. Held-out tasks are taken from the tasks after the training split and kept only when none of the values
an agent must discover (the starting code in the instruction, goal-criterion values not written in the instruction,
the expected answer) occurs anywhere in the training instructions or reference calls.

Usage: .venv/bin/python benchmarks/bench_learning.py [--seeds 0,1,2] [--train 1000] [--heldout 8] [--sft-steps 2000]
       [--grpo-steps 4] [--workers 1] [--quick]   (--quick: 1 seed, tiny budgets; checks the script runs, not that it learns)
Runs single-threaded torch (fastest for a model this small on a shared 2-core CPU); `--workers 3` runs the seeds in
forked processes (the same CPU time, less wall time where cores are shared). `cpu_seconds` in the result is the CPU
time of all processes; stdout holds only the result line (trainer logs go to stderr).

What the model has to learn: the family's goal criteria select the written record by a value the instruction gives
(a subject or title such as "Update #37") and check values copied from the instruction or from observations (an
address, a project code, a site). Uniform reward before training is the share of collateral criteria, which an idle
agent passes. A model that has learnt the call format but cannot yet copy digits writes frequent training values
instead and gains nothing; copying emerges late in SFT (measured on seed 0: after 800 steps no held-out code was copied
and the uniform gain was +0.006; after 1200 steps the word part and the first digit of most codes were copied).

Measured (2026-11-30, defaults, `--workers 3` on a shared 2-core machine): uniform 0.4375 before -> 0.688 after
SFT+GRPO (gain +0.251; per seed 0.445 / 0.956 / 0.662: the seed-0 model had not begun copying by step 2000), success
0.313, valid call rate 0.986, goal-criterion pass rate 0.0 -> 0.440; 2023 s of CPU in all (about 11 min per seed, SFT
most of it; CPU time is inflated by sharing the cores), 39 min wall.
"""
from __future__ import annotations

import argparse, contextlib, json, re, sys, time
from pathlib import Path
import tempfile

import numpy as np
import torch


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", default="0,1,2", help="comma-separated model/training seeds")
    p.add_argument("--train", type=int, default=1000, help="training tasks")
    p.add_argument("--heldout", type=int, default=8, help="held-out tasks")
    p.add_argument("--sft-steps", type=int, default=2000)
    p.add_argument("--sft-lr", type=float, default=3e-3)
    p.add_argument("--sft-batch", type=int, default=8)
    p.add_argument("--grpo-steps", type=int, default=4)
    p.add_argument("--grpo-lr", type=float, default=1e-4)
    p.add_argument("--n", type=int, default=4, help="GRPO group size N and evaluation rollouts per held-out task")
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--head-dim", type=int, default=32)
    p.add_argument("--vocab", type=int, default=2048)
    p.add_argument("--obs-chars", type=int, default=300, help="longest observation shown to the model, in characters")
    p.add_argument("--temperature", type=float, default=0.3, help="evaluation sampling temperature")
    p.add_argument("--max-steps", type=int, default=8, help="meta-tool calls per evaluation episode")
    p.add_argument("--workers", type=int, default=1, help="seeds run in this many forked single-threaded processes")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--work", default=None, help="folder for models (default: a temporary folder)")
    a = p.parse_args(argv)
    if a.quick:
        a.seeds, a.train, a.heldout, a.sft_steps, a.grpo_steps, a.n, a.max_steps = "0", 12, 2, 4, 1, 2, 3
    return a


def discovered_values(task) -> set[str]:
    "Values an agent must find out (not read in the instruction): the starting code, goal values, the answer."
    v = {str(c["value"]) for c in task.rubric
         if c["kind"] != "unchanged" and c.get("value") is not None and str(c["value"]) not in task.u}
    v |= set(re.findall(r"'([a-z]+-\d+)'", task.u))
    if task.answer: v.add(task.answer)
    return v


def task_family(n_train: int, n_heldout: int):
    "The fixed family: (library, train tasks, held-out tasks whose discovered values never occur in training)."
    from compoworld_nb.author import default_library, generate_tasks
    lib, world = default_library()
    sub = {k: lib[k] for k in ("gmail", "linear")}
    tasks, _ = generate_tasks(n_train + 4 * n_heldout + 8, 1, sub, world, k=(2, 2), l_min=3, l_max=3,
                              n_distractors=0, progress=False)
    train = tasks[:n_train]
    seen = " ".join(t.u + json.dumps(t.reference) for t in train)
    held = [t for t in tasks[n_train:] if not any(x in seen for x in discovered_values(t))][:n_heldout]
    if len(held) < n_heldout: raise SystemExit(f"only {len(held)} held-out tasks with unseen values; lower --heldout")
    return sub, train, held


def evaluate(model_dir, tasks, library, tools, a, seed: int) -> dict:
    "Rollouts of the model on `tasks` (n each): mean uniform, success, goal-criterion pass rate, valid call rate."
    from compoworld_nb.harness import HFPolicy, run_episode
    from compoworld_nb.tinymodel import load_model
    model, tok = load_model(model_dir)
    trajs = []
    for t in tasks:
        for i in range(a.n):
            pol = HFPolicy(str(model_dir), temperature=a.temperature, max_new_tokens=128, model=model, tokenizer=tok,
                           tools=tools)
            trajs.append(run_episode(t, pol, library, seed * 1000 + i, max_steps=a.max_steps, obs_chars=a.obs_chars))
    by_id = {t.id: t for t in tasks}
    goal = [b for tr in trajs for c, b in zip(by_id[tr.task_id].rubric, tr.criteria) if c["kind"] != "unchanged"]
    calls = [s for tr in trajs for s in tr.steps]
    return {"uniform": float(np.mean([tr.rewards["uniform"] for tr in trajs])),
            "success": float(np.mean([tr.rewards["success"] for tr in trajs])),
            "goal_pass_rate": float(np.mean(goal)) if goal else 0.0,
            "valid_call_rate": float(np.mean([bool(s.observation.get("ok")) for s in calls])) if calls else 0.0,
            "calls_per_episode": len(calls) / len(trajs)}


def run_seed(seed: int, a, library, train, held, work: Path) -> dict:
    from compoworld_nb.harness import ScriptedPolicy, TaskEnvironment, run_episode
    from compoworld_nb.data import sft_rows, grpo_rows
    from compoworld_nb.tinymodel import build_tiny_model
    from compoworld_nb.train import TrainConfig, sft, grpo, env_tool_schemas
    from compoworld_nb import rewards as R
    t0, c0 = time.perf_counter(), time.process_time()
    by_id = {t.id: t for t in train + held}
    tools = env_tool_schemas(lambda: TaskEnvironment(by_id, library, obs_chars=a.obs_chars))
    trajs = [run_episode(t, ScriptedPolicy(), library, seed, obs_chars=a.obs_chars) for t in train]
    rows = sft_rows(trajs, tools=tools)  # verified successes only
    corpus = [{"messages": r["messages"], "tools": tools} for r in rows] + [t.u for t in train]
    base = build_tiny_model(corpus, work / f"s{seed}" / "base", vocab_size=a.vocab, hidden_size=a.hidden, num_layers=a.layers,
                            head_dim=a.head_dim, seed=seed)
    before = evaluate(base, held, library, tools, a, seed)
    cfg = TrainConfig(sft_batch_size=a.sft_batch, sft_lr=a.sft_lr, max_steps=a.sft_steps, max_length=4096, seed=seed,
                      logging_steps=max(1, a.sft_steps // 10), threads=1, lr_scheduler="constant_with_warmup", warmup_steps=20,
                      num_generations=a.n, grpo_batch_size=a.n, grpo_lr=a.grpo_lr, max_turns=a.max_steps,
                      max_completion_length=1536, temperature=1.0)
    s = sft(base, rows, cfg, work / f"s{seed}" / "sft")
    after_sft = evaluate(s["out_dir"], held, library, tools, a, seed)
    import dataclasses
    g = grpo(s["out_dir"], grpo_rows(train), lambda: TaskEnvironment(by_id, library, obs_chars=a.obs_chars),
             lambda b: R.completion_focused(b, lam=cfg.lam),
             dataclasses.replace(cfg, max_steps=a.grpo_steps, logging_steps=1, lr_scheduler="constant", warmup_steps=0),
             work / f"s{seed}" / "grpo")
    after = evaluate(g["out_dir"], held, library, tools, a, seed)
    return {"seed": seed, "before": before, "after_sft": after_sft, "after": after, "sft_rows": len(rows),
            "sft_final_loss": (s["losses"] or [None])[-1], "sft_seconds": round(s["seconds"], 1),
            "grpo_reward_by_step": [h["reward_mean"] for h in g["history"]],
            "grpo_reward_std_by_step": [h["reward_std"] for h in g["history"]], "grpo_seconds": round(g["seconds"], 1),
            "seconds": round(time.perf_counter() - t0, 1), "cpu_seconds": round(time.process_time() - c0, 1)}


_FAMILY: tuple = ()  # (args, library, train, held, work), shared with forked workers


def _seed_job(seed: int) -> dict:
    "One seed in a forked worker process (single-threaded torch); prints its result to stderr as soon as it is done."
    torch.set_num_threads(1)
    a, library, train, held, work = _FAMILY
    with contextlib.redirect_stdout(sys.stderr):  # trainer log lines; stdout keeps only the result line
        r = run_seed(seed, a, library, train, held, work)
    print(json.dumps({"seed_done": r}, sort_keys=True), file=sys.stderr, flush=True)
    return r


def main(argv=None) -> dict:
    a = parse_args(argv)
    torch.set_num_threads(1)
    seeds = [int(x) for x in a.seeds.split(",")]
    t0, c0 = time.perf_counter(), time.process_time()
    library, train, held = task_family(a.train, a.heldout)
    work = Path(a.work) if a.work else Path(tempfile.mkdtemp(prefix="bench_learning_"))
    global _FAMILY
    _FAMILY = (a, library, train, held, work)
    if a.workers > 1:  # seeds in forked single-threaded processes: same CPU time, less waiting on a shared machine
        import multiprocessing as mp
        with mp.get_context("fork").Pool(min(a.workers, len(seeds))) as pool: per = pool.map(_seed_job, seeds, chunksize=1)
    else: per = [_seed_job(s) for s in seeds]
    mean = lambda stage, k: float(np.mean([p[stage][k] for p in per]))
    out = {"uniform_before_mean": mean("before", "uniform"), "uniform_after_mean": mean("after", "uniform"),
           "success_after_mean": mean("after", "success"), "valid_call_rate_after_mean": mean("after", "valid_call_rate"),
           "uniform_gain_mean": mean("after", "uniform") - mean("before", "uniform"),
           "goal_pass_before_mean": mean("before", "goal_pass_rate"), "goal_pass_after_mean": mean("after", "goal_pass_rate"),
           "uniform_after_sft_mean": mean("after_sft", "uniform"), "goal_pass_after_sft_mean": mean("after_sft", "goal_pass_rate"),
           "valid_call_rate_after_sft_mean": mean("after_sft", "valid_call_rate"),
           "valid_call_rate_before_mean": mean("before", "valid_call_rate"),
           "seeds": seeds, "train_tasks": len(train), "heldout_tasks": len(held),
           "settings": {k: getattr(a, k) for k in ("sft_steps", "sft_lr", "sft_batch", "grpo_steps", "grpo_lr", "n", "hidden",
                                                   "layers", "head_dim", "vocab", "obs_chars", "temperature", "max_steps",
                                                   "train", "quick")},
           "per_seed": per, "wall_seconds": round(time.perf_counter() - t0, 1),
           "cpu_seconds": round(time.process_time() - c0 + (sum(p["cpu_seconds"] for p in per) if a.workers > 1 else 0), 1),
           "workers": a.workers}  # CPU time of all processes (wall time includes waiting for a shared core)
    print(json.dumps(out, sort_keys=True))
    return out


if __name__ == "__main__":
    main()
