"""Linear: teams, issues and comments of an issue tracker.

All five tools of jerhadf/linear-mcp-server (`../shared/specs/mcp/linear.json`) with its parameter names. A team's
key ("ENG") is its id; an issue is addressed by its id or its identifier ("ENG-12"). `priority` is a number
0-4 as in Linear (0 none, 1 urgent, 2 high, 3 normal, 4 low); anything else is refused with 422.
"""
from __future__ import annotations
import functools
from datetime import timedelta
from typing import Optional
from compoworld_nb.core import EPOCH, ToolError
from compoworld_nb.service import Record, State, Service
from compoworld_nb.steps import Visit, add_step
from compoworld_nb.state import read, scan, entries, ids, has, writable, put
from .world import make_world, iso, parse_iso, service_rng, reveal_value
from .kit import Query, planted_record_step

STATUSES = ["Backlog", "Todo", "In Progress", "In Review", "Done", "Canceled"]
LABELS = ["bug", "feature", "improvement", "tech-debt", "customer"]
PRIORITY_NAMES = {0: "No priority", 1: "Urgent", 2: "High", 3: "Normal", 4: "Low"}


class Team(Record):
    id: str                     # the team key, e.g. "ENG"
    name: str
    next_number: int = 1        # number of the next issue created in this team


class LinearUser(Record):
    id: str
    name: str
    email: str
    displayName: str


class Issue(Record):
    id: str
    identifier: str             # "ENG-12"
    teamId: str
    title: str
    description: str = ""
    priority: int = 0
    status: str = "Todo"
    assigneeId: Optional[str] = None
    creatorId: str = ""
    labels: list[str] = []
    estimate: Optional[int] = None
    archived: bool = False
    createdAt: str
    updatedAt: str
    url: str = ""


class Comment(Record):
    id: str
    issueId: str
    body: str
    userId: Optional[str] = None
    createAsUser: Optional[str] = None
    displayIconUrl: Optional[str] = None
    createdAt: str


class LinearState(State):
    me: str = ""                # id of the authenticated user
    workspace: str = "acme"
    teams: dict[str, Team] = {}
    users: dict[str, LinearUser] = {}
    issues: dict[str, Issue] = {}
    comments: dict[str, Comment] = {}


service = Service("linear", "software development & DevOps", LinearState,
                  "An issue tracker: create, update, search and comment on team issues.", spec="linear")


# --- helpers ------------------------------------------------------------------------------------
def _issue(s: LinearState, ref: str, arg: str) -> Issue:
    "The issue `ref` (its id, or an identifier such as ENG-12) as a copy the running call may change; 404 naming `arg`."
    k = ref if has(s, "issues", ref) else next((k for k, x in entries(s, "issues") if x.identifier.lower() == ref.strip().lower()), None)
    if k is None: raise ToolError(404, f"no issue with {arg}={ref!r}", arg)
    return writable(s, "issues", k)

def _team(s: LinearState, teamId: str) -> Team:
    "The team `teamId` (its key, any case), shared and sealed; 404 naming `teamId`."
    t = read(s, "teams", teamId) or next((t for t in scan(s, "teams") if t.id.lower() == teamId.strip().lower()), None)
    if t is None:
        names = ", ".join(ids(s, "teams"))
        raise ToolError(404, f"no team with teamId={teamId!r} (teams: {names})", "teamId")
    return t

def _priority(p: Optional[float], arg: str = "priority") -> Optional[int]:
    if p is None: return None
    if p != int(p) or not 0 <= p <= 4: raise ToolError(422, f"{arg}={p!r} must be a whole number from 0 to 4", arg)
    return int(p)

def _status(st: Optional[str]) -> Optional[str]:
    if st is None: return None
    hit = next((x for x in STATUSES if x.lower() == st.strip().lower()), None)
    if hit is None: raise ToolError(422, f"status={st!r} is not a workflow state ({', '.join(STATUSES)})", "status")
    return hit

