package ignore_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index/ignore"
)

// writeFiles creates files (slash paths relative to root) with their
// contents; a path ending in "/" is a directory.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		full := filepath.Join(root, filepath.FromSlash(name))
		if name[len(name)-1] == '/' {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// result is a Check outcome in one comparable value.
type result struct {
	Decision ignore.Decision
	Kind     ignore.Kind
}

func check(c *ignore.Checker, rel string, isDir bool) result {
	d, k := c.Check(rel, isDir)
	return result{d, k}
}

func TestChecker(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		".git/info/exclude": "*.swp\n!keep.swp\n",
		".gitignore":        "*.log\n!keep.log\nbuild/\nkeep.swp\n!*.pem\n!node_modules/\n",
		"sub/.gitignore":    "!debug.log\n/local/\n",
		"build/.gitignore":  "!*\n",
		".ctxdignore":       "secret/\n*.csv\n!public.csv\ndebug.log\n",
	})
	c := ignore.NewChecker(root)
	tests := []struct {
		rel   string
		isDir bool
		want  result
	}{
		{"main.go", false, result{}},
		{"a.log", false, result{ignored(".gitignore:1: *.log"), ignore.KindGitignore}},
		{"keep.log", false, result{reincluded(".gitignore:2: !keep.log"), ignore.KindNone}},
		{"x.swp", false, result{ignored(".git/info/exclude:1: *.swp"), ignore.KindGitignore}},
		// .gitignore has precedence over info/exclude.
		{"keep.swp", false, result{ignored(".gitignore:4: keep.swp"), ignore.KindGitignore}},
		{"build", true, result{ignored(".gitignore:3: build/"), ignore.KindGitignore}},
		// build/.gitignore is never read: its directory is ignored.
		{"build/x.go", false, result{ignored(".gitignore:3: build/"), ignore.KindGitignore}},
		{"sub/debug.log", false, result{ignored(".ctxdignore:4: debug.log"), ignore.KindGitignore}},
		{"sub/local/x", false, result{ignored("sub/.gitignore:2: /local/"), ignore.KindGitignore}},
		{"local/x", false, result{}},
		// .ctxdignore adds exclusions that no .gitignore negation undoes...
		{"secret/a.txt", false, result{ignored(".ctxdignore:1: secret/"), ignore.KindGitignore}},
		{"data.csv", false, result{ignored(".ctxdignore:2: *.csv"), ignore.KindGitignore}},
		// ...and its negations re-include only what it excluded itself.
		{"public.csv", false, result{}},
		{"public.log", false, result{ignored(".gitignore:1: *.log"), ignore.KindGitignore}},
		// Deny comes first and .gitignore negations cannot undo it.
		{"certs/a.pem", false, result{ignored("deny:19: *.pem"), ignore.KindDeny}},
		{"node_modules/x/index.js", false, result{ignored("deny:12: node_modules"), ignore.KindDeny}},
		{".git/config", false, result{ignored("deny:4: .git"), ignore.KindDeny}},
		{"../outside", false, result{ignored("ctxd:0: not a clean workspace-relative path"), ignore.KindDeny}},
		{"", true, result{}},
		{"sub/", false, result{}},
		// Files that do not exist are decided all the same (deleted files,
		// watcher events).
		{"gone/away/x.log", false, result{ignored(".gitignore:1: *.log"), ignore.KindGitignore}},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, check(c, tt.rel, tt.isDir)); diff != "" {
				t.Errorf("Check(%q, %v) mismatch (-want +got):\n%s", tt.rel, tt.isDir, diff)
			}
		})
	}
}

// TestCheckerCachesUntilInvalidate shows that ignore files are read on
// first use, kept, and read again after Invalidate.
func TestCheckerCachesUntilInvalidate(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a/b/x.txt": ""})
	c := ignore.NewChecker(root)
	// Nothing is read before the first Check: files written now count.
	writeFiles(t, root, map[string]string{".gitignore": "*.txt\n"})
	want := result{ignored(".gitignore:1: *.txt"), ignore.KindGitignore}
	if diff := cmp.Diff(want, check(c, "a/b/x.txt", false)); diff != "" {
		t.Errorf("first Check mismatch (-want +got):\n%s", diff)
	}
	// Changes after the first read are not seen...
	writeFiles(t, root, map[string]string{
		".gitignore":     "*.md\n",
		"a/b/.gitignore": "!x.txt\n",
		".ctxdignore":    "a/\n",
	})
	if diff := cmp.Diff(want, check(c, "a/b/x.txt", false)); diff != "" {
		t.Errorf("cached Check mismatch (-want +got):\n%s", diff)
	}
	// ...until Invalidate.
	c.Invalidate()
	want = result{ignored(".ctxdignore:1: a/"), ignore.KindGitignore}
	if diff := cmp.Diff(want, check(c, "a/b/x.txt", false)); diff != "" {
		t.Errorf("Check after Invalidate mismatch (-want +got):\n%s", diff)
	}
	if err := os.Remove(filepath.Join(root, ".ctxdignore")); err != nil {
		t.Fatal(err)
	}
	c.Invalidate()
	want = result{reincluded("a/b/.gitignore:1: !x.txt"), ignore.KindNone}
	if diff := cmp.Diff(want, check(c, "a/b/x.txt", false)); diff != "" {
		t.Errorf("Check after removal mismatch (-want +got):\n%s", diff)
	}
}

