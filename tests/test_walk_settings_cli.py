"""Walk settings out of range that come from the environment or settings.ini, not from a flag.

Before: `COMPOWORLD_WALK_K=-5 compoworld tasks ...` (or walk.distractors = -1 in settings.ini) passed every CLI check and
failed inside authoring with a traceback (`ValueError: k=-5 must be >= 2` from walk.walk_settings, in the executor).
After: the walk's own check runs before any work and is one line, exit 2, naming the variable the bad value came from
(before: 'walk settings (--k/--l-max, settings.ini or COMPOWORLD_WALK_*)'). The same for `compoworld demo` (before:
COMPOWORLD_WALK_DISTRACTORS=-1 ended the demo in a 29-line traceback from generate_tasks, exit 1), and a settings value
of the wrong type names its variable without a `--profile None:` prefix (before: '--profile None: COMPOWORLD_WALK_K = ...')."""
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
    assert msg == f"compoworld: error: walk settings ({var}={value}): {needle}" + \
        (" (a walk alternates between services)" if "k=" in needle else ""), msg
    assert list(tmp_path.iterdir()) == []


def test_demo_checks_the_walk_settings_before_any_work(tmp_path, capsys, monkeypatch):
    def work(*a, **k): raise AssertionError("the demo started")
    monkeypatch.setattr(cli, "_run_demo", work)
    monkeypatch.setenv("COMPOWORLD_WALK_DISTRACTORS", "-1")
    msg = one_line_error(capsys, ["demo", "--model", "tiny", "--tasks", "1", "--heldout", "1", "--out", str(tmp_path / "d")])
    assert msg == "compoworld: error: walk settings (COMPOWORLD_WALK_DISTRACTORS=-1): distractors=-1 must be >= 0", msg
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("cmd", [["tasks", "--n", "1"], ["demo", "--model", "tiny", "--tasks", "1", "--heldout", "1"]])
def test_a_settings_value_of_the_wrong_type_names_its_variable_not_a_profile(tmp_path, capsys, monkeypatch, cmd):
    def work(*a, **k): raise AssertionError("work started")
    monkeypatch.setattr(cli, "synthesize_tasks", work); monkeypatch.setattr(cli, "_run_demo", work)
    monkeypatch.setenv("COMPOWORLD_WALK_K", "abc")
    msg = one_line_error(capsys, [*cmd, "--out", str(tmp_path / "o")])
    assert msg == "compoworld: error: COMPOWORLD_WALK_K = 'abc' (environment): expected an integer", msg
    assert list(tmp_path.iterdir()) == []


def test_a_bad_flag_is_named_as_the_flag(tmp_path, capsys, monkeypatch):
    "A value at fault is named by where it came from: its flag, else its variable."
    from compoworld_nb.cli import _walk_settings, CliError
    with pytest.raises(CliError) as e: _walk_settings(None, {"k": "--k"}, k=1, l_min=3, l_max=6, distractors=2)
    assert str(e.value) == "walk settings (--k): k=1 must be >= 2 (a walk alternates between services)"
    monkeypatch.setenv("COMPOWORLD_WALK_DISTRACTORS", "-2")   # only the value at fault is named, not the flagged K
    with pytest.raises(CliError) as e: _walk_settings(None, {"k": "--k"}, k=3, l_min=3, l_max=6, distractors=-2)
    assert str(e.value) == "walk settings (COMPOWORLD_WALK_DISTRACTORS=-2): distractors=-2 must be >= 0"
