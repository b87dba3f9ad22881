"""Sphinx configuration for the docs site (used by docs/compoworld_docs.py through scripts/docs.sh; not by nbdev-docs/Quarto).

The pages are notebooks that docs/compoworld_docs.py has already executed and processed: myst-nb renders them without
executing anything. Nothing is loaded from the network: the widget manager comes from the vendored copy in
_static/jupyter-widgets/, MathJax (for the `$$…$$` equations of the markdown cells) from _static/mathjax/ (see
VENDORED.md), the search index is Sphinx's own `searchindex.js`, and the theme ships its own assets.
"""
from pathlib import Path

from nbdev.config import get_config

_cfg = get_config(Path(__file__).resolve().parents[1])

project = _cfg.get("title", _cfg.lib_name)
author = _cfg.get("author", "compoworld_nb developers")
copyright = f"{author}"
release = _cfg.get("version", "")

extensions = ["myst_nb"]
root_doc = "index"
exclude_patterns = ["**.ipynb_checkpoints", "_build"]

# Notebooks are executed by docs/compoworld_docs.py (widget state kept); myst-nb only renders them.
nb_execution_mode = "off"
nb_merge_streams = True
# The embed bundle of @jupyter-widgets/html-manager, vendored (a path under html_static_path, not a URL). It renders
# every widget-view output from the widget state that myst-nb writes into the page.
nb_ipywidgets_js = {"jupyter-widgets/embed.js": {}}
# nbdev's show_doc output is markdown with headings and tables: render it as MyST, not plain CommonMark.
nb_render_markdown_format = "myst"
myst_heading_anchors = 3
# `$…$` and `$$…$$` in markdown cells are mathematics (as in Jupyter); `amsmath` takes `\begin{aligned}` & co. blocks.
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath", "amsmath"]
# MathJax 3 from the vendored bundle (a path under html_static_path; Sphinx's default is a CDN address). Sphinx adds
# it, with its own MathJax 3 configuration, only to the pages that have mathematics.
mathjax_path = "mathjax/tex-svg-full.js"

html_theme = "furo"
html_title = project
html_static_path = ["_static"]
html_copy_source = False
html_show_sourcelink = False
