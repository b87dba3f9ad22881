"""What GRPO's completion budget costs in memory and time on this CPU, and whether its rollout groups give a gradient.

For each setting `LENGTH:gc` (TRL's max_completion_length in tokens, tool results included; gradient checkpointing
`on` or `off`) it runs the demo's GRPO (`cli.demo_train_config(..., stage='grpo')`: the pretrained recipe with that
length and checkpointing) for `--steps` optimizer steps on a demo's SFT model and training tasks (`--run`: a
`compoworld demo --model smollm2-135m` output folder, or its staging folder once SFT is done), each setting in a child
process of its own, one after another, and prints one JSON line per setting:

- `peak_rss_gib`: the child's peak resident memory (GiB), polled every 0.2 s; a child above `--max-rss-gib` is killed
  (`"killed": "above N GiB"`) so that the machine's OOM killer never picks another process;
- `wall_s`: the child's wall seconds (model loading included); `grpo_s`, `grpo_cpu_s`: GRPO's own wall and CPU seconds;
- `reward_by_step`, `groups`, `zero_advantage_groups` (groups whose N rewards were all equal: advantage 0 for each,
  no gradient, Eq. 6), `tool_calls_by_step` (TRL's tool calls per rollout) and `completion_mean_length_by_step`.

Usage: .venv/bin/python benchmarks/bench_grpo_memory.py --run runs/demo --settings 256:off,1024:on,3072:on --steps 1
"""
from __future__ import annotations
import argparse, json, os, subprocess, sys, tempfile, time
from pathlib import Path


def child(spec: dict) -> dict:
    "One setting, in this process: the demo's GRPO on `spec['run']`'s SFT model and training tasks."
    import resource
    from compoworld_nb.cli import PRETRAINED_RECIPE, demo_train_config, demo_step_cap, grpo_group_counts
    from compoworld_nb.author import default_library
    from compoworld_nb.verify import mark_quarantined
    from compoworld_nb.task import load_tasks
    from compoworld_nb.harness import TaskEnvironment
    from compoworld_nb.data import grpo_rows, to_dataset
    from compoworld_nb.core import load_settings
    from compoworld_nb.train import grpo
    from compoworld_nb import rewards as R
    run = Path(spec["run"])
    library, _ = default_library(); mark_quarantined(library)
    tasks = load_tasks(run / "tasks.jsonl", library)
    by_id = {t.id: t for t in tasks}
    demo = [t for t in tasks if t.meta.get("split") in ("train", "heldout")]
    train = [t for t in demo if t.meta["split"] == "train"]
    max_turns = demo_step_cap(demo, library, PRETRAINED_RECIPE["recovery"])
    st = load_settings("demo")
    rc = {**PRETRAINED_RECIPE, "max_completion_length": spec["length"], "grpo_gradient_checkpointing": spec["gc"],
          "grpo_steps": spec["steps"]}
    cfg = demo_train_config(st, rc, True, spec["seed"], max_turns, stage="grpo")
    t0, c0 = time.perf_counter(), time.process_time()
    with tempfile.TemporaryDirectory() as out:
        res = grpo(run / "model" / "sft", to_dataset(grpo_rows(train)), lambda: TaskEnvironment(by_id, library),
                   lambda b: R.completion_focused(b, lam=st["rewards"]["lam"]), cfg, Path(out) / "grpo")
    h = res["history"]
    return {"max_completion_length": spec["length"], "gradient_checkpointing": spec["gc"], "steps": res["steps"],
            "grpo_s": round(time.perf_counter() - t0, 1), "grpo_cpu_s": round(time.process_time() - c0, 1),
            "reward_by_step": [round(x["reward_mean"], 4) for x in h], **grpo_group_counts(h),
            "completion_mean_length_by_step": [x["trl"].get("completions/mean_length") for x in h],
            "self_maxrss_gib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)}


def measure(spec: dict, max_rss_gib: float) -> dict:
    "Run one setting in a child process; poll its resident memory, kill it above `max_rss_gib`."
    import psutil
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, __file__, "--child", json.dumps(spec)], stdout=subprocess.PIPE, text=True)
    proc, peak, killed = psutil.Process(p.pid), 0, None
    while p.poll() is None:
        try: peak = max(peak, proc.memory_info().rss)
        except psutil.Error: pass
        if peak > max_rss_gib * 2**30 and killed is None:
            p.kill(); killed = f"above {max_rss_gib} GiB"
        time.sleep(0.2)
    out = p.stdout.read().strip().splitlines()
    row = {"setting": f"{spec['length']}:{'on' if spec['gc'] else 'off'}", "peak_rss_gib": round(peak / 2**30, 2),
           "wall_s": round(time.perf_counter() - t0, 1), "exit": p.returncode}
    if killed: row["killed"] = killed
    if p.returncode == 0 and out: row.update(json.loads(out[-1]))
    return row


def parse_settings(text: str) -> list[tuple[int, bool]]:
    "'256:off,3072:on' -> [(256, False), (3072, True)]; SystemExit naming the bad item."
    out = []
    for item in text.split(","):
        n, _, gc = item.strip().partition(":")
        if not n.isdigit() or int(n) < 1 or gc not in ("on", "off"):
            raise SystemExit(f"--settings: {item!r} is not LENGTH:on or LENGTH:off (LENGTH a positive integer)")
        out.append((int(n), gc == "on"))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", help="a demo's output (or staging) folder holding tasks.jsonl and model/sft")
    ap.add_argument("--settings", default="256:off,1024:on,3072:on")
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-rss-gib", type=float, default=12.0)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        print(json.dumps(child(json.loads(a.child)))); return 0
    settings = parse_settings(a.settings)
    if a.steps < 1: raise SystemExit(f"--steps {a.steps} must be >= 1")
    run = Path(a.run or "")
    if not a.run or not (run / "tasks.jsonl").is_file() or not (run / "model" / "sft" / "config.json").is_file():
        raise SystemExit(f"--run {a.run!r} holds no tasks.jsonl and model/sft/config.json (a finished `compoworld demo` folder)")
    for n, gc in settings:
        print(json.dumps(measure({"run": str(run.absolute()), "length": n, "gc": gc, "steps": a.steps, "seed": a.seed}, a.max_rss_gib)),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
