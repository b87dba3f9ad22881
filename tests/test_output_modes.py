"""Outputs get the permissions a plain open()/mkdir() gives them (0666/0777 less the umask).

Before: the atomic writers made their files with `tempfile` (mode 0600 files, 0700 folders) and renamed them into
place, so `compoworld tasks --out t.jsonl` wrote a 0600 file, and every folder command whose --out was new
(demo, evaluate, arena, export) published a 0700 folder: another user, or a container running as one, could not read them."""
import os, stat
import pytest
from compoworld_nb.cli import main
from compoworld_nb.core import publish, staging_dir


@pytest.fixture
def umask022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(p): return stat.S_IMODE(os.stat(p).st_mode)


def test_tasks_out_is_a_0644_file_under_umask_022(tmp_path, umask022):
    out = tmp_path / "t.jsonl"
    assert main(["tasks", "--out", str(out), "--n", "1", "--k", "2", "--l-max", "4"]) == 0
    assert mode(out) == 0o644


def test_a_published_new_folder_is_0755_under_umask_022(tmp_path, umask022):
    stage = staging_dir(tmp_path / "new")
    (stage / "a.txt").write_text("x")
    dest = publish(stage, tmp_path / "new")
    assert mode(dest) == 0o755 and mode(dest / "a.txt") == 0o644
    (tmp_path / "empty").mkdir()
    inner = staging_dir(tmp_path / "empty")          # inside an existing empty folder: the folder keeps its own mode
    assert mode(inner) == 0o755


def test_the_chat_template_written_into_a_model_folder_is_0644(tmp_path, umask022):
    from compoworld_nb.pretrained import _current_template
    _current_template(tmp_path)
    assert mode(tmp_path / "chat_template.jinja") == 0o644
