"""`compoworld export` and `compoworld serve-resources` from the command line: the folder round-trips through
datasets.load_dataset; bad values exit 2 with one line naming them."""
import contextlib, io, json, subprocess, sys, tempfile, time
from pathlib import Path

import pytest

from compoworld_nb.author import default_library, generate_tasks
from compoworld_nb.cli import main
from compoworld_nb.policies import ScriptedPolicy
from compoworld_nb.harness import run_episode
from compoworld_nb.trajectory import save_jsonl

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    lib, world = default_library()
    tasks = generate_tasks(3, seed=1, library=lib, world_factory=world, k=3, l_min=4, l_max=6, n_distractors=3,
                           progress=False, max_attempts=60)[0]
    trajs = [run_episode(t, ScriptedPolicy(p), lib, seed=i) for i, t in enumerate(tasks) for p in (0.0, 1.0)]
    d = tmp_path_factory.mktemp("in")
    save_jsonl(d / "tasks.jsonl", tasks); save_jsonl(d / "trajs.jsonl", trajs)
    return d, tasks, trajs


def _cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try: rc = main(argv)
        except SystemExit as e: rc = e.code
    return rc, out.getvalue(), err.getvalue()


def test_export_round_trips_through_load_dataset(files, tmp_path):
    datasets = pytest.importorskip("datasets")
    from compoworld_nb.export import row_task, row_trajectory
    d, tasks, trajs = files
    rc, out, err = _cli(["export", "--tasks", str(d / "tasks.jsonl"), "--trajectories", str(d / "trajs.jsonl"),
                         "--out", str(tmp_path / "ds"), "--json"])
    assert rc == 0, err
    res = json.loads(out.strip().splitlines()[-1])
    assert (res["tasks"], res["trajectories"], res["sft"]) == (3, 6, sum(t.success for t in trajs))
    back_t = datasets.load_dataset(str(tmp_path / "ds"), "tasks", split="train")
    back_r = datasets.load_dataset(str(tmp_path / "ds"), "trajectories", split="train")
    assert [row_task(r).to_jsonl() for r in back_t] == [t.to_jsonl() for t in tasks]
    assert [row_trajectory(r).to_jsonl() for r in back_r] == [t.to_jsonl() for t in trajs]
    sft = datasets.load_dataset(str(tmp_path / "ds"), "sft", split="train")
    assert len(sft) == res["sft"] and all(m["role"] in ("system", "user", "assistant", "tool") for r in sft for m in r["messages"])
    card = (tmp_path / "ds" / "README.md").read_text()
    assert "config_name: sft" in card and "admission rules" in card and "**tasks**: 3" in card


@pytest.mark.parametrize("argv, msg", [
    (["export", "--tasks", "/nonexistent.jsonl", "--out", "{tmp}/x"], "--tasks '/nonexistent.jsonl' does not exist"),
    (["export", "--tasks", "{d}/tasks.jsonl", "--trajectories", "/nope.jsonl", "--out", "{tmp}/x"], "--trajectories '/nope.jsonl' does not exist"),
    (["export", "--tasks", "{d}/tasks.jsonl", "--trajectories", "{d}/tasks.jsonl", "--out", "{tmp}/x"], "--trajectories '"),
    (["serve-resources", "--tasks", "/nonexistent.jsonl"], "--tasks '/nonexistent.jsonl' does not exist"),
    (["serve-resources", "--tasks", "{d}/tasks.jsonl", "--host", "8.8.8.8"], "--host '8.8.8.8' is not a loopback address"),
])
def test_bad_values_exit_2_with_one_line(files, tmp_path, argv, msg):
    argv = [a.format(d=files[0], tmp=tmp_path) for a in argv]
    rc, out, err = _cli(argv)
    assert rc == 2 and err.startswith("compoworld: error:") and msg in err and err.count("\n") == 1, err
    assert not (tmp_path / "x").exists()


def test_serve_resources_subprocess_plays_an_episode(files):
    import httpx2
    from compoworld_nb.compose import to_openai_name
    d, tasks, _ = files
    t = tasks[0]
    errf = tempfile.TemporaryFile(mode="w+")
    p = subprocess.Popen([sys.executable, "-c", "import sys; from compoworld_nb.cli import main; sys.exit(main())", "serve-resources", "--tasks", str(d / "tasks.jsonl"), "--port", "0"],
                         cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errf, text=True)
    try:
        url = None   # wait for the ready line, or the exit that fails the test
        while url is None:
            errf.seek(0); text = errf.read()
            line = next((l for l in text.splitlines() if l.startswith("compoworld: serving 3 tasks as a resources server at ")), None)
            if line: url = line.rsplit(" at ", 1)[1]; break
            assert p.poll() is None, text
            time.sleep(0.1)
        with httpx2.Client(base_url=url, timeout=30) as c:
            assert c.post("/seed_session", json={"task_id": t.id}).status_code == 200
            for call in t.reference:
                assert c.post(f"/tools/{to_openai_name(call['tool'])}", json=call["arguments"]).status_code == 200
            v = c.post("/verify", json={"answer": t.answer}).json()["data"]
        assert v["R"] == 1.0 and v["success"] and [x["passed"] for x in v["criteria"]] == [True] * len(t.v.criteria)
    finally:
        p.terminate()
        try: p.wait(10)
        except subprocess.TimeoutExpired: p.kill(); p.wait(10)
        errf.close()
