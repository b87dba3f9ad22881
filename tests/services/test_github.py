"github: every tool's success case and each error it can return."
import pytest
from sample_services.github import service as svc
from svc_testkit import check_err, check_ok


@pytest.fixture(scope="module")
def s():
    return svc.initial_state(0)

def repo(s): return sorted(s.repos.values(), key=lambda r: r.id)[0]
def R(s): r = repo(s); return {"owner": r.owner, "repo": r.name}
def open_issue(s): r = repo(s); return next(i for i in s.issues.values() if i.repo == r.id and i.state == "open")


def test_me_repos_and_stars(s):
    me = check_ok(svc, s, "get_me", {})[1]
    assert me["login"] == s.me and me["name"]
    hits = check_ok(svc, s, "search_repositories", {"query": "service"})[1]
    assert hits["total_count"] == len(hits["items"]) and all("service" in (i["name"] + i["description"]).lower() for i in hits["items"])
    org = repo(s).owner
    assert check_ok(svc, s, "search_repositories", {"query": f"user:{org}", "perPage": 100})[1]["total_count"] == 8
    by_stars = check_ok(svc, s, "search_repositories", {"query": f"user:{org}", "sort": "stars", "order": "asc"})[1]["items"]
    assert [i["stargazers_count"] for i in by_stars] == sorted(i["stargazers_count"] for i in by_stars)
    names = check_ok(svc, s, "search_repositories", {"query": "app in:name", "minimal_output": False})[1]["items"]
    assert names and all("app" in i["name"] for i in names) and "default_branch" in names[0]
    r = next(r for r in s.repos.values() if s.me not in r.stargazers)
    new, _ = check_ok(svc, s, "star_repository", {"owner": r.owner, "repo": r.name})
    new2, _ = check_ok(svc, new, "star_repository", {"owner": r.owner, "repo": r.name})
    assert new2.repos[r.id].stargazers.count(s.me) == 1
    assert r.id in [x["full_name"] for x in check_ok(svc, new, "list_starred_repositories", {})[1]]
    new3, _ = check_ok(svc, new, "unstar_repository", {"owner": r.owner, "repo": r.name})
    assert new3.repos[r.id].stargazers == r.stargazers
    check_ok(svc, s, "unstar_repository", {"owner": r.owner, "repo": r.name})
    for tool, args, code, arg in [("search_repositories", {"query": " "}, 422, "query"), ("search_repositories", {"query": "x", "sort": "forks"}, 422, "sort"),
                                  ("search_repositories", {"query": "x", "page": 0}, 422, "page"), ("search_repositories", {"query": "x", "perPage": 101}, 422, "perPage"),
                                  ("star_repository", {"owner": "nope", "repo": "nope"}, 404, "repo"), ("unstar_repository", {"owner": org, "repo": "nope"}, 404, "repo"),
                                  ("list_starred_repositories", {"username": "nobody"}, 404, "username")]:
        check_err(svc, s, tool, args, code, arg)

