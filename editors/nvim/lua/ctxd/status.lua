-- The statusline component's state: per buffer, the last ctxd.budget
-- answer, kept fresh by a debounced request after edits, buffer switches
-- and visual-mode cursor moves. Budget requests are previews (the server
-- records nothing), cheap enough to run on every edit; stale answers (an
-- older request finishing after a newer one) are dropped. Every state
-- remembers the configuration it was computed under (config.request_key:
-- purpose and model); one computed under another configuration is never
-- shown: the component shows the pending marker and asks again, and
-- setup() asks again for the visible buffers at once.
local client = require("ctxd.client")
local config = require("ctxd.config")
local render = require("ctxd.render")
local request = require("ctxd.request")
local root = require("ctxd.root")

local M = {}

local uv = vim.uv or vim.loop

local entries = {} -- bufnr -> { report | refusal | error | pending, client_id, key }
local timers = {} -- bufnr -> uv timer
local seqs = {} -- bufnr -> sequence number of the latest budget request
local asked = {} -- bufnr -> configuration key of the latest request asked for

local function redraw()
  pcall(vim.cmd, "redrawstatus")
  pcall(vim.api.nvim_exec_autocmds, "User", { pattern = "CtxdBudget", modeline = false })
end

-- current returns bufnr's state when it was computed under the current
-- configuration (key), else nil.
local function current(bufnr, key)
  local e = entries[bufnr]
  if e and e.key == key then
    return e
  end
  return nil
end

-- get returns a copy of bufnr's state, or nil; stale = true marks a state
-- computed under another configuration than the current one.
function M.get(bufnr)
  local e = entries[bufnr]
  if not e then
    return nil
  end
  local out = config.deepcopy(e)
  if e.key ~= config.request_key() then
    out.stale = true
  end
  return out
end

local function statusline_buf()
  local winid = vim.g.statusline_winid
  if type(winid) == "number" and winid > 0 and vim.api.nvim_win_is_valid(winid) then
    return vim.api.nvim_win_get_buf(winid)
  end
  return vim.api.nvim_get_current_buf()
end

