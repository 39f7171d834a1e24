-- Pure rendering of ctxd results to lines of Markdown (the results buffer),
-- to register text (:CtxdPrompt) and to the statusline component. Nothing
-- here reads editor state, so every function can be tested on decoded
-- JSON tables.
local M = {}

local function str(v)
  if v == nil or v == vim.NIL then
    return ""
  end
  return tostring(v)
end

local function list(v)
  if type(v) ~= "table" then
    return {}
  end
  return v
end

-- sorted_counts turns a {name = count} table into "name count" strings
-- sorted by name (map order must not reach the output).
local function sorted_counts(map)
  local out = {}
  if type(map) ~= "table" then
    return out
  end
  local keys = {}
  for k in pairs(map) do
    table.insert(keys, k)
  end
  table.sort(keys)
  for _, k in ipairs(keys) do
    table.insert(out, k .. " " .. str(map[k]))
  end
  return out
end

-- cell makes a value safe inside a Markdown table cell.
local function cell(v)
  local s = str(v):gsub("[\r\n]+", " "):gsub("|", "\\|")
  return s
end

-- Columns of numbers, aligned right.
local numeric = { ["#"] = true, bytes = true, lines = true, version = true, ["file bytes"] = true }

local function add_table(out, headers, rows)
  table.insert(out, "| " .. table.concat(headers, " | ") .. " |")
  local rule = {}
  for _, h in ipairs(headers) do
    table.insert(rule, numeric[h] and "---:" or "---")
  end
  table.insert(out, "| " .. table.concat(rule, " | ") .. " |")
  for _, row in ipairs(rows) do
    local cells = {}
    for i = 1, #headers do
      table.insert(cells, cell(row[i]))
    end
    table.insert(out, "| " .. table.concat(cells, " | ") .. " |")
  end
end

local function split_lines(text)
  local out = {}
  text = str(text)
  if text == "" then
    return out
  end
  local start = 1
  while true do
    local i = text:find("\n", start, true)
    if not i then
      table.insert(out, (text:sub(start):gsub("\r$", "")))
      break
    end
    table.insert(out, (text:sub(start, i - 1):gsub("\r$", "")))
    start = i + 1
    if start > #text then
      break
    end
  end
  return out
end
M.split_lines = split_lines

-- lines_label turns a 0-based LSP range (as sent and as the server
-- returns them) into 1-based line numbers for people: "line 49" or
-- "lines 3-8". An end at character 0 of a later line ends on the line
-- before it. "" when range is not a range.
function M.lines_label(range)
  if type(range) ~= "table" or type(range.start) ~= "table" or type(range["end"]) ~= "table" then
    return ""
  end
  local s, e = range.start, range["end"]
  if type(s.line) ~= "number" or type(e.line) ~= "number" then
    return ""
  end
  local first, last = s.line + 1, e.line + 1
  if e.character == 0 and e.line > s.line then
    last = e.line
  end
  if last <= first then
    return "line " .. first
  end
  return string.format("lines %d-%d", first, last)
end

-- wrap breaks text into lines of at most width display cells at spaces,
-- after prefix on the first line and as many spaces on the others (a word
-- longer than width stays whole).
function M.wrap(text, width, prefix)
  prefix = prefix or ""
  local indent = string.rep(" ", vim.fn.strdisplaywidth(prefix))
  local out = {}
  local line = prefix
  local empty = true
  for word in str(text):gmatch("%S+") do
    local candidate = empty and (line .. word) or (line .. " " .. word)
    if not empty and vim.fn.strdisplaywidth(candidate) > width then
      table.insert(out, line)
      line = indent .. word
    else
      line = candidate
    end
    empty = false
  end
  table.insert(out, line)
  return out
end

