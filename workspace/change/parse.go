package change

import (
	"fmt"
	"path"
	"strings"
)

// hline is one line of a hunk's body.
type hline struct {
	text string
	// at is the 1-based line of the answer that wrote it.
	at int
	// op is ' ' (context), '-' (removed) or '+' (added).
	op byte
	// bare marks a context line written as an empty line, without its
	// leading space: models drop it, so an empty line inside a hunk is
	// read as an empty context line.
	bare bool
}

// hunk is one @@ section of a unified diff.
type hunk struct {
	// oldStart is the header's old start line (1-based; 0 for "after
	// nothing"), or -1 when the header has none. oldCount and newCount
	// are the header's counts, -1 when absent. They are hints: a hunk is
	// placed where its lines are.
	oldStart, oldCount, newCount int
	lines                        []hline
	// oldNoNL and newNoNL record "\ No newline at end of file" after the
	// last line of the old and of the new side.
	oldNoNL, newNoNL bool
	// countTail is how many bare empty context lines end the hunk only
	// because the header's counts claimed them: when the hunk is not found
	// with them, it is looked for without them (see placeHunk).
	countTail int
	// at is the answer line of the @@ header.
	at int
}

// block is one SEARCH/REPLACE block.
type block struct {
	search, replace []string
	// at is the answer line of the SEARCH marker; the search lines follow
	// it, the replace lines follow the divider at divider.
	at, divider int
}

// fence is an open fenced code block.
type fence struct {
	indent int  // spaces before the opening fence, stripped from its lines
	char   byte // '`' or '~'
	n      int  // length of the opening fence
	info   string
	at     int // index of the opening line
	// path is the file the block is about: the path line before it or
	// the path in its info string; hunks without file headers inside it
	// belong to it.
	path string
}

// parser reads one answer. Every line is looked at a bounded number of
// times, so that Parse is linear in the answer's size.
type parser struct {
	lines []string
	files []*FileChange
	// byPath finds the FileChange of a path; it is only looked up, never
	// iterated, so that the order of Files is the answer's.
	byPath map[string]*FileChange
	// seen is the first answer line (1-based) of each format, 0 if absent.
	seen map[Format]int
	// lastPath is the last path line seen outside a change, for SEARCH/
	// REPLACE blocks that do not repeat it.
	lastPath string
	// cur is the file of the last unified file header, and curAt the index
	// of that header: hunks without a header of their own continue it.
	cur   *FileChange
	curAt int
	// consumed is the index after the last line a change consumed: a
	// path line must come after it.
	consumed int
	// changes counts hunks, blocks and whole files, to tell whether a
	// fenced block added any.
	changes int
	rej     *Rejection
}

// Parse reads an answer: the unified diffs, SEARCH/REPLACE blocks or whole
// files in it, prose around them ignored. A rejection is CodeMalformed
// only: the answer mixes formats, holds no change, or holds one that
// cannot be read (a rename, a hunk without a file header, a block
// without its REPLACE marker). Parse never panics; its time is linear in
// the answer's length.
func Parse(answer string) (*Answer, *Rejection) {
	text := strings.ReplaceAll(strings.TrimPrefix(answer, bom), "\r\n", "\n")
	p := &parser{
		lines:  strings.Split(text, "\n"),
		byPath: map[string]*FileChange{},
		seen:   map[Format]int{},
	}
	p.scan(0, nil)
	if p.rej != nil {
		return nil, p.rej
	}
	return p.finish()
}

// finish checks the whole answer: at least one change, each complete.
func (p *parser) finish() (*Answer, *Rejection) {
	var formats []Format
	for _, f := range []Format{FormatUnified, FormatSearchReplace, FormatWholeFile} {
		if p.seen[f] > 0 {
			formats = append(formats, f)
		}
	}
	if len(formats) == 0 {
		return nil, malformed("", 0, "the answer holds no change",
			"Write the change as a unified diff (--- a/path, +++ b/path, @@ hunks), as SEARCH/REPLACE blocks (a line with the path, then <<<<<<< SEARCH, the old lines, =======, the new lines, >>>>>>> REPLACE), or as the whole new file (a line with the path, then the file's full text in a fenced block).")
	}
	// note rejected a second format as soon as it appeared.
	for _, fc := range p.files {
		if formats[0] == FormatUnified && fc.Action == ActionModify && len(fc.hunks) == 0 {
			return nil, malformed(fc.Path, fc.Line, "the diff of "+fc.Path+" has no @@ hunk",
				"Give each file's diff at least one hunk: an @@ line followed by its context (' '), removed ('-') and added ('+') lines.")
		}
	}
	return &Answer{Format: formats[0], Files: p.files}, nil
}

