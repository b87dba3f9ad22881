"""The docs site: widgets render on the static pages, offline, from the vendored widget manager.

A page is rendered by headless Debian chromium (`/usr/bin/chromium --dump-dom`) with every host name unresolvable,
so nothing can come from the network. The widget manager creates `div.widget-subarea` and the `.jupyter-widgets`
views at render time; the built HTML holds only the widget state and `<script type=...widget-view+json>` tags.

The pages checked: those of the site `scripts/docs.sh` built in `_docs/`, when it holds widget pages; otherwise a
one-notebook site built here with the same builder (docs/compoworld_docs.py). The chromium part is skipped, with the reason,
where chromium is missing — unless COMPOWORLD_REQUIRE_BROWSER=1 (CI), where that fails.
"""
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
VENDORED = DOCS / "_static" / "jupyter-widgets"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
REQUIRE = os.environ.get("COMPOWORLD_REQUIRE_BROWSER") == "1"
STATE, VIEW = "application/vnd.jupyter.widget-state+json", "application/vnd.jupyter.widget-view+json"


def _need_chromium():
    if Path(CHROMIUM).exists(): return
    why = f"no chromium at {CHROMIUM} (Debian: apt-get install -y chromium)"
    if REQUIRE: pytest.fail(f"COMPOWORLD_REQUIRE_BROWSER=1 but {why}")
    pytest.skip(why)


def widget_pages(site: Path) -> list[Path]:
    "The site's pages that carry widget state."
    return sorted(p for p in site.rglob("*.html") if STATE in p.read_text(errors="replace"))


def _mini_notebooks(nbs: Path) -> None:
    "A home page and one tutorial with a slider, a label, a button and a plot in an Output widget."
    v = nbformat.v4
    (nbs / "tutorials").mkdir(parents=True)
    nbformat.write(v.new_notebook(cells=[v.new_markdown_cell("# mini\n\n> A one-notebook site")]), nbs / "index.ipynb")
    nbformat.write(v.new_notebook(cells=[
        v.new_markdown_cell("# Widgets\n\n> A page with widgets"),
        v.new_code_cell("#| hide\nimport ipywidgets as W\nimport matplotlib.pyplot as plt"),
        v.new_code_cell("s = W.IntSlider(value=3, min=0, max=10, description='K')\n"
                        "lab = W.Label(value=f'K squared = {s.value**2}')\n"
                        "s.observe(lambda ch: setattr(lab, 'value', f'K squared = {ch.new**2}'), 'value')\n"
                        "s.value = 7\nout = W.Output()\n"
                        "with out:\n    fig, ax = plt.subplots(figsize=(2, 1)); ax.plot([0, 1]); plt.show()\n"
                        "W.VBox([s, lab, W.Button(description='go'), out])"),
        v.new_code_cell("#| slow\nraise RuntimeError('a slow cell must not run for the site')"),
    ]), nbs / "tutorials" / "01_widgets.ipynb")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """`_docs/` when scripts/docs.sh built it (the vendored manager is in it) with widget pages; else a one-notebook
    site built with docs/compoworld_docs.py. (A Quarto site from `nbdev-docs` in `_docs/` is not checked here.)"""
    built = ROOT / "_docs"
    if (built / "_static" / "jupyter-widgets" / "embed.js").exists() and widget_pages(built): return built
    tmp = tmp_path_factory.mktemp("docs")
    _mini_notebooks(tmp / "nbs")
    r = subprocess.run([sys.executable, str(DOCS / "compoworld_docs.py"), "--nbs", str(tmp / "nbs"), "--out", str(tmp / "site"),
                        "--work", str(tmp / "work")], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return tmp / "site"


sys.path.insert(0, str(DOCS))
import compoworld_docs as cd  # noqa: E402
sys.path.remove(str(DOCS))


def test_remote_assets_finds_scripts_and_styles_from_the_network(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.html").write_text(
        '<script src="_static/x.js"></script><script src=https://cdn.example/y.js></script>'
        '<link href="//fonts.example/f.css" rel="stylesheet"><link rel="canonical" href="https://site.example/a.html">'
        '<a href="https://example.org">a link loads nothing</a><img src="https://img.example/badge.svg">')
    (tmp_path / "sub" / "b.html").write_text('<link rel="preload stylesheet" href="HTTP://x.example/s.css">')
    assert cd.remote_assets(tmp_path) == ["a.html: https://cdn.example/y.js", "a.html: //fonts.example/f.css",
                                          "sub/b.html: HTTP://x.example/s.css"]


def test_for_sphinx_titles_tags_and_page_names(tmp_path):
    "nbdev's front matter becomes the page title; Quarto cell options become myst-nb tags; directive lines go."
    v = nbformat.v4
    nb = v.new_notebook(cells=[
        v.new_raw_cell("---\ndescription: What it does\noutput-file: train.html\ntitle: Train\n\n---\n\n"),
        v.new_code_cell("#| echo: false\n#| output: asis\nshow_doc(f)", outputs=[v.new_output(
            "execute_result", data={"text/markdown": "---\n\n### f\n\n*doc*"}, execution_count=1)]),
        v.new_code_cell("#| include: false\nx = 1"),
        v.new_code_cell("#| slow\n#| code-fold: true\ny = 2"),
        v.new_code_cell("#| hide\n"), v.new_markdown_cell("  ")])
    nb.cells[1]["has_sd"] = True  # nbdev's own mark, not in nbformat's schema
    (tmp_path / "14_train.ipynb").write_text(json.dumps(nb))
    page, out = cd.for_sphinx(tmp_path / "14_train.ipynb")
    assert page == "train"
    assert [(c.cell_type, c.source, c.metadata.get("tags")) for c in out.cells] == [
        ("markdown", "# Train\n\n> What it does", None), ("code", "show_doc(f)", ["remove-input"]),
        ("code", "x = 1", ["remove-cell"]), ("code", "y = 2", ["hide-input"])]
    assert out.cells[1].outputs[0]["data"]["text/markdown"] == "### f\n\n*doc*"
    nbformat.validate(out)


def test_toctree_puts_tutorials_first():
    pages = [{"page": "index"}, {"page": "core"}, {"page": "tutorials/services"}, {"page": "train"}]
    assert cd.toctree(pages) == ("```{toctree}\n:hidden:\n:caption: Tutorials\n\ntutorials/services\n```\n\n"
                                 "```{toctree}\n:hidden:\n:caption: Reference\n\ncore\ntrain\n```")


def test_vendored_widget_manager_matches_record():
    "The vendored files are the ones docs/VENDORED.md records (name and sha256)."
    rec = dict(re.findall(r"^\|\s*`([^`]+)`\s*\|\s*`([0-9a-f]{64})`", (DOCS / "VENDORED.md").read_text(), re.M))
    assert rec, "docs/VENDORED.md lists no files"
    have = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in VENDORED.iterdir() if p.is_file()}
    assert have == rec


