"""The docs site: a course (tutorials, layer chapters, extension chapters), offline: widgets and equations render on
the static pages from the vendored widget manager and MathJax, search works, every link resolves, and the module
docstrings' and llms.txt's `Docs:` addresses are pages the build writes.

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
STATIC = DOCS / "_static"
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
    """A home page and one tutorial with a slider, a label, a button and a plot in an Output widget, an equation, a
    plain plot, and links to itself and to the other pages."""
    v = nbformat.v4
    (nbs / "tutorials").mkdir(parents=True)
    nbformat.write(v.new_notebook(cells=[v.new_markdown_cell("# mini\n\n> A one-notebook site")]), nbs / "index.ipynb")
    nbformat.write(v.new_notebook(cells=[
        v.new_markdown_cell("# Widgets\n\n> A page with widgets"),
        v.new_markdown_cell("## The weights\n\nThe weight of criterion $j$ is\n\n$$\nw_j = \\lambda + (1 - p_j)\n$$\n\n"
                            "See [the weights](#the-weights) and [the home page](../index.ipynb)."),
        v.new_code_cell("#| hide\nimport ipywidgets as W\nimport matplotlib.pyplot as plt"),
        v.new_code_cell("s = W.IntSlider(value=3, min=0, max=10, description='K')\n"
                        "lab = W.Label(value=f'K squared = {s.value**2}')\n"
                        "s.observe(lambda ch: setattr(lab, 'value', f'K squared = {ch.new**2}'), 'value')\n"
                        "s.value = 7\nout = W.Output()\n"
                        "with out:\n    fig, ax = plt.subplots(figsize=(2, 1)); ax.plot([0, 1]); plt.show()\n"
                        "W.VBox([s, lab, W.Button(description='go'), out])"),
        v.new_code_cell("fig, ax = plt.subplots(figsize=(2, 1)); ax.bar([0, 1], [3, 1]); plt.show()"),
        v.new_code_cell("#| slow\nraise RuntimeError('a slow cell must not run for the site')"),
    ]), nbs / "tutorials" / "01_widgets.ipynb")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """`_docs/` when scripts/docs.sh built it (the vendored manager is in it) with widget pages; else a one-notebook
    site built with docs/compoworld_docs.py. (A Quarto site from `nbdev-docs` in `_docs/` is not checked here.)"""
    built = ROOT / "_docs"
    if (built / "_static" / "jupyter-widgets" / "embed.js").exists() and (built / "llms.txt").exists() \
            and widget_pages(built): return built
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
    (tmp_path / "17_train.ipynb").write_text(json.dumps(nb))
    page, out = cd.for_sphinx(tmp_path / "17_train.ipynb")
    assert page == "train"
    assert [(c.cell_type, c.source, c.metadata.get("tags")) for c in out.cells] == [
        ("markdown", "# Train\n\n> What it does", None), ("code", "show_doc(f)", ["remove-input"]),
        ("code", "x = 1", ["remove-cell"]), ("code", "y = 2", ["hide-input"])]
    assert out.cells[1].outputs[0]["data"]["text/markdown"] == "### f\n\n*doc*"
    nbformat.validate(out)


PAGES = [{"page": "index", "src": "index.ipynb"}, {"page": "toolgraph", "src": "36_toolgraph.ipynb", "description": "T"},
         {"page": "train", "src": "17_train.ipynb", "description": "SFT and GRPO"},
         {"page": "tutorials/walks", "src": "tutorials/02_walks.ipynb", "description": "Walks"},
         {"page": "core", "src": "00_core.ipynb"}, {"page": "tutorials/services", "src": "tutorials/01_services.ipynb"}]


def test_course_order_tutorials_then_layers_then_extensions():
    assert [(part, [p["page"] for p in items]) for part, items in cd.course(PAGES)] == [
        ("Tutorials", ["tutorials/services", "tutorials/walks"]), ("Layers", ["core", "train"]), ("Extensions", ["toolgraph"])]
    assert cd.toctree(PAGES) == (
        "```{toctree}\n:hidden:\n:caption: Tutorials\n\ntutorials/services\ntutorials/walks\n```\n\n"
        "```{toctree}\n:hidden:\n:caption: Layers\n\ncore\ntrain\n```\n\n"
        "```{toctree}\n:hidden:\n:caption: Extensions\n\ntoolgraph\n```")
    md = cd.course_markdown(PAGES)
    assert [l for l in md.splitlines() if re.match(r"\d+\. ", l)] == [
        "1. {doc}`tutorials/services`", "2. {doc}`tutorials/walks` — Walks", "3. {doc}`core`",
        "4. {doc}`train` — SFT and GRPO", "5. {doc}`toolgraph` — T"]
    assert md.index("### Tutorials") < md.index("### Layers") < md.index("### Extensions")
    assert [cd.part_of(s) for s in ("tutorials/01_x.ipynb", "42_serve.ipynb", "08_rewards.ipynb", "09a_probe.ipynb")] == [
        "Tutorials", "Extensions", "Layers", "Layers"]


def test_markdown_page_keeps_text_code_and_docs_drops_hidden_and_images():
    v = nbformat.v4
    nb = v.new_notebook(cells=[
        v.new_markdown_cell("# Home\n\n1. {doc}`tutorials/walks` — Walks\n\n```{toctree}\n:hidden:\n\ncore\n```"),
        v.new_code_cell("x = 1", outputs=[v.new_output("stream", name="stdout", text="1\n")]),
        v.new_code_cell("show_doc(f)", metadata={"tags": ["remove-input"]}, outputs=[
            v.new_output("display_data", data={"text/markdown": "### f\n\n*doc*", "text/plain": "<f>"})]),
        v.new_code_cell("secret = 2", metadata={"tags": ["remove-cell"]}),
        v.new_code_cell("plot()", metadata={"tags": ["remove-output"]}, outputs=[v.new_output("stream", name="stdout", text="no")]),
        v.new_code_cell("fig", outputs=[v.new_output("display_data", data={"image/png": "AAAA", "text/plain": "<Figure>"}),
                                        v.new_output("execute_result", data={"text/plain": "42"}, execution_count=1)])])
    assert cd.markdown_page(nb, {"tutorials/walks": "Environment walks"}) == (
        "# Home\n\n1. [Environment walks](tutorials/walks.html.md) — Walks\n\n```python\nx = 1\n```\n\n```\n1\n```\n\n"
        "### f\n\n*doc*\n\n```python\nplot()\n```\n\n```python\nfig\n```\n\n```\n42\n```\n")


def test_check_links_finds_missing_files_and_anchors(tmp_path):
    base = "https://example.org/proj/"
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.html").write_text(
        '<h2 id="top">t</h2><a name="old"></a><a href="#top">ok</a><a href="#nope">bad anchor</a>'
        '<a href="sub/">folder</a><a href="sub/b.html#x">ok</a><a href="b.html">missing</a><img src="_images/p.png">'
        '<a href="https://example.org/proj/a.html.md">site md</a><a href="https://example.org/proj/gone.html">gone</a>'
        '<a href="https://other.example/">external</a><a href="mailto:x@y.z">mail</a><a href="#">top</a>'
        '<a href="a.html#old">named</a><a href="../outside.html">outside</a>')
    (tmp_path / "a.html.md").write_text("# a")
    (tmp_path / "sub" / "index.html").write_text("<p>i</p>")
    (tmp_path / "sub" / "b.html").write_text('<p id="x">b</p>')
    (tmp_path / "llms.txt").write_text("- [a](https://example.org/proj/a.html.md): A\n- [c](https://example.org/proj/c.html.md): C\n")
    broken, external = cd.check_links(tmp_path, base)
    assert broken == ["a.html: #nope (no #nope in a.html)", "a.html: b.html (no file b.html)",
                      "a.html: _images/p.png (no file _images/p.png)", "a.html: gone.html (no file gone.html)",
                      "a.html: ../outside.html (outside the site)", "llms.txt: c.html.md (no file c.html.md)"]
    assert external == ["a.html: https://other.example/"]


def test_llms_txt_lists_every_module_and_tutorial_and_is_in_sync():
    """nbs/llms.txt is what the builder writes (`python docs/compoworld_docs.py --llms`): every public module of the
    library and every tutorial, each linked to the `.html.md` page the build writes for its notebook."""
    from nbdev.config import get_config, nbpath2html
    txt = cd.llms_txt()
    assert (ROOT / "nbs" / "llms.txt").read_text(encoding="utf-8") == txt, \
        "nbs/llms.txt is stale: run python docs/compoworld_docs.py --llms"
    lib = get_config().lib_path
    mods = sorted(f"{lib.name}.{p.stem}" for p in lib.glob("*.py") if not p.name.startswith("_"))
    assert sorted(re.findall(r"^- \[(compoworld_nb\.\w+)\]\(", txt, re.M)) == mods
    base = cd.site_url()
    for t in sorted((ROOT / "nbs" / "tutorials").glob("*.ipynb")):
        assert f"({base}{nbpath2html(t.relative_to(ROOT / 'nbs')).as_posix()}.md)" in txt, t.name


def test_module_docstring_links_name_pages_of_their_notebooks():
    """Each module's `Docs:` address is the site address of the `.html.md` page of the notebook it is exported from
    (the page the build writes), so a reader of `help(module)` lands on the module's chapter."""
    from nbdev.config import get_config, nbpath2html
    lib, nbs, base = get_config().lib_path, get_config().nbs_path, cd.site_url()
    docs = {n: u for n, _, u in cd.module_docs(lib)}
    assert docs
    for f in sorted(lib.glob("*.py")):
        if f.name.startswith("_"): continue
        m = re.search(r"^# AUTOGENERATED! DO NOT EDIT! File to edit: (\S+\.ipynb)", f.read_text(), re.M)
        assert m, f"{f.name} names no notebook"
        nb = (f.parent / m[1]).resolve()
        assert nb.exists(), f"{f.name}: no {nb}"
        assert docs[f"{lib.name}.{f.stem}"] == base + nbpath2html(nb.relative_to(nbs.resolve())).as_posix() + ".md", f.name