-- fence returns a code fence longer than any run of backticks in text, so
-- a block's content can never close it early.
function M.fence(text)
  local longest = 0
  for run in str(text):gmatch("`+") do
    longest = math.max(longest, #run)
  end
  return string.rep("`", math.max(3, longest + 1))
end

local languages = {
  go = "go", ts = "typescript", tsx = "tsx", js = "javascript", jsx = "javascript", mjs = "javascript",
  lua = "lua", py = "python", rs = "rust", rb = "ruby", java = "java", kt = "kotlin", c = "c", h = "c",
  cc = "cpp", cpp = "cpp", hpp = "cpp", cs = "cs", sh = "sh", bash = "bash", json = "json", yaml = "yaml",
  yml = "yaml", toml = "toml", md = "markdown", sql = "sql", html = "html", css = "css", php = "php",
  swift = "swift", scala = "scala", proto = "proto", tf = "hcl", hcl = "hcl", mod = "gomod",
}

-- language guesses a fence language from a path's extension ("" if none).
function M.language(path)
  local ext = str(path):match("%.([%w_]+)$")
  return ext and languages[ext:lower()] or ""
end

local function heading(out, text)
  if #out > 0 and out[#out] ~= "" then
    table.insert(out, "")
  end
  table.insert(out, text)
  table.insert(out, "")
end

-- table_section writes "## title (n)" and a table with one row(item) per
-- item, or _none_ when there are none.
local function table_section(out, title, items, headers, row)
  heading(out, string.format("## %s (%d)", title, #items))
  if #items == 0 then
    table.insert(out, "_none_")
    return
  end
  local rows = {}
  for i, it in ipairs(items) do
    table.insert(rows, row(it, i))
  end
  add_table(out, headers, rows)
end

-- The refusal of a build whose required blocks alone exceed the hard
-- limit names their count after slicing, and so does its budget report's
-- estimate (the statusline's number): the P1 context would be dropped
-- before a refusal (docs/contract.md, "Budget").
M.over_hard_limit = "over the hard limit: the required blocks (system, constraints, targets), after slicing,"
  .. " alone exceed it, so a build is refused; this estimate (the statusline's number) counts those blocks"

-- hard_limit_numbers returns the two numbers of a refusal of a build over
-- the hard limit (its budget report's decision is refuse_hard_limit): the
-- tokens its message gives (nil when the message does not say) and its
-- budget report's estimate (the statusline's number), both the required
-- blocks after slicing. nil when err is not such a refusal.
function M.hard_limit_numbers(err)
  local br = type(err) == "table" and err.budget_report
  if type(br) ~= "table" or br.decision ~= "refuse_hard_limit" then
    return nil
  end
  local needs = tonumber(str(err.message):match("needs (%d+) tokens") or "")
  return { required = needs, estimate = tonumber(br.estimated_input_tokens), hard_limit = tonumber(br.hard_limit_tokens) }
end

-- refusal_budget_note is the line a refusal's notification gets if its
-- message and the statusline ever give different numbers for one build
-- (a server older than the one-figure refusal): it names both. nil when
-- they agree.
function M.refusal_budget_note(err)
  local n = M.hard_limit_numbers(err)
  if not n or not n.estimate or n.required == n.estimate then
    return nil
  end
  local required = n.required and (tostring(n.required) .. " tokens") or "the message's count"
  return string.format("ctxd: %s = the required blocks alone; the statusline's %d/%s = the estimate, which also"
    .. " counts the P1 context (:help ctxd-statusline)", required, n.estimate, str(n.hard_limit))
end

local function budget_section(out, br)
  if type(br) ~= "table" then
    return
  end
  heading(out, "## Budget: " .. str(br.decision))
  table.insert(out, string.format("- estimated input tokens: %s of %s (hard limit); soft limit %s",
    str(br.estimated_input_tokens), str(br.hard_limit_tokens), str(br.soft_limit_tokens)))
  if br.decision == "refuse_hard_limit" then
    table.insert(out, "- " .. M.over_hard_limit)
  end
  table.insert(out, string.format("- model input window: %s tokens, %s reserved for the output",
    str(br.max_input_tokens), str(br.reserve_output_tokens)))
  for _, n in ipairs(list(br.notes)) do
    table.insert(out, "- note: " .. str(n))
  end
end

local function selection_section(out, manifest)
  if type(manifest) ~= "table" then
    return
  end
  local sel = manifest.selection
  if type(sel) ~= "table" then
    return
  end
  heading(out, "## Targets")
  local files = list(sel.target_files)
  local symbols = list(sel.target_symbols)
  table.insert(out, "- files: " .. (#files > 0 and table.concat(files, ", ") or "none"))
  table.insert(out, "- symbols: " .. (#symbols > 0 and table.concat(symbols, ", ") or "none"))

  table_section(out, "Included files", list(sel.included_files), { "path", "reason", "file bytes", "encoding" }, function(f)
    return { f.path, f.reason, f.byte_size, f.encoding }
  end)
  table_section(out, "Excluded candidates", list(sel.excluded_candidates), { "path", "reason" }, function(e)
    return { e.path, e.reason }
  end)
end

local function redaction_section(out, rr)
  local redactions = type(rr) == "table" and list(rr.redactions) or {}
  table_section(out, "Redactions", redactions, { "type", "target", "reason", "details" }, function(r)
    return { r.type, r.target, r.reason, r.details }
  end)
end

local function fingerprints(out, manifest)
  local fp = type(manifest) == "table" and manifest.fingerprints
  if type(fp) ~= "table" then
    return
  end
  heading(out, "## Fingerprints")
  table.insert(out, "- bundle: `" .. str(fp.bundle_fingerprint) .. "`")
  table.insert(out, "- project index: `" .. str(fp.project_index_fingerprint) .. "`")
  table.insert(out, "- config: `" .. str(fp.config_fingerprint) .. "`")
end

-- fallback_note follows the file a command worked on when it ran from a
-- buffer that is not a file (the results window, a terminal, help).
M.fallback_note = "(the last file buffer: the current buffer is not a file ctxd serves)"

-- fallback_notice is the notification a command gives as it starts from
-- a buffer that is not a file: which file it works on instead, and, when
-- a range was typed, that the range is not sent (it numbers the lines of
-- the other buffer). width (nil: no limit) is the most display cells it
-- may take: the note gets shorter, then the path loses its start.
function M.fallback_notice(file, ranged, width)
  local range = ranged and "; the range is not sent" or ""
  file = str(file)
  local text = "ctxd: working on " .. file .. " " .. M.fallback_note .. range
  if not width or vim.fn.strdisplaywidth(text) <= width then
    return text
  end
  local short = " (the last file buffer)" .. range
  local room = width - vim.fn.strdisplaywidth("ctxd: working on " .. short)
  return "ctxd: working on " .. require("ctxd.errors").tail(file, math.max(room, 8)) .. short
end

local function header(out, title, info, manifest, extra)
  table.insert(out, "# " .. title)
  table.insert(out, "")
  if info and info.file then
    table.insert(out, "- file: " .. info.file .. (info.fallback and (" " .. M.fallback_note) or ""))
  end
  if info and info.selection then
    local l = M.lines_label(info.selection)
    if l ~= "" then
      table.insert(out, "- selection: " .. l)
    end
  elseif info and info.range_ignored then
    table.insert(out, "- selection: none (the range was given in a buffer that is not this file)")
  end
  if info and info.intent then
    table.insert(out, "- intent: " .. (str(info.intent):gsub("[\r\n]+", " ")))
  end
  if type(manifest) == "table" then
    table.insert(out, "- purpose: " .. str(manifest.purpose))
    if str(manifest.bundle_id) ~= "" then
      table.insert(out, "- bundle: `" .. str(manifest.bundle_id) .. "`")
    end
    table.insert(out, "- correlation: `" .. str(manifest.correlation_id) .. "`")
  end
  for _, line in ipairs(extra or {}) do
    table.insert(out, line)
  end
end

-- block_rows lists the blocks with the bytes of what is sent (each
-- block's own content, after slicing and redaction) and the server's line
-- count (meta.line_count): of the whole file as read for file and symbol
-- blocks, of the content for the others (docs/contract.md, "Blocks and
-- their order"). No line is counted here: the same bundle shows the same
-- numbers in every client (issue 32: 59 lines here, 60 in VS Code, for
-- one file). A sliced block's title says which lines were sent.
local function block_rows(blocks)
  local rows = {}
  for i, b in ipairs(blocks) do
    local meta = type(b.meta) == "table" and b.meta or {}
    table.insert(rows, { i, b.priority, b.block_type, b.title, meta.path, #str(b.content), meta.line_count })
  end
  return rows
end

-- blocks_legend follows the Blocks table: what its two numbers count.
M.blocks_legend = "_bytes_: the block's content as sent; _lines_: the server's line count, of the whole file for"
  .. " file and symbol blocks (a sliced block's title names the lines sent), of the content for the others"

-- build renders a ctxd.buildContext result. info: { file?, show_content? }.
function M.build(result, info)
  info = info or {}
  local out = {}
  local bundle = type(result.bundle) == "table" and result.bundle or {}
  local extra = {}
  local model = type(bundle.model) == "table" and bundle.model or nil
  if model then
    table.insert(extra, "- model: " .. str(model.provider) .. "/" .. str(model.model))
  end
  if str(bundle.created_at) ~= "" then
    table.insert(extra, "- created: " .. str(bundle.created_at))
  end
  header(out, "ctxd build", info, result.manifest, extra)
  budget_section(out, result.budget_report)
  selection_section(out, result.manifest)
  local blocks = list(bundle.blocks)
  heading(out, string.format("## Blocks (%d)", #blocks))
  if #blocks == 0 then
    table.insert(out, "_none_")
  else
    add_table(out, { "#", "priority", "type", "title", "path", "bytes", "lines" }, block_rows(blocks))
    table.insert(out, "")
    table.insert(out, M.blocks_legend)
  end
  redaction_section(out, result.redaction_report)
  fingerprints(out, result.manifest)
  if info.show_content ~= false and #blocks > 0 then
    heading(out, "## Contents")
    for i, b in ipairs(blocks) do
      local meta = type(b.meta) == "table" and b.meta or {}
      heading(out, string.format("### %d. %s %s: %s", i, str(b.priority), str(b.block_type), str(b.title)))
      local f = M.fence(b.content)
      table.insert(out, f .. M.language(meta.path))
      for _, l in ipairs(split_lines(b.content)) do
        table.insert(out, l)
      end
      table.insert(out, f)
    end
  end
  return out
end

-- manifest renders a ctxd.manifest result.
function M.manifest(result, info)
  local out = {}
  header(out, "ctxd manifest", info, result.manifest)
  budget_section(out, result.budget_report)
  selection_section(out, result.manifest)
  redaction_section(out, result.redaction_report)
  fingerprints(out, result.manifest)
  return out
end

-- budget renders a ctxd.budget result ({budget_report, counts}).
function M.budget(result, info)
  local out = {}
  header(out, "ctxd budget", info, nil, info and info.purpose and { "- purpose: " .. info.purpose } or nil)
  budget_section(out, result.budget_report)
  local c = type(result.counts) == "table" and result.counts or nil
  if c then
    heading(out, "## Counts")
    local blocks = type(c.blocks) == "table" and c.blocks or {}
    local parts = {}
    for _, p in ipairs(require("ctxd.contract").priorities or { "P0", "P1", "P2", "P3" }) do
      table.insert(parts, p .. " " .. str(blocks[p] or 0))
    end
    table.insert(out, "- blocks: " .. table.concat(parts, ", "))
    table.insert(out, "- files: " .. str(c.files))
    table.insert(out, "- target files: " .. str(c.target_files))
    table.insert(out, "- excluded candidates: " .. str(c.excluded))
    table.insert(out, "- redactions: " .. str(c.redactions))
  end
  return out
end

-- prompt_text renders a prompt's messages for a register: each message
-- under a "## role" heading, in order.
function M.prompt_text(prompt)
  local out = {}
  for i, m in ipairs(list(type(prompt) == "table" and prompt.messages)) do
    if i > 1 then
      table.insert(out, "")
    end
    table.insert(out, "## " .. str(m.role))
    table.insert(out, "")
    for _, l in ipairs(split_lines(m.content)) do
      table.insert(out, l)
    end
  end
  return out
end

-- prompt_summary is the one-line message after :CtxdPrompt. info: {
-- file?, fallback? } names the file the prompt was built for. width
-- (nil: no limit) is the most display cells it may take: the artifact's
-- path goes first, then the file, then the template, and what is still
-- too wide is cut, so that it never needs a hit-enter prompt.
function M.prompt_summary(result, register, info, width)
  info = info or {}
  local p = type(result.prompt) == "table" and result.prompt or {}
  local tc = type(p.token_counts) == "table" and p.token_counts or {}
  local file = ""
  if info.file then
    file = " for " .. info.file .. (info.fallback and (" " .. M.fallback_note) or "")
  end
  local core = string.format("(%s messages, %s tokens of %s) in register %s", #list(p.messages), str(tc.total),
    str(tc.hard_limit), register)
  local variants = {
    string.format("ctxd: prompt %s%s %s; artifact %s", str(p.template_id), file, core, str(result.prompt_artifact)),
    string.format("ctxd: prompt %s%s %s", str(p.template_id), file, core),
    string.format("ctxd: prompt %s %s", str(p.template_id), core),
    string.format("ctxd: prompt %s", core),
  }
  if not width then
    return variants[1]
  end
  for _, v in ipairs(variants) do
    if vim.fn.strdisplaywidth(v) <= width then
      return v
    end
  end
  return require("ctxd.errors").one_line(variants[#variants], width + 1)
end

-- index_status renders a ctxd.indexStatus result. info: { file?,
-- fallback? }, the file whose workspace's server answered.
function M.index_status(result, info)
  local out = { "# ctxd status", "" }
  if info and info.file then
    table.insert(out, "- file: " .. info.file .. (info.fallback and (" " .. M.fallback_note) or ""))
  end
  local server = type(result.server) == "table" and result.server or {}
  table.insert(out, "- server: " .. str(server.name) .. " " .. str(server.version))
  table.insert(out, "- position encoding: " .. str(result.position_encoding))
  local idx = type(result.index) == "table" and result.index or {}
  table.insert(out, "- index: " .. str(idx.state) .. ", snapshot " .. str(idx.snapshot_version)
    .. ", format " .. str(idx.index_format_version))
  if str(idx.project_index_fingerprint) ~= "" then
    table.insert(out, "- project index fingerprint: `" .. str(idx.project_index_fingerprint) .. "`")
  end
  local folders = list(result.workspace_folders)
  heading(out, string.format("## Workspace folders (%d)", #folders))
  for _, f in ipairs(folders) do
    table.insert(out, "- " .. str(f.name) .. ": " .. str(f.uri))
  end
  local roots = list(idx.roots)
  for _, r in ipairs(roots) do
    heading(out, "## Root " .. str(r.name))
    table.insert(out, "- state: " .. str(r.state))
    if type(r.progress) == "table" then
      table.insert(out, "- progress: " .. str(r.progress.done) .. "/" .. str(r.progress.total))
    end
    if str(r.error) ~= "" then
      table.insert(out, "- error: " .. str(r.error))
    end
    table.insert(out, string.format("- files: %s (%s bytes), symbols: %s, parse errors: %s, open: %s",
      str(r.files), str(r.bytes), str(r.symbols), str(r.parse_errors), str(r.open_files)))
    local langs = sorted_counts(r.files_by_language)
    table.insert(out, "- languages: " .. (#langs > 0 and table.concat(langs, ", ") or "none"))
    local skipped = sorted_counts(r.skipped_by_reason)
    table.insert(out, "- skipped: " .. str(r.skipped) .. (#skipped > 0 and (" (" .. table.concat(skipped, ", ") .. ")") or ""))
    local files = list(r.skipped_files)
    if #files > 0 then
      local rows = {}
      for _, s in ipairs(files) do
        table.insert(rows, { s.path, s.reason, s.detail })
      end
      table.insert(out, "")
      add_table(out, { "skipped path", "reason", "detail" }, rows)
    end
  end
  local docs = list(result.open_documents)
  local modified = type(info) == "table" and info.modified or function()
    return nil
  end
  table_section(out, "Open documents", docs,
    { "uri", "language", "version", "bytes", "lines", "disk", "sync" }, function(d)
      return { d.uri, d.language_id, d.version, d.byte_size, d.line_count,
        M.disk_state(d.saved, modified(d.uri)), d.out_of_sync == true and "OUT OF SYNC" or "in sync" }
    end)
  if #docs > 0 then
    table.insert(out, "")
    table.insert(out, M.disk_legend)
  end
  return out
end

-- disk_state says how an open document stands to its file on disk, for
-- :CtxdStatus: the server's saved flag is true only once the editor
-- saved this version (didSave), so a buffer opened and never changed is
-- saved = false though it is the file. modified is the buffer's
-- 'modified' in this Neovim (nil when it is not loaded here).
function M.disk_state(saved, modified)
  if modified == true then
    return "unsaved changes"
  end
  if saved == true then
    return "written (:w)"
  end
  if modified == false then
    return "as read"
  end
  return "not written"
end

-- disk_legend follows the Open documents table.
M.disk_legend = "_disk_: `as read` = unchanged since it was opened; `written (:w)` = saved since; `unsaved changes`"
  .. " = edited, not saved; `not written` = not saved since it was opened (the server's `saved` flag is false), the"
  .. " buffer is not loaded here. Either way ctxd sends the buffer's text, unsaved changes included."

-- candidate is the label of an ambiguous-target candidate in a choice
-- list: "Store.Put (method) internal/store/store.go:32".
function M.candidate(c)
  local line = ""
  if type(c.range) == "table" and type(c.range.start) == "table" and type(c.range.start.line) == "number" then
    line = ":" .. tostring(c.range.start.line + 1)
  end
  return string.format("%s (%s) %s%s", str(c.symbol), str(c.kind), str(c.path), line)
end

-- refusal_help points from a refusal's window to the help on the refusal
-- codes (doc/ctxd-refusals.txt).
M.refusal_help = ":help ctxd-refusals (what each code means and what to do); q closes this window after <C-w>w"

-- refusal renders a refusal for a window: its code and message, its
-- advice, the file it was for (info: { file?, fallback? }), the budget
-- report it carries (labelled so that its estimate and the message's count
-- are not mistaken for one another) and the candidates of an ambiguous
-- target (1-based lines). Each paragraph is wrapped to width cells.
function M.refusal(err, info, width)
  info = info or {}
  width = math.max(width or 78, 20)
  local out = {}
  local function para(text, prefix)
    if #out > 0 then
      table.insert(out, "")
    end
    for _, l in ipairs(M.wrap(text, width, prefix)) do
      table.insert(out, l)
    end
  end
  para(str(err.message), str(err.code) .. ": ")
  if str(err.advice) ~= "" then
    para(str(err.advice), "Advice: ")
  end
  if info.file then
    para(info.file .. (info.fallback and (" " .. M.fallback_note) or ""), "File: ")
  end
  local br = err.budget_report
  if type(br) == "table" then
    if br.decision == "refuse_hard_limit" then
      local n = M.hard_limit_numbers(err)
      local message_count
      if n.required and n.required == n.estimate then
        message_count = "The message above gives the same number."
      else
        message_count = string.format("The message above counts the required blocks alone (%s):"
          .. " they exceed the hard limit by themselves.", n.required and (n.required .. " tokens") or "a smaller number")
      end
      para(string.format("%s tokens estimated for the required blocks after slicing (the P1 context would be"
        .. " dropped first; the number the statusline shows) against a hard limit of %s"
        .. " (max_input_tokens %s - %s reserved for the output). %s",
        str(br.estimated_input_tokens), str(br.hard_limit_tokens), str(br.max_input_tokens),
        str(br.reserve_output_tokens), message_count), "Budget: ")
    else
      para(string.format("%s estimated input tokens of a hard limit of %s (%s).", str(br.estimated_input_tokens),
        str(br.hard_limit_tokens), str(br.decision)), "Budget: ")
    end
  end
  local cands = list(err.candidates)
  if #cands > 0 then
    para("", "Candidates:")
    for _, c in ipairs(cands) do
      table.insert(out, "  - " .. M.candidate(c))
    end
  end
  para(M.refusal_help, "Help: ")
  return out
end

-- change_log renders the log of a :CtxdChange run (ctxd.change.log()):
-- the intent and model, then each attempt with its bundle, the last
-- error it carried, ctxd's verdict and the model's answer.
function M.change_log(log)
  local out = { "# ctxd change", "" }
  table.insert(out, "- intent: " .. str(log.intent))
  table.insert(out, "- file: " .. str(log.file))
  table.insert(out, "- thread: `" .. str(log.thread_id) .. "`")
  table.insert(out, string.format("- model: %s (%s, %s)", str(log.model), str(log.provider), str(log.base_url)))
  table.insert(out, "- started: " .. str(log.started))
  table.insert(out, "- outcome: " .. (log.outcome and str(log.outcome) or "running"))
  for i, a in ipairs(list(log.attempts)) do
    local verdict = str(a.status)
    if verdict == "" then
      verdict = "no verdict"
    end
    local f = type(a.failure) == "table" and a.failure or nil
    if f then
      verdict = verdict .. " " .. str(f.code)
    end
    heading(out, string.format("## Attempt %d (%s): %s", i, str(a.turn_id), verdict))
    if str(a.bundle_id) ~= "" then
      table.insert(out, "- bundle: `" .. str(a.bundle_id) .. "`")
    end
    if str(a.prompt_artifact) ~= "" then
      table.insert(out, "- prompt: " .. str(a.prompt_artifact) .. (a.tokens and (" (" .. str(a.tokens) .. " tokens)") or ""))
    end
    if type(a.last_error) == "table" then
      table.insert(out, "- sent as last_error: " .. str(a.last_error.message):gsub("[\r\n]+", " "))
    end
    local function block(title, text)
      local fence = M.fence(text)
      table.insert(out, "")
      table.insert(out, title)
      table.insert(out, "")
      table.insert(out, fence .. "text")
      for _, l in ipairs(split_lines(text)) do
        table.insert(out, l)
      end
      table.insert(out, fence)
    end
    if a.chars then
      table.insert(out, "- answer: " .. str(a.chars) .. " characters" .. (str(a.format) ~= "" and (", " .. str(a.format)) or ""))
    end
    for _, file in ipairs(list(a.files)) do
      table.insert(out, string.format("- file: %s (%s)", str(file.path), str(file.action)))
    end
    if f then
      table.insert(out, "- advice: " .. str(f.advice):gsub("[\r\n]+", " "))
      block("Message:", f.message)
      if type(f.error_context) == "table" then
        block("Error context (the next attempt's last_error):", f.error_context.message)
      end
    end
    if a.answer then
      block("Answer:", a.answer)
    end
  end
  return out
end

-- statusline renders a buffer's budget state for the statusline component.
-- entry is nil (no client: ""), or { pending = true }, or
-- { report = budget_report }, or { refusal = refusal }, or { error = err }.
function M.statusline(entry, markers)
  markers = markers or {}
  if entry == nil then
    return ""
  end
  if entry.report then
    local r = entry.report
    local text = string.format("ctxd %s/%s", str(r.estimated_input_tokens), str(r.hard_limit_tokens))
    if r.decision == "warn_soft_limit" then
      return text .. " " .. (markers.warn or "!")
    elseif r.decision == "refuse_hard_limit" then
      return text .. " " .. (markers.refuse or "✗")
    end
    return text
  end
  if entry.refusal then
    return "ctxd " .. (markers.refuse or "✗") .. " " .. str(entry.refusal.code)
  end
  if entry.error then
    return "ctxd " .. (markers.error or "?")
  end
  return "ctxd " .. (markers.pending or "…")
end

return M
