"""GitHub: repositories with branches, files and commits, issues, pull requests, labels, comments and stars.

Tool names and parameters follow GitHub's MCP server (`../shared/specs/mcp/github.json`, mixed `perPage`/`issue_number`/
`pullNumber` casing kept); 24 of its 117 tools are implemented. Repositories are `owner/name`; issues and pull
requests share one number sequence per repository, as on GitHub. Files live per branch; a branch points at a head
commit and commits chain by parent, so `list_commits` walks history from a branch.

Pagination: `list_issues` pages with an opaque `after` cursor (from `pageInfo.endCursor`); the other list tools
take 1-based `page`/`perPage`. Every order is stable (documented per tool, ties broken by number or name).
Search (`search_issues`, `search_repositories`) matches every plain word of the query (case-insensitive) and
understands the qualifiers `is:open`, `is:closed`, `is:issue`, `is:pr`, `label:X`, `repo:owner/name`, `author:login`,
`user:login` and `in:name`.
"""
from __future__ import annotations
import functools, hashlib, posixpath, re
from datetime import timedelta
from typing import Literal, Optional, Union
from pydantic import BaseModel, ConfigDict, Field
from compoworld_nb.core import EPOCH, ToolError
from compoworld_nb.service import Record, State, Service
from compoworld_nb.steps import Visit, add_step
from compoworld_nb.state import read, scan, ids, has, size, writable, put
from .kit import cursor_page, number_page, inline_schemas, matches, Query, planted_record_step
from .world import make_world, service_rng, service_faker, reveal_value, iso, parse_iso

__all__ = ["service", "GithubState"]


class User(Record):
    id: str                      # login
    name: str
    email: str = ""
    bio: str = ""

class Repo(Record):
    id: str                      # "owner/name"
    owner: str
    name: str
    description: str = ""
    private: bool = False
    default_branch: str = "main"
    language: str = ""
    topics: list[str] = []
    stargazers: list[str] = []
    next_number: int = 1
    created_at: str
    updated_at: str

class Branch(Record):
    id: str                      # "owner/name:branch"
    repo: str
    name: str
    head: str                    # commit sha

class Commit(Record):
    id: str                      # sha
    repo: str
    message: str
    author: str
    date: str
    parents: list[str] = []
    files: list[str] = []        # paths it touched

class FileBlob(Record):
    id: str                      # "owner/name:branch:path"
    repo: str
    branch: str
    path: str
    content: str
    sha: str                     # blob sha (sha1 of the content, as git computes it)

class Issue(Record):
    id: str                      # "owner/name#number"
    repo: str
    number: int
    title: str
    body: str = ""
    state: Literal["open", "closed"] = "open"
    state_reason: Optional[str] = None
    labels: list[str] = []
    assignees: list[str] = []
    user: str
    comments: int = 0
    created_at: str
    updated_at: str

class Pull(Record):
    id: str                      # "owner/name#number"
    repo: str
    number: int
    title: str
    body: str = ""
    head: str
    base: str
    state: Literal["open", "closed"] = "open"
    merged: bool = False
    draft: bool = False
    user: str
    merge_commit_sha: Optional[str] = None
    requested_reviewers: list[str] = []
    created_at: str
    updated_at: str

class IssueComment(Record):
    id: str
    repo: str
    issue_number: int
    body: str
    user: str
    created_at: str

class Label(Record):
    id: str                      # "owner/name:label"
    repo: str
    name: str
    color: str
    description: str = ""


class GithubState(State):
    me: str = ""
    users: dict[str, User] = {}
    repos: dict[str, Repo] = {}
    branches: dict[str, Branch] = {}
    commits: dict[str, Commit] = {}
    files: dict[str, FileBlob] = {}
    issues: dict[str, Issue] = {}
    pulls: dict[str, Pull] = {}
    comments: dict[str, IssueComment] = {}
    labels: dict[str, Label] = {}


service = Service("github", "software development & DevOps", GithubState,
                  "GitHub repositories: files and branches, commits, issues, pull requests, labels and stars.", spec="github")


# --- helpers --------------------------------------------------------------------------------------
def _repo(s: GithubState, owner: str, repo: str) -> Repo:
    k = f"{owner}/{repo}"
    r = read(s, "repos", k) or next((x for x in scan(s, "repos") if x.id.lower() == k.lower()), None)
    if r is None: raise ToolError(404, f"no repository {owner}/{repo} (owner={owner!r}, repo={repo!r})", "repo")
    return r

def _branch(s: GithubState, r: Repo, name: Optional[str], arg: str = "branch") -> Branch:
    name = name or r.default_branch
    if name.startswith("refs/heads/"): name = name[len("refs/heads/"):]
    b = read(s, "branches", f"{r.id}:{name}")
    if b is None: raise ToolError(404, f"no branch {arg}={name!r} in {r.id}", arg)
    return b

def _issue(s: GithubState, r: Repo, n: int, arg: str = "issue_number") -> Issue:
    i = read(s, "issues", f"{r.id}#{n}")
    if i is None:
        if has(s, "pulls", f"{r.id}#{n}"): raise ToolError(422, f"#{n} in {r.id} is a pull request, not an issue", arg)
        raise ToolError(404, f"no issue {arg}={n} in {r.id}", arg)
    return i

def _pull(s: GithubState, r: Repo, n: int) -> Pull:
    p = read(s, "pulls", f"{r.id}#{n}")
    if p is None: raise ToolError(404, f"no pull request pullNumber={n} in {r.id}", "pullNumber")
    return p

def _blob_sha(content: str) -> str:
    data = content.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()

def _commit(s: GithubState, r: Repo, b: Branch, message: str, paths: list[str], parents: Optional[list[str]] = None) -> Commit:
    parents = parents if parents is not None else [b.head]
    sha = hashlib.sha1(f"{r.id}:{':'.join(parents)}:{message}:{s.counters}".encode()).hexdigest()
    s.new_id("commit")
    c = Commit(id=sha, repo=r.id, message=message, author=s.me, date=s.tick(), parents=parents, files=paths)
    put(s, "commits", sha, c)
    br = writable(s, "branches", b.id); br.head = sha
    writable(s, "repos", r.id).updated_at = c.date
    return c

