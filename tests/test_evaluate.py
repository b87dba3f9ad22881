"""`compoworld_nb.evaluate`: tables by domain / K / L, the files an evaluation writes, and the `evaluate` subcommand
(registered on a plain argparse parser here, exactly as the `compoworld` CLI registers it)."""
import argparse, csv, json
import numpy as np
import pytest
from compoworld_nb.author import default_library, generate_tasks
from compoworld_nb.evaluate import (EvaluateError, evaluation_table, load_tasks, register_cli, run_evaluation, task_domains,
                                    trajectory_rows, trajectory_score)
from compoworld_nb.trajectory import Trajectory, load_trajectories, save_jsonl

LIB, WORLD = default_library()


@pytest.fixture(scope="module")
def tasks_file(tmp_path_factory):
    ts, _ = generate_tasks(3, seed=0, library=LIB, world_factory=WORLD, k=(2, 3), l_min=3, l_max=5, n_distractors=2,
                           progress=False, max_attempts=60)
    assert len(ts) == 3
    p = tmp_path_factory.mktemp("ev") / "tasks.jsonl"
    save_jsonl(p, ts)
    return p


def cli():
    ap = argparse.ArgumentParser(prog="compoworld")
    sub = ap.add_subparsers(dest="cmd", required=True)
    return ap, register_cli(sub)


def test_table_values_by_hand():
    rows = [{"task_id": "a", "domains": ["communication", "utilities"], "K": 2, "L": 3, "passed": 1, "score": 1.0},
            {"task_id": "a", "domains": ["communication", "utilities"], "K": 2, "L": 3, "passed": 0, "score": 0.5},
            {"task_id": "b", "domains": ["communication"], "K": 3, "L": 5, "passed": 0, "score": 0.25}]
    by_dom = {r["value"]: r for r in evaluation_table(rows, "domain")}
    assert by_dom["communication"] == {"by": "domain", "value": "communication", "tasks": 2, "trajectories": 3,
                                       "pass_rate": 1 / 3, "mean_score": 1.75 / 3}
    assert by_dom["utilities"]["pass_rate"] == 0.5 and by_dom["utilities"]["mean_score"] == 0.75
    assert [(r["value"], r["trajectories"]) for r in evaluation_table(rows, "L")] == [(3, 2), (5, 1), ("all", 3)]
    with pytest.raises(ValueError, match="by='X'"): evaluation_table(rows, "X")
    t = Trajectory(task_id="a", policy="p", seed=0, criteria=[1, 0, 1, 1])
    assert trajectory_score(t) == 0.75 and trajectory_score(t, [1, 2, 1, 1]) == pytest.approx(0.6)   # rewards.uniform
    with pytest.raises(ValueError, match="weights must be > 0"): trajectory_score(t, [1, 2, 1, 0])   # as Criterion.weight


def test_domains_follow_the_services_or_the_authored_domain(tasks_file):
    t = load_tasks(tasks_file)[0]
    assert task_domains(t, LIB) == sorted({LIB[s].domain for s in t.services})
    t2 = t.model_copy(update={"meta": {**t.meta, "domain": "finance & payments"}})
    assert task_domains(t2, LIB) == ["finance & payments"]


