#!/usr/bin/env bash
# Re-vendor the docs site's JavaScript from the npm registry into docs/_static/ (the docs build never downloads):
#   bash docs/vendor.sh widgets [VERSION]   @jupyter-widgets/html-manager -> _static/jupyter-widgets/ (default 1.0.15)
#   bash docs/vendor.sh mathjax [VERSION]   mathjax (TeX in, SVG out)     -> _static/mathjax/         (default 3.2.2)
# Run by hand only to change a VERSION. npm checks each tarball against the registry's published integrity (sha512).
# Then update the tables in docs/VENDORED.md from the sha256 lines this prints (tests/test_docs.py compares them).
set -euo pipefail
WHAT="${1:-}"; VERSION="${2:-}"
cd "$(dirname "$0")"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fetch() { (cd "$tmp" && npm pack --silent "$1@$2" >/dev/null && tar xzf ./*.tgz)
          grep -q '"version": "'"$2"'"' "$tmp/package/package.json"; }
case "$WHAT" in
  widgets)
    VERSION="${VERSION:-1.0.15}"; fetch @jupyter-widgets/html-manager "$VERSION"
    dest=_static/jupyter-widgets; keep="$dest/LICENSE.ipywidgets"  # the tarball has no licence file: ours is kept
    find "$dest" -type f ! -path "$keep" -delete
    # embed.js: the non-AMD bundle (no require.js; base, controls and output widgets built in, nothing fetched);
    # the .woff2 fonts are the only font format Chromium/Firefox request from its CSS (Font Awesome icons).
    cp "$tmp/package/dist/embed.js" "$tmp/package/dist/embed.js.LICENSE.txt" "$tmp"/package/dist/*.woff2 "$dest/" ;;
  mathjax)
    VERSION="${VERSION:-3.2.2}"; fetch mathjax "$VERSION"
    dest=_static/mathjax; rm -rf "$dest"; mkdir -p "$dest"
    # tex-svg-full.js: TeX input with every TeX extension built in (nothing autoloaded) and SVG output, whose glyphs
    # are in the bundle itself (no web fonts to fetch).
    cp "$tmp/package/es5/tex-svg-full.js" "$dest/"; cp "$tmp/package/LICENSE" "$dest/LICENSE.mathjax" ;;
  *) echo "usage: bash docs/vendor.sh widgets|mathjax [VERSION]" >&2; exit 2 ;;
esac
(cd _static && find "${dest#_static/}" -type f | sort | xargs sha256sum)
