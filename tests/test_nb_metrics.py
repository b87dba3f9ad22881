"scripts/nb_metrics.py counts export cells, their lines, demonstration lines and undemonstrated exports exactly."
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import nb_metrics as nm  # noqa: E402
sys.path.remove(str(ROOT / "scripts"))

V = nbformat.v4


def _write(path: Path, cells) -> Path:
    nbformat.write(V.new_notebook(cells=cells), path)
    return path


def synthetic(nbs: Path) -> Path:
    """Two export cells (3 + 6 lines, names add, Box, Box.area by @patch, LIMIT, _hidden); demonstrations of add and
    area (5 counted lines: imports, `nbdev_export()`, directives and blanks are not counted)."""
    nbs.mkdir(parents=True, exist_ok=True)
    return _write(nbs / "01_thing.ipynb", [
        V.new_code_cell("#| default_exp thing"),
        V.new_markdown_cell("# Thing\n\nuse `LIMIT` here: markdown does not demonstrate it"),
        V.new_code_cell("#| export\ndef add(a, b):\n    \"a plus b\"\n\n    return a + b"),
        V.new_code_cell("#| hide\nfrom fastcore.test import test_eq\nimport math"),
        V.new_code_cell("test_eq(add(1, 2), 3)\n\n# a comment is a line\n%time add(2, 2)"),
        V.new_code_cell("#| exports\nLIMIT = 3\n_hidden = 1\nclass Box:\n    w = 2\n@patch\ndef area(self: Box): return self.w * 2"),
        V.new_code_cell("#| slow\nb = object.__new__(type('B', (), {}))\nb.area()"),
        V.new_code_cell("#| hide\nimport nbdev; nbdev.nbdev_export()"),
    ])


def test_counts_on_a_synthetic_notebook(tmp_path):
    m = nm.measure(synthetic(tmp_path / "nbs"))
    assert (m.notebook, m.export_cells, m.exported_lines, m.demo_lines) == ("01_thing.ipynb", 2, 9, 5)
    assert m.mean_lines == 4.5
    assert m.demo_ratio == 5 / 9
    assert m.exported_names == ["add", "LIMIT", "Box", "area"]
    assert m.undemonstrated == ["LIMIT", "Box"]
    assert m.fastcore_test


def test_line_rules():
    assert nm.body_lines("#| export\n\ndef f():\n    pass\n  \n") == ["def f():", "    pass"]
    assert nm.demo_lines("from a import b\nimport c\nnbdev.nbdev_export()\nf(1)\n#| hide") == ["f(1)"]
    assert nm.directives("#| export\n#|slow\nx = 1  #| not a directive") == {"export", "slow"}
    assert nm.defined_names("x, (y, _z) = 1, (2, 3)\nn: int = 4\ndef _p(): pass") == ["x", "y", "n"]
    assert nm.used_names("f(x.attr)") == {"f", "x", "attr"}
    assert nm.used_names("!ls $where\nthis is not python") >= {"this", "python"}  # word by word


def test_layer_notebooks_skip_index_and_tutorials(tmp_path):
    nbs = tmp_path / "nbs"
    synthetic(nbs)
    (nbs / "tutorials").mkdir()
    _write(nbs / "index.ipynb", [V.new_markdown_cell("# home")])
    _write(nbs / "tutorials" / "01_start.ipynb", [V.new_code_cell("#| export\nx = 1")])
    _write(nbs / "00_core.ipynb", [V.new_markdown_cell("no code")])
    assert [p.name for p in nm.layer_notebooks(nbs)] == ["00_core.ipynb", "01_thing.ipynb"]
    rows = [nm.measure(p) for p in nm.layer_notebooks(nbs)]
    assert (rows[0].mean_lines, rows[0].demo_ratio) == (0.0, 0.0)
    lines = nm.table(rows).splitlines()
    assert lines[2].split() == ["00_core.ipynb", "0", "0.0", "0.00", "no", "0", "of", "0"]
    assert lines[3].split() == ["01_thing.ipynb", "2", "4.5", "0.56", "yes", "2", "of", "4", "LIMIT,", "Box"]
    assert lines[5].split() == ["all", "(2)", "2", "4.5", "0.56", "1", "of", "2", "2", "of", "4"]
    assert lines[-1] == "notebooks below 0.5 demo/exported: 0"


def test_cli_table_and_bad_folder(tmp_path):
    synthetic(tmp_path / "nbs")
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "nb_metrics.py"), str(tmp_path / "nbs")],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "01_thing.ipynb" in r.stdout, r.stderr
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "nb_metrics.py"), str(tmp_path / "missing")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.strip() == f"nb_metrics: no notebook folder or .ipynb file at {tmp_path / 'missing'}"
