"""Notion: a workspace of pages, blocks, comments, users and data sources (databases).

Tool names (`API-<operation>`) and parameters follow the official Notion MCP server (`../shared/specs/mcp/notion.json`); 15 of
its 24 tools are implemented. As in that server, object-valued parameters may also be given as JSON text, which
is decoded before use (a string that is not JSON is a 400). Objects come back in Notion's JSON shapes (`object`,
`id`, `parent`, `properties`, rich text with `plain_text`, `next_cursor`/`has_more` lists).

Paging: every list takes `start_cursor`/`page_size` (1-100) and returns `next_cursor` naming the last item of the page;
orders are stable: search by last edit (newest first unless sorted ascending, ties by id), children in their order
on the page, comments oldest first, users by name, queries by the given sorts and then by id.
Data-source filters: property filters on title/rich_text (equals, does_not_equal, contains, does_not_contain,
starts_with, ends_with, is_empty, is_not_empty), select/status (equals, does_not_equal, is_empty, is_not_empty),
number (equals, does_not_equal, greater_than, less_than, greater_than_or_equal_to, less_than_or_equal_to), checkbox
(equals, does_not_equal), date (equals, before, after, on_or_before, on_or_after) and people (contains), combined
with `and`/`or`.
"""
from __future__ import annotations
import functools, hashlib, json, uuid
from datetime import timedelta
from typing import Any, Literal, Optional, Union
from compoworld_nb.core import EPOCH, ToolError
from compoworld_nb.service import Record, State, Service
from compoworld_nb.steps import Visit, add_step
from compoworld_nb.state import read, scan, has, size, writable, put
from .kit import cursor_page, Query, planted_record_step
from .world import make_world, service_rng, service_faker, reveal_value, iso

__all__ = ["service", "NotionState"]


class User(Record):
    id: str
    name: str
    type: Literal["person", "bot"] = "person"
    email: str = ""

class DataSource(Record):
    id: str
    title: str
    parent_page: str
    property_types: dict[str, str] = {}          # property name -> type (title, rich_text, select, number, checkbox, date, people)
    options: dict[str, list[str]] = {}    # select property -> allowed options
    created_time: str
    last_edited_time: str

class Page(Record):
    id: str
    title: str                            # plain text of the title property (denormalised for search and rubrics)
    parent_type: Literal["page_id", "data_source_id", "workspace"]
    parent_id: Optional[str] = None
    properties: dict[str, Any] = {}       # Notion property values (rows of a data source carry its schema)
    icon: Optional[dict] = None
    cover: Optional[dict] = None
    archived: bool = False
    in_trash: bool = False
    created_by: str
    created_time: str
    last_edited_time: str

class Block(Record):
    id: str
    parent_id: str                        # page or block
    type: str
    text: str = ""                        # plain text of its rich text
    checked: Optional[bool] = None        # to_do blocks
    order: float
    has_children: bool = False
    archived: bool = False
    created_time: str
    last_edited_time: str

class Comment(Record):
    id: str
    page_id: str
    discussion_id: str
    text: str
    created_by: str
    created_time: str


class NotionState(State):
    bot: str = ""
    users: dict[str, User] = {}
    pages: dict[str, Page] = {}
    blocks: dict[str, Block] = {}
    comments: dict[str, Comment] = {}
    data_sources: dict[str, DataSource] = {}


service = Service("notion", "knowledge & files", NotionState,
                  "A Notion workspace: pages and their blocks, comments, users and databases.", spec="notion")


# --- helpers --------------------------------------------------------------------------------------
BLOCK_TYPES = ("paragraph", "heading_1", "heading_2", "heading_3", "bulleted_list_item", "numbered_list_item", "to_do", "quote", "callout")

def _json(v, arg: str, want=(dict,)):
    "Decode JSON text given for an object/array parameter (the server's JSON-in-string convention)."
    if isinstance(v, str):
        try: v = json.loads(v)
        except ValueError: raise ToolError(400, f"{arg} must be an object or JSON text, got {v[:60]!r}", arg) from None
    if not isinstance(v, want): raise ToolError(400, f"{arg} must be {' or '.join(t.__name__ for t in want)}, got {type(v).__name__}", arg)
    return v

def _uuid(s: NotionState, prefix: str) -> str:
    n = s.new_id(prefix)
    return str(uuid.UUID(bytes=hashlib.blake2b(f"{s.seed}:{n}".encode(), digest_size=16).digest(), version=4))

def _norm_id(x: str) -> str:
    x = x.strip()
    if len(x) == 32 and "-" not in x: return f"{x[:8]}-{x[8:12]}-{x[12:16]}-{x[16:20]}-{x[20:]}"
    return x

def _rt(text: str) -> list[dict]:
    return [{"type": "text", "text": {"content": text, "link": None}, "plain_text": text, "href": None}] if text else []

def _plain(rich, arg: str) -> str:
    rich = _json(rich, arg, (list,))
    out = []
    for i, r in enumerate(rich):
        r = _json(r, f"{arg}.{i}")
        t = r.get("text")
        if not isinstance(t, dict) or not isinstance(t.get("content"), str): raise ToolError(400, f"{arg}.{i}.text.content must be text", f"{arg}.{i}")
        out.append(t["content"])
    return "".join(out)

def _user_ref(uid: str) -> dict: return {"object": "user", "id": uid}

