"notion: every tool's success case and each error it can return (JSON text accepted where the server accepts it)."
import json
import pytest
from sample_services.notion import service as svc
from svc_testkit import check_err, check_ok


@pytest.fixture(scope="module")
def s():
    return svc.initial_state(0)

def wiki(s): return next(p for p in s.pages.values() if p.parent_type == "page_id")
def root(s): return next(p for p in s.pages.values() if p.parent_type == "workspace")
def ds(s, title): return next(d for d in s.data_sources.values() if d.title == title)
def para(text): return {"type": "paragraph", "paragraph": {"rich_text": [{"type": "text", "text": {"content": text}}]}}
def title(text): return {"title": {"title": [{"text": {"content": text}}]}}


def test_users(s):
    me = check_ok(svc, s, "API-get-self", {})[1]
    assert me["type"] == "bot" and me["id"] == s.bot
    u = next(u for u in s.users.values() if u.type == "person")
    assert check_ok(svc, s, "API-get-user", {"user_id": u.id.replace("-", "")})[1]["person"]["email"] == u.email
    page1 = check_ok(svc, s, "API-get-users", {"page_size": 5})[1]
    page2 = check_ok(svc, s, "API-get-users", {"page_size": 100, "start_cursor": page1["next_cursor"]})[1]
    names = [x["name"] for x in page1["results"] + page2["results"]]
    assert len(names) == 13 and names == sorted(names) and not page2["has_more"]
    check_err(svc, s, "API-get-user", {"user_id": "nope"}, 404, "user_id")
    check_err(svc, s, "API-get-users", {"page_size": 0}, 422, "page_size")
    check_err(svc, s, "API-get-users", {"start_cursor": "%%%"}, 400, "start_cursor")

def test_search(s):
    p = wiki(s)
    res = check_ok(svc, s, "API-post-search", {"query": p.title.split()[0], "filter": json.dumps({"property": "object", "value": "page"})})[1]
    assert p.id in [r["id"] for r in res["results"]] and all(r["object"] == "page" for r in res["results"])
    dss = check_ok(svc, s, "API-post-search", {"filter": {"property": "object", "value": "data_source"}})[1]["results"]
    assert sorted(d["id"] for d in dss) == sorted(s.data_sources)
    asc = check_ok(svc, s, "API-post-search", {"sort": {"direction": "ascending", "timestamp": "last_edited_time"}, "page_size": 20})[1]["results"]
    assert [r["last_edited_time"] for r in asc] == sorted(r["last_edited_time"] for r in asc)
    for args, arg in [({"filter": {"property": "type", "value": "page"}}, "filter"), ({"sort": {"direction": "up"}}, "sort"),
                      ({"sort": "not json"}, "sort"), ({"filter": "[1]"}, "filter")]:
        check_err(svc, s, "API-post-search", args, 400, arg)

def test_pages(s):
    p = wiki(s)
    v = check_ok(svc, s, "API-retrieve-a-page", {"page_id": p.id})[1]
    assert v["properties"]["title"]["title"][0]["plain_text"] == p.title and v["parent"] == {"type": "page_id", "page_id": p.parent_id}
    new, d = check_ok(svc, s, "API-post-page", {"parent": json.dumps({"page_id": root(s).id}), "properties": title("Launch plan"),
                                                 "children": [para("First"), json.dumps(para("Second"))], "icon": '{"emoji": "🚀"}'})
    kids = check_ok(svc, new, "API-get-block-children", {"block_id": d["id"]})[1]["results"]
    assert [k["paragraph"]["rich_text"][0]["plain_text"] for k in kids] == ["First", "Second"] and d["icon"] == {"emoji": "🚀"}
    new2, d2 = check_ok(svc, new, "API-patch-page", {"page_id": d["id"], "properties": title("Launch plan v2"), "cover": {"external": {"url": "https://x/y.png"}}})
    assert new2.pages[d["id"]].title == "Launch plan v2" and d2["cover"]["external"]["url"] == "https://x/y.png"
    new3, _ = check_ok(svc, new2, "API-patch-page", {"page_id": d["id"], "in_trash": True})
    assert d["id"] not in [r["id"] for r in check_ok(svc, new3, "API-post-search", {"query": "Launch plan v2"})[1]["results"]]
    check_err(svc, new3, "API-patch-page", {"page_id": d["id"], "properties": title("x")}, 409, "page_id")
    check_err(svc, new3, "API-post-page", {"parent": {"page_id": d["id"]}, "properties": title("x")}, 409, "parent")
    for tool, args, code, arg in [("API-retrieve-a-page", {"page_id": "nope"}, 404, "page_id"), ("API-post-page", {"parent": {"page_id": "nope"}, "properties": title("x")}, 404, "parent"),
                                  ("API-post-page", {"parent": {"workspace": True}, "properties": title("x")}, 400, "parent"),
                                  ("API-post-page", {"parent": {"page_id": root(s).id}, "properties": {"Status": {}}}, 400, "properties"),
                                  ("API-post-page", {"parent": {"page_id": root(s).id}, "properties": title(" ")}, 400, "properties"),
                                  ("API-post-page", {"parent": {"page_id": root(s).id}, "properties": title("x"), "children": [{"type": "video"}]}, 400, "children.0"),
                                  ("API-post-page", {"parent": {"page_id": root(s).id}, "properties": title("x"), "icon": "🚀"}, 400, "icon"),
                                  ("API-post-page", {"parent": "{broken", "properties": title("x")}, 400, "parent"),
                                  ("API-patch-page", {"page_id": p.id}, 400, "page_id"), ("API-patch-page", {"page_id": p.id, "icon": {"nope": 1}}, 400, "icon"),
                                  ("API-patch-page", {"page_id": p.id, "properties": {"Owner": {}}}, 400, "properties"),
                                  ("API-patch-page", {"page_id": p.id, "properties": title("")}, 400, "properties"),
                                  ("API-patch-page", {"page_id": "nope", "archived": True}, 404, "page_id")]:
        check_err(svc, s, tool, args, code, arg)

