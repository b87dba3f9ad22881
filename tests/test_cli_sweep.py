"""Every option of every `compoworld` command with bad values, and every file input with bad contents (issue 21).

The commands and their options are read from the argparse parser itself (`cli.build_parser()`, plus `train`'s own
parser), so a new option is swept automatically: `test_every_option_has_a_bad_value_case` fails until it has a case
in `CASES`. Each case runs `main(argv)` in-process on a good command line with one option made bad (out of range, of
the wrong type, or contradicting another) and must end with exit status 2 and exactly ONE stderr line
`compoworld: error: ...` that names the value (for a file: its line and what is wrong), with nothing written and no
work started: the functions that start the work (authoring, rollouts, serving, training, ...) are replaced by one that
raises, so a check that comes after the work started shows as a failure here rather than as a long run.
`tests/test_cli_values.py` and `tests/test_hardening.py` hold the deeper checks of single commands."""
from __future__ import annotations
import argparse, json, os, subprocess, sys
from pathlib import Path
import pytest
from compoworld_nb.cli import _Parser, build_parser, main, register_train_cli
from compoworld_nb.trajectory import save_jsonl

REPO = Path(__file__).resolve().parents[1]
TAU2 = REPO.parent / "shared" / "peers" / "tau2_retail"


class WorkStarted(Exception):
    "Raised by the stand-ins of the functions that start a command's work: a bad value got past the checks."


# the first function of each command's work; a check that comes later than these is a check after work started
WORK = {"compoworld_nb.cli": ["_run_demo", "synthesize_tasks"], "compoworld_nb.evaluate": ["evaluate_tasks"],
        "compoworld_nb.arena": ["round_tasks"], "compoworld_nb.serve": ["serve_stdio", "serve_http"],
        "compoworld_nb.resources": ["serve_resources"], "compoworld_nb.synthesize": ["_synthesize"],
        "compoworld_nb.verify": ["verify_library"], "compoworld_nb.export": ["task_row"], "compoworld_nb.fidelity": ["replay"],
        "compoworld_nb.author": ["difficulty_report"], "compoworld_nb.train": ["sft", "grpo"],
        "compoworld_nb.tinymodel": ["build_tiny_model"], "compoworld_nb.pretrained": ["pretrained_dir"]}


def leaves() -> dict[str, argparse.ArgumentParser]:
    "Every leaf command ('train sft' for nested ones) and its parser, read from the parsers themselves."
    out = {}
    def walk(p, path):
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs: out[" ".join(path)] = p; return
        for name, sp in subs[0].choices.items(): walk(sp, [*path, name])
    walk(build_parser(), [])
    out.pop("train")                                   # a stand-in: `train` parses its own arguments (below)
    q = _Parser(prog="compoworld"); register_train_cli(q.add_subparsers(dest="cmd")); walk(q, [])
    return out


def options(p: argparse.ArgumentParser) -> list[str]:
    "The options of a leaf parser: `--flag` (first spelling) or `<dest>` for a positional; -h aside."
    return [a.option_strings[0] if a.option_strings else f"<{a.dest}>" for a in p._actions if not isinstance(a, argparse._HelpAction)]


# a good command line for each command: {option: value}; True is a flag given, a `<dest>` key a positional
BASE = {
    "demo": {"--out": "{tmp}/demo", "--model": "tiny"},
    "tasks": {"--out": "{tmp}/t.jsonl", "--n": "1"},
    "services": {},
    "fidelity": {"<peer>": "tau2-retail", "--expected": "{expected}", "--db": "{db}", "--tasks": "{tau2_tasks}"},
    "tasks-report": {"--tasks": "{tasks}", "--out": "{tmp}/r.png"},
    "evaluate": {"--tasks": "{tasks}", "--policy": "scripted", "--n": "1", "--out": "{tmp}/ev"},
    "serve-mcp": {},
    "synthesize": {"<spec>": "{spec}", "--out": "{tmp}/syn", "--model": "m", "--base-url": "http://127.0.0.1:9/v1"},
    "verify-services": {"--services": "sqlite", "--inputs": "1", "--no-cache": True},
    "arena": {"--rounds": "1", "--out": "{tmp}/ar", "--domains": "commerce", "--n": "1", "--targeted": "1", "--diagnosis": "programmatic"},
    "serve-resources": {"--tasks": "{tasks}"},
    "export": {"--tasks": "{tasks}", "--out": "{tmp}/ex"},
    "train sft": {"--data": "{traj}", "--model": "tiny", "--out": "{tmp}/m"},
    "train grpo": {"--tasks": "{tasks}", "--model": "{model}", "--out": "{tmp}/g"},
}

