package contextbuilder_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
)

// sandboxSecret is planted outside the workspace; no output may carry it.
const sandboxSecret = "OUTSIDE_SANDBOX_SECRET_d41d8"

// sandboxWorkspace writes parent/ws (the workspace folder) next to
// parent/outside (a secret, a Go file and a FIFO), with symbolic links in
// the workspace that lead out, and indexes the workspace.
func sandboxWorkspace(t *testing.T) (snap *index.Snapshot, ws, outside string) {
	t.Helper()
	parent := tempRoot(t)
	ws = filepath.Join(parent, "ws")
	outside = filepath.Join(parent, "outside")
	files := map[string]string{
		"ws/go.mod":           "module example.com/ws\n",
		"ws/main.go":          "package main\n\nfunc main() { helper() }\n",
		"ws/lib/util.go":      "package lib\n\n// Util is used.\nfunc Util() int { return 1 }\n",
		"ws/helper.go":        "package main\n\nfunc helper() {}\n",
		"outside/secret.txt":  "password: " + sandboxSecret + "\n",
		"outside/sub/x.go":    "package sub\n\n// " + sandboxSecret + "\nfunc X() {}\n",
		"outside/ws/main.go":  "package main // " + sandboxSecret + "\n",
		"outside/lib/util.go": "package lib // " + sandboxSecret + "\n",
	}
	for name, text := range files {
		p := filepath.Join(parent, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A FIFO opened for reading blocks until a writer comes, even as root:
	// a build that opened it would hang instead of refusing.
	if err := syscall.Mkfifo(filepath.Join(outside, "fifo"), 0o644); err != nil {
		t.Logf("mkfifo: %v", err)
	}
	for name, target := range map[string]string{
		"link":      outside,
		"rel_link":  "../outside",
		"file_link": filepath.Join(outside, "secret.txt"),
		"fifo_link": filepath.Join(outside, "fifo"),
		"inner":     "lib",
		"lib/up":    "../..",
		"via_inner": "inner/../link",
		"sub.go":    "../outside/sub/x.go",
	} {
		if err := os.Symlink(target, filepath.Join(ws, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	x := index.New(index.Options{CacheDir: "off"})
	t.Cleanup(func() { x.Close() })
	x.SetRoots([]index.Root{{URI: index.PathToURI(ws), Name: "ws", Dir: ws}})
	snap, err := x.Wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap, ws, outside
}

// buildRaw decodes a request written as a Go value (so NUL bytes and
// backslashes travel as JSON escapes) and builds it, failing the test if
// the build blocks.
func buildRaw(t *testing.T, snap *index.Snapshot, req map[string]any) (*contextbuilder.Result, error) {
	t.Helper()
	raw, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	r, err := workspace.DecodeBuildRequest(raw)
	if err != nil {
		return nil, err
	}
	type outcome struct {
		res *contextbuilder.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := contextbuilder.Build(context.Background(), snap, r, contextbuilder.Options{CreatedAt: goldenTime})
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-time.After(30 * time.Second):
		t.Fatalf("build of %s blocked: something opened the FIFO outside the workspace", raw)
		return nil, nil
	}
}

// TestSandboxRefusals builds through contextbuilder.Build with every form
// of path or URI that could leave the workspace, in each field that names
// a file: each is REFUSE_OUTSIDE_SANDBOX, no output carries the outside
// secret, and the message quotes nothing of the machine's paths that the
// request did not contain.
func TestSandboxRefusals(t *testing.T) {
	snap, ws, outside := sandboxWorkspace(t)
	parent := filepath.Dir(ws)
	wsURI := "file://" + ws
	targets := []string{
		"../outside/secret.txt", "lib/../../outside/secret.txt", "lib/../main.go", "..", ".",
		"%2e%2e/outside/secret.txt", "%2E%2E/outside/secret.txt", "%2E./outside/secret.txt",
		"%252e%252e/outside/secret.txt", "..%2foutside%2fsecret.txt", "..%5coutside%5csecret.txt",
		`..\outside\secret.txt`, `lib\..\..\outside\secret.txt`, `\\host\share\secret.txt`,
		"//host/share/secret.txt", `C:\outside\secret.txt`, "C:/outside/secret.txt", "/C:/outside/secret.txt",
		"main.go\x00.txt", "lib/util.go\x00", "http://example.com/main.go",
		outside + "/secret.txt", parent + "/ws/../outside/secret.txt", "file://" + outside + "/secret.txt",
		"file://evil.example" + ws + "/main.go", "file://evil.example" + outside + "/secret.txt",
		"file:////host/share/main.go", wsURI + "/%2e%2e/outside/secret.txt", wsURI + "/..%2foutside%2fsecret.txt",
		wsURI + "/lib%5c..%5c..%5coutside%5csecret.txt", wsURI + "/../outside/secret.txt", wsURI + "/main.go%00",
		wsURI + "/main.go?x=1", wsURI + "/main.go#x",
		// Symbolic links inside the workspace that lead out of it.
		"link/secret.txt", "link/sub/x.go", "link/fifo", "link/ws/main.go", "rel_link/secret.txt",
		"file_link", "fifo_link", "lib/up/outside/secret.txt", "via_inner/secret.txt", "sub.go",
		"inner/up/outside/lib/util.go", wsURI + "/link/secret.txt", ws + "/link/sub/x.go", wsURI + "/fifo_link",
		"link/secret.txt:1-1",
	}
	type tcase struct {
		name string
		in   string
		req  map[string]any
	}
	var cases []tcase
	for _, in := range targets {
		cases = append(cases,
			tcase{"target_files", in, map[string]any{"purpose": "diff", "plan_step": map[string]any{"id": "s1", "target_files": []string{in}}}},
			tcase{"user_selected_targets", in, map[string]any{"purpose": "plan", "user_selected_targets": []map[string]any{{"path": in}}}},
			// A valid target first: the bad one is refused all the same.
			tcase{"second target", in, map[string]any{"purpose": "diff", "plan_step": map[string]any{"id": "s1", "target_files": []string{"main.go", in}}}},
		)
	}
	for _, uri := range []string{
		wsURI + "/link/secret.txt", wsURI + "/link/sub/x.go", wsURI + "/file_link", wsURI + "/fifo_link",
		wsURI + "/sub.go", wsURI + "/via_inner/secret.txt", wsURI + "/%2e%2e/outside/secret.txt",
		wsURI + "/../outside/secret.txt", wsURI + "/..%2foutside%2fsecret.txt", wsURI + "/main.go%00",
		"file://evil.example" + ws + "/main.go", "file://" + outside + "/secret.txt", "file:////host/share/main.go",
		outside + "/secret.txt", "untitled:Untitled-1", "main.go",
	} {
		sel := map[string]any{"uri": uri, "range": map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 1}}}
		cases = append(cases,
			tcase{"active_file", uri, map[string]any{"purpose": "diff", "active_file": uri}},
			tcase{"active_file+selection", uri, map[string]any{"purpose": "diff", "active_file": uri, "selection": sel}},
			tcase{"selection only", uri, map[string]any{"purpose": "diff", "selection": sel}},
			tcase{"active_file with targets", uri, map[string]any{"purpose": "plan", "active_file": uri, "plan_step": map[string]any{"id": "s1", "target_files": []string{"main.go"}}}},
		)
	}
	for _, c := range cases {
		res, err := buildRaw(t, snap, c.req)
		var ref *contextbuilder.Refusal
		if !errors.As(err, &ref) || ref.Code != contextbuilder.RefuseOutsideSandbox {
			t.Errorf("%s %q: got %v (result %v), want REFUSE_OUTSIDE_SANDBOX", c.name, c.in, err, res != nil)
		}
		out, _ := json.Marshal(map[string]any{"result": res, "refusal": ref})
		if strings.Contains(string(out), sandboxSecret) {
			t.Errorf("%s %q: the outside secret reached the output", c.name, c.in)
		}
		if ref != nil {
			text := ref.Message + ref.Advice
			if !strings.Contains(c.in, parent) && strings.Contains(text, parent) {
				t.Errorf("%s %q: the refusal names a path of the machine the request did not: %q", c.name, c.in, ref.Message)
			}
			if strings.ContainsRune(text, 0) {
				t.Errorf("%s %q: the refusal carries a raw NUL byte: %q", c.name, c.in, ref.Message)
			}
		}
	}
}

// TestSandboxAccepts is the control: the same workspace builds normally
// from its own files, by relative path, absolute path and URI, and a
// last_error naming a path outside the workspace is shown as such without
// being read.
func TestSandboxAccepts(t *testing.T) {
	snap, ws, outside := sandboxWorkspace(t)
	for _, target := range []string{"main.go", "./main.go", "lib//util.go", ws + "/main.go", "file://" + ws + "/lib/util.go", "file://localhost" + ws + "/main.go"} {
		res, err := buildRaw(t, snap, map[string]any{"purpose": "diff", "plan_step": map[string]any{"id": "s1", "target_files": []string{target}}})
		if err != nil || res == nil {
			t.Errorf("target %q: %v", target, err)
			continue
		}
		out, _ := json.Marshal(res)
		if strings.Contains(string(out), sandboxSecret) {
			t.Errorf("target %q: the outside secret reached the output", target)
		}
	}
	// A link to a directory inside the workspace is no escape, but its
	// files are indexed under their real path only (docs/contract.md).
	_, err := buildRaw(t, snap, map[string]any{"purpose": "diff", "plan_step": map[string]any{"id": "s1", "target_files": []string{"inner/util.go"}}})
	var ref *contextbuilder.Refusal
	if !errors.As(err, &ref) || ref.Code != contextbuilder.RefuseUnsupportedTarget {
		t.Errorf("target inner/util.go (inner -> lib): %v, want REFUSE_UNSUPPORTED_TARGET", err)
	}
	for _, p := range []string{outside + "/secret.txt", "link/secret.txt", "../outside/secret.txt", "file://" + ws + "/%2e%2e/outside/secret.txt", "fifo_link"} {
		res, err := buildRaw(t, snap, map[string]any{
			"purpose": "diff", "plan_step": map[string]any{"id": "s1", "target_files": []string{"main.go"}},
			"last_error": map[string]any{"message": "build failed", "path": p},
		})
		if err != nil {
			t.Errorf("last_error.path %q: %v", p, err)
			continue
		}
		out, _ := json.Marshal(res)
		if strings.Contains(string(out), sandboxSecret) {
			t.Errorf("last_error.path %q: the outside secret reached the output", p)
		}
		if !strings.Contains(string(out), "(a path outside the workspace)") {
			t.Errorf("last_error.path %q: the error block does not say the path is outside", p)
		}
	}
}

// TestBuildFIFOSwappedIn: a file of the index that becomes a FIFO without
// a watched-file event (an editor's swap, a test fixture) must not stall a
// build: a related file is excluded with a reason, a target is refused.
func TestBuildFIFOSwappedIn(t *testing.T) {
	snap, ws, _ := sandboxWorkspace(t)
	fifo := func(rel string) {
		p := filepath.Join(ws, rel)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	fifo("helper.go")
	res, err := buildRaw(t, snap, map[string]any{"purpose": "diff", "plan_step": map[string]any{"id": "s1", "target_files": []string{"main.go"}}})
	if err != nil {
		t.Fatalf("build with a related FIFO: %v", err)
	}
	var got []contextbuilder.Excluded
	for _, e := range res.Manifest.Selection.ExcludedCandidates {
		if e.Path == "helper.go" {
			got = append(got, e)
		}
	}
	if diff := cmp.Diff([]contextbuilder.Excluded{{Path: "helper.go", Reason: contextbuilder.ExcludeBinary}}, got); diff != "" {
		t.Errorf("helper.go, now a FIFO, excluded (-want +got):\n%s", diff)
	}

	fifo("main.go")
	_, err = buildRaw(t, snap, map[string]any{"purpose": "diff", "plan_step": map[string]any{"id": "s1", "target_files": []string{"main.go"}}})
	var ref *contextbuilder.Refusal
	if !errors.As(err, &ref) || ref.Code != contextbuilder.RefuseUnsupportedTarget || !strings.Contains(ref.Message, "not a regular file") {
		t.Errorf("target main.go, now a FIFO: %v, want REFUSE_UNSUPPORTED_TARGET naming it not a regular file", err)
	}
}
