"""Slack: one workspace of users, channels, messages, threads and reactions.

All eight tools of the reference Slack MCP server (`../shared/specs/mcp/slack.json`) are implemented with its
parameter names. Message timestamps (`ts`) are Slack-style `'<seconds>.<6 digits>'` strings; a
timestamp given without the period is accepted (the period is put before the last six digits).
Pagination (`slack_list_channels`, `slack_get_users`) uses an opaque cursor naming the last item
returned: the order is stable, each cursor moves strictly forward, and the pages together hold
every item exactly once.
"""
from __future__ import annotations
import base64, functools, re
from datetime import timedelta
from typing import Optional
from compoworld_nb.core import EPOCH, ToolError
from compoworld_nb.service import Record, State, Service
from compoworld_nb.steps import Visit, add_step
from compoworld_nb.state import scan, entries, read, has, writable, put
from .world import make_world, service_rng, reveal_value
from .kit import planted_record_step


class SlackUser(Record):
    id: str
    name: str                   # handle
    real_name: str
    title: str = ""
    email: str = ""
    tz: str = "America/New_York"
    is_bot: bool = False
    deleted: bool = False


class Channel(Record):
    id: str
    name: str
    topic: str = ""
    purpose: str = ""
    created: int                # unix seconds
    creator: str = ""
    is_archived: bool = False
    members: list[str] = []


class Reaction(Record):
    name: str
    users: list[str] = []
    count: int = 0


class SlackMessage(Record):
    id: str
    channel_id: str
    ts: str
    user: str
    text: str
    thread_ts: Optional[str] = None     # set on replies (and on a parent once it has replies)
    reply_count: int = 0
    reactions: list[Reaction] = []


class SlackState(State):
    me: str = ""                        # the user the token acts as
    users: dict[str, SlackUser] = {}
    channels: dict[str, Channel] = {}
    messages: dict[str, SlackMessage] = {}


service = Service("slack", "communication", SlackState,
                  "A team chat workspace: channels, messages, threads and reactions.", spec="slack")


# --- helpers ------------------------------------------------------------------------------------
def _epoch_seconds(s: SlackState) -> int: return int(EPOCH.timestamp() + s.clock)

def _new_ts(s: SlackState) -> str:
    "A fresh, unique ts at the state's current time (ticks the clock)."
    s.tick(1)
    base = _epoch_seconds(s)
    taken = {m.ts for m in scan(s, "messages")}     # read without copying (in a write call every record read is copied)
    n = 0
    while f"{base}.{n:06d}" in taken: n += 1
    return f"{base}.{n:06d}"

def _norm_ts(ts: str) -> str:
    ts = ts.strip()
    if "." not in ts and ts.isdigit() and len(ts) > 6: ts = ts[:-6] + "." + ts[-6:]
    return ts

def _ts_key(ts: str) -> tuple: 
    a, _, b = ts.partition("."); return (int(a), int(b or 0))

def _channel(s: SlackState, channel_id: str, write: bool = False) -> Channel:
    if not has(s, "channels", channel_id): raise ToolError(404, f"no channel with channel_id={channel_id!r}", "channel_id")
    c = read(s, "channels", channel_id)
    if write and c.is_archived: raise ToolError(409, f"channel #{c.name} (channel_id={channel_id!r}) is archived", "channel_id")
    return c

def _find(s: SlackState, channel_id: str, ts: str, arg: str, write: bool = False) -> SlackMessage:
    ts = _norm_ts(ts)
    k = next((k for k, m in entries(s, "messages") if m.channel_id == channel_id and m.ts == ts), None)   # scan without copying
    if k is None: raise ToolError(404, f"no message with {arg}={ts!r} in channel {channel_id!r}", arg)
    return writable(s, "messages", k) if write else read(s, "messages", k)   # the one record found; with `write`, the call's writable copy