def test_branches_files_commits(s):
    r = repo(s)
    bs = check_ok(svc, s, "list_branches", {**R(s)})[1]
    assert [b["name"] for b in bs] == sorted(b["name"] for b in bs) and "main" in [b["name"] for b in bs]
    new, d = check_ok(svc, s, "create_branch", {**R(s), "branch": "fix/typo"})
    assert d["object"]["sha"] == s.branches[f"{r.id}:main"].head
    root = check_ok(svc, new, "get_file_contents", {**R(s), "ref": "refs/heads/fix/typo"})[1]
    assert [e["type"] for e in root][:2] == ["dir", "dir"] and any(e["name"] == "README.md" for e in root)
    readme = check_ok(svc, new, "get_file_contents", {**R(s), "path": "README.md", "ref": "fix/typo"})[1]
    new2, d = check_ok(svc, new, "create_or_update_file", {**R(s), "path": "README.md", "content": "# New\n", "message": "Rewrite README",
                                                           "branch": "fix/typo", "sha": readme["sha"]})
    assert check_ok(svc, new2, "get_file_contents", {**R(s), "path": "README.md", "ref": "fix/typo"})[1]["content"] == "# New\n"
    assert check_ok(svc, new2, "get_file_contents", {**R(s), "path": "README.md"})[1]["content"] == readme["content"]   # main untouched
    new3, d2 = check_ok(svc, new2, "create_or_update_file", {**R(s), "path": "docs/new.md", "content": "x", "message": "Add doc", "branch": "fix/typo"})
    commits = check_ok(svc, new3, "list_commits", {**R(s), "sha": "fix/typo", "perPage": 3})[1]
    assert [c["commit"]["message"] for c in commits[:2]] == ["Add doc", "Rewrite README"] and commits[1]["sha"] == d["commit"]["sha"]
    assert all(c["commit"]["message"] != "Add doc" for c in check_ok(svc, new3, "list_commits", {**R(s)})[1])
    only = check_ok(svc, new3, "list_commits", {**R(s), "sha": "fix/typo", "path": "docs/new.md"})[1]
    assert [c["commit"]["message"] for c in only] == ["Add doc"]
    since = check_ok(svc, s, "list_commits", {**R(s), "since": "2025-02-01T00:00:00Z", "perPage": 100})[1]
    assert all(c["commit"]["author"]["date"] >= "2025-02-01T00:00:00Z" for c in since)
    for tool, args, code, arg in [("create_branch", {**R(s), "branch": "main"}, 409, "branch"), ("create_branch", {**R(s), "branch": "bad..name"}, 422, "branch"),
                                  ("create_branch", {**R(s), "branch": "x", "from_branch": "nope"}, 404, "from_branch"), ("list_branches", {"owner": "x", "repo": "y"}, 404, "repo"),
                                  ("get_file_contents", {**R(s), "path": "nope.txt"}, 404, "path"), ("get_file_contents", {**R(s), "ref": "nope"}, 404, "ref"),
                                  ("create_or_update_file", {**R(s), "path": "README.md", "content": "x", "message": "m", "branch": "main"}, 422, "sha"),
                                  ("create_or_update_file", {**R(s), "path": "README.md", "content": "x", "message": "m", "branch": "main", "sha": "0" * 40}, 409, "sha"),
                                  ("create_or_update_file", {**R(s), "path": "new.txt", "content": "x", "message": "m", "branch": "main", "sha": "0" * 40}, 422, "sha"),
                                  ("create_or_update_file", {**R(s), "path": "src", "content": "x", "message": "m", "branch": "main"}, 422, "path"),
                                  ("create_or_update_file", {**R(s), "path": "/", "content": "x", "message": "m", "branch": "main"}, 422, "path"),
                                  ("create_or_update_file", {**R(s), "path": "a.txt", "content": "x", "message": " ", "branch": "main"}, 422, "message"),
                                  ("create_or_update_file", {**R(s), "path": "a.txt", "content": "x", "message": "m", "branch": "nope"}, 404, "branch"),
                                  ("list_commits", {**R(s), "since": "yesterday"}, 422, "since"), ("list_commits", {**R(s), "sha": "nope"}, 404, "sha")]:
        check_err(svc, s, tool, args, code, arg)

def test_issue_lifecycle(s):
    new, d = check_ok(svc, s, "create_issue", {**R(s), "title": "Export breaks", "body": "Steps..."})
    n = d["number"]; assert n == repo(s).next_number and d["state"] == "open"
    new, d = check_ok(svc, new, "update_issue_title", {**R(s), "issue_number": n, "title": "CSV export breaks"})
    new, d = check_ok(svc, new, "update_issue_body", {**R(s), "issue_number": n, "body": "New steps"})
    new, d = check_ok(svc, new, "update_issue_labels", {**R(s), "issue_number": n, "labels": ["BUG", {"name": "performance", "confidence": "HIGH"}]})
    assert d["labels"] == ["bug", "performance"]
    logins = [u for u in s.users if u != repo(s).owner][:2]
    new, d = check_ok(svc, new, "update_issue_assignees", {**R(s), "issue_number": n, "assignees": logins})
    assert d["assignees"] == logins
    new, d = check_ok(svc, new, "add_issue_comment", {**R(s), "issue_number": n, "body": "On it"})
    assert new.issues[f"{repo(s).id}#{n}"].comments == 1 and d["user"] == s.me
    new, d = check_ok(svc, new, "update_issue_state", {**R(s), "issue_number": n, "state": "closed", "state_reason": "not_planned"})
    assert (d["state"], d["state_reason"], d["title"], d["body"]) == ("closed", "not_planned", "CSV export breaks", "New steps")
    check_err(svc, new, "update_issue_state", {**R(s), "issue_number": n, "state": "closed"}, 409, "state")
    new2, d = check_ok(svc, new, "update_issue_state", {**R(s), "issue_number": n, "state": "open"})
    assert d["state_reason"] == "reopened"
    i = open_issue(s)
    other = next(j for j in s.issues.values() if j.repo == i.repo and j.number != i.number)
    new3, d = check_ok(svc, s, "update_issue_state", {**R(s), "issue_number": i.number, "state": "closed", "state_reason": "duplicate", "duplicate_of": other.number})
    assert d["state_reason"] == "duplicate"

