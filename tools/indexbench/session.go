package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf16"
)

// smallBudget is the second budget of the warm builds: the default model
// budget is already 128k tokens (contextbuilder's defaults), and a smaller
// one makes the builder fit and slice instead of taking everything.
const smallBudget = 32000

// buildRequest is ctxd.buildContext's argument for one target: a diff of
// the file open in the editor, as an editor's "build context" command
// sends it (docs/protocol.md, "Request"). maxInput 0 keeps the default
// model budget.
func buildRequest(root, rel string, maxInput int) map[string]any {
	req := map[string]any{
		"purpose":     "diff",
		"active_file": fileURI(filepath.Join(root, filepath.FromSlash(rel))),
	}
	if maxInput > 0 {
		req["model"] = map[string]any{"max_input_tokens": maxInput}
	}
	return req
}

// command sends workspace/executeCommand.
func (s *server) command(name string, arg any, timeout time.Duration) (json.RawMessage, error) {
	return s.call("workspace/executeCommand", map[string]any{"command": name, "arguments": []any{arg}}, timeout)
}

// firstRun is one start of the server up to its first bundle.
type firstRun struct {
	wall    time.Duration // process start → the build's answer
	cpu     time.Duration // the server's CPU time by then
	ready   time.Duration // process start → the end of the indexing $/progress (0: not seen)
	hwmKB   int64         // the server's peak RSS by then
	refused string        // the build was answered with an error (a refusal): its code
}

// firstBundle starts a server, initializes it on root and immediately asks
// for a bundle of target, the way an editor's first command after opening
// a folder does. The server is returned running.
func firstBundle(bin, root, cacheDir, logPath, target string, timeout time.Duration) (*server, firstRun, error) {
	var fr firstRun
	s, err := startServer(bin, cacheDir, logPath)
	if err != nil {
		return nil, fr, err
	}
	if err := s.initialize(root, timeout); err != nil {
		return s, fr, err
	}
	_, err = s.command("ctxd.buildContext", buildRequest(root, target, 0), timeout)
	fr.wall = time.Since(s.start)
	var rerr *rpcError
	if errors.As(err, &rerr) {
		fr.refused, err = rerr.Error(), nil
	}
	if err != nil {
		return s, fr, err
	}
	pid := s.cmd.Process.Pid
	fr.cpu, _ = cpuTime(pid)
	fr.hwmKB, _ = statusKB(pid, "VmHWM")
	// The progress may end after the build's answer (the server writes its
	// cache first): wait a little for it, outside the measured time.
	for wait := time.Now(); s.readyAt().IsZero() && time.Since(wait) < 10*time.Second; {
		time.Sleep(10 * time.Millisecond)
	}
	if ready := s.readyAt(); !ready.IsZero() {
		fr.ready = ready.Sub(s.start)
	}
	return s, fr, nil
}

// target is a build target the session kept.
type target struct {
	rel    string
	tokens int // estimated input tokens of its default-budget bundle
	blocks int
}

// sessionFigures are the figures of one long server session.
type sessionFigures struct {
	first   firstRun
	targets []target
	dropped []string // candidates refused, with the reason

	build, buildSmall, budget phase
	clean, broken             phase
	edit                      editFile
	brokenBudget              phase    // didChange + ctxd.budget, badly broken buffer (broken.go)
	brokenEdit                editFile // its buffer

	hwmKB int64 // the server's peak RSS at the end (VmHWM), before shutdown
}

// phase is one measured loop of requests.
type phase struct {
	lat     []time.Duration
	cpu     time.Duration // the server's CPU time per request, averaged
	refused int           // answers that were refusals (still timed)
	cut     bool          // stopped by -phase-time before its count
}

type sessionConfig struct {
	bin, root, cacheDir, logPath string
	candidates                   []string
	targets, rounds, edits       int
	edit                         editFile
	broken                       editFile // the badly broken buffer; rel "" skips its phase
	brokenEdits                  int
	firstTimeout, reqTimeout     time.Duration
	phaseTime                    time.Duration
}

