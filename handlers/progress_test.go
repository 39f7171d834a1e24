package handlers_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/server"
	"github.com/ctxd/ctxd/server/lsptest"
)

// progressWorkspace has enough files for the index to report along the
// way (it reports every 1% of a scan).
func progressWorkspace(t *testing.T) string {
	var b strings.Builder
	b.WriteString("-- go.mod --\nmodule example.com/p\n")
	for i := range 150 {
		fmt.Fprintf(&b, "-- pkg%d/f%d.go --\npackage pkg%d\n\n// F%d is a function.\nfunc F%d() int { return %d }\n", i%10, i, i%10, i, i, i)
	}
	return indextest.WriteTree(t, b.String())
}

// startServer runs an in-process server joined to a test client by
// net.Pipe and sends initialize and initialized for dir.
func startServer(t *testing.T, dir string, caps map[string]any) (context.Context, *lsptest.Client) {
	t.Helper()
	// A bound on a broken test's hang, not a performance assertion.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	srvConn, cliConn := net.Pipe()
	srv := server.New(server.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Version: "test", Index: index.Options{CacheDir: "off"}})
	done := make(chan struct{})
	go func() { srv.Run(ctx, srvConn); close(done) }()
	c := lsptest.New(cliConn, cliConn)
	t.Cleanup(func() {
		cancel()
		cliConn.Close()
		<-done
	})
	m, err := c.Call(ctx, 1, "initialize", map[string]any{
		"processId":        nil,
		"workspaceFolders": []map[string]any{{"uri": index.PathToURI(dir), "name": "shop"}},
		"capabilities":     caps,
	})
	if err != nil || m.Error != nil {
		t.Fatalf("initialize: %v %v", err, m.Error)
	}
	if err := c.Notify("initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	return ctx, c
}

// TestIndexingProgress: the initial scan of a folder is shown as
// work-done progress: a token the client created, a begin at 0%, reports
// with files done/total and a percentage, and an end.
func TestIndexingProgress(t *testing.T) {
	ctx, c := startServer(t, progressWorkspace(t), map[string]any{"window": map[string]any{"workDoneProgress": true}})
	events, err := c.WaitProgressEnd(ctx, "ctxd: indexing")
	if err != nil {
		t.Fatal(err)
	}
	token := events[0].Token
	created := false
	for _, r := range c.ServerRequests() {
		if r.Method == "window/workDoneProgress/create" && string(r.Params) == `{"token":"`+token+`"}` {
			created = true
		}
	}
	if !created {
		t.Errorf("no window/workDoneProgress/create for token %q before its progress", token)
	}

	begin, last := events[0], events[len(events)-1]
	if begin.Kind != "begin" || begin.Message != "shop" || begin.Percentage == nil || *begin.Percentage != 0 {
		t.Errorf("begin = %+v, want the folder's name at 0%%", begin)
	}
	if last.Kind != "end" || last.Message != "151 files indexed" {
		t.Errorf("end = %+v, want 151 files indexed", last)
	}
	reports := events[1 : len(events)-1]
	if len(reports) == 0 {
		t.Fatalf("no report between begin and end: %+v", events)
	}
	count := regexp.MustCompile(`^(?:listing|parsing) ([0-9,]+)/([0-9,]+) files$`)
	prevPct := 0
	for _, r := range reports {
		m := count.FindStringSubmatch(r.Message)
		if r.Kind != "report" || m == nil || m[2] != "151" || r.Percentage == nil {
			t.Errorf("report = %+v, want \"listing|parsing N/151 files\" with a percentage", r)
			continue
		}
		if *r.Percentage < prevPct || *r.Percentage > 100 {
			t.Errorf("report %+v: percentage %d after %d", r, *r.Percentage, prevPct)
		}
		prevPct = *r.Percentage
	}
	if r := reports[len(reports)-1]; r.Message != "parsing 151/151 files" || *r.Percentage != 100 {
		t.Errorf("last report = %+v, want parsing 151/151 files at 100%%", r)
	}
}

// TestIndexingProgressWithoutSupport: a client that did not announce
// window.workDoneProgress gets no progress, and indexing works as before.
func TestIndexingProgressWithoutSupport(t *testing.T) {
	ctx, c := startServer(t, progressWorkspace(t), map[string]any{})
	// workspace/symbol waits for the initial scan, after which the
	// progress would have ended.
	m, err := c.Call(ctx, 2, "workspace/symbol", map[string]any{"query": "F149"})
	if err != nil || m.Error != nil || !strings.Contains(string(m.Result), "F149") {
		t.Fatalf("workspace/symbol: %v %v %s", err, m.Error, m.Result)
	}
	events, err := c.Progress()
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 0 || len(c.ServerRequests()) != 0 {
		t.Errorf("progress %+v and requests %v sent to a client without progress support", events, c.ServerRequests())
	}
}