def test_issue_errors(s):
    i = open_issue(s)
    pr = next(p for p in s.pulls.values() if p.repo == repo(s).id)
    base = {**R(s), "issue_number": i.number}
    for tool, args, code, arg in [("create_issue", {**R(s), "title": " "}, 422, "title"), ("create_issue", {"owner": "x", "repo": "y", "title": "t"}, 404, "repo"),
                                  ("update_issue_title", {**base, "issue_number": 999, "title": "x"}, 404, "issue_number"),
                                  ("update_issue_title", {**base, "issue_number": pr.number, "title": "x"}, 422, "issue_number"),
                                  ("update_issue_title", {**base, "title": ""}, 422, "title"), ("update_issue_body", {**base, "issue_number": 999, "body": "x"}, 404, "issue_number"),
                                  ("update_issue_labels", {**base, "labels": ["nope"]}, 422, "labels"), ("update_issue_labels", {**base, "labels": [{"name": "bug", "bogus": 1}]}, 400, "labels.0.str"),
                                  ("update_issue_assignees", {**base, "assignees": ["nobody"]}, 422, "assignees"),
                                  ("update_issue_state", {**base, "state": "open", "state_reason": "completed"}, 422, "state_reason"),
                                  ("update_issue_state", {**base, "state": "closed", "state_reason": "duplicate"}, 422, "duplicate_of"),
                                  ("update_issue_state", {**base, "state": "closed", "state_reason": "duplicate", "duplicate_of": i.number}, 422, "duplicate_of"),
                                  ("update_issue_state", {**base, "state": "closed", "state_reason": "duplicate", "duplicate_of": 999}, 404, "duplicate_of"),
                                  ("update_issue_state", {**base, "state": "done"}, 400, "state"), ("update_issue_state", {**base, "state": "open"}, 409, "state"),
                                  ("add_issue_comment", {**base, "body": " "}, 422, "body"), ("add_issue_comment", {**base}, 422, "body"),
                                  ("add_issue_comment", {**base, "issue_number": 999, "body": "x"}, 404, "issue_number")]:
        check_err(svc, s, tool, args, code, arg)
    many = [u for u in s.users][:11]
    check_err(svc, s, "update_issue_assignees", {**base, "assignees": many}, 422, "assignees")

def test_list_and_search_issues(s):
    r = repo(s)
    all_ = check_ok(svc, s, "list_issues", {**R(s), "perPage": 100})[1]
    assert all_["totalCount"] == sum(1 for i in s.issues.values() if i.repo == r.id) and not all_["pageInfo"]["hasNextPage"]
    keys = [(i["created_at"], i["number"]) for i in all_["issues"]]
    assert keys == sorted(keys, reverse=True)
    asc = check_ok(svc, s, "list_issues", {**R(s), "orderBy": "COMMENTS", "direction": "ASC", "perPage": 100})[1]["issues"]
    assert [(i["comments"], i["number"]) for i in asc] == sorted((i["comments"], i["number"]) for i in asc)
    closed = check_ok(svc, s, "list_issues", {**R(s), "state": "CLOSED", "perPage": 100})[1]["issues"]
    assert closed and all(i["state"] == "closed" for i in closed)
    lab = next(l for i in s.issues.values() if i.repo == r.id for l in i.labels)
    assert all(lab in i["labels"] for i in check_ok(svc, s, "list_issues", {**R(s), "labels": [lab.upper()]})[1]["issues"])
    for args, code, arg in [({"orderBy": "COMMENTS"}, 422, "direction"), ({"direction": "ASC"}, 422, "orderBy"), ({"since": "x"}, 422, "since"),
                            ({"after": "garbage!"}, 400, "after"), ({"perPage": 0}, 422, "perPage"),
                            ({"orderBy": "COMMENTS", "direction": "ASC", "after": all_["pageInfo"]["endCursor"] or
                              check_ok(svc, s, "list_issues", {**R(s), "perPage": 1})[1]["pageInfo"]["endCursor"]}, 400, "after")]:   # a cursor of another order
        check_err(svc, s, "list_issues", {**R(s), **args}, code, arg)
    i = open_issue(s)
    word = i.title.split()[-1]
    hits = check_ok(svc, s, "search_issues", {"query": f"{word} is:open", "owner": r.owner, "repo": r.name})[1]
    assert i.number in [x["number"] for x in hits["items"]] and all(x["state"] == "open" for x in hits["items"])
    prs = check_ok(svc, s, "search_issues", {"query": f"is:pr repo:{r.id}"})[1]
    assert prs["total_count"] == sum(1 for p in s.pulls.values() if p.repo == r.id) and all("/pull/" in x["html_url"] for x in prs["items"])
    by = check_ok(svc, s, "search_issues", {"query": f"author:{i.user}", "sort": "created", "order": "asc"})[1]["items"]
    assert [x["created_at"] for x in by] == sorted(x["created_at"] for x in by)
    for args, code, arg in [({"query": " "}, 422, "query"), ({"query": "x", "owner": r.owner}, 422, "repo"), ({"query": "x", "sort": "reactions"}, 422, "sort"),
                            ({"query": "x", "owner": "no", "repo": "pe"}, 404, "repo")]:
        check_err(svc, s, "search_issues", args, code, arg)