func formatName(f Format) string {
	switch f {
	case FormatUnified:
		return "a unified diff"
	case FormatSearchReplace:
		return "SEARCH/REPLACE blocks"
	default:
		return "a whole file"
	}
}

// malformed is a CodeMalformed rejection about answer line at (1-based; 0
// when about the whole answer) and, when not empty, one path.
func malformed(path string, at int, msg, advice string) *Rejection {
	where := ""
	switch {
	case at > 0 && path != "":
		where = fmt.Sprintf("answer line %d (%s): ", at, path)
	case at > 0:
		where = fmt.Sprintf("answer line %d: ", at)
	case path != "":
		where = path + ": "
	}
	return newRejection(CodeMalformed, relativePath(path), where+msg, advice)
}

// relativePath returns p when it is a clean relative path that stays
// inside the root, else "": a rejection's error_context names a
// root-relative path, and Parse, which has not resolved the answer's
// paths, can only vouch for those.
func relativePath(p string) string {
	if p == "" || path.Clean(p) != p || path.IsAbs(p) || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, ":") {
		return ""
	}
	return p
}

// fail records the first rejection; scanning stops there.
func (p *parser) fail(r *Rejection) {
	if p.rej == nil {
		p.rej = r
	}
}

// line returns line i of the answer as the container f sees it: without
// the fence's indentation.
func (p *parser) line(i int, f *fence) string {
	l := p.lines[i]
	if f == nil {
		return l
	}
	for k := 0; k < f.indent && len(l) > 0 && l[0] == ' '; k++ {
		l = l[1:]
	}
	return l
}

// scan reads lines from i up to the line closing f (to the end at the top
// level, f == nil) and returns the index after that line.
func (p *parser) scan(i int, f *fence) int {
	for i < len(p.lines) && p.rej == nil {
		raw := p.lines[i]
		if f != nil && f.closes(raw) {
			return i + 1
		}
		l := p.line(i, f)
		switch {
		case strings.HasPrefix(l, "diff --git "), p.fileHeaderAt(i, f):
			i = p.diff(i, f)
			p.consumed = i
		case isHunkHeader(l):
			i = p.headerlessHunks(i, f)
			p.consumed = i
		case isSearch(l):
			i = p.searchReplace(i, f)
			p.consumed = i
		case isReplace(l):
			p.fail(malformed("", i+1, "a >>>>>>> REPLACE marker without its <<<<<<< SEARCH",
				blockAdvice))
			return len(p.lines)
		default:
			if f == nil {
				if fo, ok := fenceOpen(raw); ok {
					fo.at = i
					i = p.fenced(fo)
					continue
				}
			}
			if path, ok := pathLine(l); ok {
				p.lastPath = path
			}
			i++
		}
	}
	return i
}

// fileHeaderAt reports whether line i starts a "--- " / "+++ " pair. A
// "--- " line alone is prose, or a removed line "-- comment".
func (p *parser) fileHeaderAt(i int, f *fence) bool {
	return i+1 < len(p.lines) && strings.HasPrefix(p.line(i, f), "--- ") && strings.HasPrefix(p.line(i+1, f), "+++ ")
}

// pathBefore returns the path of a path line just before line i (at most
// one blank line between) that no change consumed, and its index; "" and
// -1 when there is none.
func (p *parser) pathBefore(i int, f *fence) (string, int) {
	j := i - 1
	if j >= p.consumed && j >= 0 && strings.TrimSpace(p.line(j, f)) == "" {
		j--
	}
	if j < p.consumed || j < 0 || (f != nil && j <= f.at) {
		return "", -1
	}
	if path, ok := pathLine(p.line(j, f)); ok {
		return path, j
	}
	return "", -1
}

