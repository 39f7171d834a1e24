-- The plugin's own model client for :CtxdChange. ctxd never opens a
-- network connection; the plugin, as the user's client, sends the prompt
-- ctxd rendered to the model the user configured (vim.g.ctxd.change),
-- through a job running curl, and streams the answer back.
--
-- The API key never appears on a command line (ps shows those) nor in a
-- file: curl reads it from its stdin as a config file (--config -). The
-- request body goes through a file in Neovim's private temporary
-- directory, removed when curl exits. Nothing here logs the key.
local config = require("ctxd.config")
local errors = require("ctxd.errors")

local M = {}

-- The provider-specific parts of a request.
M.providers = {
  openai = { path = "/chat/completions" },
  anthropic = { path = "/v1/messages", version = "2023-06-01" },
}

-- The marker curl writes its HTTP status with, to stderr (-w %{stderr}).
local status_marker = "ctxd-http-status:"

local function strip_slash(url)
  return (url:gsub("/+$", ""))
end

-- is_default_url reports whether url is a provider's own default
-- endpoint (a remote service that needs a key).
local function is_default_url(provider, url)
  local d = config.change_defaults[provider]
  return d ~= nil and strip_slash(url) == strip_slash(d.base_url)
end

-- settings resolves the change option for one run: the provider's
-- defaults filled in. model is nil when the option does not name one
-- (the run takes the bundle's model then, see with_model).
function M.settings(cc)
  cc = cc or config.defaults.change
  local provider = cc.provider or "openai"
  local d = config.change_defaults[provider] or config.change_defaults.openai
  local base_url = strip_slash(cc.base_url or d.base_url)
  return {
    provider = provider,
    base_url = base_url,
    url = base_url .. M.providers[provider].path,
    model = cc.model,
    api_key_env = cc.api_key_env or d.api_key_env,
    api_key_cmd = cc.api_key_cmd,
    max_tokens = cc.max_tokens or 4096,
    curl = cc.curl or "curl",
    timeout_ms = cc.timeout_ms or 120000,
    needs_key = is_default_url(provider, base_url),
  }
end

-- with_model returns the model to ask: the configured one, else the
-- bundle's (the prompt's model.model, what ctxd budgeted for), or nil
-- and an error when neither names one.
function M.with_model(s, bundle_model)
  if type(s.model) == "string" and s.model ~= "" then
    return s.model
  end
  if type(bundle_model) == "string" and bundle_model ~= "" then
    return bundle_model
  end
  return nil, errors.new("INVALID_OPTIONS",
    "no model to ask: set vim.g.ctxd.change.model (or a model in .ctxd/config.json)")
end

-- mask_url hides a user:password@ part of a URL (for messages).
function M.mask_url(url)
  return (tostring(url):gsub("^(%a[%w+.-]*://)[^/@]*@", "%1***@"))
end

-- key_source describes where the key comes from, for :checkhealth and
-- messages: { kind = "cmd"|"env"|"none", name, set }. The key itself is
-- never read here except to say whether an environment variable is set.
function M.key_source(s)
  if s.api_key_cmd then
    return { kind = "cmd", name = table.concat(s.api_key_cmd, " ") }
  end
  if s.api_key_env then
    local v = vim.env[s.api_key_env]
    return { kind = "env", name = s.api_key_env, set = type(v) == "string" and v ~= "" }
  end
  return { kind = "none" }
end

-- body returns the JSON request body for the provider: OpenAI's chat
-- completions or Anthropic's messages, streaming.
function M.body(s, messages)
  if s.provider == "anthropic" then
    local system, rest = {}, {}
    for _, m in ipairs(messages or {}) do
      if m.role == "system" then
        table.insert(system, m.content)
      else
        table.insert(rest, { role = m.role, content = m.content })
      end
    end
    local b = { model = s.model, max_tokens = s.max_tokens, stream = true, messages = rest }
    if #system > 0 then
      b.system = table.concat(system, "\n\n")
    end
    return vim.json.encode(b)
  end
  local msgs = {}
  for _, m in ipairs(messages or {}) do
    table.insert(msgs, { role = m.role, content = m.content })
  end
  return vim.json.encode({ model = s.model, messages = msgs, stream = true, max_tokens = s.max_tokens })
end

-- config_quote quotes a string for a curl config file.
local function config_quote(v)
  return '"' .. v:gsub("\\", "\\\\"):gsub('"', '\\"') .. '"'
end

-- key_config is what curl reads on stdin (--config -): the key's header.
function M.key_config(s, key)
  if s.provider == "anthropic" then
    return "header = " .. config_quote("x-api-key: " .. key) .. "\n"
  end
  return "header = " .. config_quote("Authorization: Bearer " .. key) .. "\n"
end

