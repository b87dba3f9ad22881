#!/usr/bin/env bash
# Build the documentation site from the notebooks, offline, into _docs/ (open _docs/index.html).
# Each notebook is executed in a copy (widget state kept; `#| slow` cells skipped as under nbdev-test), processed by
# nbdev's own doc processors, and rendered by Sphinx + myst-nb with the vendored widget manager and MathJax
# (docs/VENDORED.md). The home page is the course (tutorials, layer chapters, extension chapters); every page is also
# written as PAGE.html.md (the modules' `Docs:` addresses) with the site's llms.txt; the build fails if a page loads
# anything from the network or a link of the site does not resolve.
# `python docs/compoworld_docs.py --llms` rewrites nbs/llms.txt (every tutorial and module) after a module is added.
# Run from anywhere inside the project's venv; options go to docs/compoworld_docs.py (--force, -j N, --only NB.ipynb ...).
# Where Quarto is installed, `nbdev-docs` still builds nbdev's own Quarto site instead (same _docs/ folder).
set -euo pipefail
cd "$(dirname "$0")/.."
python docs/compoworld_docs.py "$@"