// fenced reads the fenced block opening at f.at and returns the index
// after it. A block holding diffs or SEARCH/REPLACE blocks contributes
// them; otherwise, with a path line before it or a path in its info
// string, it is a whole file; otherwise it is prose.
func (p *parser) fenced(f *fence) int {
	var pathAt int
	f.path, pathAt = p.pathBefore(f.at, nil)
	if f.path == "" {
		f.path = infoPath(f.info)
	}
	changes, savedPath := p.changes, p.lastPath
	if pathAt < 0 && f.path != "" {
		// A path in the info string (```python src/m.py) names the file
		// of the SEARCH/REPLACE blocks inside, as a path line would.
		p.lastPath = f.path
	}
	end := p.scan(f.at+1, f)
	if p.rej != nil || p.changes != changes {
		return end
	}
	if f.path == "" {
		return end
	}
	p.lastPath = savedPath
	last := end
	if end-1 > f.at && end-1 < len(p.lines) && f.closes(p.lines[end-1]) {
		last = end - 1
	}
	var b strings.Builder
	for k := f.at + 1; k < last; k++ {
		b.WriteString(p.line(k, f))
		b.WriteByte('\n')
	}
	at := f.at + 1
	if pathAt >= 0 {
		at = pathAt + 1
	}
	p.whole(f.path, at, b.String())
	p.consumed = end
	return end
}

// note records that the answer uses format f at answer line at; a second
// format makes the answer malformed.
func (p *parser) note(f Format, at int) {
	if p.seen[f] != 0 {
		return
	}
	for _, g := range []Format{FormatUnified, FormatSearchReplace, FormatWholeFile} {
		if g != f && p.seen[g] != 0 {
			p.fail(malformed("", at, fmt.Sprintf("the answer mixes formats: %s (from answer line %d) and %s (from answer line %d)",
				formatName(g), p.seen[g], formatName(f), at),
				"Write the whole answer in one format: unified diffs, SEARCH/REPLACE blocks or whole files."))
			break
		}
	}
	p.seen[f] = at
}

// file returns the FileChange of path for format f, making it when the
// path is new. A path changed twice is merged when both are plain
// modifications (unified hunks or SEARCH/REPLACE blocks, in order); any
// other repetition is malformed.
func (p *parser) file(path string, action Action, f Format, at int) *FileChange {
	p.note(f, at)
	if p.rej != nil {
		return nil
	}
	if fc, ok := p.byPath[path]; ok {
		if fc.Action == ActionModify && action == ActionModify && fc.whole == nil && f != FormatWholeFile {
			return fc
		}
		p.fail(malformed(path, at, fmt.Sprintf("the answer changes %s twice (answer lines %d and %d)", path, fc.Line, at),
			"Write each file's change once."))
		return nil
	}
	fc := &FileChange{Path: path, Action: action, Line: at}
	p.byPath[path] = fc
	p.files = append(p.files, fc)
	return fc
}

// whole records a whole-file change.
func (p *parser) whole(path string, at int, text string) {
	fc := p.file(path, ActionModify, FormatWholeFile, at)
	if fc != nil {
		fc.whole = &text
		p.changes++
	}
}

// diff reads one file section of a unified diff (an optional "diff --git"
// line and its extended headers, the "---"/"+++" pair, the hunks) and
// returns the index after it.
func (p *parser) diff(i int, f *fence) int {
	at := i + 1
	action := ActionModify
	var gitPath string
	hasGit := false
	if l := p.line(i, f); strings.HasPrefix(l, "diff --git ") {
		hasGit = true
		gitPath = gitLinePath(strings.TrimPrefix(l, "diff --git "))
		i++
	headers:
		for i < len(p.lines) {
			l := p.line(i, f)
			switch {
			case strings.HasPrefix(l, "new file mode"):
				action = ActionCreate
			case strings.HasPrefix(l, "deleted file mode"):
				action = ActionDelete
			case strings.HasPrefix(l, "rename from"), strings.HasPrefix(l, "rename to"),
				strings.HasPrefix(l, "copy from"), strings.HasPrefix(l, "copy to"):
				p.fail(malformed(gitPath, i+1, "the diff renames or copies a file",
					"Write a rename as two changes: delete the old path (+++ /dev/null) and create the new one (--- /dev/null)."))
				return len(p.lines)
			case strings.HasPrefix(l, "Binary files"), strings.HasPrefix(l, "GIT binary patch"):
				p.fail(malformed(gitPath, i+1, "the diff is a binary patch",
					"Change text files only, with a unified diff of their lines."))
				return len(p.lines)
			case strings.HasPrefix(l, "index "), strings.HasPrefix(l, "old mode"), strings.HasPrefix(l, "new mode"),
				strings.HasPrefix(l, "similarity index"), strings.HasPrefix(l, "dissimilarity index"):
			default:
				break headers
			}
			i++
		}
	}
	path := gitPath
	if p.fileHeaderAt(i, f) {
		if !hasGit {
			at = i + 1
		}
		oldPath := headerPath(strings.TrimPrefix(p.line(i, f), "--- "))
		newPath := headerPath(strings.TrimPrefix(p.line(i+1, f), "+++ "))
		var ok bool
		path, action, ok = sectionPath(oldPath, newPath, action)
		if !ok {
			oldPath, newPath = stripPrefixes(oldPath, newPath)
			p.fail(malformed(newPath, i+1, fmt.Sprintf("the diff renames %s to %s", oldPath, newPath),
				"Write a rename as two changes: delete the old path (+++ /dev/null) and create the new one (--- /dev/null)."))
			return len(p.lines)
		}
		i += 2
	}
	if path == "" {
		p.fail(malformed("", at, "a diff header without a file path",
			"Start each file's diff with --- a/path and +++ b/path lines."))
		return len(p.lines)
	}
	fc := p.file(path, action, FormatUnified, at)
	if fc == nil {
		return len(p.lines)
	}
	p.cur, p.curAt = fc, at-1
	return p.hunks(i, f, fc)
}

