package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/policy"
)

// TestInitConfigIsTheDefault holds what ctxd init promises: the file it
// writes loads with the real (strict) loader and normalizes to the
// configuration of a workspace without one, digest included, so that
// every bundle's config_fingerprint stays what it was.
func TestInitConfigIsTheDefault(t *testing.T) {
	got, err := policy.Parse([]byte(initConfig))
	if err != nil {
		t.Fatalf("the file ctxd init writes does not load: %v", err)
	}
	want := policy.Default()
	if diff := cmp.Diff(want.File, got.File); diff != "" {
		t.Errorf("normalized file differs from the default (-want +got):\n%s", diff)
	}
	if got.Digest != want.Digest {
		t.Errorf("digest = %s, want the default's %s", got.Digest, want.Digest)
	}
}

func TestInit(t *testing.T) {
	cfg := filepath.FromSlash(policy.ConfigPath)
	readme := filepath.Join(".ctxd", "README.md")
	tests := []struct {
		name     string
		existing map[string]string // files before the run
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
		want     map[string]string // files after the run
	}{{
		name:     "fresh workspace",
		args:     nil,
		wantCode: exitOK,
		wantOut:  "wrote .ctxd/config.json\nwrote .ctxd/README.md\n",
		want:     map[string]string{cfg: initConfig, readme: initReadme},
	}, {
		name:     "existing config is refused",
		existing: map[string]string{cfg: `{"schema_version": "1", "deny_rules": ["x"]}`},
		wantCode: exitUsage,
		wantErr:  ".ctxd/config.json already exists",
		want:     map[string]string{cfg: `{"schema_version": "1", "deny_rules": ["x"]}`, readme: ""},
	}, {
		name:     "force overwrites both",
		existing: map[string]string{cfg: `{"schema_version": "1"}`, readme: "mine"},
		args:     []string{"--force"},
		wantCode: exitOK,
		wantOut:  "wrote .ctxd/config.json\nwrote .ctxd/README.md\n",
		want:     map[string]string{cfg: initConfig, readme: initReadme},
	}, {
		name:     "an existing README is kept without force",
		existing: map[string]string{readme: "mine"},
		wantCode: exitOK,
		wantOut:  "wrote .ctxd/config.json\nkept the existing .ctxd/README.md",
		want:     map[string]string{cfg: initConfig, readme: "mine"},
	}, {
		name:     "a stray argument is a usage error",
		args:     []string{"extra"},
		wantCode: exitUsage,
		wantErr:  `unexpected argument "extra"`,
		want:     map[string]string{cfg: "", readme: ""},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.existing {
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, stdout, stderr := runCLI(t, append([]string{"init", "--root", dir}, tt.args...)...)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, tt.wantCode, stderr)
			}
			if !strings.Contains(stdout, tt.wantOut) {
				t.Errorf("stdout %q does not contain %q", stdout, tt.wantOut)
			}
			if !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("stderr %q does not contain %q", stderr, tt.wantErr)
			}
			got := map[string]string{}
			for name := range tt.want {
				data, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				got[name] = string(data)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("files after ctxd init (-want +got):\n%s", diff)
			}
			leftovers, _ := filepath.Glob(filepath.Join(dir, ".ctxd", "*.tmp"))
			if len(leftovers) > 0 {
				t.Errorf("temporary files left behind: %v", leftovers)
			}
		})
	}
}

// TestInitLinkOutOfWorkspace: a .ctxd that is a symbolic link to a
// directory outside the workspace is not written through.
func TestInitLinkOutOfWorkspace(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, ".ctxd")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	code, _, stderr := runCLI(t, "init", "--root", dir)
	if code == exitOK {
		t.Errorf("ctxd init wrote through a link out of the workspace (stderr %q)", stderr)
	}
	if des, _ := os.ReadDir(outside); len(des) > 0 {
		t.Errorf("files written outside the workspace: %v", des)
	}
}

// TestInitSameBundles builds the same request before and after ctxd init
// in one workspace: the bundles must be byte-identical (the records move
// into .ctxd, which the bundle does not mention).
func TestInitSameBundles(t *testing.T) {
	// created_at is the only clock reading in a bundle: pinned, the two
	// builds' bytes can be compared.
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	dir := indextest.WriteTree(t, buildWorkspace)
	build := func() string {
		t.Helper()
		code, stdout, stderr := runCLI(t, "build", "--root", dir, "--cache-dir", "off", "--purpose", "diff",
			"--target", "cart/cart.go", "--intent", "count the items", "--format", "json")
		if code != exitOK {
			t.Fatalf("ctxd build: exit %d\nstderr:\n%s", code, stderr)
		}
		return stdout
	}
	before := build()
	rec, err := workspace.Locate(dir)
	if err != nil || rec.InWorkspace {
		t.Fatalf("before init: records %+v, %v; want outside the workspace", rec, err)
	}
	if code, _, stderr := runCLI(t, "init", "--root", dir); code != exitOK {
		t.Fatalf("ctxd init: exit %d\nstderr:\n%s", code, stderr)
	}
	after := build()
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("the bundle changed after ctxd init (-before +after):\n%s", diff)
	}
	if rec, err := workspace.Locate(dir); err != nil || !rec.InWorkspace {
		t.Errorf("after init: records %+v, %v; want in the workspace's .ctxd", rec, err)
	}
}

func TestInitUsage(t *testing.T) {
	dir := t.TempDir()
	runCLICases(t, []cliCase{
		{name: "help", args: []string{"init", "--help"}, wantStdout: "-force"},
		{name: "help lists exit codes", args: []string{"help", "init"}, wantStdout: "--force was not given"},
		{name: "listed in the usage", args: []string{"--help"}, wantStdout: "  init "},
		{name: "root does not exist", args: []string{"init", "--root", filepath.Join(dir, "nope")}, wantCode: exitUsage, wantStderr: "no such file"},
		{name: "unknown flag", args: []string{"init", "--root", dir, "--nope"}, wantCode: exitUsage, wantStderr: "-nope"},
	})
	if des, _ := os.ReadDir(dir); len(des) > 0 {
		t.Errorf("a usage error wrote into the workspace: %v", des)
	}
}