-- curl_args is the command line: nothing secret, the body from body_path,
-- the key (when with_key) from stdin.
function M.curl_args(s, body_path, with_key)
  local args = {
    -- -q first: the user's ~/.curlrc is not read, so nothing there can
    -- add a header, a proxy or a trace file that would log the key.
    s.curl, "-q", "-sS", "-N", "--fail-with-body",
    "--max-time", string.format("%.3f", s.timeout_ms / 1000),
    -- A local model server never goes through a proxy.
    "--noproxy", "127.0.0.1,localhost,::1",
    "-X", "POST",
    "-H", "Content-Type: application/json",
    "-H", "Accept: text/event-stream",
  }
  if s.provider == "anthropic" then
    vim.list_extend(args, { "-H", "anthropic-version: " .. M.providers.anthropic.version })
  end
  vim.list_extend(args, {
    "--data-binary", "@" .. body_path,
    "-w", "%{stderr}\n" .. status_marker .. "%{http_code}\n",
  })
  if with_key then
    vim.list_extend(args, { "--config", "-" })
  end
  table.insert(args, s.url)
  return args
end

local function decode(s)
  local ok, v = pcall(vim.json.decode, s, { luanil = { object = true, array = true } })
  if ok then
    return v
  end
  return nil
end

local function error_text(obj)
  if type(obj) ~= "table" then
    return nil
  end
  local e = obj.error
  if type(e) == "table" and type(e.message) == "string" then
    return e.message
  end
  if type(e) == "string" then
    return e
  end
  if type(obj.message) == "string" and obj.type == "error" then
    return obj.message
  end
  return nil
end