// headerlessHunks reads hunks that follow no file header of their own:
// they continue the file header of the same fenced block, else belong to
// the path line before them (or before their block), else continue the
// last file header of the answer.
func (p *parser) headerlessHunks(i int, f *fence) int {
	var fc *FileChange
	path, _ := p.pathBefore(i, f)
	switch {
	case p.cur != nil && f != nil && p.curAt > f.at:
		fc = p.cur
	case path != "":
		fc = p.file(path, ActionModify, FormatUnified, i+1)
	case f != nil && f.path != "":
		fc = p.file(f.path, ActionModify, FormatUnified, i+1)
	case p.cur != nil:
		fc = p.cur
	default:
		p.fail(malformed("", i+1, "a hunk without a file header",
			"Start each file's diff with --- a/path and +++ b/path lines before its @@ hunks."))
		return len(p.lines)
	}
	if fc == nil {
		return len(p.lines)
	}
	if fc != p.cur {
		p.cur, p.curAt = fc, i
	}
	return p.hunks(i, f, fc)
}

// hunks reads the hunks starting at line i for fc.
func (p *parser) hunks(i int, f *fence, fc *FileChange) int {
	for i < len(p.lines) && p.rej == nil {
		l := p.line(i, f)
		if (f != nil && f.closes(p.lines[i])) || !strings.HasPrefix(l, "@@") || strings.HasPrefix(l, "@@@") {
			break
		}
		var h *hunk
		h, i = p.hunk(i, f)
		if h == nil {
			return len(p.lines)
		}
		if err := checkAction(fc, h); err != "" {
			p.fail(malformed(fc.Path, h.at, err, "In a diff from /dev/null write every line with '+'; in a diff to /dev/null, every line with '-'."))
			return len(p.lines)
		}
		fc.hunks = append(fc.hunks, *h)
		p.changes++
	}
	return i
}

// checkAction adapts a hunk of a file creation or deletion: bare empty
// lines are added (removed) empty lines there, and any context line or a
// line of the wrong side makes the hunk malformed.
func checkAction(fc *FileChange, h *hunk) string {
	if fc.Action == ActionModify {
		return ""
	}
	want, name := byte('+'), "a diff from /dev/null (creating "+fc.Path+") can only add lines"
	if fc.Action == ActionDelete {
		want, name = '-', "a diff to /dev/null (deleting "+fc.Path+") can only remove lines"
	}
	for k := range h.lines {
		hl := &h.lines[k]
		if hl.bare {
			hl.op, hl.bare = want, false
		}
		if hl.op != want {
			return name
		}
	}
	return ""
}

// hunk reads the hunk whose header is line i and returns it with the index
// after it; nil on a malformed hunk (recorded).
func (p *parser) hunk(i int, f *fence) (*hunk, int) {
	h := parseHunkHeader(p.line(i, f))
	h.at = i + 1
	j := i + 1
	if h.oldCount >= 0 && h.newCount >= 0 {
		end, ok := p.hunkByCounts(h, j, f)
		if ok && len(h.lines) > 0 {
			return h, end
		}
		// What the counts read is what a greedy reading reads first: it
		// goes on from there.
		j, h.countTail = end, 0
	}
	for j < len(p.lines) {
		op, text, ok := p.hunkLine(j, f)
		if !ok {
			break
		}
		if op == '\\' {
			h.markNoNL()
		} else {
			h.lines = append(h.lines, hline{op: op, text: text, at: j + 1, bare: op == ' ' && p.line(j, f) == ""})
		}
		j++
	}
	// Empty lines at the end of a greedily read hunk are the blank lines
	// between the diff and what follows, not context.
	for n := len(h.lines); n > 0 && h.lines[n-1].bare; n-- {
		h.lines = h.lines[:n-1]
	}
	if len(h.lines) == 0 {
		p.fail(malformed("", h.at, "a hunk without lines", "Follow each @@ line with the hunk's context (' '), removed ('-') and added ('+') lines."))
		return nil, i
	}
	return h, j
}

