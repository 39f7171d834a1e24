-- What can go wrong, as values. A callback of the Lua API receives either
-- a refusal (the server's fail-closed answer, passed through verbatim: code,
-- message, advice and the reports computed before refusing) or one of the
-- plugin's own errors below, a table { code, message, level, rpc_code? }
-- whose code starts with "CTXD_". Refusal codes never do.
local contract = require("ctxd.contract")

local M = {}

local levels = vim.log.levels

-- The plugin's error codes and the log level each is shown with.
M.kinds = {
  -- No file buffer to work on, or no ctxd client could be found for it.
  NO_CLIENT = { code = "CTXD_NO_CLIENT", level = levels.WARN },
  -- The server could not be started (binary missing, exited early).
  START_FAILED = { code = "CTXD_START_FAILED", level = levels.ERROR },
  -- The server did not finish initialize in time.
  NOT_READY = { code = "CTXD_NOT_READY", level = levels.ERROR },
  -- The options given to a command or a Lua API call are not valid.
  INVALID_OPTIONS = { code = "CTXD_INVALID_OPTIONS", level = levels.ERROR },
  -- The server answered with a JSON-RPC error other than a refusal.
  RPC = { code = "CTXD_RPC_ERROR", level = levels.ERROR },
  -- The request was cancelled (-32800).
  CANCELLED = { code = "CTXD_CANCELLED", level = levels.INFO },
  -- An open document is out of sync with the server (-32801).
  CONTENT_MODIFIED = { code = "CTXD_CONTENT_MODIFIED", level = levels.WARN },
  -- The user dismissed a choice the request needed.
  DISMISSED = { code = "CTXD_DISMISSED", level = levels.INFO },
  -- :CtxdChange: the model could not be asked or its answer read (curl
  -- missing or failing, an HTTP error, no key, an error event).
  MODEL = { code = "CTXD_MODEL_ERROR", level = levels.ERROR },
  -- :CtxdChange: a buffer the change applies to changed after the check;
  -- nothing was applied.
  STALE = { code = "CTXD_STALE", level = levels.WARN },
  -- :CtxdChange: another change is running.
  BUSY = { code = "CTXD_BUSY", level = levels.WARN },
}

-- new builds a plugin error of the given kind (a key of M.kinds).
function M.new(kind, message, rpc_code)
  local k = M.kinds[kind] or M.kinds.RPC
  return { code = k.code, message = message, level = k.level, rpc_code = rpc_code }
end

-- is_refusal reports whether err is a refusal of the server (as opposed to
-- a plugin or transport error). A refusal always carries advice.
function M.is_refusal(err)
  return type(err) == "table"
    and type(err.code) == "string"
    and type(err.message) == "string"
    and err.advice ~= nil
    and err.code:sub(1, 5) ~= "CTXD_"
end

-- from_rpc turns the error of a JSON-RPC response into a refusal (code
-- -32803 carries it as data) or a plugin error.
function M.from_rpc(err)
  if type(err) ~= "table" then
    return M.new("RPC", tostring(err))
  end
  local code = err.code
  if code == contract.code_refused and type(err.data) == "table" and err.data.code ~= nil then
    local r = err.data
    if r.advice == nil or r.advice == vim.NIL then
      r.advice = ""
    end
    return r
  end
  local message = type(err.message) == "string" and err.message or vim.inspect(err)
  if code == -32800 then
    return M.new("CANCELLED", "request cancelled", code)
  elseif code == -32801 then
    return M.new("CONTENT_MODIFIED", message, code)
  end
  return M.new("RPC", message, code)
end

-- format renders an error for the user: a refusal as
-- "CODE: message\nadvice", anything else as "ctxd: message".
function M.format(err)
  if M.is_refusal(err) then
    return err.code .. ": " .. err.message .. "\n" .. err.advice
  end
  if type(err) == "table" and err.message then
    return "ctxd: " .. err.message
  end
  return "ctxd: " .. tostring(err)
end

-- level is the log level err is shown with.
function M.level(err)
  if M.is_refusal(err) then
    return levels.ERROR
  end
  if type(err) == "table" and type(err.level) == "number" then
    return err.level
  end
  return levels.ERROR
end

