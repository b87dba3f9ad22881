"""Where the demo's SFT tokens go, and what one SFT step costs on this CPU.

`--mode tokens`: the demo's SFT rows (the same tasks, admission and meta-tool schemas as `compoworld demo` with the
pretrained recipe, seed `--seed`), rendered by the model's own chat template; per row the tokens of the system prompt +
tool list, of the user instruction, of the observations (tool turns, also split by meta-tool) and of the assistant turns,
their totals, and the rows and assistant turns a few max_length values cut.

`--mode step`: CPU-seconds and wall seconds per LoRA SFT step (the recipe's rank, batch and max_length) on those rows,
for each precision (`fp32`; `bf16`: `TrainConfig.cpu_autocast_bf16`, bf16 autocast over the fp32 model and fp32 LoRA) and torch thread count given.
Each configuration runs `--steps` optimizer steps after one warm-up step, in this process, one after another.

Usage: .venv/bin/python benchmarks/bench_sft_step.py --mode tokens
       .venv/bin/python benchmarks/bench_sft_step.py --mode step --configs fp32:1,fp32:2,bf16:1,bf16:2 --steps 3
"""
from __future__ import annotations
import argparse, json, sys, time


def demo_rows(seed: int = 0) -> tuple[list[dict], dict]:
    "The demo's SFT rows for the pretrained recipe: `cli.demo_sft_data` on the demo's training tasks, as `compoworld demo` makes them."
    from compoworld_nb.cli import PRETRAINED_RECIPE as rc, demo_sft_data
    from compoworld_nb.author import default_library, generate_tasks
    from compoworld_nb.verify import mark_quarantined
    from compoworld_nb.harness import TaskEnvironment
    from compoworld_nb.train import env_tool_schemas, _sft_rows
    from compoworld_nb.data import sft_rows
    from compoworld_nb.core import canonical_json, load_settings
    library, world = default_library(); mark_quarantined(library)
    k, l_max = tuple(rc["k"]), max(rc["l_max"], rc["k"][1] + 1)
    kw = dict(k=k, l_min=min(load_settings("demo")["walk"]["l_min"], l_max), l_max=l_max, n_distractors=rc["distractors"])
    tasks, _ = generate_tasks(rc["n_tasks"] + rc["n_heldout"], seed, library, world, **kw)
    by_id = {t.id: t for t in tasks}
    kept, _, _ = demo_sft_data(tasks[:rc["n_tasks"]], seed, library, world, kw, rc["min_sft_rows"], rc["recovery"], dict(by_id))
    uniq = {canonical_json(t.messages): t for t in kept}
    tools = env_tool_schemas(lambda: TaskEnvironment(by_id, library))
    return _sft_rows(sft_rows(uniq.values(), tools=tools)), rc


def token_split(tok, row: dict) -> dict:
    """Tokens of one SFT row by part: `system` (system prompt + tool list), `user`, `observations` (and, split by the
    meta-tool that answered, `obs:list_services`, `obs:list_tools`, `obs:describe_tool`, `obs:call_tool`), `assistant` (loss tokens), `total`."""
    msgs, tools = row["messages"], json.loads(row["tools"])
    n = lambda ms: len(tok.apply_chat_template(ms, tools=tools, tokenize=True, return_dict=True)["input_ids"])
    out = {"system": n(msgs[:1]), "user": 0, "observations": 0, "assistant": 0,
           **{f"obs:{m}": 0 for m in ("list_services", "list_tools", "describe_tool", "call_tool")}}
    prev, called = out["system"], {}
    for i in range(1, len(msgs)):
        cur = n(msgs[:i + 1])
        for c in msgs[i].get("tool_calls") or []: called[c.get("id")] = c["function"]["name"]
        part = {"user": "user", "tool": "observations", "assistant": "assistant"}[msgs[i]["role"]]
        out[part] += cur - prev
        if part == "observations":
            key = f"obs:{called.get(msgs[i].get('tool_call_id'), '?')}"
            out[key] = out.get(key, 0) + cur - prev
        prev = cur
    out["total"] = prev
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", choices=["tokens", "step"], default="tokens")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--model", default="smollm2-135m")
    p.add_argument("--configs", default="fp32:1,fp32:2,bf16:1,bf16:2", help="precision:threads, comma-separated")
    p.add_argument("--steps", type=int, default=3, help="timed optimizer steps per configuration (after one warm-up)")
    a = p.parse_args(argv)
    from transformers import AutoTokenizer
    from compoworld_nb.pretrained import resolve_model
    d = resolve_model(a.model)
    tok = AutoTokenizer.from_pretrained(d)
    rows, rc = demo_rows(a.seed)
    if a.mode == "tokens":
        sp = [token_split(tok, r) for r in rows]
        tot = {k: sum(s[k] for s in sp) for k in sp[0]}
        print(f"{len(rows)} SFT rows (seed {a.seed}); tokens per part, summed over rows, and per row (mean / max):")
        print("| part | tokens | share | mean per row | max |\n|---|---|---|---|---|")
        for k in tot:
            print(f"| {k} | {tot[k]} | {tot[k] / tot['total']:.3f} | {tot[k] / len(sp):.0f} | {max(s[k] for s in sp)} |")
        from compoworld_nb.train import turns_cut
        for ml in sorted({2048, 3072, 3584, 4096, rc["max_length"]}):
            print(f"max_length={ml}{' (the recipe)' if ml == rc['max_length'] else ''}: rows longer {sum(s['total'] > ml for s in sp)}, "
                  f"assistant turns past it (not trained) {turns_cut(tok, rows, ml)}")
        print(json.dumps({"rows": len(rows), "totals": tot, "per_row": sp}))
        return 0
    import torch
    from compoworld_nb.train import TrainConfig, sft
    import tempfile, contextlib
    res = {}
    for c in a.configs.split(","):
        prec, th = c.split(":")
        cfg = TrainConfig(lora=True, lora_r=rc["lora_r"], lora_alpha=2 * rc["lora_r"], sft_batch_size=rc["sft_batch"],
                          sft_lr=rc["sft_lr"], max_steps=a.steps + 1, max_length=rc["max_length"], threads=int(th), seed=a.seed,
                          cpu_autocast_bf16=prec == "bf16")
        times = []
        from transformers import TrainerCallback
        class T(TrainerCallback):
            def on_step_begin(self, *x, **k): self.w, self.c = time.perf_counter(), time.process_time()
            def on_step_end(self, *x, **k): times.append((time.perf_counter() - self.w, time.process_time() - self.c))
        with tempfile.TemporaryDirectory() as td:
            r = sft(d, rows, cfg, f"{td}/out", callbacks=[T()])
        t = times[1:]
        res[c] = {"cpu_s_per_step": round(sum(x[1] for x in t) / len(t), 2), "wall_s_per_step": round(sum(x[0] for x in t) / len(t), 2),
                  "losses": [round(x, 3) for x in r["losses"]]}
        print(f"{c}: {res[c]}", file=sys.stderr, flush=True)
    print("| precision:threads | CPU-s / step | wall s / step | losses |\n|---|---|---|---|")
    for c, v in res.items(): print(f"| {c} | {v['cpu_s_per_step']} | {v['wall_s_per_step']} | {v['losses']} |")
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