def _page(s: NotionState, pid: str, arg: str = "page_id", live: bool = False) -> Page:
    p = read(s, "pages", _norm_id(pid))
    if p is None: raise ToolError(404, f"Could not find page with ID: {pid} ({arg})", arg)
    if live and (p.archived or p.in_trash): raise ToolError(409, f"page {pid} is archived or in the trash ({arg})", arg)
    return p

def _page_view(s: NotionState, p: Page) -> dict:
    parent = {"type": p.parent_type, p.parent_type: p.parent_id} if p.parent_type != "workspace" else {"type": "workspace", "workspace": True}
    props = dict(p.properties) if p.parent_type == "data_source_id" else {"title": {"id": "title", "type": "title", "title": _rt(p.title)}}
    return {"object": "page", "id": p.id, "created_time": p.created_time, "last_edited_time": p.last_edited_time,
            "created_by": _user_ref(p.created_by), "parent": parent, "archived": p.archived, "in_trash": p.in_trash,
            "icon": p.icon, "cover": p.cover, "properties": props, "url": f"https://www.notion.so/{p.title.replace(' ', '-')}-{p.id.replace('-', '')}"}

def _block_view(b: Block) -> dict:
    body: dict = {"rich_text": _rt(b.text)}
    if b.type == "to_do": body["checked"] = bool(b.checked)
    return {"object": "block", "id": b.id, "type": b.type, b.type: body, "has_children": b.has_children, "archived": b.archived,
            "created_time": b.created_time, "last_edited_time": b.last_edited_time}

def _ds_view(d: DataSource) -> dict:
    props = {}
    for n, t in d.property_types.items():
        props[n] = {"id": n, "name": n, "type": t, t: ({"options": [{"name": o} for o in d.options.get(n, [])]} if t == "select" else {})}
    return {"object": "data_source", "id": d.id, "title": _rt(d.title), "parent": {"type": "page_id", "page_id": d.parent_page},
            "properties": props, "created_time": d.created_time, "last_edited_time": d.last_edited_time}

def _list(items: list, view, key, start_cursor, page_size, descending=False) -> dict:
    page, nxt = cursor_page(items, key, page_size, start_cursor, arg="start_cursor", limit_arg="page_size", descending=descending)
    return {"object": "list", "results": [view(x) for x in page], "next_cursor": nxt, "has_more": nxt is not None}

def _children(s: NotionState, parent: str) -> list[Block]:
    return sorted((b for b in scan(s, "blocks") if b.parent_id == parent and not b.archived), key=lambda b: (b.order, b.id))

def _new_blocks(s: NotionState, parent: str, children: list, arg: str, after: Optional[str] = None) -> list[Block]:
    "Validate block objects (all before any write) and insert them under `parent` (after the block `after`, or at the end)."
    specs = []
    for i, c in enumerate(children):
        c = _json(c, f"{arg}.{i}")
        typ = c.get("type") or next((k for k in c if k in BLOCK_TYPES), None)
        if typ not in BLOCK_TYPES: raise ToolError(400, f"{arg}.{i}: block type {typ!r} is not one of {list(BLOCK_TYPES)}", f"{arg}.{i}")
        body = c.get(typ)
        if not isinstance(body, dict) or "rich_text" not in body: raise ToolError(400, f"{arg}.{i}.{typ} needs rich_text", f"{arg}.{i}")
        specs.append((typ, _plain(body["rich_text"], f"{arg}.{i}.{typ}.rich_text"), body.get("checked") if typ == "to_do" else None))
    if len(specs) > 100: raise ToolError(422, f"at most 100 blocks per call, got {len(specs)}", arg)
    sib = _children(s, parent)
    if after is not None:
        k = next((j for j, b in enumerate(sib) if b.id == _norm_id(after)), None)
        if k is None: raise ToolError(404, f"after={after!r} is not a child of {parent}", "after")
        lo, hi = sib[k].order, (sib[k + 1].order if k + 1 < len(sib) else sib[k].order + len(specs) + 1)
    else: lo = sib[-1].order if sib else 0.0; hi = lo + len(specs) + 1
    out, now = [], s.tick()
    for j, (typ, text, checked) in enumerate(specs):
        bid = _uuid(s, "block")
        put(s, "blocks", bid, Block(id=bid, parent_id=parent, type=typ, text=text, checked=checked, order=lo + (hi - lo) * (j + 1) / (len(specs) + 1),
                              created_time=now, last_edited_time=now))
        out.append(read(s, "blocks", bid))
    if has(s, "blocks", parent) and not read(s, "blocks", parent).has_children: writable(s, "blocks", parent).has_children = True
    return out


# --- users ----------------------------------------------------------------------------------------
@service.tool(name="API-get-self", read_only=True)
def get_self(s: NotionState) -> dict:
    "The bot user this integration acts as."
    u = read(s, "users", s.bot)
    return {"object": "user", "id": u.id, "name": u.name, "type": "bot", "bot": {"owner": {"type": "workspace", "workspace": True}}}

@service.tool(name="API-get-user", read_only=True)
def get_user(s: NotionState,
             user_id: str,  # the user's id
            ) -> dict:
    "One user of the workspace."
    u = read(s, "users", _norm_id(user_id))
    if u is None: raise ToolError(404, f"Could not find user with ID: {user_id}", "user_id")
    return {"object": "user", "id": u.id, "name": u.name, "type": u.type, **({"person": {"email": u.email}} if u.type == "person" else {"bot": {}})}

