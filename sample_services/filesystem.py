"""Filesystem: a user's files and folders under one allowed directory.

All fourteen tools of the reference Filesystem MCP server (`../shared/specs/mcp/filesystem.json`) with its parameter names
(`dryRun`, `sortBy`, `excludePatterns`). Paths are POSIX; relative paths are taken from the allowed directory,
and any path that resolves outside it is refused (422). Text files hold UTF-8 text; media files hold base64 data
(`read_media_file`). Listings are sorted by name (directories and files together, case-sensitive), so their
order is stable. Times are the frozen clock's.

Glob patterns (`search_files`, `excludePatterns`): `*` and `?` stay within one path segment, a `**` segment crosses
segments (zero or more; one or more at the end; `**` inside a segment is a plain `*`, as in gitignore); a pattern
without a `/` matches a file or folder name anywhere below the search root. A pattern is at most 1,000 characters,
and matching time is bounded by the lengths (no backtracking regex).
"""
from __future__ import annotations
import base64, difflib, functools, posixpath, re
from datetime import timedelta
from typing import Literal, Optional
from pydantic import BaseModel, ConfigDict, Field
from compoworld_nb.core import EPOCH, ToolError
from compoworld_nb.service import Record, State, Service
from compoworld_nb.steps import Visit, add_step
from compoworld_nb.state import read, ids, has, put, remove, writable
from .kit import inline_schemas, planted_record_step, Query
from .world import make_world, service_rng, service_faker, reveal_value, iso

__all__ = ["service", "FsState", "File", "Directory"]

_MEDIA = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
          ".mp3": "audio/mpeg", ".wav": "audio/wav", ".pdf": "application/pdf", ".zip": "application/zip"}


class File(Record):
    id: str                      # absolute path
    content: str                 # text, or base64 data when `binary`
    binary: bool = False
    created: str
    modified: str


class Directory(Record):
    id: str                      # absolute path
    created: str
    modified: str


class FsState(State):
    root: str = "/home/user"     # the allowed directory
    files: dict[str, File] = {}
    directories: dict[str, Directory] = {}


service = Service("filesystem", "knowledge & files", FsState,
                  "A user's files and folders: read, write, edit, move, list, search.", spec="filesystem")


# --- paths ----------------------------------------------------------------------------------------
def _path(s: FsState, p: str, arg: str = "path") -> str:
    "Absolute, normalised path inside the allowed directory (ToolError 400 for an empty path, 422 outside it)."
    if not p.strip(): raise ToolError(400, f"{arg} must not be empty", arg)
    q = p.strip()
    if q.startswith("~"): q = s.root + q[1:]
    full = posixpath.normpath(q if q.startswith("/") else posixpath.join(s.root, q))
    if full != s.root and not full.startswith(s.root + "/"):
        raise ToolError(422, f"access denied: {arg}={p!r} is outside the allowed directory {s.root}", arg)
    return full

def _is_dir(s: FsState, p: str) -> bool: return p == s.root or has(s, "directories", p)
def _is_file(s: FsState, p: str) -> bool: return has(s, "files", p)

def _file(s: FsState, p: str, arg: str = "path") -> File:
    full = _path(s, p, arg)
    if _is_dir(s, full): raise ToolError(422, f"{arg}={p!r} is a directory, not a file", arg)
    if not _is_file(s, full): raise ToolError(404, f"no such file: {arg}={p!r}", arg)
    return read(s, "files", full)

def _dir(s: FsState, p: str, arg: str = "path") -> str:
    full = _path(s, p, arg)
    if _is_file(s, full): raise ToolError(422, f"{arg}={p!r} is a file, not a directory", arg)
    if not _is_dir(s, full): raise ToolError(404, f"no such directory: {arg}={p!r}", arg)
    return full

def _children(s: FsState, d: str) -> list[tuple[str, str]]:
    "(name, 'file'|'directory') of the direct children of `d`, sorted by name."
    pre = d.rstrip("/") + "/"
    out = [(k[len(pre):], "directory") for k in ids(s, "directories") if k.startswith(pre) and "/" not in k[len(pre):]]
    out += [(k[len(pre):], "file") for k in ids(s, "files") if k.startswith(pre) and "/" not in k[len(pre):]]
    return sorted(out)