INT = [("abc", "'abc'"), ("1.5", "'1.5'")]             # wrong type: argparse names the value
FLAG = [("=yes", "'yes'")]                             # a flag given a value

def count(lo: int, *more):
    "Bad values of an integer option whose smallest good value is `lo`: wrong types, below the range, past any sane size."
    return [*INT, (str(lo - 1), str(lo - 1)), ("99999999999999999999999", "99999999999999999999999"), *more]

SEED = [*INT, ("-1", "-1"), ("99999999999999999999999", "99999999999999999999999")]
OUT_DIR = [("", "--out ''"), ("{tasks}", "{tasks}"), ("{full}", "is not empty"), ("/proc/cw-nope/x", "/proc/cw-nope/x")]
PORT = [*INT, ("-1", "'-1'"), ("65536", "'65536'")]
HOST = [("", "--host ''"), ("no-such-host.invalid", "no-such-host.invalid"), ("8.8.8.8", "'8.8.8.8' is not a loopback")]

# (command, option) -> [(value, what the one line must contain)]; a value is either the option's value, "=x" appended to a
# flag, or a dict {option: value} of several options at once (contradictory values; None removes an option)
CASES: dict[tuple[str, str], list] = {
    ("demo", "--out"): OUT_DIR,
    ("demo", "--seed"): SEED,
    ("demo", "--overwrite"): FLAG,
    ("demo", "--tasks"): count(1),
    ("demo", "--heldout"): count(1),
    ("demo", "--k"): [("x", "'x'"), ("1", "'1'"), ("5-3", "'5-3'"), ("999", "999")],
    ("demo", "--l-max"): [*INT, ({"--k": "3", "--l-max": "3"}, "--l-max 3"), ("99999999999999999999999", "99999999999999999999999")],
    ("demo", "--model"): [("nope", "'nope'"), ("", "--model ''"), ("{tmp}", "{tmp}")],
    ("demo", "--json"): FLAG,
    ("tasks", "--out"): [("", "--out ''"), ("{tmp}", "{tmp}"), ("/proc/cw-nope/t.jsonl", "/proc/cw-nope/t.jsonl")],
    ("tasks", "--n"): count(1),
    ("tasks", "--seed"): SEED,
    ("tasks", "--k"): [("x", "'x'"), ("1", "'1'"), ("5-3", "'5-3'"), ("999", "999")],
    ("tasks", "--l-max"): [*INT, ({"--k": "3", "--l-max": "2"}, "--l-max 2"), ("65", "65")],
    ("tasks", "--profile"): [("nope", "'nope'"), ("", "--profile ''")],
    ("tasks", "--executor"): [("nope", "'nope'"), ("", "--executor ''")],
    ("tasks", "--workers"): [*INT, ("0", "0"), ("1025", "1025")],
    ("tasks", "--ray-address"): [("auto", "needs --executor ray")],
    ("tasks", "--json"): FLAG,
    ("services", "--stats"): FLAG,
    ("services", "--trajectories"): [({"--stats": True, "--trajectories": "{tmp}/none.jsonl"}, "{tmp}/none.jsonl"),
                                     ({"--trajectories": "{traj}"}, "needs --stats")],
    ("services", "--json"): FLAG,
    ("fidelity", "<peer>"): [("nope", "'nope'")],
    ("fidelity", "--expected"): [("{tmp}/none", "{tmp}/none"), ("{tasks}", "{tasks}"), ("{tmp}", "holds no")],
    ("fidelity", "--db"): [("{tmp}/none.json", "{tmp}/none.json"), ("{tmp}", "{tmp}")],
    ("fidelity", "--tasks"): [("{tmp}/none.json", "{tmp}/none.json"), ("{tmp}", "{tmp}")],
    ("fidelity", "--no-hash"): FLAG,
    ("fidelity", "--json"): FLAG,
    ("tasks-report", "--tasks"): [("{tmp}/none.jsonl", "{tmp}/none.jsonl"), ("{tmp}", "{tmp}")],
    ("tasks-report", "--out"): [("", "--out ''"), ("{tmp}", "{tmp}"), ("{tmp}/r.xyz", "r.xyz"), ("/proc/cw-nope/r.png", "/proc/cw-nope/r.png")],
    ("tasks-report", "--json"): FLAG,
    ("evaluate", "--tasks"): [("{tmp}/none.jsonl", "{tmp}/none.jsonl"), ("{tmp}", "{tmp}")],
    ("evaluate", "--policy"): [("nope", "'nope'"), ("", "--policy ''"), ("scripted:perturb=2", "perturb"), ("hf:/no/such/dir", "/no/such/dir"),
                               ("scripted:perturb=x", "perturb")],
    ("evaluate", "--n"): count(1),
    ("evaluate", "--out"): [*OUT_DIR, ("{in}", "holds the input")],
    ("evaluate", "--overwrite"): FLAG,
    ("evaluate", "--seed"): SEED,
    ("evaluate", "--max-steps"): count(1),
    ("evaluate", "--workers"): [*INT, ("-1", "-1"), ("99999999999999999999999", "99999999999999999999999")],
    ("evaluate", "--processes"): [*INT, ("-1", "-1"), ("99999999999999999999999", "99999999999999999999999")],
    ("evaluate", "--json"): FLAG,
    ("serve-mcp", "--services"): [("nope", "'nope'"), ("sqlite,nope", "'nope'"), (",", "--services ','")],
    ("serve-mcp", "--seed"): SEED,
    ("serve-mcp", "--tasks"): [("{tmp}/none.jsonl", "{tmp}/none.jsonl"), ({"--tasks": "{tasks}", "--services": "sqlite"}, "exclude each other")],
    ("serve-mcp", "--task-id"): [("t1", "needs --tasks"), ({"--tasks": "{tasks}", "--task-id": "nope"}, "'nope'")],
    ("serve-mcp", "--transport"): [("nope", "'nope'")],
    ("serve-mcp", "--host"): [({"--transport": "http", "--host": h}, n) for h, n in HOST] + [("0.0.0.0", "needs --transport http")],
    ("serve-mcp", "--port"): PORT + [("8000", "needs --transport http")],
    ("serve-mcp", "--allow-remote"): FLAG + [("", "needs --transport http")],
    ("synthesize", "<spec>"): [("{tmp}/none.json", "{tmp}/none.json"), ("no-such-slug", "'no-such-slug'"), ("{tmp}", "{tmp}")],
    ("synthesize", "--out"): [("", "--out ''"), ("{tasks}", "{tasks}"), ("/proc/cw-nope/x", "/proc/cw-nope/x")],
    ("synthesize", "--max-repairs"): count(0),
    ("synthesize", "--model"): [("", "--model ''")],
    ("synthesize", "--base-url"): [("", "--base-url ''"), ("not a url", "'not a url'"), ("ftp://x/v1", "'ftp://x/v1'")],
    ("synthesize", "--json"): FLAG,
    ("verify-services", "--services"): [("nope", "'nope'"), ("sqlite,nope", "'nope'")],
    ("verify-services", "--inputs"): count(1),
    ("verify-services", "--seed"): SEED,
    ("verify-services", "--cache-dir"): [("/proc/cw-nope", "/proc/cw-nope"), ("{tasks}", "{tasks}"), ("", "--cache-dir ''")],
    ("verify-services", "--no-cache"): FLAG,
    ("verify-services", "--json"): FLAG,
    ("arena", "--rounds"): count(1),
    ("arena", "--out"): OUT_DIR,
    ("arena", "--overwrite"): FLAG,
    ("arena", "--seed"): SEED,
    ("arena", "--policy"): [("nope", "'nope'"), ("", "--policy ''"), ("hf:/no/such/dir", "/no/such/dir"), ("scripted:perturb=2", "perturb")],
    ("arena", "--per-domain"): count(1),
    ("arena", "--domains"): [("nope", "'nope'"), (",", "--domains ','")],
    ("arena", "--tasks-per-service"): count(1),
    ("arena", "--n"): count(1),
    ("arena", "--top"): count(1),
    ("arena", "--targeted"): count(1),
    ("arena", "--max-steps"): count(1),
    ("arena", "--sft-steps"): count(0),
    ("arena", "--grpo-steps"): count(0),
    ("arena", "--diagnosis"): [("nope", "'nope'")],
    ("arena", "--executor"): [("nope", "'nope'")],
    ("arena", "--workers"): [*INT, ("0", "0"), ("1025", "1025")],
    ("arena", "--ray-address"): [("auto", "needs --executor ray")],
    ("arena", "--json"): FLAG,
    ("serve-resources", "--tasks"): [("{tmp}/none.jsonl", "{tmp}/none.jsonl"), ("{tmp}", "{tmp}")],
    ("serve-resources", "--host"): HOST,
    ("serve-resources", "--port"): PORT,
    ("serve-resources", "--allow-remote"): FLAG,
    ("export", "--tasks"): [("{tmp}/none.jsonl", "{tmp}/none.jsonl"), ("{tmp}", "{tmp}")],
    ("export", "--trajectories"): [("{tmp}/none.jsonl", "{tmp}/none.jsonl"), ("{tmp}", "{tmp}")],
    ("export", "--out"): [*OUT_DIR, ("{in}", "{in}")],
    ("export", "--json"): FLAG,
}
for cmd in ("train sft", "train grpo"):                 # the options both train commands share
    CASES.update({
        (cmd, "--model"): [("{tmp}/none", "{tmp}/none"), ("", "--model ''")],
        (cmd, "--out"): [("{tasks}", "{tasks}"), ("", "--out ''"), ("/proc/cw-nope/m", "/proc/cw-nope/m")],
        (cmd, "--profile"): [("nope", "'nope'"), ("", "--profile ''")],
        (cmd, "--lr"): [("abc", "'abc'"), ("0", "'0'"), ("-0.001", "'-0.001'"), ("nan", "'nan'"), ("inf", "'inf'")],
        (cmd, "--max-steps"): [*INT, ("0", "'0'"), ("-2", "'-2'")],
        (cmd, "--backend"): [("nope", "'nope'")],
        (cmd, "--lora"): FLAG,
        (cmd, "--lora-r"): [*INT, ("0", "'0'"), ("99999999999999999999999", "99999999999999999999999")],
        (cmd, "--seed"): SEED,
        (cmd, "--threads"): [*INT, ("0", "'0'"), ("99999999999999999999999", "99999999999999999999999")],
        (cmd, "--json"): FLAG,
    })
