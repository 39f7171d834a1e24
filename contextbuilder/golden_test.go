package contextbuilder_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gowebpki/jcs"
	"golang.org/x/tools/txtar"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/cbtest"
	"github.com/ctxd/ctxd/contextbuilder/tokens"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/workspace"
	ctxws "github.com/ctxd/ctxd/workspace"
)

var _ = indextest.UpdateFlag("the want.json sections of testdata/golden/*.txtar")

// goldenTime is the created_at of every golden build.
var goldenTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// goldenCase is one archive of testdata/golden: a workspace (ws/…), a
// request (request.json, where $ROOT stands for the workspace's file URI),
// optional options.json ({"config": …, "position_encoding": …,
// "max_file_size": …, "thread_refs": […]}), editor
// buffers (open/<path>), files rewritten (after-index/<path>) or removed
// (remove/<path>) on disk after indexing, and the expected output
// (want.json): the Result, or {"refusal": …}.
type goldenCase struct {
	ws      txtar.Archive
	request []byte
	options []byte
	open    map[string][]byte
	after   map[string][]byte
	remove  []string
}

func parseCase(t *testing.T, ar *txtar.Archive) *goldenCase {
	c := &goldenCase{open: map[string][]byte{}, after: map[string][]byte{}}
	for _, f := range ar.Files {
		switch {
		case f.Name == "request.json":
			c.request = f.Data
		case f.Name == "options.json":
			c.options = f.Data
		case f.Name == "want.json":
		case strings.HasPrefix(f.Name, "ws/"):
			c.ws.Files = append(c.ws.Files, txtar.File{Name: strings.TrimPrefix(f.Name, "ws/"), Data: f.Data})
		case strings.HasPrefix(f.Name, "open/"):
			c.open[strings.TrimPrefix(f.Name, "open/")] = f.Data
		case strings.HasPrefix(f.Name, "after-index/"):
			c.after[strings.TrimPrefix(f.Name, "after-index/")] = f.Data
		case strings.HasPrefix(f.Name, "remove/"):
			c.remove = append(c.remove, strings.TrimPrefix(f.Name, "remove/"))
		default:
			t.Fatalf("unknown archive file %q", f.Name)
		}
	}
	if c.request == nil {
		t.Fatal("archive has no request.json")
	}
	return c
}

type goldenOptions struct {
	Config contextbuilder.Config `json:"config"`
	// PositionEncoding is the units of the request's selection (utf-8,
	// utf-16 or utf-32; "" means utf-16), which the harness resolves to
	// byte offsets as the LSP edge does.
	PositionEncoding string `json:"position_encoding"`
	// MaxFileSize is the index's size cap; 0 means the default.
	MaxFileSize int64 `json:"max_file_size"`
	// ThreadRefs are resolved thread events given to the builder as is.
	ThreadRefs []contextbuilder.ThreadRef `json:"thread_refs"`
}

// governed reports whether the workspace has a .ctxd/config.json, which
// makes the case build through package workspace.
func (c *goldenCase) governed() bool {
	for _, f := range c.ws.Files {
		if strings.HasPrefix(f.Name, ".ctxd/config.json") {
			return true
		}
	}
	return false
}

