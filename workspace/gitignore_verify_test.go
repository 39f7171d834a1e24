package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/ledger"
	"github.com/google/go-cmp/cmp"
)

// TestVerifyGitignore: in a workspace that keeps its records in .ctxd,
// verify reports a .gitignore that is missing or lacks ctxd's lines (the
// ones that keep the records out of commits) as incomplete, with a hint;
// opening the records restores them, so the next verification is clean.
func TestVerifyGitignore(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content *string // nil: removed
		wantMsg string
	}{
		{"missing", nil, "is missing"},
		{"lacks lines", ptr("# ours\nartifacts/\nbuild/\n"), "lacks ctxd's lines ledger/, audit.jsonl, audit.jsonl.lock, ledger.sqlite, *.tmp, *.torn-*"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, map[string]string{
				"calc.go":           calcGo,
				"go.mod":            "module example.com/calc\n\ngo 1.22\n",
				".ctxd/config.json": `{"schema_version": "1"}`,
			})
			if _, err := e.w.Build(context.Background(), e.x.Snapshot(), request("Make Add saturate.", "", "", ""), e.opts); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(e.dir, ".ctxd", ".gitignore")
			if tc.content == nil {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(path, []byte(*tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := workspace.Verify(e.dir, ledger.ModeStream)
			if err != nil {
				t.Fatal(err)
			}
			var got []workspace.Check
			for _, c := range r.Checks {
				if c.Status != workspace.StatusOK {
					got = append(got, c)
				}
			}
			want := []workspace.Check{{Source: "config", Name: ".ctxd/.gitignore", Status: workspace.StatusIncomplete, Field: "gitignore",
				Message: tc.wantMsg + ": nothing kept the records out of commits; ctxd has now added its lines (opening the records does); " +
					"check `git status` and `git log -- .ctxd` for records already committed"}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if r.OK || r.Counts.Incomplete != 1 || r.Counts.Mismatches != 0 {
				t.Errorf("ok %v, counts %+v; want not ok, 1 incomplete, no mismatch", r.OK, r.Counts)
			}
			again, err := workspace.Verify(e.dir, ledger.ModeStream)
			if err != nil {
				t.Fatal(err)
			}
			if !again.OK {
				t.Errorf("second verification: %+v", again.Counts)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
