package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The figure of issue 31's second deliverable: typing into a badly broken
// buffer of about 43 KB, each keystroke followed by ctxd.budget of the
// file, as the VS Code status bar asks for it (editors/vscode/src/
// statusBar.ts: the active file, no selection). Before the server answered
// from a stale syntax, each budget waited for a from-scratch tree-sitter
// parse of the whole buffer.

// brokenSource is the corpus file the broken buffer is made of, when the
// corpus has it (GOROOT/src): 44 KB of ordinary Go.
const brokenSource = "os/exec/exec.go"

// brokenFile returns the buffer of the figure: brokenSource, or else the
// first Go file of 40–48 KB by path that is not generated, broken all
// through: every indented line starts with an unclosed "({[" and every
// line that ends a block loses its closing brace, so tree-sitter's error
// recovery runs from the top of the file to its end (about half a second
// to a second from scratch on a 2-core machine, against tens of
// milliseconds for the clean file). It is cut at a line break near 43 KB.
func brokenFile(root string, files []sourceFile) (editFile, error) {
	rel := ""
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(brokenSource))); err == nil {
		rel = brokenSource
	} else {
		sorted := slices.Clone(files)
		slices.SortFunc(sorted, func(a, b sourceFile) int { return strings.Compare(a.rel, b.rel) })
		for _, f := range sorted {
			if strings.HasSuffix(f.rel, ".go") && !strings.HasSuffix(f.rel, "_test.go") && f.size >= 40<<10 && f.size <= 48<<10 {
				data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.rel)))
				if err == nil && !bytes.Contains(data[:min(len(data), 1024)], []byte("Code generated")) {
					rel = f.rel
					break
				}
			}
		}
	}
	if rel == "" {
		return editFile{}, fmt.Errorf("no Go file of 40–48 KB in the corpus")
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return editFile{}, err
	}
	text := strings.ReplaceAll(strings.ReplaceAll(string(data), "\n\t", "\n\t({["), "}\n", "\n")
	const size = 43 << 10
	if len(text) > size {
		if i := strings.LastIndexByte(text[:size], '\n'); i > 0 {
			text = text[:i+1]
		}
	}
	return editFile{rel: rel, text: text, lines: strings.Count(text, "\n")}, nil
}

