"""SQLite: a small company database queried with real SQL.

Tool names and parameters follow the reference SQLite MCP server (`specs/mcp/sqlite.json`): read_query,
write_query, create_table, list_tables, describe_table, append_insight. The state is typed (schema objects,
one record per table row, insights); every call materialises it into an in-memory `sqlite3` database, runs the
statement there with the real engine (types, constraints, foreign keys, indexes, views and triggers behave as
in SQLite) and, after a write, reads the tables back into the typed state. Rows keep their rowids, and
AUTOINCREMENT counters are kept, so nothing about the database changes between calls except what SQL changed.

Only JSON scalars are stored (INTEGER, REAL, TEXT, NULL); a statement that would store a BLOB is refused.
"""
from __future__ import annotations
import functools, re, sqlite3
from datetime import timedelta
from typing import Literal, Optional, Union
from compoworld_nb.core import EPOCH, ToolError
from compoworld_nb.service import Record, State, Service, Visit, add_step
from .world import make_world, service_rng, service_faker, reveal_value

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
    "The state as an in-memory database: tables, rows (with their rowids), counters, then indexes, views and triggers."
    con = sqlite3.connect(":memory:", isolation_level=None)
    con.execute("PRAGMA foreign_keys = OFF")
    objs = sorted(dict.values(s.objects), key=lambda o: o.seq)
    by_table: dict[str, list] = {}
    for r in dict.values(s.rows): by_table.setdefault(r.table, []).append(r)
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

def _read_back(con: sqlite3.Connection, s: SqliteState) -> None:
    "Write the database's schema, rows and counters into `s`, replacing only records that changed."
    master = con.execute("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid").fetchall()
    old_seq = {o.id: o.seq for o in dict.values(s.objects)}
    nxt = max(old_seq.values(), default=0) + 1
    objects = {}
    for typ, name, tbl, sql in master:
        if name in old_seq: seq = old_seq[name]
        else: seq, nxt = nxt, nxt + 1
        objects[name] = SqlObject(id=name, type=typ, tbl_name=tbl, sql=sql, seq=seq)
    rows = {}
    for name, o in objects.items():
        if o.type != "table": continue
        cur = con.execute(f"SELECT rowid, * FROM {_q(name)}")
        cols = [d[0] for d in cur.description][1:]
        for rec in cur:
            vals = dict(zip(cols, rec[1:]))
            bad = next((c for c, v in vals.items() if isinstance(v, (bytes, bytearray, memoryview))), None)
            if bad: raise ToolError(422, f"column {name}.{bad} would hold a BLOB; only INTEGER, REAL, TEXT and NULL values are stored", "query")
            rows[f"{name}:{rec[0]}"] = (name, rec[0], vals)
    for k, o in objects.items():
        old = dict.get(s.objects, k)
        if old is None or old.model_dump() != o.model_dump(): s.objects[k] = o
    for k in [k for k in dict.keys(s.objects) if k not in objects]: del s.objects[k]
    for k, (t, rowid, vals) in rows.items():
        old = dict.get(s.rows, k)
        if old is None or old.values != vals or list(old.values) != list(vals): s.rows[k] = Row(id=k, table=t, rowid=rowid, values=vals)
    for k in [k for k in dict.keys(s.rows) if k not in rows]: del s.rows[k]
    seqs = {}
    if con.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").fetchone():
        seqs = {n: v for n, v in con.execute("SELECT name, seq FROM sqlite_sequence")}
    if seqs != s.sequences: s.sequences = seqs

_FIRST = re.compile(r"^\s*(?:(?:--[^\n]*\n)|(?:/\*.*?\*/)|\s)*(\w+)(?:\s+(\w+))?", re.S)

def _kind(query: str) -> tuple[str, str]:
    m = _FIRST.match(query)
    return ((m.group(1) or "").upper(), (m.group(2) or "").upper()) if m else ("", "")

def _run(con: sqlite3.Connection, query: str):
    try: return con.execute(query)
    except sqlite3.IntegrityError as e: raise ToolError(409, f"constraint failed: {e}", "query") from None
    except sqlite3.OperationalError as e:
        msg = str(e)
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
    con = _connect(s)
    con.execute("PRAGMA query_only = ON")
    cur = _run(con, query)                                 # a SELECT always describes its columns
    cols = [d[0] for d in cur.description]
    out = [dict(zip(cols, r)) for r in cur.fetchall()]
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
    con = _connect(s)
    cur = _run(con, query)
    n = cur.rowcount
    _read_back(con, s)
    return {"affected_rows": n}

