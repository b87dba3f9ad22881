"sqlite: real SQL over typed tables; every tool's success case and each error it can return."
import pytest
from compoworld_nb.core import state_hash
from sample_services.sqlite import service as svc, Row
from svc_testkit import check_err, check_ok


@pytest.fixture(scope="module")
def s():
    return svc.initial_state(0)

def q(s, sql): return check_ok(svc, s, "read_query", {"query": sql})[1]


def test_fixture_is_a_real_database(s):
    assert check_ok(svc, s, "list_tables", {})[1] == ["customers", "products", "orders", "order_items", "projects", "notes"]
    assert q(s, "SELECT count(*) AS n FROM customers") == [{"n": 150}]
    assert q(s, "SELECT count(*) AS n FROM orders WHERE total <= 0") == [{"n": 0}]
    # the view and the index came along
    assert {o.id for o in s.objects.values()} >= {"open_orders", "idx_orders_customer"}
    assert q(s, "SELECT count(*) AS n FROM open_orders") == q(s, "SELECT count(*) AS n FROM orders WHERE status = 'open'")

def test_read_query_sql_semantics(s):
    rows = q(s, "SELECT c.state, count(*) AS n, round(sum(o.total), 2) AS revenue FROM orders o JOIN customers c ON c.id = o.customer_id "
                "GROUP BY c.state ORDER BY n DESC, c.state LIMIT 3")
    assert len(rows) == 3 and rows[0]["n"] >= rows[1]["n"] >= rows[2]["n"] and set(rows[0]) == {"state", "n", "revenue"}
    assert q(s, "SELECT typeof(price) AS t FROM products LIMIT 1") == [{"t": "real"}]
    assert q(s, "WITH x AS (SELECT 1 AS a UNION ALL SELECT 2) SELECT sum(a) AS s FROM x") == [{"s": 3}]
    assert q(s, "SELECT NULL IS NULL AS yes, 7 / 2 AS idiv, 7 / 2.0 AS fdiv") == [{"yes": 1, "idiv": 3, "fdiv": 3.5}]

@pytest.mark.parametrize("sql,code", [("DELETE FROM notes", 400), ("SELECT * FROM nope", 404), ("SELECT 1; SELECT 2", 400),
                                      ("SELEC 1", 400), ("SELECT zeroblob(4) AS b", 422), ("SELECT * FROM notes WHERE nocol = 1", 400)])
def test_read_query_errors(s, sql, code):
    check_err(svc, s, "read_query", {"query": sql}, code, "query")

def test_read_query_cannot_write_through_a_cte(s):
    check_err(svc, s, "read_query", {"query": "WITH x AS (SELECT 1) DELETE FROM notes"}, 400, "query")

def test_write_query_updates_typed_rows(s):
    new, d = check_ok(svc, s, "write_query", {"query": "UPDATE products SET stock = stock + 5 WHERE category = 'office'"})
    n = q(s, "SELECT count(*) AS n FROM products WHERE category = 'office'")[0]["n"]
    assert d == {"affected_rows": n} and n > 0
    changed = [k for k in new.rows if new.rows[k] != s.rows[k]]
    assert len(changed) == n and all(new.rows[k].values["stock"] == s.rows[k].values["stock"] + 5 for k in changed)
    assert all(new.rows[k] is s.rows[k] or new.rows[k] == s.rows[k] for k in new.rows if k not in changed)

def test_write_query_insert_delete_and_autoincrement(s):
    new, d = check_ok(svc, s, "write_query", {"query": "INSERT INTO notes (topic, body, created_at) VALUES ('t', 'b', '2025-03-03')"})
    assert d == {"affected_rows": 1} and new.sequences["notes"] == s.sequences["notes"] + 1
    new2, _ = check_ok(svc, new, "write_query", {"query": "DELETE FROM notes WHERE topic = 't'"})
    new3, _ = check_ok(svc, new2, "write_query", {"query": "INSERT INTO notes (topic, body, created_at) VALUES ('u', 'b', '2025-03-03')"})
    ids = [r.rowid for r in new3.rows.values() if r.table == "notes"]
    assert max(ids) == s.sequences["notes"] + 2          # AUTOINCREMENT never reuses a deleted id, across calls
    assert state_hash(svc.call(new3, "write_query", {"query": "DELETE FROM notes WHERE topic = 'u'"})[0]) != state_hash(s)