// TestCheckerUnreadable: an ignore file that exists but cannot be read,
// or a directory that is a symbolic link, excludes everything below the
// directory, never the directory itself.
func TestCheckerUnreadable(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"real.gitignore":      "nothing\n",
		"dir/.gitignore/":     "",
		"ok/a.go":             "",
		"big/.gitignore":      "",
		"linked/a.go":         "",
		"ignored/.gitignore/": "",
		".gitignore":          "ignored/\n",
	})
	if err := os.Symlink(filepath.Join(root, "real.gitignore"), filepath.Join(root, "linked", ".gitignore")); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	if err := os.Symlink(filepath.Join(root, "ok"), filepath.Join(root, "dirlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(root, "big", ".gitignore"), 16<<20+1); err != nil {
		t.Fatal(err)
	}
	c := ignore.NewChecker(root)
	tests := []struct {
		rel   string
		isDir bool
		want  result
	}{
		{"linked", true, result{}},
		{"linked/a.go", false, result{ignored("linked/.gitignore:0: unreadable (symbolic link not followed), everything below is excluded"), ignore.KindGitignore}},
		{"linked/x/y", false, result{ignored("linked/.gitignore:0: unreadable (symbolic link not followed), everything below is excluded"), ignore.KindGitignore}},
		{"dir/a", false, result{ignored("dir/.gitignore:0: unreadable (not a regular file (d---------)), everything below is excluded"), ignore.KindGitignore}},
		{"big/a", false, result{ignored("big/.gitignore:0: unreadable (larger than 16777216 bytes), everything below is excluded"), ignore.KindGitignore}},
		{"ok/a.go", false, result{}},
		{"dirlink", false, result{}},
		{"dirlink/a.go", false, result{ignored("dirlink/.gitignore:0: unreadable (directory is a symbolic link, not followed), everything below is excluded"), ignore.KindGitignore}},
		// An ignored directory's file is never read.
		{"ignored/a", false, result{ignored(".gitignore:1: ignored/"), ignore.KindGitignore}},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, check(c, tt.rel, tt.isDir)); diff != "" {
				t.Errorf("Check(%q, %v) mismatch (-want +got):\n%s", tt.rel, tt.isDir, diff)
			}
		})
	}
}

// TestCheckerGitFile finds info/exclude through a "gitdir:" file and a
// worktree's commondir, as git does.
func TestCheckerGitFile(t *testing.T) {
	base := t.TempDir()
	writeFiles(t, base, map[string]string{
		"repo.git/info/exclude":           "*.sub\n",
		"work/.git":                       "gitdir: ../repo.git\n",
		"main.git/info/exclude":           "*.wt\n",
		"main.git/worktrees/wt/HEAD":      "ref: refs/heads/x\n",
		"main.git/worktrees/wt/commondir": "../..\n",
		"wt/.git":                         "gitdir: " + filepath.Join(base, "main.git", "worktrees", "wt") + "\n",
		"broken/.git":                     "not a gitfile\n",
	})
	tests := []struct {
		root string
		rel  string
		want result
	}{
		{"work", "a.sub", result{ignored(".git/info/exclude:1: *.sub"), ignore.KindGitignore}},
		{"wt", "a.wt", result{ignored(".git/info/exclude:1: *.wt"), ignore.KindGitignore}},
		{"broken", "a.go", result{ignored(`.git/info/exclude:0: unreadable (.git is a file without "gitdir:"), everything below is excluded`), ignore.KindGitignore}},
	}
	for _, tt := range tests {
		t.Run(tt.root, func(t *testing.T) {
			c := ignore.NewChecker(filepath.Join(base, tt.root))
			if diff := cmp.Diff(tt.want, check(c, tt.rel, false)); diff != "" {
				t.Errorf("Check(%q) mismatch (-want +got):\n%s", tt.rel, diff)
			}
		})
	}
}

// TestCheckerConcurrent runs Checks and Invalidates together; the race
// detector is the judge.
func TestCheckerConcurrent(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{".gitignore": "*.log\n", ".ctxdignore": "x/\n"}
	for i := range 8 {
		files[fmt.Sprintf("d%d/.gitignore", i)] = "!keep.log\n"
	}
	writeFiles(t, root, files)
	c := ignore.NewChecker(root)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				rel := fmt.Sprintf("d%d/sub/keep.log", (g+i)%8)
				if d, _ := c.Check(rel, false); d.Ignored {
					t.Errorf("Check(%q) = %+v, want re-included", rel, d)
					return
				}
				if i%50 == 0 {
					c.Invalidate()
				}
			}
		}()
	}
	wg.Wait()
}
