package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/server/lsptest"
)

// stormGuard bounds how long a broken storm may hang. It is not a
// performance assertion: the test waits for each answer only as long as
// it takes to arrive, and a full storm ends in seconds.
const stormGuard = 10 * time.Minute

// stormSnippets are what the storm types: brackets, quotes, comment
// markers, line breaks and keywords, which leave a Go file full of syntax
// errors. ASCII only, so that a UTF-16 column is a byte column.
var stormSnippets = []string{
	"", "x", " ", "\n", "{", "}", "(", ")", "\"", "`", "/*", "*/", "//", ";", ":=",
	"func ", "return ", "type T struct {", "if x {", "Foo", "_", ",", ".",
}

// stormFile returns a Go file of 3,000 lines.
func stormFile() string {
	var sb strings.Builder
	sb.WriteString("package storm\n\n")
	for i := range 599 { // 5 lines each
		fmt.Fprintf(&sb, "// F%d adds %d.\nfunc F%d(x int) int {\n\treturn x + %d\n}\n\n", i, i, i, i)
	}
	return sb.String()
}

// position is the LSP position of byte offset off in an ASCII text.
func position(text string, off int) map[string]any {
	line := strings.Count(text[:off], "\n")
	return map[string]any{"line": line, "character": off - (strings.LastIndexByte(text[:off], '\n') + 1)}
}