// markNoNL records a "\ No newline at end of file" line: it is about the
// line before it, on that line's side(s).
func (h *hunk) markNoNL() {
	if len(h.lines) == 0 {
		return
	}
	switch h.lines[len(h.lines)-1].op {
	case ' ':
		h.oldNoNL, h.newNoNL = true, true
	case '-':
		h.oldNoNL = true
	case '+':
		h.newNoNL = true
	}
}

// hunkByCounts reads a hunk's body by its header's counts. It reports
// false when the counts do not fit: a line that cannot be a hunk line
// before they are reached, or more hunk lines (other than empty ones)
// right after. Either way it returns the index after the lines it read
// into h.
func (p *parser) hunkByCounts(h *hunk, j int, f *fence) (int, bool) {
	oldN, newN := 0, 0
	for oldN < h.oldCount || newN < h.newCount {
		if j >= len(p.lines) {
			return j, false
		}
		op, text, ok := p.hunkLine(j, f)
		if !ok {
			return j, false
		}
		switch op {
		case '\\':
			h.markNoNL()
			j++
			continue
		case ' ':
			oldN++
			newN++
		case '-':
			oldN++
		case '+':
			newN++
		}
		h.lines = append(h.lines, hline{op: op, text: text, at: j + 1, bare: op == ' ' && p.line(j, f) == ""})
		j++
		if oldN > h.oldCount || newN > h.newCount {
			return j, false
		}
	}
	for j < len(p.lines) {
		if op, _, ok := p.hunkLine(j, f); !ok || op != '\\' {
			break
		}
		h.markNoNL()
		j++
	}
	// A clean end: past any empty lines, nothing that continues the hunk.
	k := j
	for k < len(p.lines) && p.line(k, f) == "" && !(f != nil && f.closes(p.lines[k])) {
		k++
	}
	if k < len(p.lines) {
		if op, _, ok := p.hunkLine(k, f); ok && op != '\\' {
			return j, false
		}
	}
	for n := len(h.lines); n > 0 && h.lines[n-1].bare; n-- {
		h.countTail++
	}
	return j, true
}

// hunkLine classifies line j as a hunk body line: its op (' ', '-', '+',
// or '\\' for a "\ No newline" line) and text. ok is false for a line that
// ends the hunk: a fence, a file header, an @@ line, anything else.
func (p *parser) hunkLine(j int, f *fence) (op byte, text string, ok bool) {
	if f != nil && f.closes(p.lines[j]) {
		return 0, "", false
	}
	l := p.line(j, f)
	if l == "" {
		return ' ', "", true
	}
	switch l[0] {
	case ' ', '+':
		return l[0], l[1:], true
	case '-':
		if p.fileHeaderAt(j, f) {
			return 0, "", false
		}
		return '-', l[1:], true
	case '\\':
		return '\\', "", true
	}
	return 0, "", false
}

// parseHunkHeader reads "@@ -a,b +c,d @@ section", tolerating missing or
// partial numbers ("@@ @@", "@@ -a +c @@", "@@").
func parseHunkHeader(l string) *hunk {
	h := &hunk{oldStart: -1, oldCount: -1, newCount: -1}
	s := strings.TrimLeft(l[2:], " \t")
	if strings.HasPrefix(s, "-") {
		var start, count int
		var ok bool
		start, count, s, ok = hunkRange(s[1:])
		if ok {
			h.oldStart, h.oldCount = start, count
		}
		s = strings.TrimLeft(s, " \t")
	}
	if strings.HasPrefix(s, "+") {
		var count int
		var ok bool
		_, count, _, ok = hunkRange(s[1:])
		if ok {
			h.newCount = count
		}
	}
	return h
}

// hunkRange reads "a" or "a,b" at the start of s; count is -1 without ",b".
func hunkRange(s string) (start, count int, rest string, ok bool) {
	start, s, ok = number(s)
	if !ok {
		return 0, -1, s, false
	}
	count = -1
	if strings.HasPrefix(s, ",") {
		var c int
		var cok bool
		c, s, cok = number(s[1:])
		if cok {
			count = c
		}
	}
	return start, count, s, true
}

