"""The verdict on a model-written draft comes from this process (issue 21): the module is served by a sandboxed host,
the test file is graded here over `TEST_SUBSET` and never runs as Python. Each adversarial draft below (a fake report,
an early `os._exit(0)`, patched pytest internals, descriptors hunted with `os.fstat`, a patched `sys.modules`, a test
file that tries to run code) must FAIL `check_module`, `check_draft` and `load_service_file`, and nothing of it may run
in this process."""
import os, sys
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from compoworld_nb.sandbox import Limits, ServiceHost, HostError, namespaces_available
from compoworld_nb.grading import check_module, grade_tests
if not namespaces_available(): os.environ["COMPOWORLD_SANDBOX"] = "hook"
from compoworld_nb.synthesize import check_draft, load_service_file

LIM = Limits(wall_s=20, cpu_s=10, memory_mb=768)
SPEC = {"server": "kv", "tools": [{"name": "put", "description": "Store a value.", "inputSchema": {"type": "object",
        "properties": {"key": {"type": "string", "description": "the key"}, "value": {"type": "string", "description": "the value"}},
        "required": ["key", "value"]}}]}
KV = '''
from compoworld_nb.core import ToolError
from compoworld_nb.service import Record, State, Service
class Entry(Record):
    key: str
    value: str
class KvState(State):
    entries: dict[str, Entry] = {}
service = Service("kv", "utilities", KvState, "A key-value store.", spec="kv")
@service.tool
def put(s: KvState,
        key: str,    # the key
        value: str,  # the value
       ) -> dict:
    "Store a value."
    s.entries[key] = Entry(key=key, value=value); return s.entries[key]
'''
GOOD_TESTS = '''from kv import service
def test_put():
    s0 = service.initial_state(0)
    s1, o = service.call(s0, "put", {"key": "a", "value": "1"})
    assert o["ok"] and s1.entries["a"].value == "1"
def test_missing():
    s0 = service.initial_state(0)
    s1, o = service.call(s0, "put", {"key": "a"})
    assert s1 is s0 and o["error"]["code"] == 400
'''
FALSE_TEST = "from kv import service\ndef test_it():\n    assert False\n"
PASSING = '{"exit_code": 0, "passed": 5, "failed": 0, "errors": 0, "tests": [], "output": "5 passed"}'
MARK = "/tmp/cw-verdict-owned"

# code added to the service module (it runs in the sandboxed host, at import or inside a tool)
FORGERS = {
    "fake report on every descriptor, then exit 0": f'''
import os
for fd in range(0, 256):
    try: os.fstat(fd); os.write(fd, b'{{"ok": true, "value": {PASSING}}}\\n' + b'{{"pytest": {PASSING}}}\\n')
    except OSError: pass
os._exit(0)
''',
    "exit 0 at import": "import os\nos._exit(0)\n",
    "exit 0 inside the tool call": '''
import os
@service.tool(name="put")
def put(s: KvState, key: str, value: str) -> dict:
    "Store a value."
    os._exit(0)
''',
    "patched pytest internals": '''
import sys
try:
    import _pytest.runner as r, _pytest.reports as rep
    rep.TestReport.outcome = "passed"
    r.call_and_report = lambda *a, **k: None
except Exception: pass
sys.modules["pytest"] = None
''',
    "patched sys.modules and json": '''
import sys, json
json.loads = lambda *a, **k: {"ok": True, "value": {"exit_code": 0, "passed": 1}}
json.dumps = lambda *a, **k: "{}"
for k in list(sys.modules):
    if k.startswith("compoworld_nb.sandbox"): sys.modules[k] = None
''',
    "garbage on the reply pipe": '''
import os
for fd in range(3, 64):
    try: os.fstat(fd); os.write(fd, b"\\x00\\xff not json\\n" * 100)
    except OSError: pass
''',
    "half a reply written ahead": '''
import os
for fd in range(3, 64):
    try: os.fstat(fd); os.write(fd, b'{"ok": true, "value": ')
    except OSError: pass
''',
}
# test files that try to run code of their own; every one is refused or fails, and none of it runs here
TEST_FORGERS = {
    "imports os and exits": "import os\nos._exit(0)\ndef test_x():\n    assert True\n",
    "writes a host file at import": f"open({MARK!r}, 'w').write('x')\ndef test_x():\n    assert True\n",
    "a dunder walk": "from kv import service\ndef test_x():\n    assert ().__class__.__base__.__subclasses__()\n",
    "calls open inside the test": f"from kv import service\ndef test_x():\n    open({MARK!r}, 'w')\n    assert False\n",
    "a class with tests": "class TestX:\n    def test_x(self):\n        assert True\n",
    "a decorator": "import pytest\n@pytest.mark.skip\ndef test_x():\n    assert False\n",
    "pytest.skip": "import pytest\nfrom kv import service\ndef test_x():\n    pytest.skip('no')\n    assert False\n",
    "try/except swallows the assert": "def test_x():\n    try:\n        assert False\n    except AssertionError:\n        pass\n",
    "a lambda": "def test_x():\n    f = lambda: 1\n    assert f() == 2\n",
    "eval": "def test_x():\n    eval('1')\n    assert False\n",
}


def _ok_verdict(c) -> bool:
    "What `check_draft` and `load_service_file` accept: the host finished, the module listed, every test graded passed."
    t = (c.data or {}).get("tests") or {}
    return c.ok and "error" not in (c.data or {}).get("describe", {"error": 1}) and t.get("exit_code") == 0 and t.get("passed", 0) > 0


