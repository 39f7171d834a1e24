-- The user commands and the results window.
local client = require("ctxd.client")
local config = require("ctxd.config")
local contract = require("ctxd.contract")
local render = require("ctxd.render")
local request = require("ctxd.request")

local M = {}

M.results_name = "ctxd://results"

local function results_buffer()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_get_name(b) == M.results_name then
      return b
    end
  end
  local b = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(b, M.results_name)
  vim.bo[b].buftype = "nofile"
  vim.bo[b].bufhidden = "hide"
  vim.bo[b].swapfile = false
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

local function target()
  local bufnr = client.resolve_buf(0)
  if not bufnr then
    vim.notify("ctxd: no file buffer to work on: open a file of a workspace first", vim.log.levels.WARN)
    return nil
  end
  return bufnr
end

local function label(bufnr)
  return vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ":~:.")
end

local function context_command(key, renderer)
  return function(cmd)
    local bufnr = target()
    if not bufnr then
      return
    end
    local parsed = M.parse(cmd.fargs, false)
    local opts = options(cmd, bufnr, parsed)
    local purpose = parsed.purpose or config.get().purpose
    require("ctxd")[key](opts, function(err, result)
      if err or type(result) ~= "table" then
        return
      end
      M.show(renderer(result, { file = label(bufnr), purpose = purpose, show_content = config.get().show_content }))
    end)
  end
end

-- build, manifest and budget implement :CtxdBuild, :CtxdManifest and
-- :CtxdBudget: [range] [purpose] [symbol ...], results in the window.
M.build = context_command("build_context", render.build)
M.manifest = context_command("manifest", render.manifest)
M.budget = context_command("budget", render.budget)

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

-- prompt implements :CtxdPrompt [register] [purpose] [symbol ...]: the
-- rendered messages go into the register, linewise.
function M.prompt(cmd)
  local bufnr = target()
  if not bufnr then
    return
  end
  local parsed = M.parse(cmd.fargs, true)
  local reg = parsed.register or M.default_register()
  local opts = options(cmd, bufnr, parsed)
  require("ctxd").render_prompt(opts, function(err, result)
    if err or type(result) ~= "table" then
      return
    end
    vim.fn.setreg(reg, render.prompt_text(result.prompt), "l")
    vim.notify(render.prompt_summary(result, reg), vim.log.levels.INFO)
  end)
end

-- status implements :CtxdStatus[!] (! lists the skipped paths).
function M.status(cmd)
  local bufnr = target()
  if not bufnr then
    return
  end
  require("ctxd").index_status({ ui = true, bufnr = bufnr, skipped = cmd.bang or nil }, function(err, result)
    if err or type(result) ~= "table" then
      return
    end
    M.show(render.index_status(result))
  end)
end

-- complete offers the purposes for the context commands.
function M.complete(arg_lead)
  local out = {}
  for _, p in ipairs(contract.purposes) do
    if p:sub(1, #arg_lead) == arg_lead then
      table.insert(out, p)
    end
  end
  return out
end

return M
