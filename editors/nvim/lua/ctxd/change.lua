-- :CtxdChange: from a bundle to a checked, applied diff, driven from the
-- editor. One run is a thread (change-<time>-<rand>) of attempts
-- (attempt-1, attempt-2, ...): each renders a prompt with ctxd
-- (ctxd.renderPrompt, purpose diff, the previous rejection as last_error),
-- asks the configured model through curl (ctxd.model), and has ctxd check
-- the answer (ctxd.checkChange). A rejection is retried up to max_retries
-- times; an accepted change opens a diff preview, and only accepting it
-- applies the WorkspaceEdit to the buffers (undo works). See :help
-- ctxd-change.
local client = require("ctxd.client")
local config = require("ctxd.config")
local errors = require("ctxd.errors")
local model = require("ctxd.model")
local textedit = require("ctxd.textedit")

local M = {}

local uv = vim.uv or vim.loop
local levels = vim.log.levels

local run = nil -- the running change (prompt, model, check or preview)
local last_log = nil -- the log of the last run, ended or not

-- The options of change() besides intent.
M.options = { "bufnr", "range", "intent", "ui", "constraints", "plan_step", "user_selected_targets" }

local function fire()
  pcall(vim.api.nvim_exec_autocmds, "User", { pattern = "CtxdChange", modeline = false })
end

local function echospace()
  local ok, v = pcall(function()
    return vim.v.echospace
  end)
  if ok and type(v) == "number" and v > 0 then
    return v
  end
  return math.max(20, vim.o.columns - 12)
end

-- fit cuts text to one line of the message area, so that showing it
-- never asks to press Enter.
local function fit(text)
  text = tostring(text):gsub("[\r\n]+", " ")
  local width = echospace()
  if vim.fn.strdisplaywidth(text) <= width then
    return text
  end
  local out = vim.fn.strcharpart(text, 0, width - 1)
  while vim.fn.strdisplaywidth(out) > width - 1 do
    out = vim.fn.strcharpart(out, 0, vim.fn.strchars(out) - 1)
  end
  return out .. "…"
end

-- echo shows a progress line (not kept in :messages).
function M.echo(text)
  pcall(vim.api.nvim_echo, { { fit(text) } }, false, {})
end

local function progress(r, text, force)
  r.progress_text = text
  local now = uv.now()
  if force or not r.echoed_at or now - r.echoed_at >= 100 then
    r.echoed_at = now
    M.echo(text)
  end
end

local function group(n)
  local s = tostring(n)
  while true do
    local k
    s, k = s:gsub("^(%d+)(%d%d%d)", "%1,%2")
    if k == 0 then
      return s
    end
  end
end

-- History ----------------------------------------------------------------

-- history_path is the file keeping the last intents, newest first.
function M.history_path()
  return vim.fn.stdpath("data") .. "/ctxd/change-history.json"
end

-- history returns the remembered intents, newest first.
function M.history()
  return require("ctxd.intents").read(M.history_path())
end

-- remember puts intent first in the history, keeping at most max.
function M.remember(intent, max)
  require("ctxd.intents").push(M.history_path(), intent, max or config.get().change.history)
end

-- ask_intent asks for an intent with vim.ui.input; the remembered ones
-- are in the input history (<Up> recalls them). pick: choose one of them
-- with vim.ui.select instead. cb(intent) or cb(nil) when dismissed.
function M.ask_intent(pick, cb)
  local recent = M.history()
  if pick and #recent > 0 then
    vim.ui.select(recent, { prompt = "ctxd change: a recent intent", kind = "ctxd.intent" }, function(choice)
      cb(choice)
    end)
    return
  end
  for i = #recent, 1, -1 do
    pcall(vim.fn.histadd, "input", recent[i])
  end
  vim.ui.input({ prompt = "ctxd change (<Up>: recent): " }, function(text)
    if type(text) ~= "string" or vim.trim(text) == "" then
      cb(nil)
    else
      cb(text)
    end
  end)
end

-- Ending a run ---------------------------------------------------------

local close_preview

local function finish(r, err, result, notified)
  if r.done then
    return
  end
  r.done = true
  r.phase = "done"
  r.key = nil
  if r.job then
    r.job.stop()
    r.job = nil
  end
  if close_preview then
    close_preview(r)
  end
  if err then
    r.log.outcome = "failed: " .. tostring(err.code) .. ": " .. tostring(err.message)
  elseif result then
    r.log.outcome = result.status
  end
  if run == r then
    run = nil
  end
  M.echo("")
  fire()
  if err and r.notify and not notified then
    errors.notify(err, r.info)
  end
  if r.on_result then
    r.on_result(err, result)
  end
