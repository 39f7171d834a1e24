-- The user commands and the results window.
local client = require("ctxd.client")
local config = require("ctxd.config")
local contract = require("ctxd.contract")
local errors = require("ctxd.errors")
local render = require("ctxd.render")
local request = require("ctxd.request")

local M = {}

M.results_name = "ctxd://results"

-- is_results reports whether b is the results buffer as set up here. :bd
-- unloads a buffer and clears its options, variables and mappings but
-- keeps it (and its name); such a buffer is not the results buffer any
-- more.
local function is_results(b)
  return vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_is_loaded(b)
    and vim.b[b].ctxd_results == true and vim.bo[b].buftype == "nofile"
end

-- results_buffer returns the results buffer, creating and setting it up
-- when there is none or the old one was deleted (:bd) or wiped.
local function results_buffer()
  local found
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_get_name(b) == M.results_name then
      if not found and is_results(b) then
        found = b
      else
        -- A leftover of :bd (or a buffer of that name made otherwise):
        -- wipe it so the name is free for a buffer set up anew.
        pcall(vim.api.nvim_buf_delete, b, { force = true })
      end
    end
  end
  if found then
    return found
  end
  local b = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(b, M.results_name)
  vim.bo[b].buftype = "nofile"
  vim.bo[b].bufhidden = "hide"
  vim.bo[b].swapfile = false
  vim.b[b].ctxd_results = true
  vim.keymap.set("n", "q", function()
    if #vim.api.nvim_tabpage_list_wins(0) > 1 then
      vim.cmd("close")
    else
      vim.cmd("bprevious")
    end
  end, { buffer = b, nowait = true, silent = true, desc = "ctxd: close the results" })
  return b
end

local function float_size(total, v)
  if v <= 1 then
    return math.max(1, math.floor(total * v))
  end
  return math.min(total, math.floor(v))
end

-- show puts lines into the results buffer (Markdown) and shows it: in a
-- split at the bottom, reusing a window that already shows it, or in a
-- floating window when the float option is on. Returns the buffer and
-- the window.
function M.show(lines)
  local cfg = config.get()
  local buf = results_buffer()
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  if vim.bo[buf].filetype ~= "markdown" then
    vim.bo[buf].filetype = "markdown"
  end
  local win
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == buf then
      win = w
    end
  end
  if win then
    vim.api.nvim_set_current_win(win)
  elseif cfg.float then
    local fo = cfg.float_opts or {}
    local width = float_size(vim.o.columns, fo.width or 0.8)
    local height = float_size(vim.o.lines - vim.o.cmdheight - 2, fo.height or 0.8)
    win = vim.api.nvim_open_win(buf, true, {
      relative = "editor",
      width = width,
      height = height,
      row = math.floor((vim.o.lines - height) / 2) - 1,
      col = math.floor((vim.o.columns - width) / 2),
      style = "minimal",
      border = fo.border or "rounded",
    })
  else
    vim.cmd("botright split")
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, buf)
  end
  vim.wo[win].wrap = false
  vim.api.nvim_win_set_cursor(win, { 1, 0 })
  return buf, win
end

local refusal_group = vim.api.nvim_create_augroup("ctxd_refusal", { clear = true })
local refusal_win = nil

-- close_refusal closes the refusal window, if one is open.
function M.close_refusal()
  vim.api.nvim_clear_autocmds({ group = refusal_group })
  if refusal_win and vim.api.nvim_win_is_valid(refusal_win) then
    pcall(vim.api.nvim_win_close, refusal_win, true)
  end
  refusal_win = nil
end

-- refusal_window returns the window showing the last refusal, or nil.
function M.refusal_window()
  if refusal_win and vim.api.nvim_win_is_valid(refusal_win) then
    return refusal_win
  end
  return nil
end