def _labels_of(s: GithubState, r: Repo, names: list[str], arg: str = "labels") -> list[str]:
    have = {l.name.lower(): l.name for l in scan(s, "labels") if l.repo == r.id}
    out = []
    for n in names:
        if n.lower() not in have: raise ToolError(422, f"{arg} names {n!r}, which is not a label of {r.id} (see list_label)", arg)
        if have[n.lower()] not in out: out.append(have[n.lower()])
    return out

def _users(s: GithubState, names: list[str], arg: str) -> list[str]:
    for n in names:
        if not has(s, "users", n): raise ToolError(422, f"{arg} names {n!r}, who is not a GitHub user here", arg)
    return list(dict.fromkeys(names))

def _issue_view(i: Issue) -> dict:
    d = i.model_dump(exclude={"id", "repo"}); d["repository"] = i.repo; d["html_url"] = f"https://github.com/{i.repo}/issues/{i.number}"
    return d

def _pull_view(p: Pull) -> dict:
    d = p.model_dump(exclude={"id", "repo"}); d["repository"] = p.repo; d["html_url"] = f"https://github.com/{p.repo}/pull/{p.number}"
    return d

def _repo_view(r: Repo, minimal: bool = True) -> dict:
    d = {"full_name": r.id, "name": r.name, "owner": r.owner, "description": r.description, "private": r.private,
         "stargazers_count": len(r.stargazers), "language": r.language, "html_url": f"https://github.com/{r.id}"}
    if not minimal: d.update(default_branch=r.default_branch, topics=list(r.topics), created_at=r.created_at, updated_at=r.updated_at)
    return d

_QUAL = re.compile(r"(?<!\w)(\w++):(\"[^\"]*\"|\S+)")   # a qualifier starts a word; possessive: linear in the query

def _parse_query(q: str) -> tuple[dict, str]:
    quals: dict[str, list[str]] = {}
    for k, v in _QUAL.findall(q): quals.setdefault(k.lower(), []).append(v.strip('"'))
    return quals, _QUAL.sub(" ", q).strip()


class Pick(BaseModel):
    "A label or assignee chosen with a stated confidence."
    model_config = ConfigDict(extra="forbid")
    name: str = Field(description="Label name or GitHub username")
    confidence: Optional[Literal["LOW", "MEDIUM", "HIGH"]] = Field(None, description="How confident you are in this choice")
    rationale: Optional[str] = Field(None, description="One sentence on why")
    is_suggestion: Optional[bool] = Field(None, description="Send as a suggestion instead of applying")

def _names(xs: list) -> list[str]: return [x if isinstance(x, str) else x.name for x in xs]


# --- user and repositories ------------------------------------------------------------------------
@service.tool(read_only=True)
def get_me(s: GithubState) -> dict:
    "The authenticated user's profile."
    u = read(s, "users", s.me)
    return {"login": u.id, "name": u.name, "email": u.email, "bio": u.bio,
            "public_repos": sum(1 for r in scan(s, "repos") if r.owner == u.id and not r.private)}

@service.tool(read_only=True)
def search_repositories(s: GithubState,
                        query: Query,               # words and qualifiers, e.g. 'billing user:acme' or 'api in:name'
                        page: int = 1,              # page number (1-based)
                        perPage: int = 30,          # results per page (1-100)
                        sort: Optional[Literal["stars", "forks", "help-wanted-issues", "updated"]] = None,  # order by stars or updated (default: best match)
                        order: Optional[Literal["asc", "desc"]] = None,  # sort direction (default desc)
                        minimal_output: bool = True,  # fewer fields per repository
                       ) -> dict:
    "Find repositories by name, description and topics; best match (then name) unless sorted by stars or updated."
    quals, words = _parse_query(query)
    if not words and not quals: raise ToolError(422, "query must not be empty", "query")
    if sort in ("forks", "help-wanted-issues"): raise ToolError(422, f"sort={sort!r} is not supported here (use stars or updated)", "sort")
    hits = []
    for r in scan(s, "repos"):
        if "user" in quals and r.owner.lower() not in {u.lower() for u in quals["user"]}: continue
        fields = (r.name,) if "name" in quals.get("in", []) else (r.name, r.description, " ".join(r.topics))
        if words and not matches(words, *fields): continue
        hits.append(r)
    if sort == "stars": hits.sort(key=lambda r: (len(r.stargazers), r.id), reverse=order != "asc")
    elif sort == "updated": hits.sort(key=lambda r: (r.updated_at, r.id), reverse=order != "asc")
    else: hits.sort(key=lambda r: (-sum(r.name.lower().count(w) for w in words.lower().split()), r.id))
    return {"total_count": len(hits), "items": [_repo_view(r, minimal_output) for r in number_page(hits, page, perPage)]}

@service.tool
def star_repository(s: GithubState,
                    owner: str,  # repository owner
                    repo: str,   # repository name
                   ) -> dict:
    "Star a repository (starring it again changes nothing)."
    r = _repo(s, owner, repo)
    if s.me not in r.stargazers: writable(s, "repos", r.id).stargazers = r.stargazers + [s.me]
    return {"starred": r.id}

@service.tool
def unstar_repository(s: GithubState,
                      owner: str,  # repository owner
                      repo: str,   # repository name
                     ) -> dict:
    "Remove your star from a repository (fine if it had none)."
    r = _repo(s, owner, repo)
    if s.me in r.stargazers: writable(s, "repos", r.id).stargazers = [u for u in r.stargazers if u != s.me]
    return {"unstarred": r.id}

@service.tool(read_only=True)
def list_starred_repositories(s: GithubState,
                              username: Optional[str] = None,  # whose stars (default: you)
                              sort: Optional[Literal["created", "updated"]] = None,  # by repository creation or last update (default created)
                              direction: Optional[Literal["asc", "desc"]] = None,    # default desc
                              page: int = 1,       # page number (1-based)
                              perPage: int = 30,   # results per page (1-100)
                             ) -> list[dict]:
    "Repositories a user has starred."
    u = username or s.me
    if not has(s, "users", u): raise ToolError(404, f"no user username={u!r}", "username")
    key = (lambda r: (r.updated_at, r.id)) if sort == "updated" else (lambda r: (r.created_at, r.id))
    rs = sorted((r for r in scan(s, "repos") if u in r.stargazers), key=key, reverse=direction != "asc")
    return [_repo_view(r) for r in number_page(rs, page, perPage)]