def test_blocks(s):
    p = wiki(s)
    kids = check_ok(svc, s, "API-get-block-children", {"block_id": p.id, "page_size": 2})[1]
    rest = check_ok(svc, s, "API-get-block-children", {"block_id": p.id, "start_cursor": kids["next_cursor"]})[1]
    want = sorted((b for b in s.blocks.values() if b.parent_id == p.id), key=lambda b: (b.order, b.id))
    assert [b["id"] for b in kids["results"] + rest["results"]] == [b.id for b in want]
    first = want[0]
    new, d = check_ok(svc, s, "API-patch-block-children", {"block_id": p.id, "children": [para("Inserted")], "after": first.id})
    order = [b["id"] for b in check_ok(svc, new, "API-get-block-children", {"block_id": p.id})[1]["results"]]
    assert order[1] == d["results"][0]["id"] and order[0] == first.id
    assert check_ok(svc, s, "API-retrieve-a-block", {"block_id": first.id})[1]["id"] == first.id
    new2, d = check_ok(svc, s, "API-delete-a-block", {"block_id": first.id})
    assert d["archived"] and first.id not in [b["id"] for b in check_ok(svc, new2, "API-get-block-children", {"block_id": p.id})[1]["results"]]
    check_err(svc, new2, "API-delete-a-block", {"block_id": first.id}, 409, "block_id")
    check_err(svc, new2, "API-get-block-children", {"block_id": first.id}, 404, "block_id")
    todo = {"type": "to_do", "to_do": {"rich_text": [{"text": {"content": "Call"}}], "checked": True}}
    new3, d = check_ok(svc, s, "API-patch-block-children", {"block_id": first.id, "children": [todo]})
    assert d["results"][0]["to_do"]["checked"] is True and new3.blocks[first.id].has_children
    for tool, args, code, arg in [("API-patch-block-children", {"block_id": p.id, "children": []}, 400, "children"),
                                  ("API-patch-block-children", {"block_id": p.id, "children": [para("x")], "after": "nope"}, 404, "after"),
                                  ("API-patch-block-children", {"block_id": "nope", "children": [para("x")]}, 404, "block_id"),
                                  ("API-patch-block-children", {"block_id": p.id, "children": [{"type": "paragraph", "paragraph": {}}]}, 400, "children.0"),
                                  ("API-patch-block-children", {"block_id": p.id, "children": [{"paragraph": {"rich_text": [{"text": {}}]}}]}, 400, "children.0.paragraph.rich_text.0"),
                                  ("API-patch-block-children", {"block_id": p.id, "children": [para("x")] * 101}, 422, "children"),
                                  ("API-retrieve-a-block", {"block_id": "nope"}, 404, "block_id"), ("API-delete-a-block", {"block_id": "nope"}, 404, "block_id")]:
        check_err(svc, s, tool, args, code, arg)
    trashed = s.model_copy(deep=True); trashed.pages[p.id].in_trash = True
    check_err(svc, trashed, "API-patch-block-children", {"block_id": p.id, "children": [para("x")]}, 409, "block_id")