end

-- stopped reports whether a callback of run r has nothing to do: the run
-- is over, or err ends it now.
local function stopped(r, err)
  if r.done then
    return true
  end
  if err then
    finish(r, err)
    return true
  end
  return false
end

-- Files of an accepted change -------------------------------------------

local function loaded_buf(fname)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_name(b) == fname then
      return b
    end
  end
  return nil
end

-- current reads a file as ctxd reads it: an open buffer's text as
-- Neovim's LSP client sends it (joined with the 'fileformat' line ending,
-- plus one when 'eol'; "\n"-joined as a second candidate), else the disk.
local function current(fname)
  local b = loaded_buf(fname)
  if b then
    local lines = vim.api.nvim_buf_get_lines(b, 0, -1, true)
    local eol = vim.bo[b].eol
    local le = textedit.line_ending(vim.bo[b].fileformat)
    local forms = { textedit.join(lines, eol, le) }
    if le ~= "\n" then
      table.insert(forms, textedit.join(lines, eol, "\n"))
    end
    return { buf = b, exists = true, forms = forms }
  end
  local f = io.open(fname, "rb")
  if f then
    local t = f:read("*a")
    f:close()
    if t then
      return { exists = true, forms = { t } }
    end
  end
  return { exists = false, forms = { "" } }
end

-- before_of returns the text ctxd checked a file against (the form whose
-- digest is the check's sha256_before), or nil when the file no longer
-- holds it.
local function before_of(e)
  local cur = current(e.fname)
  if e.action == "create" then
    if cur.exists then
      return nil, cur
    end
    return "", cur
  end
  if not cur.exists then
    return nil, cur
  end
  local want = e.file and e.file.sha256_before
  for _, t in ipairs(cur.forms) do
    if not want or textedit.sha256(t) == want then
      return t, cur
    end
  end
  return nil, cur
end

-- entries turns the accepted result into one entry per file, in the
-- order of documentChanges: { uri, fname, path, action, edits, file,
-- before, after }.
local function entries(r, res)
  local edit = res.edit
  if type(edit) ~= "table" or type(edit.documentChanges) ~= "table" then
    return nil, errors.new("RPC", "ctxd.checkChange accepted the change but sent no edit to apply")
  end
  local by_uri, list = {}, {}
  local function entry(uri)
    if not by_uri[uri] then
      local e = { uri = uri, fname = vim.uri_to_fname(uri), action = "modify", edits = {} }
      by_uri[uri] = e
      table.insert(list, e)
    end
    return by_uri[uri]
  end
  for _, dc in ipairs(edit.documentChanges) do
    if dc.kind == "create" and type(dc.uri) == "string" then
      entry(dc.uri).action = "create"
    elseif dc.kind == "delete" and type(dc.uri) == "string" then
      entry(dc.uri).action = "delete"
    elseif dc.kind == nil and type(dc.textDocument) == "table" and type(dc.textDocument.uri) == "string" then
      vim.list_extend(entry(dc.textDocument.uri).edits, dc.edits or {})
    else
      return nil, errors.new("RPC", "ctxd.checkChange sent a change the plugin does not know: " .. tostring(dc.kind))
    end
  end
  local c = vim.lsp.get_client_by_id(r.client_id)
  local root = c and client.root_dir(c)
  for _, e in ipairs(list) do
    local suffix
    for _, f in ipairs(res.files or {}) do
      if type(f.path) == "string" then
        if root and e.fname == root .. "/" .. f.path then
          e.file = f
          break
        elseif vim.endswith(e.fname, "/" .. f.path) and (not suffix or #f.path > #suffix) then
          e.file, suffix = f, f.path
        end
      end
    end
    e.path = e.file and e.file.path or vim.fn.fnamemodify(e.fname, ":~:.")
  end
  for _, e in ipairs(list) do
    local before = before_of(e)
    if not before then
      return nil, errors.new("STALE", string.format("%s changed after ctxd checked the change; nothing is shown or applied:"
        .. " run :CtxdChange again", e.path))
    end
    e.before = before
    local after, aerr
    if e.action == "delete" then
      after = ""
    else
      after, aerr = textedit.apply(before, e.edits, r.encoding)
    end
    if not after then
      return nil, errors.new("RPC", string.format("the edit of %s cannot be applied: %s", e.path, aerr))
    end
    local want = e.file and e.file.sha256_after
    if e.action ~= "delete" and want and textedit.sha256(after) ~= want then
      return nil, errors.new("RPC", string.format("the edit of %s does not give the text ctxd checked (sha256 differs);"
        .. " nothing is shown or applied", e.path))
    end
    e.after = after
  end
  return list
end

-- Preview -------------------------------------------------------------------

local preview_group = vim.api.nvim_create_augroup("ctxd_change_preview", { clear = true })

local function scratch(name, lines, syntax)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b) == name then
      pcall(vim.api.nvim_buf_delete, b, { force = true })
    end
  end
  local b = vim.api.nvim_create_buf(false, true)
  vim.bo[b].buftype = "nofile"
  vim.bo[b].bufhidden = "hide"
  vim.bo[b].swapfile = false
  pcall(vim.api.nvim_buf_set_name, b, name)
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.bo[b].modifiable = false
  vim.bo[b].modified = false
  vim.b[b].ctxd_change = true
  if syntax and syntax ~= "" then
    pcall(function()
      vim.bo[b].syntax = syntax
    end)
  end
  return b
end

local function filetype_of(e)
  local b = loaded_buf(e.fname)
  if b and vim.bo[b].filetype ~= "" then
    return vim.bo[b].filetype
  end
  if vim.filetype and vim.filetype.match and vim.fn.has("nvim-0.8") == 1 then
    local ok, ft = pcall(vim.filetype.match, { filename = e.fname })
    if ok and type(ft) == "string" then
      return ft
    end
  end
  return nil
end

-- keys returns the preview's mappings, { accept, reject, next_file,
-- prev_file }, false or nil for none.
local function keys()
  return config.get().change.keys or {}