def test_vendored_files_match_record():
    "docs/_static/ holds exactly the files docs/VENDORED.md records (path under _static/ and sha256)."
    rec = dict(re.findall(r"^\|\s*`([^`]+)`\s*\|\s*`([0-9a-f]{64})`", (DOCS / "VENDORED.md").read_text(), re.M))
    assert rec, "docs/VENDORED.md lists no files"
    have = {p.relative_to(STATIC).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in STATIC.rglob("*") if p.is_file()}
    assert have == rec


def test_pages_load_nothing_from_the_network(site):
    "No page loads a script or stylesheet from an http(s) address; the widget pages load the vendored embed.js."
    assert cd.remote_assets(site) == []
    pages = widget_pages(site)
    assert pages
    for p in pages:
        srcs = [s["src"] for s in BeautifulSoup(p.read_text(), "html.parser").find_all("script", src=True)]
        assert any(re.search(r"(^|/)_static/jupyter-widgets/embed\.js(\?|$)", s) for s in srcs), (p, srcs)


def math_pages(site: Path) -> list[Path]:
    "The site's pages with display mathematics (myst's dollarmath writes `div.math` with `\\[ ... \\]`)."
    return sorted(p for p in site.rglob("*.html") if BeautifulSoup(p.read_text(), "html.parser").select("div.math"))