def _title(t: str) -> str:
    if not t.strip(): raise ToolError(422, "title must not be empty", "title")
    return t.strip()

def _limit(n: int) -> int:
    if n < 1: raise ToolError(422, f"limit must be at least 1, got {n}", "limit")
    return min(n, 250)

def _idict(s: LinearState, i: Issue) -> dict:
    d = i.model_dump()
    d["priorityLabel"] = PRIORITY_NAMES[i.priority]
    d["team"] = read(s, "teams", i.teamId).name if has(s, "teams", i.teamId) else i.teamId
    d["assignee"] = read(s, "users", i.assigneeId).name if has(s, "users", i.assigneeId) else None
    return d


# --- tools --------------------------------------------------------------------------------------
@service.tool
def linear_create_issue(s: LinearState,
                        title: str,                         # issue title (not empty)
                        teamId: str,                        # team id, i.e. its key such as 'ENG'
                        description: Optional[str] = None,  # issue description (markdown)
                        priority: Optional[float] = None,   # 0 none, 1 urgent, 2 high, 3 normal, 4 low
                        status: Optional[str] = None,       # workflow state name, e.g. 'Todo' (default) or 'In Progress'
                       ) -> dict:
    "Create an issue in a team and return it with its identifier (e.g. ENG-81) and URL."
    title = _title(title)
    team = _team(s, teamId)
    team = writable(s, "teams", next(k for k, t in entries(s, "teams") if t is team))   # its issue counter moves
    p, st = _priority(priority), _status(status)
    i = s.new_id("iss")
    ident = f"{team.id}-{team.next_number}"
    team.next_number += 1
    now = s.tick()
    put(s, "issues", i, Issue(id=i, identifier=ident, teamId=team.id, title=title, description=description or "",
                        priority=p or 0, status=st or "Todo", creatorId=s.me, createdAt=now, updatedAt=now,
                        url=f"https://linear.app/{s.workspace}/issue/{ident}"))
    return _idict(s, read(s, "issues", i))

@service.tool
def linear_update_issue(s: LinearState,
                        id: str,                            # issue id or identifier such as 'ENG-12'
                        title: Optional[str] = None,        # new title (not empty)
                        description: Optional[str] = None,  # new description
                        priority: Optional[float] = None,   # new priority 0-4
                        status: Optional[str] = None,       # new workflow state name
                       ) -> dict:
    "Change the title, description, priority or status of an issue."
    iss = _issue(s, id, "id")
    if title is None and description is None and priority is None and status is None:
        raise ToolError(422, "nothing to update: give title, description, priority or status", "id")
    t = _title(title) if title is not None else None
    p, st = _priority(priority), _status(status)
    if iss.archived: raise ToolError(409, f"issue {iss.identifier} (id={id!r}) is archived; unarchive it before editing", "id")
    if t is not None: iss.title = t
    if description is not None: iss.description = description
    if p is not None: iss.priority = p
    if st is not None: iss.status = st
    iss.updatedAt = s.tick()
    return _idict(s, iss)

@service.tool(read_only=True)
def linear_search_issues(s: LinearState,
                         query: Optional[Query] = None,        # words that must all appear in the title or description
                         teamId: Optional[str] = None,         # only this team's issues
                         status: Optional[str] = None,         # only issues in this workflow state
                         assigneeId: Optional[str] = None,     # only issues assigned to this user id
                         labels: Optional[list[str]] = None,   # only issues carrying all of these labels
                         priority: Optional[float] = None,     # only this priority (1 urgent .. 4 low, 0 none)
                         estimate: Optional[float] = None,     # only this estimate
                         includeArchived: bool = False,        # also return archived issues
                         limit: int = 10,                      # most issues to return
                        ) -> dict:
    "Search issues by text and filters, most recently updated first."
    n = _limit(limit)
    team = _team(s, teamId).id if teamId is not None else None
    st, p = _status(status), _priority(priority)
    if assigneeId is not None and not has(s, "users", assigneeId): raise ToolError(404, f"no user with assigneeId={assigneeId!r}", "assigneeId")
    words = (query or "").lower().split()
    hits = [i for i in scan(s, "issues")
            if (includeArchived or not i.archived) and (team is None or i.teamId == team) and (st is None or i.status == st)
            and (assigneeId is None or i.assigneeId == assigneeId) and (p is None or i.priority == p)
            and (estimate is None or i.estimate == estimate) and all(l in i.labels for l in labels or [])
            and all(w in f"{i.identifier} {i.title} {i.description}".lower() for w in words)]
    hits.sort(key=lambda i: (i.updatedAt, i.id), reverse=True)
    return {"issues": [_idict(s, i) for i in hits[:n]], "total": len(hits)}

