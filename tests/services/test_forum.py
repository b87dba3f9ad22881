"forum: every tool's success case and each error it can return."
import pytest
from sample_services.forum import service as svc
from svc_testkit import check_err, check_ok

TEXT = "This is a perfectly reasonable reply with enough characters."


@pytest.fixture(scope="module")
def s():
    return svc.initial_state(0)

def open_topic(s): return next(t for t in s.topics.values() if not t.closed)
def closed_topic(s): return next(t for t in s.topics.values() if t.closed)
def their_post(s): return next(p for p in s.posts.values() if p.author != s.me and s.me not in p.likes)


def test_reads(s):
    cats = check_ok(svc, s, "list_categories", {})[1]
    assert [c["name"] for c in cats] == sorted(c["name"] for c in cats) and sum(c["topic_count"] for c in cats) == 120
    ts = check_ok(svc, s, "list_topics", {"limit": 100})[1]["topics"]
    keys = [(int(t["pinned"]), t["last_posted_at"], t["id"]) for t in ts]
    assert keys == sorted(keys, reverse=True)
    views = check_ok(svc, s, "list_topics", {"order": "views", "category_id": "help", "limit": 100})[1]["topics"]
    assert all(t["category_id"] == "help" for t in views)
    t = open_topic(s)
    d = check_ok(svc, s, "get_topic", {"topic_id": t.id, "limit": 2})[1]
    assert d["topic"]["id"] == t.id and [p["post_number"] for p in d["posts"]] == [1, 2][:t.posts_count]
    if d["next_cursor"]:
        more = check_ok(svc, s, "get_topic", {"topic_id": t.id, "cursor": d["next_cursor"], "limit": 100})[1]
        assert [p["post_number"] for p in more["posts"]] == list(range(3, t.posts_count + 1))
    hits = check_ok(svc, s, "search_posts", {"query": t.title.split()[-1].rstrip("?")})[1]
    assert hits["total"] >= 1 and all("topic_title" in p for p in hits["posts"])
    u = check_ok(svc, s, "get_user", {"username": s.me})[1]
    assert u["moderator"] and u["post_count"] == sum(1 for p in s.posts.values() if p.author == s.me)
    for tool, args, code, arg in [("list_topics", {"category_id": "nope"}, 404, "category_id"), ("list_topics", {"order": "random"}, 400, "order"),
                                  ("get_topic", {"topic_id": "nope"}, 404, "topic_id"), ("search_posts", {"query": " "}, 422, "query"),
                                  ("search_posts", {"query": "x", "category_id": "nope"}, 404, "category_id"), ("get_user", {"username": "nobody"}, 404, "username"),
                                  ("list_topics", {"limit": 101}, 422, "limit")]:
        check_err(svc, s, tool, args, code, arg)

def test_create_and_reply(s):
    new, d = check_ok(svc, s, "create_topic", {"title": "Webhooks retry policy question", "category_id": "help", "raw": TEXT, "tags": ["API", "api", "question"]})
    tid = d["topic"]["id"]
    assert d["topic"]["tags"] == ["api", "question"] and d["post"]["post_number"] == 1
    new2, p = check_ok(svc, new, "reply_to_topic", {"topic_id": tid, "raw": TEXT, "reply_to_post_number": 1})
    assert p["post_number"] == 2 and new2.topics[tid].posts_count == 2 and new2.topics[tid].last_posted_at == p["created_at"]
    for args, code, arg in [({"title": "Too short"}, 422, "title"), ({"category_id": "nope"}, 404, "category_id"), ({"raw": "short"}, 422, "raw"),
                            ({"tags": ["a", "b", "c", "d", "e", "f"]}, 422, "tags"), ({"tags": ["Bad Tag!"]}, 422, "tags"),
                            ({"title": "Webhooks retry policy question"}, 409, "title")]:
        check_err(svc, new, "create_topic", {"title": "A brand new topic title", "category_id": "help", "raw": TEXT, **args}, code, arg)
    check_err(svc, s, "reply_to_topic", {"topic_id": closed_topic(s).id, "raw": TEXT}, 409, "topic_id")
    check_err(svc, s, "reply_to_topic", {"topic_id": "nope", "raw": TEXT}, 404, "topic_id")
    check_err(svc, s, "reply_to_topic", {"topic_id": open_topic(s).id, "raw": "x"}, 422, "raw")
    check_err(svc, s, "reply_to_topic", {"topic_id": open_topic(s).id, "raw": TEXT, "reply_to_post_number": 99}, 404, "reply_to_post_number")
    check_err(svc, s, "reply_to_topic", {"topic_id": open_topic(s).id, "raw": "y" * 32001}, 422, "raw")

def test_edit_and_like(s):
    new, p = check_ok(svc, s, "reply_to_topic", {"topic_id": open_topic(s).id, "raw": TEXT})
    new2, e = check_ok(svc, new, "edit_post", {"post_id": p["id"], "raw": TEXT + " Edited."})
    assert e["raw"].endswith("Edited.") and e["edited_at"]
    check_err(svc, new, "edit_post", {"post_id": their_post(s).id, "raw": TEXT}, 422, "post_id")
    check_err(svc, new, "edit_post", {"post_id": p["id"], "raw": "short"}, 422, "raw")
    check_err(svc, new, "edit_post", {"post_id": "nope", "raw": TEXT}, 404, "post_id")
    q = their_post(s)
    new3, d = check_ok(svc, s, "like_post", {"post_id": q.id})
    assert d["like_count"] == len(q.likes) + 1
    check_err(svc, new3, "like_post", {"post_id": q.id}, 409, "post_id")
    check_err(svc, new, "like_post", {"post_id": p["id"]}, 422, "post_id")
    check_err(svc, s, "like_post", {"post_id": "nope"}, 404, "post_id")
    new4, d = check_ok(svc, new3, "unlike_post", {"post_id": q.id})
    assert d["like_count"] == len(q.likes)
    check_err(svc, s, "unlike_post", {"post_id": q.id}, 409, "post_id")
    check_err(svc, s, "unlike_post", {"post_id": "nope"}, 404, "post_id")

def test_topic_status(s):
    t = open_topic(s)
    new, d = check_ok(svc, s, "set_topic_status", {"topic_id": t.id, "status": "closed", "enabled": True})
    assert d["closed"]
    check_err(svc, new, "reply_to_topic", {"topic_id": t.id, "raw": TEXT}, 409, "topic_id")
    check_err(svc, new, "set_topic_status", {"topic_id": t.id, "status": "closed", "enabled": True}, 409, "enabled")
    new2, d = check_ok(svc, new, "set_topic_status", {"topic_id": t.id, "status": "closed", "enabled": False})
    assert not d["closed"]
    new3, d = check_ok(svc, s, "set_topic_status", {"topic_id": t.id, "status": "pinned", "enabled": True})
    n_pinned = sum(x.pinned for x in s.topics.values()) + 1
    top = check_ok(svc, new3, "list_topics", {"limit": n_pinned})[1]["topics"]
    assert all(x["pinned"] for x in top) and t.id in [x["id"] for x in top]
    check_err(svc, s, "set_topic_status", {"topic_id": "nope", "status": "pinned", "enabled": True}, 404, "topic_id")
    check_err(svc, s, "set_topic_status", {"topic_id": t.id, "status": "hidden", "enabled": True}, 400, "status")
    plain = s.model_copy(deep=True); plain.users[plain.me].moderator = False
    check_err(svc, plain, "set_topic_status", {"topic_id": t.id, "status": "pinned", "enabled": True}, 422, "topic_id")