CASES.update({
    ("train sft", "--data"): [("{tmp}/none.jsonl", "{tmp}/none.jsonl"), ("{tmp}", "{tmp}")],
    ("train sft", "--epochs"): [("abc", "'abc'"), ("0", "'0'"), ("nan", "'nan'"), ("inf", "'inf'")],
    ("train sft", "--batch"): [*INT, ("0", "'0'"), ("99999999999999999999999", "99999999999999999999999")],
    ("train sft", "--max-length"): [*INT, ("0", "'0'"), ("99999999999999999999999", "99999999999999999999999")],
    ("train sft", "--vocab"): [*INT, ("0", "'0'"), ("99999999999999999999999", "99999999999999999999999")],
    ("train sft", "--hidden"): [*INT, ("0", "'0'"), ("24", "--hidden 24"), ("99999999999999999999999", "99999999999999999999999")],
    ("train sft", "--layers"): [*INT, ("0", "'0'"), ("99999999999999999999999", "99999999999999999999999")],
    ("train grpo", "--tasks"): [("{tmp}/none.jsonl", "{tmp}/none.jsonl"), ("{tmp}", "{tmp}")],
    ("train grpo", "--n"): [*INT, ("1", "--n 1"), ("99999999999999999999999", "99999999999999999999999")],
    ("train grpo", "--lam"): [("abc", "'abc'"), ("0", "'0'"), ("nan", "'nan'"), ("inf", "'inf'")],
    ("train grpo", "--max-turns"): [*INT, ("0", "'0'"), ("99999999999999999999999", "99999999999999999999999")],
    ("train grpo", "--max-completion-length"): [*INT, ("0", "'0'"), ("99999999999999999999999", "99999999999999999999999")],
    ("train grpo", "--temperature"): [("abc", "'abc'"), ("0", "'0'"), ("nan", "'nan'"), ("inf", "'inf'")],
    ("train grpo", "--reward"): [("nope", "'nope'"), ("", "--reward ''")],
    ("train grpo", "--obs-chars"): [*INT, ("0", "'0'"), ("40", "--obs-chars '40' must be at least 160 (harness.MIN_PAGE_CHARS"),
                                   ("99999999999999999999999", "99999999999999999999999")],
})


