"""Helpers shared by the sample services: pagination that always advances, text search, limits, schema inlining, and the
step factory of the read steps that find a planted record (`planted_record_step`).

Records are read and written only through `compoworld_nb.state` (`read`, `find`, `scan`, `writable`, `put`, `remove`, ...).

Pagination contract (every list tool that pages uses one of these):

* the caller sorts the items into a stable, documented order (ties broken by id) before paging;
* `cursor_page`: an opaque cursor names the last item returned; the next page starts strictly after it in that
  order, so a cursor always advances, pages never overlap and their union is every item exactly once. A cursor
  whose item has since been deleted resumes after the position that item held (items are located by their sort
  key), so deletions between pages never repeat or skip a surviving item;
* `number_page`: 1-based page numbers over the same stable order (GitHub style).
"""
from __future__ import annotations
import base64, functools, json, re
from typing import Annotated, Any, Callable, Optional
from pydantic import Field
from compoworld_nb.core import ToolError
from compoworld_nb.steps import Visit, add_step
from .world import reveal_value

__all__ = ["cursor_page", "number_page", "encode_cursor", "decode_cursor", "matches", "check_limit", "inline_schemas", "planted_record_step"]


def encode_cursor(key: Any) -> str:
    "An opaque cursor for a sort key (a JSON-able value or tuple)."
    return base64.urlsafe_b64encode(json.dumps(key, separators=(",", ":")).encode()).decode().rstrip("=")

def decode_cursor(cursor: str, arg: str = "cursor") -> Any:
    "The sort key inside a cursor; ToolError 400 naming `arg` for a cursor this service did not issue."
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        key = json.loads(raw)
    except (ValueError, TypeError): raise ToolError(400, f"{arg}={cursor!r} is not a cursor returned by this service", arg) from None
    return tuple(key) if isinstance(key, list) else key

def check_limit(limit: int, arg: str = "limit", hi: int = 100) -> int:
    "`limit` if 1 <= limit <= hi, else ToolError 422 naming it."
    if not 1 <= limit <= hi: raise ToolError(422, f"{arg} must be between 1 and {hi}, got {limit}", arg)
    return limit

def _norm_key(k):
    return tuple(_norm_key(x) for x in k) if isinstance(k, (list, tuple)) else k

def cursor_page(items: list, sort_key: Callable[[Any], Any], limit: int, cursor: Optional[str], arg: str = "cursor",
                limit_arg: str = "limit", hi: int = 100, descending: bool = False) -> tuple[list, Optional[str]]:
    "One page of `items` (already sorted by `sort_key`, ascending or `descending`; keys unique and JSON-able) after `cursor`: `(page, next_cursor or None)`."
    check_limit(limit, limit_arg, hi)
    keys = [_norm_key(sort_key(x)) for x in items]
    start = 0
    if cursor:
        after = _norm_key(decode_cursor(cursor, arg))
        try: start = next((i for i, k in enumerate(keys) if (k < after if descending else k > after)), len(keys))
        except TypeError: raise ToolError(400, f"{arg}={cursor!r} does not belong to this list", arg) from None
    page = items[start:start + limit]
    more = start + limit < len(items)
    return page, (encode_cursor(keys[start + limit - 1]) if more else None)

def number_page(items: list, page: int, per_page: int, page_arg: str = "page", per_arg: str = "perPage", hi: int = 100) -> list:
    "Page `page` (1-based) of `per_page` items; ToolError 422 for page < 1 or per_page outside 1..hi. A page past the end is empty."
    if page < 1: raise ToolError(422, f"{page_arg} must be at least 1, got {page}", page_arg)
    check_limit(per_page, per_arg, hi)
    return items[(page - 1) * per_page: page * per_page]

@functools.lru_cache(maxsize=1024)
def _query_words(query: str) -> tuple:
    "The lower-cased words of a search query (parsed once per query text)."
    return tuple(re.findall(r"\w[\w.@-]*", query.lower()))

QUERY_CHARS = 256   # the documented length limit of a search query, filter or pattern (GitHub's search API allows 256 characters)
Query = Annotated[str, Field(max_length=QUERY_CHARS)]
Query.__doc__ = f"A search query of at most {QUERY_CHARS} characters: the schema says maxLength, a longer one is a 400 at the argument boundary."

def matches(query: str, *texts: str) -> bool:
    "True if every word of `query` occurs (case-insensitive) in the joined `texts`."
    words = _query_words(query)
    if not words: return True
    try: hay = _hay(texts)
    except TypeError: hay = " ".join(t or "" for t in texts).lower()   # an unhashable text: no cache
    if len(words) == 1: return words[0] in hay
    return all(w in hay for w in words)

@functools.lru_cache(maxsize=1 << 15)
def _hay(texts: tuple) -> str:
    "The texts joined and lower-cased (cached: a search scans the same records' texts call after call)."
    return " ".join(t or "" for t in texts).lower()


def inline_schemas(service) -> None:
    "Rewrite each tool's parameters into the specs layer's canonical form ($defs of nested argument models inlined), so the model sees one self-contained schema."
    from compoworld_nb.specs import import_tool
    for t in service.tools.values():
        if "$defs" in json.dumps(t.parameters):
            t.parameters = import_tool({"name": t.name, "description": t.description, "inputSchema": t.parameters}, service.name).parameters


def planted_record_step(service, phrases: dict, what: tuple = ("project code", "venue"), name: str = "read",
                        needs: tuple = ("key",), reveals: tuple = ("key", "place")) -> Callable:
    """Decorator registering on `service` (`compoworld_nb.steps.add_step`) the step template "find the record planted
    for `value`", the read step most services offer.

    The decorated `body(ctx, value, kind, nxt, what) -> (tell, read)` plants a record that carries the fact `nxt` (its
    `kind` 'key' or 'place'; the factory draws both first, with `world.reveal_value`), makes the reference calls that
    find and read it, and returns the visit's instruction twice: `tell` for the walk's last visit (the final answer must
    report `nxt`) and `read` for a visit whose fact a later visit uses. `what` is how the instruction names the fact
    (`what[0]` for a key, `what[1]` for a place); the visit refers to `nxt` as `phrases[kind]`. Returns the step function
    `fn(ctx, value, want) -> Visit`."""
    def deco(body: Callable) -> Callable:
        @functools.wraps(body)
        def step(ctx, value, want):
            kind, nxt = reveal_value(ctx, want)
            tell, read = body(ctx, value, kind, nxt, what[0] if kind == "key" else what[1])
            if want is None: return Visit(tell, reveals=nxt, reveals_phrase=phrases[kind], answer=True)
            return Visit(read, reveals=nxt, reveals_phrase=phrases[kind])
        add_step(service, name, needs=needs, reveals=reveals)(step)
        return step
    return deco
