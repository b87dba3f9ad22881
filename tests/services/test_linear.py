"linear: every tool's success case and each error code it can return."
import pytest
from sample_services.linear import service as svc
from svc_testkit import check_err, check_ok


@pytest.fixture
def s():
    return svc.initial_state(0)

def live(s): return next(i for i in s.issues.values() if not i.archived)
def archived(s): return next(i for i in s.issues.values() if i.archived)


def test_create_issue(s):
    team = next(iter(s.teams.values()))
    new, d = check_ok(svc, s, "linear_create_issue", {"title": "Broken export", "teamId": team.id, "description": "see log",
                                                      "priority": 2, "status": "in progress"})
    i = new.issues[d["id"]]
    assert d["identifier"] == f"{team.id}-{team.next_number}" and i.status == "In Progress" and i.priority == 2
    assert d["url"].endswith(d["identifier"]) and new.teams[team.id].next_number == team.next_number + 1
    new2, d2 = check_ok(svc, new, "linear_create_issue", {"title": "Next", "teamId": team.id.lower()})
    assert d2["identifier"] == f"{team.id}-{team.next_number + 1}" and d2["status"] == "Todo" and d2["priority"] == 0

@pytest.mark.parametrize("change,code,arg", [({"title": " "}, 422, "title"), ({"teamId": "NOPE"}, 404, "teamId"),
                                             ({"priority": 5}, 422, "priority"), ({"priority": -1}, 422, "priority"),
                                             ({"priority": 1.5}, 422, "priority"), ({"status": "Someday"}, 422, "status"),
                                             ({"priority": "high"}, 400, "priority")])
def test_create_issue_errors(s, change, code, arg):
    check_err(svc, s, "linear_create_issue", {"title": "T", "teamId": next(iter(s.teams)), **change}, code, arg)

def test_update_issue(s):
    i = live(s)
    new, d = check_ok(svc, s, "linear_update_issue", {"id": i.identifier, "status": "Done", "priority": 1, "title": "New title"})
    j = new.issues[i.id]
    assert (j.status, j.priority, j.title) == ("Done", 1, "New title") and j.updatedAt > i.updatedAt
    new, d = check_ok(svc, s, "linear_update_issue", {"id": i.id, "description": "more"})
    assert new.issues[i.id].description == "more"

@pytest.mark.parametrize("args,code,arg", [({"id": "ENG-9999", "title": "x"}, 404, "id"), ({"title": ""}, 422, "title"),
                                           ({}, 422, "id"), ({"priority": 7}, 422, "priority"), ({"status": "Later"}, 422, "status"),
                                           ({"archived": True, "title": "x"}, 409, "id")])
def test_update_issue_errors(s, args, code, arg):
    args = dict(args)
    target = archived(s) if args.pop("archived", False) else live(s)
    check_err(svc, s, "linear_update_issue", {"id": target.id, **args}, code, arg)

def test_search_issues(s):
    i = live(s)
    word = i.title.split()[-1]
    _, d = check_ok(svc, s, "linear_search_issues", {"query": word, "limit": 100})
    assert i.id in [x["id"] for x in d["issues"]] and all(word.lower() in (x["title"] + x["description"]).lower() for x in d["issues"])
    _, d = check_ok(svc, s, "linear_search_issues", {"teamId": i.teamId, "status": i.status, "limit": 100})
    assert d["issues"] and all(x["teamId"] == i.teamId and x["status"] == i.status for x in d["issues"])
    _, d = check_ok(svc, s, "linear_search_issues", {})
    assert len(d["issues"]) == 10 and d["total"] == sum(not x.archived for x in s.issues.values())
    upd = [x["updatedAt"] for x in d["issues"]]
    assert upd == sorted(upd, reverse=True)
    _, d = check_ok(svc, s, "linear_search_issues", {"includeArchived": True, "limit": 1000})
    assert len(d["issues"]) == len(s.issues)
    lab = next(x for x in s.issues.values() if x.labels).labels[0]
    _, d = check_ok(svc, s, "linear_search_issues", {"labels": [lab], "priority": 3, "limit": 100})
    assert all(lab in x["labels"] and x["priority"] == 3 for x in d["issues"])
    _, d = check_ok(svc, s, "linear_search_issues", {"assigneeId": s.me, "estimate": 3})
    assert all(x["assigneeId"] == s.me and x["estimate"] == 3 for x in d["issues"])

@pytest.mark.parametrize("args,code,arg", [({"teamId": "XYZ"}, 404, "teamId"), ({"assigneeId": "usr_nope"}, 404, "assigneeId"),
                                           ({"status": "Nope"}, 422, "status"), ({"priority": 9}, 422, "priority"),
                                           ({"limit": 0}, 422, "limit"), ({"labels": "bug"}, 400, "labels")])
def test_search_issues_errors(s, args, code, arg):
    check_err(svc, s, "linear_search_issues", args, code, arg)

def test_get_user_issues(s):
    _, d = check_ok(svc, s, "linear_get_user_issues", {})
    assert all(x["assigneeId"] == s.me and not x["archived"] for x in d["issues"])
    other = next(u for u in s.users if u != s.me and any(i.assigneeId == u for i in s.issues.values()))
    _, d = check_ok(svc, s, "linear_get_user_issues", {"userId": other, "includeArchived": True, "limit": 2})
    assert 1 <= len(d["issues"]) <= 2 and all(x["assigneeId"] == other for x in d["issues"])
    check_err(svc, s, "linear_get_user_issues", {"userId": "usr_nope"}, 404, "userId")
    check_err(svc, s, "linear_get_user_issues", {"limit": 0}, 422, "limit")

def test_add_comment(s):
    i = live(s)
    new, d = check_ok(svc, s, "linear_add_comment", {"issueId": i.identifier, "body": "LGTM", "createAsUser": "Bot",
                                                     "displayIconUrl": "https://example.com/a.png"})
    c = new.comments[d["comment"]["id"]]
    assert c.issueId == i.id and c.createAsUser == "Bot" and d["issue"] == i.identifier
    for args, code, arg in [({"issueId": "nope", "body": "x"}, 404, "issueId"), ({"issueId": i.id, "body": " "}, 422, "body"),
                            ({"issueId": i.id, "body": "x", "displayIconUrl": "ftp://x"}, 422, "displayIconUrl"),
                            ({"issueId": archived(s).id, "body": "x"}, 409, "issueId")]:
        check_err(svc, s, "linear_add_comment", args, code, arg)

def test_fixture_identifiers(s):
    for t in s.teams.values():
        nums = sorted(int(i.identifier.split("-")[1]) for i in s.issues.values() if i.teamId == t.id)
        assert nums == list(range(1, t.next_number))
    assert all(c.issueId in s.issues for c in s.comments.values())