@pytest.fixture(scope="module")
def trajectory(small_task):
    from compoworld_nb.author import default_library
    from compoworld_nb.harness import rollout_group
    from compoworld_nb.policies import make_policy
    return rollout_group(small_task, lambda: make_policy("scripted"), default_library()[0], n=1, seed=0, max_steps=24)[0]


@pytest.fixture
def world(tmp_path, small_task, trajectory, monkeypatch):
    "Input files of a good command line under tmp/in, the placeholders of `BASE`/`CASES`, and the work functions replaced."
    import importlib
    def started(*a, **k): raise WorkStarted("work started")
    for mod, names in WORK.items():
        m = importlib.import_module(mod)
        for n in names: monkeypatch.setattr(m, n, started)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False); monkeypatch.delenv("COMPOWORLD_MODEL_BASE_URL", raising=False)
    d = tmp_path / "in"; d.mkdir()
    save_jsonl(d / "tasks.jsonl", [small_task]); save_jsonl(d / "traj.jsonl", [trajectory])
    (d / "model").mkdir(); (d / "model" / "config.json").write_text("{}")
    (d / "expected").mkdir(); (d / "expected" / "0.json").write_bytes((TAU2 / "expected" / "0.json").read_bytes())
    (d / "full").mkdir(); (d / "full" / "notes.txt").write_text("mine")
    (d / "spec.json").write_bytes((REPO.parent / "shared" / "specs" / "mcp" / "filesystem.json").read_bytes())
    return {"tmp": str(tmp_path), "in": str(d), "tasks": str(d / "tasks.jsonl"), "traj": str(d / "traj.jsonl"), "model": str(d / "model"),
            "expected": str(d / "expected"), "db": str(TAU2 / "db.json"), "tau2_tasks": str(TAU2 / "tasks.json"), "full": str(d / "full"),
            "spec": str(d / "spec.json")}