def test_pages_load_nothing_from_the_network(site):
    "No page loads a script or stylesheet from an http(s) address; the widget pages load the vendored embed.js."
    assert cd.remote_assets(site) == []
    pages = widget_pages(site)
    assert pages
    for p in pages:
        srcs = [s["src"] for s in BeautifulSoup(p.read_text(), "html.parser").find_all("script", src=True)]
        assert any(re.search(r"(^|/)_static/jupyter-widgets/embed\.js(\?|$)", s) for s in srcs), (p, srcs)


def render(page: Path, tmp: Path) -> str:
    "The page's DOM after its scripts ran in headless chromium, with every host name unresolvable."
    r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        f"--user-data-dir={tmp / 'chromium'}", "--host-resolver-rules=MAP * ~NOTFOUND",
                        "--virtual-time-budget=20000", "--dump-dom", page.as_uri()],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "<html" in r.stdout, r.stderr[-2000:]
    return r.stdout


def test_widget_manager_renders_views(site, tmp_path):
    """Every widget-view output on every widget page becomes a live view: the manager inserts `div.widget-subarea`
    before the view's script and a `.jupyter-widgets` element inside it. The built HTML has neither."""
    _need_chromium()
    for page in widget_pages(site):
        raw = BeautifulSoup(page.read_text(), "html.parser")
        assert not raw.select(".widget-subarea, .jupyter-widgets"), f"{page}: widget elements written into the HTML"
        state = json.loads(raw.find("script", type=STATE).string)["state"]
        views = [json.loads(s.string)["model_id"] for s in raw.find_all("script", type=VIEW)]
        views = [m for m in views if m in state]
        assert views, f"{page}: no widget view with state"
        dom = BeautifulSoup(render(page, tmp_path), "html.parser")
        rendered = [s for s in dom.find_all("script", type=VIEW) if json.loads(s.string)["model_id"] in state]
        assert len(rendered) == len(views)
        for s in rendered:
            sub = s.find_previous_sibling()
            assert sub is not None and "widget-subarea" in sub.get("class", []), \
                f"{page.relative_to(site)}: view {json.loads(s.string)['model_id']} was not rendered"
            assert sub.select(".jupyter-widgets"), f"{page.relative_to(site)}: empty widget-subarea"
        if site != ROOT / "_docs":  # the one-notebook site: the values come from the kernel's widget state
            labels = [e.get_text() for e in dom.select(".widget-label")]
            assert "K squared = 49" in labels, labels
            assert dom.select(".widget-readout") and dom.select(".widget-readout")[0].get_text() == "7"
            assert dom.select(".widget-output img, .widget-output .jp-RenderedImage"), "the plot in the Output widget"
