"""Build the documentation site from the notebooks, offline: `scripts/docs.sh` runs `python docs/compoworld_docs.py`.

Steps, for each notebook that nbdev's `nbglob` finds under `nbs/` (tutorials included):

1. execute a copy of the source notebook in a Jupyter kernel (nbclient) with the widget state stored in the copy's
   metadata. The cells `nbdev-test` would skip (flags in `tst_flags`, e.g. `#| slow`, `#| eval: false`,
   `skip_exec`) are not executed and keep their saved outputs. The copy runs with the source notebook's folder as its
   working directory, as under `nbdev-test`. Sources are never written.
2. process the executed copy with nbdev's own processors (`FilterDefaults`, exactly what `nbdev-proc-nbs` runs):
   export cells hidden, `show_doc` documentation added, directives turned into Quarto cell options. (nbdev's
   processed notebooks in `_proc/` cannot be executed themselves: the processors remove the exported cells that
   later cells use, so the copy is executed first and processed second.)
3. turn Quarto's cell options into myst-nb's tags and the front matter into a page title, and name the page as
   nbdev's site does (`14_train.ipynb` -> `train.html`), so nbdev's doc links keep working.
4. render with Sphinx + myst-nb (`docs/conf.py`), the widget manager's JavaScript loaded from the vendored copy in
   `docs/_static/jupyter-widgets/` (see `docs/VENDORED.md`), then check that no page loads a script or stylesheet
   from the network.

Output: the site in `_docs/` (nbdev's `doc_path`); work files in `build/docs/`. A notebook whose source, the
library, or this file did not change since the last build is not executed again (`--force` re-executes all).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from html.parser import HTMLParser
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CELL_TIMEOUT = 600  # seconds per cell, as nbdev-test's default
SKIP_TAG = "skip-execution"  # nbclient's tag for cells it must not run
# Quarto cell options (as nbdev writes them) -> myst-nb cell tags
QUARTO_TAGS = {("echo", "false"): "remove-input", ("output", "false"): "remove-output",
               ("include", "false"): "remove-cell", ("code-fold", "true"): "hide-input",
               ("code-fold", "show"): "hide-input"}
ASSET_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp"}
_CELL_KEYS = {"cell_type", "id", "metadata", "source", "outputs", "execution_count", "attachments"}
_DIRECTIVE = re.compile(r"^\s*#\|\s*([\w-]+)\s*:?\s*(.*?)\s*$")


class DocsBuildError(RuntimeError):
    "A notebook failed to execute or process, or the site would load something from the network."


def _sha256(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts: h.update(p)
    return h.hexdigest()


def library_digest() -> str:
    "sha256 over the library's modules, this builder and the Sphinx config: a change re-executes every notebook."
    from nbdev.config import get_config
    lib = get_config().lib_path
    files = sorted(lib.rglob("*.py")) + [Path(__file__), DOCS / "conf.py"]
    return _sha256(*(f.read_bytes() for f in files if f.exists()))


def kernel_spec_dir(work: Path) -> Path:
    "A kernelspec `compoworld-docs` that runs this interpreter, so the pages execute in the project's environment."
    d = work / "kernels" / "compoworld-docs"
    d.mkdir(parents=True, exist_ok=True)
    spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "compoworld_nb docs", "language": "python"}
    (d / "kernel.json").write_text(json.dumps(spec, indent=1))
    return d.parent


def cells_to_skip(src: Path) -> set[int]:
    "Indices of the code cells `nbdev-test` leaves out of `src` (flags in `tst_flags`, `eval: false`, `skip_exec`)."
    from nbdev.config import get_config
    from nbdev.test import nb_test_cells
    import nbformat
    flags = get_config().tst_flags.split()
    run = {c.idx_ for c in nb_test_cells(src, skip_flags=flags)}
    nb = nbformat.read(src, as_version=4)
    return {i for i, c in enumerate(nb.cells) if c.cell_type == "code" and i not in run}


def execute(src: Path, dst: Path, kernel_dirs: Path) -> int:
    """Execute a copy of notebook `src` into `dst` with the widget state stored; returns the number of cells run.

    Raises `DocsBuildError` naming the notebook and the failing cell."""
    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    nb = nbformat.read(src, as_version=4)
    skip = cells_to_skip(src)
    for i in skip:
        tags = nb.cells[i].metadata.setdefault("tags", [])
        if SKIP_TAG not in tags: tags.append(SKIP_TAG)
    n_run = sum(c.cell_type == "code" for c in nb.cells) - len(skip)
    if n_run:
        ksm = KernelSpecManager(kernel_dirs=[str(kernel_dirs)], ensure_native_kernel=False)
        client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="compoworld-docs", store_widget_state=True,
                                record_timing=False, skip_cells_with_tag=SKIP_TAG,
                                resources={"metadata": {"path": str(src.parent)}},
                                kernel_manager_class=_km_factory(ksm, kernel_dirs.parent / "ipc"))
        try: client.execute()
        except CellExecutionError as e:
            raise DocsBuildError(f"a cell failed:\n{e}") from e
    for i in skip:
        nb.cells[i].metadata["tags"].remove(SKIP_TAG)
        if not nb.cells[i].metadata["tags"]: del nb.cells[i].metadata["tags"]
    nb.metadata.pop("kernelspec", None)
    dst.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, dst)
    return n_run


def _km_factory(ksm, sockets: Path):
    """A kernel-manager class bound to `ksm`, so nbclient finds the `compoworld-docs` kernelspec; the kernel talks
    over Unix sockets under `sockets` (local only, nothing on a TCP port)."""
    import uuid
    from jupyter_client.manager import AsyncKernelManager

    class _KM(AsyncKernelManager):
        def __init__(self, **kw):
            sockets.mkdir(parents=True, exist_ok=True)
            super().__init__(kernel_spec_manager=ksm, transport="ipc", ip=str(sockets / uuid.uuid4().hex[:12]), **kw)
    return _KM


def nbdev_process(executed: Path, dst: Path) -> None:
    "Run nbdev's documentation processors (as `nbdev-proc-nbs` does) on `executed`, writing `dst`."
    from nbdev.processors import FilterDefaults
    from nbdev.serve_drv import exec_nb
    dst.parent.mkdir(parents=True, exist_ok=True)
    exec_nb(executed, dst, FilterDefaults)


def _directives(source: str) -> tuple[list[tuple[str, str]], str]:
    "Split the leading `#|` directive lines off a code cell: ([(name, value)], remaining source)."
    lines, out = source.splitlines(), []
    i = 0
    while i < len(lines) and (m := _DIRECTIVE.match(lines[i])):
        out.append((m[1], m[2].strip().lower())); i += 1
    return out, "\n".join(lines[i:])


def for_sphinx(processed: Path) -> tuple[str, "nbformat.NotebookNode"]:
    """Adapt an nbdev-processed notebook for myst-nb: front matter -> `# title` and `> description`, Quarto cell
    options -> myst-nb tags (`remove-input`, `remove-output`, `remove-cell`, `hide-input`), directive lines removed.

    Returns (page name from the front matter's `output-file`, without `.html`; notebook)."""
    import nbformat
    import yaml
    raw = json.loads(processed.read_text(encoding="utf-8"))
    for c in raw["cells"]:  # nbdev's own marks (`has_sd`, timings in `execution`) are not in nbformat's schema
        c.get("metadata", {}).pop("execution", None)
        for k in set(c) - _CELL_KEYS: del c[k]
    nb = nbformat.reads(json.dumps(raw), as_version=4)
    page, cells = processed.stem, []
    for c in nb.cells:
        src = c.get("source", "")
        if c.cell_type == "raw" and src.lstrip().startswith("---"):
            fm = yaml.safe_load(src.strip().strip("-")) or {}
            page = Path(fm.get("output-file", page + ".html")).stem
            head = f"# {fm['title']}" if fm.get("title") else ""
            if fm.get("description"): head += f"\n\n> {fm['description']}"
            if head: cells.append(nbformat.v4.new_markdown_cell(head.strip()))
            continue
        if c.cell_type == "code":
            direc, body = _directives(src)
            tags = [QUARTO_TAGS[d] for d in direc if d in QUARTO_TAGS]
            if not body.strip() and not c.get("outputs"): continue
            c.source = body
            for o in c.get("outputs", []):  # show_doc's markdown opens with a rule `---`: a section break is no output
                md = o.get("data", {}).get("text/markdown")
                if isinstance(md, str): o["data"]["text/markdown"] = re.sub(r"\A\s*---\s*\n", "", md)
            if tags: c.metadata["tags"] = sorted(set(c.metadata.get("tags", [])) | set(tags))
        elif not src.strip(): continue
        cells.append(c)
    nb.cells = cells
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata.setdefault("language_info", {"name": "python"})
    return page, nb


def build_page(src: str, nbs: str, work: str, digest: str, force: bool) -> dict:
    """Worker: execute, process and adapt one notebook.

    Returns {'src', 'page', 'seconds', 'cached', 'cells_run'}, or {'src', 'error'} (a message naming the notebook)."""
    try: return _build_page(src, nbs, work, digest, force)
    except Exception as e:  # returned, not raised: an exception class of this script does not unpickle in the parent
        return {"src": str(Path(src).relative_to(nbs)), "error": f"{type(e).__name__}: {e}"}


def _build_page(src: str, nbs: str, work: str, digest: str, force: bool) -> dict:
    os.chdir(ROOT)  # nbdev reads its config from the working directory
    import nbformat
    t0 = time.time()
    src_p, nbs_p, work_p = Path(src), Path(nbs), Path(work)
    rel = src_p.relative_to(nbs_p)
    key = _sha256(src_p.read_bytes(), digest.encode())
    executed, processed = work_p / "executed" / rel, work_p / "processed" / rel
    cached = not force and executed.exists() and nbformat.read(executed, as_version=4).metadata.get(
        "compoworld_docs", {}).get("key") == key
    n_run, t_exec = 0, time.time()
    if not cached:
        n_run = execute(src_p, executed, kernel_spec_dir(work_p))
        nb = nbformat.read(executed, as_version=4)
        nb.metadata["compoworld_docs"] = {"key": key}
        nbformat.write(nb, executed)
    t_proc = time.time()
    try:
        from ipywidgets import Widget
        Widget.close_all()  # nbdev's processors embed every live widget of this process: none from earlier pages
    except ImportError: pass
    try: nbdev_process(executed, processed)
    except Exception as e:
        hint = ("\n(nbdev's show_doc pass runs every cell that has an import statement on its own, without the cells"
                " before it: keep imports in cells of their own; see nbdev's FAQ on 'cells containing imports and"
                " other code')") if isinstance(e.__cause__, NameError) or "NameError" in str(e) else ""
        raise DocsBuildError(f"nbdev's processors failed (as `nbdev-proc-nbs` would): {e}{hint}") from e
    page, nb = for_sphinx(processed)
    nb.metadata.pop("compoworld_docs", None)
    out = work_p / "src" / rel.parent / f"{page}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out)
    return {"src": str(rel), "page": str((rel.parent / page).as_posix()), "seconds": round(time.time() - t0, 1),
            "execute_s": round(t_proc - t_exec, 1), "process_s": round(time.time() - t_proc, 1),
            "cached": cached, "cells_run": n_run}


def copy_assets(nbs: Path, dst: Path) -> list[Path]:
    "Copy the images beside the notebooks (e.g. `![](images/x.png)` in markdown) into the Sphinx source tree."
    out = []
    for f in sorted(nbs.rglob("*")):
        rel = f.relative_to(nbs)
        if f.is_file() and f.suffix.lower() in ASSET_SUFFIXES and not any(p[0] in "._" for p in rel.parts):
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, dst / rel); out.append(rel)
    return out