@service.tool(name="API-get-users", read_only=True)
def get_users(s: NotionState,
              start_cursor: Optional[str] = None,  # next_cursor of the previous page
              page_size: int = 100,                # results per page (1-100)
             ) -> dict:
    "The workspace's users, by name (then id)."
    us = sorted(scan(s, "users"), key=lambda u: (u.name, u.id))
    return _list(us, lambda u: get_user(s, u.id), lambda u: (u.name, u.id), start_cursor, page_size)


# --- search and pages -----------------------------------------------------------------------------
@service.tool(name="API-post-search", read_only=True)
def post_search(s: NotionState,
                query: Optional[Query] = None,                # words to find in page and database titles (all must occur)
                sort: Optional[Union[dict, str]] = None,      # {"direction": "ascending"|"descending", "timestamp": "last_edited_time"}
                filter: Optional[Union[dict, str]] = None,    # {"property": "object", "value": "page"|"data_source"}
                start_cursor: Optional[str] = None,           # next_cursor of the previous page
                page_size: int = 100,                         # results per page (1-100)
               ) -> dict:
    "Search page and database titles; most recently edited first unless sorted ascending."
    kind = None
    if filter is not None:
        f = _json(filter, "filter")
        if f.get("property") != "object" or f.get("value") not in ("page", "data_source"):
            raise ToolError(400, f"filter must be {{'property': 'object', 'value': 'page' or 'data_source'}}, got {f}", "filter")
        kind = f["value"]
    desc = True
    if sort is not None:
        o = _json(sort, "sort")
        if o.get("timestamp", "last_edited_time") != "last_edited_time" or o.get("direction") not in ("ascending", "descending"):
            raise ToolError(400, f"sort must be {{'direction': 'ascending' or 'descending', 'timestamp': 'last_edited_time'}}, got {o}", "sort")
        desc = o["direction"] == "descending"
    words = (query or "").lower().split()
    hits = []
    if kind != "data_source":
        hits += [("page", p) for p in scan(s, "pages") if not p.in_trash and not p.archived and all(w in p.title.lower() for w in words)]
    if kind != "page":
        hits += [("data_source", d) for d in scan(s, "data_sources") if all(w in d.title.lower() for w in words)]
    key = lambda h: (h[1].last_edited_time, h[1].id)
    hits.sort(key=key, reverse=desc)
    return _list(hits, lambda h: _page_view(s, h[1]) if h[0] == "page" else _ds_view(h[1]), key, start_cursor, page_size, descending=desc)

@service.tool(name="API-retrieve-a-page", read_only=True)
def retrieve_page(s: NotionState,
                  page_id: str,  # the page's id
                 ) -> dict:
    "A page's properties (not its content; see the block children)."
    return _page_view(s, _page(s, page_id))

def _row_props(s: NotionState, ds: DataSource, props: dict, arg: str, partial: bool) -> tuple[dict, Optional[str]]:
    "Validate property values against a data source's schema; returns (stored values, new title or None)."
    out, title = {}, None
    for name, v in props.items():
        t = ds.property_types.get(name)
        if t is None: raise ToolError(400, f"{arg}: {name!r} is not a property of data source {ds.title!r} ({sorted(ds.property_types)})", arg)
        v = _json(v, f"{arg}.{name}")
        body = v.get(t)
        if t in ("title", "rich_text"):
            text = _plain(body if body is not None else [], f"{arg}.{name}.{t}")
            out[name] = {"id": name, "type": t, t: _rt(text)}
            if t == "title": title = text
        elif t == "select":
            opt = (body or {}).get("name") if isinstance(body, dict) else None
            if body is not None and opt not in ds.options.get(name, []):
                raise ToolError(422, f"{arg}.{name}: {opt!r} is not an option of {name} ({ds.options.get(name, [])})", arg)
            out[name] = {"id": name, "type": t, t: {"name": opt} if body else None}
        elif t == "number":
            if body is not None and (isinstance(body, bool) or not isinstance(body, (int, float))): raise ToolError(400, f"{arg}.{name}.number must be a number", arg)
            out[name] = {"id": name, "type": t, t: body}
        elif t == "checkbox":
            if not isinstance(body, bool): raise ToolError(400, f"{arg}.{name}.checkbox must be true or false", arg)
            out[name] = {"id": name, "type": t, t: body}
        elif t == "date":
            start = (body or {}).get("start") if isinstance(body, dict) else None
            out[name] = {"id": name, "type": t, t: {"start": start, "end": None} if start else None}
        elif t == "people":
            ids = [_norm_id(x.get("id", "")) if isinstance(x, dict) else "" for x in (body or [])]
            bad = [i for i in ids if not has(s, "users", i)]
            if bad: raise ToolError(404, f"{arg}.{name}: no user with id {bad[0]!r}", arg)
            out[name] = {"id": name, "type": t, t: [_user_ref(i) for i in ids]}
    if not partial:
        tname = next(n for n, t in ds.property_types.items() if t == "title")
        if title is None or not title.strip(): raise ToolError(400, f"{arg} must give the title property {tname!r}", arg)
    return out, title