// number reads a decimal number of at most 9 digits at the start of s.
func number(s string) (int, string, bool) {
	n, k := 0, 0
	for k < len(s) && k < 9 && s[k] >= '0' && s[k] <= '9' {
		n = n*10 + int(s[k]-'0')
		k++
	}
	return n, s[k:], k > 0
}

// isHunkHeader reports a line shaped like a hunk header outside a diff:
// "@@" alone, "@@ @@…" or "@@ -N…". Inside a diff any "@@" line is one.
func isHunkHeader(l string) bool {
	if !strings.HasPrefix(l, "@@") || strings.HasPrefix(l, "@@@") {
		return false
	}
	s := strings.TrimRight(l[2:], " \t")
	if s == "" {
		return true
	}
	if s[0] != ' ' && s[0] != '\t' {
		return false // "@@x": not a header
	}
	s = strings.TrimLeft(s, " \t")
	return strings.HasPrefix(s, "@@") || (len(s) > 1 && s[0] == '-' && s[1] >= '0' && s[1] <= '9')
}

// sectionPath decides a file section's path and action from its "---" and
// "+++" paths. The a/ and b/ prefixes are stripped when both sides carry
// them, as git writes them, or when stripping one makes it the other side's
// path; against /dev/null, git's b/ (a/) prefix of the other side is
// stripped. ok is false for a rename.
func sectionPath(oldPath, newPath string, action Action) (path string, act Action, ok bool) {
	const null = "/dev/null"
	switch {
	case oldPath == null && newPath == null:
		return "", action, true
	case oldPath == null:
		return cleanPath(strings.TrimPrefix(newPath, "b/")), ActionCreate, true
	case newPath == null:
		return cleanPath(strings.TrimPrefix(oldPath, "a/")), ActionDelete, true
	}
	oldPath, newPath = stripPrefixes(oldPath, newPath)
	if oldPath != newPath {
		return "", action, false
	}
	return newPath, action, true
}

// stripPrefixes strips git's a/ and b/ prefixes from the paths of a file
// section, and cleans them.
func stripPrefixes(oldPath, newPath string) (string, string) {
	switch {
	case strings.HasPrefix(oldPath, "a/") && strings.HasPrefix(newPath, "b/"):
		oldPath, newPath = oldPath[2:], newPath[2:]
	case strings.HasPrefix(oldPath, "a/") && oldPath[2:] == newPath:
		oldPath = newPath
	case strings.HasPrefix(newPath, "b/") && newPath[2:] == oldPath:
		newPath = oldPath
	}
	return cleanPath(oldPath), cleanPath(newPath)
}

// headerPath reads the path of a "---" or "+++" line (without its
// prefix): C-quoted, or up to a tab (a timestamp follows it).
func headerPath(s string) string {
	if strings.HasPrefix(s, `"`) {
		if u, ok := unquoteC(s); ok {
			return u
		}
	}
	if k := strings.IndexByte(s, '\t'); k >= 0 {
		s = s[:k]
	}
	return strings.TrimRight(s, " ")
}

// gitLinePath reads the path of "diff --git a/x b/x" (without the
// command): the b side, with git's prefixes stripped when both sides carry
// them.
func gitLinePath(s string) string {
	s = strings.TrimRight(s, " ")
	if strings.HasPrefix(s, `"`) {
		// Quoted paths: take the second one when there are two.
		first, ok := unquoteC(s)
		if !ok {
			return ""
		}
		rest := strings.TrimLeft(s[quotedLen(s):], " ")
		second := rest
		if strings.HasPrefix(rest, `"`) {
			second, _ = unquoteC(rest)
		}
		if second == "" {
			second = first
		}
		if strings.HasPrefix(first, "a/") && strings.HasPrefix(second, "b/") {
			second = second[2:]
		}
		return cleanPath(second)
	}
	if strings.HasPrefix(s, "a/") {
		// "a/X b/X": the split where both halves name the same path.
		for k := strings.Index(s, " b/"); k >= 0; {
			if s[2:k] == s[k+3:] {
				return cleanPath(s[k+3:])
			}
			next := strings.Index(s[k+1:], " b/")
			if next < 0 {
				break
			}
			k += 1 + next
		}
	}
	if n := len(s); n%2 == 1 && s[:n/2] == s[n/2+1:] {
		return cleanPath(s[n/2+1:])
	}
	if k := strings.LastIndexByte(s, ' '); k >= 0 {
		return cleanPath(strings.TrimPrefix(s[k+1:], "b/"))
	}
	return cleanPath(s)
}

