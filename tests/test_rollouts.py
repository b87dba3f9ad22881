"""Copy-on-write states and parallel rollout groups.

* every tool of every sample service, run with valid arguments on one shared s0, leaves s0's hash and content
  unchanged, and the fast `state_digest` equals its from-scratch definition `state_hash(digest_form(s))` on every state produced;
* 64 parallel rollouts of one task, each creating "the same" new record, each see only their own record, and
  the task's s0 hash is unchanged afterwards;
* the lineage bookkeeping behind the fast hash survives hand edits (it falls back, never lies);
* rollout groups are reproducible with threads and with processes; trajectories are written as JSONL.
"""
import json, threading
import numpy as np
from concurrent.futures import ThreadPoolExecutor
import pytest
from compoworld_nb.core import state_hash, canonical_json
from compoworld_nb.service import cow_view, commit_view, state_digest, digest_form, CowRecords, Records, lineage, clone_value, snapshot, SealedRecordError
from compoworld_nb.compose import joint_hash, diff
from compoworld_nb.author import default_library, generate_tasks
from compoworld_nb.task import materialize_s0
from compoworld_nb.trajectory import save_jsonl, load_trajectories
from compoworld_nb.harness import TaskEnvironment, rollout_group, run_episode
from compoworld_nb.policies import ScriptedPolicy, make_policy

LIB, WORLD = default_library()


# ------------------------------------------------------------------ valid arguments for every tool, from the state
def _first(coll, pred=lambda r: True):
    return next(r for r in coll.values() if pred(r))

def _schema_value(name: str, p: dict, s):
    "A schema-valid value for parameter `name`; strings that look like ids take an id that exists in the state."
    t = p.get("type")
    if "enum" in p: return p["enum"][0]
    if t == "string":
        ids = [k for c in type(s).collection_names() for k in getattr(s, c)]
        return ids[0] if ids and ("id" in name.lower() or name.lower().endswith(("channel", "user", "issue"))) else "x"
    if t == "integer": return max(1, p.get("minimum", 1))
    if t == "number": return float(max(1, p.get("minimum", 1)))
    if t == "boolean": return False
    if t == "array": return []
    return {}

def generic_calls(svc, s, skip=()) -> list[tuple[str, dict]]:
    "Schema-valid arguments (required parameters only) for every tool not in `skip`; success is not expected."
    return [(n, {k: _schema_value(k, t.parameters["properties"][k], s) for k in t.required})
            for n, t in svc.tools.items() if n not in skip]

