#!/usr/bin/env bash
# Drives a real Neovim (-u NONE, then this plugin) in tmux on a temporary
# copy of testdata/example and writes what the terminal showed, as text
# (tmux capture-pane -p), to a Markdown file:
#   1. :CtxdBuild and its results buffer;
#   2. the statusline component after the budget arrived, in visual mode;
#   3. a refusal (:CtxdBuild on .env), and the window that shows it whole.
#
#   tests/capture.sh [OUT]   (default OUT: editors/nvim/CAPTURES.md)
#
# CTXD_BIN and NVIM as for tests/run.sh. Needs tmux.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
plugin="$(cd "$here/.." && pwd)"
bin="${CTXD_BIN:-$plugin/../../bin/ctxd}"
nvim="${NVIM:-nvim}"
example="${CTXD_EXAMPLE:-$plugin/../../testdata/example}"
out="${1:-$plugin/CAPTURES.md}"

command -v tmux >/dev/null || { echo "capture.sh: tmux is required" >&2; exit 2; }
[ -x "$bin" ] || { echo "capture.sh: ctxd binary not found at $bin (run make build, or set CTXD_BIN)" >&2; exit 2; }
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
nvim="$(command -v "$nvim")"

scratch="$(mktemp -d)"
session="ctxd-capture-$$"
cleanup() {
  tmux kill-session -t "$session" 2>/dev/null || true
  rm -rf "$scratch"
}
trap cleanup EXIT

mkdir -p "$scratch/bin" "$scratch/xdg/config" "$scratch/xdg/data" "$scratch/xdg/state" "$scratch/xdg/cache"
ln -s "$bin" "$scratch/bin/ctxd"
cp -R "$example" "$scratch/example"

cat >"$scratch/init.lua" <<EOF
vim.opt.runtimepath:append("$plugin")
vim.cmd("runtime plugin/ctxd.lua")
vim.cmd("filetype on")
vim.cmd("syntax on")
vim.o.laststatus = 2
vim.o.shortmess = vim.o.shortmess .. "I"
vim.o.statusline = "%f %m%=%{v:lua.require'ctxd'.statusline()}  %l:%c "
vim.g.ctxd = { debounce_ms = 50, show_content = false }
EOF

tmux new-session -d -s "$session" -x 100 -y 48 \
  "cd '$scratch/example' && env PATH='$scratch/bin:$PATH' XDG_CONFIG_HOME='$scratch/xdg/config' \
   XDG_DATA_HOME='$scratch/xdg/data' XDG_STATE_HOME='$scratch/xdg/state' XDG_CACHE_HOME='$scratch/xdg/cache' \
   '$nvim' -u NONE -i NONE -c 'luafile $scratch/init.lua' internal/store/store.go"

# wait_for TEXT [grep flag]: poll the pane until it shows TEXT (a fixed
# string, or with -E an extended regex), at most 20 s.
wait_for() {
  local i flag="${2:--F}"
  for i in $(seq 1 100); do
    if tmux capture-pane -p -t "$session" | grep -q "$flag" -- "$1"; then
      return 0
    fi
    sleep 0.2
  done
  echo "capture.sh: timed out waiting for: $1" >&2
  tmux capture-pane -p -t "$session" >&2
  exit 1
}

keys() {
  tmux send-keys -t "$session" "$@"
}

# capture: the pane without trailing blank lines.
capture() {
  tmux capture-pane -p -t "$session" | sed -e :a -e '/^[[:space:]]*$/{$d;N;ba' -e '}'
}

wait_for 'ctxd [0-9]+/[0-9]+' -E
keys ":CtxdBuild" Enter
wait_for "## Budget: ok"
build="$(capture)"
keys "/## Included" Enter "zt"
wait_for "## Blocks"
sleep 0.3
build2="$(capture)"

keys "q"
wait_for "internal/store/store.go"
keys "32G" "V" "36G"
wait_for "-- VISUAL LINE --"
sleep 1
statusline="$(capture)"
keys Escape

keys ":edit .env" Enter
wait_for "ctxd ✗ REFUSE_UNSUPPORTED_TARGET"
refused_statusline="$(tmux capture-pane -p -t "$session" | tail -n 2)"
keys ":CtxdBuild" Enter
wait_for "every target is excluded"
sleep 0.5
refusal="$(capture)"
keys Enter
wait_for "Advice: "
sleep 0.3
refusal_window="$(capture)"
keys ":qa!" Enter

{
  echo "# Terminal captures of the Neovim plugin"
  echo
  echo "Produced by \`editors/nvim/tests/capture.sh\`: a real \`$("$nvim" --version | head -n 1)\` started as"
  echo "\`nvim -u NONE -i NONE -c 'luafile init.lua' internal/store/store.go\` in a 100x48 tmux pane, on a"
  echo "temporary copy of \`testdata/example\`; init.lua only adds this plugin to 'runtimepath', sources"
  echo "\`plugin/ctxd.lua\` (after the file was read: the plugin attaches buffers opened before it"
  echo "loaded) and sets the statusline to"
  echo "\`%f %m%=%{v:lua.require'ctxd'.statusline()}  %l:%c\`. Each block is the text of"
  echo "\`tmux capture-pane -p\` (terminal captures, not screenshots)."
  echo
  echo "## 1. \`:CtxdBuild\` on internal/store/store.go: the results buffer"
  echo
  echo "The bottom window is \`ctxd://results\` (Markdown); the statusline of the source window shows"
  echo "the budget component (estimated input tokens / hard limit)."
  echo
  echo '```text'
  echo "$build"
  echo '```'
  echo
  echo "The same buffer scrolled to the selection (\`/## Included\` then \`zt\`):"
  echo
  echo '```text'
  echo "$build2"
  echo '```'
  echo
  echo "## 2. The statusline component with lines 32-36 selected (visual line mode)"
  echo
  echo "The budget is recomputed for the selection after the cursor moves in visual mode."
  echo
  echo '```text'
  echo "$statusline"
  echo '```'
  echo
  echo "## 3. A refusal: \`:CtxdBuild\` on .env"
  echo
  echo "Opening .env: the statusline shows the refusal code from the background budget request"
  echo "(bottom two lines of the pane):"
  echo
  echo '```text'
  echo "$refused_statusline"
  echo '```'
  echo
  echo "Then \`:CtxdBuild\` reports \`code: message\` and the advice through \`vim.notify\` at ERROR"
  echo "level (the file is the fixture's fake credentials):"
  echo
  echo '```text'
  echo "$refusal"
  echo '```'
  echo
  echo "The text does not fit in the message area, so after the prompt a floating window shows the"
  echo "message and the advice together (it closes when the cursor moves, or with q inside it):"
  echo
  echo '```text'
  echo "$refusal_window"
  echo '```'
} >"$out"
echo "wrote $out"