def _text(f: File, arg: str = "path") -> str:
    if f.binary: raise ToolError(422, f"{f.id} is a binary file; read it with read_media_file", arg)
    return f.content

def _size(f: File) -> int: return len(base64.b64decode(f.content)) if f.binary else len(f.content.encode("utf-8"))

GLOB_MAX = 1000   # characters of one glob pattern (longer: 400)

def _seg_match(p: str, s: str) -> bool:
    "Does one path segment `s` match the segment pattern `p` (`*` any run, `?` one character)? Greedy with one backtrack point: O(len(p) * len(s)) at worst, no exponential backtracking."
    i = j = 0; star = -1; mark = 0
    while j < len(s):
        if i < len(p) and p[i] == "*": star, mark, i = i, j, i + 1
        elif i < len(p) and (p[i] == "?" or p[i] == s[j]): i += 1; j += 1
        elif star >= 0: i, mark = star + 1, mark + 1; j = mark
        else: return False
    while i < len(p) and p[i] == "*": i += 1
    return i == len(p)

def _glob(pattern: str):
    """A matcher `f(relative path) -> bool` for a glob pattern: `*` and `?` stay inside one segment, a `**` segment
    spans zero or more segments (one or more when it ends the pattern). Matching is by segments with a table over
    (pattern segment, path segment), so its time is bounded by the lengths, whatever the pattern."""
    if len(pattern) > GLOB_MAX: raise ToolError(400, f"a glob pattern is at most {GLOB_MAX} characters, got {len(pattern)}", "pattern")
    ps = pattern.split("/")
    ps = [p for i, p in enumerate(ps) if not (p == "**" and i + 1 < len(ps) and ps[i + 1] == "**")]   # **/** is **
    def match(rel: str) -> bool:
        ss = rel.split("/")
        n, m = len(ps), len(ss)
        ok = [[False] * (m + 1) for _ in range(n + 1)]   # ok[i][j]: ps[i:] matches ss[j:]
        ok[n][m] = True
        for i in range(n - 1, -1, -1):
            p = ps[i]
            for j in range(m, -1, -1):
                if p == "**":
                    if i == n - 1: ok[i][j] = j < m                          # a final ** needs something below
                    else: ok[i][j] = ok[i + 1][j] or (j < m and ok[i][j + 1])
                else: ok[i][j] = j < m and ok[i + 1][j + 1] and _seg_match(p, ss[j])
        return ok[0][0]
    return match

def _matcher(patterns: list[str]):
    pats = [(p, _glob(p)) for p in patterns if p.strip()]
    def hit(rel: str) -> bool:
        name = rel.rsplit("/", 1)[-1]
        return any(f(rel) or ("/" not in p and f(name)) for p, f in pats)
    return hit

def _mkdirs(s: FsState, full: str) -> list[str]:
    made, cur = [], s.root
    for part in full[len(s.root):].strip("/").split("/") if full != s.root else []:
        cur = f"{cur}/{part}"
        if _is_file(s, cur): raise ToolError(409, f"{cur} exists and is a file", "path")
        if not _is_dir(s, cur):
            now = s.now(); put(s, "directories", cur, Directory(id=cur, created=now, modified=now)); made.append(cur)
    return made


# --- reading --------------------------------------------------------------------------------------
def _head_tail(text: str, head: Optional[int], tail: Optional[int]) -> str:
    if head is not None and tail is not None: raise ToolError(422, "give head or tail, not both", "head")
    for n, v in (("head", head), ("tail", tail)):
        if v is not None and v < 0: raise ToolError(422, f"{n} must be >= 0, got {v}", n)
    lines = text.splitlines(keepends=True)
    if head is not None: return "".join(lines[:head])
    if tail is not None: return "".join(lines[-tail:]) if tail else ""
    return text

@service.tool(read_only=True)
def read_text_file(s: FsState,
                   path: str,                   # file to read (absolute, or relative to the allowed directory)
                   tail: Optional[int] = None,  # if given, only the last N lines
                   head: Optional[int] = None,  # if given, only the first N lines
                  ) -> str:
    "Read a text file; optionally only its first or last N lines."
    return _head_tail(_text(_file(s, path)), head, tail)

