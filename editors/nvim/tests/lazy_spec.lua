-- Installing through a plugin manager, without a network: a fresh headless
-- Neovim (started by tests/run.sh with ctxd NOT on PATH) loads the plugin
-- the way lazy.nvim loads a spec from a local checkout, then checks it with
-- :checkhealth ctxd.
--
-- What lazy.nvim does for a spec, reduced to what the plugin depends on:
-- put the plugin's directory on 'runtimepath', source its plugin/ files,
-- then call the spec's config(plugin). The spec is the one the docs give
-- for a clone of the whole repository (docs/install.md, "Neovim"): its
-- config adds editors/nvim to 'runtimepath' itself, sources
-- plugin/ctxd.lua and points vim.g.ctxd.cmd at bin/ctxd.
--
-- Environment: CTXD_NVIM_DIR (editors/nvim), CTXD_EXAMPLE (a workspace to
-- copy), CTXD_REPO (a directory laid out like the repository, whose
-- bin/ctxd is the binary under test). Prints TAP-like lines; :cquit on
-- failure.
local plugin_dir = assert(vim.env.CTXD_NVIM_DIR, "CTXD_NVIM_DIR is not set (run tests/run.sh)")
local example = assert(vim.env.CTXD_EXAMPLE, "CTXD_EXAMPLE is not set (run tests/run.sh)")
local repo = assert(vim.env.CTXD_REPO, "CTXD_REPO is not set (run tests/run.sh)")

local function out(s)
  io.stdout:write(s .. "\n")
  io.stdout:flush()
end

local results = { passed = 0, failed = 0 }
local function test(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    results.passed = results.passed + 1
    out("ok - lazy-style install: " .. name)
  else
    results.failed = results.failed + 1
    out("not ok - lazy-style install: " .. name .. "\n" .. tostring(err))
  end
end

local function check(cond, what)
  if not cond then
    error(what, 2)
  end
end

local function wait_for(ms, cond, what)
  if not vim.wait(ms, cond, 20) then
    error(string.format("timed out after %d ms waiting for %s", ms, what), 2)
  end
end

-- The spec, as a user writes it (the docs' spec with `dir` for a local
-- clone instead of the GitHub name). build is not run here: run.sh built
-- the binary once already.
local spec = {
  dir = repo,
  name = "ctxd",
  build = function(plugin)
    if vim.fn.executable("go") == 1 then
      vim.fn.system({ "make", "-C", plugin.dir, "build" })
    end
  end,
  config = function(plugin)
    vim.opt.runtimepath:append(plugin.dir .. "/editors/nvim")
    vim.cmd("runtime! plugin/ctxd.lua")
    local built = plugin.dir .. "/bin/ctxd"
    vim.g.ctxd = {
      cmd = { vim.fn.executable(built) == 1 and built or vim.fn.expand("~/.local/bin/ctxd"), "serve", "--stdio" },
    }
    require("ctxd").setup({ purpose = "diff" })
  end,
}

-- What the manager does with it.
local function load(s)
  local plugin = { dir = s.dir, name = s.name }
  vim.opt.runtimepath:prepend(plugin.dir)
  for _, kind in ipairs({ "vim", "lua" }) do
    for _, f in ipairs(vim.fn.glob(plugin.dir .. "/plugin/**/*." .. kind, false, true)) do
      vim.cmd("source " .. vim.fn.fnameescape(f))
    end
  end
  if s.config then
    s.config(plugin)
  end
end

test("nothing of the plugin is loaded before the spec", function()
  if vim.fn.executable("ctxd") == 1 then
    -- The health check below still proves which binary ran: it names it.
    out("# note: a ctxd is on PATH outside the test: " .. vim.fn.exepath("ctxd"))
  end
  check(vim.g.loaded_ctxd == nil, "the plugin was loaded before the spec")
  check(#vim.api.nvim_get_runtime_file("lua/ctxd/init.lua", false) == 0, "lua/ctxd is already on 'runtimepath'")
end)

test("the spec loads the plugin: commands, config, the editors/nvim runtime path", function()
  load(spec)
  check(vim.g.loaded_ctxd == 1, "plugin/ctxd.lua was not sourced")
  for _, name in ipairs({ "CtxdBuild", "CtxdManifest", "CtxdBudget", "CtxdPrompt", "CtxdStatus", "CtxdChange", "CtxdChangeCancel",
    "CtxdChangeLog" }) do
    check(vim.fn.exists(":" .. name) == 2, ":" .. name .. " is not defined")
  end
  local found = vim.api.nvim_get_runtime_file("lua/ctxd/init.lua", false)[1]
  check(found ~= nil and vim.fn.resolve(found) == vim.fn.resolve(plugin_dir .. "/lua/ctxd/init.lua"),
    "lua/ctxd/init.lua comes from " .. tostring(found))
  local cfg = require("ctxd.config").get()
  check(cfg.cmd[1] == repo .. "/bin/ctxd", "cmd[1] is " .. tostring(cfg.cmd[1]))
  check(#require("ctxd.config").problems() == 0, "configuration problems: " .. vim.inspect(require("ctxd.config").problems()))
end)

local tmp = vim.fn.tempname()
test(":checkhealth ctxd reports no errors for a buffer of a workspace", function()
  vim.fn.mkdir(tmp, "p")
  local ws = tmp .. "/ws"
  local res = vim.fn.system({ "cp", "-R", example, ws })
  check(vim.v.shell_error == 0, "cp failed: " .. res)
  vim.cmd("edit " .. vim.fn.fnameescape(ws .. "/internal/store/store.go"))
  local client = require("ctxd.client")
  local buf = vim.api.nvim_get_current_buf()
  wait_for(20000, function()
    local c = client.get(buf)
    return c ~= nil and c.initialized
  end, "the ctxd client to attach and initialize")
  vim.cmd("checkhealth ctxd")
  -- Headless, :checkhealth leaves its "Running healthchecks..." on stdout
  -- without a newline; end it, so that the result line stands alone.
  io.stdout:write("\n")
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  check(not text:find("ERROR", 1, true), "errors in:\n" .. text)
  check(text:find("ctxd version: ctxd", 1, true), "no version line in:\n" .. text)
  check(text:find(repo .. "/bin/ctxd", 1, true), "the binary of vim.g.ctxd.cmd is not named in:\n" .. text)
  check(text:find("client %d+ attached"), "no attachment in:\n" .. text)
  check(text:find("the server accepts the configuration", 1, true), "no config check in:\n" .. text)
  vim.cmd("tabclose")
end)

for _, c in ipairs(require("ctxd.client").all()) do
  require("ctxd.client").stop(c)
end
vim.wait(3000, function()
  return #require("ctxd.client").all() == 0
end, 20)
vim.fn.delete(tmp, "rf")
out(string.format("%d passed, %d failed (lazy-style install)", results.passed, results.failed))
if results.failed > 0 then
  vim.cmd("cquit 1")
else
  vim.cmd("qa!")
end