def _text(text: str) -> str:
    if not text.strip(): raise ToolError(422, "text must not be empty", "text")
    if len(text) > 40000: raise ToolError(422, f"text is {len(text)} characters; the limit is 40000", "text")
    return text

def _mdict(m: SlackMessage) -> dict:
    d = {"type": "message", "ts": m.ts, "user": m.user, "text": m.text}
    if m.thread_ts: d["thread_ts"] = m.thread_ts
    if m.reply_count: d["reply_count"] = m.reply_count
    if m.reactions: d["reactions"] = [r.model_dump() for r in m.reactions]
    return d

def _cursor(item_id: str) -> str: return base64.urlsafe_b64encode(f"after:{item_id}".encode()).decode()

def _page(items: list, key, limit: int, cursor: Optional[str]) -> tuple[list, str]:
    "One page of `items` (already in stable order, `key(item)` its id) after `cursor`."
    if limit < 1: raise ToolError(422, f"limit must be at least 1, got {limit}", "limit")
    limit = min(limit, 200)
    start = 0
    if cursor:
        try: after = base64.urlsafe_b64decode(cursor.encode()).decode()
        except Exception: after = ""
        if not after.startswith("after:"): raise ToolError(422, f"cursor={cursor!r} is not a cursor this workspace issued", "cursor")
        ids = [key(i) for i in items]
        after = after[len("after:"):]
        # the position just past the named item; if it has gone, past every item ordered before it
        start = ids.index(after) + 1 if after in ids else sum(1 for i in ids if _order(i) < _order(after))
    page = items[start:start + limit]
    nxt = _cursor(key(page[-1])) if page and start + limit < len(items) else ""
    return page, nxt

def _order(item_id: str) -> tuple:
    "Stable order of ids: the numeric counter after the prefix, then the text."
    m = re.match(r"^[A-Za-z]+_(\d+)", item_id)
    return (int(m.group(1)) if m else 10**9, item_id)


# --- tools --------------------------------------------------------------------------------------
@service.tool(read_only=True)
def slack_list_channels(s: SlackState,
                        limit: int = 100,              # channels per page (1-200; larger values are capped at 200)
                        cursor: Optional[str] = None,  # next_cursor from the previous page
                       ) -> dict:
    "List the workspace's public channels that are not archived, one page at a time.\n\nPass `response_metadata.next_cursor` back as `cursor` for the next page; it is empty on the last page."
    chans = sorted((c for c in scan(s, "channels") if not c.is_archived), key=lambda c: _order(c.id))
    page, nxt = _page(chans, lambda c: c.id, limit, cursor)
    return {"channels": [{"id": c.id, "name": c.name, "topic": c.topic, "purpose": c.purpose, "created": c.created,
                          "num_members": len(c.members)} for c in page],
            "response_metadata": {"next_cursor": nxt}}

@service.tool
def slack_post_message(s: SlackState,
                       channel_id: str,  # id of the channel to post in
                       text: str,        # message text
                      ) -> dict:
    "Post a new message in a channel as the current user."
    _channel(s, channel_id, write=True); _text(text)
    ts = _new_ts(s)
    i = s.new_id("m")
    put(s, "messages", i, SlackMessage(id=i, channel_id=channel_id, ts=ts, user=s.me, text=text))
    return {"channel": channel_id, "ts": ts, "message": _mdict(read(s, "messages", i))}

@service.tool
def slack_reply_to_thread(s: SlackState,
                          channel_id: str,  # id of the channel holding the thread
                          thread_ts: str,   # ts of the thread's parent message, e.g. '1740992400.000100'
                          text: str,        # reply text
                         ) -> dict:
    "Reply in the thread of a message."
    _channel(s, channel_id, write=True)
    parent = _find(s, channel_id, thread_ts, "thread_ts", write=True)   # written below, or its thread root is
    _text(text)
    if parent.thread_ts and parent.thread_ts != parent.ts:   # a reply: answer its thread
        parent = _find(s, channel_id, parent.thread_ts, "thread_ts", write=True)
    ts = _new_ts(s)
    i = s.new_id("m")
    put(s, "messages", i, SlackMessage(id=i, channel_id=channel_id, ts=ts, user=s.me, text=text, thread_ts=parent.ts))
    parent.thread_ts, parent.reply_count = parent.ts, parent.reply_count + 1
    return {"channel": channel_id, "ts": ts, "message": _mdict(read(s, "messages", i))}