@service.tool(name="API-post-page")
def post_page(s: NotionState,
              parent: Union[dict, str],                    # {"page_id": ...} or {"data_source_id": ...} (JSON text accepted)
              properties: Union[dict, str],                # property values; under a page only {"title": {"title": [rich text]}}
              children: Optional[list[Union[str, dict]]] = None,  # blocks for the page's content
              icon: Optional[str] = None,                  # JSON text of an emoji object, e.g. '{"emoji": "📌"}'
              cover: Optional[str] = None,                 # JSON text of an external file object
             ) -> dict:
    "Create a page under a page, or a row in a data source, optionally with content blocks."
    par, props = _json(parent, "parent"), _json(properties, "properties")
    ic = _json(icon, "icon") if icon is not None else None
    cv = _json(cover, "cover") if cover is not None else None
    if "page_id" in par:
        host = _page(s, par["page_id"], "parent", live=True)
        bad = [k for k in props if k != "title"]
        if bad: raise ToolError(400, f"properties: a page under a page has only a title, got {bad[0]!r}", "properties")
        title = _plain(_json(props.get("title", {}), "properties.title").get("title", []), "properties.title.title")
        if not title.strip(): raise ToolError(400, "properties.title must give a non-empty title", "properties")
        ptype, pid, stored = "page_id", host.id, {}
    elif "data_source_id" in par or "database_id" in par:
        did = _norm_id(par.get("data_source_id") or par.get("database_id"))
        ds = read(s, "data_sources", did)
        if ds is None: raise ToolError(404, f"Could not find data source with ID: {did} (parent)", "parent")
        stored, title = _row_props(s, ds, props, "properties", partial=False)
        ptype, pid = "data_source_id", ds.id
    else: raise ToolError(400, "parent must hold page_id or data_source_id", "parent")
    kids = children or []
    pgid = _uuid(s, "page")
    now = s.tick()
    put(s, "pages", pgid, Page(id=pgid, title=title, parent_type=ptype, parent_id=pid, properties=stored, icon=ic, cover=cv,
                         created_by=s.bot, created_time=now, last_edited_time=now))
    _new_blocks(s, pgid, kids, "children")                # a bad block refuses the whole call (the state is left as it was)
    return _page_view(s, read(s, "pages", pgid))

@service.tool(name="API-patch-page")
def patch_page(s: NotionState,
               page_id: str,                                 # the page to change
               properties: Optional[Union[dict, str]] = None,  # property values to change (others stay)
               in_trash: Optional[bool] = None,              # move to or restore from the trash
               archived: Optional[bool] = None,              # archive or restore
               icon: Optional[Union[dict, str]] = None,      # {"emoji": "..."} (JSON text accepted)
               cover: Optional[Union[dict, str]] = None,     # {"external": {"url": ...}} (JSON text accepted)
              ) -> dict:
    "Change a page's properties, icon or cover, or move it to/from the trash."
    p = _page(s, page_id)
    if all(v is None for v in (properties, in_trash, archived, icon, cover)): raise ToolError(400, "nothing to change", "page_id")
    stored, title = {}, None
    if properties is not None:
        props = _json(properties, "properties")
        if p.parent_type == "data_source_id": stored, title = _row_props(s, read(s, "data_sources", p.parent_id), props, "properties", partial=True)
        else:
            bad = [k for k in props if k != "title"]
            if bad: raise ToolError(400, f"properties: a page under a page has only a title, got {bad[0]!r}", "properties")
            if "title" in props: title = _plain(_json(props["title"], "properties.title").get("title", []), "properties.title.title")
        if title is not None and not title.strip(): raise ToolError(400, "the title must not be empty", "properties")
    ic = _json(icon, "icon") if icon is not None else None
    cv = _json(cover, "cover") if cover is not None else None
    if ic is not None and not isinstance(ic.get("emoji"), str) and "external" not in ic: raise ToolError(400, "icon must be {'emoji': ...} or an external file", "icon")
    if (p.in_trash or p.archived) and properties is not None and not (in_trash is False or archived is False):
        raise ToolError(409, f"page {page_id} is in the trash; restore it first", "page_id")
    q = writable(s, "pages", p.id)
    if stored: q.properties = {**q.properties, **stored}
    if title is not None: q.title = title
    if in_trash is not None: q.in_trash = in_trash
    if archived is not None: q.archived = archived
    if ic is not None: q.icon = ic
    if cv is not None: q.cover = cv
    q.last_edited_time = s.tick()
    return _page_view(s, q)


# --- blocks ---------------------------------------------------------------------------------------
def _container(s: NotionState, bid: str, arg: str = "block_id") -> str:
    k = _norm_id(bid)
    if has(s, "pages", k): return k
    b = read(s, "blocks", k)
    if b is None or b.archived: raise ToolError(404, f"Could not find block with ID: {bid} ({arg})", arg)
    return k

@service.tool(name="API-get-block-children", read_only=True)
def get_block_children(s: NotionState,
                       block_id: str,                      # a page or block id
                       start_cursor: Optional[str] = None, # next_cursor of the previous page
                       page_size: int = 100,               # results per page (1-100)
                      ) -> dict:
    "The content blocks of a page (or the children of a block), in order."
    k = _container(s, block_id)
    return _list(_children(s, k), _block_view, lambda b: (b.order, b.id), start_cursor, page_size)

