"""A task line with an empty id or an empty instruction.

Before: both loaded and ran ("1 trajectories of 1 tasks, pass rate 1.000" for a task whose u was ""; an id "" keyed
the task table and named its rows). After: the Task contract refuses them, so every task reader names the line."""
import json
import pytest
from pydantic import ValidationError
from compoworld_nb.task import TaskFileError, load_tasks
from compoworld_nb.task import Task
from compoworld_nb.author import default_library
LIB, _ = default_library()   # tests/conftest.py builds the same; "from conftest import" resolves to tests/services/conftest.py in a whole-suite run


@pytest.mark.parametrize("field,value,needle", [("id", "", "id: Value error, the task id is empty"), ("id", "  ", "the task id is empty"),
                                                ("u", "", "u: Value error, the task instruction u is empty"), ("u", "\n\t", "instruction u is empty")])
def test_a_blank_id_or_instruction_is_no_task(tmp_path, small_task, field, value, needle):
    row = {**json.loads(small_task.model_dump_json()), field: value}
    f = tmp_path / "t.jsonl"; f.write_text(json.dumps(row) + "\n")
    with pytest.raises(TaskFileError) as e: load_tasks(f, LIB)
    assert f"line 1: {needle}" in str(e.value) or needle in str(e.value), str(e.value)
    with pytest.raises(ValidationError): Task(**row)
