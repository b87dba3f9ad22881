"Issue 17, one loop: each step of the method is written once. A duplicate-code scan finds no pair in the modules that hold scoring, rewards, the meta-tool schemas and library loading."
import re, shutil, subprocess
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
ONE_PLACE = {"compoworld_nb/rubric.py", "compoworld_nb/rewards.py", "compoworld_nb/library.py", "compoworld_nb/harness.py",
             "compoworld_nb/train.py", "compoworld_nb/data.py", "compoworld_nb/evaluate.py"}

@pytest.mark.skipif(shutil.which("duplicates") is None, reason="needs the `duplicates` scanner on PATH")
def test_no_duplicate_code_in_scoring_rewards_meta_tools_and_library():
    out = subprocess.run(["duplicates", "--repo", str(ROOT), "--most", "200", "--seconds", "240"],
                         capture_output=True, text=True, timeout=600).stdout
    assert "incomplete:" not in out, out
    rows = [l for l in out.splitlines() if re.match(r"D\d+ ", l)]
    assert rows or out.startswith("no duplicates"), out
    bad = []
    for r in rows:
        sides = re.findall(r"(\S+?):\d+-\d+", r)
        if "boilerplate" not in r and any(s in ONE_PLACE for s in sides): bad.append(r)
    assert bad == [], "\n".join(bad)

def test_the_one_place_of_each_step():
    "The names other layers use are the one function, re-exported."
    from compoworld_nb import author, cli, executor, harness, library, rubric, serve, task, train
    assert harness.score_finals is rubric.score_finals and harness.final_scorer is rubric.final_scorer
    assert author.default_library is cli.verified_library is executor.load_library is library.load_library
    assert train.env_tool_schemas(harness.TaskEnvironment) == harness.META_TOOLS
    assert not hasattr(rubric, "CRITERION_SCHEMA") and not hasattr(task, "_valid_row") and not hasattr(train, "_MetaEnv")
    assert not hasattr(train, "group_stats") and not hasattr(task, "_narrow")