def test_site_is_a_course_with_links_that_resolve(site):
    """The home page lists the course (tutorials first) and every link of the site resolves: pages, anchors, images,
    scripts, the `.html.md` pages and llms.txt's addresses."""
    broken, _ = cd.check_links(site)
    assert broken == []
    home = BeautifulSoup((site / "index.html").read_text(), "html.parser")
    course = home.find(id="the-course")
    assert course is not None
    hrefs = [a["href"] for a in course.select("ol a.reference.internal")]
    assert hrefs and hrefs[0].startswith("tutorials/"), hrefs
    assert (site / "llms.txt").read_text(encoding="utf-8").startswith("# ")
    assert (site / "index.html.md").exists() and (site / "search.html").exists()


def test_pages_load_mathjax_from_the_site_and_show_plots(site):
    "Pages with equations load the vendored MathJax (not a CDN); at least one page shows a plot from the site's images."
    pages = math_pages(site)
    assert pages, "no page of the site has an equation"
    for p in pages:
        srcs = [s["src"] for s in BeautifulSoup(p.read_text(), "html.parser").find_all("script", src=True)]
        assert any(re.search(r"(^|/)_static/mathjax/tex-svg-full\.js(\?|$)", s) for s in srcs), (p, srcs)
    imgs = [(p, i["src"]) for p in site.rglob("*.html")
            for i in BeautifulSoup(p.read_text(), "html.parser").find_all("img", src=True) if "_images/" in i["src"]]
    assert imgs and all((p.parent / s).is_file() for p, s in imgs)


