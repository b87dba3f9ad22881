"The main job end to end at a small size: every output is written, and the summary holds what the README promises."
import csv, json, subprocess, sys
from pathlib import Path

def test_small_demo_writes_every_output(tmp_path):
    out = tmp_path / "run"
    exe = Path(sys.executable).parent / "compoworld"
    r = subprocess.run([str(exe), "demo", "--out", str(out), "--seed", "3", "--tasks", "2", "--heldout", "1",
                        "--model", "tiny", "--json"],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    s = json.loads(r.stdout.strip().splitlines()[-1])
    for f in ["tasks.jsonl", "trajectories.jsonl", "rewards.csv", "report.md", "summary.json", "reward_curve.png", "criterion_pass_rates.png"]:
        assert (out / f).is_file() and (out / f).stat().st_size > 0, f
    assert s == json.loads((out / "summary.json").read_text())
    assert s["tasks_admitted"] == 3 and s["train_tasks"] == 2 and s["heldout_tasks"] == 1
    assert set(s["policies"]) == {"scripted", "scripted_perturbed", "tiny_before", "tiny_after_sft", "tiny_after_grpo"}
    assert s["policies"]["scripted"]["success"] == 1.0 and s["policies"]["scripted"]["uniform"] == 1.0
    for p in s["policies"].values():
        assert 0 <= p["success"] <= p["uniform"] <= 1 and 0 <= p["valid_call_rate"] <= 1
    assert s["sft"]["steps"] > 0 and s["grpo"]["steps"] > 0
    tasks = [json.loads(l) for l in (out / "tasks.jsonl").read_text().splitlines()]
    assert [t["meta"]["split"] for t in tasks][:3] == ["train", "train", "heldout"]
    assert {t["meta"]["split"] for t in tasks[3:]} <= {"sft"} and len(tasks) - 3 == s["sft_only_tasks"]
    assert s["sft"]["rows"] >= 1 and sum(s["sft"]["refused"].values()) >= 0
    assert [g["met"] for g in s["goals"]] == [g["value"] >= 0.9 if "0.9" in g["goal"] else g["value"] > 0 for g in s["goals"]]
    assert set(s["cpu_seconds"]) == {k.removesuffix("_s") + "_cpu_s" for k in s["timings_s"]}
    rows = list(csv.DictReader((out / "rewards.csv").open()))
    n = s["group_size"]
    assert len(rows) == 2 * 3 * n + 3 * 1 * n   # scripted + perturbed on all tasks; three tiny evaluations on held-out
    assert len((out / "trajectories.jsonl").read_text().splitlines()) == len(rows)
    assert not list(tmp_path.glob(".run.partial-*"))
