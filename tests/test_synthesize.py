"""Service synthesis end to end with scripted model replies through the real openai client's transport
(`llm_author.ScriptedModel` on an httpx2 MockTransport): a first draft whose test fails, then a repair that passes;
the written file loads and its tools work. Model-written code runs only in the sandbox."""
import argparse, json, os, sys
from pathlib import Path
import pytest
from compoworld_nb.llm import LLMConfig
from compoworld_nb.llm_author import ScriptedModel
from compoworld_nb.sandbox import Limits, namespaces_available
if not namespaces_available(): os.environ["COMPOWORLD_SANDBOX"] = "hook"   # no bubblewrap: ask for the audit-hook level by name
from compoworld_nb.synthesize import (SynthesisError, check_draft, load_service_file, module_name, parse_files, read_spec,
                                      register_cli, synthesize_service)

SPEC = {"server": "kv", "tools": [
    {"name": "set_value", "description": "Store a value under a key.", "inputSchema": {"type": "object",
     "properties": {"key": {"type": "string", "description": "the key"}, "value": {"type": "string", "description": "the value"}},
     "required": ["key", "value"]}},
    {"name": "get-value", "description": "Read the value stored under a key.", "inputSchema": {"type": "object",
     "properties": {"key": {"type": "string", "description": "the key"}}, "required": ["key"]}, "annotations": {"readOnlyHint": True}}]}

SERVICE = '''# file: kv.py
import random
from compoworld_nb.core import ToolError
from compoworld_nb.service import Record, State, Service

class Entry(Record):
    key: str
    value: str

class KvState(State):
    entries: dict[str, Entry] = {}

service = Service("kv", "utilities", KvState, "A key-value store.", spec="kv")
PROBE

@service.tool
def set_value(s: KvState,
              key: str,    # the key
              value: str,  # the value
             ) -> dict:
    "Store a value under a key."
    if not key.strip(): raise ToolError(422, "key must not be empty", "key")
    s.entries[key] = Entry(key=key, value=value)
    return s.entries[key]

@service.tool(name="get-value", read_only=True)
def get_value(s: KvState,
              KEYARG: str,  # the key
             ) -> dict:
    "Read the value stored under a key."
    if KEYARG not in s.entries: raise ToolError(404, f"no entry with key={KEYARG!r}", "key")
    return s.entries[KEYARG]

@service.fixture
def fixture(seed: int) -> KvState:
    rng = random.Random(seed)
    s = KvState(seed=seed)
    for i in range(3): s.entries[f"k{i}"] = Entry(key=f"k{i}", value=str(rng.randint(0, 99)))
    return s
'''
TESTS = '''# file: test_kv.py
from kv import service

def test_set_and_get():
    s1, o = service.call(service.initial_state(0), "set_value", {"key": "a", "value": "1"})
    assert o["ok"]
    assert service.call(s1, "get-value", {"key": "a"})[1]["data"]["value"] == "1"

def test_get_missing():
    s0 = service.initial_state(0)
    s1, o = service.call(s0, "get-value", {"key": "zz"})
    assert s1 is s0
    assert o["error"]["code"] == CODE
'''
LIM = Limits(wall_s=20, cpu_s=10, memory_mb=768)


def draft(code=404, probe="", keyarg="key", tests=True) -> str:
    svc = SERVICE.replace("PROBE", probe).replace("KEYARG", keyarg)
    blocks = [svc] + ([TESTS.replace("CODE", str(code))] if tests else [])
    return "Here are the files.\n" + "\n".join(f"```python\n{b}```" for b in blocks)


def synth(tmp_path, replies, max_repairs=2):
    m = ScriptedModel(list(replies))
    rep = synthesize_service(SPEC, tmp_path / "out", client=m.client(), cfg=LLMConfig("scripted"), max_repairs=max_repairs,
                             limits=LIM, slug="kv")
    return rep, m


