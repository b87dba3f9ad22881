#!/usr/bin/env bash
# Re-vendor the widget manager's embed bundle from the npm registry into docs/_static/jupyter-widgets/.
# Run by hand only to change VERSION; the docs build itself never downloads anything. npm checks the tarball
# against the registry's published integrity (sha512). Then update the table in docs/VENDORED.md from the
# sha256 lines this prints (tests/test_docs.py compares them).
set -euo pipefail
VERSION="${1:-1.0.15}"
cd "$(dirname "$0")"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "@jupyter-widgets/html-manager@$VERSION" >/dev/null && tar xzf ./*.tgz)
dest=_static/jupyter-widgets
keep="$dest/LICENSE.ipywidgets"
find "$dest" -type f ! -path "$keep" -delete
# embed.js: the non-AMD bundle (no require.js; base, controls and output widgets built in, nothing fetched);
# the .woff2 fonts are the only font format Chromium/Firefox request from its CSS (Font Awesome icons).
cp "$tmp/package/dist/embed.js" "$tmp/package/dist/embed.js.LICENSE.txt" "$tmp"/package/dist/*.woff2 "$dest/"
grep -q '"version": "'"$VERSION"'"' "$tmp/package/package.json"
(cd "$dest" && sha256sum ./* | sed 's#  \./#  #')