# --- branches, files, commits ---------------------------------------------------------------------
@service.tool(read_only=True)
def list_branches(s: GithubState,
                  owner: str,          # repository owner
                  repo: str,           # repository name
                  page: int = 1,       # page number (1-based)
                  perPage: int = 30,   # results per page (1-100)
                 ) -> list[dict]:
    "A repository's branches, sorted by name."
    r = _repo(s, owner, repo)
    bs = sorted((b for b in scan(s, "branches") if b.repo == r.id), key=lambda b: b.name)
    return [{"name": b.name, "commit": {"sha": b.head}, "protected": b.name == r.default_branch} for b in number_page(bs, page, perPage)]

@service.tool
def create_branch(s: GithubState,
                  owner: str,                        # repository owner
                  repo: str,                         # repository name
                  branch: str,                       # name of the new branch
                  from_branch: Optional[str] = None, # branch to start from (default: the default branch)
                 ) -> dict:
    "Create a branch at the head of another."
    r = _repo(s, owner, repo)
    if not re.fullmatch(r"[A-Za-z0-9._/-]+", branch) or branch.startswith(("/", "-")) or ".." in branch or branch.endswith("/"):
        raise ToolError(422, f"branch={branch!r} is not a valid branch name", "branch")
    if has(s, "branches", f"{r.id}:{branch}"): raise ToolError(409, f"branch {branch!r} already exists in {r.id}", "branch")
    src = _branch(s, r, from_branch, "from_branch")
    put(s, "branches", f"{r.id}:{branch}", Branch(id=f"{r.id}:{branch}", repo=r.id, name=branch, head=src.head))
    for f in [f for f in scan(s, "files") if f.repo == r.id and f.branch == src.name]:
        k = f"{r.id}:{branch}:{f.path}"
        put(s, "files", k, FileBlob(id=k, repo=r.id, branch=branch, path=f.path, content=f.content, sha=f.sha))
    return {"ref": f"refs/heads/{branch}", "object": {"sha": src.head}}

@service.tool(read_only=True)
def get_file_contents(s: GithubState,
                      owner: str,                  # repository owner
                      repo: str,                   # repository name
                      path: str = "/",             # file or directory path ('/' for the root)
                      ref: Optional[str] = None,   # branch name or refs/heads/<branch> (default: the default branch)
                     ) -> Union[dict, list]:
    "A file's text and blob sha, or a directory's entries (directories first, then files, by name)."
    r = _repo(s, owner, repo)
    b = _branch(s, r, ref, "ref")
    p = posixpath.normpath("/" + path.strip()).lstrip("/")
    files = {f.path: f for f in scan(s, "files") if f.repo == r.id and f.branch == b.name}
    if p in files:
        f = files[p]
        return {"type": "file", "name": posixpath.basename(p), "path": p, "size": len(f.content.encode()), "sha": f.sha, "content": f.content}
    pre = "" if p in ("", ".") else p + "/"
    below = [q for q in files if q.startswith(pre)]
    if not below: raise ToolError(404, f"no file or directory path={path!r} in {r.id}@{b.name}", "path")
    dirs, out = set(), []
    for q in below:
        rest = q[len(pre):]
        if "/" in rest: dirs.add(rest.split("/")[0])
    out = [{"type": "dir", "name": d, "path": pre + d} for d in sorted(dirs)]
    out += [{"type": "file", "name": q[len(pre):], "path": q, "size": len(files[q].content.encode()), "sha": files[q].sha}
            for q in sorted(below) if "/" not in q[len(pre):]]
    return out

@service.tool
def create_or_update_file(s: GithubState,
                          owner: str,                 # repository owner
                          repo: str,                  # repository name
                          path: str,                  # file path in the repository
                          content: str,               # the file's full new text
                          message: str,               # commit message
                          branch: str,                # branch to commit to
                          sha: Optional[str] = None,  # blob sha of the file being replaced (required when it exists)
                         ) -> dict:
    "Create or replace one file with a commit on a branch (an update needs the current blob sha)."
    r = _repo(s, owner, repo)
    b = _branch(s, r, branch)
    p = posixpath.normpath("/" + path.strip()).lstrip("/")
    if not p or p == ".": raise ToolError(422, f"path={path!r} names no file", "path")
    if not message.strip(): raise ToolError(422, "message must not be empty", "message")
    k = f"{r.id}:{b.name}:{p}"
    old = read(s, "files", k)
    if any(f.repo == r.id and f.branch == b.name and f.path.startswith(p + "/") for f in scan(s, "files")):
        raise ToolError(422, f"path={p!r} is a directory", "path")
    if old is not None and sha is None: raise ToolError(422, f"{p} exists in {r.id}@{b.name}: give its blob sha to update it", "sha")
    if old is not None and sha != old.sha: raise ToolError(409, f"sha={sha!r} does not match {p}'s current blob sha {old.sha}", "sha")
    if old is None and sha is not None: raise ToolError(422, f"{p} does not exist in {r.id}@{b.name}, so no sha applies", "sha")
    put(s, "files", k, FileBlob(id=k, repo=r.id, branch=b.name, path=p, content=content, sha=_blob_sha(content)))
    c = _commit(s, r, b, message.strip(), [p])
    return {"content": {"path": p, "sha": read(s, "files", k).sha}, "commit": {"sha": c.id, "message": c.message}}

@service.tool(read_only=True)
def list_commits(s: GithubState,
                 owner: str,                   # repository owner
                 repo: str,                    # repository name
                 sha: Optional[str] = None,    # branch name or commit sha to start from (default: the default branch)
                 author: Optional[str] = None, # only commits by this login
                 path: Optional[str] = None,   # only commits touching this file
                 since: Optional[str] = None,  # only commits at or after this ISO 8601 time
                 until: Optional[str] = None,  # only commits at or before this ISO 8601 time
                 page: int = 1,                # page number (1-based)
                 perPage: int = 30,            # results per page (1-100)
                ) -> list[dict]:
    "Commits reachable from a branch or commit, newest first (first parents, then other parents)."
    r = _repo(s, owner, repo)
    start = sha if sha and has(s, "commits", sha) else _branch(s, r, sha, "sha").head
    def t(v, arg):
        if v is None: return None
        try: return iso(parse_iso(v))
        except ValueError: raise ToolError(422, f"{arg}={v!r} is not an ISO 8601 time", arg) from None
    lo, hi = t(since, "since"), t(until, "until")
    seen, out, todo = set(), [], [start]
    while todo:
        c = read(s, "commits", todo.pop(0))
        if c is None or c.id in seen: continue
        seen.add(c.id); out.append(c); todo.extend(c.parents)
    out.sort(key=lambda c: (c.date, c.id), reverse=True)
    out = [c for c in out if (author is None or c.author == author) and (path is None or path.strip("/") in c.files)
           and (lo is None or c.date >= lo) and (hi is None or c.date <= hi)]
    return [{"sha": c.id, "commit": {"message": c.message, "author": {"name": c.author, "date": c.date}}, "author": c.author,
             "parents": [{"sha": p} for p in c.parents]} for c in number_page(out, page, perPage)]