@service.tool(name="API-patch-block-children")
def patch_block_children(s: NotionState,
                         block_id: str,                         # the page or block to append to
                         children: list[Union[dict, str]],      # block objects, e.g. {"type": "paragraph", "paragraph": {"rich_text": [...]}}
                         after: Optional[str] = None,           # insert after this child block instead of at the end
                        ) -> dict:
    "Append content blocks to a page or block."
    k = _container(s, block_id)
    if has(s, "pages", k) and (read(s, "pages", k).in_trash or read(s, "pages", k).archived):
        raise ToolError(409, f"page {block_id} is archived or in the trash", "block_id")
    if not children: raise ToolError(400, "children must list at least one block", "children")
    made = _new_blocks(s, k, children, "children", after)
    if has(s, "pages", k): writable(s, "pages", k).last_edited_time = s.now()
    return {"object": "list", "results": [_block_view(b) for b in made], "next_cursor": None, "has_more": False}

@service.tool(name="API-retrieve-a-block", read_only=True)
def retrieve_block(s: NotionState,
                   block_id: str,  # the block's id
                  ) -> dict:
    "One block."
    b = read(s, "blocks", _norm_id(block_id))
    if b is None: raise ToolError(404, f"Could not find block with ID: {block_id}", "block_id")
    return _block_view(b)

@service.tool(name="API-delete-a-block")
def delete_block(s: NotionState,
                 block_id: str,  # the block to archive
                ) -> dict:
    "Archive a block (and hide its children)."
    b = read(s, "blocks", _norm_id(block_id))
    if b is None: raise ToolError(404, f"Could not find block with ID: {block_id}", "block_id")
    if b.archived: raise ToolError(409, f"block {block_id} is already archived", "block_id")
    q = writable(s, "blocks", b.id); q.archived = True; q.last_edited_time = s.tick()
    return _block_view(q)


# --- comments -------------------------------------------------------------------------------------
@service.tool(name="API-create-a-comment")
def create_comment(s: NotionState,
                   parent: Union[dict, str],              # {"page_id": ...} (JSON text accepted)
                   rich_text: list[Union[dict, str]],     # the comment, e.g. [{"text": {"content": "Looks good"}}]
                  ) -> dict:
    "Comment on a page (a new discussion)."
    par = _json(parent, "parent")
    if "page_id" not in par: raise ToolError(400, "parent must hold page_id", "parent")
    p = _page(s, par["page_id"], "parent", live=True)
    text = _plain(rich_text, "rich_text")
    if not text.strip(): raise ToolError(400, "rich_text must not be empty", "rich_text")
    cid, did = _uuid(s, "comment"), _uuid(s, "discussion")
    put(s, "comments", cid, Comment(id=cid, page_id=p.id, discussion_id=did, text=text, created_by=s.bot, created_time=s.tick()))
    return _comment_view(read(s, "comments", cid))

def _comment_view(c: Comment) -> dict:
    return {"object": "comment", "id": c.id, "parent": {"type": "page_id", "page_id": c.page_id}, "discussion_id": c.discussion_id,
            "created_time": c.created_time, "created_by": _user_ref(c.created_by), "rich_text": _rt(c.text)}

@service.tool(name="API-retrieve-a-comment", read_only=True)
def retrieve_comments(s: NotionState,
                      block_id: str,                      # the page (or block) whose comments to list
                      start_cursor: Optional[str] = None, # next_cursor of the previous page
                      page_size: int = 100,               # results per page (1-100)
                     ) -> dict:
    "The comments on a page, oldest first."
    k = _container(s, block_id)
    cs = sorted((c for c in scan(s, "comments") if c.page_id == k), key=lambda c: (c.created_time, c.id))
    return _list(cs, _comment_view, lambda c: (c.created_time, c.id), start_cursor, page_size)


# --- data sources ---------------------------------------------------------------------------------
@service.tool(name="API-retrieve-a-data-source", read_only=True)
def retrieve_data_source(s: NotionState,
                         data_source_id: str,  # the data source (database) id
                        ) -> dict:
    "A data source's title and property schema."
    d = read(s, "data_sources", _norm_id(data_source_id))
    if d is None: raise ToolError(404, f"Could not find data source with ID: {data_source_id}", "data_source_id")
    return _ds_view(d)

def _value(p: Page, name: str, t: str):
    v = (p.properties.get(name) or {}).get(t)
    if t in ("title", "rich_text"): return "".join(x["plain_text"] for x in v or [])
    if t == "select": return (v or {}).get("name")
    if t == "date": return (v or {}).get("start")
    if t == "people": return [x["id"] for x in v or []]
    return v

_TEXT_OPS = {"equals": lambda a, b: a == b, "does_not_equal": lambda a, b: a != b, "contains": lambda a, b: b.lower() in a.lower(),
             "does_not_contain": lambda a, b: b.lower() not in a.lower(), "starts_with": lambda a, b: a.lower().startswith(b.lower()),
             "ends_with": lambda a, b: a.lower().endswith(b.lower()), "is_empty": lambda a, b: not a, "is_not_empty": lambda a, b: bool(a)}
