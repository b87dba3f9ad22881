#!/usr/bin/env bash
# README.md from nbs/index.ipynb (nbdev-readme needs Quarto, which these machines cannot install).
set -euo pipefail
cd "$(dirname "$0")/.."
jupyter nbconvert --to markdown --log-level WARN --stdout nbs/index.ipynb > README.md