def argv_of(cmd: str, opts: dict, w: dict) -> list[str]:
    "The command line of `cmd` with options `opts` (placeholders filled in from `w`)."
    pos = [v.format(**w) for k, v in opts.items() if k.startswith("<") and v is not None]
    rest = []
    for k, v in opts.items():
        if k.startswith("<") or v is None or v is False: continue
        if v is True: rest.append(k)
        elif v.startswith("=") and k in FLAGS.get(cmd, ()): rest.append(k + v)
        else: rest += [k, v.format(**w)]
    return [*cmd.split(), *pos, *rest]


FLAGS = {cmd: {a.option_strings[0] for a in p._actions if a.nargs == 0 and a.option_strings} for cmd, p in leaves().items()}


def snapshot(root: Path) -> dict:
    return {str(p.relative_to(root)): (p.is_dir(), p.stat().st_size if p.is_file() else 0, p.stat().st_mtime_ns) for p in root.rglob("*")}


def one_line_error(capsys, argv) -> str:
    "Run `compoworld argv` in-process; assert exit 2 and exactly one stderr line (tqdm bars aside); return it."
    try: rc = main(argv)
    except SystemExit as e: rc = e.code
    err = [l for l in capsys.readouterr().err.splitlines() if l.strip() and not l.startswith(("evaluating", "round "))]
    assert rc == 2 and len(err) == 1 and err[0].startswith("compoworld: error: "), (argv, rc, err)
    return err[0]


