"Pagination of every paged list tool of the newer services: stable order, a cursor always advances, the pages' union is exact."
import pytest
from sample_services import load_library
from compoworld_nb.core import state_hash

def check_ok(svc, s, tool, args):
    "A read-only call: succeeds and returns the very same state (the hash is checked once per test, below)."
    new, o = svc.call(s, tool, args)
    assert o["ok"] and new is s, (tool, args, o)
    return new, o["data"]

LIB = load_library()
S0 = {n: LIB[n].initial_state(0) for n in ("crm", "forum", "notion", "github")}
H0 = {n: state_hash(s) for n, s in S0.items()}

@pytest.fixture(autouse=True)
def _unchanged():
    yield
    assert {n: state_hash(s) for n, s in S0.items()} == H0, "a list tool changed its state"

def _first(coll): return next(iter(coll.values()))
def _gh(): r = sorted(S0["github"].repos.values(), key=lambda r: r.id)[0]; return {"owner": r.owner, "repo": r.name}

# (service, tool, fixed args, list key, cursor arg, next-cursor path, limit arg, id key)
CURSOR = [
    ("crm", "search_contacts", {}, "items", "cursor", ("next_cursor",), "limit", "id"),
    ("crm", "list_companies", {}, "items", "cursor", ("next_cursor",), "limit", "id"),
    ("crm", "list_deals", {}, "items", "cursor", ("next_cursor",), "limit", "id"),
    ("crm", "list_activities", {}, "items", "cursor", ("next_cursor",), "limit", "id"),
    ("forum", "list_topics", {}, "topics", "cursor", ("next_cursor",), "limit", "id"),
    ("forum", "list_topics", {"order": "views"}, "topics", "cursor", ("next_cursor",), "limit", "id"),
    ("forum", "search_posts", {"query": "the"}, "posts", "cursor", ("next_cursor",), "limit", "id"),
    ("forum", "get_topic", {"topic_id": max(S0["forum"].topics.values(), key=lambda t: t.posts_count).id}, "posts", "cursor", ("next_cursor",), "limit", "id"),
    ("notion", "API-get-users", {}, "results", "start_cursor", ("next_cursor",), "page_size", "id"),
    ("notion", "API-post-search", {}, "results", "start_cursor", ("next_cursor",), "page_size", "id"),
    ("notion", "API-post-search", {"sort": {"direction": "ascending", "timestamp": "last_edited_time"}}, "results", "start_cursor", ("next_cursor",), "page_size", "id"),
    ("notion", "API-query-data-source", {"data_source_id": next(d.id for d in S0["notion"].data_sources.values() if d.title == "Tasks"),
                                          "sorts": [{"property": "Estimate", "direction": "descending"}]}, "results", "start_cursor", ("next_cursor",), "page_size", "id"),
    ("github", "list_issues", {**_gh()}, "issues", "after", ("pageInfo", "endCursor"), "perPage", "number"),
    ("github", "list_issues", {**_gh(), "orderBy": "COMMENTS", "direction": "ASC"}, "issues", "after", ("pageInfo", "endCursor"), "perPage", "number"),
]
NUMBERED = [("github", "search_issues", {"query": "is:issue"}, "items"), ("github", "list_commits", {**_gh()}, None),
            ("github", "list_pull_requests", {**_gh(), "state": "all"}, None), ("github", "search_repositories", {"query": "user:" + _gh()["owner"]}, "items")]


def _dig(d, path):
    for p in path: d = d[p]
    return d

def _walk(svc, s, tool, args, key, carg, cpath, larg, limit):
    ids, cursors, cur = [], [], None
    for _ in range(1000):
        a = {**args, larg: limit, **({carg: cur} if cur else {})}
        d = check_ok(svc, s, tool, a)[1]
        page = d[key]
        assert len(page) <= limit
        ids += [x[ID[tool]] for x in page]
        cur = _dig(d, cpath)
        if cur is None: return ids, cursors
        assert page, "a page with a next cursor is never empty"
        assert cur not in cursors, "a cursor never repeats"
        cursors.append(cur)
    raise AssertionError("paging did not end")

ID = {c[1]: c[7] for c in CURSOR}

@pytest.mark.parametrize("svc_name,tool,args,key,carg,cpath,larg,idk", CURSOR, ids=[f"{c[0]}.{c[1]}{'+' if c[2] and c[1] != 'get_topic' else ''}" for c in CURSOR])
def test_cursor_pages_union_is_exact(svc_name, tool, args, key, carg, cpath, larg, idk):
    svc, s = LIB[svc_name], S0[svc_name]
    whole = _walk(svc, s, tool, args, key, carg, cpath, larg, 100)[0]
    assert len(set(whole)) == len(whole) and len(whole) >= 3
    for limit in sorted({1 if len(whole) <= 12 else len(whole) // 5 + 1, 7}):   # at most ~6 pages per walk keeps this fast
        ids, cursors = _walk(svc, s, tool, args, key, carg, cpath, larg, limit)
        assert ids == whole                                                  # same order, no repeats, nothing skipped
        assert len(cursors) == max(0, -(-len(ids) // limit) - 1)

@pytest.mark.parametrize("svc_name,tool,args,key", NUMBERED, ids=[f"{n[0]}.{n[1]}" for n in NUMBERED])
def test_numbered_pages_union_is_exact(svc_name, tool, args, key):
    svc, s = LIB[svc_name], S0[svc_name]
    def page(p, per):
        d = check_ok(svc, s, tool, {**args, "page": p, "perPage": per})[1]
        items = d[key] if key else d
        return [x.get("sha") or x.get("full_name") or (x.get("repository"), x.get("number")) for x in items]
    def walk(per):
        got, p = [], 1
        while True:
            part = page(p, per)
            if not part: return got
            got += part; p += 1
    whole = walk(100)
    assert walk(len(whole) // 5 + 1) == whole and len(set(map(str, whole))) == len(whole)

def test_cursor_survives_deleting_the_cursor_item():
    "A cursor resumes after its item's position even when that item was deleted between pages."
    svc, s = LIB["crm"], S0["crm"].model_copy(deep=True)
    d = check_ok(svc, s, "search_contacts", {"limit": 5})[1]
    last = d["items"][-1]["id"]
    full = check_ok(svc, s, "search_contacts", {"limit": 100})[1]["items"]
    del s.contacts[last]
    nxt = check_ok(svc, s, "search_contacts", {"limit": 5, "cursor": d["next_cursor"]})[1]["items"]
    assert [x["id"] for x in nxt] == [x["id"] for x in full[5:10]]