@service.tool
def slack_add_reaction(s: SlackState,
                       channel_id: str,  # id of the channel holding the message
                       timestamp: str,   # ts of the message to react to
                       reaction: str,    # emoji name without colons, e.g. 'thumbsup'
                      ) -> dict:
    "Add an emoji reaction from the current user to a message."
    _channel(s, channel_id)
    m = _find(s, channel_id, timestamp, "timestamp", write=True)
    name = reaction.strip().strip(":")
    if not re.fullmatch(r"[a-z0-9_+'-]{1,100}", name):
        raise ToolError(422, f"reaction={reaction!r} is not an emoji name (lowercase letters, digits, _ + -)", "reaction")
    r = next((r for r in m.reactions if r.name == name), None)
    if r and s.me in r.users: raise ToolError(409, f"you already reacted with :{name}: to timestamp={m.ts!r}", "reaction")
    if r: r.users, r.count = r.users + [s.me], r.count + 1
    else: m.reactions = m.reactions + [Reaction(name=name, users=[s.me], count=1)]
    return {"channel": channel_id, "ts": m.ts, "reaction": name}

@service.tool(read_only=True)
def slack_get_channel_history(s: SlackState,
                              channel_id: str,  # id of the channel
                              limit: int = 10,  # most messages to return, newest first (1-1000)
                             ) -> dict:
    "Recent top-level messages of a channel, newest first (thread replies are read with the thread tool)."
    _channel(s, channel_id)
    if limit < 1: raise ToolError(422, f"limit must be at least 1, got {limit}", "limit")
    msgs = sorted((m for m in scan(s, "messages") if m.channel_id == channel_id and m.thread_ts in (None, m.ts)),
                  key=lambda m: _ts_key(m.ts), reverse=True)
    return {"messages": [_mdict(m) for m in msgs[:min(limit, 1000)]], "has_more": len(msgs) > limit}

@service.tool(read_only=True)
def slack_get_thread_replies(s: SlackState,
                             channel_id: str,  # id of the channel holding the thread
                             thread_ts: str,   # ts of the thread's parent message
                            ) -> dict:
    "A thread: its parent message followed by every reply, oldest first."
    _channel(s, channel_id)
    parent = _find(s, channel_id, thread_ts, "thread_ts")
    root = parent.thread_ts or parent.ts
    msgs = sorted((m for m in scan(s, "messages") if m.channel_id == channel_id and (m.ts == root or m.thread_ts == root)),
                  key=lambda m: _ts_key(m.ts))
    return {"messages": [_mdict(m) for m in msgs]}

@service.tool(read_only=True)
def slack_get_users(s: SlackState,
                    cursor: Optional[str] = None,  # next_cursor from the previous page
                    limit: int = 100,              # users per page (1-200; larger values are capped at 200)
                   ) -> dict:
    "List the workspace's members with basic profile fields, one page at a time."
    users = sorted(scan(s, "users"), key=lambda u: _order(u.id))
    page, nxt = _page(users, lambda u: u.id, limit, cursor)
    return {"members": [{"id": u.id, "name": u.name, "real_name": u.real_name, "is_bot": u.is_bot,
                         "deleted": u.deleted, "tz": u.tz} for u in page],
            "response_metadata": {"next_cursor": nxt}}

