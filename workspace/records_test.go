package workspace_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/internal/testenv"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/ledger"
)

// TestMain gives the tests a configuration and state directory of their
// own (testenv.Run).
func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

// tree lists every path under dir with its mode and size (and a
// directory's entries through their own lines), so that two listings
// differ when anything was written.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		size := fi.Size()
		if fi.IsDir() {
			size = 0
		}
		out = append(out, fmt.Sprintf("%s %v %d %d", filepath.ToSlash(rel), fi.Mode(), size, fi.ModTime().UnixNano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRecordsOutsideWorkspace: a workspace without .ctxd/config.json is
// the user's: a build (a recorded one, in a thread, and a refused one)
// writes nothing into it, even when it is read-only, and `ctxd verify`
// (workspace.Verify) finds the records in the state directory.
func TestRecordsOutsideWorkspace(t *testing.T) {
	e := newEnv(t, nil)
	if err := os.Chmod(e.dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(e.dir, 0o755) })
	before := tree(t, e.dir)

	e.mustBuild(request("first", "", "", ""))
	e.mustBuild(request("second", "th", "1", ""))
	e.record("th", "1", "done")
	if _, err := e.build(e.w, request("third", "th", "2", "1", "intent:99")); err == nil {
		t.Error("a build declaring a missing ref was not refused")
	}
	if diff := cmp.Diff(before, tree(t, e.dir)); diff != "" {
		t.Errorf("the builds wrote into the workspace (-before +after):\n%s", diff)
	}

	rec, err := workspace.Locate(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	state := os.Getenv("XDG_STATE_HOME")
	if rec.InWorkspace || !strings.HasPrefix(rec.Dir, filepath.Join(state, "ctxd", "workspaces")+string(filepath.Separator)) {
		t.Errorf("Locate = %+v, want a directory under %s/ctxd/workspaces", rec, state)
	}
	for _, name := range []string{"audit.jsonl", "ledger/events.jsonl", "artifacts/contexts"} {
		if _, err := os.Stat(filepath.Join(rec.Dir, filepath.FromSlash(name))); err != nil {
			t.Errorf("no %s in the records directory: %v", name, err)
		}
	}
	r := e.verify()
	if !r.OK || r.Counts.LedgerEvents == 0 || r.Counts.Artifacts == 0 || r.Counts.AuditEvents == 0 {
		t.Errorf("verify: ok %v, counts %+v, mismatches %+v", r.OK, r.Counts, mismatches(r))
	}
	for _, c := range r.Checks {
		if c.Source == "artifact" && !strings.HasPrefix(c.Name, "artifacts/") {
			t.Errorf("artifact check named %q, want a name relative to the records directory", c.Name)
		}
	}
	if repaired, err := workspace.RepairProjection(e.dir); err != nil || !repaired {
		t.Errorf("RepairProjection = %v, %v; want the state directory's projection rebuilt", repaired, err)
	}
	if diff := cmp.Diff(before, tree(t, e.dir)); diff != "" {
		t.Errorf("verify wrote into the workspace (-before +after):\n%s", diff)
	}
}

// TestRecordsOptedIn: with a .ctxd/config.json the records stay in the
// workspace's .ctxd, as before, behind a .gitignore that covers every file
// ctxd writes there, and nothing goes to the state directory.
func TestRecordsOptedIn(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	e := newEnv(t, nil)
	writeConfig(t, e.dir, `{"schema_version": "1"}`)
	e.w = e.open()
	e.mustBuild(request("first", "th", "1", ""))
	e.record("th", "1", "done")
	if _, err := workspace.Verify(e.dir, ledger.ModeLedger); err != nil { // writes ledger.sqlite
		t.Fatal(err)
	}
	rec, err := workspace.Locate(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := (workspace.Records{Dir: filepath.Join(e.dir, ".ctxd"), InWorkspace: true}); rec != want {
		t.Errorf("Locate = %+v, want %+v", rec, want)
	}
	if r := e.verify(); !r.OK || r.Counts.LedgerEvents == 0 {
		t.Errorf("verify: ok %v, counts %+v, mismatches %+v", r.OK, r.Counts, mismatches(r))
	}
	for _, c := range e.verify().Checks {
		if c.Source == "artifact" && !strings.HasPrefix(c.Name, ".ctxd/artifacts/") {
			t.Errorf("artifact check named %q, want .ctxd/artifacts/…", c.Name)
		}
	}
	gitignore := string(mustRead(t, filepath.Join(e.dir, ".ctxd", ".gitignore")))
	ignored := map[string]bool{}
	for l := range strings.SplitSeq(gitignore, "\n") {
		ignored[strings.TrimSuffix(l, "/")] = true
	}
	ents, err := os.ReadDir(filepath.Join(e.dir, ".ctxd"))
	if err != nil {
		t.Fatal(err)
	}
	var unignored []string
	for _, d := range ents {
		if n := d.Name(); !ignored[n] && n != "config.json" && n != ".gitignore" {
			unignored = append(unignored, n)
		}
	}
	if len(unignored) > 0 {
		t.Errorf(".ctxd/.gitignore does not cover %v:\n%s", unignored, gitignore)
	}
	if ents, _ := os.ReadDir(state); len(ents) != 0 {
		t.Errorf("an opted-in workspace wrote into the state directory: %v", ents)
	}
}

// TestLocateKey: the state directory of a workspace is keyed by its real
// path: the same folder reached through a symlink shares it, another
// folder of the same name does not, and the name stays readable.
func TestLocateKey(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(base, "a", "my proj")
	b := filepath.Join(base, "b", "my proj")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	loc := func(p string) string {
		rec, err := workspace.Locate(p)
		if err != nil {
			t.Fatal(err)
		}
		return rec.Dir
	}
	if loc(a) != loc(link) {
		t.Errorf("a folder and a link to it have different records: %s, %s", loc(a), loc(link))
	}
	if loc(a) == loc(b) {
		t.Errorf("two folders named alike share records: %s", loc(a))
	}
	if name := filepath.Base(loc(a)); !strings.HasPrefix(name, "my_proj-") {
		t.Errorf("records directory %q does not start with the folder's name", name)
	}
	t.Setenv("XDG_STATE_HOME", "relative/dir") // ignored, as the XDG specification says
	t.Setenv("HOME", base)
	if got, want := filepath.Dir(loc(a)), filepath.Join(base, ".local", "state", "ctxd", "workspaces"); got != want {
		t.Errorf("without an absolute XDG_STATE_HOME the records are under %s, want %s", got, want)
	}
}

// TestVerifyLegacyRecords: records an earlier ctxd wrote into the .ctxd
// of a workspace that did not opt in are still found and verified.
func TestVerifyLegacyRecords(t *testing.T) {
	e := newEnv(t, nil)
	e.mustBuild(request("first", "th", "1", ""))
	rec, err := workspace.Locate(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(rec.Dir, filepath.Join(e.dir, ".ctxd")); err != nil {
		t.Fatal(err)
	}
	r := e.verify()
	if !r.OK || r.Counts.LedgerEvents != 2 {
		t.Errorf("verify: ok %v, counts %+v, mismatches %+v", r.OK, r.Counts, mismatches(r))
	}
}

// TestVerifyAfterOptingIn: the records a workspace collected in the state
// directory before its team added a .ctxd/config.json are still verified
// (against the new config) until builds record into .ctxd.
func TestVerifyAfterOptingIn(t *testing.T) {
	e := newEnv(t, nil)
	e.mustBuild(request("first", "th", "1", ""))
	writeConfig(t, e.dir, `{"schema_version": "1", "context": {"max_refs": 7}}`)
	r := e.verify()
	got := mismatches(r)
	if r.Counts.LedgerEvents != 2 || len(got) != 1 || got[0].Field != "boundary.context_config_digest" {
		t.Errorf("verify: counts %+v, mismatches %+v; want the 2 events and the DECISION's config digest flagged", r.Counts, got)
	}
}

// TestIndexFingerprintOneDefinition: the project_index_fingerprint that
// `ctxd index --json` prints (the snapshot's status) is the one a build's
// manifest carries, and a copy of the workspace at another path, under
// another folder name, has the same.
func TestIndexFingerprintOneDefinition(t *testing.T) {
	files := map[string]string{"calc.go": calcGo, "go.mod": "module example.com/calc\n\ngo 1.22\n", "sub/notes.txt": "notes\n"}
	fingerprints := func(dir, name string) (status, manifest string) {
		t.Helper()
		writeFiles(t, dir, files)
		_, snap := indexFolder(t, dir, name)
		res, err := workspace.Open(dir, workspace.Options{Now: fixedNow}).Build(context.Background(), snap, request("first", "", "", ""), contextbuilder.Options{CreatedAt: fixedNow()})
		if err != nil {
			t.Fatal(err)
		}
		st := snap.Status(false)
		if len(st.Roots) != 1 || st.Roots[0].Fingerprint != st.Fingerprint {
			t.Errorf("%s: the root's fingerprint is not the snapshot's: %+v", dir, st)
		}
		return st.Fingerprint, res.Manifest.Fingerprints.ProjectIndexFingerprint
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s1, m1 := fingerprints(filepath.Join(base, "one", "calc"), "calc")
	s2, m2 := fingerprints(filepath.Join(base, "elsewhere", "deeper", "copy of calc"), "copy of calc")
	want := []string{s1, s1, s1}
	if diff := cmp.Diff(want, []string{m1, s2, m2}); diff != "" {
		t.Errorf("fingerprints of [manifest, copy's status, copy's manifest] differ from the status's (-want +got):\n%s", diff)
	}
}

// TestOptedInGitStatusClean: in a repository that committed only
// .ctxd/config.json, builds, an execution, verification in both modes and
// a repair leave `git status` clean: ctxd's .gitignore covers everything
// it writes, itself included.
func TestOptedInGitStatusClean(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	e := newEnv(t, nil)
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(gitBin, append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = e.dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	writeConfig(t, e.dir, `{"schema_version": "1"}`)
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "opt in")
	e.w = e.open()
	e.mustBuild(request("first", "th", "1", ""))
	e.record("th", "1", "done")
	e.mustBuild(request("second", "", "", ""))
	e.verify()
	if _, err := workspace.RepairProjection(e.dir); err != nil {
		t.Fatal(err)
	}
	if st := git("status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("git status after builds:\n%s", st)
	}
}