def valid_calls(svc: str, s) -> list[tuple[str, dict]]:
    "(tool, arguments) pairs that succeed on the service's seeded fixture `s` (empty for a service not listed here)."
    if svc == "gmail":
        inbox = [m for m in s.messages.values() if "INBOX" in m.labelIds]
        user = _first(s.labels, lambda l: l.type == "user")
        return [("send_email", {"to": ["a@example.com"], "subject": "Hi", "body": "Hello"}),
                ("draft_email", {"to": ["a@example.com"], "subject": "Draft", "body": "Later", "threadId": inbox[0].threadId}),
                ("read_email", {"messageId": inbox[0].id}),
                ("search_emails", {"query": inbox[0].subject.split()[0]}),
                ("modify_email", {"messageId": inbox[0].id, "addLabelIds": ["STARRED"], "removeLabelIds": ["INBOX"]}),
                ("batch_modify_emails", {"messageIds": [inbox[1].id, inbox[2].id], "addLabelIds": ["IMPORTANT"]}),
                ("delete_email", {"messageId": inbox[3].id}),
                ("batch_delete_emails", {"messageIds": [inbox[4].id, inbox[5].id]}),
                ("list_email_labels", {}),
                ("create_label", {"name": "Receipts 2025"}),
                ("update_label", {"id": user.id, "name": "Renamed label"}),
                ("delete_label", {"id": user.id}),
                ("get_or_create_label", {"name": "Fresh label"})]
    if svc == "slack":
        m = _first(s.messages, lambda m: m.thread_ts is not None)
        return [("slack_list_channels", {"limit": 3}),
                ("slack_post_message", {"channel_id": m.channel_id, "text": "hello"}),
                ("slack_reply_to_thread", {"channel_id": m.channel_id, "thread_ts": m.thread_ts, "text": "a reply"}),
                ("slack_add_reaction", {"channel_id": m.channel_id, "timestamp": m.ts, "reaction": "tada"}),
                ("slack_get_channel_history", {"channel_id": m.channel_id, "limit": 5}),
                ("slack_get_thread_replies", {"channel_id": m.channel_id, "thread_ts": m.thread_ts}),
                ("slack_get_users", {"limit": 5}),
                ("slack_get_user_profile", {"user_id": s.me})]
    if svc == "calendar":
        ev = _first(s.events, lambda e: e.calendarId == s.owner and e.start.dateTime is not None)
        return [("list-calendars", {}),
                ("list-events", {"calendarId": "primary", "timeMin": "2025-03-01T00:00:00Z", "timeMax": "2025-03-20T00:00:00Z"}),
                ("search-events", {"calendarId": "primary", "query": ev.summary.split()[0], "timeMin": "2024-12-01T00:00:00Z",
                                   "timeMax": "2025-06-01T00:00:00Z"}),
                ("get-event", {"calendarId": "primary", "eventId": ev.id}),
                ("create-event", {"calendarId": "primary", "summary": "Planning", "start": "2025-03-10T10:00:00",
                                  "end": "2025-03-10T11:00:00", "attendees": [{"email": "a@example.com"}]}),
                ("update-event", {"calendarId": "primary", "eventId": ev.id, "summary": "Moved", "location": "Room 2"}),
                ("delete-event", {"calendarId": "primary", "eventId": ev.id}),
                ("list-colors", {}),
                ("get-current-time", {})]
    if svc == "weather":
        f, a = _first(s.forecasts), _first(s.alerts)
        return [("get_alerts", {"state": a.state}), ("get_forecast", {"latitude": f.latitude, "longitude": f.longitude})]
    if svc == "maps":
        p, q = list(s.places.values())[:2]
        return [("maps_geocode", {"address": p.formatted_address}),
                ("maps_reverse_geocode", {"latitude": p.lat, "longitude": p.lng}),
                ("maps_search_places", {"query": p.name}),
                ("maps_place_details", {"place_id": p.id}),
                ("maps_distance_matrix", {"origins": [p.formatted_address], "destinations": [q.formatted_address]}),
                ("maps_elevation", {"locations": [{"latitude": p.lat, "longitude": p.lng}]}),
                ("maps_directions", {"origin": p.formatted_address, "destination": q.formatted_address})]
    if svc == "linear":
        i, team = _first(s.issues), _first(s.teams)
        return [("linear_create_issue", {"title": "New bug", "teamId": team.id, "priority": 2}),
                ("linear_update_issue", {"id": i.id, "status": "In Progress", "title": "Renamed"}),
                ("linear_search_issues", {"query": i.title.split()[0]}),
                ("linear_get_user_issues", {}),
                ("linear_add_comment", {"issueId": i.id, "body": "Looking into it"})]
    return []