def toctree(pages: list[dict]) -> str:
    "MyST toctree directives (hidden: the theme's sidebar shows them): tutorials first, then the reference pages."
    tut = [p["page"] for p in pages if "/" in p["page"]]
    ref = [p["page"] for p in pages if "/" not in p["page"] and p["page"] != "index"]
    out = []
    for caption, items in (("Tutorials", tut), ("Reference", ref)):
        if items: out.append("```{toctree}\n:hidden:\n:caption: " + caption + "\n\n" + "\n".join(items) + "\n```")
    return "\n\n".join(out)


def add_index(src_dir: Path, pages: list[dict]) -> None:
    "Append the toctree to the home page (`index`), or write a plain one when there is no index notebook."
    import nbformat
    idx = src_dir / "index.ipynb"
    if idx.exists():
        nb = nbformat.read(idx, as_version=4)
        nb.cells.append(nbformat.v4.new_markdown_cell(toctree(pages)))
        nbformat.write(nb, idx)
    else:
        (src_dir / "index.md").write_text("# Contents\n\n" + toctree(pages).replace(":hidden:\n", "") + "\n")


class _AssetParser(HTMLParser):
    "Collects the addresses a page loads as code or style: `<script src>`, `<link rel=stylesheet|preload|...>`."
    LOADING_RELS = {"stylesheet", "preload", "modulepreload", "prefetch", "import"}

    def __init__(self):
        super().__init__(); self.assets = []

    def handle_starttag(self, tag, attrs):
        a = {k.lower(): (v or "") for k, v in attrs}
        if tag == "script" and a.get("src"): self.assets.append(a["src"])
        elif tag == "link" and a.get("href") and self.LOADING_RELS & set(a.get("rel", "").lower().split()):
            self.assets.append(a["href"])


