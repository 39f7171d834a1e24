-- Pure helpers that turn editor state and Lua API options into ctxd build
-- requests (docs/protocol.md, "Context commands"). Nothing here talks to
-- Neovim's buffers or to the server, so every function can be tested on
-- plain strings.
local config = require("ctxd.config")
local contract = require("ctxd.contract")

local M = {}

-- Options of the Lua API that are the plugin's own and never sent.
M.plugin_options = { "bufnr", "range", "ui" }

-- seq_len returns the byte length of the UTF-8 sequence that starts at
-- byte i (1-based) of s, and whether it is valid. Invalid bytes are one
-- byte long, as the server counts them (one unit in every encoding); the
-- accepted ranges are those of RFC 3629 (no overlongs, no surrogates).
function M.seq_len(s, i)
  local b = s:byte(i)
  if not b then
    return 0, false
  end
  if b < 0x80 then
    return 1, true
  end
  local n, lo, hi
  if b >= 0xC2 and b <= 0xDF then
    n, lo, hi = 2, 0x80, 0xBF
  elseif b == 0xE0 then
    n, lo, hi = 3, 0xA0, 0xBF
  elseif b == 0xED then
    n, lo, hi = 3, 0x80, 0x9F
  elseif b >= 0xE1 and b <= 0xEF then
    n, lo, hi = 3, 0x80, 0xBF
  elseif b == 0xF0 then
    n, lo, hi = 4, 0x90, 0xBF
  elseif b >= 0xF1 and b <= 0xF3 then
    n, lo, hi = 4, 0x80, 0xBF
  elseif b == 0xF4 then
    n, lo, hi = 4, 0x80, 0x8F
  else
    return 1, false
  end
  local b2 = s:byte(i + 1)
  if not b2 or b2 < lo or b2 > hi then
    return 1, false
  end
  for j = i + 2, i + n - 1 do
    local c = s:byte(j)
    if not c or c < 0x80 or c > 0xBF then
      return 1, false
    end
  end
  return n, true
end

