"""A tool's long result is shown in pages (harness.observation_pages, call_tool's `page`): every value is on a page,
pages fit the budget, a later page never runs a write again, a bad page is a 400, and SFT data reads on in pages."""
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from compoworld_nb.core import canonical_json
from compoworld_nb.compose import joint_hash
from compoworld_nb.harness import MIN_PAGE_CHARS, TaskEnvironment, observation_pages, page_marker, run_episode
from compoworld_nb.author import default_library, generate_tasks
from compoworld_nb.sft_data import DiscoveringPolicy, revealing_reference, sft_trajectories, unseen_values, _shown

MORE = "…"
_words = st.text(alphabet="abcxyz019_-.@", min_size=1, max_size=12)
_strings = st.lists(_words, max_size=60).map(" ".join)
_leaf = st.one_of(st.none(), st.booleans(), st.integers(-10**9, 10**9), st.floats(-1e6, 1e6, allow_nan=False), _strings)
_keys = st.text(alphabet="abcdefgh_", min_size=1, max_size=8)
_json = st.recursive(_leaf, lambda kids: st.one_of(st.lists(kids, max_size=8), st.dictionaries(_keys, kids, max_size=6)), max_leaves=60)


def leaves(x):
    "Leaves in canonical document order (dict keys sorted)."
    if isinstance(x, dict): return [l for k in sorted(x) for l in leaves(x[k])]
    if isinstance(x, list): return [l for v in x for l in leaves(v)]
    return [x]