def test_failing_draft_then_repair_gives_a_loadable_service(tmp_path):
    rep, m = synth(tmp_path, [draft(code=400), draft(code=404)])
    assert rep.passed and len(rep.attempts) == 2 and rep.error is None
    first, second = rep.attempts
    assert first["passed"] is False and first["tests"] == {"exit_code": 1, "passed": 1, "failed": 1, "errors": 0}
    assert "assert 404 == 400" in first["feedback"] and first["conformance"] == [] and first["missing_tools"] == []
    assert second["passed"] is True and second["tests"] == {"exit_code": 0, "passed": 2, "failed": 0, "errors": 0}
    # the repair request carried the model's own draft and the test output
    assert len(m.requests) == 2
    msgs = m.requests[1]["messages"]
    assert [x["role"] for x in msgs] == ["system", "user", "assistant", "user"]
    assert "assert 404 == 400" in msgs[3]["content"] and "set_value" in msgs[1]["content"]
    # nothing model-written was imported here; the files and report are in place
    assert "kv" not in sys.modules
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == ["kv.py", "kv.synthesis.json", "test_kv.py"]
    report = json.loads((out / "kv.synthesis.json").read_text())
    assert report["passed"] is True and [a["passed"] for a in report["attempts"]] == [False, True]
    svc = load_service_file(rep.service_file)
    try:
        assert svc.name == "kv" and list(svc.tools) == ["set_value", "get-value"] and svc.tools["get-value"].read_only
        s1, o = svc.call(svc.initial_state(0), "set_value", {"key": "city", "value": "Tyler"})
        assert o["ok"] and svc.call(s1, "get-value", {"key": "city"})[1]["data"] == {"key": "city", "value": "Tyler"}
        assert svc.call(s1, "get-value", {"key": "nope"})[1]["error"]["code"] == 404
    finally:
        sys.modules.pop("kv", None)


def test_repairs_are_bounded_and_the_last_draft_is_kept_apart(tmp_path):
    rep, m = synth(tmp_path, [draft(code=400)] * 3, max_repairs=1)
    assert not rep.passed and len(rep.attempts) == 2 and len(m.requests) == 2
    assert rep.service_file is None
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["kv.draft.py", "kv.draft_tests.py", "kv.synthesis.json"]


def test_a_draft_that_reaches_outside_is_stopped_and_reported(tmp_path):
    marker = tmp_path / "marker.txt"
    probe = f"open({str(marker)[:4]!r} + {str(marker)[4:]!r}, 'w').write('escaped')"
    rep, m = synth(tmp_path, [draft(probe=probe), draft()], max_repairs=1)
    first = rep.attempts[0]
    assert first["sandbox"]["status"] == "violation" and str(marker) in first["feedback"]
    assert not marker.exists()
    assert rep.passed and len(rep.attempts) == 2


def test_unparsable_reply_and_spec_departures_go_back_to_the_model(tmp_path):
    rep, m = synth(tmp_path, ["I cannot help with that.", draft(keyarg="name"), draft()], max_repairs=2)
    a, b, c = rep.attempts
    assert a["files"] is None and "lacks the file(s) ['kv.py', 'test_kv.py']" in a["feedback"]
    assert b["conformance"] and "parameter 'name' is not in the spec" in b["feedback"]
    assert c["passed"] and rep.passed


def test_a_missing_tool_fails_the_draft():
    files = parse_files(draft().replace('@service.tool(name="get-value", read_only=True)', "").replace("def get_value", "def _get_value"), "kv")
    rec, fb = check_draft(files, "kv", "kv", SPEC, LIM)
    assert rec["missing_tools"] == ["get-value"] and "does not implement: ['get-value']" in fb and not rec["passed"]


def test_model_failure_ends_the_loop_with_a_report(tmp_path):
    rep, m = synth(tmp_path, [], max_repairs=2)       # the scripted endpoint answers HTTP 500
    assert not rep.passed and rep.attempts == [] and "HTTP 500" in rep.error
    assert json.loads((tmp_path / "out" / "kv.synthesis.json").read_text())["error"] == rep.error