-- units counts the position-encoding units of the first byte_col bytes of
-- line (byte_col is a 0-based byte column, clamped to the line). encoding
-- is "utf-8" (bytes), "utf-16" (code units: a character outside the BMP is
-- two) or "utf-32" (code points). A column inside a character is rounded
-- down to the start of that character, as the server does.
function M.units(line, byte_col, encoding)
  local limit = math.min(math.max(byte_col or 0, 0), #line)
  local i, count = 1, 0
  while i <= limit do
    local n, valid = M.seq_len(line, i)
    if i + n - 1 > limit then
      break
    end
    if encoding == "utf-8" then
      count = count + n
    elseif encoding == "utf-32" or not valid or n < 4 then
      count = count + 1
    else
      count = count + 2
    end
    i = i + n
  end
  return count
end

-- char_end returns the 0-based byte column just past the character that
-- holds byte_col (the exclusive end of a visual selection whose last
-- character starts at byte_col), clamped to the line.
function M.char_end(line, byte_col)
  if byte_col >= #line then
    return #line
  end
  local i = 1
  while i <= #line do
    local n = M.seq_len(line, i)
    if byte_col < i - 1 + n then
      return i - 1 + n
    end
    i = i + n
  end
  return #line
end

-- visual_range turns the two ends of a visual selection, { row, col } with
-- 1-based rows and 0-based byte columns in either order, into a range of
-- the Lua API. Characterwise ("v") ends are inclusive, so the end moves
-- past its last character; linewise ("V") and blockwise selections become
-- whole lines.
function M.visual_range(mode, a, b, get_line)
  if a[1] > b[1] or (a[1] == b[1] and a[2] > b[2]) then
    a, b = b, a
  end
  if mode == "v" then
    local line = get_line(b[1]) or ""
    return { start = { a[1], a[2] }, ["end"] = { b[1], M.char_end(line, b[2]) } }
  end
  return { a[1], b[1] }
end

local function position(get_line, row, col, encoding)
  local text = get_line(row) or ""
  return { line = row - 1, character = M.units(text, col, encoding) }
end

-- range converts a range of the Lua API to an LSP range in the given
-- encoding. Two forms are accepted:
--   { line1, line2 }: 1-based inclusive lines (a command range); the
--     range runs from the start of line1 to the end of line2;
--   { start = { row, col }, ["end"] = { row, col } }: 1-based rows and
--     0-based byte columns, end exclusive (the convention of
--     nvim_buf_get_text and extmarks).
-- get_line(row) returns the text of a 1-based row. Ranges given backwards
-- are put in order. Returns nil and a message when the form is wrong.
function M.range(r, get_line, encoding)
  if type(r) ~= "table" then
    return nil, "range must be a table"
  end
  if type(r[1]) == "number" and type(r[2]) == "number" then
    local l1, l2 = math.floor(r[1]), math.floor(r[2])
    if l1 > l2 then
      l1, l2 = l2, l1
    end
    if l1 < 1 then
      return nil, "range lines are 1-based"
    end
    local last = get_line(l2) or ""
    return { start = { line = l1 - 1, character = 0 }, ["end"] = position(get_line, l2, #last, encoding) }
  end
  local s, e = r.start, r["end"]
  if type(s) ~= "table" or type(e) ~= "table" or type(s[1]) ~= "number" or type(s[2]) ~= "number"
    or type(e[1]) ~= "number" or type(e[2]) ~= "number" then
    return nil, "range must be { line1, line2 } or { start = { row, col }, [\"end\"] = { row, col } }"
  end
  if s[1] < 1 or e[1] < 1 or s[2] < 0 or e[2] < 0 then
    return nil, "range rows are 1-based and columns 0-based"
  end
  if e[1] < s[1] or (e[1] == s[1] and e[2] < s[2]) then
    s, e = e, s
  end
  return {
    start = position(get_line, s[1], s[2], encoding),
    ["end"] = position(get_line, e[1], e[2], encoding),
  }
end

local function absent(v)
  return v == nil or v == vim.NIL
end

local function copy(v)
  return config.deepcopy(v)
end

-- model merges the configured model overrides with the request's: a
-- string names the model, a table sets ModelRequest fields.
function M.model(base, over)
  local out = {}
  -- Not ipairs: base is nil when no model is configured.
  for _, m in ipairs({ base or false, over or false }) do
    if type(m) == "string" then
      out.model = m
    elseif type(m) == "table" then
      for k, v in pairs(m) do
        if not absent(v) then
          out[k] = v
        end
      end
    end
  end
  if next(out) == nil then
    return nil
  end
  local allowed = config.fields("ModelRequest")
  for k in pairs(out) do
    if not config.contains(allowed, k) then
      return nil, string.format("model: unknown field %q (known: %s)", tostring(k), table.concat(allowed, ", "))
    end
  end
  return out
end

-- build returns the JSON object sent as arguments[0] of a context
-- command, or nil and an error message. opts are the Lua API options: the
-- build request's own fields (see contract.types.BuildRequest) with a few
-- conveniences, plus the plugin options bufnr, range and ui, plus
-- template_id for render_prompt. ctx describes the editor:
--   uri       the active buffer's URI (nil when it has none)
--   encoding  the negotiated position encoding
--   get_line  function(row) -> text of a 1-based row of the active buffer
--   config    the effective configuration
--   command   the contract command key (build_context, render_prompt, ...)
-- Conveniences: intent may be a string; constraints may hold strings
-- (user constraints); last_error may be a string; user_selected_targets
-- may hold paths; model may be a name; active_file = false leaves the
-- active file out (an intent-only request).
function M.build(opts, ctx)
  opts = opts or {}
  local cfg = ctx.config or config.defaults
  local fields = config.fields("BuildRequest")
  local allowed = {}
  for _, f in ipairs(fields) do
    allowed[f] = true
  end
  for _, f in ipairs(M.plugin_options) do
    allowed[f] = true
  end
  if ctx.command == "render_prompt" then
    allowed.template_id = true
  end
  local keys = {}
  for k in pairs(opts) do
    table.insert(keys, tostring(k))
  end
  table.sort(keys)
  for _, k in ipairs(keys) do
    if not allowed[k] then
      return nil, string.format("unknown option %q (build request fields: %s)", k, table.concat(fields, ", "))
    end
  end

  local req = {}
  local purpose = absent(opts.purpose) and cfg.purpose or opts.purpose
  if not config.contains(contract.purposes, purpose) then
    return nil, string.format("purpose %q is not one of %s", tostring(purpose), table.concat(contract.purposes, ", "))
  end
  req.purpose = purpose

  if opts.active_file == false then
    req.active_file = nil
  elseif type(opts.active_file) == "string" then
    req.active_file = opts.active_file
  elseif ctx.uri then
    req.active_file = ctx.uri
  end

  local sel_uri = req.active_file or ctx.uri
  if not absent(opts.selection) then
    local s = opts.selection
    if type(s) ~= "table" then
      return nil, "selection must be { uri, range } or an LSP range"
    end
    if s.range then
      req.selection = { uri = s.uri or sel_uri, range = copy(s.range) }
    else
      req.selection = { uri = sel_uri, range = copy(s) }
    end
    if not req.selection.uri then
      return nil, "selection needs a uri: the buffer has no file"
    end
  elseif not absent(opts.range) then
    if not sel_uri then
      return nil, "range needs a file buffer"
    end
    local r, msg = M.range(opts.range, ctx.get_line or function()
      return ""
    end, ctx.encoding or "utf-16")
    if not r then
      return nil, msg
    end
    req.selection = { uri = sel_uri, range = r }
  end

  if type(opts.intent) == "string" then
    -- An empty intent is no intent (the server refuses an empty text).
    if vim.trim(opts.intent) ~= "" then
      req.intent = { id = M.intent_id, text = opts.intent }
    end
  elseif type(opts.intent) == "table" then
    req.intent = copy(opts.intent)
    req.intent.id = req.intent.id or M.intent_id
  end

  if type(opts.constraints) == "table" then
    req.constraints = {}
    for i, c in ipairs(opts.constraints) do
      if type(c) == "string" then
        table.insert(req.constraints, { scope = "user", id = "nvim-" .. i, text = c })
      elseif type(c) == "table" then
        local t = copy(c)
        t.scope = t.scope or "user"
        t.id = t.id or ("nvim-" .. i)
        table.insert(req.constraints, t)
      else
        return nil, string.format("constraints[%d] must be a string or { scope, id, text }", i)
      end
    end
  end

  if type(opts.plan_step) == "table" then
    req.plan_step = copy(opts.plan_step)
    req.plan_step.id = req.plan_step.id or "nvim-plan-step"
  end

  if type(opts.user_selected_targets) == "table" then
    req.user_selected_targets = {}
    for i, t in ipairs(opts.user_selected_targets) do
      if type(t) == "string" then
        table.insert(req.user_selected_targets, { path = t })
      elseif type(t) == "table" and type(t.path) == "string" then
        local u = { path = t.path }
        if type(t.symbol) == "string" and t.symbol ~= "" then
          u.symbol = t.symbol
        end
        table.insert(req.user_selected_targets, u)
      else
        return nil, string.format("user_selected_targets[%d] must be a path or { path, symbol? }", i)
      end
    end
  end

  if type(opts.last_error) == "string" then
    req.last_error = { message = opts.last_error }
  elseif type(opts.last_error) == "table" then
    req.last_error = copy(opts.last_error)
  end

  local model, merr = M.model(cfg.model, opts.model)
  if merr then
    return nil, merr
  end
  req.model = model

  for _, k in ipairs({ "correlation_id", "skill" }) do
    if not absent(opts[k]) then
      if type(opts[k]) ~= "string" then
        return nil, k .. " must be a string"
      end
      req[k] = opts[k]
    end
  end

  if type(opts.thread) == "table" then
    req.thread = copy(opts.thread)
    if req.thread.declared_refs == nil then
      req.thread.declared_refs = {}
    end
  end

  if ctx.command == "render_prompt" and not absent(opts.template_id) then
    req.template_id = opts.template_id
  end
  return req
end

-- The ids the editors give what the user typed, the same in VS Code and
-- Neovim (editors/vscode/src/request.ts: UserIntentId, SymbolPlanStepId;
-- docs/editors.md): the system block names the intent's id, and the
-- correlation_id a build derives hashes the whole request, so an id of
-- its own per editor would make the same request two bundles.
M.intent_id = "user"
M.symbols_plan_step_id = "symbols"

-- symbols_plan_step is the plan step a command sends for symbol names
-- typed after the purpose (:CtxdBuild plan Store.List): the names as
-- target_symbols and no text, since the user typed no plan step (a text
-- would be a line of the system block the user never wrote).
function M.symbols_plan_step(symbols)
  return {
    id = M.symbols_plan_step_id,
    target_symbols = symbols,
  }
end

return M