# --- issues ---------------------------------------------------------------------------------------
@service.tool
def create_issue(s: GithubState,
                 owner: str,   # repository owner
                 repo: str,    # repository name
                 title: str,   # issue title
                 body: Optional[str] = None,  # issue text (Markdown)
                ) -> dict:
    "Open a new issue."
    r = _repo(s, owner, repo)
    if not title.strip(): raise ToolError(422, "title must not be empty", "title")
    rr = writable(s, "repos", r.id); n = rr.next_number; rr.next_number = n + 1
    now = s.tick()
    put(s, "issues", f"{r.id}#{n}", Issue(id=f"{r.id}#{n}", repo=r.id, number=n, title=title.strip(), body=body or "", user=s.me, created_at=now, updated_at=now))
    return _issue_view(read(s, "issues", f"{r.id}#{n}"))

_ISSUE_SORTS = Literal["comments", "reactions", "reactions-+1", "reactions--1", "reactions-smile", "reactions-thinking_face",
                       "reactions-heart", "reactions-tada", "interactions", "created", "updated"]
_ORDER = {"CREATED_AT": "created_at", "UPDATED_AT": "updated_at", "COMMENTS": "comments"}

@service.tool(read_only=True)
def list_issues(s: GithubState,
                owner: str,                                    # repository owner
                repo: str,                                     # repository name
                state: Optional[Literal["OPEN", "CLOSED"]] = None,  # only open or closed issues (default both)
                labels: Optional[list[str]] = None,            # only issues with every one of these labels
                orderBy: Optional[Literal["CREATED_AT", "UPDATED_AT", "COMMENTS"]] = None,  # sort field (give direction too)
                direction: Optional[Literal["ASC", "DESC"]] = None,  # sort direction (give orderBy too)
                since: Optional[str] = None,                   # only issues updated at or after this ISO 8601 time
                perPage: int = 30,                             # results per page (1-100)
                after: Optional[str] = None,                   # cursor: pageInfo.endCursor of the previous page
               ) -> dict:
    "A repository's issues (not pull requests), newest first by default; cursor pagination with `after`."
    r = _repo(s, owner, repo)
    if (orderBy is None) != (direction is None): raise ToolError(422, "give orderBy and direction together", "orderBy" if orderBy is None else "direction")
    field, desc = _ORDER[orderBy or "CREATED_AT"], (direction or "DESC") == "DESC"
    lo = None
    if since is not None:
        try: lo = iso(parse_iso(since))
        except ValueError: raise ToolError(422, f"since={since!r} is not an ISO 8601 time", "since") from None
    want = [l.lower() for l in labels or []]
    items = [i for i in scan(s, "issues") if i.repo == r.id and (state is None or i.state == state.lower())
             and all(w in [x.lower() for x in i.labels] for w in want) and (lo is None or i.updated_at >= lo)]
    key = lambda i: (getattr(i, field), i.number)
    items.sort(key=key, reverse=desc)
    page, nxt = cursor_page(items, key, perPage, after, arg="after", limit_arg="perPage", descending=desc)
    return {"issues": [_issue_view(i) for i in page], "pageInfo": {"hasNextPage": nxt is not None, "endCursor": nxt}, "totalCount": len(items)}

@service.tool(read_only=True)
def search_issues(s: GithubState,
                  query: Query,                # words and qualifiers, e.g. 'login timeout is:open label:bug'
                  owner: Optional[str] = None, # with repo: search one repository
                  repo: Optional[str] = None,  # with owner: search one repository
                  sort: Optional[_ISSUE_SORTS] = None,  # comments, created or updated (default: best match)
                  order: Optional[Literal["asc", "desc"]] = None,  # sort direction (default desc)
                  page: int = 1,               # page number (1-based)
                  perPage: int = 30,           # results per page (1-100)
                 ) -> dict:
    "Search issues (and, with is:pr, pull requests) by words in title and body; best match first (then repository and number)."
    quals, words = _parse_query(query)
    if not words and not quals: raise ToolError(422, "query must not be empty", "query")
    if (owner is None) != (repo is None): raise ToolError(422, "give owner and repo together", "owner" if owner is None else "repo")
    if sort is not None and sort not in ("comments", "created", "updated"): raise ToolError(422, f"sort={sort!r} is not supported here", "sort")
    scope = {_repo(s, owner, repo).id} if owner else None
    if "repo" in quals: scope = (scope or set(quals["repo"])) & set(quals["repo"]) if scope else set(quals["repo"])
    kinds = quals.get("is", [])
    want_pr = "pr" in kinds and "issue" not in kinds
    pool = list(scan(s, "pulls")) if want_pr else list(scan(s, "issues"))
    hits = []
    for i in pool:
        if scope is not None and i.repo not in scope: continue
        if "open" in kinds and i.state != "open": continue
        if "closed" in kinds and i.state != "closed": continue
        if "author" in quals and i.user not in quals["author"]: continue
        if "label" in quals and not all(l.lower() in [x.lower() for x in getattr(i, "labels", [])] for l in quals["label"]): continue
        if words and not matches(words, i.title, i.body): continue
        hits.append(i)
    if sort in ("created", "updated"): hits.sort(key=lambda i: (getattr(i, sort + "_at"), i.repo, i.number), reverse=order != "asc")
    elif sort == "comments": hits.sort(key=lambda i: (getattr(i, "comments", 0), i.repo, i.number), reverse=order != "asc")
    else: hits.sort(key=lambda i: (-sum((i.title + " " + i.body).lower().count(w) for w in words.lower().split()), i.repo, i.number))
    view = _pull_view if want_pr else _issue_view
    return {"total_count": len(hits), "items": [view(i) for i in number_page(hits, page, perPage)]}

