"Revisits of the second kind (../shared/DESIGN.md): a later visit re-reads a record the agent itself wrote on an earlier visit to that service."
import random
import pytest
from compoworld_nb.author import default_library, author_task, plan_walk, count_plans, step_after, step_then, AuthoringError
from compoworld_nb.admission import admission_errors, Admission
from compoworld_nb.facts import Facts

LIB, WORLD = default_library()
SMALL = {n: LIB[n] for n in ("sqlite", "gmail", "slack", "linear")}

def test_planner_pairs_every_log_with_a_later_amend_on_that_service():
    "`amend` (after='log') only follows a `log` on an earlier visit to sqlite, and a `log` (then='amend') is always re-read by one."
    log, amend = (next(s for s in LIB["sqlite"].steps if s.name == n) for n in ("log", "amend"))
    assert step_after(amend) == "log" and step_then(log) == "amend" and step_after(log) is None
    rng, seen = random.Random(0), 0
    for _ in range(300):
        walk, plan = plan_walk(SMALL, ["sqlite", "gmail", "slack"], 6, rng)
        names = [f"{w}.{st.name}" for w, (st, _) in zip(walk, plan)]
        for i, n in enumerate(names):
            if n == "sqlite.amend": assert "sqlite.log" in names[:i]
            if n == "sqlite.log":      # re-read by an amend before any other log
                assert next(m for m in names[i + 1:] if m in ("sqlite.log", "sqlite.amend")) == "sqlite.amend"
        seen += "sqlite.amend" in names
    assert seen > 10
    assert count_plans(SMALL, ["sqlite", "gmail"], 3) > 0

def _own_write_revisit_task():
    "A task whose walk re-reads, on a sqlite revisit, the note the agent logged there earlier, and passes the number on."
    for seed in range(400):
        try: t = author_task(SMALL, seed, k=3, l_min=5, l_max=7, n_distractors=1, world_factory=WORLD)
        except AuthoringError: continue
        steps = t.meta["steps"]
        if "sqlite.amend" in steps[:-1]: return t
    raise AssertionError("no task with a mid-walk sqlite.amend in 400 seeds")

@pytest.fixture(scope="module")
def task():
    return _own_write_revisit_task()

def test_own_write_revisit_is_produced_and_admitted(task):
    t = task
    assert admission_errors(t, LIB) == []
    j = t.meta["steps"].index("sqlite.amend"); i = t.meta["steps"].index("sqlite.log")
    assert i < j and t.walk[i] == t.walk[j] == "sqlite" and j in t.G.revisits()
    a = Admission(t, LIB)
    calls = list(zip(t.meta["visits"], t.reference, a.run.obs))
    insert = [c["arguments"]["query"] for v, c, _ in calls if v == i and c["arguments"]["query"].startswith("INSERT INTO notes")]
    assert len(insert) == 1                                                  # the agent's own write at the earlier visit
    topic = insert[0].split("VALUES ('")[1].split("'")[0]
    reread = [(c, o) for v, c, o in calls if v == j and c["tool"] == "sqlite.read_query"]
    assert len(reread) == 1 and topic in reread[0][0]["arguments"]["query"]   # the revisit re-reads that very row
    number = reread[0][1]["data"][0]["id"]
    # the number exists only because of the agent's write, and no observation shows it before the re-read
    before = Facts(*[o["data"] for v, c, o in calls if v < j])
    assert not before.has(str(number)) and str(number) not in t.u
    assert any(str(number) in str(c["arguments"]) for v, c, _ in calls if v == j + 1)   # and the next visit needs it
    assert any(c["kind"] == "state" and c["service"] == "sqlite" and c["where"].get("values.topic") == topic for c in t.rubric)

def test_must_reject_when_the_own_write_or_the_amend_is_left_out(task):
    t = task
    for drop in ("INSERT INTO notes", "UPDATE notes"):
        k = next(n for n, c in enumerate(t.reference) if c["tool"] == "sqlite.write_query" and c["arguments"]["query"].startswith(drop))
        bad = t.model_copy(update={"reference": t.reference[:k] + t.reference[k + 1:],
                                   "meta": {**t.meta, "visits": t.meta["visits"][:k] + t.meta["visits"][k + 1:]}})
        errs = admission_errors(bad, LIB)
        assert any(e.startswith("verifier_accepts_g:") for e in errs), (drop, errs)   # the demanded change is not made
        assert any(e.startswith("probe_reaches_g:") for e in errs)