def bad_cases():
    for (cmd, opt), vals in CASES.items():
        for i, (v, needle) in enumerate(vals): yield pytest.param(cmd, opt, v, needle, id=f"{cmd}/{opt}/{i}")


def test_every_option_has_a_bad_value_case():
    "A new option (or command) needs a bad-value case here: the sweep is read from the parsers."
    have = {(c, o) for c, o in CASES}
    missing = [(c, o) for c, p in leaves().items() for o in options(p) if (c, o) not in have]
    stale = sorted(have - {(c, o) for c, p in leaves().items() for o in options(p)})
    assert missing == [] and stale == [], (missing, stale)
    assert all(CASES[k] for k in CASES)


@pytest.mark.parametrize("cmd", list(BASE))
def test_the_good_command_line_reaches_the_work(world, capsys, cmd):
    "Each base command line is good: it passes every check and gets as far as starting the work (so a bad case fails only by its value)."
    argv = argv_of(cmd, BASE[cmd], world)
    if cmd == "services": assert main(argv) == 0; return
    with pytest.raises(WorkStarted): main(argv)


@pytest.mark.parametrize("cmd,opt,value,needle", list(bad_cases()))
def test_a_bad_value_is_one_line_before_any_work(world, capsys, cmd, opt, value, needle):
    opts = dict(BASE[cmd])
    if isinstance(value, dict): opts.update(value)
    else: opts[opt] = value if value.startswith("=") or opt not in FLAGS[cmd] else True
    if isinstance(value, str) and value.startswith("=") and opt not in FLAGS[cmd]: opts[opt] = value
    tmp = Path(world["tmp"]); before = snapshot(tmp)
    msg = one_line_error(capsys, argv_of(cmd, opts, world))
    assert needle.format(**world) in msg, msg
    assert snapshot(tmp) == before, "something was written"


# every file a command reads: (command, option) -> (its format, other options the check needs). The parser marks no option
# as a file, so `test_every_file_option_is_swept` finds them by their help text ("file", "JSONL", ".json") and fails for one
# missing here; NOT_FILES are the options whose help mentions a file but that take none (outputs are swept in CASES)
NOT_FILES = {("serve-mcp", "--task-id"), ("tasks", "--out"), ("tasks", "--profile"), ("train sft", "--profile"), ("train grpo", "--profile"),
             ("tasks-report", "--out"), ("demo", "--out"), ("export", "--out"), ("evaluate", "--out"), ("synthesize", "--out"),
             ("arena", "--out"), ("verify-services", "--cache-dir"), ("train sft", "--out"), ("train grpo", "--out")}
FILE_INPUTS = {
    ("tasks-report", "--tasks"): ("jsonl", {}), ("evaluate", "--tasks"): ("jsonl", {}), ("serve-mcp", "--tasks"): ("jsonl", {}),
    ("serve-resources", "--tasks"): ("jsonl", {}), ("export", "--tasks"): ("jsonl", {}), ("train grpo", "--tasks"): ("jsonl", {}),
    ("export", "--trajectories"): ("jsonl", {}), ("services", "--trajectories"): ("jsonl", {"--stats": True}),
    ("train sft", "--data"): ("jsonl", {}),
    ("synthesize", "<spec>"): ("json", {}), ("fidelity", "--db"): ("json", {}), ("fidelity", "--tasks"): ("json", {}),
    ("fidelity", "--expected"): ("json-in-folder", {}),
}
GOOD = {("export", "--trajectories"): "traj", ("services", "--trajectories"): "traj", ("train sft", "--data"): "traj",
        ("synthesize", "<spec>"): "spec", ("fidelity", "--db"): "db", ("fidelity", "--tasks"): "tau2_tasks"}