def _touch(s: GithubState, i: Issue) -> Issue:
    j = writable(s, "issues", i.id); j.updated_at = s.tick(); return j

@service.tool
def update_issue_title(s: GithubState,
                       owner: str,         # repository owner
                       repo: str,          # repository name
                       issue_number: int,  # the issue
                       title: str,         # its new title
                      ) -> dict:
    "Rename an issue."
    i = _issue(s, _repo(s, owner, repo), issue_number)
    if not title.strip(): raise ToolError(422, "title must not be empty", "title")
    j = _touch(s, i); j.title = title.strip()
    return _issue_view(j)

@service.tool
def update_issue_body(s: GithubState,
                      owner: str,         # repository owner
                      repo: str,          # repository name
                      issue_number: int,  # the issue
                      body: str,          # its new text (replaces the old)
                     ) -> dict:
    "Replace an issue's text."
    i = _issue(s, _repo(s, owner, repo), issue_number)
    j = _touch(s, i); j.body = body
    return _issue_view(j)

@service.tool
def update_issue_state(s: GithubState,
                       owner: str,                # repository owner
                       repo: str,                 # repository name
                       issue_number: int,         # the issue
                       state: Literal["open", "closed"],  # open or close it
                       state_reason: Optional[Literal["completed", "not_planned", "duplicate"]] = None,  # why it was closed
                       duplicate_of: Optional[int] = None,  # the issue this one duplicates (with state_reason duplicate)
                      ) -> dict:
    "Open or close an issue, with a reason when closing."
    r = _repo(s, owner, repo)
    i = _issue(s, r, issue_number)
    if state == "open" and state_reason is not None: raise ToolError(422, "state_reason only applies when closing", "state_reason")
    if (state_reason == "duplicate") != (duplicate_of is not None): raise ToolError(422, "give duplicate_of exactly when state_reason is duplicate", "duplicate_of")
    if duplicate_of is not None:
        if duplicate_of == issue_number: raise ToolError(422, "an issue cannot duplicate itself", "duplicate_of")
        _issue(s, r, duplicate_of, "duplicate_of")
    if i.state == state: raise ToolError(409, f"issue #{issue_number} is already {state}", "state")
    j = _touch(s, i); j.state = state; j.state_reason = (state_reason or "completed") if state == "closed" else "reopened"
    return _issue_view(j)

@service.tool
def update_issue_labels(s: GithubState,
                        owner: str,         # repository owner
                        repo: str,          # repository name
                        issue_number: int,  # the issue
                        labels: list[Union[str, Pick]],  # the issue's labels (replaces the current ones); names or {name, confidence, ...}
                       ) -> dict:
    "Set an issue's labels (replacing the current set)."
    r = _repo(s, owner, repo)
    i = _issue(s, r, issue_number)
    names = _labels_of(s, r, _names(labels))
    j = _touch(s, i); j.labels = names
    return _issue_view(j)

@service.tool
def update_issue_assignees(s: GithubState,
                           owner: str,         # repository owner
                           repo: str,          # repository name
                           issue_number: int,  # the issue
                           assignees: list[Union[str, Pick]],  # logins to assign (replaces the current ones); names or {name, confidence, ...}
                          ) -> dict:
    "Set an issue's assignees (replacing the current ones; at most 10)."
    i = _issue(s, _repo(s, owner, repo), issue_number)
    names = _users(s, _names(assignees), "assignees")
    if len(names) > 10: raise ToolError(422, f"at most 10 assignees, got {len(names)}", "assignees")
    j = _touch(s, i); j.assignees = names
    return _issue_view(j)

@service.tool
def add_issue_comment(s: GithubState,
                      owner: str,         # repository owner
                      repo: str,          # repository name
                      issue_number: int,  # issue or pull request number
                      body: Optional[str] = None,  # the comment (Markdown)
                     ) -> dict:
    "Comment on an issue or pull request."
    r = _repo(s, owner, repo)
    target = read(s, "issues", f"{r.id}#{issue_number}") or read(s, "pulls", f"{r.id}#{issue_number}")
    if target is None: raise ToolError(404, f"no issue or pull request issue_number={issue_number} in {r.id}", "issue_number")
    if body is None or not body.strip(): raise ToolError(422, "body must not be empty", "body")
    k = str(max((int(c) for c in ids(s, "comments")), default=1000000) + 1)
    put(s, "comments", k, IssueComment(id=k, repo=r.id, issue_number=issue_number, body=body, user=s.me, created_at=s.tick()))
    if isinstance(target, Issue): j = writable(s, "issues", target.id); j.comments += 1; j.updated_at = s.now()
    return {"id": int(k), "body": body, "user": s.me, "html_url": f"https://github.com/{r.id}/issues/{issue_number}#issuecomment-{k}"}


# --- labels ---------------------------------------------------------------------------------------
@service.tool(read_only=True)
def list_label(s: GithubState,
               owner: str,  # repository owner
               repo: str,   # repository name
              ) -> list[dict]:
    "A repository's labels, most used first (then by name), with their issue counts."
    r = _repo(s, owner, repo)
    count = {}
    for i in scan(s, "issues"):
        if i.repo == r.id:
            for l in i.labels: count[l] = count.get(l, 0) + 1
    ls = [l for l in scan(s, "labels") if l.repo == r.id]
    ls.sort(key=lambda l: (-count.get(l.name, 0), l.name))
    return [{"name": l.name, "color": l.color, "description": l.description, "issues": count.get(l.name, 0)} for l in ls]

@service.tool(read_only=True)
def get_label(s: GithubState,
              owner: str,  # repository owner
              repo: str,   # repository name
              name: str,   # label name (case-insensitive)
             ) -> dict:
    "One label of a repository."
    r = _repo(s, owner, repo)
    l = next((l for l in scan(s, "labels") if l.repo == r.id and l.name.lower() == name.lower()), None)
    if l is None: raise ToolError(404, f"no label name={name!r} in {r.id}", "name")
    return {"name": l.name, "color": l.color, "description": l.description}