@pytest.mark.parametrize("name", list(LIB))
def test_every_tool_leaves_shared_s0_unchanged(name):
    svc = LIB[name]
    s0 = svc.initial_state(0)
    snapshot, h0 = s0.model_copy(deep=True), state_hash(s0)
    calls = [(t, a, True) for t, a in valid_calls(name, s0)]
    calls += [(t, a, False) for t, a in generic_calls(svc, s0, skip={t for t, _, _ in calls})]  # tools added since
    assert {t for t, _, _ in calls} == set(svc.tools)
    cur = s0
    for tool, args, must_succeed in calls:
        new, o = svc.call(s0, tool, args)                       # every tool on the shared s0 ...
        assert o["ok"] or not must_succeed, (tool, o)
        if not o["ok"]: assert new is s0; continue
        assert state_digest(new) == state_hash(digest_form(new))
        if svc.tools[tool].read_only: assert new is s0
        else: assert new is not s0 and all(type(getattr(new, c)) is Records for c in type(new).collection_names())
        nxt, o2 = svc.call(cur, tool, args)                     # ... and chained, each call on the previous result
        if o2["ok"]:
            assert state_digest(nxt) == state_hash(digest_form(nxt))
            cur = nxt
        assert state_hash(s0) == h0 and s0 == snapshot, f"{tool} changed the shared s0"
    assert state_digest(s0) == state_hash(digest_form(snapshot)) and s0 == snapshot
    writes = any(not svc.tools[t].read_only for t, _, ok in calls if ok)
    assert cur is not s0 or not writes                          # the known write tools really wrote
    assert state_digest(cur) == state_hash(digest_form(cur)) and diff({name: s0}, {name: s0.model_copy(deep=True)}) == []
    assert bool(diff({name: s0}, {name: cur})) == (state_hash(cur) != h0)


def test_failed_call_returns_the_same_object_and_changes_nothing():
    svc = LIB["gmail"]; s0 = svc.initial_state(0); h0 = state_hash(s0)
    m = next(iter(s0.messages))
    for args, code in [({"messageId": m, "addLabelIds": ["NOPE"]}, 422), ({"messageId": "msg_missing", "addLabelIds": ["STARRED"]}, 404),
                       ({"messageId": m, "bogus": 1}, 400)]:
        new, o = svc.call(s0, "modify_email", args)
        assert new is s0 and o["error"]["code"] == code and state_hash(s0) == h0


# ------------------------------------------------------------------ copy-on-write collections
def test_cow_records_copy_on_first_read_and_track_touched():
    s0 = LIB["linear"].initial_state(0)
    ids = list(s0.issues)
    v = cow_view(s0)
    t = v.issues
    base = t._r                                                         # the committed collection the view is over
    assert type(t) is CowRecords and type(base) is Records and not base.touched and base.snap.holds(s0.issues)
    assert t._peek(ids[0]) is s0.issues[ids[0]]                         # shared until read through the mapping
    r = t[ids[0]]; assert r is not s0.issues[ids[0]] and r == s0.issues[ids[0]]
    assert t[ids[0]] is r                                               # copied once
    r.labels.append("urgent-fix")                                       # in-place list edit stays private
    assert "urgent-fix" not in s0.issues[ids[0]].labels
    del t[ids[1]]; t.pop(ids[2]); t["iss_new"] = clone_value(s0.issues[ids[3]])
    n_values = sum(1 for _ in t.values())                               # values()/items()/dict() copy what they hand out
    assert n_values == len(s0.issues) - 1 and all(x is not y for x, y in zip(dict(t).values(), s0.issues.values()))
    commit_view(v)
    assert type(v.issues) is Records and lineage(v.issues)[0] is base.snap
    assert v.issues.touched == {ids[0], ids[1], ids[2], "iss_new"}     # only what changed; records merely read ...
    assert v.issues[ids[3]] is s0.issues[ids[3]] and v.issues[ids[0]] is r  # ... are shared with s0 again
    assert state_digest(v) == state_hash(digest_form(v)) and len(s0.issues) == 80 and state_hash(s0) == state_hash(LIB["linear"].initial_state(0))