@service.tool(read_only=True)
def slack_get_user_profile(s: SlackState,
                           user_id: str,  # id of the user, e.g. 'U12AB34CD'
                          ) -> dict:
    "Full profile of one user."
    if not has(s, "users", user_id): raise ToolError(404, f"no user with user_id={user_id!r}", "user_id")
    u = read(s, "users", user_id)
    return {"id": u.id, "profile": {"real_name": u.real_name, "display_name": u.name, "title": u.title,
                                    "email": u.email, "tz": u.tz}, "is_bot": u.is_bot, "deleted": u.deleted}


# --- fixture ------------------------------------------------------------------------------------
_PURPOSE = {"general": "Company-wide announcements and work-based matters", "random": "Non-work banter and water-cooler talk",
            "eng-standup": "Daily async standups for engineering", "design-crit": "Share work in progress for feedback",
            "ops-alerts": "Alerts and on-call handoffs", "announcements": "Important news, read-only for most",
            "travel": "Trips, visits and offsites", "customer-feedback": "What customers are telling us",
            "incidents": "Live incident coordination", "hiring": "Open roles and interview loops",
            "offsite-planning": "Planning the spring offsite", "data-questions": "Ask the data team anything",
            "marketing": "Campaigns and launches", "releases": "Release notes and ship announcements"}
_LINES = ["Morning all! Picking up {topic} today.", "Does anyone have the latest doc for {topic}?",
          "Heads up: the {topic} review moved to Thursday.", "Shipped the first part of {topic}.",
          "Who owns {topic} this sprint?", "Great work on {topic}, everyone.", "I will be in {place} next week if anyone is around.",
          "Blocked on {topic} until the vendor replies.", "Reminder: retro at 3pm.", "Can someone review my PR for {topic}?",
          "Coffee run in 10, anyone?", "The {topic} dashboard looks off this morning, checking.",
          "Notes from the {topic} sync are in the doc.", "Flight to {place} booked for the offsite."]
_REPLIES = ["Thanks!", "On it.", "+1", "I can take a look after lunch.", "Same here.", "Done, let me know if it works.",
            "Good catch.", "Let's sync tomorrow.", "Nice!", "I think {first} knows."]
_EMOJI = ["thumbsup", "eyes", "tada", "white_check_mark", "raised_hands", "fire", "pray", "100"]

@service.fixture
def fixture(seed: int) -> SlackState:
    "12 users, 8 channels plus one archived, about 150 messages (threads and reactions included) over the 30 days before EPOCH."
    return _build(seed).model_copy(deep=True)

@functools.lru_cache(maxsize=16)
def _build(seed: int) -> SlackState:
    w, rng = make_world(seed), service_rng("slack", seed)
    s = SlackState(seed=seed, me=w.me.slack_id)
    for p in w.people:
        put(s, "users", p.slack_id, SlackUser(id=p.slack_id, name=p.handle, real_name=p.name, title=p.title, email=p.email,
                                        tz=(w.place(p.home).tz if w.place(p.home) else "America/New_York")))
    everyone = [p.slack_id for p in w.people]
    chan_ids = []
    for k, name in enumerate(list(w.channels) + ["old-" + rng.choice(["launch", "project", "pilot"])]):
        cid = s.new_id("C")
        created = int((EPOCH - timedelta(days=400 - 20 * k)).timestamp())
        members = everyone if name in ("general", "random", "announcements") else sorted(rng.sample(everyone, rng.randint(4, 10)))
        if w.me.slack_id not in members: members = sorted(members + [w.me.slack_id])
        put(s, "channels", cid, Channel(id=cid, name=name, topic="", purpose=_PURPOSE.get(name, "Archived project channel"),
                                  created=created, creator=rng.choice(everyone), is_archived=name.startswith("old-"),
                                  members=members))
        chan_ids.append(cid)
    seconds = sorted(rng.randint(600, 30 * 86400) for _ in range(150))[::-1]   # before EPOCH, oldest first
    tops: list[SlackMessage] = []
    for n, back in enumerate(seconds):
        ts = f"{int(EPOCH.timestamp()) - back}.{(n * 37) % 1000000:06d}"
        mid = s.new_id("m")
        if tops and rng.random() < 0.25:                       # a reply in a recent thread
            parent = rng.choice(tops[-12:])
            user = rng.choice(read(s, "channels", parent.channel_id).members)
            m = SlackMessage(id=mid, channel_id=parent.channel_id, ts=ts, user=user,
                             text=rng.choice(_REPLIES).format(first=rng.choice(w.others).first), thread_ts=parent.ts)
            parent.thread_ts, parent.reply_count = parent.ts, parent.reply_count + 1
        else:
            cid = rng.choice(chan_ids[:-1]) if rng.random() > 0.04 else chan_ids[-1]   # the last one is archived
            user = rng.choice(read(s, "channels", cid).members)
            m = SlackMessage(id=mid, channel_id=cid, ts=ts, user=user,
                             text=rng.choice(_LINES).format(topic=rng.choice(w.topics), place=rng.choice(w.places).label))
            tops.append(m)
        if rng.random() < 0.2:
            who = rng.sample(everyone, rng.randint(1, 3))
            m.reactions = [Reaction(name=rng.choice(_EMOJI), users=who, count=len(who))]
        put(s, "messages", mid, m)
    return s


