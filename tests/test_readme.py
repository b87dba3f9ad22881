"README.md is generated from nbs/index.ipynb and starts with the two commands."
import subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

def test_readme_in_sync_with_index():
    out = subprocess.run([sys.executable, "-m", "nbconvert", "--to", "markdown", "--log-level", "WARN", "--stdout",
                          str(ROOT / "nbs" / "index.ipynb")], capture_output=True, text=True, check=True).stdout
    assert out == (ROOT / "README.md").read_text(encoding="utf-8"), "README.md is stale: run bash scripts/readme.sh"

def test_readme_first_lines_are_the_two_commands():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "```sh" and lines[2] == "```" and lines[3] == "```sh" and lines[5] == "```"
    assert "compoworld demo --out" in lines[1] and 'pip install -e ".[train]" -c constraints.txt' in lines[1]
    assert 'pip install -e ".[dev]" -c constraints.txt' in lines[4] and "scripts/test.sh" in lines[4]
    assert (ROOT / "constraints.txt").is_file()