def test_constraints_and_foreign_keys(s):
    busy = q(s, "SELECT customer_id FROM orders LIMIT 1")[0]["customer_id"]
    for sql, code in [(f"DELETE FROM customers WHERE id = {busy}", 409), ("INSERT INTO products (sku, name, category, price) VALUES ('X', 'x', 'y', -1)", 409),
                      ("INSERT INTO customers (id, name, email, signup_date) VALUES (1, 'a', 'b', '2025-01-01')", 409),
                      ("UPDATE orders SET status = 'lost' WHERE id = 1", 409), ("INSERT INTO nope VALUES (1)", 404),
                      ("SELECT 1", 400), ("CREATE TABLE t (a)", 400), ("INSERT INTO notes (topic, body, created_at) VALUES ('a', x'00', 'c')", 422),
                      ("UPDATE notes SET nope = 1", 400)]:
        check_err(svc, s, "write_query", {"query": sql}, code, "query")

def test_create_table_describe_and_list(s):
    new, d = check_ok(svc, s, "create_table", {"query": "CREATE TABLE visits (id INTEGER PRIMARY KEY, place TEXT NOT NULL, day TEXT DEFAULT '2025-03-03')"})
    assert d == {"created": "visits"} and check_ok(svc, new, "list_tables", {})[1][-1] == "visits"
    cols = check_ok(svc, new, "describe_table", {"table_name": "visits"})[1]
    assert [(c["name"], c["type"], c["notnull"], c["pk"]) for c in cols] == [("id", "INTEGER", False, 1), ("place", "TEXT", True, 0), ("day", "TEXT", False, 0)]
    assert cols[2]["default"] == "'2025-03-03'"
    new2, _ = check_ok(svc, new, "write_query", {"query": "INSERT INTO visits (place) VALUES ('Boston, MA')"})
    assert q(new2, "SELECT place, day FROM visits") == [{"place": "Boston, MA", "day": "2025-03-03"}]
    for sql, code in [("CREATE TABLE notes (a)", 409), ("CREATE INDEX i ON notes (topic)", 400), ("CREATE TABLE w (a PRIMARY KEY) WITHOUT ROWID", 422),
                      ("CREATE TABLE (", 400)]:
        check_err(svc, s, "create_table", {"query": sql}, code, "query")
    check_err(svc, s, "describe_table", {"table_name": "open_orders"}, 404, "table_name")
    check_err(svc, s, "describe_table", {"table_name": "nope"}, 404, "table_name")

def test_append_insight(s):
    new, d = check_ok(svc, s, "append_insight", {"insight": "Office supplies sell best in Q1."})
    new2, d2 = check_ok(svc, new, "append_insight", {"insight": "Most orders are shipped."})
    assert d2["memo"] == ["Office supplies sell best in Q1.", "Most orders are shipped."] and len(new2.insights) == 2
    check_err(svc, s, "append_insight", {"insight": "  "}, 422, "insight")

def test_round_trip_keeps_unchanged_records(s):
    "A write that changes one row leaves every other record equal (and the whole state reloads identically)."
    new, _ = check_ok(svc, s, "write_query", {"query": "UPDATE projects SET status = 'done' WHERE id = 1"})
    diff = [k for k in set(s.rows) | set(new.rows) if s.rows.get(k) != new.rows.get(k)]
    assert diff == ["projects:1"] and new.objects == s.objects and new.sequences == s.sequences