@service.tool(read_only=True)
def linear_get_user_issues(s: LinearState,
                           userId: Optional[str] = None,   # user id (default: the authenticated user)
                           includeArchived: bool = False,  # also return archived issues
                           limit: int = 50,                # most issues to return
                          ) -> dict:
    "Issues assigned to a user, most recently updated first."
    n = _limit(limit)
    uid = userId if userId is not None else s.me
    if not has(s, "users", uid): raise ToolError(404, f"no user with userId={userId!r}", "userId")
    hits = sorted((i for i in scan(s, "issues") if i.assigneeId == uid and (includeArchived or not i.archived)),
                  key=lambda i: (i.updatedAt, i.id), reverse=True)
    return {"user": read(s, "users", uid).name, "issues": [_idict(s, i) for i in hits[:n]]}

@service.tool
def linear_add_comment(s: LinearState,
                       issueId: str,                          # issue id or identifier such as 'ENG-12'
                       body: str,                             # comment text (markdown, not empty)
                       createAsUser: Optional[str] = None,    # name to show as the author instead of yours
                       displayIconUrl: Optional[str] = None,  # avatar URL shown with that name
                      ) -> dict:
    "Add a comment to an issue."
    iss = _issue(s, issueId, "issueId")
    if not body.strip(): raise ToolError(422, "body must not be empty", "body")
    if displayIconUrl is not None and not displayIconUrl.startswith(("http://", "https://")):
        raise ToolError(422, f"displayIconUrl={displayIconUrl!r} must be an http(s) URL", "displayIconUrl")
    if iss.archived: raise ToolError(409, f"issue {iss.identifier} (issueId={issueId!r}) is archived", "issueId")
    c = s.new_id("cmt")
    now = s.tick()
    put(s, "comments", c, Comment(id=c, issueId=iss.id, body=body, userId=s.me, createAsUser=createAsUser,
                            displayIconUrl=displayIconUrl, createdAt=now))
    iss.updatedAt = now
    return {"comment": read(s, "comments", c).model_dump(), "issue": iss.identifier}


# --- fixture ------------------------------------------------------------------------------------
_TITLES = {
    "ENG": ["Fix flaky test in {topic}", "Add retries to the {topic} client", "{topic}: migrate to the new API", "Crash when saving {topic} settings",
            "Reduce p95 latency of {topic}", "Remove dead code from {topic}", "Upgrade dependencies for {topic}"],
    "OPS": ["Rotate credentials for {topic}", "Alert noise from {topic} monitors", "Capacity plan for {topic}", "Runbook for {topic} outages"],
    "DES": ["Mockups for {topic}", "Accessibility pass on {topic}", "Icon set for {topic}", "User interviews about {topic}"],
    "MKT": ["Launch email for {topic}", "Landing page copy for {topic}", "Case study: {topic}", "Webinar on {topic}"],
    "SUP": ["Macro for {topic} questions", "Customer reports {topic} is slow", "FAQ entry for {topic}", "Escalation: {topic} billing error"],
    "DAT": ["Dashboard for {topic}", "Backfill {topic} events", "Data quality check on {topic}", "Weekly report for {topic}"]}
