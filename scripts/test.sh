#!/usr/bin/env bash
# The whole test suite, as CI runs it: notebooks clean and in sync with the library, notebook tests, then pytest last.
# Run from the repository root inside the project's venv (see README).
set -euo pipefail
cd "$(dirname "$0")/.."
snap() { git status --porcelain --untracked-files=all | sort; }
before=$(snap)
echo "== nbdev-clean"; nbdev-clean
echo "== nbdev-export"; nbdev-export
after=$(snap)
if [ "$before" != "$after" ]; then
  echo "FAIL: notebooks are not clean or the library is out of sync with nbs/ (nbdev-clean / nbdev-export changed):"
  diff <(echo "$before") <(echo "$after") || true
  exit 1
fi
echo "== nbdev-test"; nbdev-test --n-workers 2
echo "== docs"; bash scripts/docs.sh
echo "== pytest"; python -m pytest -q -p no:cacheprovider tests