// TestEditStorm sends 5,000 didChange notifications that mangle a
// 3,000-line Go file, interleaved with 200 context commands sent without
// waiting for their answers, through the in-process server; then checks
// that every command answered and built from exactly the document version
// sent before it: its budget report names that version
// ("open documents: storm/storm.go@vN"), and the manifest's and the
// bundle's hash of the file is the sha256 of that version's text. Nothing
// in it depends on timing: the server may parse and build in any order,
// the answers must not change. Under -race or -short the storm is smaller
// (the race detector makes the full storm take about half a minute); the
// full size runs in the normal test run.
func TestEditStorm(t *testing.T) {
	changes, builds := 5000, 200
	if raceEnabled || testing.Short() {
		changes, builds = 1000, 40
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), stormGuard)
	defer cancel()
	text := stormFile()
	dir := indextest.WriteTree(t, "-- go.mod --\nmodule example.com/storm\n-- storm/storm.go --\n"+text+
		"-- storm/use.go --\npackage storm\n\nfunc Use() int { return F1(F2(3)) }\n")
	srvConn, cliConn := net.Pipe()
	srv := New(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Version: "test", Index: index.Options{CacheDir: "off"}})
	code := make(chan int, 1)
	go func() { code <- srv.Run(ctx, srvConn) }()
	c := lsptest.New(cliConn, cliConn)
	t.Cleanup(func() { cliConn.Close() })
	call := func(id any, method string, params any) *lsptest.Message {
		t.Helper()
		m, err := c.Call(ctx, id, method, params)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if m.Error != nil {
			t.Fatalf("%s: %v (data %s)", method, m.Error, m.Error.Data)
		}
		return m
	}
	notify := func(method string, params any) {
		t.Helper()
		if err := c.Notify(method, params); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	call(1, "initialize", map[string]any{
		"processId":        nil,
		"workspaceFolders": []map[string]any{{"uri": index.PathToURI(dir), "name": "storm"}},
		"capabilities":     map[string]any{},
	})
	notify("initialized", map[string]any{})
	uri := index.PathToURI(filepath.Join(dir, "storm", "storm.go"))
	notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": text}})

	// sent is one command of the storm and what it must have seen.
	type sent struct {
		id      int
		command string
		version int
		text    string
	}
	var requests []sent
	commands := []string{"ctxd.budget", "ctxd.manifest", "ctxd.budget", "ctxd.manifest", "ctxd.buildContext"}
	purposes := map[string]string{"ctxd.budget": "intent", "ctxd.manifest": "diff", "ctxd.buildContext": "diff"}
	r := rand.New(rand.NewPCG(16, 4))
	version := 1
	for i := range changes {
		// One or two edits per change, each against the text the
		// previous one left, as an editor sends them.
		var edits []any
		for range 1 + r.IntN(2) {
			pos := r.IntN(len(text) + 1)
			end := min(pos+r.IntN(4), len(text))
			ins := stormSnippets[r.IntN(len(stormSnippets))]
			edits = append(edits, map[string]any{"range": map[string]any{"start": position(text, pos), "end": position(text, end)}, "text": ins})
			text = text[:pos] + ins + text[end:]
		}
		version++
		notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version}, "contentChanges": edits})
		if (i+1)%(changes/builds) != 0 {
			continue
		}
		s := sent{id: 1000 + len(requests), command: commands[len(requests)%len(commands)], version: version, text: text}
		req := map[string]any{"purpose": purposes[s.command], "active_file": uri}
		if err := c.Start(s.id, "workspace/executeCommand", map[string]any{"command": s.command, "arguments": []any{req}}); err != nil {
			t.Fatal(err)
		}
		requests = append(requests, s)
	}
	sentAll := time.Since(start)

	for _, s := range requests {
		m, err := c.Wait(ctx, s.id)
		if err != nil {
			t.Fatalf("%s %d: %v", s.command, s.id, err)
		}
		if m.Error != nil {
			t.Errorf("%s after version %d: %v (data %s)", s.command, s.version, m.Error, m.Error.Data)
			continue
		}
		var res struct {
			BudgetReport contextbuilder.BudgetReport `json:"budget_report"`
			Manifest     *contextbuilder.Manifest    `json:"manifest"`
			Bundle       *contextbuilder.Bundle      `json:"bundle"`
		}
		if err := json.Unmarshal(m.Result, &res); err != nil {
			t.Fatal(err)
		}
		// The storm leaves the file full of syntax errors; when its
		// parses are slow (under -race), a build does not wait for
		// them and reads an earlier version's syntax, which the note
		// names after the version.
		note := fmt.Sprintf("open documents: storm/storm.go@v%d", s.version)
		if !slices.ContainsFunc(res.BudgetReport.Notes, func(n string) bool { return stormNote(n, note, s.version) }) {
			t.Errorf("%s after version %d: notes %q, want %q", s.command, s.version, res.BudgetReport.Notes, note)
		}
		var hashes []string
		if res.Manifest != nil {
			for _, f := range res.Manifest.Selection.IncludedFiles {
				if f.Path == "storm/storm.go" {
					hashes = append(hashes, f.Hash)
				}
			}
		}
		if res.Bundle != nil {
			for _, b := range res.Bundle.Blocks {
				if b.Meta.Path != nil && *b.Meta.Path == "storm/storm.go" && b.Meta.Hash != nil {
					hashes = append(hashes, *b.Meta.Hash)
				}
			}
		}
		if s.command != "ctxd.budget" && len(hashes) == 0 {
			t.Errorf("%s after version %d: storm/storm.go is not in the selection", s.command, s.version)
		}
		for _, h := range hashes {
			if h != sha(s.text) {
				t.Errorf("%s after version %d: storm/storm.go hash %s, want the sha256 of that version, %s", s.command, s.version, h, sha(s.text))
			}
		}
	}
	t.Logf("%d changes and %d commands: sent in %v, all answered after %v", changes, len(requests), sentAll, time.Since(start))

	call(2, "shutdown", nil)
	notify("exit", nil)
	select {
	case got := <-code:
		if got != 0 {
			t.Errorf("exit code %d, want 0", got)
		}
	case <-ctx.Done():
		t.Fatal("server did not stop")
	}
}

// stormNote reports whether n is the open-documents note want for a
// build from version v: exactly, or with the syntax of an earlier
// version, or with none, named after it (" (syntax of vM: parsing vN)",
// " (no syntax: parsing vN)").
func stormNote(n, want string, v int) bool {
	rest, ok := strings.CutPrefix(n, want)
	if !ok {
		return false
	}
	if rest == "" || rest == fmt.Sprintf(" (no syntax: parsing v%d)", v) {
		return true
	}
	var m, parsing int
	if _, err := fmt.Sscanf(rest, " (syntax of v%d: parsing v%d)", &m, &parsing); err != nil {
		return false
	}
	return parsing == v && m < v && rest == fmt.Sprintf(" (syntax of v%d: parsing v%d)", m, v)
}
