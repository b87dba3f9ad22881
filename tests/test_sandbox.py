"""The sandbox for model-written code: each attack below hides its names (built at run time, so a text scan would
miss them) and must be stopped and reported with the right reason; a well-behaved module must pass.

The attacks run at the level this machine gives (`namespaces` where bubblewrap works, else `hook`) and, for the
core set, also at the hook-only level; the kernel layer alone (no audit hook) is checked where bubblewrap works.
"""
import os, socket, sys
import pytest
from compoworld_nb.sandbox import (Limits, SandboxError, SandboxResult, isolation_level, namespaces_available, read_roots,
                                   run_pytest, run_sandboxed, run_script, describe_module)
from compoworld_nb.grading import check_module

if not namespaces_available():
    # without bubblewrap 'auto' refuses to run model-written code; these tests ask for the audit-hook level by name
    # (test_auto_refuses_without_real_isolation checks the refusal itself)
    os.environ["COMPOWORLD_SANDBOX"] = "hook"
LEVELS = ["auto", "hook"]
FAST = Limits(wall_s=20, cpu_s=10, memory_mb=768)


def test_well_behaved_module_runs_and_returns_output():
    r = run_script("import json, math, re, datetime\nprint(json.dumps({'v': math.isqrt(1 << 20)}))\nopen('out.txt', 'w').write('x')\n"
                   "print(open('out.txt').read(), sorted(p for p in __import__('os').listdir('.') if not p.startswith('.')))", FAST)
    assert (r.status, r.returncode, r.violation) == ("ok", 0, None)
    assert r.stdout.splitlines() == ['{"v": 1024}', "x ['main.py', 'out.txt']"]
    assert r.isolation == isolation_level()


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("code,event,needle", [
    ("print(open('/et' + 'c/pass' + 'wd').read())", "open", "/etc/passwd"),
    ("getattr(__import__('o' + 's'), 'list' + 'dir')('/')", "os.listdir", "'/'"),
    ("s = __import__('importlib').import_module('soc' + 'ket')\ns.socket(s.AF_INET, s.SOCK_STREAM).connect(('127.0.0.1', 9))", "socket.__new__", ""),
    ("__import__('sub' + 'process').run(['ech' + 'o', 'hi'])", "subprocess.Popen", ""),
    ("__import__('c' + 'types')", "import", "ctypes"),
])
def test_attack_is_stopped_with_its_event(level, code, event, needle):
    r = run_script(code, FAST, isolation=level)
    assert r.status == "violation", r
    assert r.returncode == 86 and r.violation["event"] == event and needle in r.reason
    assert "root:" not in r.stdout


@pytest.mark.parametrize("code,event", [
    ("import os\nwhile True: os.fork()", "os.fork"),                                       # fork bomb
    ("import os\ngetattr(os, 'sys' + 'tem')('echo hi')", "os.system"),
    ("m = __import__('_posix' + 'subprocess')", "import"),                                 # native process creation
    ("import os\nos.link('/et' + 'c/passwd', 'copy')", "os.link"),                          # a hard link into the sandbox
    ("import os, sysconfig\nos.open(sysconfig.get_paths()['purelib'], os.O_RDONLY)", "open"),  # a directory fd outside
    ("import gc\ngc.get_objects()", "gc.get_objects"),
    ("class S(str): pass\nopen(S('/etc/hostname'))", "open"),                          # a str subclass could lie to a check
    ("import sys\nsys.settrace(lambda *a: None)", "sys.settrace"),                      # tracing could rewrite the hook's frame
    ("import threading\nt = threading.Thread(target=lambda: open('/etc/hostname'))\nt.start(); t.join()\nprint('after')", "open"),
    ("import resource as r\nr.setrlimit(r.RLIMIT_CPU, (10**6, 10**6))", "resource.setrlimit"),
])
def test_more_escapes_are_stopped(code, event):
    r = run_script(code, FAST)
    assert (r.status, r.violation["event"]) == ("violation", event), r


def test_write_outside_is_stopped_and_nothing_is_written(tmp_path):
    target = tmp_path / "owned.txt"
    r = run_script(f"p = {str(target)[:5]!r} + {str(target)[5:]!r}\nopen(p, 'w').write('x')", FAST)
    assert r.status == "violation" and r.violation["event"] == "open" and str(target) in r.reason
    assert not target.exists()


def test_a_path_that_changes_between_calls_cannot_switch_files():
    "The check and the open see the same converted path: the file opened is the one that was checked."
    code = ("class P:\n    n = 0\n    def __fspath__(self):\n        P.n += 1\n        return 'main.py' if P.n % 2 else '/etc/hostname'\n"
            "print(open(P()).readline().strip())")
    r = run_script(code, FAST)
    assert (r.status, r.stdout.strip()) == ("ok", "class P:"), r