def test_evaluate_command_writes_tables_plots_and_json(tasks_file, tmp_path, capsys):
    ap, run = cli()
    out = tmp_path / "eval"
    a = ap.parse_args(["evaluate", "--tasks", str(tasks_file), "--policy", "scripted:perturb=0.5", "--n", "4",
                       "--out", str(out), "--seed", "1", "--workers", "2", "--json"])
    assert a.handler is run and a.handler(a) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    s = json.loads(last)
    assert s["trajectories"] == 12 and s["tasks"] == 3 and s["n"] == 4 and s["policy"] == "scripted:perturb=0.5"
    assert sorted(p.name for p in out.iterdir()) == sorted(s["files"])
    trajs = load_trajectories(out / "trajectories.jsonl")
    tasks = {t.id: t for t in load_tasks(tasks_file)}
    assert len(trajs) == 12 and {t.seed for t in trajs} == {1, 2, 3, 4}
    assert s["pass_rate"] == np.mean([t.success for t in trajs])
    assert s["mean_score"] == pytest.approx(np.mean([np.mean(t.criteria) for t in trajs]))
    rows = list(csv.DictReader(open(out / "evaluation.csv")))
    assert {r["by"] for r in rows} == {"domain", "K", "L"}
    ks = {int(r["value"]) for r in rows if r["by"] == "K" and r["value"] != "all"}
    assert ks == {t.meta["K"] for t in tasks.values()}
    doms = {r["value"] for r in rows if r["by"] == "domain"} - {"all"}
    assert doms == {LIB[s].domain for t in tasks.values() for s in t.services}
    for r in rows:
        if r["by"] == "K" and r["value"] != "all":
            tr = [t for t in trajs if tasks[t.task_id].meta["K"] == int(r["value"])]
            assert float(r["pass_rate"]) == pytest.approx(np.mean([t.success for t in tr])) and int(r["trajectories"]) == len(tr)
    assert (out / "evaluation.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_reference_policy_passes_everything(tasks_file, tmp_path):
    s = run_evaluation(tasks_file, "scripted", 2, tmp_path / "e")
    assert s["pass_rate"] == 1.0 and s["mean_score"] == 1.0 and all(v["pass_rate"] == 1.0 for v in s["by_domain"].values())


def test_same_seed_same_results_threads_or_processes(tasks_file, tmp_path):
    a = run_evaluation(tasks_file, "scripted:perturb=0.5", 3, tmp_path / "a", seed=7)
    b = run_evaluation(tasks_file, "scripted:perturb=0.5", 3, tmp_path / "b", seed=7, processes=2)
    strip = lambda s: {k: v for k, v in s.items() if k not in ("out",)}
    assert strip(a) == strip(b)


@pytest.mark.parametrize("args,needle", [
    (["--tasks", "MISSING", "--policy", "scripted", "--n", "2"], "'MISSING' does not exist"),
    (["--tasks", "BADLINE", "--policy", "scripted", "--n", "2"], "line 2"),
    (["--tasks", "EMPTY", "--policy", "scripted", "--n", "2"], "holds no tasks"),
    (["--tasks", "OK", "--policy", "gpt-5", "--n", "2"], "--policy 'gpt-5'"),
    (["--tasks", "OK", "--policy", "scripted:perturb=2", "--n", "2"], "perturb=2"),
    (["--tasks", "OK", "--policy", "scripted", "--n", "0"], "--n 0"),
    (["--tasks", "OK", "--policy", "scripted", "--n", "2", "--workers", "-1"], "--workers -1"),
    (["--tasks", "OK", "--policy", "scripted", "--n", "2", "--max-steps", "0"], "--max-steps 0"),
])
def test_bad_values_exit_2_with_one_line(tasks_file, tmp_path, capsys, args, needle):
    good = tasks_file.read_text().splitlines()
    (tmp_path / "bad.jsonl").write_text(good[0] + "\n" + '{"id": "x"}\n')
    (tmp_path / "empty.jsonl").write_text("\n")
    sub = {"MISSING": "MISSING", "BADLINE": str(tmp_path / "bad.jsonl"), "EMPTY": str(tmp_path / "empty.jsonl"), "OK": str(tasks_file)}
    ap, run = cli()
    out = tmp_path / "out"
    rc = run(ap.parse_args(["evaluate"] + [sub.get(a, a) for a in args] + ["--out", str(out)]))
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("compoworld: error: ") and needle in err[0], err
    assert not out.exists()


def test_out_that_is_a_file_is_refused(tasks_file, tmp_path, capsys):
    f = tmp_path / "taken"; f.write_text("x")
    ap, run = cli()
    assert run(ap.parse_args(["evaluate", "--tasks", str(tasks_file), "--policy", "scripted", "--n", "1", "--out", str(f)])) == 2
    assert "--out" in capsys.readouterr().err and f.read_text() == "x"


def test_non_integer_n_is_an_argparse_error(tasks_file):
    ap, _ = cli()
    with pytest.raises(SystemExit) as e: ap.parse_args(["evaluate", "--tasks", str(tasks_file), "--policy", "scripted", "--n", "abc", "--out", "x"])
    assert e.value.code == 2
    with pytest.raises(EvaluateError, match="--n 0"): run_evaluation(tasks_file, "scripted", 0, "x")


def test_out_never_deletes_what_the_command_did_not_create(tasks_file, tmp_path, capsys):
    "issue 21: `--out v` where v holds the tasks file, an unrelated file and a subfolder: refused before any work; with --overwrite only our outputs are replaced."
    ap, run = cli()
    v = tmp_path / "v"; (v / "sub").mkdir(parents=True)
    tasks = v / "tasks.jsonl"; tasks.write_bytes(tasks_file.read_bytes())
    (v / "notes.txt").write_text("keep me"); (v / "sub" / "x").write_text("keep me too")
    before = sorted(str(p.relative_to(v)) for p in v.rglob("*"))
    args = ["evaluate", "--tasks", str(tasks), "--policy", "scripted", "--n", "1", "--out", str(v)]
    assert run(ap.parse_args(args)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "holds the input" in err[0] and "--overwrite" in err[0]
    assert sorted(str(p.relative_to(v)) for p in v.rglob("*")) == before
    (tmp_path / "w").mkdir(); (tmp_path / "w" / "other").write_text("x")
    assert run(ap.parse_args(args[:-1] + [str(tmp_path / "w")])) == 2 and "is not empty" in capsys.readouterr().err
    assert run(ap.parse_args(args + ["--overwrite", "--json"])) == 0
    s = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (v / "notes.txt").read_text() == "keep me" and (v / "sub" / "x").read_text() == "keep me too"
    assert tasks.read_bytes() == tasks_file.read_bytes()
    assert set(before) | set(s["files"]) == {str(p.relative_to(v)) for p in v.rglob("*")}
    assert not list(v.glob(".compoworld.partial-*"))
