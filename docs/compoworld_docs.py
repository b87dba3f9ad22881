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
   nbdev's site does (`17_train.ipynb` -> `train.html`), so nbdev's doc links keep working.
4. render with Sphinx + myst-nb (`docs/conf.py`), the widget manager's and MathJax's JavaScript loaded from the
   vendored copies in `docs/_static/` (see `docs/VENDORED.md`); the home page gets the course (`course_markdown`:
   the tutorials in order, then the layer chapters, then the extension chapters) and the sidebar the same order.
5. write every page also as markdown, `PAGE.html.md` (the address the `Docs:` line of each module docstring gives),
   and the site's `llms.txt` (`llms_txt`: every tutorial and module; `--llms` writes the same into `nbs/llms.txt`),
   then check that no page loads a script or stylesheet from the network and that every link resolves
   (`check_links`: files, `#anchors`, and addresses under the published site's URL).

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
    return {"src": str(rel), "page": str((rel.parent / page).as_posix()), **page_meta(nb), "seconds": round(time.time() - t0, 1),
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


# The course's parts, in reading order: the tutorials (nbs/tutorials/), then the layer chapters (numbered 00-19 in the
# method's order: core, state, service, ..., train, cli), then the extension wing (numbered 20 and up: models,
# specs, verification, fidelity, sandbox, synthesis, world model, tool graph, LLM author, executor, arena, serving, widgets).
PARTS = ("Tutorials", "Layers", "Extensions")
PART_INTRO = {
    "Tutorials": "The method end to end, each tutorial running the same functions the `compoworld` command runs.",
    "Layers": "The method defined one step at a time, each chapter building on the ones before it (DESIGN.md's layers).",
    "Extensions": "What the layers can be extended with: synthesized and simulated services, tool-graph walks, model "
                  "authors, evaluation, serving and the arena.",
}
WING = 20  # the first notebook number of the extension wing


def part_of(src: str) -> str:
    "The course part of the notebook at `src` (relative to nbs/): 'Tutorials', 'Extensions' or 'Layers'."
    p = Path(src)
    if len(p.parts) > 1: return "Tutorials"
    m = re.match(r"^(\d+)", p.name)
    return "Extensions" if m and int(m[1]) >= WING else "Layers"


def page_meta(nb) -> dict:
    "{'title', 'description'} of a page adapted by `for_sphinx` (its first cell is `# title` and `> description`)."
    first = next((c.source for c in nb.cells if c.cell_type == "markdown"), "")
    t, d = re.search(r"^# (.+)$", first, re.M), re.search(r"^> (.+)$", first, re.M)
    return {"title": t[1].strip() if t else "", "description": d[1].strip() if d else ""}


def course(pages: list[dict]) -> list[tuple[str, list[dict]]]:
    "The pages other than `index` by part, in `PARTS` order, each part in the order of its notebooks' names."
    by = {k: [] for k in PARTS}
    for p in sorted((p for p in pages if p["page"] != "index"), key=lambda p: p["src"]): by[part_of(p["src"])].append(p)
    return [(k, v) for k, v in by.items() if v]


def toctree(pages: list[dict]) -> str:
    "MyST toctree directives (hidden: the theme's sidebar shows them), one per part of the course, in reading order."
    return "\n\n".join("```{toctree}\n:hidden:\n:caption: " + part + "\n\n" + "\n".join(p["page"] for p in items) + "\n```"
                       for part, items in course(pages))


def course_markdown(pages: list[dict]) -> str:
    "The home page's table of contents: each part with its intro, then its chapters numbered, with their descriptions."
    out, n = ["## The course\n\nRead the chapters in this order; each one runs top to bottom on a CPU."], 0
    for part, items in course(pages):
        lines = []
        for p in items:
            n += 1
            desc = p.get("description", "")
            lines.append(f"{n}. {{doc}}`{p['page']}`" + (f" — {desc}" if desc else ""))
        out.append(f"### {part}\n\n{PART_INTRO.get(part, '')}\n\n" + "\n".join(lines))
    return "\n\n".join(out)


def add_index(src_dir: Path, pages: list[dict]) -> None:
    "Append the course and the toctrees to the home page (`index`), or write a plain one when there is no index notebook."
    import nbformat
    idx = src_dir / "index.ipynb"
    if idx.exists():
        nb = nbformat.read(idx, as_version=4)
        nb.cells += [nbformat.v4.new_markdown_cell(course_markdown(pages)), nbformat.v4.new_markdown_cell(toctree(pages))]
        nbformat.write(nb, idx)
    else:
        (src_dir / "index.md").write_text("# Contents\n\n" + course_markdown(pages) + "\n\n" + toctree(pages) + "\n")


def markdown_page(nb, titles: dict | None = None) -> str:
    """A page as markdown (what nbdev's site serves as `PAGE.html.md`, the address of the `Docs:` line of every module
    docstring): markdown cells as written, code as fenced Python, text and markdown outputs (show_doc's) as they are.
    Cells tagged `remove-cell`, inputs tagged `remove-input` and outputs tagged `remove-output` are left out, as on the
    HTML page; images and widgets are left out (the HTML page has them). The home page's course links (`{doc}` roles)
    become links to the other markdown pages, titled from `titles` ({page: title}); its toctrees are left out."""
    out, titles = [], titles or {}
    for c in nb.cells:
        tags = set(c.metadata.get("tags", []))
        if c.cell_type == "markdown":
            text = re.sub(r"```\{toctree\}.*?```", "", c.source, flags=re.S)
            out.append(re.sub(r"\{doc\}`([^`]+)`", lambda m: f"[{titles.get(m[1]) or m[1]}]({m[1]}.html.md)", text).strip())
            continue
        if c.cell_type != "code" or "remove-cell" in tags: continue
        if "remove-input" not in tags and c.source.strip(): out.append(f"```python\n{c.source.strip()}\n```")
        if "remove-output" in tags: continue
        for o in c.get("outputs", []):
            if o.get("output_type") == "stream": text = o.get("text", "")
            elif o.get("output_type") in ("execute_result", "display_data"):
                data = o.get("data", {})
                if "text/markdown" in data: out.append(data["text/markdown"].strip()); continue
                if set(data) & {"application/vnd.jupyter.widget-view+json", "image/png", "image/svg+xml", "image/jpeg"}:
                    continue
                text = data.get("text/plain", "")
            else: continue
            if text.strip(): out.append(f"```\n{text.rstrip()}\n```")
    return "\n\n".join(x for x in out if x) + "\n"


def write_markdown_pages(src_dir: Path, site: Path, pages: list[dict]) -> list[Path]:
    "Write `PAGE.html.md` beside every `PAGE.html` of the site, from the Sphinx source notebooks in `src_dir`."
    import nbformat
    out, titles = [], {p["page"]: p.get("title", "") for p in pages}
    for p in pages:
        nb = nbformat.read(src_dir / f"{p['page']}.ipynb", as_version=4)
        f = site / f"{p['page']}.html.md"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(markdown_page(nb, titles), encoding="utf-8"); out.append(f)
    return out


def site_url() -> str:
    "The published site's address, ending in '/' (nbdev's `doc_host` + `doc_baseurl`): links to it are links into the site."
    from nbdev.config import get_config
    cfg = get_config()
    path = cfg.doc_baseurl.strip("/")
    return cfg.doc_host.rstrip("/") + "/" + (path + "/" if path else "")


LLMS_MARKER = "<!-- Written by `python docs/compoworld_docs.py --llms` (every module and tutorial); scripts/docs.sh copies it into the site -->"


def module_docs(lib: Path) -> list[tuple[str, str, str]]:
    "(dotted module name, summary: the docstring's first paragraph on one line, its `Docs:` address) per public module."
    import ast
    res = []
    for f in sorted(lib.rglob("*.py")):
        if any(part.startswith("_") for part in f.relative_to(lib).parts): continue
        doc = ast.get_docstring(ast.parse(f.read_text(encoding="utf-8"))) or ""
        name = ".".join((lib.name, *f.relative_to(lib).with_suffix("").parts))
        last = doc.strip().splitlines()[-1] if doc.strip() else ""
        res.append((name, " ".join(doc.split("\n\n")[0].split()) if doc else "",
                    last[5:].strip() if last.startswith("Docs:") else ""))
    return res


def llms_txt(nbs: Path | None = None, lib: Path | None = None, modules: bool = True) -> str:
    """The site's `llms.txt`: the project's description, the tutorials in order and (with `modules`) every module of the
    library, each linked to the markdown page the build writes (`PAGE.html.md` at the site's address)."""
    from nbdev.config import get_config, nbpath2html
    from nbdev.frontmatter import md_frontmatter
    import nbformat
    cfg = get_config()
    nbs, lib = Path(nbs or cfg.nbs_path), Path(lib or cfg.lib_path)
    base, tut = site_url(), []
    for f in sorted((nbs / "tutorials").glob("*.ipynb")):
        first = next((c.source for c in nbformat.read(f, as_version=4).cells if c.cell_type == "markdown"), "")
        fm = md_frontmatter(first) or {}
        url = base + nbpath2html(f.relative_to(nbs)).as_posix() + ".md"
        tut.append(f"- [{fm.get('title', f.stem)}]({url})" + (f": {fm['description']}" if fm.get("description") else ""))
    mods = [f"- [{n}]({u}): {s}" if u else f"- `{n}`: {s}" for n, s, u in module_docs(lib)] if modules else []
    parts = [f"# {cfg.lib_name}", f"> {cfg.description}" if cfg.get("description") else "",
             f"The documentation site ({base}) is a course: the tutorials in order, then one chapter per layer of the "
             "library, then the extension chapters. Every page also exists as markdown at its address + `.md`.",
             "## Tutorials\n\n" + "\n".join(tut) if tut else "", "## Modules\n\n" + "\n".join(mods) if mods else "",
             LLMS_MARKER]
    return "\n\n".join(p for p in parts if p) + "\n"


class _LinkParser(HTMLParser):
    "Collects a page's links (`href` of a/link/area, `src` of script/img/iframe/source/video/audio) and its anchors (`id`, `a[name]`)."
    ATTRS = {"a": "href", "link": "href", "area": "href", "script": "src", "img": "src", "iframe": "src",
             "source": "src", "video": "src", "audio": "src"}

    def __init__(self):
        super().__init__(); self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        a = {k.lower(): v for k, v in attrs if v is not None}
        if "id" in a: self.ids.add(a["id"])
        if tag == "a" and "name" in a: self.ids.add(a["name"])
        if (u := a.get(self.ATTRS.get(tag, ""))) is not None and tag in self.ATTRS: self.links.append(u)


def check_links(site: Path, base: str | None = None) -> tuple[list[str], list[str]]:
    """Every link of the site's HTML pages and of its `llms.txt`: (broken, external).

    A link resolves when the file it names exists in the site (a folder: its `index.html`) and, for an HTML target
    with a `#fragment`, that page has an element with that id. Addresses under `base` (the published site, default
    `site_url()`) are links into the site and are checked the same way. Other http(s) addresses are `external`: listed,
    not fetched (the build is offline). `mailto:`, `javascript:`, `data:` and `tel:` links are not checked.
    Each entry is 'page: link (why)' for broken ones, 'page: link' for external ones."""
    from urllib.parse import unquote, urlsplit
    site = site.resolve()
    base = site_url() if base is None else base
    parsed, pages = {}, sorted(site.rglob("*.html"))
    for f in pages:
        p = _LinkParser(); p.feed(f.read_text(errors="replace")); parsed[f] = p
    sources = [(f, parsed[f].links) for f in pages]
    if (site / "llms.txt").exists():
        sources.append((site / "llms.txt", re.findall(r"\]\((\S+?)\)", (site / "llms.txt").read_text())))

    def ids(f: Path) -> set:
        if f not in parsed:
            p = _LinkParser(); p.feed(f.read_text(errors="replace")); parsed[f] = p
        return parsed[f].ids

    broken, external = [], []
    for f, links in sources:
        where = f.relative_to(site)
        for u in links:
            u = u.strip()
            if not u or re.match(r"(?i)(mailto|javascript|data|tel):", u): continue
            page_dir = f.parent
            if base and u.startswith(base): u, page_dir = u[len(base):], site
            parts = urlsplit(u)
            if parts.scheme or parts.netloc: external.append(f"{where}: {u}"); continue
            path = unquote(parts.path)
            target = (page_dir / path).resolve() if path else f
            if target.is_dir(): target = target / "index.html"
            if site not in target.parents and target != site:
                broken.append(f"{where}: {u} (outside the site)"); continue
            if not target.is_file(): broken.append(f"{where}: {u} (no file {target.relative_to(site)})"); continue
            frag = unquote(parts.fragment)
            if frag and target.suffix == ".html" and frag not in ids(target):
                broken.append(f"{where}: {u} (no #{frag} in {target.relative_to(site)})")
    return broken, external


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

    `only`: file names (e.g. `['50_widgets.ipynb']`) to restrict the build to, for a quick look.
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
    write_markdown_pages(work / "src", out, pages)
    # the library's modules are chapters of this site only when it is built from the project's own notebooks
    (out / "llms.txt").write_text(llms_txt(nbs, modules=nbs == Path(cfg.nbs_path).resolve()), encoding="utf-8")
    remote = remote_assets(out)
    if remote: raise DocsBuildError("the site would load from the network:\n" + "\n".join(remote))
    broken, external = check_links(out)
    problems = []
    if broken and not (only or errors):  # a partial site links to pages it did not build
        problems.append(f"{len(broken)} links of the site do not resolve:\n" + "\n".join(broken))
    elif broken and verbose:
        print(f"  note: {len(broken)} links do not resolve in this partial site (e.g. {broken[0]})", flush=True)
    if errors: problems.append(f"site built without the failed notebooks in {out}; they failed:\n" + "\n".join(errors))
    if problems: raise DocsBuildError("\n".join(problems))
    res = {"site": str(out), "pages": len(pages), "seconds": round(time.time() - t0, 1),
           "sphinx_seconds": round(time.time() - t1, 1), "warnings": len(warnings), "warnings_log": str(log),
           "broken_links": len(broken), "external_links": len(external)}
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
    p.add_argument("--llms", action="store_true",
                   help="only write nbs/llms.txt (every tutorial and module, linked to the site's pages) and exit")
    a = p.parse_args(argv)
    if a.llms:
        os.chdir(ROOT)
        from nbdev.config import get_config
        f = Path(a.nbs or get_config().nbs_path) / "llms.txt"
        f.write_text(llms_txt(a.nbs), encoding="utf-8"); print(f"wrote {f}"); return
    try: build(a.nbs, a.out, a.work, a.jobs, a.force, a.only, keep_going=a.keep_going)
    except DocsBuildError as e:
        print(f"docs build failed: {e}", file=sys.stderr); sys.exit(1)


if __name__ == "__main__": main()
