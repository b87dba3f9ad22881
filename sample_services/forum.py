"""Forum: a community discussion board (categories, topics, posts, likes), in the style of Discourse.

No public MCP spec was given for a forum, so the interface is our own. Lists are paged with an opaque `cursor`
(`next_cursor` names the last item of a page; a cursor always advances; the pages' union is the whole list) and
have documented stable orders. Posts in a topic are numbered 1, 2, ... in order (post 1 opens the topic).

Rules the service enforces (as Discourse does by default): a title has 15-255 characters and a post at least 20;
nobody replies to a closed topic (409); you cannot like your own post (422) or like a post twice (409); you can
edit only your own posts (422); you moderate, so you may close, reopen, pin and unpin any topic.
"""
from __future__ import annotations
import functools, re
from datetime import timedelta
from typing import Literal, Optional
from compoworld_nb.core import EPOCH, ToolError
from compoworld_nb.service import Record, State, Service
from compoworld_nb.steps import Visit, add_step
from compoworld_nb.state import read, find, scan, has, size, writable, put, ids
from .kit import cursor_page, matches, Query, planted_record_step
from .world import make_world, service_rng, service_faker, reveal_value, iso

__all__ = ["service", "ForumState"]


class ForumUser(Record):
    id: str                      # username
    name: str
    bio: str = ""
    trust_level: int = 1
    moderator: bool = False
    created_at: str

class Category(Record):
    id: str                      # slug
    name: str
    description: str

class Topic(Record):
    id: str
    title: str
    category_id: str
    author: str
    tags: list[str] = []
    closed: bool = False
    pinned: bool = False
    views: int = 0
    posts_count: int = 1
    created_at: str
    last_posted_at: str

class Post(Record):
    id: str
    topic_id: str
    post_number: int
    author: str
    raw: str
    reply_to_post_number: Optional[int] = None
    likes: list[str] = []
    created_at: str
    edited_at: Optional[str] = None


class ForumState(State):
    me: str = ""
    users: dict[str, ForumUser] = {}
    categories: dict[str, Category] = {}
    topics: dict[str, Topic] = {}
    posts: dict[str, Post] = {}


service = Service("forum", "content & social", ForumState,
                  "A community forum: categories, topics, replies and likes.", spec=None)


# --- helpers --------------------------------------------------------------------------------------

def _raw(raw: str, arg: str = "raw") -> str:
    if len(raw.strip()) < 20: raise ToolError(422, f"{arg} must have at least 20 characters, got {len(raw.strip())}", arg)
    if len(raw) > 32000: raise ToolError(422, f"{arg} has {len(raw)} characters; the limit is 32000", arg)
    return raw.strip()

def _post_view(p: Post) -> dict:
    d = p.model_dump(exclude={"likes"}); d["like_count"] = len(p.likes); return d

def _topic_posts(s: ForumState, tid: str) -> list[Post]:
    return sorted((p for p in scan(s, "posts") if p.topic_id == tid), key=lambda p: p.post_number)


# --- tools ----------------------------------------------------------------------------------------
@service.tool(read_only=True)
def list_categories(s: ForumState) -> list[dict]:
    "Every category with its topic count, sorted by name."
    count = {}
    for t in scan(s, "topics"): count[t.category_id] = count.get(t.category_id, 0) + 1
    return [{**c.model_dump(), "topic_count": count.get(c.id, 0)} for c in sorted(scan(s, "categories"), key=lambda c: (c.name, c.id))]

@service.tool(read_only=True)
def list_topics(s: ForumState,
                category_id: Optional[str] = None,  # only topics in this category (its slug)
                order: Literal["latest", "created", "views"] = "latest",  # latest activity, creation time or views (all newest/most first)
                tag: Optional[str] = None,          # only topics with this tag
                cursor: Optional[str] = None,       # next_cursor of the previous page
                limit: int = 20,                    # page size (1-100)
               ) -> dict:
    "Topics; pinned ones first, then by the chosen order (descending), ties by id."
    if category_id is not None: find(s, "categories", category_id, "category", "category_id")
    ts = [t for t in scan(s, "topics") if (category_id is None or t.category_id == category_id) and (tag is None or tag in t.tags)]
    f = {"latest": "last_posted_at", "created": "created_at", "views": "views"}[order]
    key = lambda t: (int(t.pinned), getattr(t, f), t.id)
    ts.sort(key=key, reverse=True)
    page, nxt = cursor_page(ts, key, limit, cursor, descending=True)
    return {"topics": [t.model_dump() for t in page], "next_cursor": nxt, "total": len(ts)}

