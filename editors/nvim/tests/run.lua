-- The plugin's test suite: a real headless Neovim with the real ctxd
-- binary on a temporary copy of testdata/example. Started by tests/run.sh,
-- which puts the binary first on PATH and sets CTXD_NVIM_DIR (the plugin)
-- and CTXD_EXAMPLE (the workspace to copy). Prints one line per test to
-- stdout; exits with :cquit 1 on any failure, :qa! when all pass.
local plugin_dir = assert(vim.env.CTXD_NVIM_DIR, "CTXD_NVIM_DIR is not set (run tests/run.sh)")
local example = assert(vim.env.CTXD_EXAMPLE, "CTXD_EXAMPLE is not set (run tests/run.sh)")
local uv = vim.uv or vim.loop

local function out(s)
  io.stdout:write(s .. "\n")
  io.stdout:flush()
end

local function main()
  local tests = {}
  local function test(name, fn)
    table.insert(tests, { name = name, fn = fn })
  end

  -- Assertions ---------------------------------------------------------------

  local function fail(msg)
    error(msg, 3)
  end

  local function eq(want, got, what)
    if not vim.deep_equal(want, got) then
      fail(string.format("%s: (-want +got)\n- %s\n+ %s", what or "value", vim.inspect(want), vim.inspect(got)))
    end
  end

  local function ok(v, what)
    if not v then
      fail((what or "condition") .. ": got " .. vim.inspect(v))
    end
  end

  local function has_line(lines, pattern, what)
    for _, l in ipairs(lines) do
      if l:find(pattern, 1, true) then
        return
      end
    end
    fail(string.format("%s: no line contains %q in:\n%s", what or "lines", pattern, table.concat(lines, "\n")))
  end

  local function wait_for(ms, cond, what)
    if not vim.wait(ms, cond, 20) then
      fail(string.format("timed out after %d ms waiting for %s", ms, what))
    end
  end

  -- Workspace ----------------------------------------------------------------

  local tmp = vim.fn.tempname()
  vim.fn.mkdir(tmp, "p")
  local ws = tmp .. "/ws"
  local ws2 = tmp .. "/ws2"

  local function copy_tree(from, to)
    local res = vim.fn.system({ "cp", "-R", from, to })
    assert(vim.v.shell_error == 0, "cp failed: " .. res)
  end

  local function read(path)
    return table.concat(vim.fn.readfile(path, "b"), "\n")
  end

  local function write(path, text)
    vim.fn.writefile(vim.split(text, "\n", { plain = true }), path, "b")
  end

  copy_tree(example, ws)
  copy_tree(example, ws2)
  do
    -- ws2's policy leaves the web namespace out: web/src/api.ts is refused.
    local path = ws2 .. "/.ctxd/config.json"
    local text = read(path)
    local from = '"allowed_context_namespaces": ["docs", "service", "web"]'
    local i, j = text:find(from, 1, true)
    assert(i, "testdata/example/.ctxd/config.json changed: " .. from .. " not found")
    write(path, text:sub(1, i - 1) .. '"allowed_context_namespaces": ["docs", "service"]' .. text:sub(j + 1))
  end

  -- Editor -------------------------------------------------------------------

  vim.o.hidden = true
  vim.o.swapfile = false
  vim.cmd("filetype on")
  vim.g.ctxd = { debounce_ms = 20 }
  vim.cmd("runtime plugin/ctxd.lua")

  -- Every change of a ctxd client's progress (User CtxdProgress), recorded
  -- from before the first client starts: the example's first scan is
  -- over in a moment.
  local progress_seen = {}
  vim.api.nvim_create_autocmd("User", {
    pattern = "CtxdProgress",
    callback = function()
      for _, c in ipairs(require("ctxd.client").all()) do
        table.insert(progress_seen, { client_id = c.id, text = require("ctxd.progress").text(c.id) or "" })
      end
    end,
  })

  local notes = {}
  vim.notify = function(msg, level)
    table.insert(notes, { msg = msg, level = level })
  end

  -- vim.ui.input answers from intent_answers, in order (vim.NIL: nil, as
  -- <Esc> gives), then "" (no intent); intent_prompts records its
  -- prompts. :CtxdBuild and :CtxdPrompt ask for an intent.
  local intent_answers, intent_prompts = {}, {}
  vim.ui.input = function(opts, on_confirm)
    table.insert(intent_prompts, opts.prompt)
    local answer = table.remove(intent_answers, 1)
    if answer == nil then
      answer = ""
    elseif answer == vim.NIL then
      answer = nil
    end
    on_confirm(answer)
  end

  local ctxd = require("ctxd")
  local client = require("ctxd.client")
  local commands = require("ctxd.commands")
  local config = require("ctxd.config")
  local contract = require("ctxd.contract")
  local render = require("ctxd.render")
  local request = require("ctxd.request")
  local root = require("ctxd.root")

  local store_path = ws .. "/internal/store/store.go"
  local store_buf

  local function results_buf()
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_get_name(b) == commands.results_name then
        return b
      end
    end
    return nil
  end

  -- focus closes the results window and makes buf current.
  local function focus(buf)
    local r = results_buf()
    if r then
      vim.cmd("bwipeout! " .. r)
    end
    vim.api.nvim_set_current_buf(buf)
  end

  -- results runs an Ex command and returns the lines it put in the
  -- results buffer.
  local function results(cmd)
    local r = results_buf()
    if r then
      vim.cmd("bwipeout! " .. r)
    end
    vim.cmd(cmd)
    local lines
    wait_for(20000, function()
      local b = results_buf()
      if not b then
        return false
      end
      lines = vim.api.nvim_buf_get_lines(b, 0, -1, false)
      return (lines[1] or ""):match("^# ctxd") ~= nil
    end, "the results of :" .. cmd .. " (notifications: " .. vim.inspect(notes) .. ")")
    return lines
  end

  -- call runs a Lua API function and returns (err, result).
  local function call(fn, opts)
    local done, err, result = false, nil, nil
    fn(opts, function(e, r)
      done, err, result = true, e, r
    end)
    wait_for(20000, function()
      return done
    end, "the callback")
    return err, result
  end

  local function ready_client(buf)
    local c
    wait_for(15000, function()
      c = client.get(buf)
      return c ~= nil and c.initialized == true
    end, "an initialized ctxd client for buffer " .. buf)
    return c
  end

  -- check_shape verifies that a decoded result has every required field of
  -- its contract type.
  local function check_shape(type_name, value)
    local t = contract.types[type_name]
    ok(t, "contract type " .. type_name)
    local optional = {}
    for _, f in ipairs(t.optional or {}) do
      optional[f] = true
    end
    for _, f in ipairs(t.fields or t) do
      if not optional[f] and value[f] == nil then
        fail(type_name .. " result lacks field " .. f)
      end
    end
  end

  local function notes_at(level)
    local outl = {}
    for _, n in ipairs(notes) do
      if n.level == level then
        table.insert(outl, n.msg)
      end
    end
    return outl
  end

  -- restoring runs fn, then restore whatever happened, and fails as fn did.
  local function restoring(fn, restore)
    local success, err = xpcall(fn, debug.traceback)
    restore()
    if not success then
      error(err, 0)
    end
  end

  -- Pure helpers ---------------------------------------------------------------

  test("config: defaults, vim.g.ctxd and setup() merge; bad values are reported", function()
    local cfg, problems = config.resolve(nil, nil)
    eq({}, problems, "problems of the defaults")
    eq({ "ctxd", "serve", "--stdio" }, cfg.cmd, "default cmd")
    eq("diff", cfg.purpose, "default purpose")
    eq(true, cfg.auto_attach, "default auto_attach")
    eq(nil, cfg.filetypes, "default filetypes")

    cfg = config.resolve({ cmd = { "/opt/ctxd" }, debounce_ms = 5, markers = { warn = "W" } }, { debounce_ms = 7 })
    eq({ "/opt/ctxd" }, cfg.cmd, "a cmd list replaces the default, never merged by position")
    eq(7, cfg.debounce_ms, "setup() wins over vim.g.ctxd")
    eq("W", cfg.markers.warn, "markers merge key by key")
    eq("✗", cfg.markers.refuse, "other markers keep their default")

    cfg, problems = config.resolve({ purpose = "bogus", colour = 1, model = { max_input_tokens = 1000 } }, nil)
    eq("diff", cfg.purpose, "an invalid purpose keeps the default")
    eq({ max_input_tokens = 1000 }, cfg.model, "model table")
    eq(2, #problems, "problems: " .. vim.inspect(problems))
    ok(problems[1]:find('unknown option "colour"', 1, true), problems[1])
    ok(problems[2]:find('option "purpose" must be one of intent, plan, diff', 1, true), problems[2])

    _, problems = config.resolve({ model = { bogus = 1 } }, nil)
    eq(1, #problems, "unknown model field")
    _, problems = config.resolve("nope", nil)
    eq({ "vim.g.ctxd must be a table, got string" }, problems, "vim.g.ctxd not a table")
  end)

  test("request: position encodings count units like the server", function()
    local cases = {
      -- line, byte column, utf-8, utf-16, utf-32
      { "abc", 2, 2, 2, 2 },
      { "abc", 99, 3, 3, 3 }, -- clamped to the line
      { "abc", -1, 0, 0, 0 },
      { "é1", 2, 2, 1, 1 },
      { "é1", 1, 0, 0, 0 }, -- inside é: rounded down
      { "a😀b", 5, 5, 3, 2 }, -- astral: two UTF-16 units
      { "a😀b", 6, 6, 4, 3 },
      { "a😀b", 3, 1, 1, 1 }, -- inside the emoji
      { "€x", 3, 3, 1, 1 },
      { "\255\254x", 3, 3, 3, 3 }, -- invalid bytes: one unit each
      { "\237\160\128x", 4, 4, 4, 4 }, -- encoded surrogate: invalid
      { "\192\175", 2, 2, 2, 2 }, -- overlong: invalid
      { "\240\159\152", 3, 3, 3, 3 }, -- truncated astral: invalid
    }
    for _, c in ipairs(cases) do
      local what = string.format("%q at %d", c[1], c[2])
      eq(c[3], request.units(c[1], c[2], "utf-8"), what .. " utf-8")
      eq(c[4], request.units(c[1], c[2], "utf-16"), what .. " utf-16")
      eq(c[5], request.units(c[1], c[2], "utf-32"), what .. " utf-32")
    end
    eq(2, request.char_end("é😀", 0), "char_end of é")
    eq(6, request.char_end("é😀", 2), "char_end of 😀")
    eq(6, request.char_end("é😀", 4), "char_end inside 😀")
    eq(6, request.char_end("é😀", 99), "char_end past the end")
    eq(0, request.char_end("", 0), "char_end of an empty line")
  end)

  test("request: ranges and visual selections", function()
    local lines = { "package x", "// é😀 List", "func f() {}" }
    local get = function(row)
      return lines[row]
    end
    eq({ start = { line = 0, character = 0 }, ["end"] = { line = 1, character = 11 } },
      request.range({ 1, 2 }, get, "utf-16"), "line range, utf-16 end of line 2")
    eq({ start = { line = 0, character = 0 }, ["end"] = { line = 1, character = 14 } },
      request.range({ 2, 1 }, get, "utf-8"), "backwards line range, utf-8")
    eq({ start = { line = 1, character = 3 }, ["end"] = { line = 1, character = 8 } },
      request.range({ start = { 2, 3 }, ["end"] = { 2, 11 } }, get, "utf-16"), "byte span to utf-16")
    eq({ start = { line = 1, character = 3 }, ["end"] = { line = 1, character = 7 } },
      request.range({ start = { 2, 11 }, ["end"] = { 2, 3 } }, get, "utf-32"), "backwards span to utf-32")
    local r, msg = request.range({ start = { 0, 0 }, ["end"] = { 1, 0 } }, get, "utf-16")
    eq(nil, r, "row 0 is invalid")
    ok(msg, "message for row 0")
    eq({ start = { 2, 3 }, ["end"] = { 2, 11 } }, request.visual_range("v", { 2, 10 }, { 2, 3 }, get),
      "characterwise selection ends past its last character")
    eq({ 1, 3 }, request.visual_range("V", { 3, 0 }, { 1, 5 }, get), "linewise selection")
    eq({ 1, 2 }, request.visual_range("\22", { 1, 4 }, { 2, 1 }, get), "blockwise selection")
  end)

  test("request: build request fields", function()
    local ctx = {
      uri = "file:///w/a.go",
      encoding = "utf-16",
      config = config.resolve({ model = "gpt-4o-mini" }, nil),
      command = "build_context",
      get_line = function()
        return "abc"
      end,
    }
    local req, err = request.build({
      purpose = "plan",
      intent = "sort by name",
      constraints = { "MUST_NOT add dependencies", { scope = "project", id = "p1", text = "keep it small" } },
      model = { max_input_tokens = 64000 },
      last_error = "boom",
      user_selected_targets = { "a.go", { path = "b.go", symbol = "B" } },
      range = { 1, 1 },
      ui = true,
      bufnr = 3,
    }, ctx)
    eq(nil, err, "error")
    eq({
      purpose = "plan",
      active_file = "file:///w/a.go",
      selection = { uri = "file:///w/a.go", range = { start = { line = 0, character = 0 }, ["end"] = { line = 0, character = 3 } } },
      intent = { id = "user", text = "sort by name" },
      constraints = {
        { scope = "user", id = "nvim-1", text = "MUST_NOT add dependencies" },
        { scope = "project", id = "p1", text = "keep it small" },
      },
      model = { model = "gpt-4o-mini", max_input_tokens = 64000 },
      last_error = { message = "boom" },
      user_selected_targets = { { path = "a.go" }, { path = "b.go", symbol = "B" } },
    }, req, "request")

    -- No field the user did not give (issue 32): an empty intent is none,
    -- and symbols typed after a command are target_symbols of a plan step
    -- without text (a text is a line of the system block).
    req = request.build({ intent = "  " }, ctx)
    eq(nil, req.intent, "an empty intent is not sent")
    eq({ id = "symbols", target_symbols = { "Store.List" } },
      request.symbols_plan_step({ "Store.List" }), "the plan step of typed symbols: VS Code's")
    req = request.build({ active_file = false, purpose = "intent", intent = { id = "i1", text = "t" } }, ctx)
    eq(nil, req.active_file, "active_file = false leaves it out")
    eq("diff", request.build({}, vim.tbl_extend("force", ctx, { config = config.defaults })).purpose, "default purpose")

    req, err = request.build({ bogus = 1 }, ctx)
    eq(nil, req, "unknown option")
    ok(err:find('unknown option "bogus"', 1, true), err)
    req, err = request.build({ template_id = "x" }, ctx)
    ok(err and err:find("template_id", 1, true), "template_id outside render_prompt: " .. tostring(err))
    req = request.build({ template_id = "default-diff" }, vim.tbl_extend("force", ctx, { command = "render_prompt" }))
    eq("default-diff", req.template_id, "template_id for render_prompt")
    req, err = request.build({ model = { colour = "red" } }, ctx)
    ok(err and err:find("colour", 1, true), "unknown model field: " .. tostring(err))
    req = request.build({ thread = { thread_id = "t", turn_id = "1" } }, ctx)
    eq("[]", vim.json.encode(req.thread.declared_refs), "declared_refs is sent as a JSON array")
    for _, f in ipairs(vim.tbl_keys(request.build({ plan_step = { target_symbols = { "X" } } }, ctx))) do
      ok(config.contains(contract.types.BuildRequest.fields, f), "field " .. f .. " is in the contract")
    end
  end)

  test("render: results become Markdown lines", function()
    local result = {
      bundle = {
        bundle_id = "b-1", purpose = "diff", correlation_id = "c-1", created_at = "2025-01-01T00:00:00Z",
        model = { provider = "openai", model = "gpt-4o" },
        blocks = {
          { block_type = "file", priority = "P0", title = "a|b.go", content = "x `a`\n```\ny\n",
            meta = { path = "a|b.go", symbol = vim.NIL, byte_size = 12, line_count = 3 } },
        },
      },
      manifest = {
        bundle_id = "b-1", correlation_id = "c-1", purpose = "diff",
        selection = {
          target_files = { "a|b.go" }, target_symbols = { "F" },
          included_files = { { path = "a|b.go", reason = "target", byte_size = 12, encoding = "utf-8" } },
          excluded_candidates = { { path = ".env", reason = "secret_risk" } },
        },
        fingerprints = { bundle_fingerprint = "f1", project_index_fingerprint = "f2", config_fingerprint = "f3" },
      },
      redaction_report = { redactions = { { type = "path_excluded", target = ".env", reason = "deny_rule", details = "deny:21" } } },
      budget_report = { estimated_input_tokens = 10, hard_limit_tokens = 100, soft_limit_tokens = 80,
        max_input_tokens = 110, reserve_output_tokens = 10, decision = "ok", notes = { "estimator: e" } },
    }
    local lines = render.build(result, { file = "a.go" })
    has_line(lines, "# ctxd build")
    has_line(lines, "## Budget: ok")
    has_line(lines, "- estimated input tokens: 10 of 100 (hard limit); soft limit 80")
    has_line(lines, "| 1 | P0 | file | a\\|b.go | a\\|b.go | 12 | 3 |")
    has_line(lines, "| .env | secret_risk |")
    has_line(lines, "| path_excluded | .env | deny_rule | deny:21 |")
    has_line(lines, "- symbols: F")
    has_line(lines, "````go")
    has_line(lines, "- note: estimator: e")
    lines = render.build(result, { show_content = false })
    for _, l in ipairs(lines) do
      ok(not l:find("## Contents", 1, true), "no contents when show_content is false")
    end
    eq({ "## system", "", "s1", "s2", "", "## user", "", "u" },
      render.prompt_text({ messages = { { role = "system", content = "s1\ns2" }, { role = "user", content = "u" } } }),
      "prompt text")
    local m = { warn = "!", refuse = "X", pending = "…", error = "?" }
    eq("", render.statusline(nil, m), "no client")
    eq("ctxd …", render.statusline({ pending = true }, m), "pending")
    eq("ctxd 5/10", render.statusline({ report = { estimated_input_tokens = 5, hard_limit_tokens = 10, decision = "ok" } }, m), "ok")
    eq("ctxd 9/10 !", render.statusline({ report = { estimated_input_tokens = 9, hard_limit_tokens = 10, decision = "warn_soft_limit" } }, m), "warn")
    eq("ctxd 11/10 X", render.statusline({ report = { estimated_input_tokens = 11, hard_limit_tokens = 10, decision = "refuse_hard_limit" } }, m), "refuse")
    eq("ctxd X REFUSE_SECRET_RISK", render.statusline({ refusal = { code = "REFUSE_SECRET_RISK" } }, m), "refusal")
    eq("Store.Put (method) a.go:32", render.candidate({ symbol = "Store.Put", kind = "method", path = "a.go",
      range = { start = { line = 31, character = 0 } } }), "candidate label")
  end)

  test("render: a block's bytes are its own content's, its lines the server's, line numbers 1-based", function()
    -- A sliced block: the meta describes the whole file (7832 bytes, 241
    -- lines as the server counts them); the bytes are what is sent, the
    -- lines the server's count, never one counted here (issue 32: 59
    -- here, 60 in VS Code, for the same file).
    local content = table.concat({ "func (s *Store) Put(it Item) {", "\ts.mu.Lock()", "\tdefer s.mu.Unlock()",
      "\tif it.SKU == \"\" {", "\t\treturn ErrNotFound", "\t}", "\ts.items[it.SKU] = it", "}" }, "\n") .. "\n"
    local lines = render.build({ bundle = { blocks = { { block_type = "file", priority = "P0",
      title = "store.go (TARGET_REGION_ONLY: lines 31-38 of 240)", content = content,
      meta = { path = "store.go", byte_size = 7832, line_count = 241 } } } } }, { show_content = false })
    has_line(lines, string.format("| store.go | %d | 241 |", #content), "the block's own bytes, the server's lines")
    has_line(lines, render.blocks_legend, "the legend says what the numbers count")
    -- A whole file of 59 lines ending in a line break: the server says 60
    -- (an editor's count), wc -l 59; the table says what the server says.
    local whole = string.rep("x\n", 59)
    lines = render.build({ bundle = { blocks = { { block_type = "file", priority = "P0", title = "a.go",
      content = whole, meta = { path = "a.go", byte_size = #whole, line_count = 60 } } } } }, { show_content = false })
    has_line(lines, string.format("| a.go | %d | 60 |", #whole), "the server's count of a whole file")
    -- LSP ranges are 0-based; people read 1-based lines.
    eq("lines 3-8", render.lines_label({ start = { line = 2, character = 0 }, ["end"] = { line = 7, character = 12 } }), "lines")
    eq("lines 3-8", render.lines_label({ start = { line = 2, character = 0 }, ["end"] = { line = 8, character = 0 } }),
      "an end at column 0 ends on the line before")
    eq("line 49", render.lines_label({ start = { line = 48, character = 3 }, ["end"] = { line = 48, character = 8 } }), "one line")
    lines = render.budget({ budget_report = { decision = "ok" } }, { file = "a.go", fallback = true,
      selection = { start = { line = 31, character = 0 }, ["end"] = { line = 35, character = 2 } } })
    has_line(lines, "- file: a.go " .. render.fallback_note, "the file a fallback used")
    has_line(lines, "- selection: lines 32-36", "the selection, 1-based")
  end)

  test("render and errors: a long refusal is shown whole, its budget labelled", function()
    local err = {
      code = "REFUSE_CONTEXT_TOO_LARGE",
      message = "the required context (system, constraints and targets, after slicing) needs 249 tokens but the hard limit is 190 (max_input_tokens 200 - response_token_reserve 10)",
      advice = "narrow the scope: select a region or name a symbol (target_symbols) instead of whole files, target fewer files, or use a model with a larger input window",
      budget_report = { estimated_input_tokens = 368, hard_limit_tokens = 190, max_input_tokens = 200,
        reserve_output_tokens = 10, soft_limit_tokens = 152, decision = "refuse_hard_limit" },
      candidates = { { symbol = "Item", kind = "struct", path = "a.go", range = { start = { line = 13, character = 5 } } } },
    }
    local lines = render.refusal(err, { file = "cmd/main.go" }, 60)
    for _, l in ipairs(lines) do
      ok(vim.fn.strdisplaywidth(l) <= 60, "wrapped to 60 cells: " .. l)
    end
    local text = table.concat(lines, " "):gsub("%s+", " ")
    ok(text:find("REFUSE_CONTEXT_TOO_LARGE: " .. err.message, 1, true), "code and message in: " .. text)
    ok(text:find("Advice: " .. err.advice, 1, true), "advice in: " .. text)
    ok(text:find("File: cmd/main.go", 1, true), "file in: " .. text)
    ok(text:find("Budget: 368 tokens estimated for the required blocks after slicing", 1, true), "budget in: " .. text)
    ok(text:find("the number the statusline shows", 1, true), "the statusline's number is named: " .. text)
    ok(text:find("counts the required blocks alone (249 tokens)", 1, true), "the message's count is named: " .. text)
    ok(text:find("Help: " .. render.refusal_help, 1, true), "the help on refusal codes: " .. text)
    has_line(lines, "- Item (struct) a.go:14", "candidates with 1-based lines")
    -- The notification names both numbers; only when they differ.
    eq("ctxd: 249 tokens = the required blocks alone; the statusline's 368/190 = the estimate, which also counts"
      .. " the P1 context (:help ctxd-statusline)", render.refusal_budget_note(err), "the notification's note")
    local same = vim.deepcopy(err)
    same.budget_report.estimated_input_tokens = 249
    eq(nil, render.refusal_budget_note(same), "no note when the message and the estimate agree")
    text = table.concat(render.refusal(same, nil, 60), " "):gsub("%s+", " ")
    ok(text:find("The message above gives the same number", 1, true), "same number: " .. text)
    eq(nil, render.refusal_budget_note({ code = "REFUSE_SECRET_RISK", message = "m", advice = "a" }), "no budget report")
    local ok_report = vim.deepcopy(err)
    ok_report.budget_report.decision = "ok"
    eq(nil, render.refusal_budget_note(ok_report), "not over the hard limit")
    lines = render.budget({ budget_report = err.budget_report })
    has_line(lines, "- estimated input tokens: 368 of 190 (hard limit); soft limit 152")
    has_line(lines, "- " .. render.over_hard_limit, "a refuse_hard_limit report says what its estimate counts")

    local errors = require("ctxd.errors")
    eq(false, errors.fits("CODE: short\nadvice", 80, 1), "two lines with cmdheight 1 need ENTER")
    eq(true, errors.fits("CODE: short\nadvice", 80, 2), "two lines with cmdheight 2")
    eq(true, errors.fits("CODE: short", 80, 1), "one short line")
    eq(false, errors.fits(string.rep("x", 80), 80, 1), "a line as wide as the screen")
    eq(false, errors.fits("a\nb\nc", 80, 1), "three lines with cmdheight 1")
    eq(true, errors.fits("a\nb\nc", 80, 3), "three lines with cmdheight 3")
  end)

  test("config: the request key follows purpose and model only; a model option alone is sent", function()
    local a = config.request_key({ purpose = "diff", model = { provider = "openai", max_input_tokens = 1000 }, debounce_ms = 1 })
    local b = config.request_key({ model = { max_input_tokens = 1000, provider = "openai" }, purpose = "diff", debounce_ms = 2 })
    eq(a, b, "same purpose and model, other options differ")
    ok(a ~= config.request_key({ purpose = "diff", model = { provider = "openai", max_input_tokens = 999 } }), "model changed")
    ok(a ~= config.request_key({ purpose = "plan", model = { provider = "openai", max_input_tokens = 1000 } }), "purpose changed")
    eq({ max_input_tokens = 5 }, request.model(nil, { max_input_tokens = 5 }), "no configured model: the option's")
    eq({ model = "m", max_input_tokens = 5 }, request.model("m", { max_input_tokens = 5 }), "merged over a name")
  end)

  test("root: markers and eligibility", function()
    eq(ws, root.find(store_path, config.defaults.root_markers), "root of store.go is the folder holding .ctxd")
    local bare = tmp .. "/bare/sub"
    vim.fn.mkdir(bare, "p")
    eq(tmp .. "/fallback", root.find(bare .. "/x.go", { ".ctxd-none-such" }, tmp .. "/fallback"), "fallback without markers")
    eq({ ".ctxd", ".git", "go.mod" }, root.flat({ ".ctxd", { ".git", "go.mod" }, ".git" }), "flat markers")
    local scratch = vim.api.nvim_create_buf(false, true)
    eq(false, root.eligible(scratch, nil), "a scratch buffer is not served")
  end)

  -- :CtxdChange, pure parts ------------------------------------------------------

  test("change: the change option is validated; a bad one stops :CtxdChange", function()
    local cfg, problems = config.resolve(nil, nil)
    eq({}, problems, "problems of the defaults")
    eq("openai", cfg.change.provider, "default provider")
    eq(2, cfg.change.max_retries, "default max_retries")
    eq(4096, cfg.change.max_tokens, "default max_tokens")
    eq("curl", cfg.change.curl, "default curl")
    eq({ accept = "ga", reject = "gr", next_file = "]f", prev_file = "[f" }, cfg.change.keys, "default keys")
    eq(nil, cfg.change.base_url, "base_url follows the provider")
    cfg, problems = config.resolve({ change = { provider = "anthropic", keys = { accept = "<leader>a" } } },
      { change = { api_key_cmd = { "pass", "show", "anthropic" }, max_retries = 0 } })
    eq({}, problems, "problems")
    eq("anthropic", cfg.change.provider, "provider from vim.g.ctxd")
    eq(0, cfg.change.max_retries, "max_retries from setup()")
    eq("<leader>a", cfg.change.keys.accept, "keys merge key by key")
    eq("gr", cfg.change.keys.reject, "other keys keep their default")
    eq({ "pass", "show", "anthropic" }, cfg.change.api_key_cmd, "api_key_cmd")
    local bad = {
      { provider = "gemini" }, { base_url = "api.openai.com" }, { api_key_env = "NOT A NAME" },
      { api_key_cmd = "pass show openai" }, { max_retries = -1 }, { max_tokens = 0 }, { timeout_ms = 0 },
      { keys = { apply = "ga" } }, { colour = 1 },
    }
    for _, b in ipairs(bad) do
      cfg, problems = config.resolve({ change = b }, nil)
      eq(1, #problems, "one problem for " .. vim.inspect(b))
      ok(problems[1]:find('option "change" must be', 1, true), problems[1])
      eq("openai", cfg.change.provider, "the default is kept for " .. vim.inspect(b))
    end
    -- :CtxdChange refuses to run on a change option it dropped, rather than
    -- send the prompt to the default provider.
    restoring(function()
      ctxd.setup({ change = { base_url = "http://127.0.0.1:1/v1", max_retries = "2" } })
      ok(config.invalid("change"), "config.invalid reports the change option")
      local got
      ctxd.change({ intent = "x", bufnr = vim.api.nvim_get_current_buf() }, function(e)
        got = e
      end)
      eq("CTXD_INVALID_OPTIONS", got and got.code, "the error (" .. vim.inspect(got) .. ")")
      ok(got.message:find("sends nothing", 1, true), got.message)
      eq(nil, ctxd.change_state(), "nothing runs")
    end, function()
      ctxd.setup({})
    end)
    eq(nil, config.invalid("change"), "valid again")
  end)

  test("change: text edits are applied in the server's position encoding", function()
    local textedit = require("ctxd.textedit")
    -- byte_col is the inverse of request.units at character boundaries.
    for _, line in ipairs({ "abc", "é1€x", "a😀b😀", "\255x" }) do
      for _, enc in ipairs({ "utf-8", "utf-16", "utf-32" }) do
        local i = 0
        while i <= #line do
          eq(i, textedit.byte_col(line, request.units(line, i, enc), enc), string.format("%q col %d %s", line, i, enc))
          local n = request.seq_len(line, i + 1)
          i = i + math.max(n, 1)
        end
      end
    end
    eq(1, textedit.byte_col("a😀b", 2, "utf-16"), "inside a surrogate pair: the start of the character")
    eq(1, textedit.byte_col("a😀b", 3, "utf-8"), "inside a UTF-8 sequence: the start of the character")
    eq(6, textedit.byte_col("a😀b", 99, "utf-16"), "past the end: the end of the line")
    local function r(l1, c1, l2, c2)
      return { start = { line = l1, character = c1 }, ["end"] = { line = l2, character = c2 } }
    end
    eq("a😀c\nline2\n", textedit.apply("a😀b\nline2\n", { { range = r(0, 3, 0, 4), newText = "c" } }, "utf-16"), "utf-16")
    eq("a😀c\nline2\n", textedit.apply("a😀b\nline2\n", { { range = r(0, 2, 0, 3), newText = "c" } }, "utf-32"), "utf-32")
    eq("a😀c\nline2\n", textedit.apply("a😀b\nline2\n", { { range = r(0, 5, 0, 6), newText = "c" } }, "utf-8"), "utf-8")
    eq("x\r\nz\r\n", textedit.apply("x\r\ny\r\n", { { range = r(1, 0, 1, 1), newText = "z" } }, "utf-16"), "CRLF lines")
    eq("x\rz\r", textedit.apply("x\ry\r", { { range = r(1, 0, 1, 1), newText = "z" } }, "utf-16"), "CR lines")
    eq("ab!\nc\n?", textedit.apply("ab\nc\n", {
      { range = r(0, 99, 0, 99), newText = "!" }, { range = r(9, 0, 9, 0), newText = "?" },
    }, "utf-16"), "clamped: past the line, past the text")
    eq("12ab\n", textedit.apply("ab\n", { { range = r(0, 0, 0, 0), newText = "1" }, { range = r(0, 0, 0, 0), newText = "2" } },
      "utf-16"), "inserts at one place keep their order")
    eq("a\nB\nc\nD\n", textedit.apply("a\nb\nc\nd\n", { { range = r(3, 0, 3, 1), newText = "D" }, { range = r(1, 0, 1, 1), newText = "B" } },
      "utf-16"), "edits in any order")
    local t, msg = textedit.apply("abc", { { range = r(0, 0, 0, 2), newText = "" }, { range = r(0, 1, 0, 3), newText = "" } }, "utf-16")
    eq(nil, t, "overlapping edits")
    ok(msg and msg:find("overlap", 1, true), tostring(msg))
    eq({ { "a", "b" }, true }, { textedit.to_lines("a\nb\n") }, "to_lines with a final break")
    eq({ { "a", "b" }, false }, { textedit.to_lines("a\r\nb") }, "to_lines without one")
    eq({ {}, false }, { textedit.to_lines("") }, "to_lines of nothing")
    eq("a\r\nb\r\n", textedit.join({ "a", "b" }, true, textedit.line_ending("dos")), "join, dos")
    eq("a\nb", textedit.join({ "a", "b" }, false, textedit.line_ending("unix")), "join without eol")
    eq("sha256:" .. string.rep("0", 0) .. vim.fn.sha256("abc"), textedit.sha256("abc"), "sha256")
  end)

  test("change: request bodies, curl's arguments (no key) and the streamed answers", function()
    local model = require("ctxd.model")
    local s = model.settings(config.defaults.change)
    eq("https://api.openai.com/v1/chat/completions", s.url, "OpenAI's endpoint")
    eq("OPENAI_API_KEY", s.api_key_env, "OpenAI's key variable")
    eq(true, s.needs_key, "api.openai.com needs a key")
    local a = model.settings(vim.tbl_extend("force", config.defaults.change, { provider = "anthropic" }))
    eq("https://api.anthropic.com/v1/messages", a.url, "Anthropic's endpoint")
    eq("ANTHROPIC_API_KEY", a.api_key_env, "Anthropic's key variable")
    local l = model.settings(vim.tbl_extend("force", config.defaults.change, { base_url = "http://127.0.0.1:11434/v1/" }))
    eq("http://127.0.0.1:11434/v1/chat/completions", l.url, "Ollama through openai, trailing slash dropped")
    eq(false, l.needs_key, "a local server needs no key")
    eq("m", model.with_model({ model = "m" }, "gpt-4o"), "the configured model wins")
    eq("gpt-4o", model.with_model({}, "gpt-4o"), "else the bundle's")
    local none, err = model.with_model({}, nil)
    eq(nil, none, "no model")
    eq("CTXD_INVALID_OPTIONS", err.code, "no model: error")
    eq("https://***@example.com/v1", model.mask_url("https://user:pw@example.com/v1"), "userinfo masked")

    local messages = { { role = "system", content = "S" }, { role = "user", content = "U" } }
    s.model = "gpt-x"
    eq({ model = "gpt-x", stream = true, max_tokens = 4096, messages = messages }, vim.json.decode(model.body(s, messages)),
      "OpenAI body")
    a.model = "claude-x"
    eq({ model = "claude-x", stream = true, max_tokens = 4096, system = "S", messages = { { role = "user", content = "U" } } },
      vim.json.decode(model.body(a, messages)), "Anthropic body: the system message in system")

    local key = "sk-" .. vim.fn.sha256(tostring(uv.hrtime())):sub(1, 24)
    for _, st in ipairs({ s, a }) do
      local args = model.curl_args(st, "/tmp/body.json", true)
      for _, x in ipairs(args) do
        ok(not x:find(key, 1, true), "the key on the command line")
      end
      ok(config.contains(args, "--fail-with-body") and config.contains(args, "-N") and config.contains(args, "-sS"),
        "curl flags: " .. table.concat(args, " "))
      eq("-q", args[2], "curl reads no ~/.curlrc (-q must come first)")
      eq({ "--config", "-" }, { args[#args - 2], args[#args - 1] }, "the key is read from stdin")
      eq(st.url, args[#args], "the URL last")
      eq(false, config.contains(model.curl_args(st, "/tmp/body.json", false), "--config"), "no stdin config without a key")
    end
    ok(config.contains(model.curl_args(a, "/b", false), "anthropic-version: 2023-06-01"), "anthropic-version header")
    eq('header = "Authorization: Bearer ' .. key .. '"\n', model.key_config(s, key), "OpenAI's key header")
    eq('header = "x-api-key: a\\"b\\\\c"\n', model.key_config(a, 'a"b\\c'), "Anthropic's key header, quoted")

    local p = model.new_parser("openai")
    for _, line in ipairs({
      'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}', "",
      'data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\r', "",
      ": keep-alive",
      'data: {"choices":[{"index":0,"delta":{"content":"lo é"}}]}', "",
      'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}', "", "data: [DONE]", "",
    }) do
      p.feed(line)
    end
    eq("Hello é", p.finish(), "OpenAI stream")
    eq(7, model.chars("Hello é"), "characters, not bytes")
    p = model.new_parser("anthropic")
    for _, line in ipairs({
      "event: message_start", 'data: {"type":"message_start","message":{"content":[]}}', "",
      "event: content_block_delta", 'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}', "",
      "event: ping", 'data: {"type":"ping"}', "",
      "event: content_block_delta", 'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"b"}}', "",
      "event: message_stop", 'data: {"type":"message_stop"}', "",
    }) do
      p.feed(line)
    end
    eq("ab", p.finish(), "Anthropic stream")
    p = model.new_parser("anthropic")
    p.feed("event: error")
    p.feed('data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')
    eq({ nil, "Overloaded" }, { p.finish() }, "an error event")
    p = model.new_parser("openai")
    p.feed('{"choices":[{"message":{"role":"assistant","content":"whole"}}]}')
    eq("whole", p.finish(), "an answer that was not streamed")
    p = model.new_parser("anthropic")
    p.feed('{"content":[{"type":"text","text":"x"},{"type":"text","text":"y"}]}')
    eq("xy", p.finish(), "an Anthropic answer that was not streamed")
  end)

  -- End to end ---------------------------------------------------------------

  test("attach: one client per workspace root, position encoding negotiated", function()
    vim.cmd("edit " .. vim.fn.fnameescape(store_path))
    store_buf = vim.api.nvim_get_current_buf()
    local c = ready_client(store_buf)
    eq(ws, client.root_dir(c), "root_dir")
    eq("ctxd", c.name, "client name")
    vim.cmd("edit " .. vim.fn.fnameescape(ws .. "/cmd/inventory/main.go"))
    local c2 = ready_client(vim.api.nvim_get_current_buf())
    eq(c.id, c2.id, "a second file of the workspace reuses the client")
    local err, status = call(ctxd.index_status, { bufnr = store_buf })
    eq(nil, err, "indexStatus error")
    eq(client.encoding(c), status.position_encoding, "the plugin converts to the encoding the server uses")
    check_shape("IndexStatusResult", status)
    focus(store_buf)
  end)

  test("progress: the server's indexing progress is shown, then cleared", function()
    local c = ready_client(store_buf)
    local function texts()
      local out = {}
      for _, e in ipairs(progress_seen) do
        if e.client_id == c.id then
          table.insert(out, e.text)
        end
      end
      return out
    end
    wait_for(10000, function()
      local t = texts()
      return t[#t] == ""
    end, "the end of the indexing progress")
    local seen = texts()
    eq("ctxd: indexing ws", seen[1], "the begin names the folder (seen: " .. vim.inspect(seen) .. ")")
    local counted = false
    for _, t in ipairs(seen) do
      counted = counted or (t:match("^ctxd: indexing [%d,]+/[%d,]+ files$") or t:match("^ctxd: indexing %a+ [%d,]+/[%d,]+ files$")) ~= nil
    end
    ok(counted, "a report with files done/total in " .. vim.inspect(seen))
    eq(nil, ctxd.progress(store_buf), "no progress after the end")
  end)

  test("edit, then :CtxdBuild shows the buffer as edited", function()
    focus(store_buf)
    eq("// List returns all items sorted by SKU.", vim.api.nvim_buf_get_lines(store_buf, 48, 49, false)[1], "line 49")
    vim.api.nvim_buf_set_lines(store_buf, 48, 49, false, { "// List returns the items sorted by name, then SKU." })
    local lines = results("CtxdBuild")
    has_line(lines, "# ctxd build")
    has_line(lines, "- purpose: diff")
    has_line(lines, "## Budget: ok")
    has_line(lines, "| internal/store/store.go | target |")
    has_line(lines, "## Excluded candidates")
    has_line(lines, "## Redactions")
    has_line(lines, "// List returns the items sorted by name, then SKU.", "the unsaved edit is in the bundle")
    eq("markdown", vim.bo[results_buf()].filetype, "results filetype")
  end)

  test(":CtxdBuild plan", function()
    focus(store_buf)
    local lines = results("CtxdBuild plan")
    has_line(lines, "- purpose: plan")
    has_line(lines, "## Blocks")
    eq("plan", ctxd.last_request().arguments[1].purpose, "purpose sent")
    local items = vim.fn.getcompletion("CtxdBuild p", "cmdline")
    eq("plan", items[1], "purposes first: " .. vim.inspect(items))
    ok(config.contains(items, "Store.Put"), "then the workspace's symbols: " .. vim.inspect(items))
  end)

  test(":3,8CtxdBuild sends the lines as the selection", function()
    focus(store_buf)
    local lines = results("3,8CtxdBuild")
    has_line(lines, "# ctxd build")
    local line8 = vim.api.nvim_buf_get_lines(store_buf, 7, 8, false)[1]
    local sent = ctxd.last_request().arguments[1]
    eq({
      uri = vim.uri_from_bufnr(store_buf),
      range = { start = { line = 2, character = 0 }, ["end"] = { line = 7, character = #line8 } },
    }, sent.selection, "selection")
    eq(sent.active_file, sent.selection.uri, "selection.uri equals active_file")
  end)

  test("a ranged build targets the enclosing symbol", function()
    focus(store_buf)
    local lines = results("32,36CtxdBuild")
    has_line(lines, "- symbols: Store.Put")
  end)

  test("the Blocks table of a real sliced build: each block's own bytes, the server's line counts", function()
    focus(store_buf)
    restoring(function()
      -- A window this small makes the server slice store.go to the
      -- selected method (TARGET_REGION_ONLY) while the build still fits.
      local model = { max_input_tokens = 300, response_token_reserve = 10 }
      ctxd.setup({ model = model })
      local lines = results("32,36CtxdBuild")
      local err, result = call(ctxd.build_context, { bufnr = store_buf, range = { 32, 36 } })
      eq(nil, err, "build error")
      local sliced = 0
      for i, b in ipairs(result.bundle.blocks) do
        local row = string.format("| %d | %s | %s | %s | %s | %d | %d |", i, b.priority, b.block_type,
          (b.title:gsub("|", "\\|")), b.meta.path or "", #b.content, b.meta.line_count)
        has_line(lines, row, "block " .. i)
        if b.title:find("TARGET_REGION_ONLY", 1, true) then
          sliced = sliced + 1
          ok(#b.content < b.meta.byte_size, "the sliced block is smaller than its file")
          for _, l in ipairs(lines) do
            if l:find("| " .. i .. " | ", 1, true) == 1 then
              ok(not l:find("| " .. b.meta.byte_size .. " |", 1, true), "the file's size in the block's row: " .. l)
            end
          end
        end
      end
      eq(1, sliced, "one sliced block (titles: " .. vim.inspect(vim.tbl_map(function(b)
        return b.title
      end, result.bundle.blocks)) .. ")")
    end, function()
      ctxd.setup({})
    end)
  end)

  test("a characterwise visual selection is sent in the negotiated encoding", function()
    focus(store_buf)
    local c = client.get(store_buf)
    local before = vim.api.nvim_buf_get_lines(store_buf, 48, 49, false)
    vim.api.nvim_buf_set_lines(store_buf, 48, 49, false, { "// é😀 List returns the items sorted by name." })
    vim.api.nvim_win_set_cursor(0, { 49, 0 })
    -- From é (byte 3) to the L of List (byte 10).
    vim.cmd("normal! 03lv3l\27")
    local lines = results("'<,'>CtxdBuild")
    has_line(lines, "# ctxd build")
    local sel = ctxd.last_request().arguments[1].selection.range
    local enc = client.encoding(c)
    local want_end = ({ ["utf-8"] = 11, ["utf-16"] = 8, ["utf-32"] = 7 })[enc]
    eq({ start = { line = 48, character = 3 }, ["end"] = { line = 48, character = want_end } }, sel,
      "selection in " .. enc)
    vim.api.nvim_buf_set_lines(store_buf, 48, 49, false, before)
  end)

  test(":CtxdBudget", function()
    focus(store_buf)
    local lines = results("CtxdBudget")
    has_line(lines, "# ctxd budget")
    has_line(lines, "## Budget: ok")
    has_line(lines, "- blocks: P0 ")
    has_line(lines, "- target files: 1")
  end)

  test(":CtxdManifest", function()
    focus(store_buf)
    local lines = results("CtxdManifest")
    has_line(lines, "# ctxd manifest")
    has_line(lines, "| internal/store/store.go | target |")
    has_line(lines, "## Fingerprints")
    for _, l in ipairs(lines) do
      ok(not l:find("## Contents", 1, true), "a manifest has no block contents")
    end
  end)

  test(":CtxdPrompt into a named register", function()
    focus(store_buf)
    notes = {}
    vim.fn.setreg("a", "")
    vim.cmd("CtxdPrompt a")
    wait_for(20000, function()
      return vim.fn.getreg("a") ~= ""
    end, "register a")
    local text = vim.fn.getreg("a")
    ok(text:find("## system", 1, true), "system message in register a")
    ok(text:find("## user", 1, true), "user message in register a")
    ok(text:find("sorted by name, then SKU", 1, true), "the edited buffer is in the prompt")
    eq("V", vim.fn.getregtype("a"), "linewise register")
    local info = notes_at(vim.log.levels.INFO)
    ok(#info == 1 and info[1]:find("in register a", 1, true), "summary notification: " .. vim.inspect(notes))
    local width = require("ctxd.errors").message_width()
    ok(vim.fn.strdisplaywidth(info[1]) <= width, "the summary fits the message area (" .. width .. " cells): " .. info[1])
    local result = { prompt = { template_id = "default-diff", messages = { {}, {} },
      token_counts = { total = 780, hard_limit = 124000 } }, prompt_artifact = ".ctxd/artifacts/prompts/" .. string.rep("a", 64) .. ".json" }
    local full = render.prompt_summary(result, "a", { file = "internal/store/store.go" })
    ok(full:find("for internal/store/store.go", 1, true) and full:find("; artifact .ctxd/", 1, true), full)
    eq("ctxd: prompt default-diff for internal/store/store.go (2 messages, 780 tokens of 124000) in register a",
      render.prompt_summary(result, "a", { file = "internal/store/store.go" }, 110), "the artifact goes first")
    eq("ctxd: prompt (2 messages, 780 tokens of 124000) in register a",
      render.prompt_summary(result, "a", { file = "internal/store/store.go" }, 70), "then the file and the template")
    eq("\"", commands.default_register(), "no clipboard provider here: the unnamed register is the default")
  end)

  test(":CtxdStatus", function()
    focus(store_buf)
    local lines = results("CtxdStatus")
    has_line(lines, "# ctxd status")
    has_line(lines, "- position encoding: " .. client.encoding(client.get(store_buf)))
    has_line(lines, "- index: ready")
    has_line(lines, "- state: ready")
    has_line(lines, vim.uri_from_bufnr(store_buf))
    lines = results("CtxdStatus!")
    has_line(lines, "| .env | deny_rule |", "skipped files with !")
  end)

  test("statusline: the budget arrives and follows edits", function()
    focus(store_buf)
    local text
    wait_for(10000, function()
      text = ctxd.statusline()
      return text:match("^ctxd %d+/%d+$") ~= nil
    end, "the statusline budget")
    local tokens = tonumber(text:match("^ctxd (%d+)/"))
    local state = ctxd.budget_state(store_buf)
    eq("ok", state.report.decision, "decision")
    -- An edit (TextChanged) refreshes it.
    local n = vim.api.nvim_buf_line_count(store_buf)
    local extra = {}
    for i = 1, 30 do
      extra[i] = "// padding line " .. i .. " for the statusline budget test"
    end
    vim.api.nvim_buf_set_lines(store_buf, n, n, false, extra)
    vim.cmd("doautocmd <nomodeline> TextChanged")
    wait_for(10000, function()
      local t = tonumber(ctxd.statusline():match("^ctxd (%d+)/") or "0")
      return t > tokens
    end, "a larger budget after the edit (was " .. tokens .. ")")
    vim.api.nvim_buf_set_lines(store_buf, n, -1, false, {})
    -- A model too small for the bundle: refuse_hard_limit, with its marker.
    ctxd.setup({ model = { max_input_tokens = 200, response_token_reserve = 10 } })
    require("ctxd.status").refresh(store_buf, 0)
    wait_for(10000, function()
      return ctxd.statusline():match("^ctxd %d+/190 ✗$") ~= nil
    end, "the refuse marker (statusline: " .. ctxd.statusline() .. ")")
    ctxd.setup({})
    require("ctxd.status").refresh(store_buf, 0)
    wait_for(10000, function()
      return ctxd.statusline():match("^ctxd %d+/124000$") ~= nil
    end, "the default model again")
  end)

  test("progress: the statusline shows indexing instead of the budget; Neovim's handler still runs", function()
    focus(store_buf)
    local c = ready_client(store_buf)
    wait_for(10000, function()
      return ctxd.statusline():match("^ctxd %d+/%d+$") ~= nil
    end, "the statusline budget")
    local progress = require("ctxd.progress")
    eq(progress.handler, c.handlers and c.handlers["$/progress"], "the client's $/progress handler")
    local events = 0
    local au = vim.api.nvim_create_autocmd("User", {
      pattern = "CtxdProgress",
      callback = function()
        events = events + 1
      end,
    })
    restoring(function()
      local ctx = { client_id = c.id, method = "$/progress" }
      local function send(value)
        progress.handler(nil, { token = "test-1", value = value }, ctx, {})
      end
      pcall(vim.lsp.handlers["window/workDoneProgress/create"], nil, { token = "test-1" },
        { client_id = c.id, method = "window/workDoneProgress/create" }, {})
      send({ kind = "begin", title = "ctxd: indexing", message = "ws", percentage = 0 })
      eq("ctxd: indexing ws", ctxd.statusline(), "after the begin")
      send({ kind = "report", message = "1,234/10,595 files", percentage = 11 })
      eq("ctxd: indexing 1,234/10,595 files", ctxd.statusline(), "after a report")
      eq({ title = "ctxd: indexing", message = "1,234/10,595 files", percentage = 11 }, ctxd.progress(store_buf), "progress()")
      if vim.lsp.status then
        local st = vim.lsp.status()
        ok(st:find("1,234/10,595", 1, true), "vim.lsp.status(): " .. st)
      else
        local m = c.messages.progress["test-1"]
        eq("1,234/10,595 files", m and m.message, "Neovim's client.messages.progress")
      end
      send({ kind = "report", percentage = 50 })
      eq("ctxd: indexing 1,234/10,595 files", ctxd.statusline(), "a report without a message keeps the last one")
      eq(50, ctxd.progress(store_buf).percentage, "its percentage")
      send({ kind = "end", message = "10,595 files indexed" })
      ok(ctxd.statusline():match("^ctxd %d+/%d+$"), "the budget again after the end: " .. ctxd.statusline())
      eq(nil, ctxd.progress(store_buf), "progress() after the end")
      eq(4, events, "User CtxdProgress once per change")
      send({ kind = "report", message = "late" })
      eq(4, events, "a report after the end is ignored")
      eq(nil, ctxd.progress(store_buf), "nothing runs after a late report")
    end, function()
      vim.api.nvim_del_autocmd(au)
    end)
  end)

  test("Lua API: build_context, manifest, budget, render_prompt, verify, record_execution", function()
    focus(store_buf)
    local err, res = call(ctxd.build_context, {
      intent = "List returns the items sorted by name, then SKU",
      constraints = { "MUST_NOT add dependencies" },
      bufnr = store_buf,
    })
    eq(nil, err, "build error")
    check_shape("BuildResult", res)
    check_shape("Bundle", res.bundle)
    local lines = vim.api.nvim_buf_get_lines(store_buf, 0, -1, false)
    local text = table.concat(lines, "\n") .. (vim.bo[store_buf].eol and "\n" or "")
    local found = false
    for _, b in ipairs(res.bundle.blocks) do
      check_shape("Block", b)
      if b.meta.path == "internal/store/store.go" and b.block_type == "file" then
        found = true
        eq(vim.fn.sha256(text), b.meta.hash, "the file block hashes the buffer, not the disk")
      end
      if b.block_type == "constraints" then
        ok(b.content:find("MUST_NOT add dependencies", 1, true), "constraint in the constraints block")
      end
    end
    ok(found, "a file block for store.go")
    local merr, man = call(ctxd.manifest, { bufnr = store_buf })
    eq(nil, merr, "manifest error")
    check_shape("ManifestResult", man)
    local berr, bud = call(ctxd.budget, { bufnr = store_buf })
    eq(nil, berr, "budget error")
    check_shape("BudgetResult", bud)
    eq("", bud.budget_report.bundle_id, "a budget assembles no bundle")
    local perr, prompt = call(ctxd.render_prompt, { bufnr = store_buf, template_id = "default-diff" })
    eq(nil, perr, "render_prompt error")
    check_shape("PromptResult", prompt)
    eq("default-diff", prompt.prompt.template_id, "template")
    local verr, report = call(ctxd.verify, { bufnr = store_buf })
    eq(nil, verr, "verify error")
    check_shape("Report", report)
    -- A thread turn: the build records INTENT and DECISION, then the
    -- model's output is recorded as the turn's EXECUTION.
    local terr = call(ctxd.build_context, { bufnr = store_buf, intent = "sort by name",
      thread = { thread_id = "nvim-thread", turn_id = "t1" } })
    eq(nil, terr, "thread build error")
    local rerr, rec = call(ctxd.record_execution, { bufnr = store_buf, thread_id = "nvim-thread", turn_id = "t1",
      output = "--- a/internal/store/store.go\n+++ b/internal/store/store.go\n" })
    eq(nil, rerr, "record_execution error")
    check_shape("Recorded", rec)
    eq("execution:t1", rec.ref_id, "ref_id")
    local ierr = call(ctxd.build_context, { bufnr = store_buf, colour = "red" })
    eq("CTXD_INVALID_OPTIONS", ierr and ierr.code, "unknown option")
    eq(false, ctxd.is_refusal(ierr), "a plugin error is not a refusal")
  end)

  test("refusal: a .env buffer is refused through vim.notify", function()
    vim.cmd("edit " .. vim.fn.fnameescape(ws .. "/.env"))
    local env_buf = vim.api.nvim_get_current_buf()
    ready_client(env_buf)
    notes = {}
    vim.cmd("CtxdBuild")
    wait_for(20000, function()
      return #notes_at(vim.log.levels.ERROR) > 0
    end, "an error notification")
    local errs = notes_at(vim.log.levels.ERROR)
    local msg = errs[1]
    local err = call(ctxd.build_context, { bufnr = env_buf })
    ok(ctxd.is_refusal(err), "the API gets the refusal")
    eq("REFUSE_UNSUPPORTED_TARGET", err.code, "code")
    -- Message and advice are two lines, more than 'cmdheight' 1: the
    -- window shows them, the notification is one line that fits, so no
    -- hit-enter prompt comes before the window (issue 32).
    eq(1, #errs, "one notification: " .. vim.inspect(errs))
    local errors = require("ctxd.errors")
    ok(not msg:find("\n") and vim.fn.strdisplaywidth(msg) <= errors.message_width(),
      "one line that fits (" .. errors.message_width() .. " cells): " .. msg)
    ok(msg:find("REFUSE_UNSUPPORTED_TARGET" .. errors.window_note .. ": ", 1, true) == 1,
      "the code, then where the rest is: " .. msg)
    local win = commands.refusal_window()
    ok(win, "the refusal window")
    local shown = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), " ")
    shown = shown:gsub("%s+", " ")
    ok(shown:find((err.message:gsub("%s+", " ")), 1, true) and shown:find((err.advice:gsub("%s+", " ")), 1, true),
      "message and advice in the window: " .. shown)
    commands.close_refusal()
    ok(results_buf() == nil, "no results window for a refusal")
    wait_for(10000, function()
      return ctxd.statusline(env_buf) == "ctxd ✗ REFUSE_UNSUPPORTED_TARGET"
    end, "the refusal in the statusline (" .. ctxd.statusline(env_buf) .. ")")
    focus(store_buf)
  end)

  test("refusal: a namespace left out by .ctxd/config.json", function()
    vim.cmd("edit " .. vim.fn.fnameescape(ws2 .. "/web/src/api.ts"))
    local buf = vim.api.nvim_get_current_buf()
    local c = ready_client(buf)
    eq(ws2, client.root_dir(c), "second workspace, second root")
    ok(c.id ~= client.get(store_buf).id, "a second client for the second root")
    notes = {}
    vim.cmd("CtxdBuild")
    wait_for(20000, function()
      return #notes_at(vim.log.levels.ERROR) > 0
    end, "an error notification")
    local msg = notes_at(vim.log.levels.ERROR)[1]
    local err = call(ctxd.build_context, { bufnr = buf })
    ok(err.message:find("^web/src/api.ts"), err.message)
    eq(require("ctxd.errors").one_line("context_namespace_denied" .. require("ctxd.errors").window_note .. ": "
      .. err.message), msg, "one line, the whole refusal in the window")
    commands.close_refusal()
    focus(store_buf)
  end)

  test("ambiguous target: vim.ui.select picks a candidate, the retry builds", function()
    focus(store_buf)
    local err = call(ctxd.build_context, { bufnr = store_buf, purpose = "plan", plan_step = { id = "s1", text = "t", target_symbols = { "Item" } } })
    eq("REFUSE_AMBIGUOUS_TARGET", err and err.code, "without ui the refusal comes back")
    eq(2, #err.candidates, "candidates")
    check_shape("Candidate", err.candidates[1])
    local select = vim.ui.select
    local offered
    vim.ui.select = function(items, opts, on_choice)
      offered = {}
      for _, it in ipairs(items) do
        table.insert(offered, opts.format_item(it))
      end
      on_choice(items[1], 1)
    end
    notes = {}
    local ok_run, lines = pcall(results, "CtxdBuild plan Item")
    vim.ui.select = select
    if not ok_run then
      error(lines, 0)
    end
    eq({ "Item (struct) internal/store/store.go:14", "Item (interface) web/src/api.ts:2" }, offered, "choices")
    has_line(lines, "- symbols: Item")
    eq({ { path = "internal/store/store.go", symbol = "Item" } }, ctxd.last_request().arguments[1].user_selected_targets,
      "the retry sends the choice")
    eq({}, notes_at(vim.log.levels.ERROR), "no error shown")
  end)

  test("float option: results in a floating window that q closes", function()
    focus(store_buf)
    vim.g.ctxd = vim.tbl_extend("force", vim.g.ctxd, { float = true })
    local ok_run, lines = pcall(results, "CtxdBudget")
    vim.g.ctxd = vim.tbl_extend("force", vim.g.ctxd, { float = false })
    if not ok_run then
      error(lines, 0)
    end
    has_line(lines, "# ctxd budget")
    local win = vim.api.nvim_get_current_win()
    eq(results_buf(), vim.api.nvim_win_get_buf(win), "the float is current")
    eq("editor", vim.api.nvim_win_get_config(win).relative, "floating window")
    vim.api.nvim_feedkeys("q", "x", false)
    eq(false, vim.api.nvim_win_is_valid(win), "q closed the float")
    eq(store_buf, vim.api.nvim_get_current_buf(), "back in the source buffer")
  end)

  test("auto_attach = false: no client until a command needs one", function()
    vim.g.ctxd = vim.tbl_extend("force", vim.g.ctxd, { auto_attach = false })
    vim.cmd("edit " .. vim.fn.fnameescape(ws .. "/web/src/api.ts"))
    local buf = vim.api.nvim_get_current_buf()
    vim.g.ctxd = vim.tbl_extend("force", vim.g.ctxd, { auto_attach = true })
    eq(nil, client.get(buf), "no client attached on open")
    eq("", ctxd.statusline(buf), "no statusline without a client")
    local lines = results("CtxdBudget")
    has_line(lines, "# ctxd budget")
    eq(client.get(store_buf).id, client.get(buf).id, "the command attached the workspace's client")
    focus(store_buf)
  end)

  test(":bd on the results buffer: the next command sets it up again", function()
    focus(store_buf)
    local lines = results("CtxdBudget")
    has_line(lines, "# ctxd budget")
    local old = results_buf()
    vim.cmd("bdelete " .. old)
    eq(false, vim.api.nvim_buf_is_loaded(old), ":bd unloaded it")
    eq(store_buf, vim.api.nvim_get_current_buf(), "back in the source buffer")
    vim.cmd("CtxdBuild")
    local buf
    wait_for(20000, function()
      buf = results_buf()
      return buf ~= nil and vim.api.nvim_buf_is_loaded(buf)
        and (vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] or "") == "# ctxd build"
    end, "the results of :CtxdBuild after :bd")
    local named = 0
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_get_name(b) == commands.results_name then
        named = named + 1
      end
    end
    eq(1, named, "one buffer named " .. commands.results_name)
    eq("nofile", vim.bo[buf].buftype, "buftype")
    eq("hide", vim.bo[buf].bufhidden, "bufhidden")
    eq(false, vim.bo[buf].swapfile, "swapfile")
    eq("markdown", vim.bo[buf].filetype, "filetype")
    local q = false
    for _, m in ipairs(vim.api.nvim_buf_get_keymap(buf, "n")) do
      q = q or m.lhs == "q"
    end
    ok(q, "q is mapped in the new results buffer")
    local win = vim.api.nvim_get_current_win()
    eq(buf, vim.api.nvim_win_get_buf(win), "the results window is current")
    vim.api.nvim_feedkeys("q", "x", false)
    eq(false, vim.api.nvim_win_is_valid(win), "q closed the results window (no macro recording)")
    eq("", vim.fn.reg_recording(), "not recording a macro")
    eq(store_buf, vim.api.nvim_get_current_buf(), "back in the source buffer")
  end)

  test("statusline: setup() and vim.g.ctxd ask again; a budget of an older configuration is never shown", function()
    local saved = vim.g.ctxd
    restoring(function()
      focus(store_buf)
      local status = require("ctxd.status")
      wait_for(10000, function()
        return ctxd.statusline():match("^ctxd %d+/124000$") ~= nil
      end, "the default budget (statusline: " .. ctxd.statusline() .. ")")
      local shown = {}
      local function watch()
        local t = ctxd.statusline()
        shown[t] = true
        return t
      end
      -- setup(): no refresh is called here; the old value is gone at once.
      ctxd.setup({ model = { max_input_tokens = 1000, response_token_reserve = 300 } })
      eq("ctxd …", watch(), "pending right after setup()")
      eq(true, ctxd.budget_state(store_buf).stale, "the old state is marked stale")
      wait_for(10000, function()
        return watch():match("^ctxd %d+/700") ~= nil
      end, "the budget under the new model (statusline: " .. ctxd.statusline() .. ")")
      local tokens = ctxd.statusline():match("^ctxd (%d+)/700")
      local lines = results("CtxdBudget")
      has_line(lines, "- estimated input tokens: " .. tokens .. " of 700 (hard limit)", ":CtxdBudget agrees")
      focus(store_buf)
      ctxd.setup({})
      wait_for(10000, function()
        return watch():match("^ctxd %d+/124000$") ~= nil
      end, "the default model again")
      -- vim.g.ctxd: read on every draw; the component notices and asks.
      vim.g.ctxd = vim.tbl_extend("force", saved, { model = { max_input_tokens = 2000, response_token_reserve = 500 } })
      eq(true, ctxd.budget_state(store_buf).stale, "stale after vim.g.ctxd changed")
      eq("ctxd …", watch(), "pending after vim.g.ctxd changed")
      wait_for(10000, function()
        return watch():match("^ctxd %d+/1500") ~= nil
      end, "the budget under vim.g.ctxd's model (statusline: " .. ctxd.statusline() .. ")")
      -- A request sent under one configuration, answered under another:
      -- its answer is dropped.
      status.run(store_buf)
      vim.g.ctxd = saved
      wait_for(10000, function()
        local t = watch()
        return t:match("^ctxd %d+/124000$") ~= nil
      end, "the default model after vim.g.ctxd was restored")
      vim.wait(200, function()
        watch()
        return false
      end, 20)
      local seen = {}
      for t in pairs(shown) do
        table.insert(seen, t)
      end
      table.sort(seen)
      for _, t in ipairs(seen) do
        ok(t == "ctxd …" or t:match("^ctxd %d+/124000$") or t:match("^ctxd %d+/700$") or t:match("^ctxd %d+/1500$"),
          "unexpected statusline " .. t)
      end
      eq(124000, ctxd.budget_state(store_buf).report.hard_limit_tokens, "the state is the current configuration's")
      eq(nil, ctxd.budget_state(store_buf).stale, "not stale")
    end, function()
      vim.g.ctxd = saved
      ctxd.setup({})
    end)
  end)

  test("a refusal too large for the model: a window shows message, advice and the labelled budget", function()
    local columns, cmdheight, screen_lines = vim.o.columns, vim.o.cmdheight, vim.o.lines
    restoring(function()
      -- Room for the whole refusal: the window is as tall as its text
      -- when the screen allows (on a shorter one it scrolls).
      vim.o.lines = 60
      vim.cmd("edit " .. vim.fn.fnameescape(ws .. "/cmd/inventory/main.go"))
      local main_buf = vim.api.nvim_get_current_buf()
      ready_client(main_buf)
      ctxd.setup({ model = { max_input_tokens = 200, response_token_reserve = 10 } })
      local est
      wait_for(10000, function()
        est = tonumber(ctxd.statusline(main_buf):match("^ctxd (%d+)/190 ✗$") or "")
        return est ~= nil
      end, "the refuse marker (statusline: " .. ctxd.statusline(main_buf) .. ")")
      local err = call(ctxd.build_context, { bufnr = main_buf })
      eq("REFUSE_CONTEXT_TOO_LARGE", err and err.code, "code")
      local needs = tonumber(err.message:match("needs (%d+) tokens"))
      -- One figure in the message and the budget report (issue 32, item 17).
      eq(est, needs, "the message gives the budget report's (and the statusline's) number")
      eq(est, err.budget_report.estimated_input_tokens, "the refusal's budget report carries the statusline's number")
      local lines = results("CtxdBudget")
      has_line(lines, "- estimated input tokens: " .. est .. " of 190 (hard limit)")
      has_line(lines, "- " .. render.over_hard_limit, ":CtxdBudget labels its estimate")
      focus(main_buf)

      notes = {}
      vim.cmd("CtxdBuild")
      wait_for(20000, function()
        return commands.refusal_window() ~= nil
      end, "the refusal window (notifications: " .. vim.inspect(notes) .. ")")
      local win = commands.refusal_window()
      eq("editor", vim.api.nvim_win_get_config(win).relative, "a floating window")
      eq(main_buf, vim.api.nvim_get_current_buf(), "the cursor stays in the source buffer")
      local shown = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
      eq(#shown, vim.api.nvim_win_get_height(win), "every line is on screen")
      ok(vim.api.nvim_win_get_width(win) < vim.o.columns, "the window fits the screen")
      local flat = function(s)
        return (s:gsub("%s+", " "))
      end
      local text = flat(table.concat(shown, " "))
      ok(text:find(flat(err.code .. ": " .. err.message), 1, true), "message in: " .. text)
      ok(text:find(flat("Advice: " .. err.advice), 1, true), "advice in: " .. text)
      ok(text:find("Budget: " .. est .. " tokens estimated", 1, true), "the statusline's number in: " .. text)
      ok(text:find("File: " .. client.label(main_buf), 1, true), "the file in: " .. text)
      ok(text:find("Help: :help ctxd-refusals", 1, true), "the pointer to the codes' help in: " .. text)
      eq(nil, render.refusal_budget_note(err), "no note: the message and the statusline give one number")
      local errs = notes_at(vim.log.levels.ERROR)
      local errors = require("ctxd.errors")
      eq(1, #errs, "one notification: " .. vim.inspect(errs))
      ok(not errs[1]:find("\n") and vim.fn.strdisplaywidth(errs[1]) <= errors.message_width()
        and errs[1]:find(err.code .. errors.window_note .. ": ", 1, true) == 1,
        "vim.notify gets one line that fits, naming the code and the window: " .. errs[1])
      ok(results_buf() == nil, "no results buffer for a refusal")
      -- Moving the cursor closes it.
      vim.api.nvim_win_set_cursor(0, { 2, 0 })
      vim.cmd("doautocmd <nomodeline> CursorMoved")
      eq(false, vim.api.nvim_win_is_valid(win), "closed by a cursor move")

      -- A refusal that fits the message area stays a notification.
      vim.o.columns = 400
      vim.o.cmdheight = 3
      notes = {}
      vim.cmd("CtxdBuild")
      wait_for(20000, function()
        return #notes_at(vim.log.levels.ERROR) > 0
      end, "an error notification")
      eq(nil, commands.refusal_window(), "no window for a refusal that fits")
      eq(require("ctxd.errors").format(err), notes_at(vim.log.levels.ERROR)[1],
        "a refusal that fits is notified whole (one number: no note)")
    end, function()
      vim.o.columns = columns
      vim.o.cmdheight = cmdheight
      vim.o.lines = screen_lines
      commands.close_refusal()
      ctxd.setup({})
      focus(store_buf)
    end)
  end)

  test("commands from a buffer that is not a file name the file they used, or refuse", function()
    focus(store_buf)
    local scratch = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(scratch, 0, -1, false, { "a", "b", "c" })
    vim.api.nvim_set_current_buf(scratch)
    local file = client.label(store_buf)
    notes = {}
    local lines = results("CtxdBudget")
    has_line(lines, "- file: " .. file .. " " .. render.fallback_note, "the header names the file")
    local width = require("ctxd.errors").message_width()
    eq({ render.fallback_notice(file, false, width) }, notes_at(vim.log.levels.INFO),
      "a notification names the file at once")
    eq("ctxd: working on " .. file .. " " .. render.fallback_note, render.fallback_notice(file, false), "unlimited")
    ok(vim.fn.strdisplaywidth(notes_at(vim.log.levels.INFO)[1]) <= width
      and notes_at(vim.log.levels.INFO)[1]:find("/store.go (the last file buffer)", 1, true),
      "it fits the message area (no hit-enter prompt), with the file's name: " .. notes_at(vim.log.levels.INFO)[1])
    vim.api.nvim_set_current_buf(scratch)
    notes = {}
    lines = results("1,2CtxdBuild")
    has_line(lines, "- file: " .. file .. " " .. render.fallback_note)
    eq({ render.fallback_notice(file, true, width) }, notes_at(vim.log.levels.INFO), "the notification of a ranged command")
    ok(notes_at(vim.log.levels.INFO)[1]:find("; the range is not sent$"), "cut, it still says the range is not sent")
    ok(render.fallback_notice(file, true):find("; the range is not sent$"), "it says the range is not sent")
    has_line(lines, "- selection: none (the range was given in a buffer that is not this file)", "the range is not sent")
    eq(nil, ctxd.last_request().arguments[1].selection, "no selection sent")
    -- From the results buffer itself.
    eq(results_buf(), vim.api.nvim_get_current_buf(), "in the results buffer")
    vim.cmd("CtxdStatus")
    wait_for(20000, function()
      lines = vim.api.nvim_buf_get_lines(results_buf(), 0, -1, false)
      return lines[1] == "# ctxd status"
    end, "the results of :CtxdStatus")
    has_line(lines, "- file: " .. file .. " " .. render.fallback_note, ":CtxdStatus from the results buffer")
    vim.api.nvim_set_current_buf(scratch)
    notes = {}
    vim.fn.setreg("b", "")
    -- A screen wide enough for the whole summary.
    local columns = vim.o.columns
    vim.o.columns = 300
    vim.cmd("CtxdPrompt b")
    wait_for(20000, function()
      return vim.fn.getreg("b") ~= ""
    end, "register b")
    vim.o.columns = columns
    local info = notes_at(vim.log.levels.INFO)
    ok(#info == 2 and info[1] == render.fallback_notice(file, false)
      and info[2]:find("for " .. file .. " " .. render.fallback_note, 1, true), "notice and prompt summary: " .. vim.inspect(notes))
    -- A refusal for the last file buffer says which file it was.
    local env_buf = vim.fn.bufnr(ws .. "/.env")
    ok(env_buf > 0 and vim.api.nvim_buf_is_loaded(env_buf), ".env is still loaded")
    client.remember(env_buf)
    notes = {}
    vim.cmd("CtxdBuild")
    wait_for(20000, function()
      return #notes_at(vim.log.levels.ERROR) > 0
    end, "an error notification")
    local msg = notes_at(vim.log.levels.ERROR)[1]
    ok(msg:find("REFUSE_UNSUPPORTED_TARGET" .. require("ctxd.errors").window_note, 1, true) == 1, "one line: " .. msg)
    local win = commands.refusal_window()
    local shown = win and table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), " ") or ""
    ok(shown:gsub("%s+", " "):find("File: " .. client.label(env_buf) .. " " .. render.fallback_note, 1, true),
      "the refusal window names the file: " .. shown)
    commands.close_refusal()
    -- No file buffer at all: a clear message, nothing sent.
    client.remember(nil)
    notes = {}
    local before = ctxd.last_request()
    vim.cmd("CtxdBuild")
    eq({ "ctxd: " .. client.no_file_message }, notes_at(vim.log.levels.WARN), "the message")
    eq(before, ctxd.last_request(), "nothing was sent")
    local err = call(ctxd.budget, {})
    eq("CTXD_NO_CLIENT", err and err.code, "the API's error")
    client.remember(store_buf)
    focus(store_buf)
    vim.cmd("bwipeout! " .. scratch)
  end)

  -- :CtxdChange end to end ---------------------------------------------------
  -- A scripted model server (tools/fakemodel, on 127.0.0.1 only) answers
  -- the plugin's curl; the real ctxd renders the prompts and checks the
  -- answers.

  local fakemodel = plugin_dir .. "/../../tools/fakemodel/fakemodel.mjs"
  local have_node = vim.fn.executable("node") == 1 and vim.fn.filereadable(fakemodel) == 1
    and vim.fn.executable("curl") == 1
  local echoes = {}
  require("ctxd.change").echo = function(text)
    table.insert(echoes, text)
  end
  local servers = 0

  -- fake_model starts the fake model server with script and returns
  -- { url, requests(), stop() }.
  local function fake_model(script)
    servers = servers + 1
    local path = string.format("%s/fakemodel-%d.json", tmp, servers)
    write(path, vim.json.encode(script))
    local url
    local job = vim.fn.jobstart({ "node", fakemodel, path, "0" }, {
      on_stdout = function(_, data)
        for _, l in ipairs(data or {}) do
          url = url or l:match("^listening (http://127%.0%.0%.1:%d+)")
        end
      end,
    })
    ok(job > 0, "node started")
    wait_for(10000, function()
      return url ~= nil
    end, "the fake model server's address")
    return {
      url = url,
      requests = function()
        local body = vim.fn.system({ "curl", "-sS", "--noproxy", "*", url .. "/__requests" })
        eq(0, vim.v.shell_error, "GET /__requests: " .. body)
        return vim.json.decode(body)
      end,
      stop = function()
        vim.fn.jobstop(job)
      end,
    }
  end

  -- diff_of is a model's answer: prose and a unified diff of store.go
  -- replacing line row of buf with the lines of new (context from the
  -- buffer as it is, or as context() rewrites it).
  local function hunk_of(path, lines, row, new, context)
    local from, to = math.max(1, row - 2), math.min(#lines, row + 2)
    local out = {
      "--- a/" .. path, "+++ b/" .. path,
      string.format("@@ -%d,%d +%d,%d @@", from, to - from + 1, from, to - from + #new),
    }
    for i = from, to do
      if i == row then
        table.insert(out, "-" .. lines[i])
        for _, l in ipairs(new) do
          table.insert(out, "+" .. l)
        end
      else
        table.insert(out, " " .. (context and context(lines[i]) or lines[i]))
      end
    end
    return table.concat(out, "\n")
  end

  local function diff_of(buf, row, new, context)
    local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    return "Here is the change.\n\n```diff\n" .. hunk_of("internal/store/store.go", lines, row, new, context) .. "\n```\n"
  end

  local function start_change(opts)
    local st = { done = false }
    ctxd.change(opts, function(e, r)
      st.done, st.err, st.result = true, e, r
    end)
    return st
  end

  local function wait_preview(st)
    wait_for(30000, function()
      local s = ctxd.change_state()
      return st.done or (s ~= nil and s.phase == "preview")
    end, "the change preview")
    ok(not st.done, "the change ended before its preview: " .. vim.inspect(st.err) .. "\n" .. vim.inspect(ctxd.change_log()))
    return ctxd.change_state()
  end

  local function wait_done(st)
    wait_for(30000, function()
      return st.done
    end, "the end of the change (state: " .. vim.inspect(ctxd.change_state()) .. ")")
  end

  -- change_test runs fn(server) with the change option pointing at a fake
  -- model server answering script() (called when the test runs), merged
  -- with cc; everything is undone after.
  local function change_test(name, script, cc, fn)
    test(name, function()
      if not have_node then
        out("# skipped: node, curl or tools/fakemodel is missing")
        return
      end
      focus(store_buf)
      local server = fake_model(script())
      local servers_started = { server }
      local function use(srv, extra)
        table.insert(servers_started, srv)
        local opts = vim.tbl_extend("force", { base_url = srv.url .. "/v1", model = "fake-model" }, cc or {}, extra or {})
        if opts.provider == "anthropic" then
          opts.base_url = srv.url
        end
        ctxd.setup({ change = opts })
      end
      restoring(function()
        use(server)
        notes = {}
        echoes = {}
        fn(server, use)
      end, function()
        if ctxd.change_state() then
          ctxd.change_cancel()
        end
        commands.close_refusal()
        vim.cmd("silent! tabonly!")
        for _, srv in ipairs(servers_started) do
          srv.stop()
        end
        ctxd.setup({})
        focus(store_buf)
      end)
    end)
  end

  local function messages_text(req)
    local parts = { type(req.body.system) == "string" and req.body.system or "" }
    for _, m in ipairs(req.body.messages or {}) do
      table.insert(parts, m.content)
    end
    return table.concat(parts, "\n")
  end

  local new_comment = "// List returns every item, sorted by SKU."
  local list_row = 49

  -- The first answer's context does not match store.go; the second does.
  local function two_answers()
    return {
      diff_of(store_buf, list_row, { new_comment }, function(l)
        return (l:gsub("Store", "Shop"))
      end),
      diff_of(store_buf, list_row, { new_comment }),
    }
  end

  change_test("CtxdChange: a rejected answer is retried with its error_context; the accepted one is previewed, ga applies it, u undoes it",
    function()
      return { answers = two_answers(), chunk = 7 }
    end, nil, function(server)
      local before = vim.api.nvim_buf_get_lines(store_buf, 0, -1, false)
      local st = start_change({ intent = "Say that List returns every item", ui = true, bufnr = store_buf })
      local state = wait_preview(st)
      eq(2, state.attempt, "accepted at the second attempt")
      eq({ "internal/store/store.go" }, state.files, "files of the preview")
      local log = ctxd.change_log()
      eq("CHANGE_CONTEXT_MISMATCH", log.attempts[1].failure and log.attempts[1].failure.code, "the first verdict")
      eq("accepted", log.attempts[2].status, "the second verdict")
      ok(log.thread_id:match("^change%-%d+T%d+Z%-%x+$"), "thread id " .. log.thread_id)
      eq({ "attempt-1", "attempt-2" }, { log.attempts[1].turn_id, log.attempts[2].turn_id }, "turns")
      eq("attempt-1", log.attempts[2].parent_turn_id, "the retry's parent turn")
      local ec = log.attempts[1].failure.error_context
      eq(ec, log.attempts[2].last_error, "the retry's last_error is the rejection's error_context")
      local reqs = server.requests()
      eq(2, #reqs, "two requests to the model")
      eq("/v1/chat/completions", reqs[1].path, "OpenAI's path")
      eq(true, reqs[1].body.stream, "streaming")
      eq("fake-model", reqs[1].body.model, "model")
      eq(nil, reqs[1].headers.authorization, "no key for a local server")
      ok(not messages_text(reqs[1]):find(ec.message, 1, true), "the first prompt has no error context")
      ok(messages_text(reqs[2]):find(ec.message, 1, true), "the second prompt carries the error_context: " .. ec.message)
      -- One short line per rejected attempt, and progress with characters.
      local warns = notes_at(vim.log.levels.WARN)
      eq(1, #warns, "one line for the rejection: " .. vim.inspect(notes))
      ok(warns[1]:find("^ctxd change: attempt 1/3 rejected: CHANGE_CONTEXT_MISMATCH"), warns[1])
      local counted = false
      for _, e in ipairs(echoes) do
        counted = counted or e:match("^ctxd change: attempt 2/3 %(after CHANGE_CONTEXT_MISMATCH%): [%d,]+ characters from fake%-model") ~= nil
      end
      ok(counted, "progress with characters received: " .. vim.inspect(echoes))

      -- The preview: a tab with the text before and after, both in diff mode.
      eq(2, #vim.api.nvim_list_tabpages(), "a new tab")
      local want = vim.deepcopy(before)
      want[list_row] = new_comment
      local left, right = state.wins[1], state.wins[2]
      eq(before, vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(left), 0, -1, false), "before")
      eq(want, vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(right), 0, -1, false), "after")
      eq(true, vim.wo[left].diff and vim.wo[right].diff, "both windows in diff mode")
      local header = vim.fn.exists("+winbar") == 1 and vim.wo[right].winbar or vim.wo[right].statusline
      ok(header:find("ga accept", 1, true) and header:find("gr reject", 1, true), "the keys in the header: " .. header)
      eq(list_row, vim.api.nvim_win_get_cursor(right)[1], "the cursor on the change")
      eq(before, vim.api.nvim_buf_get_lines(store_buf, 0, -1, false), "the buffer is untouched until accepted")

      vim.api.nvim_set_current_win(right)
      vim.api.nvim_feedkeys("ga", "mx", false)
      wait_done(st)
      eq(nil, st.err, "error")
      eq("applied", st.result.status, "status")
      eq(2, st.result.attempts, "attempts")
      eq(true, st.result.verified, "the buffer holds the text ctxd checked")
      ok(st.result.check.recorded ~= nil, "the verdict is recorded in the thread")
      eq(1, #vim.api.nvim_list_tabpages(), "the preview tab is closed")
      eq(store_buf, vim.api.nvim_get_current_buf(), "back in the buffer")
      eq(want, vim.api.nvim_buf_get_lines(store_buf, 0, -1, false), "the buffer holds exactly the change")
      eq(nil, ctxd.change_state(), "nothing runs")
      vim.cmd("silent undo")
      eq(before, vim.api.nvim_buf_get_lines(store_buf, 0, -1, false), "u undoes the change")

      local lines = results("CtxdChangeLog")
      has_line(lines, "# ctxd change")
      has_line(lines, "- outcome: applied")
      has_line(lines, "## Attempt 1 (attempt-1): rejected CHANGE_CONTEXT_MISMATCH")
      has_line(lines, "## Attempt 2 (attempt-2): accepted")
      has_line(lines, "- sent as last_error: " .. ec.message:gsub("[\r\n]+", " "))
    end)

  local anthropic_key = "sk-ant-" .. vim.fn.sha256(tostring(uv.hrtime())):sub(1, 32)
  local anthropic_keyfile = tmp .. "/anthropic.key"
  change_test("CtxdChange: Anthropic's Messages API; the key of api_key_cmd reaches the server as x-api-key, never a command line",
    function()
      write(anthropic_keyfile, anthropic_key .. "\nsecond line\n")
      return { answers = { diff_of(store_buf, list_row, { new_comment }) }, key = anthropic_key }
    end, { provider = "anthropic", model = "claude-fake", api_key_cmd = { "cat", anthropic_keyfile },
      api_key_env = "CTXD_TEST_NO_SUCH_KEY" }, function(server, use)
      local key, keyfile = anthropic_key, anthropic_keyfile
      -- Every command line the plugin starts, to check that the key is on
      -- none of them.
      local argvs = {}
      local jobstart = vim.fn.jobstart
      vim.fn.jobstart = function(cmd, opts)
        table.insert(argvs, vim.deepcopy(cmd))
        return jobstart(cmd, opts)
      end
      local st
      restoring(function()
        st = start_change({ intent = "Say that List returns every item", bufnr = store_buf })
        wait_preview(st)
      end, function()
        vim.fn.jobstart = jobstart
      end)
      eq({ "cat", keyfile }, argvs[1], "api_key_cmd runs first")
      eq("curl", argvs[2] and argvs[2][1], "then curl: " .. vim.inspect(argvs))
      for _, argv in ipairs(argvs) do
        ok(not table.concat(argv, " "):find(key, 1, true), "the key on a command line: " .. table.concat(argv, " "))
      end
      eq({ "--config", "-" }, { argvs[2][#argvs[2] - 2], argvs[2][#argvs[2] - 1] }, "curl reads the key from stdin")
      local reqs = server.requests()
      eq(1, #reqs, "one request")
      eq("/v1/messages", reqs[1].path, "Anthropic's path")
      eq(key, reqs[1].headers["x-api-key"], "the key in x-api-key")
      eq(nil, reqs[1].headers.authorization, "no Authorization header")
      eq("2023-06-01", reqs[1].headers["anthropic-version"], "anthropic-version")
      eq("claude-fake", reqs[1].body.model, "model")
      eq(true, reqs[1].body.stream, "streaming")
      eq(4096, reqs[1].body.max_tokens, "max_tokens")
      eq("string", type(reqs[1].body.system), "the system message in system")
      for _, m in ipairs(reqs[1].body.messages) do
        eq("user", m.role, "only user messages")
      end
      ok(vim.inspect(ctxd.change_log()):find(key, 1, true) == nil, "the key is not in the log")
      eq(true, ctxd.change_reject(), "reject")
      wait_done(st)
      eq("rejected", st.result.status, "rejected")
      for _, n in ipairs(notes) do
        ok(not n.msg:find(key, 1, true), "the key in a notification: " .. n.msg)
      end
      -- A wrong key: the server's 401 is reported, nothing is checked.
      write(keyfile, "sk-wrong\n")
      st = start_change({ intent = "again", bufnr = store_buf })
      wait_done(st)
      eq("CTXD_MODEL_ERROR", st.err and st.err.code, "error")
      ok(st.err.message:find("HTTP 401: invalid api key", 1, true), st.err.message)
      -- A key command that fails stops before anything is sent.
      use(server, { api_key_cmd = { "sh", "-c", "echo locked >&2; exit 3" } })
      local sent = #server.requests()
      st = start_change({ intent = "again", bufnr = store_buf })
      wait_done(st)
      eq("CTXD_MODEL_ERROR", st.err and st.err.code, "error")
      ok(st.err.message:find("failed with exit code 3: locked", 1, true), st.err.message)
      eq(sent, #server.requests(), "nothing was sent")
    end)

  local openai_key = "sk-" .. vim.fn.sha256(tostring(uv.hrtime() + 1)):sub(1, 40)
  local openai_keyfile = tmp .. "/openai.key"
  change_test("CtxdChange: api_key_cmd's key goes to OpenAI as Authorization: Bearer; HTTP errors and no server end the run", function()
    write(openai_keyfile, openai_key .. "\n")
    return { answers = { diff_of(store_buf, list_row, { new_comment }) }, key = openai_key }
  end, { api_key_cmd = { "cat", openai_keyfile } }, function(server, use)
    local key = openai_key
    local st = start_change({ intent = "Say that List returns every item", bufnr = store_buf })
    wait_preview(st)
    eq("Bearer " .. key, server.requests()[1].headers.authorization, "the key in Authorization")
    ctxd.change_reject()
    wait_done(st)
    -- The server's own error, and a server that is not there, end the run.
    use(fake_model({ answers = { { status = 500, body = "the model is overloaded" } } }))
    st = start_change({ intent = "again", bufnr = store_buf })
    wait_done(st)
    eq("CTXD_MODEL_ERROR", st.err and st.err.code, "HTTP 500")
    ok(st.err.message:find("answered HTTP 500: the model is overloaded", 1, true), st.err.message)
    use({ url = "http://127.0.0.1:9", stop = function() end })
    st = start_change({ intent = "again", bufnr = store_buf })
    wait_done(st)
    eq("CTXD_MODEL_ERROR", st.err and st.err.code, "no server")
    ok(st.err.message:find("could not connect to http://127.0.0.1:9/v1/chat/completions", 1, true), st.err.message)
    eq(1, #ctxd.change_log().attempts, "one attempt, not retried")
  end)

  local function credential()
    -- Built at run time, so this file holds no literal credential.
    local alphabet = {}
    for c in ("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"):gmatch(".") do
      table.insert(alphabet, c)
    end
    math.randomseed(uv.hrtime() % 2147483647)
    for i = #alphabet, 2, -1 do
      local j = math.random(i)
      alphabet[i], alphabet[j] = alphabet[j], alphabet[i]
    end
    return "AK" .. "IA" .. table.concat(alphabet, "", 1, 16)
  end

  local cred
  change_test("CtxdChange: a change that adds a credential is CHANGE_SECRET; nothing is applied", function()
    cred = credential()
    local row = 11 -- var ErrNotFound = ...
    local line = vim.api.nvim_buf_get_lines(store_buf, row - 1, row, false)[1]
    return { answers = { diff_of(store_buf, row, { line, "", "var awsKeyID = \"" .. cred .. "\"" }) } }
  end, { max_retries = 0 },
    function(server)
      local before = vim.api.nvim_buf_get_lines(store_buf, 0, -1, false)
      local tick = vim.api.nvim_buf_get_changedtick(store_buf)
      local st = start_change({ intent = "Add the AWS key id", bufnr = store_buf, ui = true })
      wait_done(st)
      eq("CHANGE_SECRET", st.err and st.err.code, "error: " .. vim.inspect(st.err))
      ok(st.err.message:find("after 1 attempt;", 1, true), st.err.message)
      ok(type(st.err.advice) == "string" and st.err.advice ~= "", "advice")
      eq(1, #server.requests(), "one attempt (max_retries = 0)")
      eq(before, vim.api.nvim_buf_get_lines(store_buf, 0, -1, false), "the buffer is untouched")
      eq(tick, vim.api.nvim_buf_get_changedtick(store_buf), "not even touched")
      eq(1, #vim.api.nvim_list_tabpages(), "no preview")
      local errs = notes_at(vim.log.levels.ERROR)
      eq(1, #errs, "one error notification: " .. vim.inspect(notes))
      ok(errs[1]:find("CHANGE_SECRET" .. require("ctxd.errors").window_note .. ": ", 1, true) == 1, errs[1])
      local win = commands.refusal_window()
      local shown = win and table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), " ") or ""
      ok(shown:find(":CtxdChangeLog", 1, true), "the window points to the log: " .. shown)
      for _, l in ipairs(win and vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false) or {}) do
        ok(not l:find(cred, 1, true), "the credential in the window: " .. l)
      end
      commands.close_refusal()
      for _, n in ipairs(notes) do
        ok(not n.msg:find(cred, 1, true), "the credential in a notification: " .. n.msg)
      end
      local ec = ctxd.change_log().attempts[1].failure.error_context
      ok(not vim.inspect(ec):find(cred, 1, true), "the credential in the error_context")
    end)

  change_test("CtxdChange: an answer that never converges stops after max_retries + 1 attempts", function()
    return { answers = { diff_of(store_buf, list_row, { new_comment }, function(l)
      return l .. " // not in the file"
    end) } }
  end, { max_retries = 1 }, function(server)
    local st = start_change({ intent = "Say that List returns every item", bufnr = store_buf, ui = true })
    wait_done(st)
    eq("CHANGE_CONTEXT_MISMATCH", st.err and st.err.code, "error: " .. vim.inspect(st.err))
    ok(st.err.message:find("after 2 attempts", 1, true), st.err.message)
    eq(2, #server.requests(), "max_retries + 1 requests")
    local log = ctxd.change_log()
    eq(2, #log.attempts, "two attempts logged")
    ok(log.outcome:find("^failed: CHANGE_CONTEXT_MISMATCH"), log.outcome)
    local warns = notes_at(vim.log.levels.WARN)
    eq(2, #warns, "one line per attempt: " .. vim.inspect(notes))
    ok(warns[2]:find("^ctxd change: attempt 2/2 rejected: CHANGE_CONTEXT_MISMATCH"), warns[2])
    eq(1, #notes_at(vim.log.levels.ERROR), "one error at the end")
    eq(nil, ctxd.change_state(), "nothing runs")
  end)

  local extra_path = "internal/store/extra.go"
  change_test("CtxdChange: a new file rejected as CHANGE_NOT_IN_BUNDLE is named in plan_step.new_files on the retry", function()
    local creation = "A new file:\n\n```diff\n--- /dev/null\n+++ b/" .. extra_path .. "\n@@ -0,0 +1,4 @@\n"
      .. "+package store\n+\n+// Extra is new.\n+func Extra() int { return 1 }\n```\n"
    return { answers = { creation, creation } }
  end, nil, function(server)
    local st = start_change({ intent = "Add a function Extra in a new file", bufnr = store_buf, ui = true })
    local state = wait_preview(st)
    eq(2, state.attempt, "accepted at the second attempt")
    eq({ extra_path }, state.files, "files of the preview")
    local log = ctxd.change_log()
    local f1 = log.attempts[1].failure
    eq("CHANGE_NOT_IN_BUNDLE", f1 and f1.code, "the first verdict: " .. vim.inspect(log.attempts[1]))
    local created = false
    for _, f in ipairs(log.attempts[1].files or {}) do
      created = created or (f.action == "create" and f.path == extra_path)
    end
    ok(created, "the rejection's files name the creation: " .. vim.inspect(log.attempts[1].files))
    eq(nil, log.attempts[1].request.plan_step, "no plan_step at first")
    eq({ id = "change", text = "Add a function Extra in a new file", new_files = { extra_path } },
      log.attempts[2].request.plan_step, "the retry's plan_step")
    eq(f1.error_context, log.attempts[2].last_error, "the retry's last_error is still the error_context")
    eq("accepted", log.attempts[2].status, "the second verdict")
    local reqs = server.requests()
    eq(2, #reqs, "two requests to the model")
    local named = extra_path .. " (a new file: create it)"
    ok(not messages_text(reqs[1]):find(named, 1, true), "the first prompt does not name the new file")
    ok(messages_text(reqs[2]):find(named, 1, true), "the second prompt names the new file")
    eq({ "package store", "", "// Extra is new.", "func Extra() int { return 1 }" },
      vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(state.wins[2]), 0, -1, false), "after")
    vim.api.nvim_set_current_win(state.wins[2])
    vim.api.nvim_feedkeys("gr", "mx", false)
    wait_done(st)
    eq("rejected", st.result.status, "rejected")
    eq(0, vim.fn.filereadable(ws .. "/" .. extra_path), "nothing is created")
    eq(-1, vim.fn.bufnr(ws .. "/" .. extra_path), "no buffer for the new file")
  end)

  change_test("CtxdChange: gr rejects, closing the preview rejects; the buffer is untouched", function()
    return { answers = { diff_of(store_buf, list_row, { new_comment }) } }
  end, nil, function()
    local before = vim.api.nvim_buf_get_lines(store_buf, 0, -1, false)
    local tick = vim.api.nvim_buf_get_changedtick(store_buf)
    local st = start_change({ intent = "Say that List returns every item", bufnr = store_buf, ui = true })
    local state = wait_preview(st)
    vim.api.nvim_set_current_win(state.wins[1])
    vim.api.nvim_feedkeys("gr", "mx", false)
    wait_done(st)
    eq(nil, st.err, "error")
    eq("rejected", st.result.status, "status")
    eq(1, #vim.api.nvim_list_tabpages(), "the preview tab is closed")
    eq(before, vim.api.nvim_buf_get_lines(store_buf, 0, -1, false), "the buffer is untouched")
    eq(tick, vim.api.nvim_buf_get_changedtick(store_buf), "changedtick")
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      ok(not vim.api.nvim_buf_get_name(b):find("ctxd://change/", 1, true), "preview buffers are wiped")
    end
    ok(notes_at(vim.log.levels.INFO)[1]:find("change rejected", 1, true), vim.inspect(notes))
    -- :tabclose on the preview rejects too.
    st = start_change({ intent = "Say that List returns every item", bufnr = store_buf })
    wait_preview(st)
    vim.cmd("tabclose")
    wait_done(st)
    eq("rejected", st.result.status, "closing the preview")
    eq(before, vim.api.nvim_buf_get_lines(store_buf, 0, -1, false), "the buffer is untouched")
  end)

  local main_path = ws .. "/cmd/inventory/main.go"
  change_test("CtxdChange: a change of two files, one not loaded: ]f shows the second, ga applies both", function()
    -- main.go is read from disk, by ctxd and by the preview.
    local b = vim.fn.bufnr(main_path)
    if b > 0 then
      vim.cmd("bwipeout! " .. b)
    end
    local main_lines = vim.fn.readfile(main_path)
    return { answers = { "Two files:\n\n```diff\n"
      .. hunk_of("internal/store/store.go", vim.api.nvim_buf_get_lines(store_buf, 0, -1, false), list_row, { new_comment })
      .. "\n" .. hunk_of("cmd/inventory/main.go", main_lines, 1, { "// Command inventory serves the items over HTTP." })
      .. "\n```\n" } }
  end, nil, function()
    local before = vim.api.nvim_buf_get_lines(store_buf, 0, -1, false)
    local disk = vim.fn.readfile(main_path)
    local st = start_change({ intent = "Reword the comments", bufnr = store_buf, ui = true })
    local state = wait_preview(st)
    eq({ "internal/store/store.go", "cmd/inventory/main.go" }, state.files, "files")
    eq(1, state.index, "the first file first")
    eq(-1, vim.fn.bufnr(main_path), "main.go is not loaded for the preview")
    local right = state.wins[2]
    vim.api.nvim_set_current_win(right)
    vim.api.nvim_feedkeys("]f", "mx", false)
    eq(2, ctxd.change_state().index, "]f: the second file")
    local want_main = vim.deepcopy(disk)
    want_main[1] = "// Command inventory serves the items over HTTP."
    eq(disk, vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(state.wins[1]), 0, -1, false), "main.go before")
    eq(want_main, vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(right), 0, -1, false), "main.go after")
    local header = vim.fn.exists("+winbar") == 1 and vim.wo[right].winbar or vim.wo[right].statusline
    ok(header:find("[file 2/2]", 1, true) and header:find("ga accept all", 1, true), header)
    vim.api.nvim_feedkeys("[f", "mx", false)
    eq(1, ctxd.change_state().index, "[f: the first file again")
    vim.api.nvim_feedkeys("ga", "mx", false)
    wait_done(st)
    eq(nil, st.err, "error")
    eq("applied", st.result.status, "applied")
    eq(true, st.result.verified, "both buffers hold the texts ctxd checked")
    local want = vim.deepcopy(before)
    want[list_row] = new_comment
    eq(want, vim.api.nvim_buf_get_lines(store_buf, 0, -1, false), "store.go")
    local main_buf = vim.fn.bufnr(main_path)
    ok(main_buf > 0 and vim.api.nvim_buf_is_loaded(main_buf), "main.go is loaded to be changed")
    eq(want_main, vim.api.nvim_buf_get_lines(main_buf, 0, -1, false), "main.go")
    eq(disk, vim.fn.readfile(main_path), "nothing is written to disk")
    vim.cmd("silent undo")
    eq(before, vim.api.nvim_buf_get_lines(store_buf, 0, -1, false), "u undoes store.go")
    vim.cmd("bwipeout! " .. main_buf)
  end)

  change_test("CtxdChange: accept refuses when the buffer changed after the check", function()
    return { answers = { diff_of(store_buf, list_row, { new_comment }) } }
  end, nil, function()
    local st = start_change({ intent = "Say that List returns every item", bufnr = store_buf, ui = true })
    wait_preview(st)
    local first = vim.api.nvim_buf_get_lines(store_buf, 0, 1, false)
    vim.api.nvim_buf_set_lines(store_buf, 0, 1, false, { "// Package store keeps inventory items in memory!" })
    local edited = vim.api.nvim_buf_get_lines(store_buf, 0, -1, false)
    eq(false, ctxd.change_accept(), "accept refused")
    wait_done(st)
    eq("CTXD_STALE", st.err and st.err.code, "error: " .. vim.inspect(st.err))
    ok(st.err.message:find("internal/store/store.go changed since ctxd checked the change (changedtick ", 1, true),
      st.err.message)
    eq(edited, vim.api.nvim_buf_get_lines(store_buf, 0, -1, false), "only the user's edit")
    eq(1, #vim.api.nvim_list_tabpages(), "the preview tab is closed")
    eq({ st.err.message }, notes_at(vim.log.levels.WARN) and vim.tbl_map(function(m)
      return (m:gsub("^ctxd: ", ""))
    end, notes_at(vim.log.levels.WARN)), "said so")
    vim.api.nvim_buf_set_lines(store_buf, 0, 1, false, first)
  end)

  change_test("CtxdChange: :CtxdChangeCancel stops a streaming answer", function()
    return { answers = { { delay_ms = 100, text = string.rep("slow ", 200) } }, chunk = 4 }
  end, nil, function(_, use)
    local st = start_change({ intent = "Say that List returns every item", bufnr = store_buf, ui = true })
    wait_for(20000, function()
      local s = ctxd.change_state()
      return st.done or (s and s.phase == "model" and s.chars > 0)
    end, "the first characters")
    vim.cmd("CtxdChangeCancel")
    wait_done(st)
    eq("CTXD_CANCELLED", st.err and st.err.code, "error")
    eq(nil, ctxd.change_state(), "nothing runs")
    local chars = ctxd.change_log().attempts[1].chars
    eq(nil, chars, "the answer was never checked")
    -- The next change starts at once.
    use(fake_model({ answers = { diff_of(store_buf, list_row, { new_comment }) } }))
    st = start_change({ intent = "Say that List returns every item", bufnr = store_buf })
    wait_preview(st)
    -- In the preview, cancel is reject.
    vim.cmd("CtxdChangeCancel")
    wait_done(st)
    eq("rejected", st.result.status, "cancel in the preview rejects")
  end)

  change_test(":'<,'>CtxdChange asks for the intent, remembers it, and sends the selection", function()
    return { answers = { diff_of(store_buf, list_row, { new_comment }) } }
  end, nil, function()
    local asked
    local input = vim.ui.input
    restoring(function()
      vim.ui.input = function(opts, cb)
        asked = opts.prompt
        cb("Reword the comment of List")
      end
      local prev = require("ctxd.change").history()[1]
      vim.api.nvim_win_set_cursor(0, { list_row, 0 })
      vim.cmd("normal! Vj\27")
      vim.cmd("'<,'>CtxdChange")
      wait_for(30000, function()
        local s = ctxd.change_state()
        return s ~= nil and s.phase == "preview"
      end, "the preview")
      ok(asked and asked:find("ctxd change", 1, true), "vim.ui.input was asked: " .. tostring(asked))
      local sent = ctxd.change_log().attempts[1].request
      eq("Reword the comment of List", sent.intent.text, "intent")
      eq("diff", sent.purpose, "purpose")
      eq(list_row - 1, sent.selection.range.start.line, "selection start")
      eq(list_row, sent.selection.range["end"].line, "selection end")
      eq("attempt-1", sent.thread.turn_id, "turn")
      eq({}, sent.thread.declared_refs, "declared_refs")
      eq("Reword the comment of List", require("ctxd.change").history()[1], "remembered")
      eq(prev, vim.fn.histget("input", -1), "the last intent before is in the input history (<Up>)")
      vim.cmd("CtxdChangeCancel")
      eq(nil, ctxd.change_state(), "rejected")
      -- With an intent typed after the command nothing is asked.
      asked = nil
      vim.cmd("CtxdChange Say that List returns every item")
      wait_for(30000, function()
        local s = ctxd.change_state()
        return s ~= nil and s.phase == "preview"
      end, "the preview")
      eq(nil, asked, "not asked")
      local history = require("ctxd.change").history()
      eq({ "Say that List returns every item", "Reword the comment of List" }, { history[1], history[2] },
        "the history, newest first")
      vim.cmd("CtxdChangeCancel")
      -- ! picks a recent intent with vim.ui.select.
      local select = vim.ui.select
      local offered
      restoring(function()
        vim.ui.select = function(items, _, cb)
          offered = items
          cb(items[2])
        end
        vim.cmd("CtxdChange!")
      end, function()
        vim.ui.select = select
      end)
      eq({ "Say that List returns every item", "Reword the comment of List" }, { offered[1], offered[2] }, "offered")
      eq("Reword the comment of List", ctxd.change_state().intent, "the intent picked")
      vim.cmd("CtxdChangeCancel")
      -- A second change while one runs is refused.
      vim.cmd("CtxdChange one")
      local before = #notes
      vim.cmd("CtxdChange two")
      ok(#notes > before and notes[#notes].msg:find("a change is running", 1, true), vim.inspect(notes))
      vim.cmd("CtxdChangeCancel")
    end, function()
      vim.ui.input = input
    end)
  end)

  -- Issue 32 --------------------------------------------------------------------

  test(":CtxdBuild and :CtxdPrompt ask for an optional intent: sent, shown, remembered", function()
    focus(store_buf)
    local intents = require("ctxd.intents")
    intent_prompts = {}
    intent_answers = { "sort the list by name" }
    local lines = results("CtxdBuild")
    eq({ intents.prompt }, intent_prompts, "vim.ui.input asked once")
    local sent = ctxd.last_request().arguments[1]
    eq({ id = request.intent_id, text = "sort the list by name" }, sent.intent, "the intent sent")
    has_line(lines, "- intent: sort the list by name", "the results name it")
    has_line(lines, "Intent (" .. request.intent_id .. "):", "the system block carries it")
    eq("sort the list by name", intents.history()[1], "remembered")
    -- Enter on an empty line (nil on 0.7) or <Esc>: built without one.
    for _, answer in ipairs({ "", vim.NIL }) do
      intent_answers = { answer }
      lines = results("CtxdBuild")
      eq(nil, ctxd.last_request().arguments[1].intent, "no intent for " .. vim.inspect(answer))
      for _, l in ipairs(lines) do
        ok(not l:find("- intent:", 1, true) and not l:find("Intent (", 1, true), "no intent line: " .. l)
      end
    end
    eq("sort the list by name", intents.history()[1], "an empty answer is not remembered")
    eq("sort the list by name", vim.fn.histget("input", -1), "<Up> in the next prompt recalls it")
    -- :CtxdPrompt asks too; the previews do not.
    intent_prompts = {}
    intent_answers = { "keep the API" }
    vim.fn.setreg("a", "")
    vim.cmd("CtxdPrompt a")
    wait_for(20000, function()
      return vim.fn.getreg("a") ~= ""
    end, "register a")
    ok(vim.fn.getreg("a"):find("keep the API", 1, true), "the intent is in the prompt")
    eq({ "keep the API", "sort the list by name" }, { intents.history()[1], intents.history()[2] }, "newest first")
    results("CtxdBudget")
    results("CtxdManifest")
    eq(1, #intent_prompts, ":CtxdBudget and :CtxdManifest do not ask")
    restoring(function()
      ctxd.setup({ ask_intent = false })
      intent_prompts = {}
      results("CtxdBuild")
      eq(0, #intent_prompts, "ask_intent = false: no question")
      eq(nil, ctxd.last_request().arguments[1].intent, "and no intent")
    end, function()
      ctxd.setup({})
    end)
  end)

  test(":CtxdBuild with symbols sends what the user typed and nothing more", function()
    focus(store_buf)
    local lines = results("CtxdBuild plan Store.List")
    local sent = ctxd.last_request().arguments[1]
    eq({ id = request.symbols_plan_step_id, target_symbols = { "Store.List" } }, sent.plan_step,
      "target_symbols, no plan step text")
    eq(nil, sent.intent, "no intent")
    has_line(lines, "- symbols: Store.List", "the symbol is the target")
    for _, l in ipairs(lines) do
      ok(not l:find("Plan step (", 1, true), "a plan step line the user never wrote: " .. l)
    end
  end)

  test("the same request as VS Code's gives the same bundle: no plan step text, the server's line counts", function()
    focus(store_buf)
    intent_answers = { "" }
    local lines = results("CtxdBuild plan Store.List")
    local nvim_req = ctxd.last_request().arguments[1]
    local _, mine = call(ctxd.build_context, { bufnr = store_buf, purpose = "plan", plan_step = nvim_req.plan_step })
    -- What VS Code sends for Build Context for Symbol… (editors/vscode/src/request.ts): the
    -- purpose, the active file and a plan step of the symbols with no text.
    local vscode = { purpose = "plan", active_file = vim.uri_from_bufnr(store_buf),
      plan_step = { id = "symbols", target_symbols = { "Store.List" } } }
    eq(vscode, nvim_req, "the same request")
    local _, theirs = call(ctxd.build_context, { bufnr = store_buf, purpose = "plan", plan_step = vscode.plan_step })
    local function blocks(r)
      return vim.tbl_map(function(b)
        return { b.block_type, b.title, b.content, b.meta.line_count }
      end, r.bundle.blocks)
    end
    eq(blocks(theirs), blocks(mine), "the blocks")
    eq(theirs.manifest.correlation_id, mine.manifest.correlation_id, "the correlation id (it hashes the request)")
    eq(theirs.budget_report.estimated_input_tokens, mine.budget_report.estimated_input_tokens, "the tokens")
    for i, b in ipairs(mine.bundle.blocks) do
      local row = string.format("| %d | %s | %s |", i, b.priority, b.block_type)
      for _, l in ipairs(lines) do
        if l:find(row, 1, true) == 1 then
          ok(l:find("| " .. b.meta.line_count .. " |$"), "the server's line count in: " .. l)
        end
      end
    end
  end)

  test("completion after :CtxdBuild: purposes, then the workspace's symbols from the server", function()
    focus(store_buf)
    ready_client(store_buf)
    local items = vim.fn.getcompletion("CtxdBuild Li", "cmdline")
    ok(config.contains(items, "Store.List"), "Li: " .. vim.inspect(items))
    items = vim.fn.getcompletion("CtxdBuild plan Store.L", "cmdline")
    ok(#items > 0 and config.contains(items, "Store.List"), "Store.L: " .. vim.inspect(items))
    for _, it in ipairs(items) do
      ok(it:lower():find("store.l", 1, true), "a qualified query completes names that contain it: " .. it)
    end
    items = vim.fn.getcompletion("CtxdPrompt a Sto", "cmdline")
    eq("Store", items[1], "exact and prefix matches first: " .. vim.inspect(items))
    eq({ "intent" }, vim.fn.getcompletion("CtxdBudget inte", "cmdline"), "a purpose, no symbol matches")
  end)

  test("protocol: the server's protocol is checked at start, as the VS Code extension does", function()
    local P = contract.protocol_version
    ok(type(P) == "number", "contract.protocol_version")
    local cases = {
      { '{"version":"b4399c8","protocol_version":' .. P .. '}', 0, "match" },
      { '{"version":"v1.0.0","protocol_version":' .. (P + 1) .. '}', 0, "mismatch" },
      { '{"version":"v0.4.1"}', 0, "match" },
      { '{"version":"v2.0.0"}', 0, "mismatch" },
      { '{"version":"v0.3.0-4-g5a5e5dd-dirty"}', 0, "unknown" },
      { '{"version":"devel","protocol_version":"1"}', 0, "unknown" },
      { "ctxd 1.0.0", 0, "unknown" },
      { "", 2, "unknown" },
    }
    for _, c in ipairs(cases) do
      eq(c[3], client.decide_protocol(c[1], c[2], "ctxd").kind, "decision for " .. c[1])
    end
    ok(client.decide_protocol(cases[2][1], 0, "ctxd").message:find("speaks protocol " .. (P + 1) .. ", but this plugin speaks protocol " .. P, 1, true),
      "the mismatch names both")
    -- A binary of another protocol is not started.
    local fake = tmp .. "/otherproto/ctxd"
    vim.fn.mkdir(tmp .. "/otherproto", "p")
    vim.fn.writefile({ "#!/bin/sh", "echo '{\"version\":\"v0.9.0\",\"protocol_version\":" .. (P + 1) .. "}'" }, fake)
    vim.fn.setfperm(fake, "rwxr-xr-x")
    local buf
    restoring(function()
      ctxd.setup({ cmd = { fake, "serve", "--stdio" } })
      notes = {}
      vim.cmd("edit " .. vim.fn.fnameescape(ws .. "/internal/store/proto_check.go"))
      buf = vim.api.nvim_get_current_buf()
      wait_for(2000, function()
        return #notes > 0
      end, "the warning of the autocommand")
      eq(vim.log.levels.WARN, notes[1].level, "a warning: " .. notes[1].msg)
      ok(notes[1].msg:find("speaks protocol " .. (P + 1), 1, true), notes[1].msg)
      local err = call(ctxd.budget, { bufnr = buf })
      eq("CTXD_START_FAILED", err and err.code, "error: " .. vim.inspect(err))
      ok(err.message:find("speaks protocol " .. (P + 1), 1, true), err.message)
      eq(nil, client.get(buf), "no client started")
    end, function()
      ctxd.setup({})
      focus(store_buf)
      if buf then
        vim.cmd("bwipeout! " .. buf)
      end
    end)
  end)

  test("a missing binary: one warning line after the autocommand, not an error inside it", function()
    local missing = tmp .. "/no/such/ctxd"
    local bufs = {}
    restoring(function()
      ctxd.setup({ cmd = { missing, "serve", "--stdio" } })
      notes = {}
      local during
      vim.api.nvim_create_autocmd("FileType", {
        pattern = "go",
        once = true,
        callback = function()
          during = #notes
        end,
      })
      vim.cmd("edit " .. vim.fn.fnameescape(ws .. "/internal/store/missing_bin.go"))
      table.insert(bufs, vim.api.nvim_get_current_buf())
      eq(0, during, "nothing is shown inside the autocommands")
      wait_for(2000, function()
        return #notes > 0
      end, "the warning")
      vim.cmd("edit " .. vim.fn.fnameescape(ws .. "/internal/store/missing_bin2.go"))
      table.insert(bufs, vim.api.nvim_get_current_buf())
      vim.wait(100)
      eq(1, #notes, "one warning, once: " .. vim.inspect(notes))
      eq(vim.log.levels.WARN, notes[1].level, "a warning")
      local width = require("ctxd.errors").message_width()
      ok(not notes[1].msg:find("\n") and vim.fn.strdisplaywidth(notes[1].msg) <= width,
        "one line that fits (" .. width .. " cells): " .. notes[1].msg)
      ok(notes[1].msg:find("not found: …", 1, true) and notes[1].msg:find("/ctxd (:checkhealth ctxd)", 1, true), notes[1].msg)
      -- A command says the same in one line, without asking for an
      -- intent no server could take.
      notes = {}
      intent_prompts = {}
      vim.cmd("CtxdBuild")
      wait_for(2000, function()
        return #notes > 0
      end, "the command's error")
      eq(0, #intent_prompts, "no intent asked")
      eq({ ctxd.start_failed_line({ missing = missing }) }, notes_at(vim.log.levels.ERROR), "one line")
      ok(vim.fn.strdisplaywidth(notes[1].msg) <= width, "that fits: " .. notes[1].msg)
      -- :checkhealth's advice fits an archive install and a clone alike.
      vim.cmd("checkhealth ctxd")
      local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
      vim.cmd("tabclose")
      ok(text:find("from a release archive", 1, true) and text:find("make build", 1, true), "install advice:\n" .. text)
      ok(text:find("no ctxd client is attached", 1, true), "no client:\n" .. text)
      ok(text:find("get_log_path", 1, true) and not text:find("LspInfo", 1, true), "advice without lspconfig:\n" .. text)
    end, function()
      ctxd.setup({})
      focus(store_buf)
      for _, b in ipairs(bufs) do
        pcall(vim.cmd, "bwipeout! " .. b)
      end
    end)
  end)

  test(":CtxdStatus says how each open buffer stands to its file", function()
    focus(store_buf)
    vim.cmd("edit " .. vim.fn.fnameescape(ws .. "/cmd/inventory/main.go"))
    local main_buf = vim.api.nvim_get_current_buf()
    ready_client(main_buf)
    eq(false, vim.bo[main_buf].modified, "main.go is as read")
    focus(store_buf)
    ok(vim.bo[store_buf].modified, "store.go was edited by an earlier test")
    local lines = results("CtxdStatus")
    local function row(buf)
      for _, l in ipairs(lines) do
        if l:find(vim.uri_from_bufnr(buf), 1, true) then
          return l
        end
      end
      return ""
    end
    ok(row(main_buf):find("| as read |", 1, true), "a buffer opened, not changed: " .. row(main_buf))
    ok(row(store_buf):find("| unsaved changes |", 1, true), "an edited buffer: " .. row(store_buf))
    has_line(lines, render.disk_legend, "the legend says what the column means")
    eq("written (:w)", render.disk_state(true, false), "saved after :w")
    eq("not written", render.disk_state(false, nil), "not loaded here")
  end)

  test("README.md's links lead to files the release archive's nvim/ has", function()
    -- tools/dist/dist.sh copies editors/nvim without tests/ and dotfiles.
    local text = ""
    for _, f in ipairs(vim.fn.glob(plugin_dir .. "/*.md", false, true)) do
      text = text .. "\n" .. read(f)
    end
    local n = 0
    for target in text:gmatch("%]%(([^)%s]+)%)") do
      if not target:match("^%a[%w+.-]*:") and not target:match("^#") then
        n = n + 1
        local path = target:gsub("#.*$", "")
        ok(not path:match("^%.%./") and not path:match("^/"), "a link out of nvim/: " .. target)
        ok(not path:match("^tests/") and not path:match("^%.") and not path:match("/%."), "a file the archive leaves out: " .. target)
        ok(vim.loop.fs_stat(plugin_dir .. "/" .. path), "no such file: " .. target)
      end
    end
    ok(n > 0, "README.md links a file")
  end)

  test(":checkhealth ctxd reports no errors", function()
    focus(store_buf)
    -- A key in the environment: said to be set, never shown.
    local saved_key = vim.env.OPENAI_API_KEY
    local key = "sk-" .. vim.fn.sha256(tostring(uv.hrtime())):sub(1, 30)
    local text
    restoring(function()
      vim.env.OPENAI_API_KEY = key
      vim.cmd("checkhealth ctxd")
      local buf = vim.api.nvim_get_current_buf()
      local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
      text = table.concat(lines, "\n")
    end, function()
      vim.env.OPENAI_API_KEY = saved_key
    end)
    ok(not text:find("ERROR", 1, true), "errors in:\n" .. text)
    ok(text:find("ctxd version: ctxd", 1, true), "version line in:\n" .. text)
    ok(text:find("protocol: ctxd .* speaks protocol " .. contract.protocol_version), "protocol line in:\n" .. text)
    ok(text:find("client %d+ attached"), "attachment in:\n" .. text)
    ok(text:find("the server accepts the configuration", 1, true), "config check in:\n" .. text)
    ok(text:find("ctxd: :CtxdChange", 1, true), "the change section in:\n" .. text)
    ok(text:find("curl is executable", 1, true), "curl in:\n" .. text)
    ok(text:find("https://api.openai.com/v1/chat/completions", 1, true), "where the prompt goes in:\n" .. text)
    ok(text:find("API key from $OPENAI_API_KEY (set)", 1, true), "the key source in:\n" .. text)
    ok(not text:find(key, 1, true), "the key itself is shown:\n" .. text)
    vim.cmd("tabclose")
  end)

  test("lsp/ctxd.lua is a vim.lsp.config table", function()
    local cfg = dofile(plugin_dir .. "/lsp/ctxd.lua")
    eq({ "ctxd", "serve", "--stdio" }, cfg.cmd, "cmd")
    eq(nil, cfg.filetypes, "filetypes: every filetype")
    eq("table", type(cfg.root_markers), "root_markers")
    eq(".ctxd", cfg.root_markers[1], "first root marker")
    eq("function", type(cfg.root_dir), "root_dir")
    eq("function", type(cfg.on_attach), "on_attach")
    eq(require("ctxd.progress").handler, cfg.handlers and cfg.handlers["$/progress"], "the $/progress handler")
    local got
    cfg.root_dir(store_buf, function(dir)
      got = dir
    end)
    eq(ws, got, "root_dir of store.go")
    got = nil
    cfg.root_dir(vim.api.nvim_create_buf(false, true), function(dir)
      got = dir
    end)
    eq(nil, got, "no root for a scratch buffer")
  end)

  test("doc/*.txt: :helptags and :help work; ctxd-refusals is left to doc/ctxd-refusals.txt", function()
    local doc = tmp .. "/rtp/doc"
    vim.fn.mkdir(doc, "p")
    -- Every help file of the plugin together, as :helptags ALL sees them:
    -- a tag defined twice (E154) fails here.
    local files = vim.fn.glob(plugin_dir .. "/doc/*.txt", false, true)
    for _, f in ipairs(files) do
      vim.fn.writefile(vim.fn.readfile(f, "b"), doc .. "/" .. vim.fn.fnamemodify(f, ":t"), "b")
    end
    local success, msg = pcall(vim.cmd, "helptags " .. vim.fn.fnameescape(doc))
    ok(success, ":helptags: " .. tostring(msg))
    local tags = {}
    for _, l in ipairs(vim.fn.readfile(doc .. "/tags")) do
      local name, file = l:match("^([^\t]+)\t([^\t]+)")
      tags[name] = file
    end
    for _, t in ipairs({ "ctxd", "ctxd.nvim", ":CtxdBuild", ":CtxdBudget", ":CtxdManifest", ":CtxdPrompt", ":CtxdStatus",
      "ctxd-config", "ctxd-api", "ctxd-statusline", "ctxd-progress", "ctxd-health", "ctxd-refusal-ui", "ctxd.build_context()",
      "ctxd-change", ":CtxdChange", ":CtxdChangeCancel", ":CtxdChangeLog", "ctxd-change-config", "ctxd-change-preview",
      "ctxd-change-privacy", "ctxd.change()", "ctxd-intent" }) do
      eq("ctxd.txt", tags[t], "file of tag " .. t)
    end
    -- The refusal codes' help (doc/ctxd-refusals.txt, generated apart)
    -- owns the tag the refusal window points to; ctxd.txt must not
    -- define it too.
    local own = vim.fn.filereadable(plugin_dir .. "/doc/ctxd-refusals.txt") == 1 and "ctxd-refusals.txt" or nil
    eq(own, tags["ctxd-refusals"], "file of tag ctxd-refusals")
    vim.opt.runtimepath:append(tmp .. "/rtp")
    vim.cmd("help ctxd-api")
    ok(vim.api.nvim_buf_get_name(0):match("ctxd%.txt$"), "help opened ctxd.txt")
    vim.cmd("helpclose")
  end)

  test("doc/tags written by :helptags is ignored by git", function()
    if vim.fn.executable("git") ~= 1 then
      out("# skipped: git not found")
      return
    end
    vim.fn.system({ "git", "-C", plugin_dir, "rev-parse", "--is-inside-work-tree" })
    if vim.v.shell_error ~= 0 then
      out("# skipped: " .. plugin_dir .. " is not in a git work tree")
      return
    end
    vim.fn.system({ "git", "-C", plugin_dir, "check-ignore", "-q", "doc/tags" })
    eq(0, vim.v.shell_error, "git check-ignore doc/tags (exit status)")
    vim.fn.system({ "git", "-C", plugin_dir, "check-ignore", "-q", "doc/ctxd.txt" })
    eq(1, vim.v.shell_error, "doc/ctxd.txt is not ignored")
  end)

  -- Runner -------------------------------------------------------------------

  local failed = 0
  local started = uv.hrtime()
  for i, t in ipairs(tests) do
    local t0 = uv.hrtime()
    local success, err = xpcall(t.fn, debug.traceback)
    local ms = (uv.hrtime() - t0) / 1e6
    if success then
      out(string.format("ok %d - %s (%.0f ms)", i, t.name, ms))
    else
      failed = failed + 1
      out(string.format("not ok %d - %s (%.0f ms)\n%s", i, t.name, ms, err))
    end
  end
  out(string.format("%d passed, %d failed in %.1f s on Neovim %s", #tests - failed, failed,
    (uv.hrtime() - started) / 1e9, tostring(vim.version().major .. "." .. vim.version().minor .. "." .. vim.version().patch)))

  for _, c in ipairs(client.all()) do
    client.stop(c)
  end
  vim.wait(3000, function()
    return #client.all() == 0
  end, 20)
  vim.fn.delete(tmp, "rf")
  if failed > 0 then
    vim.cmd("cquit 1")
  else
    vim.cmd("qa!")
  end
end

local success, err = xpcall(main, debug.traceback)
if not success then
  out("not ok - the suite could not run\n" .. tostring(err))
  vim.cmd("cquit 2")
end
