-- Configuration of the plugin: built-in defaults, then the global table
-- vim.g.ctxd, then the options given to require("ctxd").setup(). The three
-- are merged on every read, so a change to vim.g.ctxd at run time applies
-- to the next request without a restart. Invalid values are dropped (the
-- default applies) and reported once through vim.notify and by
-- :checkhealth ctxd, never raised: a typo in a statusline option must not
-- break the editor.
local contract = require("ctxd.contract")

local M = {}

-- The defaults. Keys whose default is "absent" (filetypes, model, register)
-- are listed in M.schema only.
M.defaults = {
  cmd = { "ctxd", "serve", "--stdio" },
  purpose = "diff",
  debounce_ms = 300,
  auto_attach = true,
  float = false,
  statusline = true,
  show_content = true,
  start_timeout_ms = 10000,
  -- :CtxdBuild and :CtxdPrompt ask for an optional intent (vim.ui.input);
  -- the last intent_history ones are kept for <Up>.
  ask_intent = true,
  intent_history = 20,
  -- Check at start that the binary speaks the plugin's protocol
  -- (`ctxd version --json`), as the VS Code extension does.
  check_protocol = true,
  -- Each entry is searched upwards from the buffer's directory in turn;
  -- the first entry found anywhere above the file decides the root. A
  -- nested list is one entry whose members are equally good (the nearest
  -- directory holding any of them wins).
  root_markers = {
    ".ctxd",
    ".git",
    { "go.mod", "package.json", "Cargo.toml", "pyproject.toml", "setup.py", "Makefile" },
  },
  markers = { warn = "!", refuse = "✗", pending = "…", error = "?" },
  float_opts = { width = 0.8, height = 0.8, border = "rounded" },
  -- :CtxdChange, the plugin's own model client (ctxd itself never opens
  -- a connection). base_url, model, api_key_env and api_key_cmd have no
  -- fixed default: base_url and api_key_env follow the provider (see
  -- M.change_defaults), model falls back on the bundle's model.
  change = {
    provider = "openai",
    max_retries = 2,
    max_tokens = 4096,
    curl = "curl",
    timeout_ms = 120000,
    history = 50,
    keys = { accept = "ga", reject = "gr", next_file = "]f", prev_file = "[f" },
  },
}

-- The providers :CtxdChange speaks, with the defaults that depend on the
-- provider.
M.change_defaults = {
  openai = { base_url = "https://api.openai.com/v1", api_key_env = "OPENAI_API_KEY" },
  anthropic = { base_url = "https://api.anthropic.com", api_key_env = "ANTHROPIC_API_KEY" },
}

local function is_list(t)
  if type(t) ~= "table" then
    return false
  end
  local n = 0
  for _ in pairs(t) do
    n = n + 1
  end
  for i = 1, n do
    if t[i] == nil then
      return false
    end
  end
  return true
end
M.is_list = is_list

local function list_of_strings(v)
  if not is_list(v) then
    return false
  end
  for _, s in ipairs(v) do
    if type(s) ~= "string" or s == "" then
      return false
    end
  end
  return true
end

local function contains(list, v)
  for _, x in ipairs(list) do
    if x == v then
      return true
    end
  end
  return false
end
M.contains = contains

local function model_fields()
  local t = contract.types and contract.types.ModelRequest
  if type(t) == "table" and type(t.fields) == "table" then
    return t.fields
  end
  return t or {}
end

local change_keys = { "accept", "reject", "next_file", "prev_file" }