_DESCS = ["Steps to reproduce are in the linked thread.", "Customers have asked about this twice this month.",
          "Follow-up from the last retro.", "Blocked until the vendor ships their fix.", "Small change, should take a day.",
          "Needs a design review before we start.", "See the spec doc for details."]
_COMMENTS = ["I can pick this up next sprint.", "Is this still happening?", "Fixed in the latest build, please verify.",
             "Adding a screenshot from the customer.", "Bumping priority, this hit two more accounts.", "Looks good to me.",
             "Let's discuss in standup.", "Moved to review."]

@service.fixture
def fixture(seed: int) -> LinearState:
    "The world's 4 teams, 12 users, about 80 issues and 60 comments over the 60 days before EPOCH."
    return _build(seed).model_copy(deep=True)

@functools.lru_cache(maxsize=16)
def _build(seed: int) -> LinearState:
    w, rng = make_world(seed), service_rng("linear", seed)
    s = LinearState(seed=seed, workspace=w.domain.split(".")[0])
    uid = {}
    for p in w.people:
        i = s.new_id("usr"); uid[p.email] = i
        put(s, "users", i, LinearUser(id=i, name=p.name, email=p.email, displayName=p.handle))
    s.me = uid[w.me.email]
    for t in w.teams: put(s, "teams", t.id, Team(id=t.id, name=t.name))
    stamps = sorted(rng.randint(3600, 60 * 86400) for _ in range(80))[::-1]
    for back in stamps:
        team = rng.choice(w.teams).id
        members = [p for p in w.people if p.team == team] or list(w.people)
        i = s.new_id("iss")
        t = writable(s, "teams", team)
        ident = f"{team}-{t.next_number}"
        t.next_number += 1
        created = EPOCH - timedelta(seconds=back)
        updated = created + timedelta(seconds=rng.randint(0, back - 60))
        status = rng.choices(STATUSES, weights=[3, 4, 3, 2, 4, 1])[0]
        put(s, "issues", i, Issue(id=i, identifier=ident, teamId=team, title=rng.choice(_TITLES[team]).format(topic=rng.choice(w.topics)),
                            description=rng.choice(_DESCS), priority=rng.choices(range(5), weights=[2, 1, 3, 4, 2])[0], status=status,
                            assigneeId=uid[rng.choice(members).email] if rng.random() < 0.8 else None,
                            creatorId=uid[rng.choice(w.people).email], labels=sorted(rng.sample(LABELS, rng.randint(0, 2))),
                            estimate=rng.choice([None, 1, 2, 3, 5, 8]), archived=status in ("Done", "Canceled") and rng.random() < 0.3,
                            createdAt=iso(created), updatedAt=iso(updated), url=f"https://linear.app/{s.workspace}/issue/{ident}"))
    issues = list(scan(s, "issues"))
    for _ in range(60):
        iss = rng.choice(issues)
        c = s.new_id("cmt")
        at = iso(min(EPOCH - timedelta(minutes=1), parse_iso(iss.createdAt) + timedelta(hours=rng.randint(1, 200))))
        put(s, "comments", c, Comment(id=c, issueId=iss.id, body=rng.choice(_COMMENTS), userId=uid[rng.choice(w.people).email], createdAt=at))
    return s


# --- step templates -----------------------------------------------------------------------------
_READ_PHRASE = {"key": "the code given in that ticket", "place": "the site named in that ticket"}

