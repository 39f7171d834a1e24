-- Which buffers ctxd serves, and the workspace root of each.
local M = {}

local uv = vim.uv or vim.loop

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

local function parent(dir)
  local up = vim.fn.fnamemodify(dir, ":h")
  return up
end

-- search walks up from dir and returns the nearest directory holding any
-- of names, or nil.
local function search(dir, names)
  while dir and dir ~= "" do
    for _, name in ipairs(names) do
      if exists(dir .. "/" .. name) then
        return dir
      end
    end
    local up = parent(dir)
    if up == dir then
      return nil
    end
    dir = up
  end
  return nil
end

-- find returns the workspace root of the file at path: the first entry of
-- markers (a file name, or a list of equally good names) found in the
-- file's directory or above it decides, so a .ctxd directory at the top of
-- a monorepo wins over a nested go.mod. Without any marker the fallback
-- (default: the current directory) is the root.
function M.find(path, markers, fallback)
  local dir = vim.fn.fnamemodify(path, ":p:h")
  for _, entry in ipairs(markers or {}) do
    local names = type(entry) == "table" and entry or { entry }
    local found = search(dir, names)
    if found then
      return found
    end
  end
  return fallback or vim.fn.getcwd()
end

-- flat lists every marker name once, in order (for configurations that
-- only take a flat list, such as vim.lsp.config's root_markers).
function M.flat(markers)
  local out, seen = {}, {}
  for _, entry in ipairs(markers or {}) do
    for _, name in ipairs(type(entry) == "table" and entry or { entry }) do
      if not seen[name] then
        seen[name] = true
        table.insert(out, name)
      end
    end
  end
  return out
end

-- eligible reports whether ctxd may serve the buffer: a loaded, normal
-- buffer with a file name (not a scratch buffer, a terminal or a
-- scheme://name buffer of another plugin) whose filetype is allowed. The
-- second result is the buffer's absolute path.
function M.eligible(bufnr, filetypes)
  if not vim.api.nvim_buf_is_valid(bufnr) or not vim.api.nvim_buf_is_loaded(bufnr) then
    return false
  end
  if vim.bo[bufnr].buftype ~= "" then
    return false
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or name:match("^%a[%w+.-]*://") then
    return false
  end
  if filetypes ~= nil then
    local ft = vim.bo[bufnr].filetype
    local ok = false
    for _, f in ipairs(filetypes) do
      if f == ft then
        ok = true
      end
    end
    if not ok then
      return false
    end
  end
  return true, vim.fn.fnamemodify(name, ":p")
end

return M