def test_no_frame_reaches_the_hook_state():
    "Walking the stack (or a refused call's traceback) finds none of the hook's functions or their closures."
    code = ("import sys, os\nseen = set()\nf = sys._getframe()\nwhile f:\n    seen |= {k for k, v in f.f_locals.items() if getattr(v, '__closure__', None)}\n"
            "    f = f.f_back\ntry:\n    os.symlink('main.py', 'l')\nexcept PermissionError as e:\n    tb = e.__traceback__\n"
            "    while tb:\n        seen |= {k for k, v in tb.tb_frame.f_locals.items() if getattr(v, '__closure__', None)}\n        tb = tb.tb_next\n"
            "print(sorted(seen))")
    r = run_script(code, FAST)
    assert r.ok and not {"hook", "check", "stop", "resolve", "inside", "_arm"} & set(eval(r.stdout)), r


def test_an_exception_handler_cannot_swallow_the_stop():
    r = run_script("try:\n    open('/etc/hostname').read()\nexcept BaseException:\n    print('caught')\nprint('went on')", FAST)
    assert r.status == "violation" and "caught" not in r.stdout and "went on" not in r.stdout


def test_infinite_loop_stops_at_cpu_limit():
    r = run_script("while True:\n    pass", Limits(wall_s=20, cpu_s=1))
    assert (r.status, r.reason) == ("timeout", "stopped at the CPU limit of 1 s")


def test_sleeping_forever_stops_at_wall_limit():
    r = run_script("import time\ntime.sleep(10**6)", Limits(wall_s=1.5, cpu_s=5))
    assert (r.status, r.reason) == ("timeout", "stopped at the wall-clock limit of 1.5 s")
    assert 1.5 <= r.wall_s < 10


def test_memory_bomb_is_stopped():
    r = run_script("x = []\nwhile True:\n    x.append(bytearray(64 << 20))", Limits(wall_s=20, cpu_s=10, memory_mb=512))
    assert r.status == "memory" and "512 MiB" in r.reason, r


