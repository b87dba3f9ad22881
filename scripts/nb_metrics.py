"""How much each layer notebook teaches: export cells, their size, demonstration per exported line, undemonstrated exports.

Usage: `python scripts/nb_metrics.py [NBS_DIR] [--json]` (default: the project's `nbs/`). The layer notebooks are
`NBS_DIR/*.ipynb` except `index.ipynb` (the tutorials live in `NBS_DIR/tutorials/` and are not listed).

What is counted, per notebook:

- **export cells**: code cells with an `#| export` (or `exports`, `exporti`) directive.
- **lines**: the non-blank lines of a cell that are not `#|` directives, so a docstring or a comment is a line.
- **mean lines / export cell**: the export cells' lines divided by their number.
- **demo / exported**: lines of the other code cells (the demonstrations and tests) per exported line. Lines that
  only import (`import x`, `from x import y`) and nbdev's `nbdev_export()` call are not demonstration and are not
  counted; nor is a cell holding only `#| default_exp`.
- **fastcore.test**: whether a code cell imports `fastcore.test` (the notebook tests with `test_eq`, `test_fail`, ...).
- **undemonstrated**: public names an export cell defines at top level (functions, classes, assigned names; a method
  added with `@patch` counts under its own name) that no non-export code cell of the same notebook uses, as a name or
  as an attribute (`x.name`). Cells that do not parse as Python (IPython magics removed first) are searched word by word.

The reference it is read against (issue 15, fastcore's `01_basics`): one definition of about 8 lines per export cell
and as many lines of demonstration as of exported code (demo / exported about 1.0).
"""
from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

EXPORT_DIRECTIVES = {"export", "exports", "exporti"}
_DIRECTIVE = re.compile(r"^\s*#\|\s*([\w-]+)")
_IMPORT = re.compile(r"^\s*(import\s+\S|from\s+\S+\s+import\s)")
_FASTCORE_TEST = re.compile(r"^\s*(from\s+fastcore\.test\s+import|import\s+fastcore\.test)", re.M)
_NOT_DEMO = re.compile(r"^\s*(import\s+nbdev\s*;\s*)?(nbdev\.)?nbdev_export\(\s*\)\s*$")


@dataclass
class NotebookMetrics:
    "The counts of one notebook (see the module docstring for what each one is)."
    notebook: str
    export_cells: int
    exported_lines: int
    demo_lines: int
    exported_names: list[str] = field(default_factory=list)
    undemonstrated: list[str] = field(default_factory=list)
    fastcore_test: bool = False

    @property
    def mean_lines(self) -> float:
        "Mean lines per export cell (0.0 when there is none)."
        return self.exported_lines / self.export_cells if self.export_cells else 0.0

    @property
    def demo_ratio(self) -> float:
        "Demonstration-and-test lines per exported line (0.0 when nothing is exported)."
        return self.demo_lines / self.exported_lines if self.exported_lines else 0.0


def _source(cell: dict) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def directives(src: str) -> set[str]:
    "The `#|` directive names of a cell's source (`#| export` -> {'export'})."
    return {m[1] for l in src.splitlines() if (m := _DIRECTIVE.match(l))}


def body_lines(src: str) -> list[str]:
    "The non-blank lines of a cell that are not `#|` directives."
    return [l for l in src.splitlines() if l.strip() and not _DIRECTIVE.match(l)]


def demo_lines(src: str) -> list[str]:
    "The lines of a non-export cell that count as demonstration: body lines less imports and `nbdev_export()`."
    return [l for l in body_lines(src) if not _IMPORT.match(l) and not _NOT_DEMO.match(l)]


def _parse(src: str) -> ast.Module | None:
    "The cell as Python, with IPython magics and shell lines blanked; None where it still does not parse."
    text = "\n".join("" if re.match(r"^\s*[%!]", l) else l for l in src.splitlines())
    try: return ast.parse(text)
    except SyntaxError: return None


