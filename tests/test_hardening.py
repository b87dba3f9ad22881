"""Issue 21 (hardening) across layers: a step budget bounds calls (not turns), a policy answering None has no answer,
a model endpoint is used only when configured and an unreachable one is an error, never a score."""
import argparse, json
import pytest
from compoworld_nb.author import default_library, generate_tasks
from compoworld_nb.core import state_hash
from compoworld_nb.harness import run_episode
from compoworld_nb.llm import LLMConfig, llm_config, make_client
from compoworld_nb.trajectory import save_jsonl

LIB, WORLD = default_library()


@pytest.fixture(scope="module")
def task(small_task): return small_task


class Burst:
    "One assistant turn carrying `k` copies of the task's first reference call (a write when the reference starts with one)."
    name, thread_safe = "burst", True
    def __init__(self, k): self.k, self.turns = k, 0
    def reset(self, task, seed): self.call, self.turns = task.reference[0], 0
    def act(self, messages):
        self.turns += 1
        if self.turns > 1: return {"role": "assistant", "content": "done"}
        args = {"tool": self.call["tool"], "arguments": self.call["arguments"]}
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "call_tool", "arguments": json.dumps(args)}} for i in range(self.k)]}


@pytest.mark.parametrize("k,max_steps", [(500, 24), (30, 1), (5, 24)])
def test_max_steps_bounds_calls_in_one_message(task, k, max_steps):
    t = run_episode(task, Burst(k), LIB, max_steps=max_steps)
    assert len(t.steps) == min(k, max_steps)
    tool_msgs = [m for m in t.messages if m["role"] == "tool"]
    assert len(tool_msgs) == k                       # every call id gets an answer ...
    skipped = [json.loads(m["content"]) for m in tool_msgs[max_steps:]]
    assert all(o["ok"] is False and o["error"]["code"] == 409 and f"max_steps={max_steps}" in o["error"]["message"] for o in skipped)


def test_a_policy_returning_none_gives_no_answer_text(task):
    class Silent:
        name, thread_safe = "silent", True
        def reset(self, task, seed): pass
        def act(self, messages): return None
    t = run_episode(task, Silent(), LIB, max_steps=4)
    assert t.final_answer in ("", None) and t.final_answer != "None"


def test_no_endpoint_configured_means_no_client():
    with pytest.raises(ValueError, match="no model endpoint configured"): make_client(llm_config("m", env={}))
    with pytest.raises(ValueError, match="no model endpoint configured"): make_client(LLMConfig("m"))
    assert make_client(LLMConfig("m", "http://127.0.0.1:9/v1")).base_url.host == "127.0.0.1"


def _evaluate(argv):
    from compoworld_nb.evaluate import register_cli
    ap = argparse.ArgumentParser(prog="compoworld"); run = register_cli(ap.add_subparsers(dest="cmd", required=True))
    return run(ap.parse_args(argv))