@service.tool(read_only=True)
def read_file(s: FsState,
              path: str,                   # file to read (absolute, or relative to the allowed directory)
              tail: Optional[int] = None,  # if given, only the last N lines
              head: Optional[int] = None,  # if given, only the first N lines
             ) -> str:
    "Read a text file (the older name of read_text_file)."
    return _head_tail(_text(_file(s, path)), head, tail)

@service.tool(read_only=True)
def read_media_file(s: FsState,
                    path: str,  # image, audio or other binary file to read
                   ) -> dict:
    "Read a file as base64 with its MIME type (images and audio as such, anything else as a resource blob)."
    f = _file(s, path)
    mime = _MEDIA.get(posixpath.splitext(f.id)[1].lower(), "application/octet-stream" if f.binary else "text/plain")
    data = f.content if f.binary else base64.b64encode(f.content.encode("utf-8")).decode()
    kind = mime.split("/")[0]
    if kind in ("image", "audio"): return {"content": [{"type": kind, "data": data, "mimeType": mime}]}
    return {"content": [{"type": "resource", "resource": {"uri": f"file://{f.id}", "mimeType": mime, "blob": data}}]}

@service.tool(read_only=True)
def read_multiple_files(s: FsState,
                        paths: list[str],  # files to read (at least one); a failure on one does not stop the others
                       ) -> list[dict]:
    "Read several text files at once; each result has the file's content or the error for that path."
    if not paths: raise ToolError(422, "paths must list at least one file", "paths")
    out = []
    for p in paths:
        try: out.append({"path": p, "content": _text(_file(s, p))})
        except ToolError as e: out.append({"path": p, "error": e.message})
    return out

@service.tool(read_only=True)
def list_directory(s: FsState,
                   path: str,  # directory to list
                  ) -> list[str]:
    "List a directory: '[DIR] name' and '[FILE] name' entries, sorted by name."
    d = _dir(s, path)
    return [f"[{'DIR' if t == 'directory' else 'FILE'}] {n}" for n, t in _children(s, d)]

@service.tool(read_only=True)
def list_directory_with_sizes(s: FsState,
                              path: str,                              # directory to list
                              sortBy: Literal["name", "size"] = "name",  # order entries by name or by size (largest first, then name)
                             ) -> dict:
    "List a directory with file sizes in bytes, and totals."
    d = _dir(s, path)
    rows = []
    for n, t in _children(s, d):
        size = _size(read(s, "files", f"{d}/{n}")) if t == "file" else None
        rows.append({"name": n, "type": t, "size": size})
    if sortBy == "size": rows.sort(key=lambda r: (-(r["size"] or 0), r["name"]))
    files = [r for r in rows if r["type"] == "file"]
    return {"entries": rows, "total_files": len(files), "total_directories": len(rows) - len(files),
            "total_size": sum(r["size"] for r in files)}

@service.tool(read_only=True)
def directory_tree(s: FsState,
                   path: str,                                  # root of the tree
                   excludePatterns: Optional[list[str]] = None,  # glob patterns of entries to leave out
                  ) -> list[dict]:
    "A recursive tree: [{name, type, children}] (children only on directories), sorted by name at each level."
    d = _dir(s, path)
    skip = _matcher(excludePatterns or [])
    def walk(cur: str) -> list[dict]:
        out = []
        for n, t in _children(s, cur):
            full = f"{cur}/{n}"
            if skip(full[len(d) + 1:]): continue
            out.append({"name": n, "type": t, "children": walk(full)} if t == "directory" else {"name": n, "type": t})
        return out
    return walk(d)

@service.tool(read_only=True)
def search_files(s: FsState,
                 path: str,                                  # directory to search below
                 pattern: Query,                             # glob pattern, e.g. '*.md' or 'projects/**/notes.txt'
                 excludePatterns: Optional[list[str]] = None,  # glob patterns of paths to leave out
                ) -> list[str]:
    "Find files and directories below a directory whose relative path (or name) matches a glob pattern; sorted paths."
    d = _dir(s, path)
    if not pattern.strip(): raise ToolError(422, "pattern must not be empty", "pattern")
    hit, skip = _matcher([pattern]), _matcher(excludePatterns or [])
    pre = d.rstrip("/") + "/"
    cands = [k for k in list(ids(s, "directories")) + list(ids(s, "files")) if k.startswith(pre)]
    return sorted(k for k in cands if hit(k[len(pre):]) and not skip(k[len(pre):]))