def test_environment_is_stripped(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    r = run_script("import os, json\nprint(json.dumps(sorted(os.environ)))", FAST)
    assert r.ok and "sk-secret" not in r.stdout
    assert set(eval(r.stdout)) <= {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PWD"}


REQUIRE_NS = os.environ.get("COMPOWORLD_REQUIRE_NAMESPACES") == "1"   # CI sets it where bubblewrap works: then it must not skip


def test_namespaces_are_there_when_required():
    if REQUIRE_NS: assert namespaces_available() and isolation_level() == "namespaces"


@pytest.mark.skipif(not namespaces_available() and not REQUIRE_NS, reason="bubblewrap with user namespaces is not available here")
def test_kernel_layer_alone_hides_files_and_network():
    "Without the audit hook, the namespaces still hide host files and give no network."
    r = run_script("import os\nprint(os.path.exists('/etc/passwd'), os.path.exists(os.path.expanduser('~root/.bashrc')), sorted(os.listdir('/')))\n"
                   "print(os.getuid(), [l.split()[1] for l in open('/proc/self/status') if l.startswith('CapEff')][0])\n"
                   "import socket\ntry:\n    socket.create_connection(('1.1.1.1', 53), timeout=2)\n    print('connected')\n"
                   "except OSError as e:\n    print('no network')", FAST, isolation="namespaces", hook=False)
    assert r.ok, r
    first, ids, last = r.stdout.splitlines()
    assert first.startswith("False False") and "etc" not in first and last == "no network"
    assert ids == "65534 0000000000000000"                      # an unprivileged user without capabilities


def test_level_and_argument_errors(monkeypatch):
    with pytest.raises(ValueError, match="isolation='chroot'"): run_script("pass", isolation="chroot")
    with pytest.raises(ValueError, match=r"file name '\.\./x\.py'"): run_sandboxed({"../x.py": ""}, {"kind": "script", "path": "../x.py"})
    with pytest.raises(ValueError, match="Limits.wall_s=0"): Limits(wall_s=0)
    monkeypatch.setenv("COMPOWORLD_SANDBOX", "hook")
    assert isolation_level() == "hook"
    with pytest.raises(SandboxError, match="bubblewrap"): isolation_level("namespaces")


def test_read_roots_hold_python_and_not_the_host():
    roots = read_roots()
    assert not {"/", "/etc", "/root", "/home", "/tmp"} & set(roots)
    assert any(os.path.realpath(os.path.dirname(os.__file__)).startswith(r) for r in roots)


SVC = '''
from compoworld_nb.core import ToolError
from compoworld_nb.service import Record, State, Service
class Item(Record):
    id: str
    name: str
class ShopState(State):
    items: dict[str, Item] = {}
service = Service("shop", "retail", ShopState, "A shop.")
@service.tool
def add_item(s: ShopState,
             name: str,  # item name
            ) -> dict:
    "Add an item."
    i = s.new_id("it"); s.items[i] = Item(id=i, name=name); return s.items[i]
'''
TESTS = '''
from shop import service
def test_add():
    s1, o = service.call(service.initial_state(0), "add_item", {"name": "pen"})
    assert o["ok"] and len(s1.items) == 1
def test_wrong():
    assert service.call(service.initial_state(0), "add_item", {})[1]["error"]["code"] == 404
'''

def test_pytest_in_the_sandbox_reports_each_test():
    r = run_pytest({"shop.py": SVC, "test_shop.py": TESTS}, limits=FAST)
    assert r.ok and (r.data["exit_code"], r.data["passed"], r.data["failed"], r.data["errors"]) == (1, 1, 1, 0)
    assert [(t["nodeid"], t["outcome"]) for t in r.data["tests"]] == [("test_shop.py::test_add", "passed"), ("test_shop.py::test_wrong", "failed")]
    assert "assert 400 == 404" in r.data["tests"][1]["message"]


# The three notebooks' first sandboxed imports of a compoworld_nb service (33_sandbox run_pytest, 33a_grading ServiceHost,
# 34_synthesize check_draft), at both levels and with the default limits the notebooks use: at the namespace level the
# child sees only its read roots, so a package folder missing from them (or unreadable there) shows up only here.
@pytest.mark.parametrize("level", LEVELS)
def test_the_grader_runs_a_tiny_service_module_at_both_levels(level):
    r = run_pytest({"shop.py": SVC, "test_shop.py": TESTS}, isolation=level)
    assert r.isolation == isolation_level(level) and r.ok, r
    assert (r.data["exit_code"], r.data["passed"], r.data["failed"], r.data["errors"]) == (1, 1, 1, 0), r
    c = check_module({"shop.py": SVC, "test_shop.py": TESTS}, "shop", isolation=level)
    assert c.ok and c.isolation == r.isolation and "error" not in c.data["describe"], c
    assert [t["name"] for t in c.data["describe"]["tools"]] == ["add_item"]
    assert (c.data["tests"]["exit_code"], c.data["tests"]["passed"], c.data["tests"]["failed"]) == (1, 1, 1)
    assert c.data["tests"]["tests"][1]["message"] == "AssertionError: assert 400 == 404"


@pytest.mark.parametrize("level", LEVELS)
def test_the_trusted_preload_succeeds_at_both_levels(level):
    "The bootstrap swallows a failed preload; the modules it preloads must be there when the untrusted part starts."
    probe = ("import sys\ndef test_preloaded():\n"
             "    assert [m for m in ('pydantic', 'compoworld_nb.core', 'compoworld_nb.service') if m not in sys.modules] == []\n")
    r = run_pytest({"test_pre.py": probe}, isolation=level)
    assert r.ok and (r.data["exit_code"], r.data["passed"]) == (0, 1), r


@pytest.mark.parametrize("level", LEVELS)
def test_the_child_runs_the_compoworld_nb_the_parent_runs(level, tmp_path):
    """A parent that imports compoworld_nb from another folder than the venv's own install (a second checkout run with
    the first one's venv): the child imports the parent's copy. Before, at the namespace level the child found no
    compoworld_nb (its install's folder is not a read root): pytest 'ImportError while importing test module', the
    ServiceHost 'stopped answering (it exited)'; at the hook level it ran the install's copy, not the parent's."""
    import shutil, subprocess, json as _json
    import compoworld_nb
    shutil.copytree(os.path.dirname(compoworld_nb.__file__), tmp_path / "compoworld_nb", ignore=shutil.ignore_patterns("__pycache__"))
    mine = str(tmp_path / "compoworld_nb" / "__init__.py")
    probe = f"import compoworld_nb\ndef test_where(): assert compoworld_nb.__file__ == {mine!r}\n"
    code = (f"import sys, json; sys.path.insert(0, {str(tmp_path)!r})\n"
            "import compoworld_nb\nfrom compoworld_nb.sandbox import run_pytest, Limits\n"
            f"import tests.test_sandbox as T\n"
            f"r = run_pytest({{'shop.py': T.SVC, 'test_shop.py': T.TESTS, 'test_where.py': {probe!r}}}, isolation={level!r})\n"
            "print(json.dumps([compoworld_nb.__file__, r.status, r.data and [r.data[k] for k in ('passed', 'failed', 'errors')]]))\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=120)
    assert out.stdout.strip(), out.stderr[-3000:]
    assert _json.loads(out.stdout.strip().splitlines()[-1]) == [mine, "ok", [2, 1, 0]], out.stdout[-3000:]


def test_pytest_tmp_path_works_inside_the_sandbox():
    test = "def test_tmp(tmp_path):\n    (tmp_path / 'a.txt').write_text('1')\n    assert (tmp_path / 'a.txt').read_text() == '1'\n"
    r = run_pytest({"test_tmp.py": test}, limits=FAST)
    assert r.ok and (r.data["exit_code"], r.data["passed"]) == (0, 1), r


def test_a_test_that_escapes_stops_the_whole_run():
    r = run_pytest({"shop.py": SVC, "test_shop.py": "def test_peek():\n    assert open('/et' + 'c/shadow').read()\n"}, limits=FAST)
    assert r.status == "violation" and "/etc/shadow" in r.reason and r.data is None


def test_describe_and_check_return_the_listing_without_importing_here():
    assert "shop" not in sys.modules
    d = describe_module({"shop.py": SVC}, "shop", FAST)
    assert d.ok and d.data["name"] == "shop" and [t["name"] for t in d.data["tools"]] == ["add_item"]
    assert d.data["tools"][0]["parameters"]["required"] == ["name"] and d.data["collections"] == {"items": 0}
    c = check_module({"shop.py": SVC, "test_shop.py": TESTS}, "shop", limits=FAST)
    assert c.ok and c.data["describe"]["state_class"] == "ShopState" and (c.data["tests"]["passed"], c.data["tests"]["failed"]) == (1, 1)
    assert c.data["tests"]["tests"][1]["message"] == "AssertionError: assert 400 == 404"
    assert "shop" not in sys.modules


@pytest.mark.parametrize("code,event,needle", [
    # functions without an audit event that reach outside: a FIFO or device node anywhere, a signal through a pidfd
    ("import os, tempfile\ngetattr(os, 'mk' + 'fifo')('/tmp/cw-fifo-' + str(os.getpid()))", "compoworld.sandbox.blocked", "posix.mkfifo"),
    ("import os, signal\nfd = os.pidfd_open(os.getppid())\nsignal.pidfd_send_signal(fd, signal.SIGTERM)", "compoworld.sandbox.blocked", "posix.pidfd_open"),
    # ... and the ways back to them: os.supports_* sets, a fresh `posix` built by `_imp.create_builtin`
    ("import os\n[f for f in os.supports_dir_fd if f.__name__ == 'mk' + 'nod'][0]('/tmp/cw-node')", "compoworld.sandbox.blocked", "posix.mknod"),
    ("import _imp, importlib.machinery as m\n_imp.create_builtin(m.ModuleSpec('pos' + 'ix', m.BuiltinImporter)).mkfifo('/tmp/x')", "compoworld.sandbox.blocked", "_imp.create_builtin"),
    # a relative path under a dir_fd that is shallower than the current directory (the 'open' event does not carry dir_fd)
    ("import os\nos.makedirs('a/b/c/d/e/f/g/h')\nfd = os.open('.', os.O_RDONLY)\nos.chdir('a/b/c/d/e/f/g/h')\n"
     "os.open('../' * 12 + 'et' + 'c/passwd', os.O_RDONLY, dir_fd=fd)", "open", "climbs out of the directory"),
    # a change through a descriptor of a file the child may only read
    ("import os, json\nos.fchmod(os.open(json.__file__, os.O_RDONLY), 0o777)", "os.chmod", "outside the sandbox directory (writes)"),
])
def test_escapes_without_their_own_audit_event_are_stopped(code, event, needle):
    r = run_script(code, FAST, isolation="hook")
    assert (r.status, r.violation["event"]) == ("violation", event), r
    assert needle in r.reason


# Changing who the child is (uid, gid, groups) or what its root is: Python 3.11 raises no audit event for any of these
# (there is no os.chroot or os.setuid event), so at the hook level only their stubs stop them; run as root they all
# succeed. The arguments change nothing, so a run that is not stopped ends "ok" (or "failed" where not root).
IDENTITY_CALLS = [
    ("chroot", "os.chroot('/')"), ("setuid", "os.setuid(os.getuid())"), ("setgid", "os.setgid(os.getgid())"),
    ("seteuid", "os.seteuid(os.geteuid())"), ("setegid", "os.setegid(os.getegid())"), ("setreuid", "os.setreuid(-1, -1)"),
    ("setregid", "os.setregid(-1, -1)"), ("setresuid", "os.setresuid(-1, -1, -1)"), ("setresgid", "os.setresgid(-1, -1, -1)"),
    ("setgroups", "os.setgroups(os.getgroups())"), ("initgroups", "os.initgroups('root', os.getgid())"),
    ("chroot", "__import__('pos' + 'ix').chroot('/')"),                   # the same function reached through `posix`
    ("setuid", "getattr(os, 'set' + 'uid')(0)"),
]

@pytest.mark.parametrize("name,call", IDENTITY_CALLS)
def test_changes_of_identity_or_root_are_stopped_at_the_hook_level(name, call):
    r = run_script(f"import os\n{call}\nprint('done')", FAST, isolation="hook")
    assert (r.status, r.returncode, r.violation, r.stdout) == (
        "violation", 86, {"event": "compoworld.sandbox.blocked", "detail": "posix." + name}, ""), r
    assert r.reason == f"blocked compoworld.sandbox.blocked: posix.{name}"


# Every entry of the deny lists must be an event this interpreter raises for the operation it stands for: an entry that
# no event carries blocks nothing (the operation needs a stub in _SCRUB_FUNCS instead). Each trigger runs in a plain
# child whose audit hook raises on the first denied event, so the operation itself never happens.
DENY_TRIGGERS = {
    "subprocess.Popen": "import subprocess; subprocess.Popen(['true'])", "os.system": "os.system('true')",
    "os.exec": "os.execv('/bin/true', ['true'])", "os.fork": "os.fork()", "os.forkpty": "os.forkpty()",
    "os.posix_spawn": "os.posix_spawn('/bin/true', ['true'], {})", "os.kill": "os.kill(os.getpid(), 0)",
    "os.killpg": "os.killpg(os.getpgid(0), 0)", "signal.pthread_kill": "import signal, threading; signal.pthread_kill(threading.get_ident(), 0)",
    "pty.spawn": "import pty; pty.spawn('true')", "resource.setrlimit": "import resource as r; r.setrlimit(r.RLIMIT_CORE, r.getrlimit(r.RLIMIT_CORE))",
    "resource.prlimit": "import resource as r; r.prlimit(0, r.RLIMIT_CORE)", "os.link": "os.link('cw-no-such-file', 'cw-link')",
    "gc.get_objects": "import gc; gc.get_objects()", "gc.get_referrers": "import gc; gc.get_referrers(None)",
    "gc.get_referents": "import gc; gc.get_referents(None)", "cpython.PyInterpreterState_New": "try: import _xxsubinterpreters as m\nexcept ImportError: import _interpreters as m\nm.create()",
    "urllib.Request": "import urllib.request; urllib.request.urlopen('http://127.0.0.1:9', timeout=1)",
    "webbrowser.open": "import webbrowser; webbrowser.GenericBrowser('true').open('http://127.0.0.1:9')", "sys.settrace": "sys.settrace(None)",
    "sys.setprofile": "sys.setprofile(None)", "sys._current_frames": "sys._current_frames()", "sys._current_exceptions": "sys._current_exceptions()",
    # prefixes
    "socket.": "import socket; socket.socket()", "ctypes.": "import ctypes; ctypes.CDLL(None)",
    "ftplib.": "import ftplib; ftplib.FTP('127.0.0.1', timeout=1)", "smtplib.": "import smtplib; smtplib.SMTP('127.0.0.1', 9, timeout=1)",
    "poplib.": "import poplib; poplib.POP3('127.0.0.1', 9, timeout=1)", "imaplib.": "import imaplib; imaplib.IMAP4('127.0.0.1', 9, timeout=1)",
    "nntplib.": "import warnings; warnings.simplefilter('ignore'); import nntplib; nntplib.NNTP('127.0.0.1', 9, timeout=1)",
    "telnetlib.": "import warnings; warnings.simplefilter('ignore'); import telnetlib; telnetlib.Telnet('127.0.0.1', 9, 1)",
    "http.client.": "import http.client; http.client.HTTPConnection('127.0.0.1', 9, timeout=1).connect()",
}
DENIED_ELSEWHERE = {"os.spawn": "Windows only (os.spawn* on POSIX fork: os.fork)", "sys.remote_exec": "Python 3.14 and later",
                    "winreg.": "Windows only", "compoworld.sandbox.blocked": "raised by the sandbox's own stubs"}

def test_every_denied_event_is_one_this_interpreter_raises(tmp_path):
    import json, subprocess
    from compoworld_nb.sandbox import _DENY_EVENTS, _DENY_PREFIXES
    events, prefixes = [e for e in _DENY_EVENTS if e not in DENIED_ELSEWHERE], [p for p in _DENY_PREFIXES if p not in DENIED_ELSEWHERE]
    prog = f"""import sys, os, json
EV, PRE, seen = {events!r}, {tuple(prefixes)!r}, []
def hook(event, args):
    if event in EV or event.startswith(PRE):
        seen.append(event); raise RuntimeError(event)
sys.addaudithook(hook)
out = {{}}
for entry, code in {[(e, DENY_TRIGGERS.get(e)) for e in events + prefixes]!r}:
    seen.clear()
    if code is not None:
        try: exec(code, {{"os": os, "sys": sys}})
        except ImportError: seen.append("<module absent>")     # e.g. telnetlib after 3.12: nothing left to block
        except Exception: pass
    out[entry] = seen[:1]
print(json.dumps(out))
"""
    r = subprocess.run([sys.executable, "-I", "-c", prog], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    raised = json.loads(r.stdout)
    dead = {e: raised[e] for e in events if raised[e] not in ([e], ["<module absent>"])}
    dead.update({p: raised[p] for p in prefixes if not (raised[p] and raised[p][0].startswith((p, "<module absent>")))})
    assert dead == {}, f"deny-list entries no operation raises here (block them with a stub instead): {dead}"


# The host's user and group database: libc reads /etc/passwd, /etc/group and /etc/shadow for pwd, grp, spwd,
# os.getgrouplist and os.getlogin without any audit event. At the hook level the child gets the answers of an empty
# database (what the namespace level's file system, which holds no /etc, gives): every listing empty, every lookup a
# KeyError, getgrouplist(user, group) only [group], getlogin an OSError; nothing is a violation, so library code that
# copes with an unknown user (pytest's tmp_path, tarfile, Path.owner, expanduser) goes on as it would there.
ACCOUNT_PROBE = """import os, pwd, grp, getpass, shutil, warnings
print(pwd.getpwall(), grp.getgrall(), os.getgrouplist('root', 0), __import__('pos' + 'ix').getgrouplist('root', 7))
for f, a in [(pwd.getpwuid, 0), (pwd.getpwnam, 'root'), (grp.getgrgid, 0), (grp.getgrnam, 'root'), (getpass.getuser, None)]:
    try: print(f(a) if a is not None else f())
    except KeyError as e: print('KeyError', e)
try: shutil.chown('main.py', user='root')
except LookupError as e: print('LookupError', e)
try: os.getlogin()
except OSError as e: print('OSError', e.errno)
print(os.path.expanduser('~root'))
with warnings.catch_warnings():
    warnings.simplefilter('ignore')
    try: import spwd
    except ImportError: spwd = None                         # Python 3.13 and later have no spwd
if spwd is not None:
    print(spwd.getspall())
    try: spwd.getspnam('root')
    except OSError as e: print(type(e).__name__, e)
"""

def account_answers(uid):
    "What ACCOUNT_PROBE prints where the account database is empty, for a child running as `uid`."
    spwd_lines = ["[]", "FileNotFoundError [Errno 2] No such file or directory"] if sys.version_info < (3, 13) else []
    return ["[] [] [0] [7]", "KeyError 'getpwuid(): uid not found: 0'", "KeyError \"getpwnam(): name not found: 'root'\"",
            "KeyError 'getgrgid(): gid not found: 0'", "KeyError \"getgrnam(): name not found: 'root'\"",
            f"KeyError 'getpwuid(): uid not found: {uid}'", "LookupError no such user: 'root'", "OSError 6", "~root", *spwd_lines]

def test_host_account_data_reads_as_an_empty_database_at_the_hook_level():
    r = run_script(ACCOUNT_PROBE, FAST, isolation="hook")
    assert (r.status, r.violation, r.stdout.splitlines()) == ("ok", None, account_answers(65534)), r

@pytest.mark.skipif(not namespaces_available() and not REQUIRE_NS, reason="bubblewrap with user namespaces is not available here")
def test_the_namespace_level_alone_gives_the_same_account_answers(tmp_path):
    "The design's reference: bubblewrap's file system has no /etc, so libc finds an empty database (no bootstrap, no stubs)."
    import shutil, subprocess
    from compoworld_nb.sandbox import bwrap_argv
    d = os.path.realpath(tmp_path)
    argv = bwrap_argv(d, read_roots(), {"LANG": "C.UTF-8"}, shutil.which("bwrap")) + [sys.executable, "-I", "-c", ACCOUNT_PROBE]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, cwd=d)
    assert (r.returncode, r.stdout.splitlines()) == (0, account_answers(65534)), r.stderr


# The host's identity beyond its account database: os.uname (host name, kernel release), os.getgroups (the host
# user's supplementary groups), os.getloadavg (what the host's other users do) and, for another process, os.getpriority,
# os.getpgid and os.getsid (which host processes exist, their sessions, their niceness) raise no audit event. At the
# hook level they answer from the same table as the account database (_HOST_IDENTITY), as a sandbox that sees only
# itself would: a neutral uname, no supplementary groups, no load averages, and ESRCH for every process but the child
# (which leads its own session; sched_getaffinity and the rest of sched_get* too). Not a violation: platform.system()
# and the like go on working.
IDENTITY_PROBE = """import os, platform
def t(f, *a):
    try: return repr(f(*a))
    except Exception as e: return type(e).__name__ + ' ' + str(getattr(e, 'errno', ''))
me = os.getpid()
print(tuple(os.uname()), platform.system(), platform.node())
print(t(os.getgroups), t(os.getloadavg))
print(t(os.getpriority, os.PRIO_PROCESS, 0) == repr(os.nice(0)), t(os.getpriority, os.PRIO_PROCESS, me) == repr(os.nice(0)),
      t(os.getpriority, os.PRIO_PROCESS, 1), t(os.getpriority, os.PRIO_USER, 1))
print(t(os.getpgid, 0) == repr(me), t(os.getpgid, me) == repr(me), t(os.getpgid, 1), t(os.getsid, 0) == repr(me), t(os.getsid, 1))
print(t(__import__('pos' + 'ix').uname) == t(os.uname), t(os.getpgid, 'x'))
print(t(os.sched_getscheduler, 1), t(os.sched_getparam, 1), t(os.sched_rr_get_interval, 1), t(os.sched_getaffinity, 1),
      os.sched_getaffinity(0) == os.sched_getaffinity(me), sorted(os.sched_getaffinity(0)))
"""

def test_host_identity_reads_as_a_sandbox_that_sees_only_itself_at_the_hook_level():
    r = run_script(IDENTITY_PROBE, FAST, isolation="hook")
    machine, affinity = os.uname().machine, f"True {sorted(os.sched_getaffinity(0))}"   # the child's own is the parent's
    assert (r.status, r.violation, r.stdout.splitlines()) == ("ok", None, [
        f"('Linux', 'sandbox', '', '', {machine!r}) Linux sandbox", "[] OSError None",
        "True True ProcessLookupError 3 ProcessLookupError 3",
        "True True ProcessLookupError 3 True ProcessLookupError 3", "True TypeError ",
        "ProcessLookupError 3 ProcessLookupError 3 ProcessLookupError 3 ProcessLookupError 3 " + affinity]), r


@pytest.mark.parametrize("code,detail", [
    ("import sys, grp\ndel sys.modules['grp']\nimport grp", "grp"),                # a fresh copy would bring libc's getgrall back
    ("import sys, warnings\nwarnings.simplefilter('ignore')\nimport spwd\ndel sys.modules['spwd']\nimport spwd", "spwd"),
])
def test_a_fresh_account_module_is_refused_at_the_hook_level(code, detail):
    if detail == "spwd" and sys.version_info >= (3, 13): pytest.skip("no spwd after Python 3.12")
    r = run_script(code, FAST, isolation="hook")
    assert (r.status, r.violation) == ("violation", {"event": "import", "detail": detail}), r


# Probing host paths: os.statvfs and os.pathconf raise no audit event, os.stat(path=...) passed its path by keyword
# past the check, and the hook ignored the os.getxattr/os.listxattr events. The first three now answer as os.stat does
# for a path outside (it looks absent); the xattr events are checked as os.listdir is (a path outside is a violation).
HIDDEN_PATH_CALLS = ["os.statvfs('/etc/shadow')", "os.pathconf('/etc/shadow', 'PC_NAME_MAX')", "os.stat(path='/etc/shadow')",
                     "os.lstat(path='/etc/shadow')", "os.statvfs(b'/etc/shadow')", "__import__('pos' + 'ix').statvfs('/etc/shadow')"]

@pytest.mark.parametrize("call", HIDDEN_PATH_CALLS)
def test_metadata_of_a_host_path_looks_absent_at_the_hook_level(call):
    r = run_script(f"import os\ntry: {call}\nexcept FileNotFoundError as e: print(e)", FAST, isolation="hook")
    assert (r.status, r.violation, r.stdout) == ("ok", None, "[Errno 2] outside the sandbox (hidden): '/etc/shadow'\n"), r


@pytest.mark.parametrize("call,event,path", [
    ("os.getxattr('/etc/shadow', 'user.x')", "os.getxattr", "/etc/shadow"), ("os.listxattr('/etc/shadow')", "os.listxattr", "/etc/shadow"),
    ("os.listxattr(b'/etc')", "os.listxattr", "/etc"), ("__import__('pos' + 'ix').getxattr('/etc/shadow', 'user.x')", "os.getxattr", "/etc/shadow"),
])
def test_extended_attributes_of_a_host_path_are_stopped_at_the_hook_level(call, event, path):
    r = run_script(f"import os\n{call}\nprint('done')", FAST, isolation="hook")
    assert (r.status, r.returncode, r.stdout, r.violation) == (
        "violation", 86, "", {"event": event, "detail": f"{path!r} is outside the sandbox directory"}), r


def test_path_metadata_inside_the_sandbox_and_its_roots_still_answers_at_the_hook_level():
    r = run_script("import os, json\nprint(os.statvfs('.').f_bsize > 0, os.pathconf('main.py', 'PC_NAME_MAX') > 0, os.statvfs(json.__file__).f_bsize > 0,\n"
                   "      os.stat(path='main.py').st_size > 0, os.listxattr('main.py') == os.listxattr(path=json.__file__) == [])\n"
                   "try: os.getxattr('main.py', 'user.cw')\nexcept OSError as e: print(e.errno)", FAST, isolation="hook")
    assert (r.status, r.stdout) == ("ok", "True True True True True\n61\n"), r


# What legitimately runs in the sandbox goes on with the empty account database: pytest (tmp_path under --basetemp),
# getpass.getuser() failing as it does for an unknown uid, shutil.chown to a numeric id, disk usage of its folder.
TINY_MODULE = {"tally.py": "def tally(xs):\n    return {x: xs.count(x) for x in xs}\n",
               "test_tally.py": """import getpass, os, shutil, pytest
from tally import tally
def test_tally(): assert tally('abca') == {'a': 2, 'b': 1, 'c': 1}
def test_tmp_path(tmp_path):
    p = tmp_path / 'x.txt'; p.write_text('hi'); shutil.chown(p, os.getuid(), os.getgid())
    assert (p.read_text(), shutil.disk_usage(tmp_path).total > 0) == ('hi', True)
def test_unknown_user():
    with pytest.raises((KeyError, OSError)): getpass.getuser()      # OSError from Python 3.13
"""}

@pytest.mark.parametrize("level", LEVELS)
def test_pytest_over_a_tiny_module_still_passes(level):
    r = run_pytest(TINY_MODULE, limits=FAST, isolation=level)
    assert (r.status, {k: r.data[k] for k in ("exit_code", "passed", "failed", "errors")}) == (
        "ok", {"exit_code": 0, "passed": 3, "failed": 0, "errors": 0}), r


@pytest.mark.parametrize("level", LEVELS)
def test_relative_file_operations_inside_the_sandbox_are_allowed(level):
    "os.mkdir/remove/rename/rmdir report dir_fd=-1 when none is given: that is no descriptor to resolve."
    r = run_script("import os\nos.makedirs('d/e')\nopen('d/e/f', 'w').write('1')\nos.chmod('d/e/f', 0o600)\nos.remove('d/e/f')\n"
                   "os.rename('d/e', 'd/g')\nos.rmdir('d/g')\nos.chdir('d')\nopen('h', 'w').write('2')\nos.chdir('..')\nprint(sorted(os.listdir('d')))", FAST, isolation=level)
    assert (r.status, r.stdout.strip()) == ("ok", "['h']"), r


def test_output_printed_before_an_exit_or_an_exception_is_kept():
    r = run_script("print('before exit')\nraise SystemExit(3)", FAST)
    assert (r.status, r.returncode, r.stdout) == ("failed", 3, "before exit\n")
    r = run_script("print('before error')\nraise KeyError('k')", FAST)
    assert (r.status, r.stdout, r.reason) == ("failed", "before error\n", "raised KeyError: 'k'")


def test_auto_refuses_without_real_isolation(monkeypatch):
    "Model-written code runs at the weaker audit-hook level only when it is asked for by name (with a warning)."
    monkeypatch.delenv("COMPOWORLD_SANDBOX", raising=False)
    if namespaces_available():
        assert isolation_level() == "namespaces"
    else:
        with pytest.raises(SandboxError, match="COMPOWORLD_SANDBOX=hook"): run_script("print(1)", FAST)
    with pytest.warns(RuntimeWarning, match="not a security boundary"): assert isolation_level("hook") == "hook"


def test_the_child_is_not_told_it_is_sandboxed():
    r = run_script("import os\nprint(sorted(k for k in os.environ if 'SANDBOX' in k))", FAST, isolation="hook")
    assert (r.status, r.stdout.strip()) == ("ok", "[]"), r


# The hook resolves paths with functions it captured before child code ran: monkeypatching os.lstat/os.readlink
# (which posixpath.realpath looks up at call time) so that /etc looks like a symlink into the sandbox changes nothing.
FAKE_LINK = """import os, stat
real_lstat, real_readlink, here = os.lstat, os.readlink, os.getcwd()
class St: st_mode = stat.S_IFLNK | 0o777
os.lstat = lambda p, *a, **k: St() if str(p).rstrip('/') == TARGET else real_lstat(p, *a, **k)
os.readlink = lambda p, *a, **k: here if str(p).rstrip('/') == TARGET else real_readlink(p, *a, **k)
import posixpath
posixpath.os = os
"""

@pytest.mark.parametrize("target,action,event", [
    ("/etc", "print(open('/etc/hostname').read())", "open"),
    ("/etc", "open('/etc/cw-owned', 'w').write('x')", "open"),
    ("/tmp", "import os\nos.mkdir('/tmp/cw-owned-dir')", "os.mkdir"),
    ("/usr", "import os\nprint(os.listdir('/usr'))", "os.listdir"),
])
def test_monkeypatched_path_functions_do_not_fool_the_hook(target, action, event):
    r = run_script(f"TARGET = {target!r}\n" + FAKE_LINK + action, FAST, isolation="hook")
    assert (r.status, r.violation["event"]) == ("violation", event), r
    assert not os.path.exists("/etc/cw-owned") and not os.path.exists("/tmp/cw-owned-dir")


@pytest.mark.parametrize("code,out", [
    ("import os\nprint(os.path.exists('/etc/passwd'), os.path.exists('/'), os.access('/etc/shadow', os.F_OK))", "False False False"),
    ("import os\ntry: os.stat('/etc/passwd')\nexcept FileNotFoundError as e: print('absent')", "absent"),
    ("import os\ntry: os.readlink('/proc/self/exe')\nexcept FileNotFoundError: print('absent')", "absent"),
    ("import os, pathlib\nprint(pathlib.Path('/etc/passwd').exists(), os.path.isdir('/home'))", "False False"),
    # inside the sandbox and the read-only roots metadata calls work as usual
    ("import os, json\nopen('f', 'w').write('abc')\nprint(os.stat('f').st_size, os.path.exists(json.__file__), os.access('f', os.W_OK))", "3 True True"),
])
def test_metadata_of_host_paths_is_hidden(code, out):
    r = run_script(code, FAST, isolation="hook")
    assert (r.status, r.stdout.strip()) == ("ok", out), r


def test_total_disk_use_is_capped():
    "Each file stays under the file-size limit, but together they pass the disk limit: the parent stops the run."
    lim = Limits(wall_s=20, cpu_s=10, memory_mb=768, fsize_mb=1, disk_mb=4)
    r = run_script("import time\nfor i in range(64):\n    open(f'f{i}', 'wb').write(b'x' * 1000000)\n    time.sleep(0.01)\ntime.sleep(30)", lim, isolation="hook")
    assert (r.status, r.reason) == ("crashed", "wrote more than the disk limit of 4 MiB in its directory"), r
    with pytest.raises(ValueError, match="disk_mb"): Limits(disk_mb=0)