def test_digest_never_trusts_a_broken_lineage():
    "Hand edits of committed states and of s0 are outside the contract, but the hash must still be the true one."
    svc = LIB["gmail"]; s0 = svc.initial_state(0)
    m = next(iter(s0.messages))
    s1, o = svc.call(s0, "modify_email", {"messageId": m, "addLabelIds": ["STARRED"]}); assert o["ok"]
    assert state_digest(s1) == state_hash(digest_form(s1))
    s2 = commit_view(cow_view(s1))
    with pytest.raises(TypeError): dict.__setitem__(s2.messages, "msg_sneaky", clone_value(s0.messages[m]))   # no way around the bookkeeping
    with pytest.raises(SealedRecordError, match="committed collection"): s2.messages["msg_sneaky"] = clone_value(s0.messages[m])
    assert state_digest(s2) == state_hash(digest_form(s2)) == state_digest(s1)
    s3 = s1.model_copy(deep=True)                                               # plain dicts again, no lineage
    s3.messages[m].subject = "edited by hand"                                   # assignment drops the cached text
    assert state_digest(s3) == state_hash(digest_form(s3)) != state_digest(s1)
    own = svc.initial_state(0)                                                  # a root edited in place after hashing
    h = state_digest(own); own.messages[m].subject = "x"; del own.messages[next(iter(own.messages))]
    assert state_digest(own) == state_hash(digest_form(own)) != h


def test_state_digest_is_a_canonical_multiset_hash():
    "Key order and 25 vs 25.0 inside a record never change the hash; any field, id or collection change does; the cached value equals the definition."
    from typing import Any
    from compoworld_nb.service import Record, State
    import hashlib
    class Note(Record):
        id: str
        value: Any = None
        meta: dict = {}
    class NoteState(State):
        notes: dict[str, Note] = {}
        tags: dict[str, Note] = {}
    a = NoteState(notes={"n1": Note(id="n1", value=25, meta={"x": 1, "y": [1, 2.0]}), "n2": Note(id="n2", value="t")})
    b = NoteState(notes={"n2": Note(id="n2", value="t"), "n1": Note(id="n1", value=25.0, meta={"y": [1.0, 2], "x": 1.0})})
    assert state_digest(a) == state_digest(b) == state_hash(digest_form(a))
    rec = lambda k, r: hashlib.sha256((json.dumps(k) + ":" + canonical_json(r)).encode()).digest()
    lane = lambda d: int.from_bytes(hashlib.shake_256(d).digest(256), "big")                  # a multiset hash of the record digests
    coll = lambda *ds: hashlib.sha256(len(ds).to_bytes(8, "big") + (sum(map(lane, ds)) % 2**2048).to_bytes(256, "big")).hexdigest()
    want = coll(rec("n2", a.notes["n2"]), rec("n1", a.notes["n1"]))
    assert digest_form(a) == {"seed": 0, "counters": {}, "clock": 0.0, "notes": want, "tags": coll()}
    variants = [NoteState(notes={"n1": Note(id="n1", value=26, meta=a.notes["n1"].meta), "n2": a.notes["n2"]}),   # a field
                NoteState(notes={"n1": a.notes["n1"], "n3": Note(id="n2", value="t")}),                            # an id
                NoteState(tags=dict(a.notes)),                                                                     # the collection
                NoteState(notes=dict(a.notes), seed=1),                                                            # a plain field
                NoteState(notes={"n1": a.notes["n1"]})]                                                            # a record gone
    hs = [state_digest(v) for v in variants]
    assert len(set(hs + [state_digest(a)])) == len(variants) + 1 and hs == [state_hash(digest_form(v)) for v in variants]


# ------------------------------------------------------------------ rollouts


def _create_call(task):
    "The first reference call that adds a record, and (service, collection) of the record it adds."
    env = TaskEnvironment(task, LIB)
    for c in task.reference:
        before = env.js
        env._call_tool(c["tool"], c["arguments"])
        added = [d for d in diff(before, env.js) if d["change"] == "added"]
        if added: return c, added[0]["service"], added[0]["collection"], added[0]["id"]
    pytest.skip("the task's reference creates no record")


