#!/usr/bin/env bash
# `make dist`: the release artifacts of the checked-out commit, in dist/.
#
#   dist/ctxd-V-linux-x64, ctxd-V-linux-arm64, ctxd-V-windows-x64.exe  the binaries (cgo)
#   dist/ctxd-V-linux-x64.tar.gz, ctxd-V-linux-arm64.tar.gz,
#        ctxd-V-windows-x64.zip       binary, Neovim plugin, README.txt, LICENSE, license notices
#   dist/ctxd-V-linux-x64.vsix, ctxd-V-linux-arm64.vsix,
#        ctxd-V-win32-x64.vsix        the VS Code extension with the binary in server/ (and LICENSE)
#   dist/ctxd-V.vsix                  the VS Code extension without a binary (any platform)
#   dist/SHA256SUMS                   over all of the above (sha256sum -c SHA256SUMS)
#
# V is tools/dist/version.sh. The bytes depend only on the commit and the
# toolchains (Go, the C cross compilers, Node and the locked npm packages):
# -trimpath, no VCS stamping, no build id, stripped symbols, every archive
# written with sorted entries and SOURCE_DATE_EPOCH (the commit's time) as
# every entry's time. Missing C cross compilers (and Node) are installed
# from Debian when running as root, as .ci/run does for its needs.
#
# Environment: GO (go), DIST_DIR (dist), DIST_VERSION (tools/dist/version.sh),
# DIST_TARGETS (VS Code target names; default "linux-x64 linux-arm64 win32-x64").
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

GO=${GO:-go}
out=${DIST_DIR:-dist}
version=${DIST_VERSION:-$(tools/dist/version.sh)}
commit=$(git rev-parse HEAD)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct HEAD)}
export TZ=UTC LC_ALL=C
umask 022
targets=${DIST_TARGETS:-linux-x64 linux-arm64 win32-x64}
start=$(date +%s)
step() { echo "== dist [$(($(date +%s) - start))s] $*"; }

host_arch=$($GO env GOHOSTARCH)
# target_vars T: sets goos, goarch, exe, plat (archive platform name) and cc for the VS Code target T.
target_vars() {
  case $1 in
    linux-x64) goos=linux goarch=amd64 exe="" plat=linux-x64 cc=x86_64-linux-gnu-gcc ;;
    linux-arm64) goos=linux goarch=arm64 exe="" plat=linux-arm64 cc=aarch64-linux-gnu-gcc ;;
    win32-x64) goos=windows goarch=amd64 exe=.exe plat=windows-x64 cc=x86_64-w64-mingw32-gcc ;;
    *) echo "dist: unknown target $1 (want linux-x64, linux-arm64 or win32-x64)" >&2; exit 2 ;;
  esac
  # The host's own compiler for its own platform: the same one `make build` uses.
  if [ "$goos" = linux ] && [ "$goarch" = "$host_arch" ] && [ "$($GO env GOHOSTOS)" = linux ]; then cc=gcc; fi
}

# Install what is missing: the C compilers of the targets, Node and npm.
need_apt=()
for t in $targets; do
  target_vars "$t"
  if ! command -v "$cc" >/dev/null; then
    case $cc in
      gcc) need_apt+=(gcc) ;;
      x86_64-linux-gnu-gcc) need_apt+=(gcc-x86-64-linux-gnu) ;;
      aarch64-linux-gnu-gcc) need_apt+=(gcc-aarch64-linux-gnu) ;;
      x86_64-w64-mingw32-gcc) need_apt+=(gcc-mingw-w64-x86-64) ;;
    esac
  fi
done
command -v npm >/dev/null || need_apt+=(nodejs npm)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "dist: missing ${need_apt[*]}: install these Debian packages (or their equivalents) and rerun" >&2
    exit 1
  fi
  step "installing ${need_apt[*]}"
  # Another apt (unattended-upgrades, a second job) may hold the dpkg
  # lock: wait for it up to 10 minutes instead of failing at once.
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${need_apt[@]}"
fi

