-- The LSP client: finding, starting and attaching one ctxd client per
-- workspace root, waiting until it is initialized, and sending ctxd's
-- commands. Everything that differs between Neovim 0.7 and 0.11+ lives
-- here: vim.lsp.start (0.8+) versus start_client + buf_attach_client
-- (0.7), get_clients (0.10+) versus get_active_clients, and client:request
-- (0.11+) versus client.request.
local config = require("ctxd.config")
local contract = require("ctxd.contract")
local errors = require("ctxd.errors")
local root = require("ctxd.root")

local M = {}

-- The client name; clients of that name are ctxd's, whoever started them
-- (this plugin or vim.lsp.enable("ctxd")).
M.name = "ctxd"

local uv = vim.uv or vim.loop
local colon_methods = vim.fn.has("nvim-0.11") == 1

local known = {} -- client ids started or attached here
local by_root = {} -- 0.7 only: root directory -> client id
local last_request = nil
local last_file_buf = nil

local function now_ms()
  return uv.hrtime() / 1e6
end

-- call invokes a method of a client object in the calling convention of
-- the running Neovim (client:request on 0.11+, client.request before).
local function call(client, method, ...)
  if colon_methods then
    return client[method](client, ...)
  end
  return client[method](...)
end

-- is_stopped reports whether client is nil or has stopped.
function M.is_stopped(client)
  if client == nil then
    return true
  end
  local ok, stopped = pcall(call, client, "is_stopped")
  return ok and stopped or false
end

local function candidates()
  local out, seen = {}, {}
  local function add(c)
    if c and c.name == M.name and not seen[c.id] then
      seen[c.id] = true
      table.insert(out, c)
    end
  end
  if vim.lsp.get_clients then
    for _, c in ipairs(vim.lsp.get_clients({ name = M.name })) do
      add(c)
    end
  else
    for _, c in ipairs(vim.lsp.get_active_clients()) do
      add(c)
    end
  end
  -- Clients that are still initializing are missing from
  -- get_active_clients on 0.7-0.9.
  local ids = {}
  for id in pairs(known) do
    table.insert(ids, id)
  end
  table.sort(ids)
  for _, id in ipairs(ids) do
    local c = vim.lsp.get_client_by_id(id)
    if c then
      add(c)
    else
      known[id] = nil
    end
  end
  table.sort(out, function(a, b)
    return a.id < b.id
  end)
  return out
end

-- all returns every running ctxd client, by id.
function M.all()
  local out = {}
  for _, c in ipairs(candidates()) do
    if not M.is_stopped(c) then
      table.insert(out, c)
    end
  end
  return out
end

-- get returns the ctxd client attached to bufnr (0 or nil: the current
-- buffer), initialized or not, or nil.
function M.get(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  for _, c in ipairs(M.all()) do
    if vim.lsp.buf_is_attached(bufnr, c.id) then
      return c
    end
  end
  return nil
end

-- stop asks a client to shut down.
function M.stop(client)
  pcall(call, client, "stop")
end

-- encoding returns the position encoding the server uses with client:
-- the one it announced (capabilities.positionEncoding), else the one the
-- Neovim client negotiated, else LSP's default.
function M.encoding(client)
  local caps = client and client.server_capabilities
  if type(caps) == "table" and type(caps.positionEncoding) == "string" then
    return caps.positionEncoding
  end
  if client and type(client.offset_encoding) == "string" then
    return client.offset_encoding
  end
  return "utf-16"
end

-- root_dir returns the workspace root of a client.
function M.root_dir(client)
  if client == nil then
    return nil
  end
  return client.root_dir or (client.config and client.config.root_dir)
end

-- remember records the last file buffer the user was in, the target of
-- commands run from a scratch buffer (the results window, :checkhealth).
function M.remember(bufnr)
  last_file_buf = bufnr
end

-- no_file_message is the error of a command with no file buffer to work
-- on.
M.no_file_message = "no file buffer to work on: the current buffer is not a file ctxd serves"
  .. " (a scratch, terminal or help buffer) and no file buffer was visited before; open a file of a workspace first"

-- label names bufnr's file for people: relative to the current directory
-- or home when it is under them.
function M.label(bufnr)
  return vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ":~:.")
