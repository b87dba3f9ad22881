"The self-evolving arena: stratified services, failure statistics, weak-service ranking, LLM diagnosis (scripted endpoint), targeted tasks, the round table and the command."
import argparse, csv, json
import pytest
from compoworld_nb.trajectory import Trajectory
from compoworld_nb.llm_author import ScriptedModel
from compoworld_nb.arena import (arena_services, round_seed, round_tasks, criterion_service, criterion_rows, failure_stats,
                                 rank_weak_services, diagnose, parse_diagnosis, llm_diagnose, targeted_tasks, run_arena,
                                 register_cli, rounds_markdown, ROUND_FIELDS, ArenaError, endpoint_configured, DIAGNOSIS_PROMPT)
from compoworld_nb.author import default_library
LIB, _ = default_library()

FAST = dict(k=3, l_min=4, l_max=5, n_distractors=2)

def row(task, seed, svc, kind, passed):
    return {"task_id": task, "seed": seed, "anchor": None, "criterion": "c", "service": svc, "domain": LIB[svc].domain,
            "kind": kind, "passed": passed}

# crm fails 3 of 4 criteria, weather 1 of 2, gmail 1 of 4, slack none
ROWS = [row("t1", 0, "crm", "goal", 0), row("t1", 0, "crm", "collateral", 0), row("t1", 0, "weather", "output", 0),
        row("t1", 0, "gmail", "goal", 1), row("t2", 0, "crm", "goal", 0), row("t2", 0, "crm", "goal", 1),
        row("t2", 0, "weather", "goal", 1), row("t2", 0, "gmail", "goal", 0), row("t2", 0, "gmail", "goal", 1),
        row("t2", 0, "gmail", "collateral", 1), row("t2", 0, "slack", "goal", 1)]

def test_arena_services_one_per_domain():
    a = arena_services(LIB, 1, seed=0)
    authorable_domains = {s.domain for n, s in LIB.items() if n != "time"}
    assert sorted(LIB[s].domain for s in a) == sorted(authorable_domains) and "time" not in a
    assert arena_services(LIB, 2, domains=["communication", "commerce"]) == ["retail", "gmail", "slack"]
    assert arena_services(LIB, 1, seed=0) == a                      # seeded
    with pytest.raises(ValueError, match="per_domain=0"): arena_services(LIB, 0)
    with pytest.raises(ValueError, match=r"\['utilities'\]"): arena_services(LIB, 1, domains=["utilities"])

def test_failure_stats_from_a_constructed_table():
    st = failure_stats(ROWS)
    assert st["by_service"]["crm"] == {"criteria": 4, "failed": 3, "fail_rate": 0.75, "trajectories": 2, "failed_trajectories": 2}
    assert st["by_service"]["gmail"] == {"criteria": 4, "failed": 1, "fail_rate": 0.25, "trajectories": 2, "failed_trajectories": 1}
    assert st["by_kind"]["goal"]["criteria"] == 8 and st["by_kind"]["goal"]["failed"] == 3
    assert st["by_kind"]["collateral"] == {"criteria": 2, "failed": 1, "fail_rate": 0.5, "trajectories": 2, "failed_trajectories": 1}
    assert st["by_domain"]["communication"]["criteria"] == 5 and st["by_domain"]["communication"]["failed"] == 1

def test_weak_service_ranking():
    st = failure_stats(ROWS)
    assert rank_weak_services(st) == ["crm", "weather", "gmail"]           # 0.75, 0.5, 0.25; slack never failed
    assert rank_weak_services(st, top=2) == ["crm", "weather"]
    assert rank_weak_services(st, min_criteria=3) == ["crm", "gmail"]
    d = diagnose(ROWS, LIB, top=2)
    assert d["source"] == "programmatic" and [(w["service"], w["worst_kind"], w["fail_rate"]) for w in d["weak"]] == \
        [("crm", "collateral", 0.75), ("weather", "output", 0.5)]
    assert "visits crm" in d["weak"][0]["guideline"]

