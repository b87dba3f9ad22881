"""Proof-of-learning benchmark: does the real pretrained model learn the main task distribution on CPU?

Runs the main job itself (`compoworld_nb.cli.run_demo`, the one pipeline: discovering SFT trajectories admitted only
when every identifier they use was shown, LoRA SFT, GRPO with the completion-focused reward of Eq. 5, held-out
evaluation) for each seed, with the real model (SmolLM2-135M-Instruct, `--model smollm2-135m`) and, for comparison,
the seeded tiny model on the SAME budget (`PRETRAINED_RECIPE`: the same tasks, SFT/GRPO steps, group sizes and greedy
held-out evaluation; the tiny model trains all its weights at its own learning rate). Held-out tasks are those of the
main distribution at the demo budget's size (K=2, L<=4, 2 distractors), never trained on.

Prints a table — model × stage (before / after SFT / after SFT+GRPO): success, uniform, completion-focused, valid-call
rate, each the mean over seeds — and one JSON line. Every finished run is appended to `--out/runs.jsonl` at once, so
an interrupted benchmark still leaves its part of the table (`--report-only` prints the table from that file).

Usage: .venv/bin/python benchmarks/bench_learning.py [--seeds 0,1,2] [--models smollm2-135m,tiny] [--out DIR]
       [--report-only]      Run it in the background: `nice -n 10 .venv/bin/python benchmarks/bench_learning.py &`.
Cost (measured, see the closing lines it prints): one real-model run is about the demo's CPU time (~20 CPU-minutes);
a tiny-model run is a few CPU-minutes.
"""
from __future__ import annotations
import argparse, json, sys, time
from pathlib import Path

STAGES = ("before", "after_sft", "after_grpo")
METRICS = ("success", "uniform", "completion_focused", "valid_call_rate")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", default="0,1,2", help="comma-separated seeds (tasks, data order, adapters)")
    p.add_argument("--models", default="smollm2-135m,tiny", help="comma-separated models (short names, tiny, or HF dirs)")
    p.add_argument("--out", default="runs/bench_learning", help="folder for the runs and runs.jsonl")
    p.add_argument("--report-only", action="store_true", help="print the table of the runs already in --out")
    a = p.parse_args(argv)
    try: a.seeds = [int(s) for s in a.seeds.split(",") if s.strip()]
    except ValueError: p.error(f"--seeds {a.seeds!r} is not a comma-separated list of integers")
    a.models = [m.strip() for m in a.models.split(",") if m.strip()]
    if not a.seeds or not a.models: p.error("--seeds and --models must not be empty")
    return a


def table(runs: list[dict]) -> tuple[str, dict]:
    "The Markdown table of means over seeds, and the same numbers as a dict."
    import numpy as np
    out, lines = {}, ["| model | stage | seeds | success | uniform | completion-focused | valid call rate |", "|---|---|---|---|---|---|---|"]
    for model in dict.fromkeys(r["model"] for r in runs):
        rs = [r for r in runs if r["model"] == model]
        for st in STAGES:
            vals = {m: float(np.mean([r["policies"][f"{r['tag']}_{st}"][m] for r in rs])) for m in METRICS}
            out[f"{model}/{st}"] = {**vals, "seeds": [r["seed"] for r in rs]}
            lines.append(f"| {model} | {st} | {len(rs)} | " + " | ".join(f"{vals[m]:.3f}" for m in METRICS) + " |")
        d = {m: out[f"{model}/after_grpo"][m] - out[f"{model}/before"][m] for m in METRICS}
        lines.append(f"| {model} | difference | {len(rs)} | " + " | ".join(f"{d[m]:+.3f}" for m in METRICS) + " |")
    return "\n".join(lines), out


def main(argv=None) -> int:
    a = parse_args(argv)
    out = Path(a.out); out.mkdir(parents=True, exist_ok=True)
    log = out / "runs.jsonl"
    if not a.report_only:
        from compoworld_nb.cli import run_demo, PRETRAINED_RECIPE
        done = {(r["model"], r["seed"]) for r in map(json.loads, log.read_text().splitlines())} if log.exists() else set()
        for model in a.models:
            for seed in a.seeds:
                if (model, seed) in done: continue
                w, c = time.perf_counter(), time.process_time()
                s = run_demo(out / f"{model.replace('/', '_')}-seed{seed}", seed=seed, model=model, overwrite=True,
                             recipe=dict(PRETRAINED_RECIPE) if model == "tiny" else None)
                s.update(wall_s=round(time.perf_counter() - w, 1), process_cpu_s=round(time.process_time() - c, 1))
                with open(log, "a") as f: f.write(json.dumps(s, sort_keys=True) + "\n")
                print(f"done {model} seed {seed}: {s['wall_s']} s wall, {s['process_cpu_s']} CPU-s", file=sys.stderr)
    runs = [json.loads(l) for l in log.read_text().splitlines()] if log.exists() else []
    if not runs: print("no finished runs yet"); return 1
    md, res = table(runs)
    print(md)
    cpu = {m: sum(r["process_cpu_s"] for r in runs if r["model"] == m) for m in dict.fromkeys(r["model"] for r in runs)}
    print(json.dumps({"bench_learning": res, "cpu_seconds_by_model": cpu,
                      "missing": [f"{m}/seed{s}" for m in a.models for s in a.seeds if not any(r["model"] == m and r["seed"] == s for r in runs)]},
                     sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