_NUM_OPS = {"equals": lambda a, b: a == b, "does_not_equal": lambda a, b: a != b, "greater_than": lambda a, b: a is not None and a > b,
            "less_than": lambda a, b: a is not None and a < b, "greater_than_or_equal_to": lambda a, b: a is not None and a >= b,
            "less_than_or_equal_to": lambda a, b: a is not None and a <= b, "is_empty": lambda a, b: a is None, "is_not_empty": lambda a, b: a is not None}
_SEL_OPS = {"equals": lambda a, b: a == b, "does_not_equal": lambda a, b: a != b, "is_empty": lambda a, b: a is None, "is_not_empty": lambda a, b: a is not None}
_DATE_OPS = {"equals": lambda a, b: a is not None and a[:10] == b[:10], "before": lambda a, b: a is not None and a < b, "after": lambda a, b: a is not None and a > b,
             "on_or_before": lambda a, b: a is not None and a[:len(b)] <= b, "on_or_after": lambda a, b: a is not None and a >= b,
             "is_empty": lambda a, b: a is None, "is_not_empty": lambda a, b: a is not None}
_OPS = {"title": _TEXT_OPS, "rich_text": _TEXT_OPS, "number": _NUM_OPS, "select": _SEL_OPS, "status": _SEL_OPS,
        "checkbox": {"equals": lambda a, b: a is b, "does_not_equal": lambda a, b: a is not b}, "date": _DATE_OPS,
        "people": {"contains": lambda a, b: _norm_id(b) in a, "is_empty": lambda a, b: not a, "is_not_empty": lambda a, b: bool(a)}}

def _compile(ds: DataSource, f: dict, path: str):
    if not isinstance(f, dict): raise ToolError(400, f"{path} must be an object", "filter")
    for comb in ("and", "or"):
        if comb in f:
            parts = f[comb]
            if not isinstance(parts, list) or not parts: raise ToolError(400, f"{path}.{comb} must be a non-empty list", "filter")
            subs = [_compile(ds, x, f"{path}.{comb}.{i}") for i, x in enumerate(parts)]
            return (lambda p: all(g(p) for g in subs)) if comb == "and" else (lambda p: any(g(p) for g in subs))
    name = f.get("property")
    t = ds.property_types.get(name)
    if t is None: raise ToolError(400, f"{path}.property={name!r} is not a property of {ds.title!r} ({sorted(ds.property_types)})", "filter")
    key = t if t in f else next((k for k in f if k in _OPS), None)
    if key is None or not isinstance(f.get(key), dict) or len(f[key]) != 1:
        raise ToolError(400, f"{path} must hold one condition under {t!r}, e.g. {{'property': {name!r}, {t!r}: {{'equals': ...}}}}", "filter")
    (op, arg), = f[key].items()
    fn = _OPS.get(t, {}).get(op)
    if fn is None: raise ToolError(400, f"{path}: {t} filters support {sorted(_OPS.get(t, {}))}, not {op!r}", "filter")
    return lambda p: fn(_value(p, name, t), arg)

@service.tool(name="API-query-data-source", read_only=True)
def query_data_source(s: NotionState,
                      data_source_id: str,                      # the data source (database) to query
                      filter: Optional[Union[dict, str]] = None,  # a property filter or an {"and"|"or": [...]} of them
                      sorts: Optional[list[Union[dict, str]]] = None,  # [{"property": name, "direction": "ascending"|"descending"}] or timestamp sorts
                      start_cursor: Optional[str] = None,       # next_cursor of the previous page
                      page_size: int = 100,                     # results per page (1-100)
                      in_trash: Optional[bool] = None,          # true: only rows in the trash (default: rows not in the trash)
                     ) -> dict:
    "The rows (pages) of a data source that match a filter, in the given sort order (then by id)."
    d = read(s, "data_sources", _norm_id(data_source_id))
    if d is None: raise ToolError(404, f"Could not find data source with ID: {data_source_id}", "data_source_id")
    test = _compile(d, _json(filter, "filter"), "filter") if filter is not None else (lambda p: True)
    rows = [p for p in scan(s, "pages") if p.parent_type == "data_source_id" and p.parent_id == d.id and p.in_trash == bool(in_trash)
            and not p.archived and test(p)]
    rows.sort(key=lambda p: p.id)
    for i, srt in reversed(list(enumerate(sorts or []))):
        o = _json(srt, f"sorts.{i}")
        if o.get("direction") not in ("ascending", "descending"): raise ToolError(400, f"sorts.{i}.direction must be ascending or descending", "sorts")
        if "timestamp" in o:
            if o["timestamp"] not in ("created_time", "last_edited_time"): raise ToolError(400, f"sorts.{i}.timestamp must be created_time or last_edited_time", "sorts")
            kf = lambda p, f=o["timestamp"]: getattr(p, f)
        else:
            t = d.property_types.get(o.get("property"))
            if t is None: raise ToolError(400, f"sorts.{i}.property={o.get('property')!r} is not a property of {d.title!r}", "sorts")
            kf = lambda p, n=o["property"], t=t: (_value(p, n, t) is None, str(_value(p, n, t)) if t != "number" else (_value(p, n, t) or 0))
        rows.sort(key=kf, reverse=o["direction"] == "descending")
    pos = {p.id: i for i, p in enumerate(rows)}
    return _list(rows, lambda p: _page_view(s, p), lambda p: pos[p.id], start_cursor, page_size)


