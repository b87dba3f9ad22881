"""`compoworld tasks --out F` over an existing file that is not a task file.

Before: any existing file was replaced without a word (`--out README.md`, `--out notes.txt`, even a system file when run
as root): its contents were lost. After: one line naming --out and what the file holds, exit 2, before any work, the
file untouched; a previous task file (the usual re-run) and an empty file are still replaced."""
import pytest
import compoworld_nb.cli as cli
from compoworld_nb.cli import main
from test_cli_values import one_line_error


class WorkStarted(Exception): pass


@pytest.mark.parametrize("content,needle", [(b"# My notes\nkeep me\n", "line 1 is not a task"), (b"\x89PNG\r\n\x1a\n\x00\xff", "line 1 is not a task"),
                                            (b'{"id": "x"}\n', "line 1 is not a task"), (b"[1, 2]\n", "line 1 is not a task")])
def test_tasks_refuses_to_replace_a_file_that_is_not_a_task_file(tmp_path, capsys, monkeypatch, content, needle):
    def work(*a, **k): raise WorkStarted
    monkeypatch.setattr(cli, "synthesize_tasks", work)
    out = tmp_path / "notes.txt"; out.write_bytes(content)
    msg = one_line_error(capsys, ["tasks", "--out", str(out), "--n", "1"])
    assert f"--out {str(out)!r}" in msg and needle in msg, msg
    assert out.read_bytes() == content and sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_tasks_replaces_a_previous_task_file_and_an_empty_file(tmp_path):
    a, e = tmp_path / "a.jsonl", tmp_path / "e.jsonl"
    e.write_bytes(b"")
    assert main(["tasks", "--out", str(a), "--n", "1", "--seed", "1", "--k", "2", "--l-max", "4"]) == 0
    first = a.read_bytes()
    assert main(["tasks", "--out", str(a), "--n", "1", "--seed", "2", "--k", "2", "--l-max", "4"]) == 0
    assert a.read_bytes() != first and a.read_bytes().startswith(b'{"answer"')
    assert main(["tasks", "--out", str(e), "--n", "1", "--seed", "2", "--k", "2", "--l-max", "4"]) == 0 and e.stat().st_size > 0
