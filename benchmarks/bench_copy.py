"""Per-rollout copy of a 1,000-record state: copy-on-write view vs `copy.deepcopy`, each with one write and the state hash after it.

Both paths start from the same s0 (the gmail fixture grown to 1,000 records), make the same write (relabel one
message, add one message) and hash the result: the deep-copy path with the hash's definition computed from scratch
(`core.state_hash(service.digest_form(s))`), the copy-on-write path with `service.cow_view` + `commit_view` +
`state_digest` (per-record digests and per-collection sums cached): both are the same hash, so the script can check
that the two paths agree.
The script checks that both paths give the same hash every time, then prints one JSON line:
`speedup_vs_deepcopy` (goal >= 20), the per-rollout milliseconds of each path (`cow_ms` from the plain-dict s0,
`cow_committed_s0_ms` from s0 in committed form, as `task.materialize_s0` gives it) and of a real `Service.call`.

Run: python benchmarks/bench_copy.py [--rollouts 200]
"""
from __future__ import annotations
import argparse, copy, json, platform, time
from compoworld_nb.core import state_hash
from compoworld_nb.service import cow_view, commit_view, digest_form, state_digest
import sample_services.gmail as gm


def big_state(n_records: int = 1000):
    "The gmail fixture (seed 0) with extra messages (copies of existing ones under new ids) up to `n_records` records."
    s = gm.service.initial_state(0)
    d = s.model_dump(mode="json")
    msgs = list(d["messages"].values())
    i = 0
    while len(d["messages"]) + len(d["labels"]) < n_records:
        m = dict(msgs[i % len(msgs)]); m["id"] = f"msg_x{i}"; m["subject"] = f"{m['subject']} ({i})"
        d["messages"][m["id"]] = m; i += 1
    return gm.GmailState.model_validate(d)  # plain dicts, fresh records: like a task's materialised s0


def write(s, r: int):
    "The same write on either path: relabel one message in place and add a new one."
    ids = sorted(s.messages)
    m = s.messages[ids[r % len(ids)]]
    m.labelIds = [l for l in m.labelIds if l != "UNREAD"] + ["STARRED"]
    s.messages[f"msg_new{r}"] = gm.Message(id=f"msg_new{r}", threadId="thr_new", sender=s.address, to=["a@example.com"],
                                           subject="hello", body="body", date="2025-03-03T09:00:00Z", labelIds=["SENT"])


def main(rollouts: int = 200) -> dict:
    s0 = big_state()
    n = len(s0.messages) + len(s0.labels)
    h0 = state_hash(digest_form(s0))   # the state hash's definition (two levels: record digests, collection digests)
    assert state_digest(s0) == h0      # warms the caches of s0 (done once per task, shared by every rollout)

    deep_hashes, t0 = [], time.perf_counter()
    for r in range(rollouts):
        s = copy.deepcopy(s0); write(s, r); deep_hashes.append(state_hash(digest_form(s)))
    t_deep = (time.perf_counter() - t0) / rollouts

    def cow_run(base) -> tuple[list, float]:
        "Copy-on-write rollouts from `base`: their hashes and the seconds per rollout."
        hashes, t0 = [], time.perf_counter()
        for r in range(rollouts):
            s = cow_view(base); write(s, r); commit_view(s); hashes.append(state_digest(s))
        return hashes, (time.perf_counter() - t0) / rollouts

    cow_hashes, t_cow = cow_run(s0)

    assert cow_hashes == deep_hashes, "copy-on-write and deep-copy paths disagree"

    # the same from s0 in committed form (what `task.materialize_s0` hands a rollout): no plain dict to check against
    s0c = commit_view(cow_view(s0)); assert state_digest(s0c) == h0
    com_hashes, t_com = cow_run(s0c)
    assert com_hashes == deep_hashes, "the committed s0 path disagrees"
    assert len(set(cow_hashes)) == rollouts and state_hash(digest_form(s0)) == h0, "s0 changed"

    # the real transition: Service.call on the shared s0 (argument checks + view + tool + commit) and the hash after it
    mid = sorted(s0.messages)[0]
    t0 = time.perf_counter()
    for r in range(rollouts):
        s, o = gm.service.call(s0, "modify_email", {"messageId": mid, "addLabelIds": ["STARRED"]}); assert o["ok"]
        state_digest(s)
    t_call = (time.perf_counter() - t0) / rollouts
    assert state_hash(digest_form(s0)) == h0

    return {"bench": "bench_copy", "records": n, "rollouts": rollouts, "deepcopy_ms": round(t_deep * 1e3, 3),
            "cow_ms": round(t_cow * 1e3, 3), "cow_committed_s0_ms": round(t_com * 1e3, 3), "service_call_and_hash_ms": round(t_call * 1e3, 3),
            "speedup_vs_deepcopy": round(t_deep / t_cow, 1), "goal_speedup": 20, "meets_goal": t_deep / t_cow >= 20,
            "same_hashes": True, "python": platform.python_version()}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rollouts", type=int, default=200)
    print(json.dumps(main(ap.parse_args().rollouts)))
