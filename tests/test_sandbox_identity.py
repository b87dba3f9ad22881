"""The sandbox's own identity, the same at both levels: the child sees user and group 65534, no parent, the host name
`sandbox`, and nothing of the host's kernel, boot or load in /proc (or /etc, which is absent).

Before: at the hook level os.getuid/geteuid/getgid/getegid/getresuid/getresgid answered the host's ids and os.getppid the
parent's host pid; at the namespace level /proc/sys/kernel/osrelease, /proc/version, /proc/loadavg, /proc/cmdline and the
boot id were the host's, and /proc/sys/kernel/hostname (and uname's node name without the hook) the host's name."""
import os, shutil, subprocess, sys
import pytest
from compoworld_nb.sandbox import Limits, _NEUTRAL_PROC, bwrap_argv, namespaces_available, read_roots, run_script

FAST = Limits(wall_s=20, cpu_s=10, memory_mb=768)
REQUIRE_NS = os.environ.get("COMPOWORLD_REQUIRE_NAMESPACES") == "1"   # CI sets it where bubblewrap works: then it must not skip
needs_ns = pytest.mark.skipif(not namespaces_available() and not REQUIRE_NS, reason="bubblewrap with user namespaces is not available here")

IDS = """import os
print(os.getuid(), os.geteuid(), os.getgid(), os.getegid(), os.getresuid(), os.getresgid(), os.getppid())"""
IDS_ANSWER = "65534 65534 65534 65534 (65534, 65534, 65534) (65534, 65534, 65534) {ppid}"

PROC = """import os
def read(p):
    try: return repr(open(p).read())
    except OSError as e: return type(e).__name__
print(os.uname().nodename, read('/proc/sys/kernel/hostname'), read('/etc/hostname'))
for p in %r: print(p, read(p) if os.path.exists(p) else 'absent')
""" % (_NEUTRAL_PROC,)


def test_user_group_and_parent_ids_are_the_sandbox_s_at_the_hook_level():
    r = run_script(IDS, FAST, isolation="hook")
    assert (r.status, r.violation, r.stdout.splitlines()) == ("ok", None, [IDS_ANSWER.format(ppid=0)]), r


@needs_ns
def test_user_group_and_parent_ids_are_the_sandbox_s_at_the_namespace_level():
    r = run_script(IDS, FAST, isolation="namespaces")
    assert (r.status, r.stdout.splitlines()) == ("ok", [IDS_ANSWER.format(ppid=0)]), r          # the hook's answers
    r = run_script(IDS, FAST, isolation="namespaces", hook=False)       # the bootstrap's stubs without the hook
    assert (r.status, r.stdout.splitlines()) == ("ok", [IDS_ANSWER.format(ppid=0)]), r


def _bare_bwrap(tmp_path, code):
    "Run `code` under bwrap_argv alone: no bootstrap, no stubs, no audit hook (the kernel layer by itself)."
    d = os.path.realpath(tmp_path)
    argv = bwrap_argv(d, read_roots(), {"LANG": "C.UTF-8"}, shutil.which("bwrap")) + [sys.executable, "-I", "-c", code]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, cwd=d)


@needs_ns
def test_the_namespace_level_alone_shows_no_host_name_kernel_boot_or_load(tmp_path):
    r = _bare_bwrap(tmp_path, PROC)
    lines = r.stdout.splitlines()
    assert (r.returncode, lines[0]) == (0, "sandbox 'sandbox\\n' FileNotFoundError"), r.stderr
    assert lines[1:] == [f"{p} ''" if os.path.exists(p) else f"{p} absent" for p in _NEUTRAL_PROC]
    r = _bare_bwrap(tmp_path, IDS)                                      # the kernel's own answers: user 65534, parent bwrap (pid 1)
    assert (r.returncode, r.stdout.splitlines()) == (0, [IDS_ANSWER.format(ppid=1)]), r.stderr


@needs_ns
def test_a_neutral_proc_file_cannot_be_written(tmp_path):
    r = _bare_bwrap(tmp_path, "try: open('/proc/loadavg', 'w').write('1 2 3')\nexcept OSError as e: print(e.errno)\n"
                              "print(repr(open('/proc/loadavg').read()))")
    assert (r.returncode, r.stdout.splitlines()) == (0, ["30", "''"]), r.stderr          # EROFS, still empty