def test_64_parallel_rollouts_each_see_only_their_own_record(task):
    call, svc, col, new_id = _create_call(task)
    s0 = materialize_s0(task, LIB)
    h0, n0 = joint_hash(s0), len(getattr(s0[svc], col))
    assert h0 == task.s0_hash
    barrier = threading.Barrier(64)
    def rollout(i):
        env = TaskEnvironment(task, LIB, s0=s0)
        barrier.wait()                                  # all 64 write at the same moment
        o = env._step("call_tool", {"tool": call["tool"], "arguments": call["arguments"]})
        barrier.wait()                                  # ... and look only after every one has written
        coll = getattr(env.js[svc], col)
        return o, len(coll), new_id in coll, env.steps[-1].state_hash, joint_hash(env.js)
    with ThreadPoolExecutor(64) as ex: out = list(ex.map(rollout, range(64)))
    assert all(o["ok"] for o, *_ in out)
    assert {n for _, n, *_ in out} == {n0 + 1}          # exactly one new record each: its own
    assert all(has for _, _, has, *_ in out)            # "the same" record (same seeded id) in every rollout
    assert len({h for *_, h, _ in out}) == 1 and all(a == b for *_, a, b in out)
    assert len(getattr(s0[svc], col)) == n0 and new_id not in getattr(s0[svc], col)
    assert joint_hash(s0) == h0 == joint_hash(materialize_s0(task, LIB))


def test_rollout_group_of_64_threads_reaches_g_and_keeps_s0(task):
    g = rollout_group(task, ScriptedPolicy, LIB, n=64, seed=0, workers=8)
    assert len(g) == 64 and all(t.success and t.steps[-1].state_hash == task.g_hash for t in g)
    assert joint_hash(materialize_s0(task, LIB)) == task.s0_hash


def test_rollout_group_threads_and_processes_agree(task, tmp_path):
    def content(g): return [t.model_dump(exclude={"steps": {"__all__": {"latency"}}}) for t in g]
    spec = "scripted:perturb=0.5"
    a = rollout_group(task, lambda: make_policy(spec), LIB, n=6, seed=3, workers=1)
    b = rollout_group(task, lambda: make_policy(spec), LIB, n=6, seed=3, workers=3)
    c = rollout_group(task, lambda: make_policy(spec), LIB, n=6, seed=3, processes=2)
    assert content(a) == content(b) == content(c)
    assert len({tuple(t.criteria) for t in a}) > 1
    path = tmp_path / "g.jsonl"
    assert save_jsonl(path, c) == 6
    rows = [json.loads(l) for l in path.read_text().splitlines()]
    for r, t in zip(rows, c):
        assert r["criteria"] == t.criteria and r["final_answer"] == t.final_answer and r["seed"] == t.seed
        for s in r["steps"]:
            assert set(s) >= {"call", "observation", "state_hash", "simulated"} and len(s["state_hash"]) == 64
    assert content(load_trajectories(path)) == content(c)


def test_rollout_group_rejects_bad_parallelism(task):
    with pytest.raises(ValueError, match="n=0"): rollout_group(task, ScriptedPolicy, LIB, n=0)
    with pytest.raises(ValueError, match="workers=-1"): rollout_group(task, ScriptedPolicy, LIB, n=2, workers=-1)
    with pytest.raises(ValueError, match="processes=-2"): rollout_group(task, ScriptedPolicy, LIB, n=2, processes=-2)