# --- pull requests --------------------------------------------------------------------------------
@service.tool
def create_pull_request(s: GithubState,
                        owner: str,   # repository owner
                        repo: str,    # repository name
                        title: str,   # pull request title
                        head: str,    # branch with the changes
                        base: str,    # branch to merge into
                        body: Optional[str] = None,    # description (Markdown)
                        draft: Optional[bool] = None,  # open it as a draft
                        reviewers: Optional[list[str]] = None,  # logins to ask for review
                       ) -> dict:
    "Open a pull request from one branch into another."
    r = _repo(s, owner, repo)
    h, b = _branch(s, r, head, "head"), _branch(s, r, base, "base")
    if not title.strip(): raise ToolError(422, "title must not be empty", "title")
    if h.name == b.name: raise ToolError(422, f"head and base are both {h.name!r}", "head")
    if h.head == b.head: raise ToolError(422, f"no commits between {b.name} and {h.name}", "head")
    if any(p.repo == r.id and p.head == h.name and p.base == b.name and p.state == "open" for p in scan(s, "pulls")):
        raise ToolError(409, f"a pull request from {h.name} into {b.name} is already open", "head")
    revs = _users(s, reviewers or [], "reviewers")
    rr = writable(s, "repos", r.id); n = rr.next_number; rr.next_number = n + 1
    now = s.tick()
    put(s, "pulls", f"{r.id}#{n}", Pull(id=f"{r.id}#{n}", repo=r.id, number=n, title=title.strip(), body=body or "", head=h.name, base=b.name,
                                  draft=bool(draft), user=s.me, requested_reviewers=revs, created_at=now, updated_at=now))
    return _pull_view(read(s, "pulls", f"{r.id}#{n}"))

@service.tool(read_only=True)
def list_pull_requests(s: GithubState,
                       owner: str,   # repository owner
                       repo: str,    # repository name
                       state: Optional[Literal["open", "closed", "all"]] = None,  # default open
                       base: Optional[str] = None,  # only into this branch
                       head: Optional[str] = None,  # only from this branch ('user:branch' or 'branch')
                       sort: Optional[Literal["created", "updated", "popularity", "long-running"]] = None,  # created (default) or updated
                       direction: Optional[Literal["asc", "desc"]] = None,  # default desc
                       page: int = 1,      # page number (1-based)
                       perPage: int = 30,  # results per page (1-100)
                      ) -> list[dict]:
    "A repository's pull requests, newest first by default."
    r = _repo(s, owner, repo)
    if sort in ("popularity", "long-running"): raise ToolError(422, f"sort={sort!r} is not supported here (use created or updated)", "sort")
    st = state or "open"
    hb = head.split(":", 1)[-1] if head else None
    ps = [p for p in scan(s, "pulls") if p.repo == r.id and (st == "all" or p.state == st) and (base is None or p.base == base)
          and (hb is None or p.head == hb)]
    f = "updated_at" if sort == "updated" else "created_at"
    ps.sort(key=lambda p: (getattr(p, f), p.number), reverse=direction != "asc")
    return [_pull_view(p) for p in number_page(ps, page, perPage)]

@service.tool
def merge_pull_request(s: GithubState,
                       owner: str,       # repository owner
                       repo: str,        # repository name
                       pullNumber: int,  # the pull request
                       merge_method: Optional[Literal["merge", "squash", "rebase"]] = None,  # default merge
                       commit_title: Optional[str] = None,    # title of the merge commit
                       commit_message: Optional[str] = None,  # extra detail for the merge commit
                      ) -> dict:
    "Merge an open, non-draft pull request: the base branch takes the head branch's files."
    r = _repo(s, owner, repo)
    p = _pull(s, r, pullNumber)
    if p.state != "open": raise ToolError(409, f"pull request #{pullNumber} is {'merged' if p.merged else 'closed'}", "pullNumber")
    if p.draft: raise ToolError(422, f"pull request #{pullNumber} is a draft", "pullNumber")
    h, b = _branch(s, r, p.head, "pullNumber"), _branch(s, r, p.base, "pullNumber")
    head_files = {f.path: f for f in scan(s, "files") if f.repo == r.id and f.branch == h.name}
    base_files = {f.path: f for f in scan(s, "files") if f.repo == r.id and f.branch == b.name}
    changed = sorted(q for q in head_files if q not in base_files or base_files[q].sha != head_files[q].sha)
    for q in changed:
        k = f"{r.id}:{b.name}:{q}"
        put(s, "files", k, FileBlob(id=k, repo=r.id, branch=b.name, path=q, content=head_files[q].content, sha=head_files[q].sha))
    title = commit_title or f"Merge pull request #{pullNumber} from {h.name}"
    parents = [b.head] if merge_method in ("squash", "rebase") else [b.head, h.head]
    c = _commit(s, r, b, title + (f"\n\n{commit_message}" if commit_message else ""), changed, parents)
    q = writable(s, "pulls", p.id); q.state, q.merged, q.merge_commit_sha, q.updated_at = "closed", True, c.id, s.now()
    return {"merged": True, "sha": c.id, "message": "Pull Request successfully merged"}

inline_schemas(service)


# --- fixture ------------------------------------------------------------------------------------
_REPOS = [("api-gateway", "Edge service that routes and rate-limits API traffic", "Go", ["api", "gateway", "rate-limiting"]),
          ("web-app", "Customer-facing web application", "TypeScript", ["frontend", "react"]),
          ("billing-service", "Invoices, payments and subscriptions", "Python", ["billing", "payments"]),
          ("data-pipeline", "Nightly ETL into the warehouse", "Python", ["etl", "analytics"]),
          ("mobile-app", "iOS and Android client", "Kotlin", ["mobile"]),
          ("design-system", "Shared UI components and tokens", "TypeScript", ["ui", "components"]),
          ("infra", "Terraform and deployment scripts", "HCL", ["infrastructure", "terraform"]),
          ("docs", "Product documentation site", "Markdown", ["documentation"])]
_LABELS = [("bug", "d73a4a", "Something isn't working"), ("enhancement", "a2eeef", "New feature or request"),
           ("documentation", "0075ca", "Improvements or additions to documentation"), ("good first issue", "7057ff", "Good for newcomers"),
           ("performance", "fbca04", "Speed or resource use"), ("security", "b60205", "Security related"),
           ("needs-triage", "ededed", "Not looked at yet"), ("wontfix", "ffffff", "This will not be worked on")]
