"""A stop noted by `core.request_stop` (a signal whose KeyboardInterrupt a finalizer swallowed) ends every long loop at its
next item: verification, the fidelity replay, grading, the LLM author and the SFT reference walk, as it does authoring,
rollouts, publish and training."""
import signal
import pytest
from compoworld_nb.core import request_stop, clear_stop, interrupted_line
from compoworld_nb.author import default_library, generate_tasks

LIB, WORLD = default_library()


@pytest.fixture
def stopped():
    clear_stop(); request_stop(signal.SIGTERM)
    yield
    clear_stop()


class _Counting:
    "A service stand-in that counts its calls."
    name, calls = "stub", 0
    def call(self, s, tool, args):
        self.calls += 1
        return s, {"ok": True, "data": None}


def test_verification_stops_before_the_next_input(stopped):
    from compoworld_nb.verify import run_tool, verify_service
    with pytest.raises(KeyboardInterrupt, match="signal 15"): run_tool(LIB["gmail"], "search_emails", [{"query": "x"}])
    with pytest.raises(KeyboardInterrupt): verify_service(LIB["gmail"], inputs=2, use_cache=False, mark=False)


def test_the_fidelity_replay_stops_before_the_next_task(stopped):
    from compoworld_nb.fidelity import replay
    svc = _Counting()
    with pytest.raises(KeyboardInterrupt): replay(svc, {}, {"t1": [{"name": "a", "arguments": {}}]}, ["t1"])
    assert svc.calls == 0


def test_grading_stops_before_the_next_test(stopped):
    from compoworld_nb.grading import grade_tests
    with pytest.raises(KeyboardInterrupt): grade_tests("def test_x():\n    assert 1\n", "test_x.py", "kv", None, {})


def test_the_llm_author_stops_before_asking_the_model(stopped):
    from compoworld_nb.llm_author import LLMAuthor, ScriptedModel
    from compoworld_nb.walk import DependencyGraph
    script = ScriptedModel(["done"])
    a = LLMAuthor(LIB, client=script.client(), model="scripted", max_revisions=0)
    with pytest.raises(KeyboardInterrupt):
        a.author(seed=7, graph=DependencyGraph(["slack", "gmail"], ["slack", "gmail", "slack"], ["maps"]), world_seed=3)
    assert script.requests == []


def test_the_sft_reference_walk_stops_before_the_next_task(monkeypatch):
    from compoworld_nb import sft_data
    tasks, _ = generate_tasks(2, 0, LIB, WORLD, k=(2, 2), l_min=3, l_max=4, n_distractors=1)
    walked = []
    real = sft_data.revealing_reference
    monkeypatch.setattr(sft_data, "revealing_reference", lambda t, *a, **k: walked.append(t.id) or real(t, *a, **k))
    clear_stop(); request_stop(signal.SIGINT)
    try:
        with pytest.raises(KeyboardInterrupt, match="signal 2"): sft_data.sft_trajectories(tasks, LIB)
    finally: clear_stop()
    assert walked == []                     # no reference walked (before: every task's, then the first episode stopped)


def test_the_exit_status_is_128_plus_the_signal():
    assert [interrupted_line(s)[1] for s in (signal.SIGTERM, signal.SIGINT, None)] == [128 + signal.SIGTERM, 128 + signal.SIGINT, 130]
