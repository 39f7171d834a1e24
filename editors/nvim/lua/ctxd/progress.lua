-- Indexing progress of ctxd clients: the work-done progress ($/progress,
-- see docs/protocol.md) the server sends while it scans a workspace
-- folder, "ctxd: indexing" with reports such as "1,234/10,595 files".
--
-- The ctxd client's own $/progress handler records it here and then hands
-- it to Neovim's handler, so vim.lsp.status() (0.10+), the LspProgress and
-- LspProgressUpdate autocmds and progress plugins keep working. The plugin
-- keeps its own record because Neovim's differs between versions (0.7
-- keeps ended progress until someone reads it; 0.10+ keeps a ring buffer).
-- The statusline component shows the newest running progress of the
-- buffer's client in place of the budget, which waits for the index
-- anyway, and every change fires User CtxdProgress for other UIs.
local M = {}

local running = {} -- client id -> token (as a string) -> { title, message, percentage, seq }
local seq = 0 -- orders begins, so that the newest progress is shown

local function changed()
  local function notify()
    pcall(vim.cmd, "redrawstatus")
    pcall(vim.api.nvim_exec_autocmds, "User", { pattern = "CtxdProgress", modeline = false })
  end
  if vim.in_fast_event() then
    vim.schedule(notify)
  else
    notify()
  end
end

-- update applies one $/progress params ({ token, value }) of a client.
-- Values that are not work-done progress, and reports or ends of a token
-- that never began, are ignored.
function M.update(client_id, params)
  if type(params) ~= "table" or type(params.value) ~= "table" or params.token == nil then
    return
  end
  local token, value = tostring(params.token), params.value
  local tokens = running[client_id]
  if value.kind == "begin" then
    tokens = tokens or {}
    running[client_id] = tokens
    seq = seq + 1
    tokens[token] = { title = value.title, message = value.message, percentage = value.percentage, seq = seq }
  elseif value.kind == "report" then
    local p = tokens and tokens[token]
    if not p then
      return
    end
    -- An absent member keeps its previous value, as the spec says.
    if value.message ~= nil then
      p.message = value.message
    end
    if value.percentage ~= nil then
      p.percentage = value.percentage
    end
  elseif value.kind == "end" then
    if not (tokens and tokens[token]) then
      return
    end
    tokens[token] = nil
    if next(tokens) == nil then
      running[client_id] = nil
    end
  else
    return
  end
  changed()
end

-- handler is the ctxd client's $/progress handler (set in its config).
function M.handler(err, result, ctx, cfg)
  local ret
  local default = vim.lsp.handlers["$/progress"]
  if default and default ~= M.handler then
    -- Neovim's handler must not keep ours from running (0.7's fails on a
    -- report whose begin it missed).
    local ok, r = pcall(default, err, result, ctx, cfg)
    if ok then
      ret = r
    end
  end
  if err == nil and ctx and ctx.client_id then
    M.update(ctx.client_id, result)
  end
  return ret
end

-- get returns a copy of the newest running progress of a client:
-- { title, message, percentage }, or nil when none runs.
function M.get(client_id)
  local newest
  for _, p in pairs(running[client_id] or {}) do
    if newest == nil or p.seq > newest.seq then
      newest = p
    end
  end
  if newest == nil then
    return nil
  end
  return { title = newest.title, message = newest.message, percentage = newest.percentage }
end

-- text is the statusline text of a client's newest running progress, e.g.
-- "ctxd: indexing 1,234/10,595 files", or nil when none runs.
function M.text(client_id)
  local p = M.get(client_id)
  if p == nil then
    return nil
  end
  local parts = {}
  for _, s in ipairs({ p.title, p.message }) do
    if type(s) == "string" and s ~= "" then
      table.insert(parts, s)
    end
  end
  if #parts == 0 then
    return "ctxd: working"
  end
  return table.concat(parts, " ")
end

-- forget_client drops the progress of a client that exited: its end
-- will never come.
function M.forget_client(client_id)
  if running[client_id] then
    running[client_id] = nil
    changed()
  end
end

return M
