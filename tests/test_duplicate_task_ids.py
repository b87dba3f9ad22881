"""A task file that holds one task id twice (e.g. two task files concatenated).

Before: `evaluate` read three lines as two tasks ("3 trajectories of 2 tasks": the later line replaced the earlier in
the id-keyed task table, so a trajectory could be scored with another task's rubric), and `train grpo` built its
environments the same way. After: one line naming the file and the repeated line, exit 2, before any work."""
import json
import pytest
import compoworld_nb.cli as cli
from compoworld_nb.cli import main
from compoworld_nb.task import TaskFileError, load_tasks
from compoworld_nb.author import default_library
LIB, _ = default_library()   # tests/conftest.py builds the same; "from conftest import" resolves to tests/services/conftest.py in a whole-suite run


def _dup_file(tmp_path, small_task):
    f = tmp_path / "dup.jsonl"
    line = small_task.model_dump_json()
    f.write_text(line + "\n\n" + line + "\n")   # the blank line: the line number read_jsonl names is the file's own
    return f


def test_load_tasks_names_the_line_that_repeats_an_id(tmp_path, small_task):
    f = _dup_file(tmp_path, small_task)
    with pytest.raises(TaskFileError) as e: load_tasks(f, LIB)
    assert str(e.value) == f"--tasks {str(f)!r} line 3: task id {small_task.id!r} is already used by an earlier line (task ids must be unique)"


def test_evaluate_and_train_grpo_refuse_a_repeated_task_id_in_one_line(tmp_path, small_task, capsys):
    f = _dup_file(tmp_path, small_task)
    assert main(["evaluate", "--tasks", str(f), "--policy", "scripted", "--n", "1", "--out", str(tmp_path / "ev")]) == 2
    err = [l for l in capsys.readouterr().err.splitlines() if l.strip()]
    assert len(err) == 1 and "line 3: task id" in err[0] and not (tmp_path / "ev").exists(), err
    model = tmp_path / "m"; model.mkdir(); (model / "config.json").write_text("{}")   # the tasks are read before the model loads
    rc = main(["train", "grpo", "--model", str(model), "--tasks", str(f), "--out", str(tmp_path / "o")])
    err = [l for l in capsys.readouterr().err.splitlines() if l.strip()]
    assert rc == 2 and err == [f"compoworld: error: --tasks {str(f)!r} line 3: task id {small_task.id!r} is already used by an earlier line (task ids must be unique)"], err
    assert not (tmp_path / "o").exists()
