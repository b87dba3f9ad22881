"""Walk settings out of range that come from the environment or settings.ini, not from a flag.

Before: `COMPOWORLD_WALK_K=-5 compoworld tasks ...` (or walk.distractors = -1 in settings.ini) passed every CLI check and
failed inside authoring with a traceback (`ValueError: k=-5 must be >= 2` from walk.walk_settings, in the executor).
After: the walk's own check runs before any work and is one line, exit 2."""
import pytest
import compoworld_nb.cli as cli
from test_cli_values import one_line_error


@pytest.mark.parametrize("var,value,needle", [("COMPOWORLD_WALK_K", "-5", "k=-5 must be >= 2"),
                                              ("COMPOWORLD_WALK_DISTRACTORS", "-1", "distractors=-1 must be >= 0")])
def test_an_out_of_range_walk_setting_is_one_line_before_any_work(tmp_path, capsys, monkeypatch, var, value, needle):
    def work(*a, **k): raise AssertionError("authoring started")
    monkeypatch.setattr(cli, "synthesize_tasks", work)
    monkeypatch.setenv(var, value)
    msg = one_line_error(capsys, ["tasks", "--out", str(tmp_path / "t.jsonl"), "--n", "1"])
    assert msg == f"compoworld: error: walk settings (--k/--l-max, settings.ini or COMPOWORLD_WALK_*): {needle}" + \
        (" (a walk alternates between services)" if "k=" in needle else ""), msg
    assert list(tmp_path.iterdir()) == []