def render(page: Path, tmp: Path, query: str = "") -> str:
    "The page's DOM (with `query` added to its address) after its scripts ran in headless chromium, no host resolvable."
    r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        f"--user-data-dir={tmp / 'chromium'}", "--host-resolver-rules=MAP * ~NOTFOUND",
                        "--virtual-time-budget=20000", "--dump-dom", page.as_uri() + query],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "<html" in r.stdout, r.stderr[-2000:]
    return r.stdout


def test_equation_renders_as_mathematics(site, tmp_path):
    """In the browser, MathJax (vendored) turns the first page's display equation into an SVG: `mjx-container` with an
    `svg` that draws glyphs, in place of the TeX source the HTML holds."""
    _need_chromium()
    page = math_pages(site)[0]
    raw = BeautifulSoup(page.read_text(), "html.parser")
    assert not raw.select("mjx-container"), "MathJax output written into the HTML"
    dom = BeautifulSoup(render(page, tmp_path), "html.parser")
    boxes = dom.select("div.math mjx-container[display=true]")
    assert boxes, f"{page.relative_to(site)}: no equation was typeset"
    svg = boxes[0].find("svg")
    assert svg is not None and svg.select("use, path"), "the equation's SVG draws nothing"
    assert "\\[" not in boxes[0].parent.get_text(), "TeX source left on the page"


def test_search_finds_a_page(site, tmp_path):
    "Sphinx's search runs offline: searching for a word of a chapter's title lists that chapter."
    _need_chromium()
    home = BeautifulSoup((site / "index.html").read_text(), "html.parser")
    first = home.select("#the-course ol a.reference.internal")[0]
    word = max(re.findall(r"[A-Za-z]{4,}", first.get_text()), key=len).lower()
    dom = BeautifulSoup(render(site / "search.html", tmp_path, f"?q={word}"), "html.parser")
    hits = [a["href"] for a in dom.select("#search-results a[href]")]
    assert any(h.split("?")[0].split("#")[0] == first["href"].split("#")[0] for h in hits), (word, hits)


def test_widget_manager_renders_views(site, tmp_path):
    """Every widget-view output on every widget page becomes a live view: the manager inserts `div.widget-subarea`
    before the view's script and a `.jupyter-widgets` element inside it. The built HTML has neither."""
    _need_chromium()
    checked = []
    for page in widget_pages(site):
        raw = BeautifulSoup(page.read_text(), "html.parser")
        assert not raw.select(".widget-subarea, .jupyter-widgets"), f"{page}: widget elements written into the HTML"
        state = json.loads(raw.find("script", type=STATE).string)["state"]
        views = [json.loads(s.string)["model_id"] for s in raw.find_all("script", type=VIEW)]
        views = [m for m in views if m in state]
        if not views: continue  # state of widgets that show no view on the page (e.g. a finished tqdm bar): nothing to render
        checked.append(page)
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
    assert checked, "no page of the site shows a widget view"