def test_evaluate_without_an_endpoint_or_with_an_unreachable_one_writes_no_score(task, tmp_path, capsys, monkeypatch):
    tasks = tmp_path / "tasks.jsonl"; save_jsonl(tasks, [task])
    for k in ("OPENAI_BASE_URL", "COMPOWORLD_MODEL_BASE_URL"): monkeypatch.delenv(k, raising=False)
    out = tmp_path / "ev"
    assert _evaluate(["evaluate", "--tasks", str(tasks), "--policy", "openai:m", "--n", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no model endpoint configured" in err[0] and not out.exists()
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"); monkeypatch.setenv("COMPOWORLD_MODEL_MAX_RETRIES", "0")
    assert _evaluate(["evaluate", "--tasks", str(tasks), "--policy", "openai:m", "--n", "1", "--out", str(out)]) == 2
    err = [l for l in capsys.readouterr().err.strip().splitlines() if not l.startswith("evaluating")]   # tqdm lines aside
    assert len(err) == 1 and "the model endpoint failed" in err[0] and "503" in err[0], err
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["tasks.jsonl"]


def _bad_rows(task):
    row = json.loads(task.to_jsonl())
    wrong_hash = {**row, "s0_hash": "0" * len(str(row.get("s0_hash", "")) or "0" * 16)}
    no_rubric = {**row, "rubric": []}
    bad_rubric = {**row, "rubric": [{**row["rubric"][0], "op": "nope"}]}
    nan_weight = {**row, "rubric": [{**row["rubric"][0], "weight": 1e308 * 10}]}
    return {"s0 hash": json.dumps(wrong_hash), "no criteria": json.dumps(no_rubric), "bad op": json.dumps(bad_rubric),
            "inf weight": json.dumps(nan_weight).replace("Infinity", "1e999")}


@pytest.mark.parametrize("content,needle", [
    (b"", "holds no tasks"),
    (b"\n\n", "holds no tasks"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "line 1: not UTF-8 text"),
    (b'{"id": "t1", "u": "trunc', "line 1:"),
    (b"[1, 2, 3]", "line 1:"),
    (b"garbage", "line 1:"),
])
def test_evaluate_refuses_a_bad_task_file_with_one_line(tmp_path, capsys, content, needle):
    f = tmp_path / "tasks.jsonl"; f.write_bytes(content)
    assert _evaluate(["evaluate", "--tasks", str(f), "--policy", "scripted", "--n", "1", "--out", str(tmp_path / "ev")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0] and str(f) in err[0], err
    assert not (tmp_path / "ev").exists()


@pytest.mark.parametrize("kind,needle", [("s0 hash", "s0"), ("no criteria", "no criteria"), ("bad op", "rubric"), ("inf weight", "rubric")])
def test_a_bad_task_names_its_line_and_is_never_dropped(task, tmp_path, capsys, kind, needle):
    f = tmp_path / "tasks.jsonl"
    f.write_text(task.to_jsonl() + "\n" + _bad_rows(task)[kind] + "\n" + task.to_jsonl() + "\n")
    assert _evaluate(["evaluate", "--tasks", str(f), "--policy", "scripted", "--n", "1", "--out", str(tmp_path / "ev")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "line 2:" in err[0] and needle in err[0], err
    assert not (tmp_path / "ev").exists()


@pytest.mark.parametrize("argv,needle", [
    (["--n", "0"], "--n 0"), (["--n", "-3"], "--n -3"), (["--max-steps", "0"], "--max-steps 0"),
    (["--workers", "-1"], "--workers -1"), (["--processes", "-2"], "--processes -2"),
    (["--policy", "nope"], "--policy 'nope'"), (["--policy", "scripted:perturb=2"], "perturb"), (["--policy", "hf:/no/such/dir"], "--policy"),
])
def test_evaluate_bad_options_exit_2_with_one_line(task, tmp_path, capsys, argv, needle):
    f = tmp_path / "tasks.jsonl"; save_jsonl(f, [task])
    base = {"--tasks": str(f), "--policy": "scripted", "--n": "1", "--out": str(tmp_path / "ev")}
    for k, v in zip(argv[::2], argv[1::2]): base[k] = v
    assert _evaluate(["evaluate", *[x for kv in base.items() for x in kv]]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0], err
    assert not (tmp_path / "ev").exists()


@pytest.mark.parametrize("name", ["send_email", "gmail", ".send_email", "gmail.", "", 42])
def test_describe_and_call_give_one_answer_for_a_name_that_is_not_service_dot_tool(task, name):
    "The same fault gets the same observation from both meta-tools (issue 21): a 400 naming the malformed name."
    from compoworld_nb.harness import TaskEnvironment
    env = TaskEnvironment(task, LIB)
    d, c = env._describe_tool(name), env._call_tool(name, {})
    assert d == c and d["ok"] is False and d["error"]["code"] == 400 and d["error"]["argument"] == "tool"
    assert "is not namespaced as 'service.tool'" in d["error"]["message"]


def test_describe_and_call_both_answer_404_for_an_unknown_service_or_tool(task):
    from compoworld_nb.harness import TaskEnvironment
    env = TaskEnvironment(task, LIB)
    for name in ["nosuch.tool", f"{next(iter(env.env.services))}.no_such_tool"]:
        assert env._describe_tool(name)["error"]["code"] == env._call_tool(name, {})["error"]["code"] == 404


@pytest.mark.parametrize("stored,expected,b", [
    ("2025-03-05T16:00:00Z", "2025-03-05T10:00:00-06:00", True),          # the same instant written with timeZone=UTC
    ("2025-03-05T16:00:00+00:00", "2025-03-05T17:00:00+01:00", True),
    ("2025-03-05T10:00:00Z", "2025-03-05T10:00:00-06:00", False),          # same wall-clock text, another instant
    ("2025-03-05T10:00:00", "2025-03-05T10:00:00+00:00", False),           # a naive local time is no instant
    ("2025-03-05", "2025-03-05T00:00:00Z", False),
])
def test_rubric_compares_date_times_as_instants(stored, expected, b):
    "Issue 21: the calendar rubric compared start.dateTime as text, so the same instant in another zone scored 0."
    from compoworld_nb.rubric import apply_op
    assert apply_op("eq", True, stored, expected) is b and apply_op("in", True, stored, [expected]) is b
    assert apply_op("ne", True, stored, expected) is (not b)


@pytest.mark.parametrize("stored,selector,b", [("2025-03-05T10:00:00-06:00", "2025-03-05T16:00:00Z", 1),
                                               ("2025-03-05T10:00:00Z", "2025-03-05T10:00:00-06:00", 0)])
def test_a_where_on_an_instant_selects_the_same_records_in_every_scorer(stored, selector, b):
    "`narrow` (the fast path's pre-filter) selects by typed equality too: an instant in `where` matches its other spellings."
    from compoworld_nb.rubric import Criterion, FinalScorer, Rubric, check, narrow
    from compoworld_nb.service import Record, State
    class Ev(Record):
        start: str
        title: str
    class Cal(State):
        events: dict[str, Ev] = {}
    s0 = {"cal": Cal(events={"e1": Ev(start=stored, title="x")})}
    c = Criterion(id="c", kind="state", service="cal", collection="events", where={"start": selector}, field="title", op="eq", value="x")
    assert check(c, s0, s0, None) == check(c, {"cal": narrow(s0["cal"], c)}, s0, None) == b
    assert FinalScorer(Rubric(criteria=[c]), s0).score(s0) == [b]


def _tool_inputs_bench():
    import importlib.util, pathlib
    spec = importlib.util.spec_from_file_location("tool_inputs", pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "tool_inputs.py")
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    return m


@pytest.mark.parametrize("costs,slow,max_ms", [([0.5, 0.01, 0.01, 0.01], 0, 10.0),   # a one-off cost: the fastest re-run counts
                                               ([0.5, 0.3, 0.2, 0.4], 1, 200.0),      # slow on every run: still slow, at its fastest
                                               ([0.05], 0, 50.0)])                     # under 100 ms: never re-run
def test_tool_inputs_counts_the_fastest_of_the_re_runs_of_a_slow_call(costs, slow, max_ms):
    "benchmarks/tool_inputs.py's slow rule on a scripted clock (no real time): a call over 100 ms is re-timed 3 times."
    bench = _tool_inputs_bench()
    now, left = [0.0], list(costs)
    class S0:
        def model_dump_json(self): return "{}"
    class Svc:
        def initial_state(self, seed): return S0()
        def call(self, s, tool, x):
            now[0] += left.pop(0); return s, {"ok": True}
    row = bench.check_tool(Svc(), "t", [{}], lambda s: "h", clock=lambda: now[0])
    assert left == [] and row["slow"] == slow and row["ok"] == 1 and row["max_ms"] == pytest.approx(max_ms)