# --- fixture ------------------------------------------------------------------------------------
def _det_uuid(rng) -> str: return str(uuid.UUID(int=rng.getrandbits(128), version=4))

@service.fixture
def fixture(seed: int) -> NotionState:
    "A team wiki (~50 pages, ~300 blocks) and three databases (projects, meetings, tasks: ~130 rows), ~60 comments."
    return _build(seed).model_copy(deep=True)

@functools.lru_cache(maxsize=8)
def _build(seed: int) -> NotionState:
    w, rng, fk = make_world(seed), service_rng("notion", seed), service_faker("notion", seed)
    s = NotionState(seed=seed)
    people = []
    for p in w.people:
        uid = _det_uuid(rng); put(s, "users", uid, User(id=uid, name=p.name, email=p.email)); people.append(uid)
    s.bot = _det_uuid(rng); put(s, "users", s.bot, User(id=s.bot, name="Workspace Assistant", type="bot"))
    def when(lo=2, hi=200): return iso(EPOCH - timedelta(minutes=rng.randint(lo * 1440, hi * 1440)))
    def page(title, ptype="workspace", pid=None, props=None):
        i = _det_uuid(rng); c = when(); e = max(c, when(1, 60))
        put(s, "pages", i, Page(id=i, title=title, parent_type=ptype, parent_id=pid, properties=props or {}, created_by=rng.choice(people),
                          created_time=c, last_edited_time=e))
        return i
    def blocks(pid, n):
        for j in range(n):
            typ = rng.choice(["paragraph", "paragraph", "heading_2", "bulleted_list_item", "to_do", "quote"])
            text = fk.sentence(nb_words=6) if typ == "heading_2" else fk.paragraph(nb_sentences=2) if typ == "paragraph" else fk.bs().capitalize()
            b = _det_uuid(rng); t = when()
            put(s, "blocks", b, Block(id=b, parent_id=pid, type=typ, text=text, checked=(rng.random() < 0.5) if typ == "to_do" else None,
                                order=float(j + 1), created_time=t, last_edited_time=t))
    roots = [page(t) for t in ("Team Wiki", "Engineering Handbook", "Onboarding", "Meeting Notes Home", "Policies")]
    for r in roots: blocks(r, rng.randint(2, 4))
    for topic in w.topics:
        pid = page(topic.title(), "page_id", rng.choice(roots)); blocks(pid, rng.randint(4, 8))
    while size(s, "pages") < 50:
        pid = page(fk.catch_phrase(), "page_id", rng.choice(roots)); blocks(pid, rng.randint(3, 6))
    def ds(title, schema, options):
        i = _det_uuid(rng); t = when(150, 200)
        put(s, "data_sources", i, DataSource(id=i, title=title, parent_page=roots[0], property_types=schema, options=options, created_time=t, last_edited_time=when(1, 20)))
        return read(s, "data_sources", i)
    proj = ds("Projects", {"Name": "title", "Status": "select", "Owner": "people", "Budget": "number", "Due": "date", "Venue": "rich_text"},
              {"Status": ["Planning", "Active", "Paused", "Done"]})
    meet = ds("Meetings", {"Title": "title", "Date": "date", "Attendees": "people", "Summary": "rich_text"}, {})
    task = ds("Tasks", {"Task": "title", "Done": "checkbox", "Priority": "select", "Assignee": "people", "Estimate": "number"},
              {"Priority": ["Low", "Medium", "High"]})
    def row(d, values):
        props, title = {}, ""
        for n, t in d.property_types.items():
            v = values.get(n)
            if t in ("title", "rich_text"): props[n] = {"id": n, "type": t, t: _rt(v or "")}; title = v if t == "title" else title
            elif t == "select": props[n] = {"id": n, "type": t, t: {"name": v} if v else None}
            elif t == "date": props[n] = {"id": n, "type": t, t: {"start": v, "end": None} if v else None}
            elif t == "people": props[n] = {"id": n, "type": t, t: [_user_ref(x) for x in (v or [])]}
            else: props[n] = {"id": n, "type": t, t: v}
        return page(title, "data_source_id", d.id, props)
    for topic in w.topics + tuple(fk.catch_phrase() for _ in range(20)):
        row(proj, {"Name": topic.title(), "Status": rng.choice(proj.options["Status"]), "Owner": [rng.choice(people)],
                   "Budget": rng.randint(5, 300) * 1000, "Due": (EPOCH + timedelta(days=rng.randint(-30, 90))).date().isoformat(),
                   "Venue": rng.choice(w.places).label})
    for k in range(40):
        row(meet, {"Title": f"{rng.choice(w.topics).title()} sync", "Date": (EPOCH - timedelta(days=rng.randint(1, 120))).date().isoformat(),
                   "Attendees": rng.sample(people, 3), "Summary": fk.sentence(nb_words=12)})
    for k in range(60):
        row(task, {"Task": fk.bs().capitalize(), "Done": rng.random() < 0.4, "Priority": rng.choice(task.options["Priority"]),
                   "Assignee": [rng.choice(people)], "Estimate": rng.choice([1, 2, 3, 5, 8])})
    plain = [p for p in scan(s, "pages") if p.parent_type != "data_source_id"]
    for k in range(60):
        p = rng.choice(plain); c = _det_uuid(rng)
        put(s, "comments", c, Comment(id=c, page_id=p.id, discussion_id=_det_uuid(rng), text=fk.sentence(nb_words=10), created_by=rng.choice(people),
                                created_time=max(p.created_time, when(1, 60))))
    return s


