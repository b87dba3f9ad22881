"slack: every tool's success case and error codes, plus the pagination invariants."
import pytest
from sample_services.slack import service as svc, Channel
from svc_testkit import check_err, check_ok


@pytest.fixture
def s():
    return svc.initial_state(0)

def chan(s, archived=False): return next(c for c in s.channels.values() if c.is_archived == archived)
def top(s, cid=None):
    return next(m for m in s.messages.values() if m.thread_ts is None and (cid is None or m.channel_id == cid)
                and not s.channels[m.channel_id].is_archived)
def threaded(s): return next(m for m in s.messages.values() if m.thread_ts == m.ts and m.reply_count > 0)


def walk(s, tool, key, limit):
    "Every page of a paginated tool: returns (items, cursors)."
    items, cursors, cursor = [], [], None
    for _ in range(1000):
        args = {"limit": limit, **({"cursor": cursor} if cursor else {})}
        _, d = check_ok(svc, s, tool, args)
        items += [x["id"] for x in d[key]]
        cursor = d["response_metadata"]["next_cursor"]
        if not cursor: return items, cursors
        assert d[key], "a page before the last is never empty"
        assert cursor not in cursors, "the cursor always advances"
        cursors.append(cursor)
    raise AssertionError("pagination did not end")

@pytest.mark.parametrize("limit", [1, 2, 3, 7, 8, 100, 200, 5000])
def test_list_channels_pagination(s, limit):
    items, cursors = walk(s, "slack_list_channels", "channels", limit)
    expected = [c.id for c in s.channels.values() if not c.is_archived]
    assert sorted(items) == sorted(expected) and len(items) == len(set(items))          # union exact, no repeats
    full, _ = walk(s, "slack_list_channels", "channels", 200)
    assert items == full                                                                  # stable order
    assert len(cursors) == -(-len(expected) // min(limit, 200)) - 1

def test_list_channels_cursor_survives_changes(s):
    _, d = check_ok(svc, s, "slack_list_channels", {"limit": 3})
    seen = [c["id"] for c in d["channels"]]
    s2 = s.model_copy(deep=True)
    del s2.channels[seen[-1]]                                     # the cursor's channel disappears
    s2.channels["C_999zz"] = Channel(id="C_999zz", name="late-joiner", created=1, members=[])
    rest, _ = walk_from(s2, d["response_metadata"]["next_cursor"])
    assert not set(rest) & set(seen) and "C_999zz" in rest
    assert set(rest) | set(seen[:-1]) == {c.id for c in s2.channels.values() if not c.is_archived}

def walk_from(s, cursor):
    out = []
    while cursor:
        _, d = check_ok(svc, s, "slack_list_channels", {"limit": 2, "cursor": cursor})
        out += [c["id"] for c in d["channels"]]; cursor = d["response_metadata"]["next_cursor"]
    return out, None

@pytest.mark.parametrize("args,code,arg", [({"limit": 0}, 422, "limit"), ({"cursor": "garbage!"}, 422, "cursor"),
                                           ({"cursor": "bm9wZQ=="}, 422, "cursor"), ({"limit": "ten"}, 400, "limit")])
def test_list_channels_errors(s, args, code, arg):
    check_err(svc, s, "slack_list_channels", args, code, arg)

def test_list_channels_default_excludes_archived(s):
    _, d = check_ok(svc, s, "slack_list_channels", {})
    assert chan(s, True).id not in [c["id"] for c in d["channels"]] and d["response_metadata"]["next_cursor"] == ""

@pytest.mark.parametrize("limit", [1, 5, 12, 200])
def test_get_users_pagination(s, limit):
    items, _ = walk(s, "slack_get_users", "members", limit)
    assert items == sorted(s.users, key=lambda u: (10**9, u)) and len(set(items)) == len(s.users)

def test_get_users_errors(s):
    check_err(svc, s, "slack_get_users", {"limit": -5}, 422, "limit")
    check_err(svc, s, "slack_get_users", {"cursor": "zzz"}, 422, "cursor")

def test_post_message(s):
    c = chan(s)
    new, d = check_ok(svc, s, "slack_post_message", {"channel_id": c.id, "text": "hello team"})
    m = next(m for m in new.messages.values() if m.ts == d["ts"])
    assert m.user == s.me and m.channel_id == c.id and m.text == "hello team"
    new2, d2 = check_ok(svc, new, "slack_post_message", {"channel_id": c.id, "text": "again"})
    assert d2["ts"] > d["ts"]
    _, h = check_ok(svc, new2, "slack_get_channel_history", {"channel_id": c.id, "limit": 2})
    assert [x["text"] for x in h["messages"]] == ["again", "hello team"]

@pytest.mark.parametrize("args,code,arg", [({"channel_id": "C_nope", "text": "x"}, 404, "channel_id"),
                                           ({"text": "   "}, 422, "text"), ({"text": "x" * 40001}, 422, "text"),
                                           ({"archived": True, "text": "x"}, 409, "channel_id")])
def test_post_message_errors(s, args, code, arg):
    args = dict(args)
    cid = chan(s, args.pop("archived", False)).id
    check_err(svc, s, "slack_post_message", {"channel_id": cid, **args}, code, arg)

def test_reply_to_thread(s):
    m = top(s)
    new, d = check_ok(svc, s, "slack_reply_to_thread", {"channel_id": m.channel_id, "thread_ts": m.ts.replace(".", ""), "text": "reply"})
    parent = new.messages[m.id]
    assert parent.reply_count == m.reply_count + 1 and parent.thread_ts == m.ts and d["message"]["thread_ts"] == m.ts
    _, t = check_ok(svc, new, "slack_get_thread_replies", {"channel_id": m.channel_id, "thread_ts": m.ts})
    assert t["messages"][0]["ts"] == m.ts and t["messages"][-1]["text"] == "reply"
    reply_ts = d["ts"]                                            # replying to a reply joins the same thread
    new2, d2 = check_ok(svc, new, "slack_reply_to_thread", {"channel_id": m.channel_id, "thread_ts": reply_ts, "text": "more"})
    assert d2["message"]["thread_ts"] == m.ts and new2.messages[m.id].reply_count == parent.reply_count + 1

def test_reply_to_thread_errors(s):
    m, arch = top(s), chan(s, True)
    old = next(x for x in s.messages.values() if x.channel_id == arch.id)
    check_err(svc, s, "slack_reply_to_thread", {"channel_id": "C_nope", "thread_ts": m.ts, "text": "x"}, 404, "channel_id")
    check_err(svc, s, "slack_reply_to_thread", {"channel_id": m.channel_id, "thread_ts": "1.000001", "text": "x"}, 404, "thread_ts")
    check_err(svc, s, "slack_reply_to_thread", {"channel_id": m.channel_id, "thread_ts": m.ts, "text": ""}, 422, "text")
    check_err(svc, s, "slack_reply_to_thread", {"channel_id": arch.id, "thread_ts": old.ts, "text": "x"}, 409, "channel_id")

def test_add_reaction(s):
    m = top(s)
    new, d = check_ok(svc, s, "slack_add_reaction", {"channel_id": m.channel_id, "timestamp": m.ts, "reaction": ":rocket:"})
    assert d["reaction"] == "rocket" and any(r.name == "rocket" and s.me in r.users for r in new.messages[m.id].reactions)
    check_err(svc, new, "slack_add_reaction", {"channel_id": m.channel_id, "timestamp": m.ts, "reaction": "rocket"}, 409, "reaction")
    check_err(svc, s, "slack_add_reaction", {"channel_id": "C_nope", "timestamp": m.ts, "reaction": "x"}, 404, "channel_id")
    check_err(svc, s, "slack_add_reaction", {"channel_id": m.channel_id, "timestamp": "2.000000", "reaction": "x"}, 404, "timestamp")
    check_err(svc, s, "slack_add_reaction", {"channel_id": m.channel_id, "timestamp": m.ts, "reaction": "Thumbs Up"}, 422, "reaction")

def test_channel_history(s):
    c = chan(s)
    _, d = check_ok(svc, s, "slack_get_channel_history", {"channel_id": c.id, "limit": 1000})
    tss = [x["ts"] for x in d["messages"]]
    assert tss == sorted(tss, key=lambda t: tuple(map(int, t.split("."))), reverse=True) and not d["has_more"]
    assert all(x.get("thread_ts") in (None, x["ts"]) for x in d["messages"])
    _, d = check_ok(svc, s, "slack_get_channel_history", {"channel_id": c.id})
    assert len(d["messages"]) <= 10
    check_err(svc, s, "slack_get_channel_history", {"channel_id": "C_nope"}, 404, "channel_id")
    check_err(svc, s, "slack_get_channel_history", {"channel_id": c.id, "limit": 0}, 422, "limit")

def test_thread_replies(s):
    m = threaded(s)
    _, d = check_ok(svc, s, "slack_get_thread_replies", {"channel_id": m.channel_id, "thread_ts": m.ts})
    assert len(d["messages"]) == m.reply_count + 1 and d["messages"][0]["ts"] == m.ts
    check_err(svc, s, "slack_get_thread_replies", {"channel_id": "C_nope", "thread_ts": m.ts}, 404, "channel_id")
    check_err(svc, s, "slack_get_thread_replies", {"channel_id": m.channel_id, "thread_ts": "9"}, 404, "thread_ts")

def test_user_profile(s):
    u = s.users[s.me]
    _, d = check_ok(svc, s, "slack_get_user_profile", {"user_id": u.id})
    assert d["profile"]["email"] == u.email and d["profile"]["real_name"] == u.real_name
    check_err(svc, s, "slack_get_user_profile", {"user_id": "U_nobody"}, 404, "user_id")

def test_fixture_threads_consistent(s):
    for m in s.messages.values():
        if m.thread_ts and m.thread_ts != m.ts:
            parent = next(p for p in s.messages.values() if p.ts == m.thread_ts)
            assert parent.channel_id == m.channel_id and parent.thread_ts == parent.ts
    for p in s.messages.values():
        if p.reply_count:
            assert p.reply_count == sum(1 for m in s.messages.values() if m.thread_ts == p.ts and m.ts != p.ts)
    assert len({m.ts for m in s.messages.values()}) == len(s.messages)
    assert len({m.channel_id for m in s.messages.values()}) == 9
