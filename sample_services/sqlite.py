"""SQLite: a small company database queried with real SQL.

Tool names and parameters follow the reference SQLite MCP server (`../shared/specs/mcp/sqlite.json`): read_query,
write_query, create_table, list_tables, describe_table, append_insight. The state is typed (schema objects,
one record per table row, insights); every call materialises it into an in-memory `sqlite3` database, runs the
statement there with the real engine (types, constraints, foreign keys, indexes, views and triggers behave as
in SQLite) and, after a write, reads the tables back into the typed state. Rows keep their rowids, and
AUTOINCREMENT counters are kept, so nothing about the database changes between calls except what SQL changed.

Only JSON scalars are stored (INTEGER, REAL, TEXT, NULL); a statement that would store a BLOB is refused.
"""
from __future__ import annotations
import functools, os, re, sqlite3, threading, time
from collections import OrderedDict
from itertools import compress, repeat
from operator import is_, not_
from datetime import timedelta
from typing import Literal, Optional, Union
from compoworld_nb.core import EPOCH, ToolError
from compoworld_nb.service import CowRecords, Record, Records, State, Service, lineage, snapshot
from compoworld_nb.steps import Visit, add_step
from compoworld_nb.state import read, scan, entries, ids, _peek, put, remove   # _peek: the no-copy get of any collection (a view's own reads copy)
from compoworld_nb.service import CALL_BUDGET_S, call_deadline
from .world import make_world, service_rng, service_faker, reveal_value
from .kit import planted_record_step

Scalar = Union[int, float, str, None]


class SqlObject(Record):
    id: str                          # the object's name
    type: Literal["table", "index", "view", "trigger"]
    tbl_name: str
    sql: str
    seq: int                         # creation order


class Row(Record):
    id: str                          # "<table>:<rowid>"
    table: str
    rowid: int
    values: dict[str, Scalar]


class Insight(Record):
    id: str
    text: str
    created: str


class SqliteState(State):
    objects: dict[str, SqlObject] = {}
    rows: dict[str, Row] = {}
    insights: dict[str, Insight] = {}
    sequences: dict[str, int] = {}   # AUTOINCREMENT counters (sqlite_sequence)


service = Service("sqlite", "data & analytics", SqliteState,
                  "A SQLite company database (customers, products, orders, projects, notes) queried with real SQL.", spec="sqlite")


# --- the engine ---------------------------------------------------------------------------------
def _q(name: str) -> str: return '"' + name.replace('"', '""') + '"'

def _connect(s: SqliteState) -> sqlite3.Connection:
    "The state as an in-memory database: tables, rows (with their rowids), counters, then indexes, views and triggers. Built from scratch; the tools use `_database`, which gives the same database faster."
    con = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    con.execute("PRAGMA foreign_keys = OFF")
    objs = sorted(scan(s, "objects"), key=lambda o: o.seq)
    by_table: dict[str, list] = {}
    for r in scan(s, "rows"): by_table.setdefault(r.table, []).append(r)
    for o in objs:
        if o.type != "table": continue
        con.execute(o.sql)
        rows = sorted(by_table.get(o.id, []), key=lambda r: r.rowid)
        cols = [c[1] for c in con.execute(f"PRAGMA table_info({_q(o.id)})")]
        if rows:
            sql = f"INSERT INTO {_q(o.id)} (rowid, {', '.join(map(_q, cols))}) VALUES ({', '.join('?' * (len(cols) + 1))})"
            con.executemany(sql, [(r.rowid, *(r.values.get(c) for c in cols)) for r in rows])
    if s.sequences:
        con.execute("DELETE FROM sqlite_sequence")
        con.executemany("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", sorted(s.sequences.items()))
    for o in objs:
        if o.type != "table": con.execute(o.sql)
    con.execute("PRAGMA foreign_keys = ON")
    return con

# Building a database row by row costs ~10 ms, copying one with the backup API ~0.1 ms. A state's rows usually
# descend from a committed snapshot (the fixture's) with a few ids touched (`service.verified_lineage`), so the
# database of the snapshot is built once (a *base*) and each state's database is a copy of it with the touched rows
# deleted and re-inserted. Every connection a tool gets is a fresh copy (`backup`), so what a query can see of the
# connection (changes(), total_changes(), last_insert_rowid() all 0) never depends on how it was built.
_LOCK = threading.RLock()                 # guards the caches and every use of a cached connection
_BASES: OrderedDict = OrderedDict()       # (id(rows snapshot), schema) -> (snapshot, connection holding exactly its rows, {table: columns})
_READERS: OrderedDict = OrderedDict()     # id(state) -> (state, read-only connection to exactly its database)
_CACHE_MAX = 16
_MAX_DELTA = 256                          # more touched rows than this: build a new base

