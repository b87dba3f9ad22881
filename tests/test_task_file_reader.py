"""One task-file reader (`task.load_tasks`) for every command that takes `--tasks`.

Before: `compoworld tasks-report` read the file with a plain `Task.model_validate_json`, looser than the reader
`evaluate`, `export`, `serve-mcp`, `serve-resources` and `train grpo` use: a rubric criterion of an unknown kind or a
task naming a service the library lacks was reported on (exit 0), and a task id used twice counted once ("2 tasks"
from 3 lines) without a word. After: one line naming the file and the line, exit 2, before any work (no plot)."""
import json
import pytest
from compoworld_nb.cli import main


def _bad_file(tmp_path, small_task, case):
    row = json.loads(small_task.model_dump_json())
    f = tmp_path / f"{case}.jsonl"
    if case == "kind": bad = {**row, "id": "t_bad", "rubric": [{**row["rubric"][0], "kind": "nope"}]}
    elif case == "service": bad = {**row, "id": "t_bad", "distractors": [*row["distractors"], "no_such_service"]}
    else: bad = row
    f.write_text(json.dumps(row) + "\n\n" + json.dumps(bad) + "\n")   # the blank line: the line named is the file's own
    return f


@pytest.mark.parametrize("case,why", [
    ("kind", "rubric: criterion 'c1': kind: Input should be 'state', 'unchanged' or 'output'"),
    ("service", "task 't_bad' needs services ['no_such_service'] that are not in the library"),
    ("dup", "task id {id!r} is already used by an earlier line (task ids must be unique)")])
def test_tasks_report_refuses_a_bad_task_file_in_one_line(tmp_path, small_task, capsys, case, why):
    f = _bad_file(tmp_path, small_task, case)
    if case == "kind": assert small_task.rubric[0]["id"] == "c1"
    png = tmp_path / "r.png"
    assert main(["tasks-report", "--tasks", str(f), "--out", str(png)]) == 2
    err = [l for l in capsys.readouterr().err.splitlines() if l.strip()]
    assert err == [f"compoworld: error: --tasks {str(f)!r} line 3: " + why.format(id=small_task.id)], err
    assert not png.exists()


def test_every_task_reader_is_the_one_in_task():
    import compoworld_nb.evaluate as ev, compoworld_nb.task as task
    assert ev.load_tasks is task.load_tasks
