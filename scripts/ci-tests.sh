#!/usr/bin/env bash
# CI's test step (.ci/run): the whole suite on the machine's Node.js 20 in this tree and on Node.js 24 in TREE (made by
# `scripts/node24.sh tree TREE`), both at once against the same PostgreSQL, Redis and S3 (tests name their databases,
# buckets, Redis prefixes, folders and ports uniquely). Each run has a temp folder of its own and a log of its own
# (.tmp/ci/node20.log and node24.log, or in the folder CI_TEST_LOGS), printed one after the other at the end, each
# with its list of failures and its 15 slowest files; the exit status is 0 only when both passed.
#
#   scripts/ci-tests.sh [TREE [FILE...]]   TREE defaults to .tmp/ci/node24; FILEs (paths from the tree's root) run
#                                          only those test files, in both
#
# TEST_CONCURRENCY_NODE20 and TEST_CONCURRENCY_NODE24 set each run's test files at once (default 2 each: four files
# at once in all, which keeps a 2-core machine busy without starving the tests that wait on timers).
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
tree=${1:-$repo/.tmp/ci/node24}
shift || true
files=("$@")
logs=${CI_TEST_LOGS:-$repo/.tmp/ci}
mkdir -p "$logs"
[ -d "$tree/node_modules" ] || { echo "no Node 24 install in $tree: run scripts/node24.sh tree $tree first" >&2; exit 2; }
node24_dir=$(scripts/node24.sh node) || exit 2

# run NAME DIR CONCURRENCY PATH-PREFIX: the suite in DIR, its output in $logs/NAME.log; writes NAME.status and
# NAME.seconds.
run() {
  local name=$1 dir=$2 concurrency=$3 path_prefix=$4
  local tmp start status
  tmp=$(mktemp -d "/tmp/chute-ci-$name.XXXXXX")
  start=$(date +%s)
  (
    cd "$dir" && PATH=$path_prefix$PATH TMPDIR=$tmp TEST_CONCURRENCY=$concurrency TEST_SLOWEST=15 exec node scripts/test.mjs "${files[@]}"
  ) >"$logs/$name.log" 2>&1
  status=$?
  echo "$status" >"$logs/$name.status"
  echo $(($(date +%s) - start)) >"$logs/$name.seconds"
  # Tests clean up after themselves; anything left (but tsx's cache of compiled files) is worth a look.
  local left
  left=$(find "$tmp" -mindepth 1 -maxdepth 1 ! -name 'tsx-*' 2>/dev/null | head -n 5)
  [ -z "$left" ] || printf 'left behind by the tests in %s:\n%s\n' "$tmp" "$left" >>"$logs/$name.log"
  rm -rf "$tmp"
}

rm -f "$logs"/node20.{log,status,seconds} "$logs"/node24.{log,status,seconds}
echo "tests on $(node --version) (this tree) and on $("$node24_dir/bin/node" --version) ($tree), side by side"
run node20 "$repo" "${TEST_CONCURRENCY_NODE20:-2}" "" &
pid20=$!
run node24 "$tree" "${TEST_CONCURRENCY_NODE24:-2}" "$node24_dir/bin:" &
pid24=$!
wait "$pid20" "$pid24"

failed=0
for name in node20 node24; do
  status=$(cat "$logs/$name.status" 2>/dev/null || echo 1)
  echo
  echo "======== $name: the suite's output ($logs/$name.log) ========"
  cat "$logs/$name.log"
  [ "$status" = 0 ] || failed=1
done
echo
for name in node20 node24; do
  echo "$name: exit $(cat "$logs/$name.status" 2>/dev/null || echo '?') after $(cat "$logs/$name.seconds" 2>/dev/null || echo '?') s"
done
exit "$failed"