// run writes the workspace under dir, indexes it, applies the editor
// buffers and disk changes, and builds twice. It returns the output of the
// first build after checking the second is byte-identical.
func (c *goldenCase) run(t *testing.T, dir string) []byte {
	t.Helper()
	indextest.WriteFiles(t, dir, c.ws.Files)
	var o goldenOptions
	if c.options != nil {
		if err := json.Unmarshal(c.options, &o); err != nil {
			t.Fatalf("options.json: %v", err)
		}
	}
	ctx := context.Background()
	// Every case also builds on an index whose files are listed but not
	// parsed (the background parse held): a build before the index
	// completes must give the same bytes (index.Demand).
	newIndex := func(partial bool) *index.Index {
		x := openIndex(t, dir, index.Options{CacheDir: "off", MaxFileSize: o.MaxFileSize}, partial)
		for p, text := range c.open {
			x.OpenDocument(ctx, index.PathToURI(filepath.Join(dir, p)), "", 1, text)
		}
		return x
	}
	x, partial := newIndex(false), newIndex(true)
	for p, data := range c.after {
		if err := os.WriteFile(filepath.Join(dir, p), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range c.remove {
		if err := os.Remove(filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	raw := bytes.ReplaceAll(c.request, []byte("$ROOT"), []byte(index.PathToURI(dir)))
	demanded := false // set when a build ran on an index.Demand
	build := func(x *index.Index) []byte {
		req, err := workspace.DecodeBuildRequest(raw)
		if err != nil {
			t.Fatalf("request.json: %v", err)
		}
		resolveSelection(x.Snapshot(), req, o.PositionEncoding)
		opts := contextbuilder.Options{
			Config:     o.Config,
			CreatedAt:  goldenTime,
			Tokens:     tokens.NewCache(0),
			ThreadRefs: o.ThreadRefs,
			Refresh: func(ctx context.Context, uris []string) *index.Snapshot {
				x.FilesChanged(ctx, uris)
				return x.Snapshot()
			},
			OnDemand: func(int, int) { demanded = true },
		}
		build := contextbuilder.Build
		if c.governed() {
			// A workspace with .ctxd/config.json builds as the server
			// does: config, policy and the record of the build.
			build = ctxws.Open(dir, ctxws.Options{Now: func() time.Time { return goldenTime }}).Build
		}
		res, err := build(ctx, x.Snapshot(), req, opts)
		return encodeOutcome(t, res, err)
	}
	first := build(x)
	if second := build(x); !bytes.Equal(first, second) {
		t.Errorf("second build differs from the first:\n%s", cmp.Diff(string(first), string(second)))
	}
	// Not when the case changes the disk after indexing: the complete
	// index parsed the old bytes, the listed one can only parse the new.
	demanded = false
	// A listed index whose files all have their extraction (text
	// files, open buffers) needs no demand: the build runs on it whole.
	pending := false
	for _, r := range partial.Snapshot().Roots() {
		for _, p := range r.Paths() {
			if f, ok := r.File(p); ok && !f.Parsed() {
				pending = true
			}
		}
	}
	if early := build(partial); len(c.after)+len(c.remove) == 0 && !bytes.Equal(first, early) {
		t.Errorf("the build before the index was parsed differs (-complete +listed only):\n%s", cmp.Diff(string(first), string(early)))
	}
	// A demand set that outgrows its share of the root becomes the whole
	// root: that build too gives the same bytes. A fresh listed index,
	// since the one above is parsed now.
	restore := index.SetDemandWholeAt(1)
	if early := build(newIndex(true)); len(c.after)+len(c.remove) == 0 && !bytes.Equal(first, early) {
		t.Errorf("the build that took the whole root midway differs (-complete +listed only):\n%s", cmp.Diff(string(first), string(early)))
	}
	restore()
	// So does one that took it after its first run (index.SetDemandMaxRuns).
	restore = index.SetDemandMaxRuns(1)
	if capped := build(newIndex(true)); len(c.after)+len(c.remove) == 0 && !bytes.Equal(first, capped) {
		t.Errorf("the build that took the whole root after one run differs (-complete +listed only):\n%s", cmp.Diff(string(first), string(capped)))
	}
	restore()
	// The comparison proves something only when the listed index built on
	// demand: every case that gets past choosing its folder does.
	if pending && !demanded && !bytes.Contains(first, []byte(`"refusal"`)) && !bytes.Contains(first, []byte(`"error"`)) {
		t.Error("the build on the listed index did not run on demand (index.Demand)")
	}
	return first
}

// encodeOutcome renders a build's result or refusal as golden JSON and
// validates it against its schema.
func encodeOutcome(t *testing.T, res *contextbuilder.Result, err error) []byte {
	t.Helper()
	var ref *contextbuilder.Refusal
	var v any
	switch {
	case errors.As(err, &ref):
		v = map[string]any{"refusal": ref}
		cbtest.ValidateValue(t, "cli_refusal.schema.json", v)
	case err != nil:
		v = map[string]any{"error": err.Error()}
	default:
		v = res
		cbtest.ValidateValue(t, "build_result.schema.json", res)
		checkCanonical(t, res)
	}
	b, mErr := json.MarshalIndent(v, "", "  ")
	if mErr != nil {
		t.Fatal(mErr)
	}
	return append(b, '\n')
}

// checkCanonical: the canonical form a build gives its artifact and reply
// (made from the blocks its fingerprint hashed) is exactly the jcs
// module's canonical form of the result's JSON encoding.
func checkCanonical(t *testing.T, res *contextbuilder.Result) {
	t.Helper()
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	want, err := jcs.Transform(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.AppendCanonical(nil); !bytes.Equal(got, want) {
		t.Errorf("AppendCanonical differs from the jcs module's form (-want +got):\n%s", cmp.Diff(string(want), string(got)))
	}
}

func tempRoot(t *testing.T) string { return indextest.TempDir(t) }

// TestGolden builds every testdata/golden archive twice and compares the
// output with want.json. `go test ./contextbuilder -run Golden -update`
// rewrites want.json; review the diff before committing.
func TestGolden(t *testing.T) {
	indextest.Goldens(t, "testdata/golden/*.txtar", func(t *testing.T, g *indextest.Golden) {
		g.Check(t, "want.json", parseCase(t, g.Archive).run(t, indextest.TempDir(t)))
	})
}

func init() { indextest.PinGoPlatform() }