end

-- header returns the preview's header of a side ("before" or "after"),
-- as a title and the keys: the file on the left, the keys on the right.
-- It is the window's 'winbar' on 0.8+, its 'statusline' on 0.7.
function M.header(r, side)
  local e = r.files[r.index]
  local files = #r.files > 1 and string.format(" [file %d/%d]", r.index, #r.files) or ""
  if side ~= "after" then
    return string.format("ctxd change, before: %s (%s)%s", e.path, e.action, files), ""
  end
  local k = keys()
  local parts = {}
  if k.accept then
    table.insert(parts, k.accept .. " accept" .. (#r.files > 1 and " all" or ""))
  end
  if k.reject then
    table.insert(parts, k.reject .. " reject")
  end
  if #r.files > 1 and (k.next_file or k.prev_file) then
    table.insert(parts, (k.next_file or "") .. (k.next_file and k.prev_file and "/" or "") .. (k.prev_file or "")
      .. " next/previous file")
  end
  return "after" .. files, table.concat(parts, " · ")
end

local function set_header(r, win, side)
  if not vim.api.nvim_win_is_valid(win) then
    return
  end
  local function esc(t)
    return (t:gsub("%%", "%%%%"))
  end
  local title, hint = M.header(r, side)
  -- A narrow window cuts the title, never the keys.
  local text = " %<" .. esc(title) .. "%=" .. (hint ~= "" and ("  " .. esc(hint) .. " ") or "")
  if vim.fn.exists("+winbar") == 1 then
    vim.wo[win].winbar = text
  else
    vim.wo[win].statusline = text
  end
end

local function map_preview(r, b)
  local k = keys()
  local function map(lhs, fn, desc)
    if lhs then
      vim.keymap.set("n", lhs, fn, { buffer = b, nowait = true, silent = true, desc = "ctxd change: " .. desc })
    end
  end
  map(k.accept, function()
    M.accept()
  end, "apply the change")
  map(k.reject, function()
    M.reject()
  end, "reject the change")
  map(k.next_file, function()
    M.show_file(r.index % #r.files + 1)
  end, "next file")
  map(k.prev_file, function()
    M.show_file((r.index - 2) % #r.files + 1)
  end, "previous file")
end

-- show_file shows file i of the previewed change in the preview's two
-- windows, both in diff mode.
function M.show_file(i)
  local r = run
  if not r or r.phase ~= "preview" then
    return
  end
  local e = r.files[i]
  if not e then
    return
  end
  r.index = i
  if not e.bufs then
    local syntax = filetype_of(e)
    local before_lines = textedit.to_lines(e.before)
    local after_lines = textedit.to_lines(e.after)
    e.bufs = {
      scratch("ctxd://change/before/" .. e.path, before_lines, syntax),
      scratch("ctxd://change/after/" .. e.path, after_lines, syntax),
    }
    for _, b in ipairs(e.bufs) do
      map_preview(r, b)
      table.insert(r.bufs, b)
    end
  end
  for side, w in ipairs(r.wins) do
    if vim.api.nvim_win_is_valid(w) then
      vim.api.nvim_win_set_buf(w, e.bufs[side])
    end
  end
  for side, w in ipairs(r.wins) do
    if vim.api.nvim_win_is_valid(w) then
      vim.api.nvim_win_call(w, function()
        vim.cmd("diffthis")
      end)
      set_header(r, w, side == 1 and "before" or "after")
    end
  end
  pcall(vim.cmd, "diffupdate")
  -- The cursor on the first change.
  local right = r.wins[2]
  if vim.api.nvim_win_is_valid(right) then
    vim.api.nvim_win_call(right, function()
      vim.api.nvim_win_set_cursor(0, { 1, 0 })
      if vim.fn.diff_hlID(1, 1) == 0 then
        pcall(vim.cmd, "silent! normal! ]c")
      end
    end)
  end
end

local function open_preview(r)
  local origin = vim.api.nvim_get_current_win()
  if vim.api.nvim_win_is_valid(r.origin_win or -1) == false then
    r.origin_win = origin
  end
  r.bufs = {}
  vim.cmd("tabnew")
  r.tab = vim.api.nvim_get_current_tabpage()
  local empty = vim.api.nvim_get_current_buf()
  local left = vim.api.nvim_get_current_win()
  vim.cmd("rightbelow vsplit")
  local right = vim.api.nvim_get_current_win()
  r.wins = { left, right }
  r.phase = "preview"
  M.show_file(1)
  if vim.api.nvim_buf_is_valid(empty) and vim.api.nvim_buf_get_name(empty) == "" and #vim.fn.win_findbuf(empty) == 0 then
    pcall(vim.api.nvim_buf_delete, empty, { force = true })
  end
  vim.api.nvim_set_current_win(right)
  vim.api.nvim_clear_autocmds({ group = preview_group })
  vim.api.nvim_create_autocmd("TabClosed", {
    group = preview_group,
    desc = "ctxd change: closing the preview rejects the change",
    callback = function()
      vim.schedule(function()
        if run == r and r.phase == "preview" and not vim.api.nvim_tabpage_is_valid(r.tab) then
          M.reject("the preview was closed")
        end
      end)
    end,
  })
  fire()
  local k = keys()
  M.echo(string.format("ctxd change: attempt %d/%d accepted by ctxd; review the diff: %s applies it, %s rejects it",
    r.attempt, r.max_attempts, tostring(k.accept or ":lua require'ctxd'.change_accept()"),
    tostring(k.reject or ":CtxdChangeCancel")))
end

close_preview = function(r)
  if not r.wins then
    return -- no preview was opened
  end
  vim.api.nvim_clear_autocmds({ group = preview_group })
  if r.tab and vim.api.nvim_tabpage_is_valid(r.tab) then
    if #vim.api.nvim_list_tabpages() > 1 then
      pcall(vim.cmd, "tabclose " .. vim.api.nvim_tabpage_get_number(r.tab))
    else
      -- The preview is the only tab page left: show the file again.
      for _, w in ipairs(vim.api.nvim_tabpage_list_wins(r.tab)) do
        if vim.api.nvim_buf_is_valid(r.bufnr) then
          pcall(vim.api.nvim_win_call, w, function()
            vim.cmd("diffoff")
          end)
          pcall(vim.api.nvim_win_set_buf, w, r.bufnr)
        end
      end
      pcall(vim.cmd, "only")
      r.origin_win = vim.api.nvim_get_current_win()
    end
  end
  for _, b in ipairs(r.bufs or {}) do
    if vim.api.nvim_buf_is_valid(b) then
      pcall(vim.api.nvim_buf_delete, b, { force = true })
    end
  end
  r.bufs = {}
  r.tab = nil
  r.wins = nil
  if r.origin_win and vim.api.nvim_win_is_valid(r.origin_win) then
    pcall(vim.api.nvim_set_current_win, r.origin_win)
  end
end

-- Accept and reject -------------------------------------------------------

-- stale_file returns why file entry e no longer holds what ctxd checked,
-- or nil. The buffer of the run is unchanged when its changedtick did not
-- move; otherwise (an edit, or only a :w) its text decides.
local function stale_file(r, e)
  local b = loaded_buf(e.fname)
  local moved = ""
  if b and b == r.bufnr and r.tick then
    local tick = vim.api.nvim_buf_get_changedtick(b)
    if tick == r.tick then
      return nil
    end
    moved = string.format(" (changedtick %d → %d)", r.tick, tick)
  end
  local cur = current(e.fname)
  if e.action == "create" then
    if not cur.exists then
      return nil
    end
  elseif cur.exists then
    for _, t in ipairs(cur.forms) do
      if t == e.before then
        return nil
      end
    end
  end
  return string.format("%s changed since ctxd checked the change%s; nothing was applied: run :CtxdChange again",
    e.path, moved)
end

-- stale returns why the files no longer hold what ctxd checked, or nil.
local function stale(r)
  for _, e in ipairs(r.files) do
    local why = stale_file(r, e)
    if why then
      return why
    end
  end
  return nil
end

-- verify checks the buffers after the edit against the texts ctxd
-- checked; a file the edit created loses the empty last line Neovim's
-- apply leaves after text ending with a line break. Returns the paths
-- that differ.
local function verify(r)
  local differ = {}
  for _, e in ipairs(r.files) do
    if e.action ~= "delete" then
      local b = loaded_buf(e.fname)
      if b then
        if e.action == "create" then
          local want = textedit.to_lines(e.after)
          local have = vim.api.nvim_buf_get_lines(b, 0, -1, true)
          if #have == #want + 1 and have[#have] == "" then
            vim.api.nvim_buf_set_lines(b, -2, -1, true, {})
          end
        end
        local cur = current(e.fname)
        local ok = false
        for _, t in ipairs(cur.forms) do
          if t == e.after then
            ok = true
          end
        end
        if not ok then
          table.insert(differ, e.path)
        end
      end
    end
  end
  return differ
end

-- accept applies the previewed change: vim.lsp.util.apply_workspace_edit
-- in the server's position encoding, one undo step per buffer. It refuses
-- when a file changed since the check.
function M.accept()
  local r = run
  if not r or r.phase ~= "preview" then
    vim.notify("ctxd: no change to accept", levels.WARN)
    return false
  end
  local why = stale(r)
  if why then
    finish(r, errors.new("STALE", why))
    return false
  end
  close_preview(r)
  local edit = vim.deepcopy(r.check.edit)
  for _, dc in ipairs(edit.documentChanges) do
    -- The check above replaces Neovim's version check (which skips a
    -- document silently, e.g. after a :w).
    if type(dc.textDocument) == "table" then
      dc.textDocument.version = nil
    end
  end
  for _, e in ipairs(r.files) do
    local b = loaded_buf(e.fname)
    if b then
      -- Close the buffer's current undo block: the change is an undo
      -- step of its own, whatever came before it without a pause.
      pcall(vim.api.nvim_buf_call, b, function()
        vim.cmd("let &l:undolevels = &l:undolevels")
      end)
    end
  end
  local ok, perr = pcall(vim.lsp.util.apply_workspace_edit, edit, r.encoding)
  if not ok then
    finish(r, errors.new("RPC", "applying the change failed: " .. tostring(perr)))
    return false
  end
  local differ = verify(r)
  local paths = {}
  for _, e in ipairs(r.files) do
    table.insert(paths, e.path)
  end
  local result = {
    status = "applied",
    attempts = r.attempt,
    thread_id = r.thread_id,
    files = r.check.files,
    check = r.check,
    verified = #differ == 0,
  }
  finish(r, nil, result)
  if #differ > 0 then
    vim.notify(string.format("ctxd: the change was applied, but %s does not hold the text ctxd checked (sha256 differs):"
      .. " review it; u undoes the change", table.concat(differ, ", ")), levels.WARN)
  elseif r.notify then
    vim.notify(string.format("ctxd: change applied to %s (not written: :w writes it, u undoes it)",
      table.concat(paths, ", ")), levels.INFO)
  end
  return true
end

-- reject closes the preview; nothing changes.
function M.reject(why)
  local r = run
  if not r or r.phase ~= "preview" then
    vim.notify("ctxd: no change to reject", levels.WARN)
    return false
  end
  finish(r, nil, { status = "rejected", attempts = r.attempt, thread_id = r.thread_id, files = r.check.files, check = r.check })
  if r.notify then
    vim.notify("ctxd: change rejected" .. (why and (" (" .. why .. ")") or "") .. "; nothing was changed", levels.INFO)
  end
  return true
end

-- cancel stops the running change: the model request, the check or the
-- preview (as reject).
function M.cancel()
  local r = run
  if not r then
    vim.notify("ctxd: no change is running", levels.INFO)
    return false
  end
  if r.phase == "preview" then
    return M.reject("cancelled")
  end
  finish(r, errors.new("CANCELLED", string.format("change cancelled (attempt %d/%d, %s)", r.attempt, r.max_attempts, r.phase)))
  return true
end

-- The loop ------------------------------------------------------------------

local attempt

local function rejected_error(r, f)
  return {
    code = f.code or "CHANGE_MALFORMED",
    message = string.format("no change ctxd accepts after %d attempt%s; the last: %s", r.attempt,
      r.attempt == 1 and "" or "s", tostring(f.message or "")),
    advice = tostring(f.advice or "") .. " (:CtxdChangeLog shows every attempt)",
    error_context = f.error_context,
  }
end

-- add_new_files adds the files a CHANGE_NOT_IN_BUNDLE answer creates
-- (action "create") to the run's plan_step.new_files, so that the next
-- attempt's bundle names them and ctxd accepts their creation. The list
-- grows for the rest of the run; a plan_step given to start() is kept
-- (id "change" and the intent as text when it has none).
local function add_new_files(r, files)
  local paths = {}
  for _, f in ipairs(type(files) == "table" and files or {}) do
    if type(f) == "table" and f.action == "create" and type(f.path) == "string" and f.path ~= "" then
      table.insert(paths, f.path)
    end
  end
  if #paths == 0 then
    return
  end
  local step = type(r.plan_step) == "table" and vim.deepcopy(r.plan_step) or {}
  if type(step.id) ~= "string" or step.id == "" then
    step.id = "change"
  end
  if type(step.text) ~= "string" or step.text == "" then
    step.text = r.intent
  end
  local list, seen = {}, {}
  for _, p in ipairs(type(step.new_files) == "table" and step.new_files or {}) do
    if type(p) == "string" and not seen[p] then
      seen[p] = true
      table.insert(list, p)
    end
  end
  for _, p in ipairs(paths) do
    if not seen[p] then
      seen[p] = true
      table.insert(list, p)
    end
  end
  step.new_files = list
  r.plan_step = step
end

local function check(r, prompt, entry, answer)
  r.phase = "check"
  fire()
  progress(r, string.format("ctxd change: attempt %d/%d: ctxd checks the answer (%s characters)", r.attempt,
    r.max_attempts, group(entry.chars)), true)
  if not vim.api.nvim_buf_is_valid(r.bufnr) then
    finish(r, errors.new("NO_CLIENT", "the buffer of the change was closed"))
    return
  end
  local c = client.get(r.bufnr)
  if not c then
    finish(r, errors.new("NO_CLIENT", "the ctxd client has stopped"))
    return
  end
  r.client_id = c.id
  r.encoding = client.encoding(c)
  local tick = vim.api.nvim_buf_get_changedtick(r.bufnr)
  local args = { answer = answer, thread_id = r.thread_id, turn_id = entry.turn_id }
  if type(prompt.bundle_id) == "string" and prompt.bundle_id ~= "" then
    args.bundle_id = prompt.bundle_id
  end
  client.send(c, r.bufnr, "check_change", args, function(err, res)
    if stopped(r, err) then
      return
    end
    if type(res) ~= "table" then
      finish(r, errors.new("RPC", "ctxd.checkChange returned no verdict"))
      return
    end
    entry.status, entry.format, entry.failure, entry.files = res.status, res.format, res.failure, res.files
    if res.status == "accepted" then
      r.check = res
      r.tick = tick
      local files, ferr = entries(r, res)
      if not files then
        finish(r, ferr)
        return
      end
      r.files = files
      local ok, perr = pcall(open_preview, r)
      if not ok then
        finish(r, errors.new("RPC", "could not open the preview: " .. tostring(perr)))
      end
      return
    end
    local f = type(res.failure) == "table" and res.failure or {}
    r.last_code = f.code
    if r.notify then
      -- The message's first line is its summary; :CtxdChangeLog has the rest.
      vim.notify(fit(string.format("ctxd change: attempt %d/%d rejected: %s: %s", r.attempt, r.max_attempts,
        tostring(f.code), (tostring(f.message or ""):match("^[^\n]*")))), levels.WARN)
    end
    if r.attempt < r.max_attempts then
      local ctx = type(f.error_context) == "table" and vim.deepcopy(f.error_context) or nil
      if not ctx or type(ctx.message) ~= "string" or ctx.message == "" then
        ctx = { message = tostring(f.code) .. ": " .. tostring(f.message) }
      end
      r.last_error = ctx
      if f.code == "CHANGE_NOT_IN_BUNDLE" then
        add_new_files(r, res.files)
      end
      attempt(r, r.attempt + 1)
      return
    end
    finish(r, rejected_error(r, f))
  end)
end

local function ask(r, prompt, entry)
  r.phase = "model"
  fire()
  local s = r.settings
  local where = model.mask_url(s.base_url)
  local since = r.last_code and string.format(" (after %s)", r.last_code) or ""
  progress(r, string.format("ctxd change: attempt %d/%d%s: asking %s at %s… (:CtxdChangeCancel stops)", r.attempt,
    r.max_attempts, since, entry.model, where), true)
  local handle, herr = model.request(s, r.key, prompt.messages, {
    on_text = function(_, total)
      if r.done then
        return
      end
      local first = r.chars == 0
      r.chars = total
      -- The first characters show at once, then at most every 100 ms.
      progress(r, string.format("ctxd change: attempt %d/%d%s: %s characters from %s (:CtxdChangeCancel stops)",
        r.attempt, r.max_attempts, since, group(total), entry.model), first)
    end,
    on_done = function(err, answer)
      r.job = nil
      if stopped(r, err) then
        return
      end
      entry.answer = answer
      entry.chars = model.chars(answer)
      r.chars = entry.chars
      check(r, prompt, entry, answer)
    end,
  })
  if not handle then
    finish(r, herr)
    return
  end
  r.job = handle
end

attempt = function(r, n)
  if r.done then
    return
  end
  if not vim.api.nvim_buf_is_valid(r.bufnr) then
    finish(r, errors.new("NO_CLIENT", "the buffer of the change was closed"))
    return
  end
  r.attempt = n
  r.chars = 0
  r.phase = "prompt"
  fire()
  progress(r, string.format("ctxd change: attempt %d/%d: ctxd renders the prompt", n, r.max_attempts), true)
  local thread = { thread_id = r.thread_id, turn_id = "attempt-" .. n, declared_refs = {} }
  if n > 1 then
    thread.parent_turn_id = "attempt-" .. (n - 1)
  end
  local opts = {
    bufnr = r.bufnr,
    range = r.range,
    purpose = "diff",
    intent = { id = "nvim-change", text = r.intent },
    thread = thread,
    last_error = r.last_error,
    constraints = r.constraints,
    plan_step = r.plan_step,
    user_selected_targets = r.targets,
    ui = r.notify,
  }
  require("ctxd").render_prompt(opts, function(err, result, args)
    if r.done then
      return
    end
    if err then
      -- render_prompt showed it already when ui is on.
      finish(r, err, nil, r.notify)
      return
    end
    if type(args) == "table" and args.user_selected_targets then
      r.targets = args.user_selected_targets
    end
    local prompt = type(result) == "table" and result.prompt
    if type(prompt) ~= "table" or type(prompt.messages) ~= "table" then
      finish(r, errors.new("RPC", "ctxd.renderPrompt returned no prompt"))
      return
    end
    local name, merr = model.with_model(r.settings, type(prompt.model) == "table" and prompt.model.model or nil)
    if not name then
      finish(r, merr)
      return
    end
    r.settings.model = name
    local entry = {
      turn_id = thread.turn_id,
      parent_turn_id = thread.parent_turn_id,
      bundle_id = prompt.bundle_id,
      prompt_artifact = result.prompt_artifact,
      tokens = type(prompt.token_counts) == "table" and prompt.token_counts.total or nil,
      last_error = r.last_error,
      model = name,
      request = type(args) == "table" and vim.deepcopy(args) or nil,
    }
    table.insert(r.log.attempts, entry)
    r.log.model = name
    ask(r, prompt, entry)
  end)
end

-- start runs a change: opts.intent (required), bufnr, range (as the Lua
-- API's), constraints, plan_step (e.g. new_files naming a file to
-- create; a CHANGE_NOT_IN_BUNDLE rejection of a creation adds the file
-- to it for the next attempts), user_selected_targets, ui. on_result(err, result)
-- once at the end: result.status "applied" or "rejected" (by the user),
-- err a rejection of the last attempt (code CHANGE_*, message, advice,
-- error_context), a refusal or a plugin error.
function M.start(opts, on_result)
  opts = opts or {}
  local notify = opts.ui or on_result == nil
  local function fail(err)
    if notify then
      errors.notify(err)
    end
    if on_result then
      on_result(err)
    end
  end
  for k in pairs(opts) do
    if not config.contains(M.options, k) then
      fail(errors.new("INVALID_OPTIONS", string.format("unknown option %q (known: %s)", tostring(k),
        table.concat(M.options, ", "))))
      return
    end
  end
  if run then
    fail(errors.new("BUSY", string.format("a change is running (attempt %d, %s): :CtxdChangeCancel stops it",
      run.attempt or 0, run.phase)))
    return
  end
  local bad = config.invalid("change")
  if bad then
    fail(errors.new("INVALID_OPTIONS", bad .. "; :CtxdChange sends nothing until it is fixed (:help ctxd-change-config)"))
    return
  end
  local bufnr = client.resolve_buf(opts.bufnr)
  if not bufnr then
    fail(errors.new("NO_CLIENT", client.no_file_message))
    return
  end
  local intent = opts.intent
  if type(intent) == "table" then
    intent = intent.text
  end
  if type(intent) ~= "string" or vim.trim(intent) == "" then
    fail(errors.new("INVALID_OPTIONS", "a change needs an intent: what should it do?"))
    return
  end
  intent = vim.trim(intent)
  local cc = config.get().change
  local s = model.settings(cc)
  if vim.fn.executable(s.curl) ~= 1 then
    fail(errors.new("MODEL", string.format("%s is not executable: install curl or set vim.g.ctxd.change.curl", s.curl)))
    return
  end
  M.remember(intent, cc.history)
  local now = os.time()
  local r = {
    bufnr = bufnr,
    origin_win = vim.api.nvim_get_current_win(),
    intent = intent,
    range = opts.range,
    constraints = opts.constraints,
    plan_step = opts.plan_step,
    targets = opts.user_selected_targets,
    settings = s,
    notify = notify,
    on_result = on_result,
    info = { file = client.label(bufnr), fallback = bufnr ~= vim.api.nvim_get_current_buf() },
    thread_id = string.format("change-%s-%06x", os.date("!%Y%m%dT%H%M%SZ", now),
      (math.floor(uv.hrtime() / 1000) + math.random(0, 0xffffff)) % 0x1000000),
    attempt = 0,
    max_attempts = (cc.max_retries or 2) + 1,
    chars = 0,
    phase = "key",
  }
  r.log = {
    intent = intent,
    file = r.info.file,
    thread_id = r.thread_id,
    provider = s.provider,
    base_url = model.mask_url(s.base_url),
    started = os.date("%Y-%m-%d %H:%M:%S", now),
    attempts = {},
  }
  run = r
  last_log = r.log
  fire()
  model.resolve_key(s, function(err, key)
    if stopped(r, err) then
      return
    end
    r.key = key
    attempt(r, 1)
  end)
end

-- state returns the running change, or nil: { phase ("key", "prompt",
-- "model", "check" or "preview"), attempt, max_attempts, chars, intent,
-- thread_id, file, files (paths, in the preview), progress }.
function M.state()
  local r = run
  if not r then
    return nil
  end
  local files
  if r.files then
    files = {}
    for _, e in ipairs(r.files) do
      table.insert(files, e.path)
    end
  end
  return {
    phase = r.phase,
    attempt = r.attempt,
    max_attempts = r.max_attempts,
    chars = r.chars,
    intent = r.intent,
    thread_id = r.thread_id,
    file = r.info.file,
    files = files,
    index = r.index,
    tab = r.tab,
    wins = r.wins and vim.deepcopy(r.wins) or nil,
    progress = r.progress_text,
  }
end

-- log returns a copy of the last run's log: { intent, file, thread_id,
-- provider, base_url, model, started, outcome, attempts = { { turn_id,
-- parent_turn_id, bundle_id, prompt_artifact, tokens, model, last_error,
-- request (the ctxd.renderPrompt request sent), answer, chars, status,
-- format, failure, files } } }, or nil.
function M.log()
  return last_log and vim.deepcopy(last_log) or nil
end

return M