# --- step templates -----------------------------------------------------------------------------
_READ_PHRASE = {"key": "the code posted in that channel", "place": "the location posted in that channel"}

@planted_record_step(service, _READ_PHRASE, what=("code", "meeting place"))
def read_step(ctx, value, kind, nxt, what):
    "Plant a channel named after the key with a message stating the next fact; the agent finds the channel and reads it."
    w = ctx.world
    poster = ctx.rng.choice(w.others)
    cid, mid = ctx.plant_id("C"), ctx.plant_id("m")
    name = re.sub(r"[^a-z0-9_-]+", "-", str(value).lower()).strip("-")[:80]
    text = (f"Kicking off {name}. The code for the next step is {nxt}." if kind == "key"
            else f"Kicking off {name}. We will meet at {nxt}, details to follow.")
    back = ctx.rng.randint(3600, 5 * 86400)
    def plant(s: SlackState):
        base = int(EPOCH.timestamp()) - back
        taken = {m.ts for m in scan(s, "messages")}
        n = 0
        while f"{base}.{n:06d}" in taken: n += 1
        put(s, "channels", cid, Channel(id=cid, name=name, purpose=f"Working channel for {name}", created=base - 3600,
                                  creator=poster.slack_id, members=sorted({poster.slack_id, s.me})))
        put(s, "messages", mid, SlackMessage(id=mid, channel_id=cid, ts=f"{base}.{n:06d}", user=poster.slack_id, text=text))
        return cid
    ctx.plant("slack", plant)
    found, cursor = None, None
    while found is None:
        page = ctx.call("slack_list_channels", limit=100, **({"cursor": cursor} if cursor else {}))
        found = next((c["id"] for c in page["channels"] if c["name"] == name), None)
        cursor = page["response_metadata"]["next_cursor"]
        if found is None and not cursor: raise AssertionError(f"planted channel #{name} not listed")
    hist = ctx.call("slack_get_channel_history", channel_id=found)
    assert any(nxt in m["text"] for m in hist["messages"])
    return (f"Open the chat channel named after {ctx.in_phrase} and tell me the {what} posted there.",
            f"Open the chat channel named after {ctx.in_phrase} and read the latest message.")

@add_step(service, "post", needs=("key", "place", "coords", "forecast", "ref"), writes=True)
def post_step(ctx, value, want):
    "Post a message containing `value` in an existing channel."
    s = ctx.state("slack")
    chans = sorted((c for c in scan(s, "channels") if not c.is_archived and c.name in ctx.world.channels), key=lambda c: c.name)
    ch = ctx.rng.choice(chans)
    ctx.call("slack_post_message", channel_id=ch.id, text=f"Update: {value}")
    crit = [ctx.criterion("messages", {"channel_id": ch.id, "user": s.me}, "text", "contains", str(value))]
    return Visit(f"Post {ctx.in_phrase} in the #{ch.name} channel.", criteria=crit)