def test_criterion_attribution(task):
    for c in task.rubric:
        s = criterion_service(task, c)
        if c.get("service"): assert s == c["service"]
        elif c.get("edge"): assert s == task.walk[c["edge"][1]]
    t = Trajectory(task_id=task.id, policy="p", seed=0, criteria=[0] + [1] * (len(task.rubric) - 1))
    rows = criterion_rows([t], {task.id: task}, LIB)
    assert len(rows) == len(task.rubric) and [r["passed"] for r in rows] == t.criteria
    assert rows[0]["service"] == criterion_service(task, task.rubric[0]) and rows[0]["domain"] == LIB[rows[0]["service"]].domain
    with pytest.raises(ValueError, match="criteria"): criterion_rows([t.model_copy(update={"criteria": [1]})], {task.id: task}, LIB)

def test_targeted_tasks_include_the_weak_services():
    d = diagnose(ROWS, LIB, top=2)
    tt = targeted_tasks(d, 1, seed=0, r=3, **FAST)
    assert [t.meta["arena"]["anchor"] for t in tt] == ["crm", "weather"]
    for t in tt:
        a = t.meta["arena"]
        assert a["anchor"] in t.services and a["round"] == 3 and a["target"] and a["anchor"] in a["guideline"]
    assert targeted_tasks({"weak": []}, 1, 0, 0) == []

def test_fresh_tasks_each_round():
    r0, r1 = (round_tasks(["retail"], 1, seed=2, r=r, **FAST) for r in (0, 1))
    assert round_seed(2, 0) != round_seed(2, 1) and not {t.id for t in r0} & {t.id for t in r1}
    assert all("retail" in t.services for t in r0 + r1)

def test_llm_diagnosis_through_a_scripted_endpoint(task):
    t = Trajectory(task_id=task.id, policy="p", seed=0, criteria=[0] * len(task.rubric))
    svc = criterion_service(task, task.rubric[0])                 # a service the rubric checks
    m = ScriptedModel(['```json\n{"weak_services": [{"service": "nope", "guideline": "x"}, '
                       f'{{"service": "{svc}", "root_cause": "state update missed", "guideline": "write then read back"}}]}}\n```'])
    d = llm_diagnose([t], {task.id: task}, LIB, task.services, client=m.client(), model="scripted", top=2)
    assert d["source"] == "llm" and d["error"] is None and d["rejected"] == ["nope"]
    assert [(w["service"], w["guideline"], w["fail_rate"]) for w in d["weak"]] == [(svc, "write then read back", 1.0)]
    body = m.requests[0]
    assert body["messages"][0]["content"] == DIAGNOSIS_PROMPT
    ev = json.loads(body["messages"][1]["content"])
    assert ev["instances"] == 1 and ev["pass_rate"] == 0.0 and ev["failure_traces"][0]["task_id"] == task.id
    # an unusable answer, then an endpoint error: both fall back to the programmatic diagnosis, with the reason
    bad = llm_diagnose([t], {task.id: task}, LIB, task.services, client=ScriptedModel(["no json here"]).client(), model="s")
    assert bad["source"] == "programmatic" and "no JSON object" in bad["error"] and bad["weak"]
    down = llm_diagnose([t], {task.id: task}, LIB, task.services, client=ScriptedModel([]).client(), model="s")
    assert down["source"] == "programmatic" and down["error"].startswith("LLMError")

def test_parse_diagnosis_and_endpoint():
    weak, rej = parse_diagnosis('{"weak_services": [{"service": "crm"}, {"service": "crm"}, {"service": "gmail"}]}', ["crm", "gmail"], top=1)
    assert [w["service"] for w in weak] == ["crm"] and rej == ["crm"]
    with pytest.raises(ValueError, match="weak_services"): parse_diagnosis('{"x": 1}', ["crm"])
    assert not endpoint_configured({}) and endpoint_configured({"OPENAI_BASE_URL": "http://x/v1", "COMPOWORLD_MODEL_NAME": "m"})

