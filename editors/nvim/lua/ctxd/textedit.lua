-- Pure helpers for :CtxdChange's preview: LSP text edits applied to a
-- copy of a text, positions counted in the position encoding the server
-- uses (utf-8, utf-16 or utf-32), line breaks as LSP and ctxd count them
-- ("\n", "\r\n" and a lone "\r"). Nothing here touches a buffer, so the
-- preview shows exactly what the edit does to the text ctxd checked.
local request = require("ctxd.request")

local M = {}

-- byte_col returns the 0-based byte column of the position-encoding
-- offset units in line: the inverse of request.units. Units inside a
-- character (half of a UTF-16 surrogate pair) round down to its start,
-- units past the end clamp to the line's end, as the server does.
function M.byte_col(line, units, encoding)
  units = math.max(units or 0, 0)
  local i, count = 1, 0
  while i <= #line do
    if count >= units then
      return i - 1
    end
    local n, valid = request.seq_len(line, i)
    local w
    if encoding == "utf-8" then
      w = n
    elseif encoding == "utf-32" or not valid or n < 4 then
      w = 1
    else
      w = 2
    end
    if count + w > units then
      return i - 1
    end
    count = count + w
    i = i + n
  end
  return #line
end

-- lines_of returns the extents of text's lines: { start, stop } with
-- 1-based byte offsets, text:sub(start, stop) being the line without its
-- break. A trailing break starts a last, empty line.
function M.lines_of(text)
  local out = {}
  local start = 1
  while true do
    local i = text:find("[\r\n]", start)
    if not i then
      table.insert(out, { start, #text })
      return out
    end
    table.insert(out, { start, i - 1 })
    if text:sub(i, i) == "\r" and text:sub(i + 1, i + 1) == "\n" then
      start = i + 2
    else
      start = i + 1
    end
  end
end

-- offset returns the 0-based byte offset in text of an LSP position,
-- clamped as the server clamps: a line past the last maps to the end of
-- the text, a character past the line to the end of the line.
function M.offset(text, lines, pos, encoding)
  local row = pos.line or 0
  if row >= #lines then
    return #text
  end
  local ext = lines[row + 1]
  local line = text:sub(ext[1], ext[2])
  return ext[1] - 1 + M.byte_col(line, pos.character or 0, encoding)
end

-- apply returns text with the LSP TextEdits applied (their ranges are
-- positions of the text before any edit; LSP forbids overlapping ones),
-- or nil and a message when the edits overlap.
function M.apply(text, edits, encoding)
  local lines = M.lines_of(text)
  local spans = {}
  for i, e in ipairs(edits or {}) do
    local s = M.offset(text, lines, e.range.start, encoding)
    local t = M.offset(text, lines, e.range["end"], encoding)
    if t < s then
      s, t = t, s
    end
    table.insert(spans, { s = s, e = t, text = e.newText or "", i = i })
  end
  table.sort(spans, function(a, b)
    if a.s ~= b.s then
      return a.s < b.s
    end
    return a.i < b.i
  end)
  local parts = {}
  local at = 0
  for _, sp in ipairs(spans) do
    if sp.s < at then
      return nil, "the edits overlap"
    end
    table.insert(parts, text:sub(at + 1, sp.s))
    table.insert(parts, sp.text)
    at = sp.e
  end
  table.insert(parts, text:sub(at + 1))
  return table.concat(parts)
end

-- to_lines splits a text into buffer lines: a trailing line break ends
-- the last line instead of starting an empty one (what a buffer with
-- 'eol' shows). Returns the lines and whether the text ended with a
-- break.
function M.to_lines(text)
  if text == "" then
    return {}, false
  end
  local out = {}
  for _, ext in ipairs(M.lines_of(text)) do
    table.insert(out, text:sub(ext[1], ext[2]))
  end
  local eol = text:match("[\r\n]$") ~= nil
  if eol then
    table.remove(out)
  end
  return out, eol
end

-- line_ending is the line break a buffer's 'fileformat' writes, as
-- Neovim's LSP client sends a buffer's text to servers.
function M.line_ending(fileformat)
  if fileformat == "dos" then
    return "\r\n"
  elseif fileformat == "mac" then
    return "\r"
  end
  return "\n"
end

-- join is the text of buffer lines as Neovim's LSP client sends it:
-- joined with the line ending, plus a final one when eol (the 'eol'
-- option) is set.
function M.join(lines, eol, ending)
  ending = ending or "\n"
  local text = table.concat(lines, ending)
  if eol then
    text = text .. ending
  end
  return text
end

-- sha256 is ctxd's digest of a text, "sha256:<hex>".
function M.sha256(text)
  return "sha256:" .. vim.fn.sha256(text)
end

return M
