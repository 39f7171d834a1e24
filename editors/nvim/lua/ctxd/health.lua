-- :checkhealth ctxd. Reports through vim.health.start/ok/warn/error/info
-- (0.10+), vim.health.report_* (0.8-0.9) or the health#report_*
-- autoload functions (0.7).
local M = {}

local function reporter()
  local h = vim.health
  if type(h) == "table" and type(h.start) == "function" and type(h.ok) == "function" then
    return { start = h.start, ok = h.ok, warn = h.warn, error = h.error, info = h.info }
  end
  if type(h) == "table" and type(h.report_start) == "function" then
    return { start = h.report_start, ok = h.report_ok, warn = h.report_warn, error = h.report_error, info = h.report_info }
  end
  return {
    start = function(msg)
      vim.fn["health#report_start"](msg)
    end,
    ok = function(msg)
      vim.fn["health#report_ok"](msg)
    end,
    warn = function(msg, advice)
      vim.fn["health#report_warn"](msg, advice or {})
    end,
    error = function(msg, advice)
      vim.fn["health#report_error"](msg, advice or {})
    end,
    info = function(msg)
      vim.fn["health#report_info"](msg)
    end,
  }
end

local function first_line(s)
  return (tostring(s or ""):gsub("\r", ""):match("^[^\n]*") or "")
end

-- server_check asks the attached server for a budget of bufnr: a
-- context_policy_* refusal means .ctxd/config.json is not usable.
local function server_check(r, bufnr, c)
  local client = require("ctxd.client")
  local request = require("ctxd.request")
  local errors = require("ctxd.errors")
  local args = request.build({}, client.context(bufnr, c, "budget"))
  if not args then
    return
  end
  local done, err, result = false, nil, nil
  client.send(c, bufnr, "budget", args, function(e, res)
    done, err, result = true, e, res
  end, true)
  if not vim.wait(5000, function()
    return done
  end, 20) then
    r.warn("the server did not answer a ctxd.budget request within 5 s")
    return
  end
  if errors.is_refusal(err) and err.code:match("^context_policy_") then
    r.error("the server rejects the configuration: " .. err.code .. ": " .. err.message, { err.advice })
  elseif errors.is_refusal(err) then
    r.info("the server accepts the configuration; this buffer is refused: " .. err.code .. ": " .. err.message)
  elseif err then
    r.warn("ctxd.budget failed: " .. errors.format(err))
  elseif type(result) == "table" and type(result.budget_report) == "table" then
    local br = result.budget_report
    r.ok(string.format("the server accepts the configuration (budget of this buffer: %s, %s/%s tokens)",
      tostring(br.decision), tostring(br.estimated_input_tokens), tostring(br.hard_limit_tokens)))
  end
end

-- check_change reports what :CtxdChange would use: curl, the provider,
-- where the prompt goes, the model and where the key comes from. The key
-- is never read here, except to say whether its environment variable is
-- set.
function M.check_change(r, cfg)
  local config = require("ctxd.config")
  local model = require("ctxd.model")
  r.start("ctxd: :CtxdChange (the model the plugin calls)")
  local bad = config.invalid("change")
  if bad then
    r.error(bad, { ":CtxdChange sends nothing until the change option is fixed (:help ctxd-change-config)" })
  end
  local s = model.settings(cfg.change)
  if vim.fn.executable(s.curl) == 1 then
    local out = vim.fn.system({ s.curl, "--version" })
    local major, minor = first_line(out):match("^curl (%d+)%.(%d+)")
    major, minor = tonumber(major), tonumber(minor)
    if major and (major > 7 or major == 7 and minor >= 76) then
      r.ok(string.format("%s is executable: %s (%s)", s.curl, first_line(out):match("^curl %S+"), vim.fn.exepath(s.curl)))
    elseif major then
      r.error(string.format("%s is too old: %s", s.curl, first_line(out)),
        { ":CtxdChange needs curl 7.76 or later (--fail-with-body)" })
    else
      r.warn(string.format("`%s --version` printed no curl version: %s", s.curl, first_line(out)))
    end
  else
    r.warn(string.format("%q is not executable or not on PATH: :CtxdChange cannot call a model", s.curl),
      { "install curl, or set vim.g.ctxd = { change = { curl = \"/path/to/curl\" } }" })
  end
  r.info(string.format("provider %s; the rendered prompt goes to %s (and nothing else leaves the machine)",
    s.provider, model.mask_url(s.url)))
  if s.model then
    r.info("model " .. s.model)
  else
    r.info("model: none set (change.model): the bundle's model (.ctxd/config.json) is asked")
  end
  local src = model.key_source(s)
  if src.kind == "cmd" then
    if vim.fn.executable(s.api_key_cmd[1]) == 1 then
      r.ok("API key from api_key_cmd: " .. src.name .. " (its first line of output; not run here)")
    else
      r.error("api_key_cmd " .. src.name .. ": " .. s.api_key_cmd[1] .. " is not executable",
        { "fix vim.g.ctxd.change.api_key_cmd" })
    end
  elseif src.set then
    r.ok("API key from $" .. src.name .. " (set)")
  elseif s.needs_key then
    r.warn("no API key: $" .. tostring(src.name) .. " is not set and no api_key_cmd is configured",
      { "export " .. tostring(src.name) .. ", or set vim.g.ctxd.change.api_key_cmd, e.g. { \"pass\", \"show\", \"openai\" }" })
  else
    r.ok("no API key ($" .. tostring(src.name) .. " is not set): requests to " .. model.mask_url(s.base_url)
      .. " are sent without one (a local server)")
  end