_ISSUES = ["{x} fails when {y}", "Add {x} to {y}", "{x} is slow on {y}", "Document {x}", "Crash in {x} after {y}", "Improve {x} error messages",
           "Support {x} in {y}", "Flaky test in {x}", "Upgrade {x} dependency", "Refactor {x} for {y}"]
_BITS = ["login", "checkout", "export", "search", "webhooks", "rate limits", "retries", "caching", "pagination", "uploads", "sessions", "the dashboard",
         "SSO", "timezones", "invoices", "notifications"]

@service.fixture
def fixture(seed: int) -> GithubState:
    "8 repositories of the world's company (and its people): ~90 files per branch set, ~190 commits, ~160 issues, ~40 pull requests, ~250 comments."
    return _build(seed).model_copy(deep=True)

@functools.lru_cache(maxsize=8)
def _build(seed: int) -> GithubState:
    w, rng, fk = make_world(seed), service_rng("github", seed), service_faker("github", seed)
    org = w.domain.split(".")[0]
    s = GithubState(seed=seed, me=w.me.handle.replace(".", "-"))
    put(s, "users", org, User(id=org, name=w.company, bio="Organization account"))
    logins = []
    for p in w.people:
        lg = p.handle.replace(".", "-"); put(s, "users", lg, User(id=lg, name=p.name, email=p.email, bio=p.title)); logins.append(lg)
    def when(lo, hi): return iso(EPOCH - timedelta(minutes=rng.randint(lo * 1440, hi * 1440)))
    for name, desc, lang, topics in _REPOS:
        rid = f"{org}/{name}"
        created = when(300, 700)
        put(s, "repos", rid, Repo(id=rid, owner=org, name=name, description=desc, language=lang, topics=topics,
                            stargazers=rng.sample(logins, rng.randint(0, 8)), created_at=created, updated_at=created))
        for ln, col, d in _LABELS: put(s, "labels", f"{rid}:{ln}", Label(id=f"{rid}:{ln}", repo=rid, name=ln, color=col, description=d))
        files = {"README.md": f"# {name}\n\n{desc}.\n\n{fk.paragraph(nb_sentences=3)}\n", "LICENSE": "MIT License\n",
                 ".gitignore": "*.log\n.env\n"}
        ext = {"Go": "go", "TypeScript": "ts", "Python": "py", "Kotlin": "kt", "HCL": "tf", "Markdown": "md"}[lang]
        for k in range(rng.randint(6, 10)):
            files[f"src/{fk.word()}_{k}.{ext}"] = f"// {fk.sentence(nb_words=8)}\n" + "\n".join(f"// {fk.bs()}" for _ in range(rng.randint(2, 6))) + "\n"
        for k in range(2): files[f"docs/{fk.word()}-{k}.md"] = f"# {fk.catch_phrase()}\n\n{fk.paragraph(nb_sentences=2)}\n"
        # history on main: one commit per file batch, then small edits
        parent, paths = [], sorted(files)
        dates = sorted(when(1, 299) for _ in range(rng.randint(14, 26)))
        heads = {}
        for j, d in enumerate(dates):
            touched = paths[:] if j == 0 else rng.sample(paths, rng.randint(1, 3))
            msg = "Initial commit" if j == 0 else rng.choice(["Fix", "Update", "Refactor", "Tidy", "Document"]) + " " + rng.choice(touched)
            sha = hashlib.sha1(f"{rid}:{j}:{msg}".encode()).hexdigest()
            put(s, "commits", sha, Commit(id=sha, repo=rid, message=msg, author=rng.choice(logins), date=d, parents=parent, files=touched))
            parent = [sha]
        heads["main"] = parent[0]
        put(s, "branches", f"{rid}:main", Branch(id=f"{rid}:main", repo=rid, name="main", head=parent[0]))
        for p, c in files.items(): put(s, "files", f"{rid}:main:{p}", FileBlob(id=f"{rid}:main:{p}", repo=rid, branch="main", path=p, content=c, sha=_blob_sha(c)))
        for bname in rng.sample(["feature/" + b.replace(" ", "-") for b in _BITS], rng.randint(1, 3)):
            p = rng.choice(paths)
            content = files[p] + f"// {fk.bs()}\n"
            sha = hashlib.sha1(f"{rid}:{bname}".encode()).hexdigest()
            put(s, "commits", sha, Commit(id=sha, repo=rid, message=f"Work on {bname.split('/')[1]}", author=rng.choice(logins), date=when(1, 20),
                                    parents=[parent[0]], files=[p]))
            put(s, "branches", f"{rid}:{bname}", Branch(id=f"{rid}:{bname}", repo=rid, name=bname, head=sha))
            for q, c in files.items():
                c2 = content if q == p else c
                put(s, "files", f"{rid}:{bname}:{q}", FileBlob(id=f"{rid}:{bname}:{q}", repo=rid, branch=bname, path=q, content=c2, sha=_blob_sha(c2)))
        r = writable(s, "repos", rid)
        n = 1
        for _ in range(rng.randint(14, 26)):
            t0 = when(1, 200); t1 = max(t0, when(0, 30))
            title = rng.choice(_ISSUES).format(x=rng.choice(_BITS), y=rng.choice(_BITS))
            st = "closed" if rng.random() < 0.35 else "open"
            put(s, "issues", f"{rid}#{n}", Issue(id=f"{rid}#{n}", repo=rid, number=n, title=title[0].upper() + title[1:], body=fk.paragraph(nb_sentences=3),
                                           state=st, state_reason="completed" if st == "closed" else None,
                                           labels=[l[0] for l in rng.sample(_LABELS, rng.randint(0, 2))], assignees=rng.sample(logins, rng.randint(0, 2)),
                                           user=rng.choice(logins), created_at=t0, updated_at=t1))
            n += 1
        for b in [b for b in scan(s, "branches") if b.repo == rid and b.name != "main"]:
            t0 = when(0, 20)
            put(s, "pulls", f"{rid}#{n}", Pull(id=f"{rid}#{n}", repo=rid, number=n, title=f"{b.name.split('/')[1].replace('-', ' ').capitalize()} improvements",
                                         body=fk.paragraph(nb_sentences=2), head=b.name, base="main", draft=rng.random() < 0.2,
                                         user=rng.choice(logins), created_at=t0, updated_at=t0))
            n += 1
        r.next_number = n
        r.updated_at = max(c.date for c in scan(s, "commits") if c.repo == rid)
    issues = list(ids(s, "issues"))
    for k in range(250):
        i = writable(s, "issues", rng.choice(issues))       # its comment count moves
        cid = str(900000 + k)
        put(s, "comments", cid, IssueComment(id=cid, repo=i.repo, issue_number=i.number, body=fk.sentence(nb_words=14), user=rng.choice(logins),
                                       created_at=max(i.created_at, when(0, 60))))
        i.comments += 1
    return s