def _dump(con) -> list:
    "Everything a query can see of a database: its SQL dump (schema, rows with rowids) and the AUTOINCREMENT counters."
    rows = [(t, list(con.execute(f'SELECT rowid, * FROM "{t}" ORDER BY rowid')))
            for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'sqlite_sequence' ORDER BY name")]
    return [list(con.iterdump()), rows, list(con.execute("SELECT rowid, name, seq FROM sqlite_sequence"))]

def _derived_states(s):
    "Two states derived from `s`: `new` after three writes (an update, a delete, an AUTOINCREMENT insert) and `planted`, `s` with a project row added by hand."
    new, _ = check_ok(svc, s, "write_query", {"query": "UPDATE products SET stock = 7 WHERE id <= 3"})
    new, _ = check_ok(svc, new, "write_query", {"query": "DELETE FROM order_items WHERE order_id = 2"})
    new, _ = check_ok(svc, new, "write_query", {"query": "INSERT INTO notes (topic, body, created_at) VALUES ('t', 'b', '2025-03-03')"})
    planted = s.model_copy(); planted.rows = {**s.rows, "projects:99": Row(id="projects:99", table="projects", rowid=99,
                                              values={"id": 99, "name": "falcon-417", "code": "c-1", "venue": None, "owner_email": None, "status": "active"})}
    return new, planted

def test_cached_database_equals_a_fresh_build(s):
    "Each call's database (a copy of a cached base with the changed rows replayed) is exactly the one `_connect` builds, with connection counters at zero."
    from sample_services import sqlite as m
    new, planted = _derived_states(s)
    other = svc.initial_state(1)
    for st in (s, new, planted, other, new):
        assert _dump(m._database(st)) == _dump(m._connect(st))
        assert q(st, "SELECT changes() AS c, total_changes() AS t, last_insert_rowid() AS r") == [{"c": 0, "t": 0, "r": 0}]
    assert q(planted, "SELECT code FROM projects WHERE name = 'falcon-417'") == [{"code": "c-1"}]
    assert q(s, "SELECT count(*) AS n FROM projects WHERE name = 'falcon-417'") == [{"n": 0}]
    assert q(new, "SELECT stock FROM products WHERE id = 2") == [{"stock": 7}] != q(s, "SELECT stock FROM products WHERE id = 2")

def test_read_back_skips_only_tables_left_alone(s):
    "A write reads back only the tables it wrote (per SQLite's authorizer) and ends in exactly the state a full read-back gives."
    from compoworld_nb.service import cow_view, commit_view
    from sample_services import sqlite as m
    for sql in ["INSERT INTO notes (topic, body, created_at) VALUES ('t', 'b', '2025-03-03')", "UPDATE products SET stock = stock + 1 WHERE id < 5",
                "DELETE FROM order_items WHERE order_id = 3", "REPLACE INTO projects (id, name, status) VALUES (1, 'renamed', 'done')"]:
        new, _ = check_ok(svc, s, "write_query", {"query": sql})
        v = cow_view(s); con = m._database(v); m._run(con, sql); m._read_back(con, v); commit_view(v)   # every table read back
        assert state_hash(new) == state_hash(v)
        assert {k for k in set(s.rows) | set(new.rows) if new.rows.get(k) is not s.rows.get(k)} == \
               {k for k in set(s.rows) | set(v.rows) if v.rows.get(k) is not s.rows.get(k)}

def test_select_on_the_patched_base_equals_a_fresh_database(s):
    "A SELECT runs on the cached base inside a rolled-back transaction: the same columns, rows and row order as on a fresh build of the state, the base is left exactly as its snapshot, and errors or connection-state functions change nothing."
    from sample_services import sqlite as m
    new, planted = _derived_states(s)
    queries = ["SELECT * FROM order_items", "SELECT * FROM notes", "SELECT id, stock FROM products WHERE id < 6",
               "SELECT name, code FROM projects", "SELECT count(*) AS n, max(rowid) AS r FROM order_items",
               "SELECT * FROM open_orders LIMIT 7", "SELECT name, seq FROM sqlite_sequence ORDER BY name",
               "WITH x AS (SELECT customer_id, count(*) AS n FROM orders GROUP BY customer_id) SELECT * FROM x ORDER BY n DESC, customer_id LIMIT 5"]
    bases = {id(m._base(st, m._schema_key(st))[0][1]): m._base(st, m._schema_key(st))[0][1] for st in (s, new, planted)}
    before = {k: _dump(b) for k, b in bases.items()}
    for st in (s, new, planted, new, s):
        for sql in queries:
            cur = m._connect(st).execute(sql)
            assert m._select(st, sql) == ([d[0] for d in cur.description], cur.fetchall()), sql
    assert id(planted) not in m._READERS                           # no fresh connection was made for those reads
    assert q(new, "SELECT changes() AS c, total_changes() AS t, last_insert_rowid() AS r") == [{"c": 0, "t": 0, "r": 0}]
    assert q(planted, "select Last_Insert_RowId() as r") == [{"r": 0}]
    check_err(svc, planted, "read_query", {"query": "WITH x AS (SELECT 1) DELETE FROM projects"}, 400, "query")
    check_err(svc, planted, "read_query", {"query": "SELECT * FROM projects WHERE nocol = 1"}, 400, "query")
    assert {k: _dump(b) for k, b in bases.items()} == before and not any(b.in_transaction for b in bases.values())   # bases as they were
    (snap, base, _), _ = m._base(s, m._schema_key(s))
    assert _dump(base) == _dump(m._connect(s)) and snap.holds(s.rows)           # ... which is exactly the fixture's database
    assert q(planted, "SELECT code FROM projects WHERE name = 'falcon-417'") == [{"code": "c-1"}]
    assert q(s, "SELECT count(*) AS n FROM projects WHERE name = 'falcon-417'") == [{"n": 0}]