# --- scenario beats (compoworld_nb.scenario) ---------------------------------------------------------
from compoworld_nb.steps import add_beat

def _open_channels(ctx) -> list:
    s = ctx.state("slack")
    return sorted((c for c in scan(s, "channels") if not c.is_archived and c.name in ctx.world.channels), key=lambda c: c.name)

def _post_ts(s: SlackState, back: int) -> str:
    base = int(EPOCH.timestamp()) - back
    taken = {m.ts for m in scan(s, "messages")}
    n = 0
    while f"{base}.{n:06d}" in taken: n += 1
    return f"{base}.{n:06d}"

def _channel_id(ctx, name: str) -> str:
    "The reference's way to a channel named `name`: list the channels page by page."
    cursor = None
    while True:
        page = ctx.call("slack_list_channels", limit=100, **({"cursor": cursor} if cursor else {}))
        found = next((c["id"] for c in page["channels"] if c["name"] == name), None)
        cursor = page["response_metadata"]["next_cursor"]
        if found is not None: return found
        if not cursor: raise AssertionError(f"channel #{name} not listed")

@add_beat(service, "doc")
def doc_beat(ctx, title: str, body: str, author, spot: dict | None = None) -> dict:
    "Plant a message by `author` starting with `title` in an open channel; the reference opens the channel's history."
    spot = spot or _doc_spot(ctx)
    ch = next(c for c in _open_channels(ctx) if c.name == spot["name"])
    mid, uid = ctx.plant_id("m"), author.slack_id
    back = ctx.rng.randint(3600, 3 * 86400)
    def plant(s: SlackState):
        put(s, "messages", mid, SlackMessage(id=mid, channel_id=ch.id, ts=_post_ts(s, back), user=uid if has(s, "users", uid) else s.me,
                                       text=f"*{title}*\n{body}"))
    ctx.plant("slack", plant)
    hist = ctx.call("slack_get_channel_history", channel_id=_channel_id(ctx, ch.name))
    assert any(title in m["text"] for m in hist["messages"])
    return {"phrase": f"{author.first}'s “{title}” message in #{ch.name}", "where": f"#{ch.name}"}

def _doc_spot(ctx, title: str = "") -> dict:
    "A channel for a document titled `title`; not one whose name is a word of the title (the channel must be learned, not guessed from the request)."
    chans = [c for c in _open_channels(ctx) if not any(part in title.lower() for part in c.name.split("-"))] or _open_channels(ctx)
    ch = ctx.rng.choice(chans)
    return {"name": ch.name, "phrase": f"#{ch.name}"}
doc_beat.spot = _doc_spot

@add_beat(service, "announce")
def announce_beat(ctx, target: dict, title: str, text: str) -> dict:
    "Post `title: text` in the channel `target` names; the selector of the posted message for the criteria."
    s = ctx.state("slack")
    got = ctx.call("slack_post_message", channel_id=_channel_id(ctx, target["name"]), text=f"{title}: {text}")
    return {"collection": "messages", "where": {"channel_id": got["channel"], "user": s.me}, "field": "text", "reveals": None}

def _announce_target(ctx) -> dict:
    ch = ctx.rng.choice(_open_channels(ctx))
    return {"name": ch.name, "phrase": f"the #{ch.name} channel"}
announce_beat.target = _announce_target

@add_beat(service, "annotate")
def annotate_beat(ctx, title: str, text: str) -> dict:
    "Post `title: text` in the channel that holds the message starting with `title` (the document itself)."
    st = ctx.state("slack")
    cid = next(m.channel_id for m in scan(st, "messages") if m.text.startswith(f"*{title}*"))
    return announce_beat(ctx, {"name": read(st, "channels", cid).name}, title, text)