def defined_names(src: str) -> list[str]:
    "Public top-level names an export cell defines, in order: functions, classes, assignments (patched methods too)."
    tree = _parse(src)
    if tree is None: return []
    out = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)): names = [node.name]
        elif isinstance(node, ast.Assign):
            names = [n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            names = [node.target.id]
        else: names = []
        out += [n for n in names if not n.startswith("_") and n not in out]
    return out


def used_names(src: str) -> set[str]:
    "Every name and attribute a cell mentions in code; for a cell that does not parse, every identifier-like word."
    tree = _parse(src)
    if tree is None: return set(re.findall(r"[A-Za-z_]\w*", src))
    used = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name): used.add(n.id)
        elif isinstance(n, ast.Attribute): used.add(n.attr)
    return used


def measure(path: Path) -> NotebookMetrics:
    "The counts of the notebook at `path`."
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    n_exp, exp_lines, demo, names, used, fct = 0, 0, 0, [], set(), False
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code": continue
        src = _source(cell)
        fct = fct or bool(_FASTCORE_TEST.search(src))
        if directives(src) & EXPORT_DIRECTIVES:
            n_exp += 1
            exp_lines += len(body_lines(src))
            names += [n for n in defined_names(src) if n not in names]
        else:
            demo += len(demo_lines(src))
            used |= used_names(src)
    return NotebookMetrics(Path(path).name, n_exp, exp_lines, demo, names, [n for n in names if n not in used], fct)


def layer_notebooks(nbs: Path) -> list[Path]:
    "The layer notebooks of `nbs`: its top-level `*.ipynb`, without `index.ipynb`, sorted by name."
    return sorted(p for p in Path(nbs).glob("*.ipynb") if p.name != "index.ipynb")


def table(rows: list[NotebookMetrics]) -> str:
    "A plain-text table, one notebook a line, then the totals."
    head = (f"{'notebook':<22} {'export cells':>12} {'mean lines':>10} {'demo/exported':>13} {'fastcore.test':>13} "
            f"{'undemonstrated':>16}  names")
    out = [head, "-" * len(head)]
    for r in rows:
        out.append(f"{r.notebook:<22} {r.export_cells:>12} {r.mean_lines:>10.1f} {r.demo_ratio:>13.2f} "
                   f"{'yes' if r.fastcore_test else 'no':>13} "
                   f"{f'{len(r.undemonstrated)} of {len(r.exported_names)}':>16}  {', '.join(r.undemonstrated)}")
    cells, lines = sum(r.export_cells for r in rows), sum(r.exported_lines for r in rows)
    dem, names = sum(r.demo_lines for r in rows), sum(len(r.exported_names) for r in rows)
    und, fct = sum(len(r.undemonstrated) for r in rows), sum(r.fastcore_test for r in rows)
    below = [r.notebook for r in rows if r.exported_lines and r.demo_ratio < 0.5]
    out += ["-" * len(head),
            f"{'all (' + str(len(rows)) + ')':<22} {cells:>12} {lines / cells if cells else 0:>10.1f} "
            f"{dem / lines if lines else 0:>13.2f} {f'{fct} of {len(rows)}':>13} {f'{und} of {names}':>16}",
            f"notebooks below 0.5 demo/exported: {len(below)}" + (f" ({', '.join(below)})" if below else "")]
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("nbs", nargs="*", type=Path, default=[Path(__file__).resolve().parents[1] / "nbs"],
                   help="a notebook folder (default: the project's nbs/) or notebook files")
    p.add_argument("--json", action="store_true", help="one JSON object per notebook instead of the table")
    a = p.parse_args(argv)
    bad = [p for p in a.nbs if not (p.is_dir() or (p.is_file() and p.suffix == ".ipynb"))]
    if bad:
        print(f"nb_metrics: no notebook folder or .ipynb file at {bad[0]}", file=sys.stderr); return 2
    rows = [measure(f) for p in a.nbs for f in (layer_notebooks(p) if p.is_dir() else [p])]
    if a.json:
        for r in rows: print(json.dumps({**asdict(r), "mean_lines": round(r.mean_lines, 2), "demo_ratio": round(r.demo_ratio, 3)}))
    else: print(table(rows))
    return 0


if __name__ == "__main__": sys.exit(main())