// quotedLen is the length of the C-quoted string at the start of s,
// quotes included (len(s) when it is not closed).
func quotedLen(s string) int {
	for k := 1; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case '"':
			return k + 1
		}
	}
	return len(s)
}

// unquoteC reads the C-quoted string git writes for a path with unusual
// bytes: \\, \", \a \b \t \n \v \f \r and three-digit octal escapes.
func unquoteC(s string) (string, bool) {
	if len(s) < 2 || s[0] != '"' {
		return "", false
	}
	var b strings.Builder
	for k := 1; k < len(s); k++ {
		c := s[k]
		switch c {
		case '"':
			return b.String(), true
		case '\\':
			k++
			if k >= len(s) {
				return "", false
			}
			switch e := s[k]; e {
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'v':
				b.WriteByte('\v')
			case 'f':
				b.WriteByte('\f')
			case 'r':
				b.WriteByte('\r')
			case '0', '1', '2', '3':
				if k+2 >= len(s) || !isOctal(s[k+1]) || !isOctal(s[k+2]) {
					return "", false
				}
				b.WriteByte((e-'0')<<6 | (s[k+1]-'0')<<3 | (s[k+2] - '0'))
				k += 2
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// cleanPath makes a path '/'-separated and drops a leading "./".
func cleanPath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return p
}

// blockAdvice is the advice of every malformed SEARCH/REPLACE block.
const blockAdvice = "Write each block as <<<<<<< SEARCH, the old lines, =======, the new lines, >>>>>>> REPLACE."

// searchReplace reads the SEARCH/REPLACE block whose marker is line i and
// returns the index after it. Fences inside a block are its text.
func (p *parser) searchReplace(i int, f *fence) int {
	at := i + 1
	path := p.lastPath
	if path == "" {
		p.fail(malformed("", at, "a SEARCH/REPLACE block without a file path before it",
			"Put the file's path on its own line before its SEARCH/REPLACE blocks."))
		return len(p.lines)
	}
	b := block{at: at}
	j := i + 1
	for ; j < len(p.lines); j++ {
		l := p.line(j, f)
		if isDivider(l) {
			break
		}
		if isSearch(l) || isReplace(l) {
			p.fail(malformed(path, j+1, "a SEARCH/REPLACE block without its ======= line",
				blockAdvice))
			return len(p.lines)
		}
		b.search = append(b.search, l)
	}
	if j >= len(p.lines) {
		p.fail(malformed(path, at, "a SEARCH/REPLACE block without its ======= and >>>>>>> REPLACE lines",
			blockAdvice))
		return len(p.lines)
	}
	b.divider = j + 1
	for j++; j < len(p.lines); j++ {
		l := p.line(j, f)
		if isReplace(l) {
			break
		}
		if isSearch(l) {
			p.fail(malformed(path, j+1, "a SEARCH/REPLACE block without its >>>>>>> REPLACE line",
				blockAdvice))
			return len(p.lines)
		}
		b.replace = append(b.replace, l)
	}
	if j >= len(p.lines) {
		p.fail(malformed(path, at, "a SEARCH/REPLACE block without its >>>>>>> REPLACE line",
			blockAdvice))
		return len(p.lines)
	}
	fc := p.file(path, ActionModify, FormatSearchReplace, at)
	if fc == nil {
		return len(p.lines)
	}
	fc.blocks = append(fc.blocks, b)
	p.changes++
	return j + 1
}

// marker reports whether l is a run of 5 to 9 c characters, then (after
// optional spaces) word, then optional trailing spaces.
func marker(l string, c byte, word string) bool {
	n := 0
	for n < len(l) && l[n] == c {
		n++
	}
	if n < 5 || n > 9 {
		return false
	}
	s := strings.TrimRight(l[n:], " \t")
	if word == "" {
		return s == ""
	}
	return strings.TrimLeft(s, " \t") == word
}

func isSearch(l string) bool  { return marker(l, '<', "SEARCH") }
func isDivider(l string) bool { return marker(l, '=', "") }
func isReplace(l string) bool { return marker(l, '>', "REPLACE") }

// fenceOpen reads a Markdown fence opening: up to 3 spaces, then 3 or more
// backticks or tildes, then an info string (without backticks for a
// backtick fence).
func fenceOpen(l string) (*fence, bool) {
	indent := 0
	for indent < len(l) && l[indent] == ' ' {
		indent++
	}
	if indent > 3 {
		return nil, false
	}
	s := l[indent:]
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return nil, false
	}
	c := s[0]
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	if n < 3 {
		return nil, false
	}
	info := strings.TrimSpace(s[n:])
	if c == '`' && strings.IndexByte(info, '`') >= 0 {
		return nil, false
	}
	return &fence{indent: indent, char: c, n: n, info: info}, true
}

// closes reports whether raw closes f: up to 3 spaces, at least as many
// fence characters, nothing else.
func (f *fence) closes(raw string) bool {
	s := raw
	for k := 0; k < 3 && len(s) > 0 && s[0] == ' '; k++ {
		s = s[1:]
	}
	n := 0
	for n < len(s) && s[n] == f.char {
		n++
	}
	return n >= f.n && strings.TrimRight(s[n:], " \t") == ""
}

// infoPath reads a path from a fence's info string: "lang:path",
// "lang path" or a bare path.
func infoPath(info string) string {
	if info == "" {
		return ""
	}
	if fields := strings.Fields(info); len(fields) == 2 && isLang(fields[0]) {
		info = fields[1]
	} else if len(fields) != 1 {
		return ""
	} else if k := strings.IndexByte(info, ':'); k > 0 && isLang(info[:k]) {
		info = info[k+1:]
	}
	if p, ok := plainPath(info); ok {
		return p
	}
	return ""
}

// isLang reports a word that can be a fence's language tag.
func isLang(s string) bool {
	for k := 0; k < len(s); k++ {
		c := s[k]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '+' || c == '#' || c == '-') {
			return false
		}
	}
	return s != ""
}

// pathLine reports whether a line is only a path, possibly decorated as
// Markdown writes it: **path**, `path`, # path, File: path, path:.
func pathLine(l string) (string, bool) {
	s := strings.TrimSpace(l)
	if s == "" || len(s) > 1024 {
		return "", false
	}
	if strings.HasPrefix(s, "#") {
		// A Markdown heading; "#include" or "#!" is not one.
		s = strings.TrimLeft(s, "#")
		if !strings.HasPrefix(s, " ") {
			return "", false
		}
	}
	s = strings.TrimSpace(dropDecoration(s))
	for _, pre := range []string{"filename:", "file:", "path:"} {
		if len(s) >= len(pre) && strings.EqualFold(s[:len(pre)], pre) {
			s = strings.TrimSpace(s[len(pre):])
			break
		}
	}
	s = strings.TrimSpace(strings.TrimSuffix(s, ":"))
	return plainPath(s)
}

// dropDecoration removes Markdown's emphasis and code marks.
func dropDecoration(s string) string {
	if !strings.ContainsAny(s, "*`") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '*' && s[i] != '`' {
			b = append(b, s[i])
		}
	}
	return string(b)
}