def test_inputs_are_checked(tmp_path):
    with pytest.raises(SynthesisError, match="max_repairs=-1"): synthesize_service(SPEC, tmp_path, max_repairs=-1)
    with pytest.raises(SynthesisError, match="nope.json"): read_spec(tmp_path / "nope.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(SynthesisError, match="is not JSON"): read_spec(tmp_path / "bad.json")
    with pytest.raises(SynthesisError, match="non-empty 'tools'"): read_spec({"server": "x", "tools": []})
    assert read_spec("time")[0] == "time" and module_name("time") == "time_service" and module_name("google-maps") == "google_maps"


def cli(args, **kw):
    ap = argparse.ArgumentParser(prog="compoworld")
    h = register_cli(ap.add_subparsers(dest="cmd"))
    a = ap.parse_args(["synthesize", *args])
    return a.handler(a, **kw)


def test_cli_writes_the_service_and_prints_json(tmp_path, capsys):
    spec = tmp_path / "kv.json"; spec.write_text(json.dumps(SPEC))
    rc = cli([str(spec), "--out", str(tmp_path / "o"), "--model", "m", "--max-repairs", "0", "--json"], client=ScriptedModel([draft()]).client())
    out = capsys.readouterr().out.strip().splitlines()
    assert rc == 0 and json.loads(out[-1])["passed"] is True and (tmp_path / "o" / "kv.py").is_file()


@pytest.mark.parametrize("args,needle", [
    (["missing.json", "--max-repairs", "1"], "spec 'missing.json' does not exist"),
    (["time", "--max-repairs", "-2"], "--max-repairs -2 must be >= 0"),
])
def test_cli_bad_values_exit_2_with_one_line(tmp_path, capsys, args, needle):
    rc = cli([args[0], "--out", str(tmp_path / "o"), "--model", "m", *args[1:]])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("compoworld: error: ") and needle in err[0]


def test_cli_without_a_model_exits_2(tmp_path, capsys, monkeypatch):
    for k in ("COMPOWORLD_MODEL_NAME", "OPENAI_BASE_URL", "COMPOWORLD_MODEL_BASE_URL"): monkeypatch.delenv(k, raising=False)
    rc = cli(["time", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "no model name" in err[0]


@pytest.mark.parametrize("spec_text,out,needle", [
    ("{not json", "o", "is not JSON"),                                      # not JSON
    ('{"server": "x", "tools": []}', "o", "spec 'SPEC' must be a JSON object with a non-empty 'tools' list"),  # zero tools
    ("[1, 2]", "o", "spec 'SPEC' must be a JSON object"),                  # JSON, not an object
    (None, "o", "spec 'SPECDIR' does not exist or is not a file"),          # a folder given as the spec
    ("GOOD", "kv.json/sub", "out_dir 'TMP/kv.json/sub' is not writable"),   # the output folder under a file
    ("GOOD", "/proc/cw-no/sub", "out_dir '/proc/cw-no/sub' is not writable"),  # a folder that cannot be created
])
def test_cli_bad_spec_or_out_exits_2_and_writes_nothing(tmp_path, capsys, spec_text, out, needle):
    spec = tmp_path / "kv.json"
    if spec_text is None: spec = tmp_path / "specdir.json"; spec.mkdir()
    else: spec.write_text(json.dumps(SPEC) if spec_text == "GOOD" else spec_text)
    before = sorted(p.name for p in tmp_path.iterdir())
    out = out if out.startswith("/") else str(tmp_path / out)
    rc = cli([str(spec), "--out", out, "--model", "m"], client=ScriptedModel([draft()]).client())
    err = capsys.readouterr().err.strip().splitlines()
    needle = needle.replace("SPECDIR", str(spec)).replace("SPEC", str(spec)).replace("TMP", str(tmp_path))
    assert rc == 2 and len(err) == 1 and err[0].startswith("compoworld: error: ") and needle in err[0], err
    assert sorted(p.name for p in tmp_path.iterdir()) == before                 # no output folder, half-written or not


def test_cli_names_a_bad_spec_before_a_missing_model(tmp_path, capsys, monkeypatch):
    for k in ("COMPOWORLD_MODEL_NAME", "OPENAI_BASE_URL", "COMPOWORLD_MODEL_BASE_URL"): monkeypatch.delenv(k, raising=False)
    (tmp_path / "e.json").write_text('{"tools": []}')
    rc = cli([str(tmp_path / "e.json"), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and err == [f"compoworld: error: spec '{tmp_path / 'e.json'}' must be a JSON object with a non-empty 'tools' list"]
    assert not (tmp_path / "o").exists()


def test_a_failure_after_the_folder_was_made_removes_it(tmp_path):
    class Boom:
        @property
        def chat(self): raise RuntimeError("client broke")
    with pytest.raises(RuntimeError, match="client broke"):
        synthesize_service(SPEC, tmp_path / "new" / "out", client=Boom(), cfg=LLMConfig(model="m"))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("change,needle", [
    (lambda d: (d / "test_kv.py").write_text(TESTS.replace("CODE", "400").split("\n", 1)[1]), "test_kv.py exit code 1"),   # its own test fails
    (lambda d: (d / "kv.py").write_text("raise RuntimeError('boom')\n"), "did not pass the sandboxed check"),             # changed after synthesis
    (lambda d: (d / "kv.py").write_text("import os\nopen('/et' + 'c/cw-owned', 'w')\n"), "violation"),                     # reaches outside
])
def test_load_refuses_a_file_that_does_not_pass_a_sandboxed_check(tmp_path, change, needle):
    "Nothing of the file runs in this process unless its exact bytes passed a sandboxed check at load time."
    rep, _ = synth(tmp_path, [draft(code=404)])
    d = tmp_path / "out"
    change(d)
    with pytest.raises(ValueError, match=needle): load_service_file(d / "kv.py", limits=LIM)
    assert "kv" not in sys.modules and not os.path.exists("/etc/cw-owned")

def test_a_live_server_is_a_spec_for_synthesis(tmp_path):
    # `compoworld synthesize stdio:COMMAND` / `http(s)://URL`: the tools/list of a running MCP server, read through the SDK client
    slug, raw = read_spec(f"stdio:{sys.executable} -m compoworld_nb.serve --services weather")
    import sample_services
    assert slug == "compoworld" and [t["name"] for t in raw["tools"]] == [f"weather__{n}" for n in sample_services.load_library()["weather"].tools]
    with pytest.raises(SynthesisError, match=r"spec 'stdio:.*could not be read"): read_spec(f"stdio:{sys.executable} -c pass")
    with pytest.raises(SynthesisError, match=r"spec 'http://127.0.0.1:9/mcp'.*could not be read"): read_spec("http://127.0.0.1:9/mcp")
    with pytest.raises(SynthesisError, match="server command is empty"): read_spec("stdio:")


def test_a_stop_noted_while_the_model_answers_ends_the_run_and_leaves_nothing(tmp_path, monkeypatch):
    "A signal whose KeyboardInterrupt Python swallowed (in a finalizer) is noted by the CLI's handler: before, synthesis went on and wrote the service and its report; now the loop's core.check_stop() ends it and the folder it made is removed."
    import compoworld_nb.synthesize as sy
    from compoworld_nb.core import clear_stop, request_stop
    real = sy.chat
    def chat_then_signal(*a, **kw):
        r = real(*a, **kw); request_stop(15); return r          # the handler ran, its exception was lost
    monkeypatch.setattr(sy, "chat", chat_then_signal)
    try:
        with pytest.raises(KeyboardInterrupt): synth(tmp_path, [draft(code=400), draft(code=404)])
    finally: clear_stop()
    assert list(tmp_path.iterdir()) == []
