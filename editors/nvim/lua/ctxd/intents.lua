-- The optional intent of :CtxdBuild and :CtxdPrompt: asked with
-- vim.ui.input before the request, kept in a short history (newest first,
-- in stdpath("data")/ctxd/intent-history.json) that <Up> recalls in the
-- prompt. :CtxdChange keeps its own (ctxd.change).
local config = require("ctxd.config")

local M = {}

-- prompt is vim.ui.input's prompt.
M.prompt = "ctxd intent (optional; Enter: none, <Up>: recent): "

-- path is the file keeping the history.
function M.path()
  return vim.fn.stdpath("data") .. "/ctxd/intent-history.json"
end

-- read returns the intents kept in the file at path, newest first; a
-- missing or unreadable file is an empty list. (Builds and :CtxdChange
-- keep their histories in two files, read and written alike.)
function M.read(path)
  if vim.fn.filereadable(path) ~= 1 then
    return {}
  end
  local ok, data = pcall(function()
    return vim.json.decode(table.concat(vim.fn.readfile(path), "\n"))
  end)
  if not ok or type(data) ~= "table" then
    return {}
  end
  local out = {}
  for _, s in ipairs(data) do
    if type(s) == "string" and vim.trim(s) ~= "" then
      table.insert(out, s)
    end
  end
  return out
end

-- push puts intent first in the list kept at path (once), keeping at most
-- max of them; 0 keeps none.
function M.push(path, intent, max)
  if type(intent) ~= "string" or vim.trim(intent) == "" or max <= 0 then
    return
  end
  local list = { intent }
  for _, s in ipairs(M.read(path)) do
    if s ~= intent and #list < max then
      table.insert(list, s)
    end
  end
  pcall(vim.fn.mkdir, vim.fn.fnamemodify(path, ":h"), "p")
  pcall(vim.fn.writefile, { vim.json.encode(list) }, path)
end

-- history returns the remembered intents of builds, newest first.
function M.history()
  return M.read(M.path())
end

-- remember puts intent first in the history (once), keeping at most the
-- intent_history option's number of them; 0 keeps none.
function M.remember(intent)
  M.push(M.path(), intent, config.get().intent_history)
end

-- ask calls cb(intent) after asking for one; intent is "" when the user
-- gave none: Enter on an empty line, or <Esc>, builds without an intent.
-- (Neovim 0.7's vim.ui.input answers nil for both, so the two cannot mean
-- different things; a build sends nothing anywhere, so there is nothing
-- to cancel.) A given intent is remembered. With the ask_intent option
-- off it calls cb("") at once.
function M.ask(cb)
  if not config.get().ask_intent then
    cb("")
    return
  end
  local recent = M.history()
  -- Oldest first, so that <Up> recalls the newest first.
  for i = #recent, 1, -1 do
    pcall(vim.fn.histadd, "input", recent[i])
  end
  vim.ui.input({ prompt = M.prompt }, function(text)
    text = type(text) == "string" and vim.trim(text) or ""
    M.remember(text)
    cb(text)
  end)
end

return M