-- text is the statusline component for bufnr (nil: the window being drawn,
-- else the current buffer): "" without a ctxd client or with the
-- statusline option off; while the client indexes, its progress, e.g.
-- "ctxd: indexing 1,234/10,595 files" (the budget waits for the index
-- anyway); else e.g. "ctxd 642/124000" with a marker for
-- warn_soft_limit, refuse_hard_limit and refusals.
function M.text(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = statusline_buf()
  end
  local cfg = config.get()
  local c = cfg.statusline and client.get(bufnr)
  if not c then
    return ""
  end
  local indexing = require("ctxd.progress").text(c.id)
  if indexing then
    return indexing
  end
  local key = config.request_key(cfg)
  local e = current(bufnr, key)
  if not e and entries[bufnr] and asked[bufnr] ~= key then
    -- Computed under an older configuration (vim.g.ctxd changed): ask
    -- again, once, and show the pending marker meanwhile.
    asked[bufnr] = key
    pcall(M.refresh, bufnr, 0)
  end
  return render.statusline(e or { pending = true }, cfg.markers)
end

local function visual_range(bufnr)
  if bufnr ~= vim.api.nvim_get_current_buf() then
    return nil
  end
  local mode = vim.fn.mode()
  if mode ~= "v" and mode ~= "V" and mode ~= "\22" then
    return nil
  end
  local v = vim.fn.getpos("v")
  local c = vim.fn.getpos(".")
  return request.visual_range(mode, { v[2], v[3] - 1 }, { c[2], c[3] - 1 }, function(row)
    return vim.api.nvim_buf_get_lines(bufnr, row - 1, row, false)[1] or ""
  end)
end

-- run sends one budget request for bufnr now.
function M.run(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  local cfg = config.get()
  local c = client.get(bufnr)
  if not c then
    entries[bufnr] = nil
    return
  end
  if not c.initialized then
    client.when_ready(c.id, cfg.start_timeout_ms, function(err)
      if not err then
        M.run(bufnr)
      end
    end)
    return
  end
  seqs[bufnr] = (seqs[bufnr] or 0) + 1
  local seq = seqs[bufnr]
  local key = config.request_key(cfg)
  asked[bufnr] = key
  local ctx = client.context(bufnr, c, "budget", cfg)
  local args, msg = request.build({ range = visual_range(bufnr) }, ctx)
  if not args then
    entries[bufnr] = { error = { message = msg }, client_id = c.id, key = key }
    redraw()
    return
  end
  if entries[bufnr] == nil then
    entries[bufnr] = { pending = true, client_id = c.id, key = key }
  end
  client.send(c, bufnr, "budget", args, function(err, result)
    if seqs[bufnr] ~= seq or not vim.api.nvim_buf_is_valid(bufnr) then
      return
    end
    if config.request_key() ~= key then
      -- The configuration changed while the request ran: its answer
      -- describes a build that would no longer be made.
      M.refresh(bufnr, 0)
      return
    end
    if err == nil and type(result) == "table" and type(result.budget_report) == "table" then
      entries[bufnr] = { report = result.budget_report, counts = result.counts, client_id = c.id, key = key }
    elseif require("ctxd.errors").is_refusal(err) then
      entries[bufnr] = { refusal = err, client_id = c.id, key = key }
    elseif err and err.code == require("ctxd.errors").kinds.CANCELLED.code then
      return
    else
      entries[bufnr] = { error = err or { message = "empty answer" }, client_id = c.id, key = key }
    end
    redraw()
  end, true)
end

-- refresh schedules a budget request for bufnr after delay_ms (default:
-- the debounce_ms option); a new call before it fires restarts the wait.
function M.refresh(bufnr, delay_ms)
  local cfg = config.get()
  if not cfg.statusline then
    return
  end
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  delay_ms = delay_ms or cfg.debounce_ms
  local timer = timers[bufnr]
  if not timer then
    timer = uv.new_timer()
    timers[bufnr] = timer
  end
  timer:stop()
  timer:start(delay_ms, 0, vim.schedule_wrap(function()
    M.run(bufnr)
  end))
end

-- config_changed is called by setup(): the budgets shown were computed
-- under the old configuration, so every buffer with a budget that is shown
-- in a window of the current tab page asks again now (others ask when
-- next drawn, see text; a buffer without one yet asks when attached).
function M.config_changed()
  if not config.get().statusline or next(entries) == nil then
    return
  end
  local seen = {}
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local b = vim.api.nvim_win_get_buf(w)
    if not seen[b] and entries[b] and client.get(b) then
      seen[b] = true
      asked[b] = config.request_key()
      M.refresh(b, 0)
    end
  end
  redraw()
end

-- forget drops bufnr's state and timer (the buffer is gone).
function M.forget(bufnr)
  entries[bufnr] = nil
  seqs[bufnr] = nil
  asked[bufnr] = nil
  local timer = timers[bufnr]
  if timer then
    timers[bufnr] = nil
    timer:stop()
    timer:close()
  end
end

-- forget_client drops the state of every buffer of an exited client.
function M.forget_client(client_id)
  for bufnr, e in pairs(entries) do
    if e.client_id == client_id then
      entries[bufnr] = nil
    end
  end
  redraw()
end

-- on_event is the autocmd callback of the plugin's statusline events.
function M.on_event(ev)
  local bufnr = ev.buf
  if ev.event == "BufWipeout" or ev.event == "BufDelete" then
    M.forget(bufnr)
    return
  end
  if ev.event == "BufEnter" and root.eligible(bufnr, nil) then
    client.remember(bufnr)
  end
  if not config.get().statusline or not client.get(bufnr) then
    return
  end
  if ev.event == "CursorMoved" then
    local mode = vim.fn.mode()
    if mode ~= "v" and mode ~= "V" and mode ~= "\22" then
      return
    end
  end
  M.refresh(bufnr)
end

return M