def test_comments(s):
    p = wiki(s)
    new, d = check_ok(svc, s, "API-create-a-comment", {"parent": {"page_id": p.id}, "rich_text": [{"text": {"content": "Nice"}}, '{"text": {"content": "!"}}']})
    assert d["rich_text"][0]["plain_text"] == "Nice!"
    cs = check_ok(svc, new, "API-retrieve-a-comment", {"block_id": p.id})[1]["results"]
    assert cs[-1]["id"] == d["id"] and [c["created_time"] for c in cs] == sorted(c["created_time"] for c in cs)
    for args, code, arg in [({"parent": {"block_id": p.id}, "rich_text": [{"text": {"content": "x"}}]}, 400, "parent"),
                            ({"parent": {"page_id": "nope"}, "rich_text": [{"text": {"content": "x"}}]}, 404, "parent"),
                            ({"parent": {"page_id": p.id}, "rich_text": [{"text": {"content": " "}}]}, 400, "rich_text")]:
        check_err(svc, s, "API-create-a-comment", args, code, arg)
    check_err(svc, s, "API-retrieve-a-comment", {"block_id": "nope"}, 404, "block_id")

def test_data_sources(s):
    d = ds(s, "Projects")
    v = check_ok(svc, s, "API-retrieve-a-data-source", {"data_source_id": d.id})[1]
    assert set(v["properties"]) == set(d.property_types) and [o["name"] for o in v["properties"]["Status"]["select"]["options"]] == d.options["Status"]
    rows = check_ok(svc, s, "API-query-data-source", {"data_source_id": d.id, "filter": {"and": [{"property": "Status", "select": {"equals": "Active"}},
                                                                                           {"property": "Budget", "number": {"greater_than": 50000}}]},
                                                      "sorts": [{"property": "Budget", "direction": "descending"}]})[1]["results"]
    budgets = [r["properties"]["Budget"]["number"] for r in rows]
    assert rows and budgets == sorted(budgets, reverse=True) and all(b > 50000 for b in budgets)
    assert all(r["properties"]["Status"]["select"]["name"] == "Active" for r in rows)
    t = ds(s, "Tasks")
    done = check_ok(svc, s, "API-query-data-source", {"data_source_id": t.id, "filter": json.dumps({"or": [{"property": "Done", "checkbox": {"equals": True}}]})})[1]
    assert done["results"] and all(r["properties"]["Done"]["checkbox"] for r in done["results"])
    new, row = check_ok(svc, s, "API-post-page", {"parent": {"data_source_id": t.id}, "properties": {"Task": {"title": [{"text": {"content": "Write tests"}}]},
                                                                                                   "Priority": {"select": {"name": "High"}}, "Done": {"checkbox": False}}})
    hit = check_ok(svc, new, "API-query-data-source", {"data_source_id": t.id, "filter": {"property": "Task", "title": {"contains": "write tests"}}})[1]["results"]
    assert [r["id"] for r in hit] == [row["id"]]
    new2, _ = check_ok(svc, new, "API-patch-page", {"page_id": row["id"], "properties": {"Done": {"checkbox": True}}})
    check_err(svc, new, "API-patch-page", {"page_id": row["id"], "properties": {"Colour": {"select": {"name": "x"}}}}, 400, "properties")
    assert new2.pages[row["id"]].properties["Done"]["checkbox"] is True
    for args, arg in [({"filter": {"property": "Nope", "select": {"equals": "x"}}}, "filter"), ({"filter": {"property": "Budget", "number": {"approx": 1}}}, "filter"),
                      ({"filter": {"and": []}}, "filter"), ({"filter": {"and": ["Status"]}}, "filter"), ({"filter": {"property": "Budget"}}, "filter"), ({"sorts": [{"property": "Nope", "direction": "ascending"}]}, "sorts"),
                      ({"sorts": [{"property": "Budget", "direction": "up"}]}, "sorts"), ({"sorts": [{"timestamp": "x", "direction": "ascending"}]}, "sorts")]:
        check_err(svc, s, "API-query-data-source", {"data_source_id": d.id, **args}, 400, arg)
    check_err(svc, s, "API-query-data-source", {"data_source_id": "nope"}, 404, "data_source_id")
    check_err(svc, s, "API-retrieve-a-data-source", {"data_source_id": "nope"}, 404, "data_source_id")
    for props, code in [({"Task": {"title": []}}, 400), ({"Task": {"title": [{"text": {"content": "x"}}]}, "Priority": {"select": {"name": "Urgent"}}}, 422),
                        ({"Task": {"title": [{"text": {"content": "x"}}]}, "Estimate": {"number": "3"}}, 400),
                        ({"Task": {"title": [{"text": {"content": "x"}}]}, "Done": {"checkbox": "yes"}}, 400),
                        ({"Task": {"title": [{"text": {"content": "x"}}]}, "Assignee": {"people": [{"id": "nope"}]}}, 404)]:
        check_err(svc, s, "API-post-page", {"parent": {"data_source_id": t.id}, "properties": props}, code, "properties")
    check_err(svc, s, "API-post-page", {"parent": {"data_source_id": "nope"}, "properties": {}}, 404, "parent")