@service.tool(read_only=True)
def get_file_info(s: FsState,
                  path: str,  # file or directory
                 ) -> dict:
    "Metadata of a file or directory: size, times, type and permissions."
    full = _path(s, path)
    if _is_file(s, full):
        f = read(s, "files", full)
        return {"path": full, "size": _size(f), "created": f.created, "modified": f.modified, "accessed": f.modified,
                "isDirectory": False, "isFile": True, "permissions": "644"}
    if _is_dir(s, full):
        d = read(s, "directories", full)
        c = d.created if d else iso(EPOCH - timedelta(days=400))
        return {"path": full, "size": 4096, "created": c, "modified": d.modified if d else c, "accessed": d.modified if d else c,
                "isDirectory": True, "isFile": False, "permissions": "755"}
    raise ToolError(404, f"no such file or directory: path={path!r}", "path")

@service.tool(read_only=True)
def list_allowed_directories(s: FsState) -> list[str]:
    "The directories this service may read and write (and everything below them)."
    return [s.root]


# --- writing --------------------------------------------------------------------------------------
class EditIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    oldText: str = Field(description="Text to search for - must match exactly")
    newText: str = Field(description="Text to replace with")

@service.tool
def write_file(s: FsState,
               path: str,     # file to create or overwrite; its folder must exist
               content: str,  # the new text content
              ) -> dict:
    "Create a file or overwrite an existing one with text content."
    full = _path(s, path)
    if _is_dir(s, full): raise ToolError(422, f"path={path!r} is a directory", "path")
    parent = posixpath.dirname(full)
    if not _is_dir(s, parent): raise ToolError(404, f"the folder {parent} does not exist (create_directory first)", "path")
    now = s.tick(1)
    old = read(s, "files", full)
    put(s, "files", full, File(id=full, content=content, created=old.created if old else now, modified=now))
    return {"path": full, "bytes": len(content.encode("utf-8")), "created": old is None}

@service.tool
def edit_file(s: FsState,
              path: str,             # text file to edit
              edits: list[EditIn],   # replacements applied in order; each oldText must occur in the file
              dryRun: bool = False,  # preview the diff without writing
             ) -> dict:
    "Replace exact text in a file (edits applied in order) and return a unified diff; dryRun only previews."
    f = _file(s, path)
    old = _text(f)
    if not edits: raise ToolError(422, "edits must list at least one edit", "edits")
    new = old
    for i, e in enumerate(edits):
        if not e.oldText: raise ToolError(422, f"edits.{i}.oldText must not be empty", f"edits.{i}.oldText")
        if e.oldText not in new: raise ToolError(422, f"could not find an exact match for edits.{i}.oldText={e.oldText[:60]!r}", f"edits.{i}.oldText")
        new = new.replace(e.oldText, e.newText, 1)
    diff = "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), f.id, f.id))
    if not dryRun and new != old:
        f2 = writable(s, "files", f.id); f2.content = new; f2.modified = s.tick(1)
    return {"diff": diff, "applied": not dryRun}

@service.tool
def create_directory(s: FsState,
                     path: str,  # directory to create, with any missing parents; fine if it exists
                    ) -> dict:
    "Create a directory and any missing parents (nothing happens if it already exists)."
    full = _path(s, path)
    if _is_file(s, full): raise ToolError(409, f"path={path!r} exists and is a file", "path")
    s.tick(1)
    return {"path": full, "created": _mkdirs(s, full)}

@service.tool
def move_file(s: FsState,
              source: str,       # file or directory to move or rename
              destination: str,  # new path; must not exist, its folder must
             ) -> dict:
    "Move or rename a file or directory (with everything in it)."
    src, dst = _path(s, source, "source"), _path(s, destination, "destination")
    if src == s.root: raise ToolError(422, "the allowed directory itself cannot be moved", "source")
    if not (_is_file(s, src) or _is_dir(s, src)): raise ToolError(404, f"no such file or directory: source={source!r}", "source")
    if _is_file(s, dst) or _is_dir(s, dst): raise ToolError(409, f"destination={destination!r} already exists", "destination")
    if not _is_dir(s, posixpath.dirname(dst)): raise ToolError(404, f"the folder of destination={destination!r} does not exist", "destination")
    if dst.startswith(src + "/"): raise ToolError(422, f"cannot move {src} into itself", "destination")
    now = s.tick(1)
    moved = 0
    for coll in ("files", "directories"):
        for k in [k for k in ids(s, coll) if k == src or k.startswith(src + "/")]:
            r = remove(s, coll, k)
            nk = dst + k[len(src):]
            put(s, coll, nk, r.model_copy(update={"id": nk, "modified": now})); moved += 1
    return {"source": src, "destination": dst, "moved": moved}