# --- step templates -----------------------------------------------------------------------------
_PHRASE = {"key": "the project code given in that issue", "place": "the venue given in that issue"}

@planted_record_step(service, _PHRASE)
def read_step(ctx, value, kind, nxt, what):
    "Plant an issue about `value` whose text gives the next fact; the agent searches for it."
    s = ctx.state("github")
    r = sorted(scan(s, "repos"), key=lambda r: r.id)[ctx.rng.randrange(size(s, "repos"))]
    line = f"The project code for this work is {nxt}." if kind == "key" else f"We will meet at {nxt} to finish it."
    def plant(st: GithubState):
        rr = read(st, "repos", r.id)
        # far above the counter (never taken by a tool-created issue in a task), and distinct for each plant in one task
        n = rr.next_number + 500 + sum(1 for i in scan(st, "issues") if i.repo == r.id and i.number >= rr.next_number + 500)
        put(st, "issues", f"{r.id}#{n}", Issue(id=f"{r.id}#{n}", repo=r.id, number=n, title=f"Tracking: {value}", body=f"Context for {value}. {line}",
                                         user=st.me, created_at=iso(EPOCH - timedelta(hours=6)), updated_at=iso(EPOCH - timedelta(hours=6))))
    ctx.plant("github", plant)
    got = ctx.call("search_issues", query=f'"{value}"' if " " in str(value) else str(value))
    assert got["items"] and nxt in got["items"][0]["body"]
    return (f"Find the GitHub issue tracking {ctx.in_phrase} and tell me the {what} it gives.",
            f"Find the GitHub issue tracking {ctx.in_phrase} and read it.")

@add_step(service, "file", needs=("key", "place", "coords", "forecast", "ref"), writes=True)
def issue_step(ctx, value, want):
    "Open an issue whose text carries `value`."
    s = ctx.state("github")
    r = sorted(scan(s, "repos"), key=lambda r: r.id)[ctx.rng.randrange(size(s, "repos"))]
    title = ctx.label("Follow up")
    ctx.call("create_issue", owner=r.owner, repo=r.name, title=title, body=f"Please take care of this: {value}")
    crit = [ctx.criterion("issues", {"repo": r.id, "title": title}, "body", "contains", str(value)),
            ctx.criterion("issues", {"repo": r.id, "title": title}, "state", "eq", "open")]
    return Visit(f'Open an issue titled "{title}" in the {r.id} repository whose description includes {ctx.in_phrase}.', criteria=crit)


# --- scenario beats (compoworld_nb.scenario) ---------------------------------------------------------
from compoworld_nb.steps import add_beat

@add_beat(service, "doc")
def doc_beat(ctx, title: str, body: str, author, spot: dict | None = None) -> dict:
    "Plant an issue titled `title` whose body is `body` in one repository; the reference searches the issues for the title."
    s = ctx.state("github")
    r = read(s, "repos", (spot or _doc_spot(ctx))["repo"])
    def plant(st: GithubState):
        rr = read(st, "repos", r.id)
        n = rr.next_number + 500 + sum(1 for i in scan(st, "issues") if i.repo == r.id and i.number >= rr.next_number + 500)
        put(st, "issues", f"{r.id}#{n}", Issue(id=f"{r.id}#{n}", repo=r.id, number=n, title=title, body=body, user=st.me,
                                         created_at=iso(EPOCH - timedelta(hours=6)), updated_at=iso(EPOCH - timedelta(hours=6))))
    ctx.plant("github", plant)
    got = ctx.call("search_issues", query=title)
    assert any(i["title"] == title for i in got["items"])
    return {"phrase": f"the GitHub issue “{title}” in {r.id}", "where": "GitHub"}

def _doc_spot(ctx, title: str = "") -> dict:
    s = ctx.state("github")
    r = sorted(scan(s, "repos"), key=lambda r: r.id)[ctx.rng.randrange(size(s, "repos"))]
    return {"repo": r.id, "phrase": f"the {r.id} repository on GitHub"}
doc_beat.spot = _doc_spot

@add_beat(service, "announce")
def announce_beat(ctx, target: dict, title: str, text: str) -> dict:
    "Open an issue titled `title` with `text` as its body in the repository `target` names."
    ctx.call("create_issue", owner=target["owner"], repo=target["name"], title=title, body=text)
    return {"collection": "issues", "where": {"repo": target["repo"], "title": title}, "field": "body", "reveals": None}

def _announce_target(ctx) -> dict:
    s = ctx.state("github")
    r = sorted(scan(s, "repos"), key=lambda r: r.id)[ctx.rng.randrange(size(s, "repos"))]
    return {"owner": r.owner, "name": r.name, "repo": r.id, "phrase": f"an issue in the {r.id} repository"}
announce_beat.target = _announce_target

@add_beat(service, "close")
def close_beat(ctx, title: str, comment: str) -> dict:
    "Comment `comment` on the open issue titled `title` and close it as completed; the selectors of the comment and of the issue's state."
    s = ctx.state("github")
    i = next(i for i in sorted(scan(s, "issues"), key=lambda i: i.id) if i.title == title and i.state == "open")
    r = read(s, "repos", i.repo)
    ctx.call("add_issue_comment", owner=r.owner, repo=r.name, issue_number=i.number, body=comment)
    ctx.call("update_issue_state", owner=r.owner, repo=r.name, issue_number=i.number, state="closed", state_reason="completed")
    return {"comment": {"collection": "comments", "where": {"repo": r.id, "issue_number": i.number}, "field": "body"},
            "state": {"collection": "issues", "where": {"id": i.id}, "field": "state"}, "repo": r.id, "number": i.number}