@service.tool
def create_table(s: SqliteState,
                 query: str,  # one CREATE TABLE statement
                ) -> dict:
    "Create a new table with a CREATE TABLE statement."
    if _kind(query) != ("CREATE", "TABLE"): raise ToolError(400, f"create_table runs CREATE TABLE statements only, got {query.strip()[:40]!r}", "query")
    if re.search(r"\bWITHOUT\s+ROWID\b", query, re.I): raise ToolError(422, "WITHOUT ROWID tables are not supported here", "query")
    con = _connect(s)
    before = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    _run(con, query)
    _read_back(con, s)
    new = sorted({r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} - before - {"sqlite_sequence"})
    return {"created": new[0] if new else None}

@service.tool(read_only=True)
def list_tables(s: SqliteState) -> list[str]:
    "List the tables, in the order they were created."
    return [o.id for o in sorted(dict.values(s.objects), key=lambda o: o.seq) if o.type == "table"]

@service.tool(read_only=True)
def describe_table(s: SqliteState,
                   table_name: str,  # name of the table to describe
                  ) -> list[dict]:
    "The columns of a table: name, declared type, NOT NULL, default and primary-key position."
    o = dict.get(s.objects, table_name)
    if o is None or o.type != "table": raise ToolError(404, f"no table named table_name={table_name!r} (see list_tables)", "table_name")
    con = _connect(s)
    return [{"cid": c[0], "name": c[1], "type": c[2], "notnull": bool(c[3]), "default": c[4], "pk": c[5]}
            for c in con.execute(f"PRAGMA table_info({_q(table_name)})")]

@service.tool
def append_insight(s: SqliteState,
                   insight: str,  # a business insight found in the data, one or two sentences
                  ) -> dict:
    "Add a business insight to the memo; returns the memo with every insight so far."
    if not insight.strip(): raise ToolError(422, "insight must not be empty", "insight")
    i = s.new_id("ins")
    s.insights[i] = Insight(id=i, text=insight.strip(), created=s.tick())
    return {"id": i, "memo": [x.text for x in sorted(dict.values(s.insights), key=lambda x: (x.created, x.id))]}


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

@add_step(service, "read", needs=("key",), reveals=("key", "place"))
def read_step(ctx, value, want):
    "Plant a project named `value` whose row gives the next fact; the agent finds it with a SELECT."
    kind, nxt = reveal_value(ctx, want)
    def plant(s: SqliteState):
        rowid = max((r.rowid for r in s.rows.values() if r.table == "projects"), default=0) + 1
        vals = {"id": rowid, "name": str(value), "code": nxt if kind == "key" else None, "venue": nxt if kind == "place" else None,
                "owner_email": ctx.world.me.email, "status": "active"}
        s.rows[f"projects:{rowid}"] = Row(id=f"projects:{rowid}", table="projects", rowid=rowid, values=vals)
        return rowid
    ctx.plant("sqlite", plant)
    col = "code" if kind == "key" else "venue"
    got = ctx.call("read_query", query=f"SELECT {col} FROM projects WHERE name = {_lit(value)}")
    assert got and got[0][col] == nxt
    what = "project code" if kind == "key" else "venue"
    phrase = "the project code stored for it in the database" if kind == "key" else "the venue stored for it in the database"
    if want is None:
        return Visit(f"In the company database, find the project named {ctx.in_phrase} and tell me its {what}.", reveals=nxt,
                     reveals_phrase=phrase, answer=True)
    return Visit(f"In the company database, look up the {what} of the project named {ctx.in_phrase}.", reveals=nxt, reveals_phrase=phrase)

@add_step(service, "note", needs=("key", "place", "coords", "forecast", "ref"), writes=True)
def note_step(ctx, value, want):
    "Insert a row into the notes table whose body carries `value`."
    topic = ctx.label("Note")
    ctx.call("write_query", query=f"INSERT INTO notes (topic, body, created_at) VALUES ({_lit(topic)}, {_lit(f'Recorded: {value}')}, '2025-03-03T09:00:00Z')")
    crit = [ctx.criterion("rows", {"table": "notes", "values.topic": topic}, "values.body", "contains", str(value))]
    return Visit(f'Add a row to the notes table of the company database with the topic "{topic}" and a body that records {ctx.in_phrase}.',
                 criteria=crit)