inline_schemas(service)


# --- fixture ------------------------------------------------------------------------------------
def _png(rng, w: int = 2, h: int = 2) -> str:
    "A tiny, deterministic stand-in for image bytes with a PNG signature (not a decodable image)."
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(48))).decode()

@service.fixture
def fixture(seed: int) -> FsState:
    "About 220 files in ~30 folders: project READMEs and notes, meeting notes, CSV exports, a few images (dates before EPOCH)."
    return _build(seed).model_copy(deep=True)

@functools.lru_cache(maxsize=8)
def _build(seed: int) -> FsState:
    w, rng, fk = make_world(seed), service_rng("filesystem", seed), service_faker("filesystem", seed)
    s = FsState(seed=seed, root=f"/home/{w.me.handle}")
    def when() -> str: return iso(EPOCH - timedelta(minutes=rng.randint(60, 200 * 24 * 60)))
    def mkdir(p):
        if not _is_dir(s, p):
            mkdir(posixpath.dirname(p)); t = when(); put(s, "directories", p, Directory(id=p, created=t, modified=t))
    def add(rel, content, binary=False):
        p = f"{s.root}/{rel}"; mkdir(posixpath.dirname(p))
        a, b = sorted([when(), when()])
        put(s, "files", p, File(id=p, content=content, binary=binary, created=a, modified=b))
    for topic in w.topics:
        slug = re.sub(r"[^a-z0-9]+", "-", topic.lower()).strip("-")
        owner = rng.choice(w.people)
        add(f"projects/{slug}/README.md", f"# {topic.title()}\n\nOwner: {owner.name} ({owner.email})\nStatus: {rng.choice(['planning', 'active', 'paused'])}\n\n{fk.paragraph(nb_sentences=4)}\n")
        for k in range(rng.randint(2, 5)):
            add(f"projects/{slug}/notes-{k + 1}.md", f"## Notes {k + 1}: {topic}\n\n" + "\n".join(f"- {fk.sentence(nb_words=10)}" for _ in range(rng.randint(3, 7))) + "\n")
        add(f"projects/{slug}/tasks.txt", "\n".join(f"[{'x' if rng.random() < 0.4 else ' '}] {fk.bs()}" for _ in range(rng.randint(3, 8))) + "\n")
    for k in range(60):
        d = EPOCH - timedelta(days=rng.randint(1, 180))
        add(f"meetings/{d:%Y-%m}/{d:%Y-%m-%d}-{rng.choice(w.topics).split()[0].lower()}-{k}.md",
            f"# Meeting {d:%Y-%m-%d}\n\nAttendees: {', '.join(p.first for p in rng.sample(w.people, 3))}\n\n{fk.paragraph(nb_sentences=3)}\n")
    for k in range(30):
        rows = ["date,amount,category"] + [f"{(EPOCH - timedelta(days=rng.randint(1, 90))):%Y-%m-%d},{rng.uniform(5, 900):.2f},{rng.choice(['travel', 'software', 'meals', 'hardware'])}" for _ in range(rng.randint(5, 20))]
        add(f"data/exports/expenses-{k:02d}.csv", "\n".join(rows) + "\n")
    for k in range(40):
        add(f"notes/{fk.word()}-{k:02d}.txt", fk.paragraph(nb_sentences=rng.randint(2, 5)) + "\n")
    for k in range(16):
        add(f"pictures/{fk.word()}-{k:02d}.png", _png(rng), binary=True)
    add("todo.md", "# Todo\n\n" + "\n".join(f"- [ ] {fk.bs()}" for _ in range(8)) + "\n")
    mkdir(f"{s.root}/archive")
    return s


# --- step templates -----------------------------------------------------------------------------
_PHRASE = {"key": "the project code written in that file", "place": "the venue written in that file"}