// plainPath reports whether s looks like a path: no spaces, not a URL, no
// characters of markup, and a '/' or an extension (a dot followed by 1
// to 10 letters or digits, at least one a letter).
func plainPath(s string) (string, bool) {
	if s == "" || strings.Contains(s, "://") || strings.HasPrefix(s, "www.") {
		return "", false
	}
	switch s[0] {
	case '-', '+', '@', '<', '>', '=', '!', '$', '|', '(', '[', '{':
		return "", false
	}
	for k := 0; k < len(s); k++ {
		c := s[k]
		if c <= ' ' || c == 0x7f || strings.IndexByte(`"'<>|*?,;=()[]{}`, c) >= 0 {
			return "", false
		}
	}
	s = cleanPath(s)
	if s == "" || strings.HasSuffix(s, "/") || strings.HasSuffix(s, ".") {
		return "", false
	}
	if strings.Contains(s, "/") {
		return s, true
	}
	if !hasExtension(s) {
		return "", false
	}
	return s, true
}

// hasExtension reports a file name ending in a dot and 1 to 10 letters or
// digits, at least one of them a letter ("main.go", ".gitignore"; not
// "v1.2" or "etc.").
func hasExtension(name string) bool {
	k := strings.LastIndexByte(name, '.')
	if k < 0 {
		return false
	}
	ext := name[k+1:]
	if len(ext) == 0 || len(ext) > 10 {
		return false
	}
	letter := false
	for i := 0; i < len(ext); i++ {
		c := ext[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9', c == '_':
		default:
			return false
		}
	}
	return letter
}