# ------------------------------------------------------------------ scoring many final states at once
def _probe_criteria(task, s0) -> list[dict]:
    "Criteria of every kind and operator over the task's services, built from s0's own records."
    out = []
    for svc in task.services:
        st = s0[svc]
        for col in type(st).collection_names()[:2]:
            recs = list(getattr(st, col).values())
            if not recs: continue
            d = recs[len(recs) // 2].model_dump(mode="json")
            f = next((k for k, v in d.items() if k != "id" and isinstance(v, str)), None)
            where = {"id": d["id"]} if "id" in d else {}
            base = {"service": svc, "collection": col}
            out += [{**base, "kind": "state", "where": where, "field": f, "op": "eq", "value": d.get(f)},
                    {**base, "kind": "state", "where": where, "field": f, "op": "ne", "value": d.get(f)},
                    {**base, "kind": "state", "where": {}, "op": "count_eq", "value": len(recs)},
                    {**base, "kind": "state", "where": where, "field": f, "op": "absent"},
                    {**base, "kind": "state", "where": {}, "field": f, "op": "exists"},
                    {**base, "kind": "state", "where": {}, "field": f, "op": "in", "value": [d.get(f), "zzz"]},
                    {**base, "kind": "unchanged", "where": {}, "field": None},
                    {**base, "kind": "unchanged", "where": where, "field": f}]
    out.append({"kind": "output", "op": "contains", "value": "10"})
    return [{"id": f"p{i}", **c} for i, c in enumerate(out)]


def test_score_finals_equals_rubric_score(task):
    from compoworld_nb.harness import score_finals
    from compoworld_nb.rubric import Rubric
    from compoworld_nb.task import task_env
    env, s0 = task_env(task, LIB), materialize_s0(task, LIB)
    rub = Rubric.load(task.rubric + _probe_criteria(task, s0))
    finals, answers = [], []
    for i in range(60):                                   # perturbed rollouts: dropped steps, bad arguments, extra reads
        p = ScriptedPolicy([0.3, 0.6, 1.0][i % 3]); p.reset(task, i); js = s0
        for c in p.plan:
            if "tool" in c: js, _ = env.call(js, c["tool"], c["arguments"])
        finals.append(js); answers.append([task.answer, None, "$100", "10"][i % 4])
    g = finals[0]
    svc = task.services[0]; col = type(g[svc]).collection_names()[0]
    moved = cow_view(g[svc])                              # edits through a view: delete, re-add (it moves to the end), add
    k0 = next(iter(getattr(moved, col)))
    rec = getattr(moved, col).pop(k0); getattr(moved, col)[k0] = rec; getattr(moved, col)["zz_new"] = clone_value(rec)
    moved = commit_view(moved)
    finals += [{**g, svc: moved}, {n: st.model_copy(deep=True) for n, st in g.items()}, s0]   # ... no lineage at all; s0 itself
    answers += [None, task.answer, None]
    want = [rub.score(f, s0, a) for f, a in zip(finals, answers)]
    assert score_finals(rub, finals, s0, answers).tolist() == want
    assert score_finals(rub, finals, s0, answers, verify=True).tolist() == want
    assert 0 < np.mean(want) < 1                           # the probe criteria really vary
    with pytest.raises(ValueError, match="answers"): score_finals(rub, finals, s0, answers[:3])


def test_thread_safe_policies_run_in_threads_by_default(task):
    gate = threading.Barrier(2, timeout=20)          # passes only if two rollouts are in flight at once
    class Gated(ScriptedPolicy):
        def reset(self, task, seed):
            super().reset(task, seed)
            if seed < 2: gate.wait()
    g = rollout_group(task, Gated, LIB, n=4, seed=0)
    assert [t.seed for t in g] == [0, 1, 2, 3] and all(t.success for t in g)
    class Serial(ScriptedPolicy):
        thread_safe = False
        def reset(self, task, seed):
            super().reset(task, seed); seen.add(threading.get_ident())
    seen = set()
    rollout_group(task, Serial, LIB, n=4, seed=0)
    assert seen == {threading.get_ident()}           # not thread-safe: one at a time, in the caller's thread


def test_same_value_is_strict_enough_for_canonical_json():
    from compoworld_nb.service import same_value
    assert not same_value(True, 1) and not same_value(1, 1.0) and not same_value([1], (1,))
    assert same_value({"a": [1, {"b": None}], "c": 2.5}, {"c": 2.5, "a": [1, {"b": None}]})
    r = next(iter(LIB["linear"].initial_state(0).issues.values()))
    c = clone_value(r)
    assert c is not r and c.labels is not r.labels and same_value(c, r)
    c.labels.append("x")
    assert not same_value(c, r) and "x" not in r.labels
