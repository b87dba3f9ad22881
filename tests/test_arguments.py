"""Issue 21: the argument boundary of every tool of every service. Values nested thousands of levels deep, text with
an unpaired surrogate, NaN/inf, integers past 64 bits, over-long text: a 400 observation that names the argument,
and the very same state object back (nothing half-written), before any tool code runs."""
import math, time
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
import sample_services
from compoworld_nb.core import state_hash
from compoworld_nb.service import ARG_LIMITS, bound_arguments

LIB = sample_services.load_library()
TOOLS = [(s, t) for s in LIB for t in LIB[s].tools]
S0 = {s: LIB[s].initial_state(0) for s in LIB}


def nest(v, depth: int, kind: str):
    for _ in range(depth): v = [v] if kind == "list" else {"k": v}
    return v


def first_param(svc, tool) -> str:
    props = LIB[svc].tools[tool].parameters.get("properties") or {}
    return next(iter(props), "x")


bad_leaf = st.one_of(
    st.builds(lambda a, s, b: a + s + b, st.text(max_size=5), st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), st.text(max_size=5)),
    st.sampled_from([math.nan, math.inf, -math.inf, float("1e999")]),
    st.integers(min_value=2**63, max_value=2**200).flatmap(lambda i: st.sampled_from([i, -i])),
    st.integers(min_value=ARG_LIMITS["chars"] + 1, max_value=ARG_LIMITS["chars"] + 50).map(lambda n: "é" * n),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool=st.sampled_from(TOOLS), leaf=bad_leaf, depth=st.integers(0, 5), kind=st.sampled_from(["list", "dict"]))
def test_bad_leaves_anywhere_are_a_400_and_change_nothing(tool, leaf, depth, kind):
    svc, name = tool
    arg = first_param(svc, name)
    s0 = S0[svc]
    s1, o = LIB[svc].call(s0, name, {arg: nest(leaf, depth, kind)})
    assert s1 is s0 and o["ok"] is False and o["error"]["code"] == 400 and o["error"]["argument"] == arg, o


@settings(max_examples=40, deadline=None)
@given(tool=st.sampled_from(TOOLS), depth=st.integers(ARG_LIMITS["depth"], 5000), kind=st.sampled_from(["list", "dict"]))
def test_deep_nesting_is_a_400_not_a_recursion_error(tool, depth, kind):
    svc, name = tool
    arg = first_param(svc, name)
    s1, o = LIB[svc].call(S0[svc], name, {arg: nest("x", depth, kind)})
    assert s1 is S0[svc] and o["error"]["code"] == 400 and "nested more than" in o["error"]["message"], o


def test_limits_are_exact():
    assert bound_arguments({"a": nest(1, ARG_LIMITS["depth"] - 1, "list")}) is None
    assert bound_arguments({"a": nest(1, ARG_LIMITS["depth"], "list")})["error"]["code"] == 400
    assert bound_arguments({"a": "x" * ARG_LIMITS["chars"], "b": 2**63 - 1, "c": -(2**63 - 1), "d": 1e308, "e": "x\U0001F600y"}) is None
    assert bound_arguments({"a": list(range(ARG_LIMITS["items"]))})["error"]["message"] == f"arguments hold more than {ARG_LIMITS['items']} values"
    assert bound_arguments({"a": {1: 2}})["error"]["message"] == "argument 'a': an object key must be text, got int"
    assert bound_arguments({"a": {1, 2}})["error"]["message"] == "argument 'a': a set is not a JSON value"


# what the issue found, one by one
@pytest.mark.parametrize("svc,tool,args", [
    ("sqlite", "append_insight", {"insight": "x\udfffy"}),
    ("filesystem", "create_directory", {"path": "x\udfffy"}),
    ("filesystem", "write_file", {"path": "a.txt", "content": "x\udfffy"}),
    ("crm", "create_deal", {"amount": math.nan}),
    ("crm", "create_deal", {"amount": float("1e999")}),
])
def test_found_inputs_are_refused(svc, tool, args):
    if tool not in LIB[svc].tools: pytest.skip(f"{svc} has no {tool}")
    s1, o = LIB[svc].call(S0[svc], tool, args)
    assert s1 is S0[svc] and o["error"]["code"] == 400, o
    state_hash(s1)                                              # still hashable


def test_sqlite_non_finite_numbers_never_enter_state_or_a_reply():
    sq, s0 = LIB["sqlite"], S0["sqlite"]
    s1, o = sq.call(s0, "read_query", {"query": "SELECT 1e999 AS x"})
    assert s1 is s0 and o["error"]["code"] == 422 and "non-finite" in o["error"]["message"]
    s1, o = sq.call(s0, "write_query", {"query": "UPDATE products SET price = 1e999 WHERE id = 1"})
    assert s1 is s0 and o["error"]["code"] == 422
    assert sq.call(s0, "read_query", {"query": "SELECT 1e308 AS x"})[1] == {"ok": True, "data": [{"x": 1e308}]}