def _schema_key(s: SqliteState) -> tuple:
    return tuple(sorted((o.id, o.type, o.tbl_name, o.sql, o.seq) for o in scan(s, "objects")))

def _put(cache: OrderedDict, key, value) -> None:
    cache[key] = value
    while len(cache) > _CACHE_MAX:
        old = cache.popitem(last=False)[1]
        (old[1] if isinstance(old, tuple) else old).close()

def _delta(rows: dict, snap) -> set:
    "Ids whose record in `rows` is not the very object `snap` holds (changed, added or gone); O(n) at C speed."
    same = map(is_, map(_peek(rows), snap.keys), snap.recs)
    return set(compress(snap.keys, map(not_, same))) | (set(rows.keys()) - snap.index.keys())

def _base(s: SqliteState, schema: tuple) -> tuple:
    "`((snapshot, base connection, column cache), ids that differ)`: a cached base the state's rows differ from in few ids, else a new base built from the rows' own snapshot (or the one their lineage names). Call under `_LOCK`."
    rows = s.rows
    lin = lineage(rows) if isinstance(rows, (Records, CowRecords)) else None
    if lin is not None:
        e = _BASES.get((id(lin[0]), schema))
        if e is not None and e[0] is lin[0]: _BASES.move_to_end((id(lin[0]), schema)); return e, lin[1]
    n, get = len(rows), _peek(rows)
    for key in reversed(list(_BASES)):
        e = _BASES[key]
        snap = e[0]
        if key[1] != schema or abs(len(snap.keys) - n) > _MAX_DELTA: continue
        probe = snap.keys[::max(1, len(snap.keys) // 16)]          # a base from another world shares (almost) no record
        if sum(get(k) is r for k, r in zip(probe, snap.recs[::max(1, len(snap.keys) // 16)])) * 2 < len(probe): continue
        touched = _delta(rows, snap)
        if len(touched) <= _MAX_DELTA: _BASES.move_to_end(key); return e, touched
    snap, touched = lin if lin is not None else (snapshot(rows), set())
    base = _connect(SqliteState.model_construct(objects=s.objects, rows=dict(zip(snap.keys, snap.recs)), sequences=s.sequences))
    base.execute("PRAGMA foreign_keys = OFF")   # a base is copied from, or patched inside a transaction that is rolled back (`_select`)
    e = (snap, base, {})
    _put(_BASES, (id(snap), schema), e)
    return e, touched

def _patch(con: sqlite3.Connection, s: SqliteState, snap, touched: set, cols: dict, base: sqlite3.Connection) -> None:
    "Make `con`, which holds exactly the rows of `snap`, hold exactly `s`'s rows and counters: rows gone or replaced are deleted, rows new or replaced inserted (ids in `touched` only), and sqlite_sequence is set if it differs. Foreign keys must be off on `con`; `cols` caches the tables' columns as `base` (same schema) has them."
    idx = snap.index
    def columns(t):
        if t not in cols: cols[t] = [c[1] for c in base.execute(f"PRAGMA table_info({_q(t)})")]
        return cols[t]
    changed = sorted(touched, key=str)
    for k in changed:                     # rows gone or replaced
        old = snap.recs[idx[k]] if k in idx else None
        if old is not None and read(s, "rows", k) is not old: con.execute(f"DELETE FROM {_q(old.table)} WHERE rowid = ?", (old.rowid,))
    for k in changed:                     # rows new or replaced
        new = read(s, "rows", k)
        if new is None or (k in idx and snap.recs[idx[k]] is new): continue
        cs = columns(new.table)
        con.execute(f"INSERT INTO {_q(new.table)} (rowid, {', '.join(map(_q, cs))}) VALUES ({', '.join('?' * (len(cs) + 1))})",
                    (new.rowid, *(new.values.get(c) for c in cs)))
    if dict(con.execute("SELECT name, seq FROM sqlite_sequence")) != s.sequences:
        con.execute("DELETE FROM sqlite_sequence")
        con.executemany("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", sorted(s.sequences.items()))

def _built(s: SqliteState) -> tuple[sqlite3.Connection, bool]:
    "`(connection, clean)`: a new connection holding exactly `s`'s database; `clean` if nothing ran on it since it was copied (its counters are at zero). Call under `_LOCK`."
    if not s.sequences or any(o.type == "trigger" for o in scan(s, "objects")):
        return _connect(s), False         # counters left to SQLite, or triggers that replaying rows would fire
    (snap, base, cols), touched = _base(s, _schema_key(s))
    con = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    base.backup(con)
    if not touched and s.sequences == dict(base.execute("SELECT name, seq FROM sqlite_sequence")): return con, True
    con.execute("PRAGMA foreign_keys = OFF")
    _patch(con, s, snap, touched, cols, base)
    return con, False

def _database(s: SqliteState) -> sqlite3.Connection:
    "A fresh connection to `s`'s database with foreign keys on: the same tables, rows, rowids, counters and schema objects `_connect(s)` builds."
    with _LOCK:
        con, clean = _built(s)
        if not clean:                     # a fresh copy: no trace of how the database was loaded
            src, con = con, sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            src.backup(con)
            src.close()
    con.execute("PRAGMA foreign_keys = ON")
    return con

def _reader(s: SqliteState) -> sqlite3.Connection:
    """A read-only (`query_only`) connection to the state's database, shared by the calls that read the same state
    object (a state is a value: reads never change it, and a tool never changes the state it is given). Use it under `_LOCK`."""
    with _LOCK:
        e = _READERS.get(id(s))
        if e is not None and e[0] is s: _READERS.move_to_end(id(s)); return e[1]
        con = _database(s)
        con.execute("PRAGMA query_only = ON")
        _put(_READERS, id(s), (s, con))
        return con

# A SELECT needs no database of its own: it runs on the cached base inside a transaction that patches in the state's
# rows and is then rolled back, so the base holds exactly its snapshot's rows again (~0.1 ms instead of a fresh copy).
# What the patch leaves behind outside the data (the connection's changes(), total_changes() and last_insert_rowid())
# is never seen: a query that names one of those functions gets a fresh connection (`_reader`), as does a state whose
# counters are left to SQLite or whose schema has triggers.
_CONNECTION_STATE = re.compile(r"\b(?:changes|total_changes|last_insert_rowid)\b", re.I)

def _select(s: SqliteState, query: str) -> tuple[list[str], list[tuple]]:
    "`(column names, rows)` of one SELECT on `s`'s database, exactly as on a fresh connection to it (`_database`); ToolError as `_run`."
    with _LOCK:
        if _CONNECTION_STATE.search(query) or not s.sequences or any(o.type == "trigger" for o in scan(s, "objects")):
            cur = _run(_reader(s), query)                  # a SELECT always describes its columns
            return [d[0] for d in cur.description], _fetch(cur)
        (snap, base, cols), touched = _base(s, _schema_key(s))
        base.execute("BEGIN")
        try:
            _patch(base, s, snap, touched, cols, base)
            base.execute("PRAGMA query_only = ON")
            try:
                cur = _run(base, query)
                return [d[0] for d in cur.description], _fetch(cur)
            finally: base.execute("PRAGMA query_only = OFF")
        finally: base.execute("ROLLBACK")

_WRITE_ACTIONS = {sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE}

def _run_write(con: sqlite3.Connection, query: str, s: SqliteState):
    "`_run(con, query)` for a write, plus the set of tables it may have written (None: any table). SQLite's authorizer names every table the compiled statement inserts into, updates or deletes from; with triggers or foreign-key actions in the schema (code the authorizer may not report) every table counts."
    risky = any(o.type == "trigger" or re.search(r"\bON\s+(DELETE|UPDATE)\b", o.sql, re.I) for o in scan(s, "objects"))
    written: set = set()
    def auth(action, arg1, arg2, db, trigger):
        if action in _WRITE_ACTIONS and arg1: written.add(arg1)
        return sqlite3.SQLITE_OK
    if not risky: con.set_authorizer(auth)
    try: cur = _run(con, query)
    finally:
        if not risky: con.set_authorizer(None)
    return cur, (None if risky else written)

_SYNCED: OrderedDict = OrderedDict()     # id(row) -> (row, columns) for rows known to read back exactly as they are

def _in_sync(con: sqlite3.Connection, name: str, cols: tuple, mine: list) -> bool:
    "True if a table the write left alone holds exactly the state's rows `mine` [(key, Row)], each keyed '<table>:<rowid>' with its values in column order and equal to the database's (what `_read_back` keeps as it is). Rows are values: one found in sync is remembered (per column list)."
    (n,) = con.execute(f"SELECT count(*) FROM {_q(name)}").fetchone()
    if n != len(mine): return False
    for k, r in mine:
        e = _SYNCED.get(id(r))
        if e is not None and e[0] is r and e[1] == cols and k == r.id: continue
        rec = con.execute(f"SELECT rowid, * FROM {_q(name)} WHERE rowid = ?", (r.rowid,)).fetchone()
        if rec is None or k != r.id or k != f"{r.table}:{r.rowid}" or tuple(r.values) != cols or tuple(r.values.values()) != rec[1:]: return False
        _SYNCED[id(r)] = (r, cols)
    while len(_SYNCED) > 50_000: _SYNCED.popitem(last=False)
    return True

def _read_back(con: sqlite3.Connection, s: SqliteState, written: set | None = None) -> None:
    "Write the database's schema, rows and counters into `s`, replacing only records that changed. `written` (tables the write may have changed, see `_run_write`) lets a table outside it be skipped when `s` holds exactly its rows."
    master = con.execute("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid").fetchall()
    old_seq = {o.id: o.seq for o in scan(s, "objects")}
    nxt = max(old_seq.values(), default=0) + 1
    objects = {}
    for typ, name, tbl, sql in master:
        if name in old_seq: seq = old_seq[name]
        else: seq, nxt = nxt, nxt + 1
        objects[name] = SqlObject(id=name, type=typ, tbl_name=tbl, sql=sql, seq=seq)
    seen, changed, kept = set(), [], set()   # row ids in the database; rows that differ from `s` (table, rowid order); tables left as they were
    by_table: dict = {}
    if written is not None:
        for k, r in entries(s, "rows"): by_table.setdefault(r.table, []).append((k, r))
    old_tables = {o.id for o in scan(s, "objects") if o.type == "table"}
    for name, o in objects.items():
        if o.type != "table": continue
        cur = con.execute(f"SELECT rowid, * FROM {_q(name)}")
        cols = tuple(d[0] for d in cur.description[1:])
        if written is not None and name not in written and name in old_tables and _in_sync(con, name, cols, by_table.get(name, [])):
            kept.add(name); continue                              # not written and the state holds it exactly: nothing to read
        for rec in cur:
            k = f"{name}:{rec[0]}"
            seen.add(k)
            old = read(s, "rows", k)      # read without copying: most rows are unchanged
            if old is not None and tuple(old.values) == cols and tuple(old.values.values()) == rec[1:]: continue
            vals = dict(zip(cols, rec[1:]))  # a stored row never holds a BLOB, so only a changed row can
            bad = next((c for c, v in vals.items() if isinstance(v, (bytes, bytearray, memoryview))), None)
            if bad: raise ToolError(422, f"column {name}.{bad} would hold a BLOB; only INTEGER, REAL, TEXT and NULL values are stored", "query")
            _finite_rows([rec[1:]], f"table {name}")
            changed.append((k, name, rec[0], vals))
    for k, o in objects.items():
        old = read(s, "objects", k)
        if old is None or old.model_dump() != o.model_dump(): put(s, "objects", k, o)
    for k in [k for k in ids(s, "objects") if k not in objects]: remove(s, "objects", k)
    for k, t, rowid, vals in changed: put(s, "rows", k, Row(id=k, table=t, rowid=rowid, values=vals))
    for k in [k for k, r in entries(s, "rows") if k not in seen and r.table not in kept]: remove(s, "rows", k)
    seqs = {}
    if con.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").fetchone():
        seqs = {n: v for n, v in con.execute("SELECT name, seq FROM sqlite_sequence")}
    if seqs != s.sequences: s.sequences = seqs

def _after_fork() -> None:
    "In a forked child: a fresh lock and empty caches (a thread of the parent may have held the lock, or been inside a transaction on a cached connection, at the fork)."
    global _LOCK, _BASES, _READERS, _SYNCED
    _LOCK, _BASES, _READERS, _SYNCED = threading.RLock(), OrderedDict(), OrderedDict(), OrderedDict()

if hasattr(os, "register_at_fork"): os.register_at_fork(after_in_child=_after_fork)

_FIRST = re.compile(r"^\s*(?:(?:--[^\n]*\n)|(?:/\*.*?\*/)|\s)*(\w+)(?:\s+(\w+))?", re.S)

def _kind(query: str) -> tuple[str, str]:
    m = _FIRST.match(query)
    return ((m.group(1) or "").upper(), (m.group(2) or "").upper()) if m else ("", "")

_TICKS = threading.local()
_MAX_TICKS = 200                 # progress-handler calls per statement, each after 10k VM steps: a work budget of 2M steps

def _interrupt() -> int:
    "SQLite progress handler: non-zero (abort the statement) past the work budget; counted in VM steps, never wall time, so the answer is the same under any load."
    n = getattr(_TICKS, "n", 0) + 1
    _TICKS.n = n
    return 1 if n > _MAX_TICKS else 0

def _fetch(cur) -> list:
    "`cur.fetchall()` with a statement stopped by `_interrupt` answered as a 504 (a recursive CTE that never ends)."
    try: return cur.fetchall()
    except sqlite3.OperationalError as e:
        if "interrupted" in str(e): raise ToolError(504, f"the query ran past its work budget of {_MAX_TICKS * 10_000:,} SQLite steps", "query") from None
        raise ToolError(400, f"SQL error: {e}", "query") from None

def _finite_rows(rows, what: str) -> None:
    "ToolError 422 if a value is a non-finite REAL (1e999 is +inf in SQLite): JSON has no form for it, and a state holding one cannot be hashed."
    for r in rows:
        for v in r:
            if type(v) is float and (v != v or v in (float("inf"), float("-inf"))):
                raise ToolError(422, f"{what} holds the non-finite number {v!r}, which has no JSON form", "query")

def _run(con: sqlite3.Connection, query: str):
    _TICKS.n = 0
    con.set_progress_handler(_interrupt, 10_000)      # every ~10k virtual-machine steps: bounded work per call
    try: return con.execute(query)
    except sqlite3.IntegrityError as e: raise ToolError(409, f"constraint failed: {e}", "query") from None
    except sqlite3.OperationalError as e:
        msg = str(e)
        if "interrupted" in msg: raise ToolError(504, f"the query ran past its work budget of {_MAX_TICKS * 10_000:,} SQLite steps", "query") from None
        if msg.startswith(("no such table", "no such view")): raise ToolError(404, f"{msg} (see list_tables)", "query") from None
        if "already exists" in msg: raise ToolError(409, msg, "query") from None
        if "readonly" in msg or "query_only" in msg: raise ToolError(400, "read_query cannot change the database; use write_query", "query") from None
        raise ToolError(400, f"SQL error: {msg}", "query") from None
    except (sqlite3.ProgrammingError, sqlite3.Warning) as e: raise ToolError(400, f"{e} (one statement per call)", "query") from None


# --- tools ----------------------------------------------------------------------------------------
@service.tool(read_only=True)
def read_query(s: SqliteState,
               query: str,  # one SELECT statement (a WITH ... SELECT is fine)
              ) -> list[dict]:
    "Run a SELECT query and return its rows as objects (column name -> value), in the order the query gives."
    if _kind(query)[0] not in ("SELECT", "WITH"): raise ToolError(400, f"read_query runs SELECT statements only, got {query.strip()[:40]!r}", "query")
    cols, rows = _select(s, query)
    _finite_rows(rows, "the result")
    out = [dict(zip(cols, r)) for r in rows]
    if any(isinstance(v, (bytes, bytearray, memoryview)) for r in out for v in r.values()):
        raise ToolError(422, "the result holds BLOB values, which have no JSON form; select hex(column) instead", "query")
    return out

@service.tool
def write_query(s: SqliteState,
                query: str,  # one INSERT, UPDATE, DELETE or REPLACE statement
               ) -> dict:
    "Run an INSERT, UPDATE or DELETE statement; returns the number of affected rows."
    if _kind(query)[0] not in ("INSERT", "UPDATE", "DELETE", "REPLACE"):
        raise ToolError(400, f"write_query runs INSERT, UPDATE, DELETE or REPLACE only, got {query.strip()[:40]!r}", "query")
    con = _database(s)
    cur, written = _run_write(con, query, s)
    n = cur.rowcount
    _read_back(con, s, written)
    return {"affected_rows": n}

@service.tool
def create_table(s: SqliteState,
                 query: str,  # one CREATE TABLE statement
                ) -> dict:
    "Create a new table with a CREATE TABLE statement."
    if _kind(query) != ("CREATE", "TABLE"): raise ToolError(400, f"create_table runs CREATE TABLE statements only, got {query.strip()[:40]!r}", "query")
    if re.search(r"\bWITHOUT\s+ROWID\b", query, re.I): raise ToolError(422, "WITHOUT ROWID tables are not supported here", "query")
    con = _database(s)
    before = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    _, written = _run_write(con, query, s)
    _read_back(con, s, written)
    new = sorted({r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} - before - {"sqlite_sequence"})
    return {"created": new[0] if new else None}

@service.tool(read_only=True)
def list_tables(s: SqliteState) -> list[str]:
    "List the tables, in the order they were created."
    return [o.id for o in sorted(scan(s, "objects"), key=lambda o: o.seq) if o.type == "table"]

@service.tool(read_only=True)
def describe_table(s: SqliteState,
                   table_name: str,  # name of the table to describe
                  ) -> list[dict]:
    "The columns of a table: name, declared type, NOT NULL, default and primary-key position."
    o = read(s, "objects", table_name)
    if o is None or o.type != "table": raise ToolError(404, f"no table named table_name={table_name!r} (see list_tables)", "table_name")
    with _LOCK:
        cols = _reader(s).execute(f"PRAGMA table_info({_q(table_name)})").fetchall()
    return [{"cid": c[0], "name": c[1], "type": c[2], "notnull": bool(c[3]), "default": c[4], "pk": c[5]} for c in cols]

@service.tool
def append_insight(s: SqliteState,
                   insight: str,  # a business insight found in the data, one or two sentences
                  ) -> dict:
    "Add a business insight to the memo; returns the memo with every insight so far."
    if not insight.strip(): raise ToolError(422, "insight must not be empty", "insight")
    i = s.new_id("ins")
    put(s, "insights", i, Insight(id=i, text=insight.strip(), created=s.tick()))
    return {"id": i, "memo": [x.text for x in sorted(scan(s, "insights"), key=lambda x: (x.created, x.id))]}


# --- fixture ------------------------------------------------------------------------------------
_SCHEMA = [
    "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT UNIQUE NOT NULL, city TEXT, state TEXT, signup_date TEXT NOT NULL)",
    "CREATE TABLE products (id INTEGER PRIMARY KEY, sku TEXT UNIQUE NOT NULL, name TEXT NOT NULL, category TEXT NOT NULL, price REAL NOT NULL CHECK (price >= 0), stock INTEGER NOT NULL DEFAULT 0)",
    "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), order_date TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('open', 'shipped', 'cancelled')), total REAL NOT NULL)",
    "CREATE TABLE order_items (order_id INTEGER NOT NULL REFERENCES orders(id), product_id INTEGER NOT NULL REFERENCES products(id), quantity INTEGER NOT NULL CHECK (quantity > 0), unit_price REAL NOT NULL, PRIMARY KEY (order_id, product_id))",
    "CREATE TABLE projects (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, code TEXT, venue TEXT, owner_email TEXT, status TEXT NOT NULL DEFAULT 'active')",
    "CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL)",
    "CREATE INDEX idx_orders_customer ON orders (customer_id)",
    "CREATE VIEW open_orders AS SELECT o.id, c.name AS customer, o.order_date, o.total FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'open'",
]
_CATEGORIES = {"office": ["Stapler", "Desk Organizer", "Whiteboard", "Notebook Pack", "Label Maker", "Monitor Arm"],
               "electronics": ["USB-C Hub", "Webcam", "Headset", "Portable SSD", "Keyboard", "Mouse", "Docking Station"],
               "kitchen": ["Coffee Beans", "Tea Sampler", "Water Filter", "Mug Set", "Snack Box"],
               "furniture": ["Task Chair", "Standing Desk", "Bookshelf", "Filing Cabinet", "Lamp"]}

@service.fixture
def fixture(seed: int) -> SqliteState:
    "About 1,300 rows: 150 customers, 40 products, 300 orders with their items, 30 projects, 20 notes (dates before EPOCH)."
    return _build(seed).model_copy(deep=True)

@functools.lru_cache(maxsize=8)
def _build(seed: int) -> SqliteState:
    w, rng, fk = make_world(seed), service_rng("sqlite", seed), service_faker("sqlite", seed)
    con = sqlite3.connect(":memory:", isolation_level=None)
    for q in _SCHEMA[:6]: con.execute(q)
    emails = set()
    for i in range(1, 151):
        p = w.people[i - 1] if i <= len(w.people) else None
        name = p.name if p else fk.name()
        email = p.email if p else f"{re.sub(r'[^a-z]', '', name.lower())}{rng.randint(1, 999)}@{fk.free_email_domain()}"
        while email in emails: email = f"x{rng.randint(1000, 9999)}{email}"
        emails.add(email)
        place = rng.choice(w.places)
        when = (EPOCH - timedelta(days=rng.randint(30, 700))).date().isoformat()
        con.execute("INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?)", (i, name, email, place.name, place.state, when))
    pid = 0
    for cat, names in _CATEGORIES.items():
        for n in names:
            for variant in rng.sample(["Basic", "Pro", "Max"], 2):
                pid += 1
                if pid > 40: break
                con.execute("INSERT INTO products VALUES (?, ?, ?, ?, ?, ?)",
                            (pid, f"{cat[:3].upper()}-{1000 + pid}", f"{n} {variant}", cat, round(rng.uniform(4, 450), 2), rng.randint(0, 200)))
    prices = dict(con.execute("SELECT id, price FROM products"))
    for oid in range(1, 301):
        items = rng.sample(sorted(prices), rng.randint(1, 4))
        qty = {p: rng.randint(1, 5) for p in items}
        total = round(sum(prices[p] * qty[p] for p in items), 2)
        when = (EPOCH - timedelta(days=rng.randint(1, 180))).date().isoformat()
        con.execute("INSERT INTO orders VALUES (?, ?, ?, ?, ?)", (oid, rng.randint(1, 150), when, rng.choice(["open", "shipped", "shipped", "cancelled"]), total))
        con.executemany("INSERT INTO order_items VALUES (?, ?, ?, ?)", [(oid, p, qty[p], prices[p]) for p in items])
    for i, topic in enumerate(list(w.topics) + [fk.catch_phrase().lower() for _ in range(20)], 1):
        if i > 30: break
        con.execute("INSERT INTO projects (id, name, code, venue, owner_email, status) VALUES (?, ?, ?, ?, ?, ?)",
                    (i, topic, f"{topic.split()[0].lower()}-{rng.randint(100, 999)}", rng.choice(w.places).label, rng.choice(w.people).email,
                     rng.choice(["active", "active", "paused", "done"])))
    for i in range(20):
        when = (EPOCH - timedelta(days=rng.randint(1, 60), minutes=rng.randint(0, 1440))).strftime("%Y-%m-%dT%H:%M:%SZ")
        con.execute("INSERT INTO notes (topic, body, created_at) VALUES (?, ?, ?)", (rng.choice(w.topics), fk.sentence(nb_words=12), when))
    for q in _SCHEMA[6:]: con.execute(q)
    s = SqliteState(seed=seed)
    _read_back(con, s)
    return s


# --- step templates -----------------------------------------------------------------------------
def _lit(v: str) -> str: return "'" + str(v).replace("'", "''") + "'"

_PROJECT_PHRASE = {"key": "the project code stored for it in the database", "place": "the venue stored for it in the database"}
_WHAT = {"key": "project code", "place": "venue"}

def _plant_project(ctx, value, kind: str, nxt: str) -> None:
    "Plant a project named `value` whose row holds `nxt` (its code for a key, its venue for a place), and make the reference's SELECT that reads it back (the `read` and `log` steps)."
    def plant(s: SqliteState):
        rowid = max((r.rowid for r in scan(s, "rows") if r.table == "projects"), default=0) + 1
        vals = {"id": rowid, "name": str(value), "code": nxt if kind == "key" else None, "venue": nxt if kind == "place" else None,
                "owner_email": ctx.world.me.email, "status": "active"}
        put(s, "rows", f"projects:{rowid}", Row(id=f"projects:{rowid}", table="projects", rowid=rowid, values=vals))
    ctx.plant("sqlite", plant)
    col = "code" if kind == "key" else "venue"
    got = ctx.call("read_query", query=f"SELECT {col} FROM projects WHERE name = {_lit(value)}")
    assert got and got[0][col] == nxt

@planted_record_step(service, _PROJECT_PHRASE)
def read_step(ctx, value, kind, nxt, what):
    "Plant a project named `value` whose row gives the next fact; the agent finds it with a SELECT."
    _plant_project(ctx, value, kind, nxt)
    return (f"In the company database, find the project named {ctx.in_phrase} and tell me its {what}.",
            f"In the company database, look up the {what} of the project named {ctx.in_phrase}.")

@add_step(service, "note", needs=("key", "place", "coords", "forecast", "ref"), writes=True)
def note_step(ctx, value, want):
    "Insert a row into the notes table whose body carries `value`."
    topic = ctx.label("Note")
    ctx.call("write_query", query=f"INSERT INTO notes (topic, body, created_at) VALUES ({_lit(topic)}, {_lit(f'Recorded: {value}')}, '2025-03-03T09:00:00Z')")
    crit = [ctx.criterion("rows", {"table": "notes", "values.topic": topic}, "values.body", "contains", str(value))]
    return Visit(f'Add a row to the notes table of the company database with the topic "{topic}" and a body that records {ctx.in_phrase}.',
                 criteria=crit)

@add_step(service, "log", needs=("key",), reveals=("key", "place"), writes=True)
def log_step(ctx, value, want):
    "Look up the project named `value` (planted, as in `read`) and log the lookup as a row of the notes table; a later visit may re-read that row (`amend`)."
    kind, nxt = reveal_value(ctx, want)
    _plant_project(ctx, value, kind, nxt)
    topic = ctx.label("Log")
    ctx.call("write_query", query=f"INSERT INTO notes (topic, body, created_at) VALUES ({_lit(topic)}, {_lit(f'Looked up {value}.')}, '2025-03-03')")
    if hasattr(ctx, "memory"): ctx.memory["sqlite.log"] = topic
    crit = [ctx.criterion("rows", {"table": "notes", "values.topic": topic}, "values.body", "contains", str(value))]
    return Visit(f'In the company database, look up the {_WHAT[kind]} of the project named {ctx.in_phrase}, and log the lookup as a row of the notes '
                 f'table with the topic "{topic}", dated March 3, 2025, and a body that names that project.', reveals=nxt, reveals_phrase=_PROJECT_PHRASE[kind], criteria=crit)

@add_step(service, "amend", needs=("key", "place", "coords", "forecast", "ref"), reveals=("ref",), writes=True)
def amend_step(ctx, value, want):
    """On a later visit: add `value` to the note the agent logged earlier (`log`) and read back the number the database
    gave that note. write_query reports only a row count, so that number is in no observation until the agent re-reads
    its own row: the revisit is needed because the agent's own earlier write made what must now be read."""
    topic = ctx.memory["sqlite.log"]                      # KeyError (no `log` visit before): the planner never asks for that
    ctx.call("write_query", query=f"UPDATE notes SET body = body || {_lit(f' Then: {value}.')} WHERE topic = {_lit(topic)}")
    crit = [ctx.criterion("rows", {"table": "notes", "values.topic": topic}, "values.body", "contains", str(value))]
    text = f'Back in the company database, add {ctx.in_phrase} to the body of the "{topic}" note you logged there earlier'
    if want is None: return Visit(text + ".", criteria=crit)
    got = ctx.call("read_query", query=f"SELECT id FROM notes WHERE topic = {_lit(topic)}")
    assert len(got) == 1
    return Visit(text + ", then look up the number the database assigned to that note.", reveals=str(got[0]["id"]),
                 reveals_phrase="the number of that note", criteria=crit)

amend_step.after = "log"      # the planner puts `amend` only on a revisit that follows a `log` visit (author.step_after)
log_step.then = "amend"       # ... and `log` only where a later visit re-reads that note with `amend` (author.step_then)


# --- scenario beats (compoworld_nb.scenario) ------------------------------------------------------
from compoworld_nb.steps import add_beat

@add_beat(service, "stock")
def stock_beat(ctx, category: str) -> list[dict]:
    "Read every product of `category` with its stock (the reference's SELECT); `[{id, name, stock}]` in id order, as observed."
    got = ctx.call("read_query", query=f"SELECT id, name, stock FROM products WHERE category = {_lit(category)} ORDER BY id")
    assert got, f"no products in category {category!r}"
    return [{"id": r["id"], "name": r["name"], "stock": r["stock"]} for r in got]

stock_beat.categories = lambda ctx: sorted({r.values["category"] for r in ctx.state("sqlite").rows.values() if r.table == "products"})

@add_beat(service, "restock")
def restock_beat(ctx, ids: list, add: int) -> list[dict]:
    "Add `add` units to the stock of each product in `ids` (one UPDATE); one `{id, collection, where, field}` selector per product."
    ctx.call("write_query", query=f"UPDATE products SET stock = stock + {int(add)} WHERE id IN ({', '.join(str(int(i)) for i in ids)})")
    return [{"id": i, "collection": "rows", "where": {"table": "products", "values.id": i}, "field": "values.stock"} for i in ids]

def _restock_mistake(ctx, pid: int, add: int) -> dict:
    "The plausible mistake a product left alone guards against: restocking it too."
    return {"tool": "sqlite.write_query", "arguments": {"query": f"UPDATE products SET stock = stock + {int(add)} WHERE id = {int(pid)}"}}
restock_beat.mistake = _restock_mistake
