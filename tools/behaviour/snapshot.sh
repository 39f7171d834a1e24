#!/usr/bin/env bash
# snapshot.sh BIN OUT: runs a fixed set of ctxd CLI invocations on a copy of
# testdata/example (and on GOROOT/src for a refusal) and writes each one's
# stdout, stderr and exit code under OUT. Two binaries' snapshots compared
# with `diff -r` prove a restructuring left the CLI's observable behaviour
# byte-identical:
#
#   tools/behaviour/snapshot.sh /tmp/ctxd-before /tmp/snap-before
#   tools/behaviour/snapshot.sh bin/ctxd /tmp/snap-after
#   diff -r /tmp/snap-before /tmp/snap-after
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$out" && mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R "$repo/testdata/example" "$work/ws"
rm -rf "$work/ws/.ctxd/ledger" "$work/ws/.ctxd/artifacts" "$work/ws/.ctxd/audit"* "$work/ws/.ctxd/ledger.sqlite"
export SOURCE_DATE_EPOCH=1795000000 CTXD_CACHE_DIR=off HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_STATE_HOME="$work/home/.state"
n=0
step() { # step NAME ARGS...: run bin ARGS in the workspace copy
  name=$1; shift
  n=$((n+1)); f=$(printf '%s/%02d-%s' "$out" "$n" "$name")
  (cd "$work" && "$bin" "$@" >"$f.stdout" 2>"$f.stderr" </dev/null; echo $? >"$f.rc")
  sed -i "s|$work|WORK|g" "$f.stdout" "$f.stderr"
}
T=(--target internal/store/store.go --target .env --symbol List)
step help --help
step help-build help build
step unknown nosuch
step bad-flag build --root ws --purpose diff --bogus
step no-purpose build --root ws
step summary build --root ws --purpose diff "${T[@]}" --intent "List returns the items sorted" --constraint "MUST_NOT add dependencies"
step json build --root ws --purpose diff "${T[@]}" --format json
step markdown build --root ws --purpose plan --target internal/store/store.go:3-9 --format markdown
step prompt build --root ws --purpose diff --target internal/store/store.go --format prompt
step intent build --root ws --purpose intent --symbol List --format json
step small build --root ws --purpose diff "${T[@]}" --max-input-tokens 300 --format json
step outside build --root ws --purpose diff --target ../etc/passwd --format json
step missing build --root ws --purpose diff --target nope.go --format json
step thread1 build --root ws --purpose diff --target internal/store/store.go --thread-id t1 --turn-id u1 --intent "first" --format json
printf 'model said this\n' >"$work/out.txt"
step record record --root ws --thread-id t1 --turn-id u1 --output-file "$work/out.txt"
step thread2 build --root ws --purpose diff --target internal/store/store.go --thread-id t1 --turn-id u2 --ref execution:u1 --intent "second" --format json
step record-unknown record --root ws --thread-id t1 --turn-id nope --output-file "$work/out.txt"
step index index --root ws --json --skipped
step index-text index --root ws
step verify verify --root ws --json --verbose
step verify-ledger verify --root ws --mode ledger
step version-bad version --bogus
(cd "$work/ws" && find .ctxd -type f | LC_ALL=C sort | while read -r p; do printf '%s %s\n' "$(sha256sum <"$p" | cut -c1-64)" "$p"; done) >"$out/zz-record-files"