@planted_record_step(service, _PHRASE)
def read_step(ctx, value, kind, nxt, what):
    "Plant a brief file whose name carries `value` and whose text gives the next fact; the agent finds and reads it."
    slug = re.sub(r"[^a-z0-9]+", "-", str(value).lower()).strip("-") or "brief"
    line = f"Project code: {nxt}" if kind == "key" else f"Venue: {nxt}"
    root = ctx.state("filesystem").root
    path = f"{root}/briefs/{slug}.md"
    def plant(s: FsState):
        if not _is_dir(s, f"{s.root}/briefs"): put(s, "directories", f"{s.root}/briefs", Directory(id=f"{s.root}/briefs", created=iso(EPOCH - timedelta(days=3)), modified=iso(EPOCH - timedelta(days=3))))
        put(s, "files", path, File(id=path, content=f"# Brief: {value}\n\n{line}\n\nPrepared by operations.\n", created=iso(EPOCH - timedelta(days=2)), modified=iso(EPOCH - timedelta(days=2))))
    ctx.plant("filesystem", plant)
    found = ctx.call("search_files", path=root, pattern=f"*{slug}*")
    got = ctx.call("read_text_file", path=found[0])
    assert nxt in got
    return (f"Find the brief file about {ctx.in_phrase} in my files and tell me the {what} it gives.",
            f"Find the brief file about {ctx.in_phrase} in my files and read it.")

@add_step(service, "save", needs=("key", "place", "coords", "forecast", "ref"), writes=True)
def save_step(ctx, value, want):
    "Write a new note file whose text carries `value`."
    label = ctx.label("note")
    name = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-") + ".txt"
    root = ctx.state("filesystem").root
    ctx.call("write_file", path=f"{root}/notes/{name}", content=f"Remember: {value}\n")
    crit = [ctx.criterion("files", {"id": f"{root}/notes/{name}"}, "content", "contains", str(value))]
    return Visit(f"Save a new text file named {name} in my notes folder ({root}/notes) that contains {ctx.in_phrase}.", criteria=crit)


# --- scenario beats (compoworld_nb.scenario) ---------------------------------------------------------
from compoworld_nb.steps import add_beat

def _slug(text: str) -> str: return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-") or "doc"

@add_beat(service, "doc")
def doc_beat(ctx, title: str, body: str, author, spot: dict | None = None) -> dict:
    "Plant a Markdown file `docs/<slug of title>.md` holding `body`; the reference finds it by name and reads it."
    root = ctx.state("filesystem").root
    slug = _slug(title)
    path = f"{root}/docs/{slug}.md"
    def plant(s: FsState):
        t = iso(EPOCH - timedelta(days=2))
        if not _is_dir(s, f"{s.root}/docs"): put(s, "directories", f"{s.root}/docs", Directory(id=f"{s.root}/docs", created=t, modified=t))
        put(s, "files", path, File(id=path, content=f"# {title}\n\n{body}\n\n— {author.name}\n", created=t, modified=t))
    ctx.plant("filesystem", plant)
    found = ctx.call("search_files", path=root, pattern=f"*{slug}*")
    got = ctx.call("read_text_file", path=found[0])
    assert title in got
    return {"phrase": f"the file {slug}.md in my documents folder", "where": "my files"}

doc_beat.spot = lambda ctx, title: {"phrase": f"the file docs/{_slug(title)}.md in my files"}

@add_beat(service, "announce")
def announce_beat(ctx, target: dict, title: str, text: str) -> dict:
    "Write `text` to the notes file `target` names (the title is its first line)."
    ctx.call("write_file", path=target["path"], content=f"{title}\n\n{text}\n")
    ctx.call("read_text_file", path=target["path"])              # read back what was saved
    return {"collection": "files", "where": {"id": target["path"]}, "field": "content", "reveals": None}

def _announce_target(ctx) -> dict:
    root = ctx.state("filesystem").root
    name = f"{_slug(ctx.label('log'))}.txt"
    return {"path": f"{root}/notes/{name}", "phrase": f"a new file {root}/notes/{name}"}
announce_beat.target = _announce_target
announce_beat.no_reference = True     # its answer holds no id or link a later message could cite (compoworld_nb.scenario Shape.cites)