@planted_record_step(service, _READ_PHRASE, what=("code", "site"))
def read_step(ctx, value, kind, nxt, what):
    "Plant an issue whose title carries the key and whose description states the next fact."
    w = ctx.world
    team = ctx.rng.choice(w.teams)
    iid = ctx.plant_id("iss")
    title = f"{ctx.rng.choice(['Follow up on', 'Prepare', 'Track'])} {value}"
    desc = (f"Context for {value}. Use the code {nxt} for the next step." if kind == "key"
            else f"Context for {value}. The on-site work happens at {nxt}.")
    at = iso(EPOCH - timedelta(hours=ctx.rng.randint(2, 96)))
    def plant(s: LinearState):
        n = 500 + sum(1 for i in scan(s, "issues") if i.teamId == team.id and int(i.identifier.split("-")[1]) >= 500)
        ident = f"{team.id}-{n}"
        put(s, "issues", iid, Issue(id=iid, identifier=ident, teamId=team.id, title=title, description=desc, priority=3,
                              status="Todo", creatorId=s.me, createdAt=at, updatedAt=at,
                              url=f"https://linear.app/{s.workspace}/issue/{ident}"))
        return iid
    ctx.plant("linear", plant)
    found = ctx.call("linear_search_issues", query=str(value))
    assert found["issues"] and nxt in found["issues"][0]["description"]
    return (f"In the issue tracker, find the ticket about {ctx.in_phrase} and tell me the {what} it gives.",
            f"In the issue tracker, find the ticket about {ctx.in_phrase}.")

@add_step(service, "create", needs=("key", "place", "coords", "forecast", "ref"), reveals=("ref",), writes=True)
def create_step(ctx, value, want):
    "Open an issue for a named team whose description carries `value`; reveals the new identifier."
    team = ctx.rng.choice(ctx.world.teams)
    title = ctx.label("Follow-up")
    got = ctx.call("linear_create_issue", title=title, teamId=team.id, description=f"Recorded for follow-up: {value}")
    crit = [ctx.criterion("issues", {"title": title}, "description", "contains", str(value)),
            ctx.criterion("issues", {"title": title}, "teamId", "eq", team.id)]
    text = f'Open a ticket for the {team.name} team (team {team.id}) titled "{title}" whose description includes {ctx.in_phrase}.'
    if want is None: return Visit(text, criteria=crit)
    return Visit(text, reveals=got["identifier"], reveals_phrase="the identifier of the ticket you opened", criteria=crit)


# --- scenario beats (compoworld_nb.scenario) ---------------------------------------------------------
from compoworld_nb.steps import add_beat

@add_beat(service, "doc")
def doc_beat(ctx, title: str, body: str, author, spot: dict | None = None) -> dict:
    "Plant a ticket titled `title` whose description is `body`; the reference searches for it."
    team = ctx.rng.choice(ctx.world.teams)
    iid = ctx.plant_id("iss")
    at = iso(EPOCH - timedelta(hours=ctx.rng.randint(2, 96)))
    def plant(s: LinearState):
        n = 500 + sum(1 for i in scan(s, "issues") if i.teamId == team.id and int(i.identifier.split("-")[1]) >= 500)
        ident = f"{team.id}-{n}"
        put(s, "issues", iid, Issue(id=iid, identifier=ident, teamId=team.id, title=title, description=body, priority=3,
                              status="Todo", creatorId=s.me, createdAt=at, updatedAt=at, url=f"https://linear.app/{s.workspace}/issue/{ident}"))
    ctx.plant("linear", plant)
    found = ctx.call("linear_search_issues", query=title)
    assert found["issues"] and found["issues"][0]["title"] == title
    return {"phrase": f"the ticket “{title}”", "where": "the issue tracker"}

doc_beat.spot = lambda ctx, title: {"phrase": "the issue tracker"}

@add_beat(service, "announce")
def announce_beat(ctx, target: dict, title: str, text: str) -> dict:
    "Open a ticket titled `title` for the team `target` names, with `text` as its description; reveals its identifier."
    got = ctx.call("linear_create_issue", title=title, teamId=target["team"], description=text)
    return {"collection": "issues", "where": {"title": title, "teamId": target["team"]}, "field": "description",
            "reveals": got["identifier"], "reveals_phrase": "the new ticket's identifier"}

def _announce_target(ctx) -> dict:
    t = ctx.rng.choice(ctx.world.teams)
    return {"team": t.id, "phrase": f"a ticket for the {t.name} team"}
announce_beat.target = _announce_target
