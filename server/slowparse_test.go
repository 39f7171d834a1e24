package server

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
)

// TestSlowParseOverLSP: a buffer that tree-sitter cannot parse within the
// parse budget (here 1ns: every parse overruns it) keeps its text-level
// answers: ctxd.indexStatus says so for the open document, the budget
// report names the version and that it had no syntax, the same request
// gives the same bytes, and the file on disk's symbols are never used for
// the buffer.
func TestSlowParseOverLSP(t *testing.T) {
	h, _ := newBuildHarness(t, "-- go.mod --\nmodule example.com/m\n-- a.go --\npackage m\n\nfunc Disk() {}\n", "utf-16", func(s *Server) {
		s.Session().UseService(workspace.ServiceOptions{Index: index.Options{CacheDir: "off", ParseBudget: time.Nanosecond}})
	})
	uri := h.uri("a.go")
	h.open("a.go", "package m\n\nfunc Open() {}\n")
	// documentSymbol reads the buffer's syntax: the background parse has
	// overrun its budget once it answers, so the document is slow from
	// then on (the order of events, not a duration).
	if m := h.call(2, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}); m.Error != nil {
		t.Fatal(m.Error)
	} else if strings.Contains(string(m.Result), "Disk") {
		t.Errorf("documentSymbol of the buffer answered the file on disk's symbols: %s", m.Result)
	}

	st := h.status(3)
	if len(st.OpenDocuments) != 1 {
		t.Fatalf("open documents: %+v", st.OpenDocuments)
	}
	got := st.OpenDocuments[0]
	if got.Syntax != workspace.SyntaxTextOnly || got.SyntaxOf != nil {
		t.Errorf("indexStatus open document: syntax %q of %v; want %q", got.Syntax, got.SyntaxOf, workspace.SyntaxTextOnly)
	}

	req := map[string]any{"purpose": "diff", "active_file": uri}
	budget := func() (contextbuilder.BudgetResult, string) {
		t.Helper()
		m := h.command("ctxd.budget", req)
		if m.Error != nil {
			t.Fatalf("ctxd.budget: %v (data %s)", m.Error, m.Error.Data)
		}
		var r contextbuilder.BudgetResult
		if err := json.Unmarshal(m.Result, &r); err != nil {
			t.Fatal(err)
		}
		return r, string(m.Result)
	}
	first, firstRaw := budget()
	want := "open documents: a.go@v1 (no syntax: parsing v1)"
	if !contains(first.BudgetReport.Notes, want) {
		t.Errorf("budget notes = %q; want %q among them", first.BudgetReport.Notes, want)
	}
	_, secondRaw := budget()
	if diff := cmp.Diff(firstRaw, secondRaw); diff != "" {
		t.Errorf("the same versions gave different budgets (-first +second):\n%s", diff)
	}
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