def test_run_arena_two_rounds_with_llm_diagnosis(tmp_path):
    m = ScriptedModel(['{"weak_services": [{"service": "forum", "root_cause": "r", "guideline": "use forum threads"}]}', "sorry"])
    out = tmp_path / "run"
    res = run_arena(out, rounds=2, seed=1, policy="scripted:perturb=0.5", domains=["commerce", "content & social"],
                    tasks_per_service=1, n=2, top=2, targeted_per_service=1, diagnosis="llm", llm_client=m.client(), llm_model="scripted")
    assert res["arena_services"] == ["retail", "forum"] and res["diagnosis"] == "llm"
    with open(out / "rounds.csv", newline="") as f: table = list(csv.DictReader(f))
    assert [r["round"] for r in table] == ["0", "1"] and list(table[0]) == ROUND_FIELDS
    assert table[0]["weak_services"] == "forum" and table[0]["diagnosis"] == "llm" and table[0]["targeted_tasks"] == "1"
    assert table[1]["diagnosis"] == "programmatic"                 # "sorry" is no diagnosis: fallback, reason recorded
    d1 = json.loads((out / "round_1" / "diagnosis.json").read_text())
    assert "no JSON object" in d1["error"]
    for r, tr in enumerate(table):
        assert int(tr["tasks"]) == 2 and int(tr["trajectories"]) == 4 and 0 <= float(tr["pass_rate"]) <= 1
        tasks = [json.loads(l) for l in (out / f"round_{r}" / "tasks.jsonl").read_text().splitlines()]
        assert [t["meta"]["arena"]["anchor"] for t in tasks] == ["retail", "forum"]
        targeted = [json.loads(l) for l in (out / f"round_{r}" / "targeted.jsonl").read_text().splitlines()]
        assert [t["meta"]["arena"]["anchor"] for t in targeted] == tr["weak_services"].split(";")[:len(targeted)]
        assert all(t["meta"]["arena"]["anchor"] in t["services"] for t in targeted)
    assert (out / "arena.png").stat().st_size > 1000 and "| round |" in (out / "rounds.md").read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["run"]        # the staging directory was published, none left
    assert rounds_markdown(res["table"]).count("\n") == 4

def test_cli_bad_values_exit_2(tmp_path, capsys):
    sp = argparse.ArgumentParser(prog="compoworld").add_subparsers()
    h = register_cli(sp)
    p = sp.choices["arena"]
    (tmp_path / "file").write_text("x")
    cases = [(["--rounds", "0"], "--rounds 0"), (["--rounds", "1", "--executor", "spark"], "--executor 'spark'"),
             (["--rounds", "1", "--policy", "greedy"], "--policy 'greedy'"), (["--rounds", "1", "--diagnosis", "oracle"], "--diagnosis 'oracle'"),
             (["--rounds", "1", "--domains", "astrology"], "astrology"), (["--rounds", "1", "--sft-steps", "-1"], "--sft-steps -1")]
    for argv, msg in cases:
        assert h(p.parse_args(argv + ["--out", str(tmp_path / "o")])) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("compoworld: error:") and msg in err[0], (argv, err)
    assert h(p.parse_args(["--rounds", "1", "--out", str(tmp_path / "file")])) == 2
    assert "is not a directory" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    with pytest.raises(ArenaError, match="--n 0"): run_arena(tmp_path / "o", n=0)


def test_a_bad_policy_names_every_accepted_form(tmp_path, capsys):
    sp = argparse.ArgumentParser(prog="compoworld").add_subparsers()
    h = register_cli(sp)
    assert h(sp.choices["arena"].parse_args(["--rounds", "1", "--policy", "greedy", "--out", str(tmp_path / "o")])) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("compoworld: error: --policy 'greedy' is not a policy: expected scripted, "
                                                "scripted:perturb=P, hf:DIR, openai:MODEL or tiny")
    assert not (tmp_path / "o").exists()