def remote_assets(site: Path) -> list[str]:
    "Every script or stylesheet the site's pages load from the network (http:, https: or //host): 'page: address'."
    found = []
    for f in sorted(site.rglob("*.html")):
        p = _AssetParser(); p.feed(f.read_text(errors="replace"))
        found += [f"{f.relative_to(site)}: {u}" for u in p.assets if re.match(r"(?i)\s*(https?:)?//", u)]
    return found


def sphinx(src: Path, work: Path, out: Path, jobs: int) -> Path:
    "Render `src` with Sphinx + myst-nb into `out` (cleared first); returns the warnings log."
    html, log = work / "html", work / "sphinx-warnings.log"
    shutil.rmtree(html, ignore_errors=True)
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-E", "-j", str(jobs), "-c", str(DOCS),
           "-d", str(work / "doctrees"), "-w", str(log), str(src), str(html)]
    r = subprocess.run(cmd, cwd=ROOT)
    if r.returncode: raise DocsBuildError(f"sphinx-build failed (exit {r.returncode}); see {log}")
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(html, out)
    return log


def build(nbs: Path | None = None, out: Path | None = None, work: Path | None = None, jobs: int = 2,
          force: bool = False, only: list[str] | None = None, verbose: bool = True, keep_going: bool = False) -> dict:
    """Build the site from the notebooks under `nbs` (default: nbdev's `nbs_path`) into `out` (default: `doc_path`).

    `only`: file names (e.g. `['16_widgets.ipynb']`) to restrict the build to, for a quick look.
    `keep_going`: build the site from the notebooks that worked, then still raise for those that failed.
    Returns {'site', 'pages', 'seconds', 'warnings'}; raises `DocsBuildError` on any failure."""
    os.chdir(ROOT)
    from nbdev.config import get_config
    from nbdev.doclinks import nbglob
    cfg = get_config()
    nbs = Path(nbs or cfg.nbs_path).resolve()
    out = Path(out or cfg.doc_path).resolve()
    work = Path(work or ROOT / "build" / "docs").resolve()
    t0 = time.time()
    files = [Path(f) for f in nbglob(nbs)]
    if only: files = [f for f in files if f.name in only or str(f.relative_to(nbs)) in only]
    if not files: raise DocsBuildError(f"no notebooks found under {nbs}")
    shutil.rmtree(work / "src", ignore_errors=True)
    shutil.rmtree(work / "processed", ignore_errors=True)
    digest = library_digest()
    pages, errors = [], []
    # Worker processes are reused (the library is imported once per worker by nbdev's show_doc execution). The
    # worker function is taken from this file imported under its own name: IPython (inside nbdev's processors)
    # replaces a worker's `__main__`, so a function pickled as `__main__.build_page` would not be found again.
    if str(DOCS) not in sys.path: sys.path.insert(0, str(DOCS))
    import compoworld_docs
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as ex:
        futs = [ex.submit(compoworld_docs.build_page, str(f), str(nbs), str(work), digest, force) for f in files]
        for fut in as_completed(futs):
            r = fut.result()
            if "error" in r:
                errors.append(f"{r['src']}: {r['error']}")
                if verbose: print(f"  {r['src']:<40} FAILED", flush=True)
                continue
            pages.append(r)
            if verbose: print(f"  {r['src']:<32} -> {r['page']:<24} {'cached' if r['cached'] else str(r['cells_run']) + ' cells run':>13}"
                              f"  {r['seconds']:6.1f}s (execute {r['execute_s']}s, nbdev {r['process_s']}s)", flush=True)
    if errors and not keep_going: raise DocsBuildError("notebooks failed:\n" + "\n".join(errors))
    order = {str(f.relative_to(nbs)): i for i, f in enumerate(sorted(files))}
    pages.sort(key=lambda p: order[p["src"]])
    add_index(work / "src", pages)
    copy_assets(nbs, work / "src")
    t1 = time.time()
    log = sphinx(work / "src", work, out, jobs)
    warnings = [l for l in log.read_text().splitlines() if "WARNING" in l or "ERROR" in l]
    remote = remote_assets(out)
    if remote: raise DocsBuildError("the site would load from the network:\n" + "\n".join(remote))
    if errors: raise DocsBuildError(f"site built without the failed notebooks in {out}; they failed:\n" + "\n".join(errors))
    res = {"site": str(out), "pages": len(pages), "seconds": round(time.time() - t0, 1),
           "sphinx_seconds": round(time.time() - t1, 1), "warnings": len(warnings), "warnings_log": str(log)}
    if verbose: print(json.dumps(res))
    return res


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--nbs", type=Path, help="notebook folder (default: nbdev's nbs_path)")
    p.add_argument("--out", type=Path, help="site folder (default: nbdev's doc_path, _docs)")
    p.add_argument("--work", type=Path, help="work folder (default: build/docs)")
    p.add_argument("-j", "--jobs", type=int, default=int(os.environ.get("DOCS_JOBS", min(2, os.cpu_count() or 1))),
                   help="notebooks executed at once (default 2, or $DOCS_JOBS)")
    p.add_argument("--force", action="store_true", help="re-execute every notebook")
    p.add_argument("--only", nargs="*", help="build only these notebook file names")
    p.add_argument("--keep-going", action="store_true",
                   help="build the site without the notebooks that failed (still exits 1 naming them)")
    a = p.parse_args(argv)
    try: build(a.nbs, a.out, a.work, a.jobs, a.force, a.only, keep_going=a.keep_going)
    except DocsBuildError as e:
        print(f"docs build failed: {e}", file=sys.stderr); sys.exit(1)


if __name__ == "__main__": main()
