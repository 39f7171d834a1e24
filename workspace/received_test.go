package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/index/syntax"
	"github.com/google/go-cmp/cmp"
)

// TestBuildReadsTheDocumentsAsReceived: a command built under the context
// of Received reads the open documents as they were then, whatever changed
// since (a later version, a document closed or opened), and one built
// without it reads them as they are.
func TestBuildReadsTheDocumentsAsReceived(t *testing.T) {
	dir := indextest.WriteTree(t, "-- go.mod --\nmodule m\n-- a.go --\npackage a\n\nfunc Disk() {}\n-- b.go --\npackage a\n\nfunc DiskB() {}\n")
	s := NewService(ServiceOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Index: index.Options{CacheDir: "off"}})
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	if _, err := s.OpenFolder(ctx, dir, "m"); err != nil {
		t.Fatal(err)
	}
	x := s.Index()
	a, b := index.PathToURI(filepath.Join(dir, "a.go")), index.PathToURI(filepath.Join(dir, "b.go"))
	text := func(v int) string { return "package a\n\nfunc V" + string(rune('0'+v)) + "() {}\n" }
	x.OpenDocument(ctx, a, "go", 1, []byte(text(1)))
	if _, err := x.ChangeDocument(ctx, a, 2, []index.Edit{{Full: true, Text: text(2)}}); err != nil {
		t.Fatal(err)
	}
	received := s.Received(ctx)
	// Everything below arrives after the request.
	if _, err := x.ChangeDocument(ctx, a, 3, []index.Edit{{Full: true, Text: text(3)}}); err != nil {
		t.Fatal(err)
	}
	x.OpenDocument(ctx, b, "go", 1, []byte("package a\n\nfunc BufferB() {}\n"))

	type seen struct {
		Notes  []string
		Hashes map[string]string
	}
	manifest := func(ctx context.Context) seen {
		t.Helper()
		res, err := s.Manifest(ctx, Caller{}, &contextbuilder.Request{Purpose: contextbuilder.PurposeDiff, ActiveFile: a})
		if err != nil {
			t.Fatal(err)
		}
		got := seen{Hashes: map[string]string{}}
		for _, n := range res.BudgetReport.Notes {
			if strings.HasPrefix(n, "open documents:") {
				got.Notes = append(got.Notes, n)
			}
		}
		for _, f := range res.Manifest.Selection.IncludedFiles {
			if f.Path == "a.go" {
				got.Hashes[f.Path] = f.Hash
			}
		}
		return got
	}
	want := seen{Notes: []string{"open documents: a.go@v2"}, Hashes: map[string]string{"a.go": sha(text(2))}}
	if diff := cmp.Diff(want, manifest(received)); diff != "" {
		t.Errorf("as received (-want +got):\n%s", diff)
	}
	want = seen{Notes: []string{"open documents: a.go@v3, b.go@v1"}, Hashes: map[string]string{"a.go": sha(text(3))}}
	if diff := cmp.Diff(want, manifest(ctx)); diff != "" {
		t.Errorf("now (-want +got):\n%s", diff)
	}
	// The view's extraction is the received version's.
	r := s.AsReceived(received, x.Snapshot()).Roots()[0]
	if f, ok := r.File("a.go"); !ok || f.Syntax() == nil || !slices.ContainsFunc(f.Syntax().Symbols, func(s syntax.Symbol) bool { return s.Name == "V2" }) {
		t.Errorf("a.go as received: %+v", f)
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