step "version $version, commit $commit, SOURCE_DATE_EPOCH $SOURCE_DATE_EPOCH"
rm -rf "$out"
stage=$out/.stage
mkdir -p "$stage"
absout=$(cd "$out" && pwd)
$GO build -o "$stage/disttool" ./tools/dist

# The binaries.
for t in $targets; do
  target_vars "$t"
  step "building ctxd for $goos/$goarch with $cc"
  CGO_ENABLED=1 GOOS=$goos GOARCH=$goarch CC=$cc \
    $GO build -trimpath -buildvcs=false \
    -ldflags "-s -w -buildid= -X main.version=$version -X main.commit=$commit" \
    -o "$out/ctxd-$version-$plat$exe" .
done

# The archives: binary, Neovim plugin, README.txt, LICENSE, license notices.
nvim_files=$(git ls-files editors/nvim | grep -v -e '^editors/nvim/tests/' -e '/\.[^/]*$')
for t in $targets; do
  target_vars "$t"
  name=ctxd-$version-$plat
  dir=$stage/$name
  step "archiving $name"
  mkdir -p "$dir"
  cp "$out/$name$exe" "$dir/ctxd$exe"
  chmod 755 "$dir/ctxd$exe"
  for f in $nvim_files; do
    mkdir -p "$dir/nvim/$(dirname "${f#editors/nvim/}")"
    cp "$f" "$dir/nvim/${f#editors/nvim/}"
  done
  cp LICENSE "$dir/LICENSE"
  "$stage/disttool" notices -goos "$goos" -goarch "$goarch" -o "$dir/THIRD_PARTY_NOTICES.txt"
  # The template's tables are tab-separated: disttool aligns them after
  # filling in ctxd or ctxd.exe. CR LF on Windows: Notepad-friendly.
  crlf=""
  if [ "$goos" = windows ]; then crlf=-crlf ext=zip; else ext=tar.gz; fi
  "$stage/disttool" readme -template tools/dist/README.txt.in -o "$dir/README.txt" $crlf \
    -version "$version" -commit "$commit" -platform "$plat" -exe "$exe"
  "$stage/disttool" archive -o "$out/$name.$ext" -mtime "$SOURCE_DATE_EPOCH" "$dir"
done

# The VS Code extension: one .vsix per target with server/ctxd[.exe], and a
# universal one without a binary (it finds ctxd through the setting or PATH).
# vsce sorts the entries and dates them SOURCE_DATE_EPOCH when it is set.
# The repository's LICENSE is copied in for the packaging (.vscodeignore
# lets it through, vsce stores it as extension/LICENSE.txt). vsce only
# warns when it is missing, so disttool license checks every artifact
# below.
vscode=editors/vscode
trap 'rm -rf "$root/$vscode/server" "$root/$vscode/LICENSE"' EXIT
cp LICENSE "$vscode/LICENSE"
step "npm ci in $vscode"
(cd "$vscode" && npm ci --no-audit --no-fund)
vsce() {
  (cd "$vscode" && npx --no-install vsce package "$version" --no-update-package-json --no-git-tag-version \
    --no-dependencies "$@")
}
for t in $targets; do
  target_vars "$t"
  step "packaging ctxd-$version-$t.vsix"
  rm -rf "$vscode/server"
  mkdir "$vscode/server"
  cp "$out/ctxd-$version-$plat$exe" "$vscode/server/ctxd$exe"
  chmod 755 "$vscode/server/ctxd$exe"
  vsce --target "$t" -o "$absout/ctxd-$version-$t.vsix"
done
rm -rf "$vscode/server"
step "packaging ctxd-$version.vsix (universal, no binary)"
vsce -o "$absout/ctxd-$version.vsix"
rm -f "$vscode/LICENSE"

step "checking that every archive and .vsix carries LICENSE"
shopt -s nullglob
artifacts=("$out"/*.tar.gz "$out"/*.zip "$out"/*.vsix)
shopt -u nullglob
"$stage/disttool" license -license LICENSE "${artifacts[@]}"
"$stage/disttool" sums "$out"
rm -rf "$stage"
step "done"
(cd "$out" && ls -l && cat SHA256SUMS)
