"""The product against a REAL language model: SmolLM2-135M-Instruct (the `pretrained` model, converted once into the
user's cache) served on loopback by `transformers serve` (`endpoint.serve_model`), talked to through the real `openai`
client. A weak real model sends prose, malformed calls, unknown tools and truncated output; every one must end as a
structured observation, a bounded retry or a named stop, never a crash. Clients that send no `max_tokens` get a
budget (`endpoint.budget_client`), so a rambling model costs seconds, not minutes. Slow (CPU generation): marked `slow`, and CI
runs it (`.ci/run` does not deselect it). The counts of what the model sent are printed (`pytest -s` shows them)."""
import json
from collections import Counter
import pytest
from compoworld_nb.author import default_library, generate_tasks, AuthoringError
from compoworld_nb.core import ToolError, state_hash
from compoworld_nb.endpoint import serve_model, budget_client
from compoworld_nb.policies import OpenAIPolicy
from compoworld_nb.harness import rollout_group
from compoworld_nb.llm import LLMError, llm_config, make_client
from compoworld_nb.llm_author import LLMAuthor
from compoworld_nb.service import Record, Service, State
from compoworld_nb.admission import admission_errors
from compoworld_nb.walk import DependencyGraph
from compoworld_nb.world_model import WorldModel, use_world_model

pytestmark = pytest.mark.slow
LIB, WORLD = default_library()


@pytest.fixture(scope="module")
def ep():
    "One server for the module (the model loads once); stopped at the end."
    with serve_model("smollm2-135m") as e: yield e


def kinds(trajs) -> Counter:
    "What the model sent, by kind: valid calls, each structured error code, and final prose answers."
    c = Counter()
    for t in trajs:
        for s in t.steps:
            c["ok" if s.observation["ok"] else f"error_{s.observation['error']['code']}"] += 1
        c["final_answer" if t.final_answer is not None else "cut_at_step_cap"] += 1
    return c


def test_openai_policy_completes_episodes(ep):
    tasks, _ = generate_tasks(2, 0, LIB, WORLD, k=(2, 2), l_min=3, l_max=4, n_distractors=2, progress=False)
    fac = lambda: OpenAIPolicy(model=ep.model, base_url=ep.base_url, max_tokens=48, timeout=600, max_retries=0)
    trajs = [t for task in tasks for t in rollout_group(task, fac, LIB, n=1, seed=0, max_steps=3)]
    assert len(trajs) == 2
    for t in trajs:
        assert len(t.criteria) == len(next(x for x in tasks if x.id == t.task_id).rubric)
        assert t.final_answer is not None or len(t.steps) == 3          # an answer, or cut at the step cap
        for s in t.steps:                                               # every call got a structured envelope
            assert isinstance(s.observation["ok"], bool)
            if not s.observation["ok"]: assert s.observation["error"]["code"] in (400, 404, 409, 422, 503, 504)
        assert "[policy error" not in json.dumps(t.messages)            # the endpoint answered every turn
    print("openai policy against the real model:", dict(kinds(trajs)))


def test_llm_author_submits_or_stops_with_the_named_reason(ep):
    client = make_client(llm_config(ep.model, ep.base_url, 600, 0), http_client=budget_client(256))
    a = LLMAuthor(LIB, client=client, model=ep.model, max_revisions=1, max_explore_calls=2)
    G = DependencyGraph(["slack", "gmail"], ["slack", "gmail", "slack"], ["maps"])
    try:
        task = a.author(seed=7, graph=G, world_seed=3)
    except AuthoringError as e:
        assert e.rule == "revisions_exhausted", e
        probes = [m for p, m in a.log if p == "probe"]
        assert len(probes) == 2 and all(isinstance(m, list) and m for m in probes)   # each refused design names its broken rules
        print("LLM author stopped:", e.rule, "; rules broken per design:", probes)
    else:
        assert admission_errors(task, LIB) == [] and task.meta["author"] == "llm"
        print("LLM author submitted an admitted task:", task.id)
    assert [p for p, _ in a.log].count("explore") <= 2


class Book(Record):
    id: str
    title: str
    summary: str = ""

class ShelfState(State):
    books: dict[str, Book] = {}

def shelf() -> Service:
    svc = Service("shelf", "knowledge & files", ShelfState, "A shelf of books.")
    @svc.fixture
    def _fx(seed: int) -> ShelfState:
        return ShelfState(seed=seed, books={"b1": Book(id="b1", title="Dune")})
    @svc.tool(simulated=True)
    def summarize_book(state: ShelfState, id: str):  # the book to summarise
        "Write a one-line summary of a book into its record."
    return svc


def test_world_model_answers_or_is_refused_with_a_structured_error(ep):
    svc = shelf()
    wm = WorldModel(ep.model, base_url=ep.base_url, retries=1, timeout=600, max_retries=0, api_key="sk-local",
                    http_client=budget_client(192))
    use_world_model([svc], wm)
    s0 = svc.initial_state(); h0 = state_hash(s0)
    s1, o = svc.call(s0, "summarize_book", {"id": "b1"})
    log = wm.log[-1]
    assert log.attempts in (1, 2)                                       # bounded: one answer and at most one re-ask
    if o["ok"]:
        assert log.accepted and isinstance(s1.books["b1"], Book)
    else:
        assert s1 is s0 and state_hash(s1) == h0                        # refused: the state is exactly as it was
        assert o["error"]["code"] == 503 and "attempts" in o["error"]["message"]
    assert state_hash(s0) == h0
    print("world model:", "answered" if o["ok"] else "refused", "after", log.attempts, "attempt(s); rejections:", log.rejections)