// session is the long measurement: first bundle with an empty cache, then
// warm builds and budgets, then typing into a large buffer, then the
// server's peak RSS. It returns what it measured before any failure.
func session(c sessionConfig) (sessionFigures, error) {
	var sf sessionFigures
	s, fr, err := firstBundle(c.bin, c.root, c.cacheDir, c.logPath, c.candidates[0], c.firstTimeout)
	sf.first = fr
	if err == nil {
		logf("first bundle, empty cache: %s", fmtDur(fr.wall))
		err = sf.warm(s, c)
	}
	if err == nil {
		err = sf.typing(s, c)
	}
	if err == nil && c.broken.rel != "" {
		err = sf.brokenTyping(s, c)
	}
	if err == nil {
		sf.hwmKB, err = statusKB(s.cmd.Process.Pid, "VmHWM")
	}
	if err == nil {
		err = s.shutdown(c.reqTimeout)
	}
	if err != nil {
		if s != nil {
			s.kill()
		}
		return sf, sessionError(s, err)
	}
	return sf, nil
}

// sessionError adds the tail of the server's log to err.
func sessionError(s *server, err error) error {
	if s == nil {
		return err
	}
	return fmt.Errorf("%w\n--- the server's stderr (%s), last lines:\n%s\n---", err, s.log, s.logTail(30))
}

// timed returns how long f took.
func timed(f func() error) (time.Duration, error) {
	start := time.Now()
	err := f()
	return time.Since(start), err
}

// keystrokes times warmup+n calls of step (one keystroke each), keeping
// the latencies after the warmup in ph with the server's CPU time per
// call; the loop stops after phaseTime, once past the warmup, and says so
// in ph.cut.
func keystrokes(pid, warmup, n int, phaseTime time.Duration, ph *phase, step func() error) error {
	var start time.Time
	var cpu0 time.Duration
	for i := range warmup + n {
		if i == warmup {
			start = time.Now()
			cpu0, _ = cpuTime(pid)
		}
		if i > warmup && time.Since(start) > phaseTime {
			ph.cut = true
			break
		}
		d, err := timed(step)
		if err != nil {
			return err
		}
		if i >= warmup {
			ph.lat = append(ph.lat, d)
		}
	}
	cpu1, _ := cpuTime(pid)
	ph.cpu = (cpu1 - cpu0) / time.Duration(max(len(ph.lat), 1))
	return nil
}

// warm chooses the targets — the first candidates ctxd builds without
// refusing; this round also brings the server's caches (relation graph,
// token counts, secret scans) up to date — then measures rounds of builds
// at the default and the small budget and of ctxd.budget, one kind at a
// time so that the server's CPU time can be split by kind.
func (sf *sessionFigures) warm(s *server, c sessionConfig) error {
	for _, rel := range c.candidates {
		if len(sf.targets) == c.targets {
			break
		}
		var res json.RawMessage
		d, err := timed(func() (err error) {
			res, err = s.command("ctxd.buildContext", buildRequest(c.root, rel, 0), c.reqTimeout)
			return err
		})
		var rerr *rpcError
		if errors.As(err, &rerr) {
			sf.dropped = append(sf.dropped, rel+": "+rerr.Error())
			continue
		}
		if err != nil {
			return err
		}
		var out struct {
			Bundle struct {
				Blocks []json.RawMessage `json:"blocks"`
			} `json:"bundle"`
			BudgetReport struct {
				Tokens int `json:"estimated_input_tokens"`
			} `json:"budget_report"`
		}
		if err := json.Unmarshal(res, &out); err != nil || len(out.Bundle.Blocks) == 0 {
			return fmt.Errorf("ctxd.buildContext %s: an answer without blocks (%v): %.200s", rel, err, res)
		}
		sf.targets = append(sf.targets, target{rel: rel, tokens: out.BudgetReport.Tokens, blocks: len(out.Bundle.Blocks)})
		logf("target %s: %d tokens, %d blocks, first build %s", rel, out.BudgetReport.Tokens, len(out.Bundle.Blocks), fmtDur(d))
	}
	if len(sf.targets) == 0 {
		return fmt.Errorf("no target could be built: %s", strings.Join(sf.dropped, "; "))
	}
	pid := s.cmd.Process.Pid
	for _, kind := range []struct {
		name   string
		cmd    string
		budget int
		ph     *phase
	}{
		{"build, default budget", "ctxd.buildContext", 0, &sf.build},
		{fmt.Sprintf("build, %dk budget", smallBudget/1000), "ctxd.buildContext", smallBudget, &sf.buildSmall},
		{"ctxd.budget", "ctxd.budget", 0, &sf.budget},
	} {
		start := time.Now()
		cpu0, _ := cpuTime(pid)
		for r := 0; r < c.rounds; r++ {
			if r > 0 && time.Since(start) > c.phaseTime {
				kind.ph.cut = true
				break
			}
			for _, t := range sf.targets {
				d, err := timed(func() error {
					_, err := s.command(kind.cmd, buildRequest(c.root, t.rel, kind.budget), c.reqTimeout)
					return err
				})
				var rerr *rpcError
				if errors.As(err, &rerr) {
					kind.ph.refused++
					err = nil
				}
				if err != nil {
					return fmt.Errorf("%s %s: %w", kind.cmd, t.rel, err)
				}
				kind.ph.lat = append(kind.ph.lat, d)
			}
		}
		cpu1, _ := cpuTime(pid)
		kind.ph.cpu = (cpu1 - cpu0) / time.Duration(len(kind.ph.lat))
		logf("%s: p95 %s over %d requests", kind.name, fmtDur(percentile(kind.ph.lat, 95)), len(kind.ph.lat))
	}
	return nil
}