# --- step templates -----------------------------------------------------------------------------
_PHRASE = {"key": "the project code on that Notion page", "place": "the venue on that Notion page"}

@planted_record_step(service, _PHRASE)
def read_step(ctx, value, kind, nxt, what):
    "Plant a page titled after `value` whose content gives the next fact; the agent searches and reads it."
    st = ctx.state("notion")
    root = next(p for p in scan(st, "pages") if p.parent_type == "workspace")
    pid, bid = ctx.plant_id("page"), ctx.plant_id("block")
    line = f"Project code: {nxt}" if kind == "key" else f"Venue: {nxt}"
    def plant(s: NotionState):
        t = iso(EPOCH - timedelta(hours=4))
        put(s, "pages", pid, Page(id=pid, title=f"Brief {value}", parent_type="page_id", parent_id=root.id, created_by=s.bot, created_time=t, last_edited_time=t))
        put(s, "blocks", bid, Block(id=bid, parent_id=pid, type="paragraph", text=f"{line}. Owner: operations.", order=1.0, created_time=t, last_edited_time=t))
    ctx.plant("notion", plant)
    found = ctx.call("API-post-search", query=f"Brief {value}", filter={"property": "object", "value": "page"})
    got = ctx.call("API-get-block-children", block_id=found["results"][0]["id"])
    assert nxt in got["results"][0]["paragraph"]["rich_text"][0]["plain_text"]
    return (f"In Notion, find the brief page for {ctx.in_phrase} and tell me the {what} it gives.",
            f"In Notion, find the brief page for {ctx.in_phrase} and read it.")

@add_step(service, "comment", needs=("key", "place", "coords", "forecast", "ref"), writes=True)
def comment_step(ctx, value, want):
    "Comment on a wiki page with a text that carries `value`."
    st = ctx.state("notion")
    pages = sorted((p for p in scan(st, "pages") if p.parent_type == "page_id" and not p.in_trash), key=lambda p: p.id)
    p = pages[ctx.rng.randrange(len(pages))]
    ctx.call("API-create-a-comment", parent={"page_id": p.id}, rich_text=[{"text": {"content": f"Update: {value}"}}])
    crit = [ctx.criterion("comments", {"page_id": p.id}, "text", "contains", str(value))]
    return Visit(f'Leave a comment on the Notion page "{p.title}" that includes {ctx.in_phrase}.', criteria=crit)


# --- scenario beats (compoworld_nb.scenario) ---------------------------------------------------------
from compoworld_nb.steps import add_beat

@add_beat(service, "doc")
def doc_beat(ctx, title: str, body: str, author, spot: dict | None = None) -> dict:
    "Plant a wiki page titled `title` whose paragraphs are the lines of `body`; the reference searches for it and reads its blocks."
    st = ctx.state("notion")
    root = next(p for p in scan(st, "pages") if p.parent_type == "workspace")
    pid = ctx.plant_id("page")
    lines = [l for l in body.split("\n") if l.strip()]
    bids = [ctx.plant_id("block") for _ in lines]
    def plant(s: NotionState):
        t = iso(EPOCH - timedelta(hours=ctx.rng.randint(3, 60)))
        put(s, "pages", pid, Page(id=pid, title=title, parent_type="page_id", parent_id=root.id, created_by=s.bot, created_time=t, last_edited_time=t))
        for n, (bid, line) in enumerate(zip(bids, lines)):
            put(s, "blocks", bid, Block(id=bid, parent_id=pid, type="paragraph", text=line, order=float(n + 1), created_time=t, last_edited_time=t))
    ctx.plant("notion", plant)
    found = ctx.call("API-post-search", query=title, filter={"property": "object", "value": "page"})
    got = ctx.call("API-get-block-children", block_id=found["results"][0]["id"])
    assert lines[0] in got["results"][0]["paragraph"]["rich_text"][0]["plain_text"]
    return {"phrase": f"the wiki page “{title}”", "where": "the wiki"}

doc_beat.spot = lambda ctx, title: {"phrase": "the wiki"}

@add_beat(service, "announce")
def announce_beat(ctx, target: dict, title: str, text: str) -> dict:
    "Comment `title: text` on the wiki page `target` names."
    ctx.call("API-create-a-comment", parent={"page_id": target["id"]}, rich_text=[{"text": {"content": f"{title}: {text}"}}])
    return {"collection": "comments", "where": {"page_id": target["id"]}, "field": "text", "reveals": None}

def _announce_target(ctx) -> dict:
    st = ctx.state("notion")
    pages = sorted((p for p in scan(st, "pages") if p.parent_type == "page_id" and not p.in_trash), key=lambda p: p.id)
    p = pages[ctx.rng.randrange(len(pages))]
    return {"id": p.id, "phrase": f"the wiki page “{p.title}”"}
announce_beat.target = _announce_target

@add_beat(service, "annotate")
def annotate_beat(ctx, title: str, text: str) -> dict:
    "Comment `text` on the wiki page titled `title` (the document itself)."
    pid = next(k for k, pg in ctx.state("notion").pages.items() if pg.title == title)
    return announce_beat(ctx, {"id": pid}, title, text)