def bad_contents(good: bytes, fmt: str) -> dict:
    "Bad versions of a good file: (bytes, what the one line must say); JSONL ones name the line."
    first = good.splitlines()[0] if good.strip() else b"{}"
    if fmt == "jsonl":
        return {"empty": (b"", "holds no"), "binary": (b"\x89PNG\r\n\x1a\n\x00\xff\xfe", "line 1"),
                "truncated": (first + b"\n" + first[: len(first) // 2], "line 2"),
                "schema-violating": (first + b"\n" + json.dumps({"id": 1, "u": None, "prompt": [1]}).encode(), "line 2")}
    return {"empty": (b"", ""), "binary": (b"\x89PNG\r\n\x1a\n\x00\xff\xfe", ""), "truncated": (good[: len(good) // 2], "line"),
            "schema-violating": (json.dumps({"unexpected": [1, 2]}).encode(), "")}


def file_cases():
    for (cmd, opt), (fmt, _) in FILE_INPUTS.items():
        for kind in ("empty", "binary", "truncated", "schema-violating"):
            yield pytest.param(cmd, opt, kind, id=f"{cmd}/{opt}/{kind}")


def test_every_file_option_is_swept():
    words = ("file", "jsonl", ".json", "db.json", "tasks.json", "folder of")
    found = {(c, o) for c, p in leaves().items() for a in p._actions if not isinstance(a, argparse._HelpAction)
             for o in [a.option_strings[0] if a.option_strings else f"<{a.dest}>"]
             if any(w in (a.help or "").lower() for w in words)}
    assert sorted(found - set(FILE_INPUTS) - NOT_FILES) == [], "file options with no bad-content sweep"


@pytest.mark.parametrize("cmd,opt,kind", list(file_cases()))
def test_a_bad_file_is_one_line_naming_it_before_any_work(world, capsys, cmd, opt, kind):
    fmt, extra = FILE_INPUTS[(cmd, opt)]
    src = Path(world[GOOD.get((cmd, opt), "tasks")]) if fmt != "json-in-folder" else Path(world["expected"]) / "0.json"
    content, needle = bad_contents(src.read_bytes(), "jsonl" if fmt == "jsonl" else "json")[kind]
    tmp = Path(world["tmp"])
    if fmt == "json-in-folder":
        d = tmp / "in" / "bad_expected"; d.mkdir(); (d / "0.json").write_bytes(content); path = str(d)
    else:
        f = tmp / "in" / f"bad{src.suffix}"; f.write_bytes(content); path = str(f)
    opts = {**BASE[cmd], **extra, opt: path}
    before = snapshot(tmp)
    msg = one_line_error(capsys, argv_of(cmd, opts, world))
    assert path in msg and needle in msg, msg
    assert snapshot(tmp) == before, "something was written"


def test_bad_values_end_without_a_traceback_in_a_real_process(tmp_path):
    "The console script itself (a fresh process, no stand-ins): a bad number, a bad file and a contradiction are one stderr line each."
    (tmp_path / "bin.jsonl").write_bytes(b"\x00\xff")
    for argv in (["tasks", "--out", str(tmp_path / "t.jsonl"), "--seed", "-1"],
                 ["evaluate", "--tasks", str(tmp_path / "bin.jsonl"), "--policy", "scripted", "--n", "1", "--out", str(tmp_path / "ev")],
                 ["serve-mcp", "--port", "9000"]):
        r = subprocess.run([sys.executable, "-c", "import sys; from compoworld_nb.cli import main; sys.exit(main())", *argv], capture_output=True, text=True, timeout=600, cwd=REPO)
        err = [l for l in r.stderr.splitlines() if l.strip()]
        assert r.returncode == 2 and len(err) == 1 and err[0].startswith("compoworld: error: ") and "Traceback" not in r.stderr, (argv, r.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bin.jsonl"]