-- The fields of the change option and what each must be (nil: fine).
local change_fields = {
  provider = function(x)
    if M.change_defaults[x] == nil then
      return "\"openai\" or \"anthropic\""
    end
  end,
  base_url = function(x)
    if x ~= nil and (type(x) ~= "string" or not x:match("^https?://[^%s/]")) then
      return "nil (the provider's) or an http:// or https:// URL"
    end
  end,
  model = function(x)
    if x ~= nil and (type(x) ~= "string" or x == "") then
      return "nil (the bundle's model) or a model name"
    end
  end,
  api_key_env = function(x)
    if x ~= nil and (type(x) ~= "string" or not x:match("^[%a_][%w_]*$")) then
      return "nil (the provider's) or the name of an environment variable"
    end
  end,
  api_key_cmd = function(x)
    if x ~= nil and (not list_of_strings(x) or #x == 0) then
      return "nil or a command as a list of strings, e.g. { \"pass\", \"show\", \"openai\" }"
    end
  end,
  max_retries = function(x)
    if type(x) ~= "number" or x < 0 or x ~= math.floor(x) or x > 20 then
      return "a whole number from 0 to 20"
    end
  end,
  max_tokens = function(x)
    if type(x) ~= "number" or x < 1 or x ~= math.floor(x) then
      return "a whole number > 0"
    end
  end,
  curl = function(x)
    if type(x) ~= "string" or x == "" then
      return "the curl executable (a name on PATH or a path)"
    end
  end,
  timeout_ms = function(x)
    if type(x) ~= "number" or x <= 0 then
      return "a number of milliseconds > 0"
    end
  end,
  history = function(x)
    if type(x) ~= "number" or x < 0 or x ~= math.floor(x) then
      return "a whole number >= 0 (0 keeps no history)"
    end
  end,
  keys = function(x)
    if type(x) ~= "table" then
      return "a table { accept, reject, next_file, prev_file } of mappings"
    end
    for k, lhs in pairs(x) do
      if not contains(change_keys, k) then
        return "a table { accept, reject, next_file, prev_file } (unknown field " .. tostring(k) .. ")"
      end
      if lhs ~= false and (type(lhs) ~= "string" or lhs == "") then
        return "a table of mappings (a key sequence, or false for none)"
      end
    end
  end,
}

-- check_change validates the change option (merged over its default).
function M.check_change(v)
  if type(v) ~= "table" or is_list(v) and next(v) ~= nil then
    return "a table of " .. table.concat(M.change_fields(), ", ")
  end
  for k in pairs(v) do
    if change_fields[k] == nil then
      return "a table of " .. table.concat(M.change_fields(), ", ") .. " (unknown field " .. tostring(k) .. ")"
    end
  end
  for _, k in ipairs(M.change_fields()) do
    local want = change_fields[k](v[k])
    if want then
      return "a table whose " .. k .. " is " .. want
    end
  end
end

-- change_fields lists the fields of the change option, sorted.
function M.change_fields()
  local out = {}
  for k in pairs(change_fields) do
    table.insert(out, k)
  end
  table.sort(out)
  return out
end

-- Each checker returns nil when the value is acceptable, else what is
-- expected (for the message).
M.schema = {
  cmd = function(v)
    if not list_of_strings(v) or #v == 0 then
      return "a non-empty list of strings, e.g. { \"ctxd\", \"serve\", \"--stdio\" }"
    end
  end,
  filetypes = function(v)
    if v ~= nil and not list_of_strings(v) then
      return "nil (every filetype) or a list of filetype names"
    end
  end,
  purpose = function(v)
    if not contains(contract.purposes, v) then
      return "one of " .. table.concat(contract.purposes, ", ")
    end
  end,
  model = function(v)
    if v == nil or (type(v) == "string" and v ~= "") then
      return nil
    end
    if type(v) ~= "table" or is_list(v) and next(v) ~= nil then
      return "a model name or a table of " .. table.concat(model_fields(), ", ")
    end
    for k in pairs(v) do
      if not contains(model_fields(), k) then
        return "a table of " .. table.concat(model_fields(), ", ") .. " (unknown field " .. tostring(k) .. ")"
      end
    end
  end,
  debounce_ms = function(v)
    if type(v) ~= "number" or v < 0 then
      return "a number of milliseconds >= 0"
    end
  end,
  auto_attach = function(v)
    if type(v) ~= "boolean" then
      return "a boolean"
    end
  end,
  float = function(v)
    if type(v) ~= "boolean" then
      return "a boolean"
    end
  end,
  statusline = function(v)
    if type(v) ~= "boolean" then
      return "a boolean"
    end
  end,
  show_content = function(v)
    if type(v) ~= "boolean" then
      return "a boolean"
    end
  end,
  ask_intent = function(v)
    if type(v) ~= "boolean" then
      return "a boolean"
    end
  end,
  intent_history = function(v)
    if type(v) ~= "number" or v < 0 or v ~= math.floor(v) then
      return "a whole number >= 0 (0 keeps no history)"
    end
  end,
  check_protocol = function(v)
    if type(v) ~= "boolean" then
      return "a boolean"
    end
  end,
  start_timeout_ms = function(v)
    if type(v) ~= "number" or v <= 0 then
      return "a number of milliseconds > 0"
    end
  end,
  register = function(v)
    if v ~= nil and (type(v) ~= "string" or #v ~= 1) then
      return "nil (the clipboard, else the unnamed register) or a register name"
    end
  end,
  root_markers = function(v)
    if not is_list(v) or #v == 0 then
      return "a non-empty list of file names (or lists of file names)"
    end
    for _, m in ipairs(v) do
      if type(m) ~= "string" and not list_of_strings(m) then
        return "a non-empty list of file names (or lists of file names)"
      end
    end
  end,
  markers = function(v)
    if type(v) ~= "table" then
      return "a table { warn = ..., refuse = ..., pending = ..., error = ... }"
    end
    for k, s in pairs(v) do
      if M.defaults.markers[k] == nil or type(s) ~= "string" then
        return "a table { warn = ..., refuse = ..., pending = ..., error = ... } of strings"
      end
    end
  end,
  change = function(v)
    return M.check_change(v)
  end,
  float_opts = function(v)
    if type(v) ~= "table" then
      return "a table { width = 0..1, height = 0..1, border = ... }"
    end
    for k, x in pairs(v) do
      if k == "width" or k == "height" then
        if type(x) ~= "number" or x <= 0 then
          return "width and height as a fraction of the editor (0..1] or a number of cells"
        end
      elseif k ~= "border" then
        return "a table { width, height, border } (unknown field " .. tostring(k) .. ")"
      end
    end
  end,
}

local setup_opts = {}
local reported = {}

local function deepcopy(v)
  if type(v) ~= "table" then
    return v
  end
  local out = {}
  for k, x in pairs(v) do
    out[k] = deepcopy(x)
  end
  return out
end
M.deepcopy = deepcopy

-- merge copies b over a. Dictionaries merge key by key; lists and scalars
-- replace: a user's cmd = { "/opt/ctxd" } must not inherit "serve" from the
-- default list by position.
local function merge(a, b)
  for k, v in pairs(b) do
    if type(v) == "table" and not is_list(v) and type(a[k]) == "table" and not is_list(a[k]) then
      merge(a[k], v)
    else
      a[k] = deepcopy(v)
    end
  end
  return a
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do
    table.insert(keys, tostring(k))
  end
  table.sort(keys)
  return keys
end

-- resolve merges the layers and validates the result. It returns the
-- effective config, the list of problems (strings), in a stable order,
-- and the set of options with a problem ({ [name] = true }).
function M.resolve(global, opts)
  local problems = {}
  local bad = {}
  local cfg = deepcopy(M.defaults)
  local layers = {}
  if global ~= nil then
    if type(global) ~= "table" then
      table.insert(problems, "vim.g.ctxd must be a table, got " .. type(global))
    else
      table.insert(layers, { "vim.g.ctxd", global })
    end
  end
  if opts ~= nil then
    table.insert(layers, { "setup()", opts })
  end
  for _, layer in ipairs(layers) do
    local where, t = layer[1], layer[2]
    for _, k in ipairs(sorted_keys(t)) do
      local v = t[k]
      local check = M.schema[k]
      if v == vim.NIL then
        v = nil
      end
      if not check then
        table.insert(problems, string.format("%s: unknown option %q", where, k))
      else
        local candidate = cfg[k]
        if type(v) == "table" and type(candidate) == "table" and not is_list(v) and not is_list(candidate) then
          candidate = merge(deepcopy(candidate), v)
        else
          candidate = deepcopy(v)
        end
        local want = check(candidate)
        if want then
          bad[k] = true
          table.insert(problems, string.format("%s: option %q must be %s; the previous value is kept", where, k, want))
        else
          cfg[k] = candidate
        end
      end
    end
  end
  return cfg, problems, bad
end

-- get returns the effective configuration. Problems are reported once per
-- distinct message for the whole session.
function M.get()
  local cfg, problems = M.resolve(vim.g.ctxd, setup_opts)
  for _, p in ipairs(problems) do
    if not reported[p] then
      reported[p] = true
      vim.schedule(function()
        vim.notify("ctxd: " .. p, vim.log.levels.WARN)
      end)
    end
  end
  return cfg
end

-- problems lists what is wrong with the current configuration (for
-- :checkhealth ctxd), without notifying.
function M.problems()
  local _, problems = M.resolve(vim.g.ctxd, setup_opts)
  return problems
end

-- invalid reports whether the option name has a problem in the current
-- configuration (its value was dropped): :CtxdChange refuses to run on a
-- change option it could not take as given, rather than send the prompt
-- to the default provider.
function M.invalid(name)
  local _, problems, bad = M.resolve(vim.g.ctxd, setup_opts)
  if not bad[name] then
    return nil
  end
  for _, p in ipairs(problems) do
    if p:find(string.format("option %q", name), 1, true) then
      return p
    end
  end
  return "option " .. name .. " is invalid"
end

-- set replaces the setup() layer; nil clears it.
function M.set(opts)
  setup_opts = opts and deepcopy(opts) or {}
end

-- canonical renders a value as a string that is the same for equal values
-- (keys sorted), for comparing configurations.
local function canonical(v)
  if type(v) ~= "table" then
    return type(v) == "string" and string.format("%q", v) or tostring(v)
  end
  local keys = {}
  for k in pairs(v) do
    table.insert(keys, k)
  end
  table.sort(keys, function(a, b)
    return tostring(a) < tostring(b)
  end)
  local parts = {}
  for _, k in ipairs(keys) do
    table.insert(parts, canonical(k) .. "=" .. canonical(v[k]))
  end
  return "{" .. table.concat(parts, ",") .. "}"
end
M.canonical = canonical

-- request_key identifies the options of cfg (nil: the current
-- configuration) that change a build request, purpose and model: two
-- budgets computed under the same key are comparable, and a budget whose
-- key differs from the current one is stale.
function M.request_key(cfg)
  cfg = cfg or M.get()
  return canonical({ purpose = cfg.purpose, model = cfg.model })
end

-- fields returns the sorted JSON field names of a contract type, accepting
-- both shapes the generator may emit ({ fields = {...} } or a plain list).
function M.fields(type_name)
  local t = contract.types and contract.types[type_name]
  if type(t) ~= "table" then
    return {}
  end
  if type(t.fields) == "table" then
    return t.fields
  end
  return t
end

return M
