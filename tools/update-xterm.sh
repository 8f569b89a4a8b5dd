#!/usr/bin/env bash
# Refresh client/web-assets/vendor/, the xterm.js files the tuios binary embeds for `tuios web`,
# from npm at the versions pinned by client/web-assets/package-lock.json. For maintainers only:
# building tuios never runs npm, it embeds whatever this script last copied (and git tracks).
#
# Usage: tools/update-xterm.sh          `npm ci` the pinned packages into a temporary directory
#        tools/update-xterm.sh MODULES  copy from a node_modules that `npm ci` already filled
#
# To move to new versions: change client/web-assets/package.json, run
# `npm install --package-lock-only --prefix client/web-assets`, then this script; check the page
# in a browser (integration-tests/browser) and commit package*.json with vendor/.
set -euo pipefail
cd "$(dirname "$0")/.."
assets=client/web-assets
vendor=$assets/vendor

if [ $# -ge 1 ]; then
  modules=$1
else
  command -v npm >/dev/null 2>&1 || { echo "error: npm is needed to fetch xterm.js" >&2; exit 1; }
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cp "$assets/package.json" "$assets/package-lock.json" "$tmp/"
  # No install scripts: we only want the published files.
  npm ci --prefix "$tmp" --no-audit --no-fund --ignore-scripts
  modules=$tmp/node_modules
fi

# (file in vendor/, path inside node_modules): the same names client/src/serve/web/assets.rs
# embeds and serves under /assets/.
files=(
  "xterm.mjs @xterm/xterm/lib/xterm.mjs"
  "xterm.css @xterm/xterm/css/xterm.css"
  "addon-fit.mjs @xterm/addon-fit/lib/addon-fit.mjs"
  "addon-webgl.mjs @xterm/addon-webgl/lib/addon-webgl.mjs"
  "addon-clipboard.mjs @xterm/addon-clipboard/lib/addon-clipboard.mjs"
)
# (licence file in vendor/, package): addon-clipboard bundles js-base64 into its module, so its
# licence travels too.
licences=(
  "LICENSE.xterm @xterm/xterm"
  "LICENSE.addon-fit @xterm/addon-fit"
  "LICENSE.addon-webgl @xterm/addon-webgl"
  "LICENSE.addon-clipboard @xterm/addon-clipboard"
  "LICENSE.js-base64 js-base64"
)

rm -rf "$vendor.new"
mkdir -p "$vendor.new"
for row in "${files[@]}"; do
  set -- $row
  install -m 0644 "$modules/$2" "$vendor.new/$1"
done
for row in "${licences[@]}"; do
  set -- $row
  lic=$(ls "$modules/$2"/LICENSE* | head -n 1)
  install -m 0644 "$lic" "$vendor.new/$1"
done

# The README names each package's version and licence as npm installed them.
{
  cat <<'HEAD'
# Vendored xterm.js

The browser terminal of `tuios web`. `client/src/serve/web/assets.rs` embeds these files into
the `tuios` binary, so a plain `cargo build` or `cargo install` carries them: no npm at build
time. Do not edit them by hand; `tools/update-xterm.sh` copies them from the npm registry at the
versions pinned by `client/web-assets/package-lock.json` and rewrites this README.

| package | version | licence | files here |
| --- | --- | --- | --- |
HEAD
  for row in \
    "@xterm/xterm|xterm.mjs, xterm.css, LICENSE.xterm" \
    "@xterm/addon-fit|addon-fit.mjs, LICENSE.addon-fit" \
    "@xterm/addon-webgl|addon-webgl.mjs, LICENSE.addon-webgl" \
    "@xterm/addon-clipboard|addon-clipboard.mjs, LICENSE.addon-clipboard" \
    "js-base64|LICENSE.js-base64 only: addon-clipboard.mjs bundles a js-base64 build of its own"; do
    pkg=${row%%|*}
    what=${row#*|}
    meta=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print(p["version"], p["license"])' \
      "$modules/$pkg/package.json")
    echo "| \`$pkg\` | ${meta% *} | ${meta#* } | $what |"
  done
  cat <<'TAIL'

Source: the packages' tarballs on https://registry.npmjs.org (their sha512 integrity is in
`client/web-assets/package-lock.json`); upstream https://github.com/xtermjs/xterm.js and
https://github.com/dankogai/js-base64. Each file is copied unchanged from the package.
TAIL
} >"$vendor.new/README.md"

rm -rf "$vendor"
mv "$vendor.new" "$vendor"
echo "updated $vendor"
