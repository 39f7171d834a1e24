-- ctxd for Neovim: the Lua API. Every function that talks to the server
-- takes (opts, on_result) and calls on_result(err, result) once, where err
-- is nil, a refusal of the server (code, message, advice, reports: see
-- docs/protocol.md) or a plugin error { code = "CTXD_...", message }; see
-- :help ctxd-api.
local client = require("ctxd.client")
local config = require("ctxd.config")
local errors = require("ctxd.errors")
local render = require("ctxd.render")
local request = require("ctxd.request")

local M = {}

-- The wire contract (generated from the Go types).
M.contract = require("ctxd.contract")

-- setup merges opts over vim.g.ctxd (optional: the plugin works without
-- it). Calling it again replaces the previous setup() options. The
-- statusline asks for a new budget at once: one computed under the old
-- options is never shown.
function M.setup(opts)
  config.set(opts)
  config.get()
  require("ctxd.status").config_changed()
  return M
end

-- config returns the effective configuration.
function M.config()
  return config.get()
end

local max_choices = 3

local function run(key, opts, on_result, builder, depth)
  opts = opts or {}
  depth = depth or 0
  local notify = opts.ui or on_result == nil
  local current = vim.api.nvim_get_current_buf()
  local bufnr = client.resolve_buf(opts.bufnr)
  local info = bufnr and { file = client.label(bufnr), fallback = bufnr ~= current } or nil
  local function finish(err, result, args)
    if err and notify then
      errors.notify(err, info)
    end
    if on_result then
      on_result(err, result, args)
    end
  end
  if not bufnr then
    finish(errors.new("NO_CLIENT", client.no_file_message))
    return
  end
  client.ensure(bufnr, function(err, c)
    if err then
      finish(err)
      return
    end
    local args, msg = builder(opts, client.context(bufnr, c, key))
    if not args then
      finish(errors.new("INVALID_OPTIONS", msg))
      return
    end
    client.send(c, bufnr, key, args, function(rerr, result)
      local cands = rerr and rerr.candidates
      if opts.ui and rerr and rerr.code == "REFUSE_AMBIGUOUS_TARGET" and type(cands) == "table"
        and #cands > 0 and depth < max_choices then
        vim.ui.select(cands, {
          prompt = rerr.message .. "; build for which one?",
          format_item = render.candidate,
          kind = "ctxd.candidate",
        }, function(choice)
          if not choice then
            errors.notify(errors.new("DISMISSED", "no target chosen; nothing was built"))
            if on_result then
              on_result(rerr, nil)
            end
            return
          end
          local again = config.deepcopy(opts)
          again.user_selected_targets = again.user_selected_targets or {}
          table.insert(again.user_selected_targets, { path = choice.path, symbol = choice.symbol })
          again.bufnr = bufnr
          run(key, again, on_result, builder, depth + 1)
        end)
        return
      end
      finish(rerr, result, args)
    end)
  end)
end

local function context_builder(opts, ctx)
  return request.build(opts, ctx)
end

-- simple_builder makes the argument builder of a command whose argument
-- is a flat object of the given fields.
local function simple_builder(fields)
  return function(opts)
    local args = {}
    local keys = {}
    for k in pairs(opts) do
      table.insert(keys, tostring(k))
    end
    table.sort(keys)
    for _, k in ipairs(keys) do
      if config.contains(fields, k) then
        args[k] = opts[k]
      elseif not config.contains(request.plugin_options, k) then
        return nil, string.format("unknown option %q (known: %s)", k, table.concat(fields, ", "))
      end
    end
    if next(args) == nil then
      return vim.empty_dict()
    end
    return args
  end
end

-- build_context runs ctxd.buildContext: on_result(err, {bundle, manifest,
-- redaction_report, budget_report}, args), where args is the build
-- request sent (nil when none was). opts: purpose, range or selection,
-- intent, constraints, model, plan_step, user_selected_targets,
-- last_error, correlation_id, skill, thread, active_file, bufnr, ui.
function M.build_context(opts, on_result)
  run("build_context", opts, on_result, context_builder)
end

-- manifest runs ctxd.manifest: {manifest, redaction_report, budget_report}.
function M.manifest(opts, on_result)
  run("manifest", opts, on_result, context_builder)
end

-- budget runs ctxd.budget: {budget_report, counts}.
function M.budget(opts, on_result)
  run("budget", opts, on_result, context_builder)
end

-- render_prompt runs ctxd.renderPrompt: {prompt, prompt_artifact,
-- context_artifact, manifest, redaction_report, budget_report}. opts also
-- take template_id.
function M.render_prompt(opts, on_result)
  run("render_prompt", opts, on_result, context_builder)
end

-- index_status runs ctxd.indexStatus. opts: skipped (list skipped paths).
function M.index_status(opts, on_result)
  run("index_status", opts, on_result, simple_builder({ "skipped" }))
end

-- verify runs ctxd.verify. opts: mode ("stream" or "ledger"),
-- workspace_folder.
function M.verify(opts, on_result)
  run("verify", opts, on_result, simple_builder({ "mode", "workspace_folder" }))
