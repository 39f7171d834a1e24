#!/usr/bin/env bash
# Runs the Neovim plugin's tests in a real headless Neovim against the real
# ctxd binary.
#
#   CTXD_BIN      the ctxd binary (default: ../../bin/ctxd from editors/nvim,
#                 i.e. bin/ctxd of the repository; build it with `make build`)
#   NVIM          the Neovim binary (default: nvim on PATH)
#   CTXD_EXAMPLE  the workspace copied for the tests (default: testdata/example)
#
# The binary is put first on PATH under the name ctxd, so the plugin's
# default cmd ({ "ctxd", "serve", "--stdio" }) finds it. Nothing is written
# outside a temporary directory; Neovim's config, data, state and cache
# directories point into it too.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
plugin="$(cd "$here/.." && pwd)"
bin="${CTXD_BIN:-$plugin/../../bin/ctxd}"
nvim="${NVIM:-nvim}"
example="${CTXD_EXAMPLE:-$plugin/../../testdata/example}"

if [ ! -x "$bin" ]; then
  echo "run.sh: ctxd binary not found at $bin (run make build, or set CTXD_BIN)" >&2
  exit 2
fi
if ! command -v "$nvim" >/dev/null; then
  echo "run.sh: $nvim not found (install Neovim 0.7 or later, or set NVIM)" >&2
  exit 2
fi
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
example="$(cd "$example" && pwd)"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/bin" "$scratch/xdg/config" "$scratch/xdg/data" "$scratch/xdg/state" "$scratch/xdg/cache"
ln -s "$bin" "$scratch/bin/ctxd"

path_without_ctxd="$PATH"
export PATH="$scratch/bin:$PATH"
export XDG_CONFIG_HOME="$scratch/xdg/config" XDG_DATA_HOME="$scratch/xdg/data"
export XDG_STATE_HOME="$scratch/xdg/state" XDG_CACHE_HOME="$scratch/xdg/cache"
export TMPDIR="$scratch"
export CTXD_NVIM_DIR="$plugin" CTXD_EXAMPLE="$example"

cd "$plugin"
"$nvim" --version | head -n 1
# timeout: a Neovim that never reaches :qa (a hang in a test) must not
# block CI; each test also has its own vim.wait timeouts.
limit=()
if command -v timeout >/dev/null; then
  limit=(timeout 300)
fi
${limit[@]+"${limit[@]}"} "$nvim" --headless -u NONE -i NONE --noplugin \
  -c "set rtp+=$plugin" \
  -c "luafile tests/run.lua" </dev/null

# The install the docs give for a plugin manager, in a fresh Neovim: a
# lazy.nvim-style spec over a local directory laid out like the repository
# (editors/nvim and bin/ctxd, both links), with ctxd NOT on PATH, so only
# the spec's vim.g.ctxd.cmd can find the binary. No network: nothing is
# cloned or downloaded.
mkdir -p "$scratch/repo/editors" "$scratch/repo/bin"
ln -s "$plugin" "$scratch/repo/editors/nvim"
ln -s "$bin" "$scratch/repo/bin/ctxd"
PATH="$path_without_ctxd" CTXD_REPO="$scratch/repo" \
  ${limit[@]+"${limit[@]}"} "$nvim" --headless -u NONE -i NONE --noplugin \
  -c "luafile tests/lazy_spec.lua" </dev/null