def merged(pages):
    "The leaves of every page's data, in page order, with a string cut across pages ('x…' then '…y') joined again."
    out = []
    for p in pages:
        for l in leaves(json.loads(p)["data"]):
            if isinstance(l, str) and l.startswith(MORE) and out and isinstance(out[-1], str) and out[-1].endswith(MORE):
                out[-1] = out[-1][:-1] + l[1:]
            else: out.append(l)
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_json, obs_chars=st.integers(MIN_PAGE_CHARS, 900))
def test_every_value_is_on_a_page_and_pages_fit(data, obs_chars):
    obs = {"ok": True, "data": data}
    canon = json.loads(canonical_json(obs))        # integral floats written as ints, as every page writes them
    pages = observation_pages(obs, obs_chars)
    if len(canonical_json(obs)) <= obs_chars:
        assert pages == [canonical_json(obs)]      # fits: byte-identical, no marker
        return
    n = len(pages)
    for k, p in enumerate(pages, 1):
        assert len(p) <= obs_chars
        d = json.loads(p)
        assert d["ok"] is True and d["page"] == page_marker(k, n)
    assert merged(pages) == leaves(canon["data"])   # every leaf once, in order


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 40), body=st.integers(0, 400))
def test_records_that_fit_a_page_stay_whole(n, body):
    recs = [{"id": f"r{i}", "text": "w " * (body // 2)} for i in range(n)]
    obs = {"ok": True, "data": {"items": recs}}
    pages = observation_pages(obs, 600)
    shown = [r for p in pages for r in json.loads(p)["data"].get("items", [])]
    if len(canonical_json(recs[0])) < 480:          # a record with room to spare on an empty page is never split
        assert shown == recs


@pytest.fixture(scope="module")
def world():
    lib, w = default_library()
    task = generate_tasks(1, seed=0, library=lib, world_factory=w, k=3, l_min=4, l_max=6, n_distractors=3, progress=False)[0][0]
    return lib, task


def test_read_pages_repeat_the_read_and_change_nothing(world):
    lib, task = world
    env = TaskEnvironment(task, lib)
    texts = [env.call_tool("linear.linear_search_issues", {}, page=k) for k in range(1, 11)]
    full = env.env.call(env.js, "linear.linear_search_issues", {})[1]
    assert texts == observation_pages(full, 600) and len(texts) == 10
    assert joint_hash(env.js) == task.s0_hash
    assert json.loads(env.call_tool("linear.linear_search_issues", {}, page=11))["error"]["message"] == \
        "call_tool: page=11 is past the last page of this observation (10)"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(page=st.one_of(st.integers(-5, 0), st.integers(11, 10**30), st.text(max_size=5), st.floats(), st.booleans(),
                      st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2)))
def test_a_bad_page_is_a_400_never_a_crash(world, page):
    lib, task = world
    env = TaskEnvironment(task, lib)
    o = env._step("call_tool", {"tool": "linear.linear_search_issues", "arguments": {}, "page": page})
    assert o["ok"] is False and o["error"]["code"] == 400 and o["error"]["argument"] == "page"
    assert json.loads(env._shown("call_tool", {"page": page}, o)) == o
    assert joint_hash(env.js) == task.s0_hash and len(env.steps) == 1


def test_a_write_is_never_run_again_for_a_page(world):
    lib, task = world
    env = TaskEnvironment(task, lib, obs_chars=MIN_PAGE_CHARS)
    w = ("forum.reply_to_topic", {"topic_id": "t_p3", "raw": "Thanks, see you there!"})
    assert json.loads(env.call_tool(*w, page=2))["error"]["argument"] == "page"
    assert joint_hash(env.js) == task.s0_hash          # never called: refused, nothing posted
    first = json.loads(env.call_tool(*w))
    h = env._joint_hash()
    n = int(first["page"].split(" of ")[1].split(":")[0])
    later = [json.loads(env.call_tool(*w, page=k)) for k in range(2, n + 1)]
    assert env._joint_hash() == h and n >= 2
    posts = [s for s in env.steps if s.observation.get("ok")]
    assert all(s.observation == posts[0].observation for s in posts)   # every page from the one recorded reply
    assert {k: v for p in [first] + later for k, v in p["data"].items()} == posts[0].observation["data"]
    assert [s.call["arguments"].get("page") for s in env.steps][:2] == [2, None]


def test_run_episode_pages_within_its_obs_chars(world):
    lib, task = world
    calls = [{"tool": "linear.linear_search_issues", "arguments": {}, "page": k} for k in (1, 2)]
    class Two:
        name, i = "two", 0
        def reset(self, task, seed): self.i = 0
        def act(self, messages):
            self.i += 1
            if self.i > 2: return {"role": "assistant", "content": "done"}
            return {"role": "assistant", "content": "", "tool_calls": [{"id": f"c{self.i}", "type": "function",
                    "function": {"name": "call_tool", "arguments": json.dumps(calls[self.i - 1])}}]}
    tr = run_episode(task, Two(), lib, obs_chars=300)
    tool_turns = [m["content"] for m in tr.messages if m["role"] == "tool"]
    full = tr.steps[0].observation
    assert tool_turns == observation_pages(full, 300)[:2]
    assert tr.tool_calls() == [{"tool": "linear.linear_search_issues", "arguments": {}, "page": 1}]   # page 2 ran nothing new


def test_sft_reads_on_in_pages_and_no_refusal_is_a_hidden_page():
    "On the demo recipe (K=2), a value an admitted-or-refused SFT trajectory still lacks is on no page of any earlier result."
    lib, w = default_library()
    tasks, _ = generate_tasks(12, 0, lib, w, k=(2, 2), l_min=3, l_max=4, n_distractors=2, progress=False)
    pages_asked = 0
    for t in tasks:
        ref = revealing_reference(t, lib)
        pages_asked += sum(1 for c in ref if c.get("page", 1) != 1)
        tr = run_episode(t, DiscoveringPolicy(lambda _t, ref=ref: ref), lib, 0, 80)
        assert tr.success
        for u in unseen_values(tr.messages):
            n_before = sum(1 for m in tr.messages[:u["turn"]] if m["role"] == "tool")
            before = [s for s in tr.steps[:n_before] if s.call["name"] == "call_tool"]
            assert not any(u["value"].lower() in _shown(canonical_json(s.observation)) for s in before), (t.id, u)
    assert pages_asked > 0


def _paging_work(obs, obs_chars):
    "Characters of page text `observation_pages` builds while packing `obs`, per character of the observation's JSON."
    import compoworld_nb.harness as H
    built, orig = [0], H._page_text
    def counting(units, marker):
        t = orig(units, marker); built[0] += len(t); return t
    H._page_text = counting
    try:
        H._paged.cache_clear(); pages = H.observation_pages(obs, obs_chars)
    finally: H._page_text = orig
    return built[0] / len(canonical_json(obs)), len(pages)


@pytest.mark.parametrize("obs, obs_chars", [
    ({"ok": True, "data": {"body": "word " * 20000}}, MIN_PAGE_CHARS),     # one long string (a document read)
    ({"ok": True, "data": "x" * 100000}, 600),                             # one long string with no space
    ({"ok": True, "data": list(range(20000))}, 600),                       # many tiny items
    ({"ok": True, "data": [{"i": i} for i in range(20000)]}, 600),         # many tiny records
])
def test_paging_work_is_linear_in_the_observation(obs, obs_chars):
    """Paging builds each page's text once: at most 3 characters of page text per observation character (the sizes of
    pages being packed are kept by `harness._Meter`; was ~n/page for a long string, then 34-77 while each size tried was
    a page text built; here 2.4, 1.2, 1.2, 1.2). Seconds: benchmarks/bench_paging.py."""
    work, n = _paging_work(obs, obs_chars)
    assert n > 100 and work < 3, (work, n)


def test_a_later_page_is_of_the_same_result_after_the_state_changed(world):
    "Page 1 of a search, then three new issues, then page 2: page 2 of the result page 1 came from (no issue skipped or shown twice); page 1 again reads anew."
    lib, task = world
    env = TaskEnvironment(task, lib)
    read = ("linear.linear_search_issues", {})
    first = env.call_tool(*read)
    for j in range(3):
        assert json.loads(env.call_tool("linear.linear_create_issue", {"title": f"Zed {j}", "teamId": "MKT"}))["ok"]
    pages = observation_pages(env.steps[0].observation, 600)
    assert [first, env.call_tool(*read, page=2), env.call_tool(*read, page=3)] == pages[:3]
    fresh = env.call_tool(*read)                                   # the call itself runs the read on the new state
    assert fresh != first and json.loads(env.call_tool(*read, page=2)) == json.loads(observation_pages(env.steps[-2].observation, 600)[1])


@pytest.mark.parametrize("page", [True, 1.0, 2.0, "1"])
def test_a_page_that_is_no_integer_is_refused_at_every_door_and_runs_nothing(world, page):
    "The public method, the dispatched call and list_tools agree: True / 1.0 are no page 1 (was: call_tool(page=1.0) ran the tool); such a step is no tool call, never simulated, and no later page is taken from it."
    lib, task = world
    env = TaskEnvironment(task, lib, obs_chars=MIN_PAGE_CHARS)
    w = ("forum.reply_to_topic", {"topic_id": "t_p3", "raw": "Thanks, see you there!"})
    o = json.loads(env.call_tool(*w, page=page))
    assert (o["ok"], o["error"]["argument"]) == (False, "page") and joint_hash(env.js) == task.s0_hash
    assert env._step("call_tool", {"tool": w[0], "arguments": w[1], "page": page}) == o
    assert json.loads(env.list_tools("forum", page=page))["error"]["argument"] == "page"
    assert json.loads(env.call_tool(*w, page=2))["error"]["argument"] == "page"     # nothing ran, so there is no page 2 to show
    from compoworld_nb.trajectory import Trajectory
    tr = Trajectory(task_id=task.id, policy="p", seed=0, steps=env.steps)
    assert tr.tool_calls() == [] and not any(s.simulated for s in env.steps) and joint_hash(env.js) == task.s0_hash


def test_list_services_is_paged_and_the_replay_reads_on_to_every_service_it_names():
    "At K=5 (10 services) page 1 of list_services names only some; its pages name all, and an admitted SFT row reads on before naming one."
    from compoworld_nb.sft_data import listing_pages
    lib, world = default_library()
    tasks, _ = generate_tasks(4, 3, lib, world, progress=False)
    for t in tasks:
        env = TaskEnvironment(t, lib)
        names = sorted(t.services + t.distractors)
        pages = [json.loads(env.list_services(page=k)) for k in range(1, 6)]
        n = next(k for k, o in enumerate(pages) if not o["ok"])           # the first page past the last is a 400
        assert n >= 2 and pages[n]["error"]["code"] == 400
        assert sorted(s["name"] for o in pages[:n] for s in o["data"] if "name" in s) == names   # every service, each once
        assert not {s["name"] for s in pages[0]["data"] if "name" in s} >= set(names)          # page 1 alone hides some
        lst = listing_pages(t, lib)
        assert sorted(s for s in lst if "." not in s) == names and max(lst[s] for s in names) == n
    kept, why = sft_trajectories(tasks, lib)
    assert (len(kept), why) == (4, {"not_success": 0, "unseen_value": 0})
    for tr in kept:
        assert unseen_values(tr.messages) == []
        read = {json.loads(tc["function"]["arguments"]).get("page", 1) for m in tr.messages if m["role"] == "assistant"
                for tc in m.get("tool_calls") or [] if tc["function"]["name"] == "list_services"}
        assert max(read) >= 2                                              # it read on in the service list