// ping is a request no server implements: ctxd answers it with
// MethodNotFound from its read loop, right after it has applied every
// notification sent before it, so its round trip after a didChange is the
// time the change took to apply (reparse and new snapshot included).
const ping = "ctxdbench/ping"

// typing opens the large buffer and types single characters into a
// comment in its middle, each didChange followed by a ping; then breaks
// the buffer (an unclosed function near the top, so that everything after
// it is a syntax error) and types again. Each phase starts with a few
// unmeasured edits.
func (sf *sessionFigures) typing(s *server, c sessionConfig) error {
	sf.edit = c.edit
	uri := fileURI(filepath.Join(c.root, filepath.FromSlash(c.edit.rel)))
	err := s.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "go", "version": 1, "text": c.edit.text}})
	if err != nil {
		return err
	}
	lines := strings.Split(c.edit.text, "\n")
	line := commentLine(lines)
	col := utf16Len(lines[line])
	version := 1
	edit := func(l, ch int, text string) error {
		version++
		pos := map[string]any{"line": l, "character": ch}
		return s.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": version},
			"contentChanges": []any{map[string]any{"range": map[string]any{"start": pos, "end": pos}, "text": text}},
		})
	}
	pid := s.cmd.Process.Pid
	measure := func(name string, ph *phase) error {
		err := keystrokes(pid, 20, c.edits, c.phaseTime, ph, func() error {
			if err := edit(line, col, "x"); err != nil {
				return err
			}
			col++
			_, err := s.call(ping, map[string]any{}, c.reqTimeout)
			var rerr *rpcError
			if errors.As(err, &rerr) && rerr.Code == -32601 {
				return nil
			}
			return fmt.Errorf("%s after didChange: want MethodNotFound, got %v", ping, err)
		})
		if err != nil {
			return err
		}
		logf("didChange, %s buffer: p99 %s over %d edits", name, fmtDur(percentile(ph.lat, 99)), len(ph.lat))
		return nil
	}
	if err := measure("clean", &sf.clean); err != nil {
		return err
	}
	pkg := packageLine(lines)
	if err := edit(pkg+1, 0, "func ctxdbenchBroken() {\n"); err != nil {
		return err
	}
	line++ // the comment moved down by the inserted line
	if err := measure("broken", &sf.broken); err != nil {
		return err
	}
	return s.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
}

// commentLine is the line comment nearest the middle of the file (the
// middle line itself when there is none): typing there keeps a clean
// buffer clean.
func commentLine(lines []string) int {
	mid := len(lines) / 2
	for d := 0; d < len(lines); d++ {
		for _, i := range []int{mid + d, mid - d} {
			if i >= 0 && i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "//") {
				return i
			}
		}
	}
	return mid
}

// packageLine is the line of the package clause.
func packageLine(lines []string) int {
	for i, l := range lines {
		if strings.HasPrefix(l, "package ") {
			return i
		}
	}
	return 0
}

// utf16Len is the length of s in UTF-16 code units, the position encoding
// the harness negotiates.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