end

-- install_advice is :checkhealth's advice when the binary is missing,
-- for both ways of installing: a release archive (a ctxd binary beside
-- nvim/) and a clone of the repository (no binary until it is built).
M.install_advice = {
  "from a release archive: put the archive's ctxd in a directory on PATH (e.g. ~/.local/bin), or point the plugin at it:"
    .. " vim.g.ctxd = { cmd = { \"/path/to/ctxd\", \"serve\", \"--stdio\" } }",
  "from a clone of the ctxd repository: `make build` in it writes bin/ctxd (Go needed); put that on PATH or in"
    .. " vim.g.ctxd.cmd the same way",
}

-- no_client_advice is :checkhealth's advice when no client is attached.
-- Nothing here assumes nvim-lspconfig (:LspInfo is its command on Neovim
-- before 0.11) or a Neovim newer than 0.7.
M.no_client_advice = {
  "run :CtxdStatus: it starts the client, or its error says why it cannot",
  "the LSP log has the server's stderr: :lua print(vim.lsp.get_log_path())",
}

-- check_protocol reports whether the binary speaks the plugin's protocol
-- (client.decide_protocol; the client refuses to start one that does not).
function M.check_protocol(r, cfg, exe)
  local client = require("ctxd.client")
  if not cfg.check_protocol then
    r.info("the protocol check is off (check_protocol = false)")
    return
  end
  local d = client.check_protocol(exe)
  if d.kind == "match" then
    r.ok("protocol: " .. d.message)
  elseif d.kind == "mismatch" then
    r.error("protocol: " .. d.message, { "no client is started with this binary" })
  else
    r.warn("protocol: " .. d.message, { "set check_protocol = false in vim.g.ctxd if cmd is a wrapper, not ctxd itself" })
  end
end

function M.check()
  local r = reporter()
  local config = require("ctxd.config")
  local client = require("ctxd.client")
  local root = require("ctxd.root")

  r.start("ctxd: Neovim and configuration")
  local v = vim.version()
  local version = string.format("%d.%d.%d", v.major, v.minor, v.patch)
  if vim.fn.has("nvim-0.7") == 1 then
    r.ok("Neovim " .. version)
  else
    r.error("Neovim " .. version .. " is too old", { "ctxd.nvim needs Neovim 0.7 or later" })
  end
  local problems = config.problems()
  if #problems == 0 then
    r.ok("configuration (vim.g.ctxd, setup()) is valid")
  else
    for _, p in ipairs(problems) do
      r.warn(p, { "see :help ctxd-config" })
    end
  end
  local cfg = config.get()

  r.start("ctxd: binary")
  local exe = cfg.cmd[1]
  if vim.fn.executable(exe) == 1 then
    r.ok(string.format("%s is executable: %s", exe, vim.fn.exepath(exe)))
    local out = vim.fn.system({ exe, "version" })
    if vim.v.shell_error == 0 then
      r.ok("ctxd version: " .. first_line(out))
    else
      r.error(string.format("`%s version` failed (exit %d): %s", exe, vim.v.shell_error, first_line(out)),
        { "check that cmd[1] is the ctxd binary" })
    end
    M.check_protocol(r, cfg, exe)
  else
    r.error(string.format("%q is not executable or not on PATH", exe), M.install_advice)
  end

  M.check_change(r, cfg)

  r.start("ctxd: current buffer")
  local bufnr = client.resolve_buf(0)
  if not bufnr then
    r.info("no file buffer to check (open a file of a workspace, then run :checkhealth ctxd)")
    return
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  r.info("buffer " .. bufnr .. ": " .. vim.fn.fnamemodify(name, ":~"))
  local c = client.get(bufnr)
  local dir
  if c then
    dir = client.root_dir(c)
    local state = c.initialized and "initialized" or "starting"
    r.ok(string.format("client %d attached (%s), root %s, position encoding %s", c.id, state,
      tostring(dir), client.encoding(c)))
  else
    dir = root.find(name, cfg.root_markers)
    if cfg.auto_attach then
      r.warn("no ctxd client is attached to this buffer", M.no_client_advice)
    else
      r.info("no ctxd client is attached (auto_attach is off; commands start one on demand)")
    end
  end

  r.start("ctxd: workspace configuration")
  if not dir then
    r.info("no workspace root")
    return
  end
  local path = dir .. "/.ctxd/config.json"
  local stat = (vim.uv or vim.loop).fs_stat(path)
  if not stat then
    r.info(path .. " is absent: the built-in defaults apply")
    return
  end
  if stat.type ~= "file" then
    r.error(path .. " is not a regular file", { "every build fails closed with context_policy_read_failed" })
    return
  end
  local ok_read, lines = pcall(vim.fn.readfile, path)
  if not ok_read then
    r.error("cannot read " .. path)
    return
  end
  local ok, decoded = pcall(vim.json.decode, table.concat(lines, "\n"))
  if not ok or type(decoded) ~= "table" then
    r.error(path .. " is not valid JSON: " .. first_line(decoded),
      { "every build fails closed with context_policy_invalid until it is fixed; the server reads it once at start" })
    return
  end
  r.ok(path .. " is present and valid JSON")
  if c and c.initialized then
    server_check(r, bufnr, c)
  end
end

return M