// brokenTyping opens the broken buffer c.broken and types single
// characters near its middle, each didChange followed by ctxd.budget of
// the file; it measures each pair (the notification is not answered: the
// budget's round trip is the keystroke's), and the server's CPU time per
// pair. The first budget after the open and a few keystrokes are not
// measured.
func (sf *sessionFigures) brokenTyping(s *server, c sessionConfig) error {
	e := c.broken
	sf.brokenEdit = e
	path := filepath.Join(c.root, filepath.FromSlash(e.rel))
	uri := fileURI(path)
	if err := s.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "go", "version": 1, "text": e.text}}); err != nil {
		return err
	}
	lines := strings.Split(e.text, "\n")
	line := len(lines) / 2
	col := utf16Len(lines[line])
	version := 1
	req := buildRequest(c.root, e.rel, 0)
	budget := func() error {
		_, err := s.command("ctxd.budget", req, c.reqTimeout)
		return err
	}
	// The open: the first parse of the buffer, unmeasured.
	if err := budget(); err != nil {
		return fmt.Errorf("ctxd.budget of the broken buffer after didOpen: %w", err)
	}
	pid := s.cmd.Process.Pid
	ph := &sf.brokenBudget
	err := keystrokes(pid, 5, c.brokenEdits, c.phaseTime, ph, func() error {
		version++
		pos := map[string]any{"line": line, "character": col}
		col++
		if err := s.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": version},
			"contentChanges": []any{map[string]any{"range": map[string]any{"start": pos, "end": pos}, "text": "x"}},
		}); err != nil {
			return fmt.Errorf("didChange + ctxd.budget, broken buffer, version %d: %w", version, err)
		}
		if err := budget(); err != nil {
			return fmt.Errorf("didChange + ctxd.budget, broken buffer, version %d: %w", version, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	logf("didChange + ctxd.budget, badly broken %d KB buffer: p50 %s, p99 %s over %d keystrokes", len(e.text)>>10,
		fmtDur(percentile(ph.lat, 50)), fmtDur(percentile(ph.lat, 99)), len(ph.lat))
	return s.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
}

// brokenOnly is the -only-broken run: ctags for the ratio, then one server
// session that indexes the corpus and measures brokenTyping alone.
func (b *bench) brokenOnly() {
	c := b.c
	for i := range c.runs {
		b.ctagsRun(i)
	}
	files, err := scan(b.root)
	if err != nil {
		b.sessErr = b.fail("listing the corpus", err)
		return
	}
	broken, err := brokenFile(b.root, files)
	if err != nil {
		b.sessErr = b.fail("the broken buffer", err)
		return
	}
	s, err := startServer(b.bin, filepath.Join(b.tmp, "cache-broken"), filepath.Join(b.tmp, "serve-broken.log"))
	if err == nil {
		err = s.initialize(b.root, c.timeout)
	}
	if err == nil {
		// Typing starts once the folder is indexed, as in the full run's
		// session: the server's CPU per keystroke must not count the
		// background parse of the tree.
		for t0 := time.Now(); s.readyAt().IsZero(); time.Sleep(50 * time.Millisecond) {
			if time.Since(t0) > c.timeout {
				err = fmt.Errorf("indexing did not end within %s", c.timeout)
				break
			}
		}
	}
	if err == nil {
		err = b.sess.brokenTyping(s, sessionConfig{root: b.root, broken: broken, brokenEdits: c.brokenEdits, reqTimeout: c.reqTimeout, phaseTime: c.phaseTime})
	}
	if err == nil {
		err = s.shutdown(c.reqTimeout)
	}
	if err != nil {
		if s != nil {
			s.kill()
		}
		b.sessErr = b.fail("broken-buffer session", sessionError(s, err))
	}
}

// brokenRow is the figure's row; goal: p99 within c.goalBroken of ctags.
func (b *bench) brokenRow(vsCtags func(time.Duration) float64, ctagsCell string, ct procRun) row {
	const figure = "didChange + ctxd.budget p99, badly broken 43 KB buffer"
	ph := b.sess.brokenBudget
	if len(ph.lat) == 0 {
		err := b.sessErr
		if err == nil {
			err = fmt.Errorf("not measured")
		}
		return failedRow(figure, err)
	}
	v := percentile(ph.lat, 99)
	detail := fmt.Sprintf("p50 %s, max %s; CPU %s/keystroke; n=%d; %s, %d lines", fmtDur(percentile(ph.lat, 50)), fmtDur(percentile(ph.lat, 100)),
		fmtDur(ph.cpu), len(ph.lat), b.sess.brokenEdit.rel, b.sess.brokenEdit.lines)
	if ph.cut {
		detail += fmt.Sprintf(", cut at -phase-time %s", b.c.phaseTime)
	}
	x := row{figure: figure, ctags: ctagsCell, ratio: vsCtags(v), ctxd: fmt.Sprintf("p99 %s (%s)", fmtDur(v), detail)}
	x.goalRatio(b.c.goalBroken, ct.wall)
	return x
}

// rowsBroken is the table of an -only-broken run.
func (b *bench) rowsBroken() []row {
	var ct procRun
	ctagsCell := "—"
	if len(b.ctags) > 0 {
		ct = fastest(b.ctags)
		ctagsCell = fmtDur(ct.wall)
	}
	vsCtags := func(d time.Duration) float64 { return ratio(float64(d), float64(ct.wall)) }
	return []row{b.brokenRow(vsCtags, ctagsCell, ct)}
}
