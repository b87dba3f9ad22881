"The compoworld console script: determinism across processes and days, bad values, --json."
import json, os, shutil, subprocess, sys
from pathlib import Path
import pytest

def run(*args, env=None, cwd=None, day=None):
    exe = Path(sys.executable).parent / "compoworld"
    pre = ["faketime", day] if day else []
    return subprocess.run([*pre, str(exe), *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, cwd=cwd, timeout=600)

@pytest.mark.skipif(shutil.which("faketime") is None, reason="needs Debian's faketime (.ci/run installs it)")
def test_tasks_byte_identical_across_processes_and_days(tmp_path):
    a, b, c, d = (tmp_path / f"{x}.jsonl" for x in "abcd")
    r1 = run("tasks", "--out", str(a), "--n", "3", "--seed", "4", "--json")
    assert r1.returncode == 0, r1.stderr
    r2 = run("tasks", "--out", str(b), "--n", "3", "--seed", "4", day="2031-07-04 12:00:00")
    assert r2.returncode == 0, r2.stderr
    assert a.read_bytes() == b.read_bytes()
    assert run("tasks", "--out", str(c), "--n", "3", "--seed", "5").returncode == 0
    assert a.read_bytes() != c.read_bytes()
    s = json.loads(r1.stdout.strip().splitlines()[-1])
    assert s["admitted"] == 3 and s["out"] == str(a) and s["rejected"] == sum(s["rejected_by_rule"].values())

@pytest.mark.parametrize("args,needle", [
    (["demo", "--out", "/proc/forbidden/run"], "--out '/proc/forbidden/run'"),
    (["demo", "--out", "OUT", "--k", "99"], "--k 99"),
    (["demo", "--out", "OUT", "--k", "3", "--l-max", "3"], "--l-max 3"),
    (["demo", "--out", "OUT", "--k", "x"], "--k 'x'"),
    (["tasks", "--out", "OUT", "--k", "2-70"], "--k 70"),
    (["demo", "--out", "OUT", "--seed", "abc"], "'abc'"),
    # issue 21: each of these ended in a traceback
    (["tasks", "--out", "OUT", "--k", "0"], "--k '0'"),
    (["tasks", "--out", "OUT", "--k", "1"], "--k '1'"),
    (["tasks", "--out", "OUT", "--k", "1-3"], "K must be at least 2"),
    (["tasks", "--out", "OUT", "--profile", "nope"], "--profile 'nope'"),
    (["tasks", "--out", ""], "--out '' is empty"),
    (["tasks", "--out", "TMP"], "is a directory"),
    (["demo", "--out", "TMP"], "is not empty"),
])
def test_bad_values_exit_nonzero_with_one_line(tmp_path, args, needle):
    (tmp_path / "keep.txt").write_text("x")
    args = [a.replace("OUT", str(tmp_path / "run")).replace("TMP", str(tmp_path)) for a in args]
    r = run(*args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr
    assert not (tmp_path / "run").exists() and not list(tmp_path.glob(".run.partial-*"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"] and (tmp_path / "keep.txt").read_text() == "x"

def test_services_json():
    r = run("services", "--json")
    s = json.loads(r.stdout.strip().splitlines()[-1])
    import sample_services
    names = list(sample_services.load_library())
    assert s["n_services"] == len(names) >= 16 and [x["name"] for x in s["services"]] == names
    assert {"gmail", "slack", "calendar", "weather", "maps", "linear", "retail", "sqlite"} <= set(names)
    st = json.loads(run("services", "--stats", "--json").stdout.strip().splitlines()[-1])
    assert st["services"] == len(names) and st["domains"] >= 8 and st["deterministic_tools"] >= 150
    assert st["tools"] == st["deterministic_tools"] + st["simulated_tools"]


def test_train_is_dispatched_to_the_training_layer(tmp_path, capsys):
    from compoworld_nb.cli import main
    out = tmp_path / "model"
    assert main(["train", "sft", "--data", str(tmp_path / "none.jsonl"), "--model", "tiny", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"compoworld: error: --data {str(tmp_path / 'none.jsonl')!r} does not exist"] and not out.exists()
