#!/usr/bin/env bash
# Drives a real Neovim (-u NONE, then this plugin) in tmux on a temporary
# copy of testdata/example and writes what the terminal showed, as text
# (tmux capture-pane -p), to a Markdown file:
#   1. :CtxdBuild (with an intent) and its results buffer;
#   2. the statusline component after the budget arrived, in visual mode;
#   3. a refusal (:CtxdBuild on .env): the window that shows it whole and
#      the one-line notification;
#   4. :CtxdChange against tools/fakemodel (node, on 127.0.0.1): a rejected
#      first answer, the diff preview of the second, and ga applying it.
#
#   tests/capture.sh [OUT]   (default OUT: editors/nvim/CAPTURES.md)
#
# CTXD_BIN and NVIM as for tests/run.sh. Needs tmux; section 4 needs node.
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
fake_pid=""
cleanup() {
  tmux kill-session -t "$session" 2>/dev/null || true
  if [ -n "$fake_pid" ]; then kill "$fake_pid" 2>/dev/null || true; fi
  rm -rf "$scratch"
}
trap cleanup EXIT

mkdir -p "$scratch/bin" "$scratch/xdg/config" "$scratch/xdg/data" "$scratch/xdg/state" "$scratch/xdg/cache"
ln -s "$bin" "$scratch/bin/ctxd"
cp -R "$example" "$scratch/example"

# The fake model server of section 4: its first answer's context does not
# match store.go (Store misspelt), its second is a one-line diff.
fakemodel="$plugin/../../tools/fakemodel/fakemodel.mjs"
fake_url=""
if command -v node >/dev/null && [ -f "$fakemodel" ]; then
  cat >"$scratch/fakemodel.json" <<'JSON'
{"chunk": 6, "answers": [
"```diff\n--- a/internal/store/store.go\n+++ b/internal/store/store.go\n@@ -49,3 +49,3 @@\n-// List returns all items sorted by SKU.\n+// List returns every item, sorted by SKU.\n func (s *Shop) List() []Item {\n \ts.mu.Lock()\n```\n",
"The comment now says every item:\n\n```diff\n--- a/internal/store/store.go\n+++ b/internal/store/store.go\n@@ -49,3 +49,3 @@\n-// List returns all items sorted by SKU.\n+// List returns every item, sorted by SKU.\n func (s *Store) List() []Item {\n \ts.mu.Lock()\n```\n"
]}
JSON
  node "$fakemodel" "$scratch/fakemodel.json" 0 >"$scratch/fakemodel.out" 2>&1 &
  fake_pid=$!
  for _ in $(seq 1 50); do
    fake_url="$(sed -n 's/^listening //p' "$scratch/fakemodel.out")"
    [ -n "$fake_url" ] && break
    sleep 0.1
  done
fi

cat >"$scratch/init.lua" <<EOF
vim.opt.runtimepath:append("$plugin")
vim.cmd("runtime plugin/ctxd.lua")
vim.cmd("filetype on")
vim.cmd("syntax on")
vim.o.laststatus = 2
vim.o.shortmess = vim.o.shortmess .. "I"
vim.o.statusline = "%f %m%=%{v:lua.require'ctxd'.statusline()}  %l:%c "
vim.g.ctxd = { debounce_ms = 50, show_content = false,
  change = { base_url = "$fake_url/v1", model = "fake-model" } }
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
wait_for "ctxd intent (optional"
keys "Sort the list by name" Enter
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
wait_for "ctxd intent (optional"
keys Enter
wait_for "Advice: "
sleep 0.3
refusal_window="$(capture)"

change_preview=""
if [ -n "$fake_url" ]; then
  keys Escape
  keys ":edit internal/store/store.go" Enter
  wait_for "ctxd [0-9]+/[0-9]+" -E
  keys ":CtxdChange Say that List returns every item" Enter
  wait_for "ga accept"
  sleep 0.3
  change_preview="$(capture)"
  keys ":messages" Enter
  sleep 0.5
  change_messages="$(tmux capture-pane -p -t "$session" | grep -E '^ctxd change: attempt' || true)"
  keys Enter
  keys "ga"
  wait_for "change applied"
  sleep 0.3
  change_applied="$(capture)"
fi
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
  echo "Then \`:CtxdBuild\` (Enter at the intent prompt: none): message and advice do not fit in the"
  echo "message area, so a floating window shows them together (it closes when the cursor moves, or"
  echo "with q inside it) and \`vim.notify\` gets one line at ERROR level, with no hit-enter prompt (the"
  echo "file is the fixture's fake credentials):"
  echo
  echo '```text'
  echo "$refusal_window"
  echo '```'
  if [ -n "$change_preview" ]; then
    echo
    echo "## 4. \`:CtxdChange Say that List returns every item\`"
    echo
    echo "With \`vim.g.ctxd.change\` pointing at \`tools/fakemodel/fakemodel.mjs\` on 127.0.0.1: its"
    echo "first answer's context does not match store.go, so ctxd rejects it and the plugin sends the"
    echo "rejection back; the second is accepted. The line \`:messages\` kept of the first attempt:"
    echo
    echo '```text'
    echo "$change_messages"
    echo '```'
    echo
    echo "The diff preview in a new tab (left: the file as ctxd checked it; right: after the change):"
    echo
    echo '```text'
    echo "$change_preview"
    echo '```'
    echo
    echo "\`ga\` applies it to the buffer (not written; \`u\` undoes it):"
    echo
    echo '```text'
    echo "$change_applied"
    echo '```'
  fi
} >"$out"
echo "wrote $out"