end

-- resolve_buf returns the buffer a command works on: bufnr (0 or nil: the
-- current buffer) when ctxd may serve it, else the last file buffer the
-- user was in, else nil.
function M.resolve_buf(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  local filetypes = config.get().filetypes
  if root.eligible(bufnr, filetypes) then
    return bufnr
  end
  if last_file_buf and last_file_buf ~= bufnr and root.eligible(last_file_buf, filetypes) then
    return last_file_buf
  end
  return nil
end

-- The release major whose protocol the plugin speaks when a binary
-- prints no protocol_version (the VS Code extension's ServerMajor).
M.server_major = 0

-- release_major returns the major number of a release version ("1.2.3",
-- "v1.2.3", "1.2.3-rc.1", "1.2.3+build"), or nil for anything else: a
-- development build ("devel", a commit, a `git describe` after a tag
-- such as "v1.2.3-4-g5a5e5dd-dirty") says nothing about its protocol.
function M.release_major(version)
  if type(version) ~= "string" then
    return nil
  end
  local major, rest = vim.trim(version):gsub("^v", ""):match("^(%d+)%.%d+%.%d+(.*)$")
  if not major or (#major > 1 and major:sub(1, 1) == "0") then
    return nil
  end
  local pre, build = rest:match("^%-([%w%.%-]+)(.*)$")
  if not pre then
    pre, build = "", rest
  end
  if build ~= "" and not build:match("^%+[%w%.%-]+$") then
    return nil
  end
  if pre == "dirty" or pre:match("^%d+%-g%x+$") or pre:match("^%d+%-g%x+%-dirty$") then
    return nil
  end
  return tonumber(major)
end

-- decide_protocol decides, from what `ctxd version --json` printed
-- (stdout, its exit code), whether the plugin may start the binary, as
-- the VS Code extension does: the protocol_version it prints must be the
-- plugin's (contract.protocol_version); a binary that prints none must be
-- a release of the plugin's major; a development build, or a cmd that is
-- not ctxd itself (a wrapper), is started unchecked. Returns { kind =
-- "match" | "mismatch" | "unknown", message }.
function M.decide_protocol(stdout, code, exe, expected)
  expected = expected or { protocol = contract.protocol_version, major = M.server_major }
  local fix = "set vim.g.ctxd.cmd to a ctxd of the plugin's release (:checkhealth ctxd)"
  local ok, report = pcall(vim.json.decode, stdout or "")
  if code ~= 0 or not ok or type(report) ~= "table" or type(report.version) ~= "string" then
    return { kind = "unknown", message = string.format("`%s version --json` printed no version report;"
      .. " started without the protocol check", exe) }
  end
  local p = report.protocol_version
  if type(p) == "number" and p == math.floor(p) then
    if p == expected.protocol then
      return { kind = "match", message = string.format("ctxd %s speaks protocol %d", report.version, p) }
    end
    return { kind = "mismatch", message = string.format("ctxd %s speaks protocol %d, but this plugin speaks protocol %d: %s",
      report.version, p, expected.protocol, fix) }
  end
  local major = M.release_major(report.version)
  if major ~= nil then
    if major == expected.major then
      return { kind = "match", message = string.format("ctxd %s is a %d.x release", report.version, major) }
    end
    return { kind = "mismatch", message = string.format("ctxd %s is a %d.x release, but this plugin speaks the"
      .. " protocol of ctxd %d.x: %s", report.version, major, expected.major, fix) }
  end
  return { kind = "unknown", message = string.format("ctxd %s is a development build that does not say which"
    .. " protocol it speaks; started without the check", report.version) }
end

local protocol_checked = {} -- executable path -> decision

-- check_protocol runs `exe version --json` once per executable path and
-- returns decide_protocol's decision (kept for :checkhealth ctxd).
function M.check_protocol(exe)
  local path = vim.fn.exepath(exe)
  if path == "" then
    path = exe
  end
  if not protocol_checked[path] then
    local out = vim.fn.system({ exe, "version", "--json" })
    protocol_checked[path] = M.decide_protocol(out, vim.v.shell_error, exe)
  end
  return protocol_checked[path]
end

-- forget_protocol_checks drops the remembered decisions (a new binary at
-- the same path is checked again).
function M.forget_protocol_checks()
  protocol_checked = {}
end

-- lsp_config is the client configuration for a workspace root.
function M.lsp_config(cfg, dir)
  return {
    name = M.name,
    cmd = cfg.cmd,
    root_dir = dir,
    workspace_folders = { { uri = vim.uri_from_fname(dir), name = vim.fn.fnamemodify(dir, ":t") } },
    -- Indexing progress for the statusline (Neovim's own handler runs
    -- too; see ctxd.progress).
    handlers = { ["$/progress"] = require("ctxd.progress").handler },
    on_attach = function(_, bufnr)
      require("ctxd.status").refresh(bufnr, 0)
    end,
    on_exit = function(code, signal, client_id)
      for r, id in pairs(by_root) do
        if id == client_id then
          by_root[r] = nil
        end
      end
      known[client_id] = nil
      vim.schedule(function()
        require("ctxd.progress").forget_client(client_id)
        require("ctxd.status").forget_client(client_id)
        if code ~= 0 and vim.v.exiting == vim.NIL then
          vim.notify(string.format("ctxd: the server exited with code %d (signal %d); see :checkhealth ctxd",
            code, signal or 0), vim.log.levels.WARN)
        end
      end)
    end,
  }
end

-- attach starts (or reuses) the client of bufnr's workspace root and
-- attaches it to bufnr. It returns the client id, or nil and an error.
function M.attach(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  local cfg = config.get()
  local ok, path = root.eligible(bufnr, cfg.filetypes)
  if not ok then
    return nil, errors.new("NO_CLIENT", string.format("buffer %d is not a file ctxd serves", bufnr))
  end
  local existing = M.get(bufnr)
  if existing then
    return existing.id
  end
  local exe = cfg.cmd[1]
  if vim.fn.executable(exe) ~= 1 then
    local err = errors.new("START_FAILED",
      string.format("the ctxd binary %q is not executable or not on PATH (set vim.g.ctxd.cmd)", exe))
    err.missing = exe
    return nil, err
  end
  if cfg.check_protocol then
    local decision = M.check_protocol(exe)
    if decision.kind == "mismatch" then
      return nil, errors.new("START_FAILED", decision.message)
    end
  end
  local dir = root.find(path, cfg.root_markers)
  local lsp_config = M.lsp_config(cfg, dir)
  local id
  if vim.lsp.start then
    -- 0.8 attaches the current buffer whatever opts.bufnr says.
    vim.api.nvim_buf_call(bufnr, function()
      id = vim.lsp.start(lsp_config, { bufnr = bufnr })
    end)
    if id and not vim.lsp.buf_is_attached(bufnr, id) then
      vim.lsp.buf_attach_client(bufnr, id)
    end
  else
    id = by_root[dir]
    if id and (vim.lsp.get_client_by_id(id) == nil or M.is_stopped(vim.lsp.get_client_by_id(id))) then
      id = nil
    end
    if not id then
      id = vim.lsp.start_client(lsp_config)
      by_root[dir] = id
    end
    if id then
      vim.lsp.buf_attach_client(bufnr, id)
    end
  end
  if not id then
    return nil, errors.new("START_FAILED", "could not start " .. table.concat(cfg.cmd, " "))
  end
  known[id] = true
  return id
end

-- when_ready calls cb(nil, client) once the client finished initialize,
-- or cb(err) when it exits first or timeout_ms pass.
function M.when_ready(client_id, timeout_ms, cb)
  local c = vim.lsp.get_client_by_id(client_id)
  if c and c.initialized and not M.is_stopped(c) then
    cb(nil, c)
    return
  end
  local start = now_ms()
  local timer = uv.new_timer()
  local done = false
  local function finish(err, client)
    if done then
      return
    end
    done = true
    timer:stop()
    timer:close()
    cb(err, client)
  end
  timer:start(10, 20, vim.schedule_wrap(function()
    if done then
      return
    end
    local client = vim.lsp.get_client_by_id(client_id)
    if client == nil or M.is_stopped(client) then
      finish(errors.new("START_FAILED", "the ctxd server exited before it was ready; see :checkhealth ctxd"))
    elseif client.initialized then
      finish(nil, client)
    elseif now_ms() - start > timeout_ms then
      finish(errors.new("NOT_READY", string.format("the ctxd server did not initialize within %d ms", timeout_ms)))
    end
  end))
end

-- ensure calls cb(nil, client) with the initialized client of bufnr,
-- starting and attaching it when needed (an explicit command works even
-- with auto_attach off), or cb(err).
function M.ensure(bufnr, cb)
  local c = M.get(bufnr)
  local id = c and c.id
  if not id then
    local err
    id, err = M.attach(bufnr)
    if not id then
      cb(err)
      return
    end
  end
  M.when_ready(id, config.get().start_timeout_ms, cb)
end

-- request sends an LSP request through client; handler(err, result).
-- Pending didChange notifications of bufnr are flushed first by Neovim,
-- so the server sees the buffer as it is now.
function M.request(client, method, params, handler, bufnr)
  return call(client, "request", method, params, function(err, result)
    if vim.in_fast_event() then
      vim.schedule(function()
        handler(err, result)
      end)
    else
      handler(err, result)
    end
  end, bufnr)
end

-- request_sync sends an LSP request and waits up to timeout_ms for its
-- answer: { err, result }, or nil (and a reason) on a timeout or when it
-- could not be sent.
function M.request_sync(client, method, params, timeout_ms, bufnr)
  local ok, answer, reason = pcall(call, client, "request_sync", method, params, timeout_ms, bufnr)
  if not ok then
    return nil, tostring(answer)
  end
  return answer, reason
end

-- cancel cancels a request sent with request.
function M.cancel(client, request_id)
  pcall(call, client, "cancel_request", request_id)
end

-- send runs one ctxd command on an initialized client: key is a key of
-- contract.commands, args the JSON object sent as arguments[0]. cb(err,
-- result) gets a refusal or a plugin error (see ctxd.errors). quiet
-- requests (the statusline's budget) are not remembered as last_request.
-- Returns the request id (for cancel), or nil when it could not be sent.
function M.send(client, bufnr, key, args, cb, quiet)
  local command = contract.commands[key]
  if not command then
    cb(errors.new("INVALID_OPTIONS", "unknown ctxd command " .. tostring(key)))
    return nil
  end
  local params = { command = command, arguments = { args } }
  if not quiet then
    last_request = { command = command, arguments = config.deepcopy(params.arguments), bufnr = bufnr, client_id = client.id }
  end
  local ok, request_id = M.request(client, "workspace/executeCommand", params, function(err, result)
    if err then
      cb(errors.from_rpc(err))
    else
      cb(nil, result)
    end
  end, bufnr)
  if not ok then
    cb(errors.new("NO_CLIENT", "the ctxd client has stopped"))
    return nil
  end
  return request_id
end

-- context describes bufnr for request.build: its URI, the client's
-- position encoding and a line reader.
function M.context(bufnr, client, command, cfg)
  local uri = nil
  if vim.api.nvim_buf_get_name(bufnr) ~= "" then
    uri = vim.uri_from_bufnr(bufnr)
  end
  return {
    uri = uri,
    encoding = M.encoding(client),
    config = cfg or config.get(),
    command = command,
    get_line = function(row)
      return vim.api.nvim_buf_get_lines(bufnr, row - 1, row, false)[1] or ""
    end,
  }
end

-- last_request returns a copy of the last command sent: { command,
-- arguments, bufnr, client_id }, or nil.
function M.last_request()
  return last_request and config.deepcopy(last_request) or nil
end

return M