def test_sqlite_query_that_never_ends_is_a_504_within_its_budget():
    sq, s0 = LIB["sqlite"], S0["sqlite"]
    q = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
    s1, o = sq.call(s0, "read_query", {"query": q})
    assert s1 is s0 and o["error"]["code"] == 504 and o["error"]["argument"] == "query"
    s1, o = sq.call(s0, "write_query", {"query": "INSERT INTO notes (topic, body, created_at) " + q.replace("count(*)", "'t', 'b', x")})
    assert s1 is s0 and o["error"]["code"] == 504
    assert sq.call(s0, "read_query", {"query": "SELECT count(*) AS n FROM notes"})[1]["ok"]   # the cached connection still works


@settings(max_examples=200, deadline=None)
@given(pat=st.text(alphabet="ab*?/.", min_size=1, max_size=12), path=st.text(alphabet="ab.", min_size=1, max_size=6).flatmap(
    lambda a: st.lists(st.text(alphabet="ab.", min_size=1, max_size=6), max_size=3).map(lambda r: "/".join([a, *r]))))
def test_glob_matches_the_segment_semantics(pat, path):
    "The linear-time matcher against a regex written from the documented rules (whole-segment ** only)."
    import re
    from sample_services.filesystem import _glob
    segs, out = pat.split("/"), ""
    rx = []
    for i, sgm in enumerate(segs):
        last = i == len(segs) - 1
        if sgm == "**": rx.append(".+" if last else "(?:[^/]+/)*"); continue
        part = "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in sgm)
        rx.append(part + ("" if last else "/"))
    want = re.fullmatch("".join(rx), path) is not None
    assert _glob(pat)(path) == want


def test_glob_patterns_that_backtracked_are_answered():
    fs, s0 = LIB["filesystem"], S0["filesystem"]
    s1, o = fs.call(s0, "write_file", {"path": "a" * 40, "content": "x"})
    assert o["ok"]
    from sample_services.kit import QUERY_CHARS
    longest = "*a" * ((QUERY_CHARS - 2) // 2) + "*b"          # the longest such pattern within the documented limit
    assert len(longest) <= QUERY_CHARS
    for pat, n in (("*a" * 7 + "*b", 0), (longest, 0), ("*a" * 20, 1)):
        o = fs.call(s1, "search_files", {"path": s0.root, "pattern": pat})[1]
        assert o["ok"] and sum(p.endswith("/" + "a" * 40) for p in o["data"]) == n
    o = fs.call(s1, "search_files", {"path": s0.root, "pattern": "ü" * (QUERY_CHARS + 1)})[1]
    assert o["error"]["code"] == 400 and o["error"]["argument"] == "pattern"
    assert f"at most {QUERY_CHARS} characters" in o["error"]["message"]


@pytest.mark.parametrize("args,needle", [
    ({"start": "2025-03-09T02:30:00", "end": "2025-03-09T03:30:00", "timeZone": "America/Chicago"}, "does not exist in America/Chicago"),
    ({"start": "2025-03-28T02:30:00", "end": "2025-03-28T03:00:00", "timeZone": "Asia/Jerusalem"}, "does not exist in Asia/Jerusalem"),
    ({"start": "2025-03-10T10:00:00", "end": "2025-03-10T11:00:00", "timeZone": "localtime"}, "is not an IANA time zone"),
    ({"start": '{"dateTime": "2025-03-10T10:00:00", "timeZone": "localtime"}', "end": "2025-03-10T11:00:00"}, "is not an IANA time zone"),
])
def test_calendar_refuses_times_that_do_not_exist_and_the_host_zone(args, needle):
    c, s0 = LIB["calendar"], S0["calendar"]
    s1, o = c.call(s0, "create-event", {"calendarId": "primary", "summary": "x", **args})
    assert s1 is s0 and o["error"]["code"] == 422 and needle in o["error"]["message"], o


def test_calendar_fall_back_hour_and_utc_spelling_are_accepted():
    c, s0 = LIB["calendar"], S0["calendar"]
    s1, o = c.call(s0, "create-event", {"calendarId": "primary", "summary": "x", "start": "2025-11-02T01:30:00", "end": "2025-11-02T02:30:00",
                                        "timeZone": "America/Chicago"})
    assert o["ok"] and o["data"]["start"]["dateTime"] == "2025-11-02T01:30:00-05:00"