@service.tool(read_only=True)
def get_topic(s: ForumState,
              topic_id: str,                 # the topic
              cursor: Optional[str] = None,  # next_cursor of the previous page of posts
              limit: int = 20,               # posts per page (1-100)
             ) -> dict:
    "A topic and a page of its posts, in post order."
    t = find(s, "topics", topic_id, "topic", "topic_id")
    posts = _topic_posts(s, t.id)
    page, nxt = cursor_page(posts, lambda p: p.post_number, limit, cursor)
    return {"topic": t.model_dump(), "posts": [_post_view(p) for p in page], "next_cursor": nxt}

@service.tool
def create_topic(s: ForumState,
                 title: str,                     # 15-255 characters
                 category_id: str,               # the category's slug
                 raw: str,                       # the first post (Markdown, at least 20 characters)
                 tags: Optional[list[str]] = None,  # up to 5 lowercase tags
                ) -> dict:
    "Start a topic with its first post."
    if not 15 <= len(title.strip()) <= 255: raise ToolError(422, f"title must have 15-255 characters, got {len(title.strip())}", "title")
    find(s, "categories", category_id, "category", "category_id")
    body = _raw(raw)
    tg = list(dict.fromkeys(t.strip().lower() for t in tags or []))
    if len(tg) > 5: raise ToolError(422, f"at most 5 tags, got {len(tg)}", "tags")
    bad = next((t for t in tg if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,29}", t)), None)
    if bad is not None: raise ToolError(422, f"tag {bad!r} must be 1-30 lowercase letters, digits or dashes", "tags")
    if any(x.title.lower() == title.strip().lower() for x in scan(s, "topics")): raise ToolError(409, f"a topic titled {title.strip()!r} already exists", "title")
    tid, pid, now = s.new_id("t"), s.new_id("p"), s.tick()
    put(s, "topics", tid, Topic(id=tid, title=title.strip(), category_id=category_id, author=s.me, tags=tg, created_at=now, last_posted_at=now))
    put(s, "posts", pid, Post(id=pid, topic_id=tid, post_number=1, author=s.me, raw=body, created_at=now))
    return {"topic": read(s, "topics", tid).model_dump(), "post": _post_view(read(s, "posts", pid))}

@service.tool
def reply_to_topic(s: ForumState,
                   topic_id: str,                               # the topic to reply in
                   raw: str,                                    # the reply (Markdown, at least 20 characters)
                   reply_to_post_number: Optional[int] = None,  # the post this answers
                  ) -> dict:
    "Post a reply at the end of a topic."
    t = find(s, "topics", topic_id, "topic", "topic_id")
    if t.closed: raise ToolError(409, f"topic {topic_id} is closed", "topic_id")
    body = _raw(raw)
    posts = _topic_posts(s, t.id)
    if reply_to_post_number is not None and not any(p.post_number == reply_to_post_number for p in posts):
        raise ToolError(404, f"topic {topic_id} has no post {reply_to_post_number}", "reply_to_post_number")
    pid, now = s.new_id("p"), s.tick()
    n = posts[-1].post_number + 1 if posts else 1
    put(s, "posts", pid, Post(id=pid, topic_id=t.id, post_number=n, author=s.me, raw=body, reply_to_post_number=reply_to_post_number, created_at=now))
    tt = writable(s, "topics", t.id); tt.posts_count += 1; tt.last_posted_at = now
    return _post_view(read(s, "posts", pid))

@service.tool
def edit_post(s: ForumState,
              post_id: str,  # one of your posts
              raw: str,      # its new text (at least 20 characters)
             ) -> dict:
    "Replace the text of one of your posts."
    p = find(s, "posts", post_id, "post", "post_id")
    if p.author != s.me: raise ToolError(422, f"post {post_id} was written by {p.author}; you can edit only your own posts", "post_id")
    body = _raw(raw)
    q = writable(s, "posts", p.id); q.raw = body; q.edited_at = s.tick()
    return _post_view(q)

@service.tool
def like_post(s: ForumState,
              post_id: str,  # a post by someone else
             ) -> dict:
    "Like a post."
    p = find(s, "posts", post_id, "post", "post_id")
    if p.author == s.me: raise ToolError(422, "you cannot like your own post", "post_id")
    if s.me in p.likes: raise ToolError(409, f"you already like post {post_id}", "post_id")
    q = writable(s, "posts", p.id); q.likes = q.likes + [s.me]
    return _post_view(q)

@service.tool
def unlike_post(s: ForumState,
                post_id: str,  # a post you like
               ) -> dict:
    "Take back your like of a post."
    p = find(s, "posts", post_id, "post", "post_id")
    if s.me not in p.likes: raise ToolError(409, f"you do not like post {post_id}", "post_id")
    q = writable(s, "posts", p.id); q.likes = [u for u in q.likes if u != s.me]
    return _post_view(q)

@service.tool(read_only=True)
def search_posts(s: ForumState,
                 query: Query,                       # words to find in post text or topic titles (all must occur)
                 category_id: Optional[str] = None,  # only in this category
                 cursor: Optional[str] = None,       # next_cursor of the previous page
                 limit: int = 20,                    # page size (1-100)
                ) -> dict:
    "Posts matching every word of the query, newest first (ties by id), each with its topic's title."
    if not query.strip(): raise ToolError(422, "query must not be empty", "query")
    if category_id is not None: find(s, "categories", category_id, "category", "category_id")
    hits = []
    for p in scan(s, "posts"):
        t = read(s, "topics", p.topic_id)
        if (category_id is None or t.category_id == category_id) and matches(query, p.raw, t.title): hits.append((p, t))
    key = lambda h: (h[0].created_at, h[0].id)
    hits.sort(key=key, reverse=True)
    page, nxt = cursor_page(hits, key, limit, cursor, descending=True)
    return {"posts": [{**_post_view(p), "topic_title": t.title} for p, t in page], "next_cursor": nxt, "total": len(hits)}

@service.tool(read_only=True)
def get_user(s: ForumState,
             username: str,  # the user's username
            ) -> dict:
    "A user's profile with post and like counts."
    u = find(s, "users", username, "user", "username")
    posts = [p for p in scan(s, "posts") if p.author == u.id]
    return {**u.model_dump(), "post_count": len(posts), "likes_received": sum(len(p.likes) for p in posts)}

@service.tool
def set_topic_status(s: ForumState,
                     topic_id: str,                           # the topic
                     status: Literal["closed", "pinned"],     # which flag to set
                     enabled: bool,                           # true to close/pin, false to reopen/unpin
                    ) -> dict:
    "Close or reopen, pin or unpin a topic (moderators only)."
    if not read(s, "users", s.me).moderator: raise ToolError(422, "only moderators can change a topic's status", "topic_id")
    t = find(s, "topics", topic_id, "topic", "topic_id")
    if getattr(t, status) == enabled: raise ToolError(409, f"topic {topic_id} is already {'' if enabled else 'not '}{status}", "enabled")
    tt = writable(s, "topics", t.id); setattr(tt, status, enabled); s.tick()
    return tt.model_dump()


# --- fixture ------------------------------------------------------------------------------------
_CATS = [("announcements", "Announcements", "News from the team"), ("general", "General", "Anything that fits nowhere else"),
         ("help", "Help", "Questions about using the product"), ("feature-requests", "Feature Requests", "Ideas for what to build next"),
         ("bugs", "Bug Reports", "Things that do not work as they should"), ("integrations", "Integrations", "Connecting to other tools"),
         ("showcase", "Showcase", "What people built"), ("meta", "Site Feedback", "About this forum")]
_TITLES = ["How do I set up {x} with {y}?", "Feature request: better {x}", "{x} stopped working after the update", "Tips for getting started with {x}",
           "Is there a way to export {x}?", "Showcase: our {x} dashboard", "Best practices for {x} and {y}", "Announcing improvements to {x}",
           "Question about {x} limits", "Trouble connecting {x} to {y}"]
_BITS = ["webhooks", "the API", "SSO", "CSV exports", "Slack alerts", "the mobile app", "custom fields", "reporting", "permissions", "automations",
         "search", "billing", "time zones", "dark mode", "the calendar sync"]

@service.fixture
def fixture(seed: int) -> ForumState:
    "8 categories, 40 users (the world's people among them), ~120 topics and ~600 posts with likes (dates before EPOCH)."
    return _build(seed).model_copy(deep=True)

@functools.lru_cache(maxsize=8)
def _build(seed: int) -> ForumState:
    w, rng, fk = make_world(seed), service_rng("forum", seed), service_faker("forum", seed)
    s = ForumState(seed=seed, me=w.me.handle.replace(".", "_"))
    def when(lo, hi): return iso(EPOCH - timedelta(minutes=rng.randint(lo * 1440, hi * 1440)))
    for p in w.people:
        u = p.handle.replace(".", "_")
        put(s, "users", u, ForumUser(id=u, name=p.name, bio=p.title, trust_level=rng.randint(1, 3), moderator=u == s.me, created_at=when(200, 700)))
    while size(s, "users") < 40:
        n = fk.user_name()
        if not has(s, "users", n): put(s, "users", n, ForumUser(id=n, name=fk.name(), bio=fk.job(), trust_level=rng.randint(0, 2), created_at=when(30, 700)))
    for slug, name, desc in _CATS: put(s, "categories", slug, Category(id=slug, name=name, description=desc))
    users = list(ids(s, "users"))
    titles = set()
    k = 0
    while size(s, "topics") < 120:
        title = rng.choice(_TITLES).format(x=rng.choice(_BITS), y=rng.choice(_BITS))
        if title in titles: continue
        titles.add(title); k += 1
        tid = f"t_{k:04d}"
        t0 = when(2, 180)
        author = rng.choice(users)
        n_posts = rng.randint(1, 9)
        times = sorted([t0] + [max(t0, when(0, 90)) for _ in range(n_posts - 1)])
        for j, t in enumerate(times, 1):
            pid = f"p_{tid[2:]}_{j:02d}"
            by = author if j == 1 else rng.choice(users)
            put(s, "posts", pid, Post(id=pid, topic_id=tid, post_number=j, author=by, raw=fk.paragraph(nb_sentences=rng.randint(2, 4)),
                                reply_to_post_number=rng.randint(1, j - 1) if j > 1 and rng.random() < 0.4 else None,
                                likes=[u for u in rng.sample(users, rng.randint(0, 4)) if u != by], created_at=t))
        put(s, "topics", tid, Topic(id=tid, title=title, category_id=rng.choice(_CATS)[0], author=author,
                              tags=rng.sample(["question", "howto", "api", "mobile", "bug", "idea"], rng.randint(0, 2)),
                              closed=rng.random() < 0.08, pinned=rng.random() < 0.03, views=rng.randint(5, 900), posts_count=n_posts,
                              created_at=t0, last_posted_at=times[-1]))
    return s


# --- step templates -----------------------------------------------------------------------------
_PHRASE = {"key": "the project code given in that forum topic", "place": "the venue given in that forum topic"}

@planted_record_step(service, _PHRASE)
def read_step(ctx, value, kind, nxt, what):
    "Plant a topic about `value` whose first post gives the next fact; the agent searches for it."
    tid, pid = ctx.plant_id("t"), ctx.plant_id("p")
    author = sorted(ctx.state("forum").users)[1]
    line = f"The project code is {nxt}." if kind == "key" else f"We are meeting at {nxt} this time."
    def plant(s: ForumState):
        t = iso(EPOCH - timedelta(hours=8))
        put(s, "topics", tid, Topic(id=tid, title=f"Meetup planning for {value}", category_id="announcements", author=author, created_at=t, last_posted_at=t))
        put(s, "posts", pid, Post(id=pid, topic_id=tid, post_number=1, author=author, raw=f"Hello all! About {value}: {line} See you there.", created_at=t))
    ctx.plant("forum", plant)
    got = ctx.call("search_posts", query=str(value))
    assert got["posts"] and nxt in got["posts"][0]["raw"]
    return (f"On the community forum, find the topic about {ctx.in_phrase} and tell me the {what} it announces.",
            f"On the community forum, find the topic about {ctx.in_phrase} and read its first post.")

@add_step(service, "reply", needs=("key", "place", "coords", "forecast", "ref"), writes=True)
def reply_step(ctx, value, want):
    "Reply in an open topic with a post that carries `value`."
    st = ctx.state("forum")
    opens = sorted((t for t in scan(st, "topics") if not t.closed), key=lambda t: t.id)
    t = opens[ctx.rng.randrange(len(opens))]
    ctx.call("reply_to_topic", topic_id=t.id, raw=f"Quick update for everyone: {value}. Thanks!")
    crit = [ctx.criterion("posts", {"topic_id": t.id, "author": st.me}, "raw", "contains", str(value))]
    return Visit(f'On the community forum, reply in the topic "{t.title}" with a post that mentions {ctx.in_phrase}.', criteria=crit)


# --- scenario beats (compoworld_nb.scenario) ---------------------------------------------------------
from compoworld_nb.steps import add_beat

@add_beat(service, "doc")
def doc_beat(ctx, title: str, body: str, author, spot: dict | None = None) -> dict:
    "Plant an announcements topic titled `title` whose first post is `body`; the reference searches the posts for the title."
    tid, pid = ctx.plant_id("t"), ctx.plant_id("p")
    st = ctx.state("forum")
    uid = next(u for u in sorted(ids(st, "users"))[1:] if u != st.me)     # never me: my own post would be selected with my reply (a shared selector)
    def plant(s: ForumState):
        t = iso(EPOCH - timedelta(hours=ctx.rng.randint(3, 48)))
        put(s, "topics", tid, Topic(id=tid, title=title, category_id="announcements", author=uid, created_at=t, last_posted_at=t))
        put(s, "posts", pid, Post(id=pid, topic_id=tid, post_number=1, author=uid, raw=body, created_at=t))
    ctx.plant("forum", plant)
    got = ctx.call("search_posts", query=title)
    assert got["posts"] and got["posts"][0]["topic_title"] == title
    return {"phrase": f"the forum topic “{title}”", "where": "the community forum"}

doc_beat.spot = lambda ctx, title: {"phrase": "the community forum"}

@add_beat(service, "announce")
def announce_beat(ctx, target: dict, title: str, text: str) -> dict:
    "Reply `title: text` in the open topic `target` names."
    ctx.call("reply_to_topic", topic_id=target["id"], raw=f"{title}: {text}")
    return {"collection": "posts", "where": {"topic_id": target["id"], "author": ctx.state("forum").me}, "field": "raw", "reveals": None}

def _announce_target(ctx) -> dict:
    st = ctx.state("forum")
    opens = sorted((t for t in scan(st, "topics") if not t.closed), key=lambda t: t.id)
    t = opens[ctx.rng.randrange(len(opens))]
    return {"id": t.id, "phrase": f"the forum topic “{t.title}”"}
announce_beat.target = _announce_target

@add_beat(service, "annotate")
def annotate_beat(ctx, title: str, text: str) -> dict:
    "Reply `text` in the topic titled `title` (the document itself)."
    tid = next(k for k, t in ctx.state("forum").topics.items() if t.title == title)
    return announce_beat(ctx, {"id": tid}, title, text)