def test_labels(s):
    labs = check_ok(svc, s, "list_label", {**R(s)})[1]
    assert [(-l["issues"], l["name"]) for l in labs] == sorted((-l["issues"], l["name"]) for l in labs) and len(labs) == 8
    assert check_ok(svc, s, "get_label", {**R(s), "name": "BUG"})[1]["name"] == "bug"
    check_err(svc, s, "get_label", {**R(s), "name": "nope"}, 404, "name")
    check_err(svc, s, "list_label", {"owner": "x", "repo": "y"}, 404, "repo")

def test_pull_requests(s):
    r = repo(s)
    new, _ = check_ok(svc, s, "create_branch", {**R(s), "branch": "feat/x"})
    readme = check_ok(svc, new, "get_file_contents", {**R(s), "path": "README.md", "ref": "feat/x"})[1]
    new, _ = check_ok(svc, new, "create_or_update_file", {**R(s), "path": "README.md", "content": "# X\n", "message": "x", "branch": "feat/x", "sha": readme["sha"]})
    check_err(svc, s, "create_pull_request", {**R(s), "title": "X", "head": "main", "base": "main"}, 422, "head")
    new2, d = check_ok(svc, new, "create_pull_request", {**R(s), "title": "Feature X", "head": "feat/x", "base": "main", "reviewers": [s.me]})
    n = d["number"]
    check_err(svc, new2, "create_pull_request", {**R(s), "title": "again", "head": "feat/x", "base": "main"}, 409, "head")
    lst = check_ok(svc, new2, "list_pull_requests", {**R(s), "head": f"{r.owner}:feat/x"})[1]
    assert [p["number"] for p in lst] == [n]
    new3, d = check_ok(svc, new2, "merge_pull_request", {**R(s), "pullNumber": n, "merge_method": "squash"})
    assert d["merged"] and check_ok(svc, new3, "get_file_contents", {**R(s), "path": "README.md"})[1]["content"] == "# X\n"
    assert new3.pulls[f"{r.id}#{n}"].state == "closed" and new3.branches[f"{r.id}:main"].head == d["sha"]
    check_err(svc, new3, "merge_pull_request", {**R(s), "pullNumber": n}, 409, "pullNumber")
    assert n in [p["number"] for p in check_ok(svc, new3, "list_pull_requests", {**R(s), "state": "closed"})[1]]
    draft = next((p for p in s.pulls.values() if p.draft), None)
    if draft: check_err(svc, s, "merge_pull_request", {"owner": draft.repo.split("/")[0], "repo": draft.repo.split("/")[1], "pullNumber": draft.number}, 422, "pullNumber")
    fresh = new.model_copy(deep=True)
    check_ok(svc, fresh, "create_branch", {**R(s), "branch": "same"})
    same, _ = check_ok(svc, fresh, "create_branch", {**R(s), "branch": "same"})
    for tool, args, code, arg in [("create_pull_request", {**R(s), "title": " ", "head": "feat/x", "base": "main"}, 422, "title"),
                                  ("create_pull_request", {**R(s), "title": "t", "head": "nope", "base": "main"}, 404, "head"),
                                  ("create_pull_request", {**R(s), "title": "t", "head": "feat/x", "base": "nope"}, 404, "base"),
                                  ("create_pull_request", {**R(s), "title": "t", "head": "feat/x", "base": "main", "reviewers": ["nobody"]}, 422, "reviewers"),
                                  ("list_pull_requests", {**R(s), "sort": "popularity"}, 422, "sort"), ("merge_pull_request", {**R(s), "pullNumber": 999}, 404, "pullNumber")]:
        check_err(svc, new, tool, args, code, arg)
    check_err(svc, same, "create_pull_request", {**R(s), "title": "t", "head": "same", "base": "main"}, 422, "head")