end

-- record_execution runs ctxd.recordExecution. opts: thread_id, turn_id,
-- output, workspace_folder.
function M.record_execution(opts, on_result)
  run("record_execution", opts, on_result, simple_builder({ "output", "thread_id", "turn_id", "workspace_folder" }))
end

-- change runs :CtxdChange's loop on a buffer: ctxd renders a diff
-- prompt, the configured model (vim.g.ctxd.change) answers through curl,
-- ctxd checks the answer, a rejection is retried with its error_context
-- as last_error (max_retries times), and an accepted change opens a diff
-- preview whose accept applies it. opts: intent (required), bufnr, range,
-- constraints, user_selected_targets, ui. on_result(err, result) once at
-- the end: result.status is "applied" or "rejected" (by the user); err is
-- the last attempt's rejection ({ code = "CHANGE_...", message, advice,
-- error_context }), a refusal or a plugin error (CTXD_MODEL_ERROR,
-- CTXD_STALE, CTXD_CANCELLED, ...). See :help ctxd-change.
function M.change(opts, on_result)
  require("ctxd.change").start(opts, on_result)
end

-- change_accept applies the previewed change (the preview's ga).
function M.change_accept()
  return require("ctxd.change").accept()
end

-- change_reject closes the preview without changing anything (gr).
function M.change_reject()
  return require("ctxd.change").reject()
end

-- change_cancel stops the running change (:CtxdChangeCancel).
function M.change_cancel()
  return require("ctxd.change").cancel()
end

-- change_state returns the running change ({ phase, attempt,
-- max_attempts, chars, intent, thread_id, file, files, progress }) or
-- nil; User CtxdChange fires on every change of phase.
function M.change_state()
  return require("ctxd.change").state()
end

-- change_log returns the last change's log (every attempt with its
-- answer and verdict), or nil.
function M.change_log()
  return require("ctxd.change").log()
end

-- statusline is the statusline component: "" when no ctxd client serves
-- the buffer, else e.g. "ctxd 642/124000", with a marker for a soft-limit
-- warning, a hard-limit refusal or another refusal.
function M.statusline(bufnr)
  return require("ctxd.status").text(bufnr)
end

-- progress returns the server's running work-done progress for the
-- client of bufnr (nil: current buffer), the newest when several run:
-- { title, message, percentage }, e.g. { title = "ctxd: indexing",
-- message = "1,234/10,595 files", percentage = 11 }; nil when none runs.
-- User CtxdProgress fires on every change.
function M.progress(bufnr)
  local c = client.get(bufnr)
  return c and require("ctxd.progress").get(c.id) or nil
end

-- budget_state returns the statusline's last budget state of bufnr (nil:
-- current buffer): { report, counts } or { refusal } or { error } or
-- { pending }, or nil when none.
function M.budget_state(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  return require("ctxd.status").get(bufnr)
end

-- attach starts or reuses the ctxd client of bufnr's workspace and
-- attaches it: returns the client id, or nil and an error.
function M.attach(bufnr)
  return client.attach(bufnr)
end

-- start_failed_line is the one line auto_attach shows for a server it
-- could not start: the reason, cut to fit the screen, and where the rest
-- is (:checkhealth ctxd reports the binary, its version and protocol).
function M.start_failed_line(err, columns)
  columns = columns or (errors.message_width() + 1)
  local suffix = " (:checkhealth ctxd)"
  if err.missing then
    -- The path loses its start, not the words that say what happened.
    local head = "ctxd: server not found: "
    local room = columns - 1 - vim.fn.strdisplaywidth(head .. suffix)
    return errors.one_line(head .. errors.tail(err.missing, math.max(room, 8)) .. suffix, columns)
  end
  local room = math.max(columns - vim.fn.strdisplaywidth(suffix), 12)
  return errors.one_line(errors.one_line("ctxd: " .. tostring(err.message or ""), room) .. suffix, columns)
end

-- auto_attach is the plugin's autocmd callback: attach when the
-- auto_attach option is on. A server that cannot start (a missing
-- binary, another protocol) is reported once, as a one-line warning
-- shown after the autocommand: an error raised inside it made Neovim
-- print "Error detected while processing FileType Autocommands" and wait
-- for ENTER.
local reported_start = {}
function M.auto_attach(bufnr)
  local cfg = config.get()
  if not cfg.auto_attach then
    return
  end
  local id, err = client.attach(bufnr)
  if not id and err and err.code == errors.kinds.START_FAILED.code and not reported_start[err.message] then
    reported_start[err.message] = true
    vim.schedule(function()
      vim.notify(M.start_failed_line(err), vim.log.levels.WARN)
    end)
  end
end

-- get_client returns the ctxd client attached to bufnr, or nil.
function M.get_client(bufnr)
  return client.get(bufnr)
end

-- is_refusal reports whether an err of on_result is a refusal.
M.is_refusal = errors.is_refusal

-- last_request returns the last command the API sent ({ command,
-- arguments, bufnr, client_id }), for debugging; nil before the first.
function M.last_request()
  return client.last_request()
end

return M