-- show_refusal shows a refusal whole (message, advice, file, budget,
-- candidates: render.refusal) in a floating window at the bottom of the
-- editor, without moving the cursor into it. It closes when the cursor
-- moves or another buffer is entered in any other window, or with q or
-- <Esc> inside it (<C-w>w enters it). info: { file?, fallback? }. Returns
-- the buffer and the window.
function M.show_refusal(err, info)
  M.close_refusal()
  local fo = config.get().float_opts or {}
  local border = fo.border or "rounded"
  local bordered = border ~= "none"
  local pad = bordered and 2 or 0
  local width = math.max(20, math.min(vim.o.columns - pad - 2, 100))
  local lines = render.refusal(err, info, width)
  local rows = 0
  local widest = 0
  for _, l in ipairs(lines) do
    local w = vim.fn.strdisplaywidth(l)
    widest = math.max(widest, w)
    rows = rows + math.max(1, math.ceil(w / width))
  end
  width = math.max(20, math.min(width, widest))
  local room = math.max(1, vim.o.lines - vim.o.cmdheight - 2 - pad)
  local height = math.min(rows, room)

  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  local code = tostring(err.code or "")
  pcall(vim.api.nvim_buf_add_highlight, buf, -1, "ErrorMsg", 0, 0, #code + 1)
  local win = vim.api.nvim_open_win(buf, false, {
    relative = "editor",
    width = width,
    height = height,
    row = math.max(0, vim.o.lines - vim.o.cmdheight - 1 - height - pad),
    col = 0,
    style = "minimal",
    border = border,
    focusable = true,
  })
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  refusal_win = win
  for _, lhs in ipairs({ "q", "<Esc>" }) do
    vim.keymap.set("n", lhs, M.close_refusal, { buffer = buf, nowait = true, silent = true, desc = "ctxd: close the refusal" })
  end

  local origin_win = vim.api.nvim_get_current_win()
  local origin_pos = vim.api.nvim_win_get_cursor(origin_win)
  vim.api.nvim_create_autocmd({ "CursorMoved", "CursorMovedI", "InsertEnter", "BufEnter" }, {
    group = refusal_group,
    desc = "ctxd: close the refusal window",
    callback = function(ev)
      local cur = vim.api.nvim_get_current_win()
      if cur == win then
        return
      end
      if ev.event == "CursorMoved" and cur == origin_win then
        local pos = vim.api.nvim_win_get_cursor(cur)
        if pos[1] == origin_pos[1] and pos[2] == origin_pos[2] then
          -- Back from the refusal window, or a check of a cursor that
          -- did not move.
          return
        end
      end
      M.close_refusal()
    end,
  })
  return buf, win
end

local function is_purpose(s)
  return config.contains(contract.purposes, s)
end

-- parse splits a command's arguments: a purpose name sets the purpose, a
-- single character (only when allow_register) names a register, anything
-- else is a target symbol.
function M.parse(fargs, allow_register)
  local out = { symbols = {} }
  for _, a in ipairs(fargs or {}) do
    if is_purpose(a) then
      out.purpose = a
    elseif allow_register and #a == 1 then
      out.register = a
    else
      table.insert(out.symbols, a)
    end
  end
  return out
end

-- range_of returns the Lua API range of a command invocation: nil without
-- a range; the visual selection (characterwise when it was) when the
-- range is the last visual selection's lines; else the lines.
function M.range_of(cmd, bufnr)
  if not cmd.range or cmd.range == 0 then
    return nil
  end
  local s = vim.api.nvim_buf_get_mark(bufnr, "<")
  local e = vim.api.nvim_buf_get_mark(bufnr, ">")
  if cmd.range == 2 and s[1] == cmd.line1 and e[1] == cmd.line2 and s[1] > 0 then
    return request.visual_range(vim.fn.visualmode(), s, e, function(row)
      return vim.api.nvim_buf_get_lines(bufnr, row - 1, row, false)[1] or ""
    end)
  end
  return { cmd.line1, cmd.line2 }
end

-- options turns a command invocation into Lua API options for bufnr.
local function options(cmd, bufnr, parsed)
  local opts = { ui = true, bufnr = bufnr, purpose = parsed.purpose }
  if bufnr == vim.api.nvim_get_current_buf() then
    opts.range = M.range_of(cmd, bufnr)
  end
  if #parsed.symbols > 0 then
    opts.plan_step = request.symbols_plan_step(parsed.symbols)
  end
  return opts
end

-- target returns the buffer a command works on and whether it is not the
-- current buffer (the command ran from a buffer that is not a file and
-- falls back on the last file buffer), or nil after saying why. A
-- fallback is announced at once (render.fallback_notice), before the
-- request is sent, so the user knows which file the answer is about.
local function target(cmd)
  local bufnr = client.resolve_buf(0)
  if not bufnr then
    vim.notify("ctxd: " .. client.no_file_message, vim.log.levels.WARN)
    return nil
  end
  local fallback = bufnr ~= vim.api.nvim_get_current_buf()
  if fallback then
    local ranged = type(cmd) == "table" and (cmd.range or 0) > 0
    vim.notify(render.fallback_notice(client.label(bufnr), ranged, errors.message_width()), vim.log.levels.INFO)
  end
  return bufnr, fallback
end

local function info_of(bufnr, fallback)
  return { file = client.label(bufnr), fallback = fallback }
end

-- with_intent runs go(opts) once the user gave the optional intent (or
-- none): ctxd.intents asks when ask is set and the ask_intent option is
-- on (:CtxdBuild and :CtxdPrompt; a manifest or budget preview does not
-- ask). The intent is remembered there.
local function with_intent(ask, opts, go)
  -- No question when no server can answer it: the command fails at once
  -- with the reason (a missing binary) instead of after the question.
  if not ask or (not client.get(opts.bufnr) and vim.fn.executable(config.get().cmd[1]) ~= 1) then
    go(opts)
    return
  end
  require("ctxd.intents").ask(function(intent)
    if intent ~= "" then
      opts.intent = intent
    end
    go(opts)
  end)
end

local function context_command(key, renderer, ask)
  return function(cmd)
    local bufnr, fallback = target(cmd)
    if not bufnr then
      return
    end
    local parsed = M.parse(cmd.fargs, false)
    local purpose = parsed.purpose or config.get().purpose
    with_intent(ask, options(cmd, bufnr, parsed), function(opts)
      require("ctxd")[key](opts, function(err, result, args)
        if err or type(result) ~= "table" then
          return
        end
        local info = info_of(bufnr, fallback)
        info.purpose = purpose
        info.intent = opts.intent
        info.show_content = config.get().show_content
        info.selection = type(args) == "table" and type(args.selection) == "table" and args.selection.range or nil
        info.range_ignored = fallback and (cmd.range or 0) > 0 and not opts.range
        M.show(renderer(result, info))
      end)
    end)
  end
end

-- build, manifest and budget implement :CtxdBuild, :CtxdManifest and
-- :CtxdBudget: [range] [purpose] [symbol ...], results in the window.
-- :CtxdBuild asks for the optional intent first.
M.build = context_command("build_context", render.build, true)
M.manifest = context_command("manifest", render.manifest, false)
M.budget = context_command("budget", render.budget, false)

-- default_register is "+" when a clipboard provider exists, else the
-- unnamed register.
function M.default_register()
  local reg = config.get().register
  if reg then
    return reg
  end
  if vim.fn.has("clipboard") == 1 then
    return "+"
  end
  return "\""
end

-- prompt implements :CtxdPrompt [register] [purpose] [symbol ...]: it
-- asks for the optional intent, then the rendered messages go into the
-- register, linewise, and one line that fits the screen sums them up.
function M.prompt(cmd)
  local bufnr, fallback = target(cmd)
  if not bufnr then
    return
  end
  local parsed = M.parse(cmd.fargs, true)
  local reg = parsed.register or M.default_register()
  with_intent(true, options(cmd, bufnr, parsed), function(opts)
    require("ctxd").render_prompt(opts, function(err, result)
      if err or type(result) ~= "table" then
        return
      end
      vim.fn.setreg(reg, render.prompt_text(result.prompt), "l")
      vim.notify(render.prompt_summary(result, reg, info_of(bufnr, fallback), errors.message_width()), vim.log.levels.INFO)
    end)
  end)
end

-- status implements :CtxdStatus[!] (! lists the skipped paths).
function M.status(cmd)
  local bufnr, fallback = target(nil)
  if not bufnr then
    return
  end
  require("ctxd").index_status({ ui = true, bufnr = bufnr, skipped = cmd.bang or nil }, function(err, result)
    if err or type(result) ~= "table" then
      return
    end
    local info = info_of(bufnr, fallback)
    info.modified = M.buffer_modified
    M.show(render.index_status(result, info))
  end)
end

-- buffer_modified returns 'modified' of the loaded buffer of a file URI,
-- or nil when no buffer of this Neovim holds it.
function M.buffer_modified(uri)
  local ok, name = pcall(vim.uri_to_fname, uri)
  if not ok then
    return nil
  end
  -- Not bufnr(name): it takes a pattern, which a path may look like.
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_name(b) == name then
      return vim.bo[b].modified
    end
  end
  return nil
end

-- change implements :[range]CtxdChange[!] [intent]: without an intent it
-- asks for one (vim.ui.input, the recent intents in its history; with !
-- a vim.ui.select of the recent intents).
function M.change(cmd)
  local bufnr = target(cmd)
  if not bufnr then
    return
  end
  local range
  if bufnr == vim.api.nvim_get_current_buf() then
    range = M.range_of(cmd, bufnr)
  end
  local function go(intent)
    if not intent then
      vim.notify("ctxd: no intent given; nothing was sent", vim.log.levels.INFO)
      return
    end
    require("ctxd").change({ ui = true, bufnr = bufnr, range = range, intent = intent })
  end
  local intent = vim.trim(cmd.args or "")
  if intent ~= "" then
    go(intent)
  else
    require("ctxd.change").ask_intent(cmd.bang, go)
  end
end

-- change_cancel implements :CtxdChangeCancel.
function M.change_cancel()
  require("ctxd.change").cancel()
end

-- change_log implements :CtxdChangeLog: the last change's attempts in the
-- results buffer.
function M.change_log()
  local log = require("ctxd.change").log()
  if not log then
    vim.notify("ctxd: no change has run yet", vim.log.levels.INFO)
    return
  end
  M.show(render.change_log(log))
end

-- symbol_items asks the server of the current buffer's workspace for
-- the symbols matching query (workspace/symbol: exact names first, then
-- prefixes, then names containing it; a query with a dot searches
-- qualified names) and returns the names a command accepts, qualified by
-- their container ("Store.List"), each once, in the server's order. No
-- client is started for a completion; one still indexing, or slower than
-- timeout_ms, gives none.
function M.symbol_items(query, timeout_ms)
  local bufnr = client.resolve_buf(0)
  local c = bufnr and client.get(bufnr)
  if not c or not c.initialized then
    return {}
  end
  local answer = client.request_sync(c, "workspace/symbol", { query = query }, timeout_ms or 1000, bufnr)
  if type(answer) ~= "table" or answer.err or type(answer.result) ~= "table" then
    return {}
  end
  local out, seen = {}, {}
  local lead = query:lower()
  for _, sym in ipairs(answer.result) do
    local name = type(sym.name) == "string" and sym.name or ""
    local container = type(sym.containerName) == "string" and sym.containerName or ""
    local item = container ~= "" and (container .. "." .. name) or name
    -- A qualified query completes qualified names that contain it; the
    -- server's other matches (a member whose own name contains the
    -- query's last part) would replace what was typed with a stranger.
    if name ~= "" and not seen[item] and (not lead:find("[.:]") or item:lower():find(lead, 1, true)) then
      seen[item] = true
      table.insert(out, item)
    end
  end
  return out
end

-- complete offers, for the word being typed after a context command, the
-- purposes that start with it, then the workspace's symbols that match
-- it (symbol_items).
function M.complete(arg_lead)
  local out = {}
  for _, p in ipairs(contract.purposes) do
    if p:sub(1, #arg_lead) == arg_lead then
      table.insert(out, p)
    end
  end
  for _, s in ipairs(M.symbol_items(arg_lead)) do
    if not config.contains(out, s) then
      table.insert(out, s)
    end
  end
  return out
end

return M
