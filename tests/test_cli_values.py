"""Bad values and bad files on the command line (issue 21): every case ends with ONE line `compoworld: error: ...` naming
the value (and, for a file, its line) and exit status 2, before any work and without writing anything; never a traceback."""
import json, os
import pytest
from compoworld_nb.cli import main

@pytest.fixture(scope="module")
def task_line(small_task): return small_task.to_jsonl()


def one_line_error(capsys, argv) -> str:
    "Run `compoworld argv`; assert exit 2 and exactly one stderr line; return it."
    try: rc = main(argv)
    except SystemExit as e: rc = e.code                     # argparse's own one-line errors exit 2
    err = [l for l in capsys.readouterr().err.splitlines() if l.strip()]
    assert rc == 2 and len(err) == 1 and err[0].startswith("compoworld: error: "), (argv, rc, err)
    return err[0]


# file contents that are not a tasks file: (name, bytes builder, what the message must name)
BAD_FILES = [
    ("missing", None, "does not exist"),
    ("empty", lambda t: b"", "holds no tasks"),
    ("blank lines", lambda t: b"\n \n", "holds no tasks"),
    ("binary", lambda t: b"\x00\x01\xff\xfe", "line 1: not UTF-8 text"),
    ("garbage", lambda t: b"garbage{", "line 1: not JSON"),
    ("truncated", lambda t: (t + "\n" + t[: len(t) // 2]).encode(), "line 2: not JSON"),
    ("schema-violating", lambda t: (t + "\n" + json.dumps({"id": 1, "prompt": None})).encode(), "line 2:"),
    ("a JSON list", lambda t: b"[1, 2]", "line 1:"),
]


@pytest.mark.parametrize("name,content,needle", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_tasks_report_names_a_bad_tasks_file_and_writes_nothing(tmp_path, capsys, task_line, name, content, needle):
    f = tmp_path / "t.jsonl"
    if content is not None: f.write_bytes(content(task_line))
    msg = one_line_error(capsys, ["tasks-report", "--tasks", str(f), "--out", str(tmp_path / "r.png")])
    assert f"--tasks {str(f)!r}" in msg and needle in msg, msg
    assert not (tmp_path / "r.png").exists()


@pytest.mark.parametrize("out,needle", [("", "--out '' is empty"), ("{tmp}", "is a directory"), ("{tmp}/r.xyz", "not an image format"),
                                        ("/proc/cw-nope/r.png", "is not writable")])
def test_tasks_report_names_a_bad_out_before_reading_anything(tmp_path, capsys, task_line, out, needle):
    f = tmp_path / "t.jsonl"; f.write_text(task_line + "\n")
    msg = one_line_error(capsys, ["tasks-report", "--tasks", str(f), "--out", out.format(tmp=tmp_path)])
    assert needle in msg and sorted(p.name for p in tmp_path.iterdir()) == ["t.jsonl"]


def test_tasks_report_on_a_good_file(tmp_path, capsys, task_line):
    other = json.dumps({**json.loads(task_line), "id": "t_other"})   # two tasks: one id twice is a bad file (test_task_file_reader)
    f = tmp_path / "t.jsonl"; f.write_text(task_line + "\n" + other + "\n")
    assert main(["tasks-report", "--tasks", str(f), "--out", str(tmp_path / "r.png"), "--json"]) == 0
    res = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert res["n"] == 2 and res["path"] == str(tmp_path / "r.png") and (tmp_path / "r.png").stat().st_size > 5000


def test_arena_refuses_a_non_empty_out_unless_overwrite_and_then_keeps_what_is_not_ours(tmp_path, capsys):
    out = tmp_path / "run"; out.mkdir(); (out / "notes.txt").write_text("mine")
    base = ["arena", "--rounds", "1", "--out", str(out), "--domains", "commerce", "--n", "1", "--targeted", "1", "--diagnosis", "programmatic"]
    msg = one_line_error(capsys, base)
    assert "is not empty" in msg and "--overwrite" in msg and sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    assert main(base + ["--overwrite", "--json"]) == 0
    res = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert res["rounds"] == 1 and (out / "notes.txt").read_text() == "mine" and (out / "summary.json").is_file()
    assert not [p for p in out.iterdir() if p.name.startswith(".compoworld")]


@pytest.mark.parametrize("cmd", ["tasks", "demo"])
@pytest.mark.parametrize("l_max,needle", [("99999999999999999999999", "99999999999999999999999 is out of range"), ("65", "MAX_L=64"), ("2", "must be greater than K"),
                                          ("abc", "invalid int value")])
def test_an_l_max_out_of_range_is_one_line_before_any_work(tmp_path, capsys, cmd, l_max, needle):
    "Found by the sweep: --l-max 1e23 recursed in the walk planner until RecursionError (demo) or ran without end (tasks)."
    out = tmp_path / ("t.jsonl" if cmd == "tasks" else "demo")
    msg = one_line_error(capsys, [cmd, "--out", str(out), "--l-max", l_max])
    assert needle in msg and not out.exists() and list(tmp_path.iterdir()) == []


def test_walk_settings_refuse_an_l_range_above_max_l():
    from compoworld_nb.walk import MAX_L, sample_length, walk_settings
    import random
    with pytest.raises(ValueError, match=f"at most MAX_L={MAX_L}"): walk_settings(k=2, l_min=3, l_max=MAX_L + 1)
    with pytest.raises(ValueError, match="at most MAX_L"): sample_length(random.Random(0), 2, 3, 10 ** 23)
    assert walk_settings(k=2, l_min=3, l_max=MAX_L)["l_max"] == MAX_L


@pytest.mark.parametrize("argv,needle", [
    (["--n", "100000000000000000000000"], "argument --n: 100000000000000000000000 is out of range (-1,000,000 .. 1,000,000)"),
    (["--n", "0"], "--n 0 must be between 1 and 1,000,000"),
    (["--workers", "1000000000"], "argument --workers: 1000000000 is out of range"),
    (["--workers", "1025"], "--workers 1025 must be an integer between 1 and 1024"),
    (["--workers", "0"], "--workers 0 must be an integer between 1 and 1024"),
    (["--profile", ""], "--profile '': profile='' not found"),
    (["--profile", "nope"], "--profile 'nope': profile='nope' not found")])
def test_tasks_counts_and_profile_out_of_range_are_one_line_before_any_work(tmp_path, capsys, argv, needle):
    "Found by the sweep: a huge --n or --workers was accepted (a run for years), and --profile '' silently meant no profile."
    out = tmp_path / "t.jsonl"
    msg = one_line_error(capsys, ["tasks", "--out", str(out), *argv])
    assert needle in msg, msg
    assert list(tmp_path.iterdir()) == []

def test_an_l_max_below_the_profiles_shortest_walk_caps_it(tmp_path, capsys):
    # `tasks --k 2 --l-max 4` under the default profile (l_min 7) raised a ValueError from walk_settings; like the demo,
    # the flag now caps the profile's shortest walk, and every task's walk fits it
    out = tmp_path / "t.jsonl"
    assert main(["tasks", "--n", "2", "--seed", "0", "--k", "2", "--l-max", "4", "--out", str(out)]) in (0, None)
    tasks = [json.loads(l) for l in out.read_text().splitlines()]
    assert len(tasks) == 2 and all(t["meta"]["K"] == 2 and t["meta"]["L"] <= 4 for t in tasks), [t["meta"] for t in tasks]
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["tasks"], ["demo"], ["tasks-report", "--tasks", "t.jsonl"],
                                  ["train", "sft", "--model", "tiny", "--data", "d.jsonl"]], ids=lambda a: " ".join(a[:2]))
@pytest.mark.parametrize("out", ["", " ", "\t "])
def test_an_empty_out_is_named_as_typed(tmp_path, capsys, monkeypatch, argv, out):
    "Found in review: `--out ' '` was reported as `--out '' is empty` (the stripped form, not what was typed), in every command."
    monkeypatch.chdir(tmp_path)
    msg = one_line_error(capsys, argv + ["--out", out])
    assert f"--out {out!r} is empty" in msg and list(tmp_path.iterdir()) == [], msg


@pytest.mark.parametrize("argv", [["tasks", "--out", "cw-nope/t.jsonl"], ["demo", "--out", "cw-nope/d"],
                                  ["tasks-report", "--tasks", "t.jsonl", "--out", "cw-nope/r.png"]], ids=lambda a: a[0])
def test_an_unwritable_relative_out_is_named_as_typed(monkeypatch, capsys, argv):
    "`tasks` named an unwritable relative `--out` by its absolute path (`/proc/cw-nope/t.jsonl`), not as typed."
    monkeypatch.chdir("/proc")
    msg = one_line_error(capsys, argv)
    assert f"--out {argv[-1]!r} is not writable" in msg, msg