def test_the_honest_draft_passes():
    c = check_module({"kv.py": KV, "test_kv.py": GOOD_TESTS}, "kv", limits=LIM)
    assert _ok_verdict(c) and (c.data["tests"]["passed"], c.data["tests"]["failed"]) == (2, 0)
    rec, fb = check_draft({"kv.py": KV, "test_kv.py": GOOD_TESTS}, "kv", "kv", SPEC, LIM)
    assert fb is None and rec["passed"] and rec["tests"] == {"exit_code": 0, "passed": 2, "failed": 0, "errors": 0}


@pytest.mark.parametrize("name", list(FORGERS))
def test_a_forging_module_with_assert_false_fails(name, tmp_path):
    files = {"kv.py": KV + FORGERS[name], "test_kv.py": FALSE_TEST}
    c = check_module(files, "kv", limits=LIM)
    assert not _ok_verdict(c), c
    rec, fb = check_draft(files, "kv", "kv", SPEC, LIM)
    assert fb is not None and rec["passed"] is False
    (tmp_path / "kv.py").write_text(files["kv.py"]); (tmp_path / "test_kv.py").write_text(FALSE_TEST)
    with pytest.raises(ValueError, match="did not pass the sandboxed check"): load_service_file(tmp_path / "kv.py", limits=LIM)
    assert "kv" not in sys.modules


@pytest.mark.parametrize("name", list(FORGERS))
def test_a_forging_module_with_honest_tests_never_passes_by_forging(name):
    "The same forgeries beside tests that would pass on the honest module: passing needs real replies, which they break."
    c = check_module({"kv.py": KV + FORGERS[name], "test_kv.py": GOOD_TESTS}, "kv", limits=LIM)
    if name in ("patched pytest internals",):          # pytest is not involved: the honest tests still pass on real replies
        assert _ok_verdict(c)
    else: assert not _ok_verdict(c), c


@pytest.mark.parametrize("name", list(TEST_FORGERS))
def test_a_test_file_that_runs_code_fails_and_runs_nothing_here(name):
    c = check_module({"kv.py": KV, "test_kv.py": TEST_FORGERS[name]}, "kv", limits=LIM)
    assert c.ok and not _ok_verdict(c), c.data["tests"]
    assert not os.path.exists(MARK)


def test_the_tests_never_enter_the_sandbox():
    probe = KV + "import os\nHAS_TESTS = os.path.exists('test_kv.py')\n@service.tool(read_only=True)\ndef peek(s: KvState) -> dict:\n    \"Peek.\"\n    return {'has': HAS_TESTS}\n"
    t = "from kv import service\ndef test_peek():\n    assert service.call(service.initial_state(0), 'peek', {})[1]['data']['has'] is False\n"
    c = check_module({"kv.py": probe, "test_kv.py": t}, "kv", limits=LIM)
    assert _ok_verdict(c), c.data


def test_a_violation_inside_a_call_ends_the_run_as_a_violation():
    esc = KV.replace("    s.entries[key] = Entry", "    open('/et' + 'c/passwd').read()\n    s.entries[key] = Entry")
    c = check_module({"kv.py": esc, "test_kv.py": GOOD_TESTS}, "kv", limits=LIM)
    assert c.status == "violation" and "/etc/passwd" in c.reason and not _ok_verdict(c)
    assert "the sandboxed service" in c.data["tests"]["tests"][0]["message"]


def test_a_host_that_hangs_is_stopped_at_the_wall_clock_limit():
    hang = KV.replace("    s.entries[key] = Entry", "    while True: pass\n    s.entries[key] = Entry")
    c = check_module({"kv.py": hang, "test_kv.py": GOOD_TESTS}, "kv", limits=Limits(wall_s=3, cpu_s=2, memory_mb=768))
    assert c.status == "timeout" and not _ok_verdict(c)


def test_host_requests_and_errors():
    with ServiceHost({"kv.py": KV}, "kv", limits=LIM) as host:
        h0 = host.request("init", seed=0)
        with pytest.raises(HostError, match="has no field 'secret'"): host.request("get", state=h0, name="secret")
        with pytest.raises(HostError, match="unknown request"): host.request("exec", code="1")
        assert host.request("get", state=h0, name="entries") == {}         # an error reply leaves the host serving
        with pytest.raises(HostError, match="no JSON form"): host.request("call", state=h0, tool="put", args={"key": float("nan")})
    assert host.result.status == "ok"
    with pytest.raises(HostError, match="closed"): host.request("init", seed=0)


@pytest.mark.parametrize("src,needle", [
    ("def test_x():\n    assert 1 + 1 == 3\n", "AssertionError: assert 2 == 3"),
    ("def test_x():\n    x = 'a' * 10 ** 7\n", "more than 1000000 items"),
    ("def test_x():\n    x = 2\n    while True:\n        x = x * x\n", "4096 bits"),
    ("def test_x():\n    while True:\n        pass\n", "step budget"),
    ("def f(n):\n    return f(n + 1)\ndef test_x():\n    f(0)\n", "nest more than 50 calls"),
    ("def test_x():\n    assert {'a': 1}['b']\n", "KeyError: 'b'"),
    ("def test_x():\n    assert f'{1:>99999999}'\n", "format spec"),
])
def test_the_grader_bounds_what_a_test_can_do(src, needle):
    r = grade_tests(src, "test_x.py", "kv", None, {})
    assert r["exit_code"] in (1, 2) and needle in r["output"], r["output"]


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.text(max_size=300))
def test_the_grader_never_raises_on_any_text(src):
    "Any text as a test file: a report (collection error, failure, pass, or no tests), never an exception here."
    r = grade_tests(src, "test_x.py", "kv", None, {})
    assert r["exit_code"] in (0, 1, 2, 5) and r["passed"] + r["failed"] + r["errors"] == len(r["tests"])