-- new_parser reads a streamed answer: SSE lines "data: {...}" as the
-- provider sends them (OpenAI choices[0].delta.content up to data:
-- [DONE]; Anthropic content_block_delta's delta.text), and, when the
-- server did not stream, the whole JSON body. feed(line) takes one line
-- (without its "\n") and returns the text it adds, or nil; finish()
-- returns the whole answer or nil and an error message.
function M.new_parser(provider)
  local p = { parts = {}, raw = {}, events = 0, err = nil, done = false }
  function p.feed(line)
    line = line:gsub("\r$", "")
    table.insert(p.raw, line)
    local data = line:match("^data:%s?(.*)$")
    if not data then
      return nil
    end
    p.events = p.events + 1
    if data == "[DONE]" then
      p.done = true
      return nil
    end
    local obj = decode(data)
    if type(obj) ~= "table" then
      return nil
    end
    local e = error_text(obj)
    if e then
      p.err = e
      return nil
    end
    local text
    if provider == "anthropic" then
      if obj.type == "content_block_delta" and type(obj.delta) == "table" and type(obj.delta.text) == "string" then
        text = obj.delta.text
      elseif obj.type == "message_stop" then
        p.done = true
      end
    else
      local ch = type(obj.choices) == "table" and obj.choices[1]
      if type(ch) == "table" then
        if type(ch.delta) == "table" and type(ch.delta.content) == "string" then
          text = ch.delta.content
        elseif type(ch.message) == "table" and type(ch.message.content) == "string" then
          text = ch.message.content
        end
      end
    end
    if text and text ~= "" then
      table.insert(p.parts, text)
      return text
    end
    return nil
  end
  -- body is the raw output (an error body, or a JSON answer not streamed).
  function p.body()
    return table.concat(p.raw, "\n")
  end
  function p.finish()
    if p.err then
      return nil, p.err
    end
    if p.events == 0 then
      -- Not streamed: one JSON answer.
      local obj = decode(p.body())
      local e = error_text(obj)
      if e then
        return nil, e
      end
      if type(obj) == "table" then
        if provider == "anthropic" and type(obj.content) == "table" then
          local out = {}
          for _, c in ipairs(obj.content) do
            if type(c) == "table" and type(c.text) == "string" then
              table.insert(out, c.text)
            end
          end
          return table.concat(out)
        end
        local ch = type(obj.choices) == "table" and obj.choices[1]
        if type(ch) == "table" and type(ch.message) == "table" and type(ch.message.content) == "string" then
          return ch.message.content
        end
      end
      return nil, "the answer is neither a stream of events nor a JSON answer of the " .. provider .. " API"
    end
    return table.concat(p.parts)
  end
  return p
end

-- chars counts the characters (UTF-8 sequences) of s.
function M.chars(s)
  local _, n = s:gsub("[^\128-\191]", "")
  return n
end

local function first_line(s)
  return (tostring(s or ""):match("^%s*([^\r\n]*)") or "")
end

local function short(s, n)
  s = tostring(s or "")
  if #s > n then
    return s:sub(1, n) .. "…"
  end
  return s
end

-- resolve_key calls cb(nil, key) with the key (nil when no source gives
-- one) or cb(err). api_key_cmd runs as a job; the first line of its
-- stdout, trimmed, is the key.
function M.resolve_key(s, cb)
  if s.api_key_cmd then
    local out, errout = {}, {}
    local name = table.concat(s.api_key_cmd, " ")
    local ok, job = pcall(vim.fn.jobstart, s.api_key_cmd, {
      stdout_buffered = true,
      stderr_buffered = true,
      on_stdout = function(_, data)
        out = data or {}
      end,
      on_stderr = function(_, data)
        errout = data or {}
      end,
      on_exit = function(_, code)
        vim.schedule(function()
          local key = vim.trim(((out[1] or ""):gsub("\r", "")))
          if code ~= 0 then
            cb(errors.new("MODEL", string.format("api_key_cmd (%s) failed with exit code %d: %s", name, code,
              short(first_line(table.concat(errout, "\n")), 200))))
          elseif key == "" then
            cb(errors.new("MODEL", string.format("api_key_cmd (%s) printed no key on its first line", name)))
          else
            cb(nil, key)
          end
        end)
      end,
    })
    if not ok or type(job) ~= "number" or job <= 0 then
      cb(errors.new("MODEL", string.format("api_key_cmd (%s) could not be started: is %s executable?", name,
        s.api_key_cmd[1])))
      return
    end
    pcall(vim.fn.chanclose, job, "stdin")
    return
  end
  local v = s.api_key_env and vim.env[s.api_key_env]
  if type(v) == "string" then
    v = vim.trim(v)
  end
  if v == nil or v == "" then
    if s.needs_key then
      cb(errors.new("MODEL", string.format("no API key for %s: set $%s or vim.g.ctxd.change.api_key_cmd",
        M.mask_url(s.base_url), tostring(s.api_key_env))))
      return
    end
    cb(nil, nil)
    return
  end
  cb(nil, v)
end

-- http_error turns a failed curl run into a plugin error.
local function http_error(s, code, status, body, stderr)
  local where = M.mask_url(s.url)
  if status and status >= 400 then
    local obj = decode(body)
    local msg = error_text(obj) or short(first_line(body), 300)
    return errors.new("MODEL", string.format("%s answered HTTP %d: %s", where, status, msg))
  end
  if code == 28 then
    return errors.new("MODEL", string.format("no complete answer from %s within %d ms (change.timeout_ms)", where, s.timeout_ms))
  end
  if code == 6 or code == 7 then
    return errors.new("MODEL", string.format("could not connect to %s: %s", where, short(first_line(stderr), 200)))
  end
  return errors.new("MODEL", string.format("curl failed on %s (exit code %d): %s", where, code,
    short(first_line(stderr), 200)))
end

-- request sends messages to the model and streams the answer:
-- handlers.on_text(chunk, total_chars) for each piece, then
-- handlers.on_done(err, answer) once (not after stop()). Returns a handle
-- { stop = function() } or nil and an error.
function M.request(s, key, messages, handlers)
  if vim.fn.executable(s.curl) ~= 1 then
    return nil, errors.new("MODEL", string.format("%s is not executable (install curl or set vim.g.ctxd.change.curl)", s.curl))
  end
  local body_path = vim.fn.tempname()
  local f = io.open(body_path, "wb")
  if not f then
    return nil, errors.new("MODEL", "could not write the request body to " .. body_path)
  end
  f:write(M.body(s, messages))
  f:close()
  local parser = M.new_parser(s.provider)
  local partial = ""
  local stderr = {}
  local total = 0
  local stopped = false
  local finished = false
  local function feed(line)
    local t = parser.feed(line)
    if t then
      total = total + M.chars(t)
      if handlers.on_text then
        handlers.on_text(t, total)
      end
    end
  end
  local ok, job = pcall(vim.fn.jobstart, M.curl_args(s, body_path, key ~= nil), {
    -- stderr whole at the end: its chunks split lines anywhere.
    stderr_buffered = true,
    on_stdout = function(_, data)
      if stopped or not data then
        return
      end
      -- data[1] continues the last partial line; data[#data] is a new
      -- partial line ("" after a complete one).
      data[1] = partial .. data[1]
      for i = 1, #data - 1 do
        feed(data[i])
      end
      partial = data[#data]
    end,
    on_stderr = function(_, data)
      for _, l in ipairs(data or {}) do
        if l ~= "" then
          table.insert(stderr, l)
        end
      end
    end,
    on_exit = function(_, code)
      os.remove(body_path)
      if stopped or finished then
        return
      end
      finished = true
      if partial ~= "" then
        feed(partial)
        partial = ""
      end
      local status
      local rest = {}
      for _, l in ipairs(stderr) do
        local n = l:match("^" .. vim.pesc(status_marker) .. "(%d+)")
        if n then
          status = tonumber(n)
        else
          table.insert(rest, l)
        end
      end
      local err_text = table.concat(rest, "\n")
      vim.schedule(function()
        if code ~= 0 or (status and status >= 400) then
          handlers.on_done(http_error(s, code, status, parser.body(), err_text))
          return
        end
        local answer, perr = parser.finish()
        if not answer then
          handlers.on_done(errors.new("MODEL", string.format("%s: %s", M.mask_url(s.url), perr)))
          return
        end
        handlers.on_done(nil, answer)
      end)
    end,
  })
  if not ok or type(job) ~= "number" or job <= 0 then
    os.remove(body_path)
    return nil, errors.new("MODEL", "could not start " .. s.curl)
  end
  if key ~= nil then
    -- A curl that exited at once (bad arguments) has closed its stdin;
    -- on_exit reports that.
    pcall(vim.fn.chansend, job, M.key_config(s, key))
  end
  pcall(vim.fn.chanclose, job, "stdin")
  return {
    job = job,
    stop = function()
      stopped = true
      pcall(vim.fn.jobstop, job)
      os.remove(body_path)
    end,
  }
end

return M