-- message_width is how many display cells a message on the last line
-- may take without a hit-enter prompt: Neovim asks for ENTER when a
-- message reaches the column where 'showcmd' and 'ruler' are drawn (the
-- ruler is there only without a status line of the last window).
function M.message_width()
  local columns = vim.o.columns
  local ls = vim.o.laststatus
  local last_status = ls >= 2 or (ls == 1 and #vim.api.nvim_tabpage_list_wins(0) > 1)
  local reserved = 0
  if vim.o.ruler and not last_status then
    reserved = 18
  end
  if vim.o.showcmd then
    reserved = reserved + 10
    if not vim.o.ruler or last_status then
      reserved = reserved + 1
    end
  end
  return math.max(columns - reserved - 1, 20)
end

-- fits reports whether text shows whole in the message area without a
-- hit-enter prompt: at most rows lines (rows: 'cmdheight'), the last no
-- wider than message_width() and the others than the screen (columns
-- given: every line at most columns - 1). Neovim asks to press ENTER for
-- a message of more lines than 'cmdheight' (two lines with the default
-- 1), and some notification plugins show only the first line.
function M.fits(text, columns, rows)
  local width = columns and columns - 1 or M.message_width()
  rows = math.max(1, rows or vim.o.cmdheight)
  local lines = vim.split(text, "\n", { plain = true })
  if #lines > rows then
    return false
  end
  for i, l in ipairs(lines) do
    -- Only the last line shares its row with 'showcmd' and the ruler.
    local room = (i < #lines and columns == nil) and vim.o.columns - 1 or width
    if vim.fn.strdisplaywidth(l) > room then
      return false
    end
  end
  return true
end

-- one_line returns the first line of text cut to at most columns - 1
-- display cells (columns nil: message_width()), ending in "…" when cut:
-- a message that never needs a hit-enter prompt.
function M.one_line(text, columns)
  local width = math.max(columns and columns - 1 or M.message_width(), 1)
  local line = vim.split(tostring(text), "\n", { plain = true })[1]
  if vim.fn.strdisplaywidth(line) <= width then
    return line
  end
  local chars = vim.fn.strchars(line)
  local lo, hi = 0, chars
  -- The longest prefix that leaves room for the ellipsis.
  while lo < hi do
    local mid = math.floor((lo + hi + 1) / 2)
    if vim.fn.strdisplaywidth(vim.fn.strcharpart(line, 0, mid)) <= width - 1 then
      lo = mid
    else
      hi = mid - 1
    end
  end
  return vim.fn.strcharpart(line, 0, lo) .. "…"
end

-- tail returns the end of text that fits in width display cells, after
-- "…" when text is cut (a path keeps its file name).
function M.tail(text, width)
  text = tostring(text)
  if vim.fn.strdisplaywidth(text) <= width then
    return text
  end
  local chars = vim.fn.strchars(text)
  local keep = chars
  while keep > 1 and vim.fn.strdisplaywidth(vim.fn.strcharpart(text, chars - keep)) > width - 1 do
    keep = keep - 1
  end
  return "…" .. vim.fn.strcharpart(text, chars - keep)
end

-- window_note follows the code in a refusal's one-line notification when
-- its window shows the whole refusal.
M.window_note = " (see the window)"

-- notify shows err with vim.notify at its level. info: { file?,
-- fallback? }: the file the request was for; with fallback (the command
-- ran from a buffer that is not a file) a line names it. A refusal of a
-- build over the hard limit whose message counts fewer tokens than the
-- statusline shows gets a line naming both (render.refusal_budget_note).
-- A refusal whose text does not fit in the message area (see fits) is
-- shown whole, message and advice together, in a floating window (see
-- commands.show_refusal), and vim.notify gets one line that fits: its
-- code, a pointer to the window and the start of its message. A longer
-- text would make the user press ENTER before they could read the
-- window.
function M.notify(err, info)
  local text = M.format(err)
  local render = require("ctxd.render")
  if type(info) == "table" and info.fallback and info.file then
    text = text .. "\nctxd: for " .. info.file .. " " .. render.fallback_note
  end
  local note = M.is_refusal(err) and render.refusal_budget_note(err)
  if note then
    text = text .. "\n" .. note
  end
  if type(err) == "table" and err.code == M.kinds.START_FAILED.code and not M.fits(text) then
    -- The server could not start: one line, as auto_attach gives it; the
    -- rest is in :checkhealth ctxd.
    text = require("ctxd").start_failed_line(err)
  elseif M.is_refusal(err) and not M.fits(text) then
    local ok, msg = pcall(require("ctxd.commands").show_refusal, err, info)
    if ok then
      text = M.one_line(err.code .. M.window_note .. ": " .. err.message)
    else
      text = text .. "\nctxd: could not open the refusal window: " .. tostring(msg)
    end
  end
  vim.notify(text, M.level(err))
end

return M
