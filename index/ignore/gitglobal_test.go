package ignore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// globalCase is a scratch repository plus a home directory holding the
// user's git configuration and global excludes file.
type globalCase struct {
	name string
	// home are files below $HOME by slash path (".gitconfig",
	// ".config/git/ignore", "my-ignore").
	home map[string]string
	// xdg, when set, makes XDG_CONFIG_HOME=$HOME/<xdg>.
	xdg string
	// global, when set, makes GIT_CONFIG_GLOBAL=$HOME/<global> ("-" for
	// an empty value).
	global string
	// files are the repository's files (".gitignore", ".git/info/exclude",
	// ".git/config" is appended to the one git init wrote).
	files map[string]string
	paths []string
}

var globalCases = []globalCase{
	{name: "default file below XDG_CONFIG_HOME", xdg: "xdg",
		home:  map[string]string{"xdg/git/ignore": "*.log\n/top.txt\nbuild/\n"},
		paths: ps("a.log", "b/c.log", "d.go", "top.txt", "b/top.txt", "build/x", "b/build/y")},
	{name: "default file below HOME without XDG_CONFIG_HOME",
		home:  map[string]string{".config/git/ignore": "*.tmp\n"},
		paths: ps("a.tmp", "x/y.tmp", "z")},
	{name: "XDG_CONFIG_HOME set hides the HOME default", xdg: "xdg",
		home:  map[string]string{".config/git/ignore": "*.tmp\n", "xdg/git/ignore": "*.bak\n"},
		paths: ps("a.tmp", "a.bak")},
	{name: "excludesFile with tilde in ~/.gitconfig",
		home:  map[string]string{".gitconfig": "[core]\n\texcludesFile = ~/my-ignore\n", "my-ignore": "secret*\n", ".config/git/ignore": "*.tmp\n"},
		paths: ps("secret.txt", "a/secrets", "a.tmp", "plain")},
	{name: "case-insensitive section and key, quoted value with a space",
		home:  map[string]string{".gitconfig": "[CORE]\n  ExcludesFILE = \"~/my ignore\"  # comment\n", "my ignore": "*.x\n"},
		paths: ps("a.x", "a.y")},
	{name: "comments, continuation and escapes",
		home: map[string]string{".gitconfig": "; leading comment\n# another\n[user]\n\tname = \"a # b\"\n[core] ; trailing\n\texcludesfile = ~/ig\\\nnore ; comment\n\tbare\n",
			"ignore": "*.z\n"},
		paths: ps("a.z", "b")},
	{name: "last value wins across sections",
		home:  map[string]string{".gitconfig": "[core]\nexcludesfile = ~/one\n[alias]\nx = y\n[core]\nexcludesfile = ~/two\n", "one": "*.one\n", "two": "*.two\n"},
		paths: ps("a.one", "a.two")},
	{name: "subsection of core is another section",
		home:  map[string]string{".gitconfig": "[core \"x\"]\nexcludesfile = ~/one\n[core.y]\nexcludesfile = ~/one\n", "one": "*.one\n", ".config/git/ignore": "*.def\n"},
		paths: ps("a.one", "a.def")},
	{name: "gitignore negation beats global",
		home:  map[string]string{".config/git/ignore": "*.log\n"},
		files: map[string]string{".gitignore": "!keep.log\n"},
		paths: ps("a.log", "keep.log", "sub/keep.log")},
	{name: "info/exclude negation beats global",
		home:  map[string]string{".config/git/ignore": "*.log\n"},
		files: map[string]string{".git/info/exclude": "!keep.log\n"},
		paths: ps("a.log", "keep.log")},
	{name: "global negation loses to gitignore",
		home:  map[string]string{".config/git/ignore": "!*.log\n"},
		files: map[string]string{".gitignore": "*.log\n"},
		paths: ps("a.log", "b.txt")},
	{name: "global negation after its own pattern",
		home:  map[string]string{".config/git/ignore": "*.log\n!keep.log\n"},
		paths: ps("a.log", "keep.log")},
	{name: "global ignored directory cannot be re-included",
		home:  map[string]string{".config/git/ignore": "out/\n"},
		files: map[string]string{".gitignore": "!out/keep\n"},
		paths: ps("out/keep", "out/x", "a/out/y")},
	{name: "repository config overrides the global one",
		home:  map[string]string{".gitconfig": "[core]\nexcludesfile = ~/one\n", "one": "*.one\n", "two": "*.two\n"},
		files: map[string]string{".git/config": "[core]\n\texcludesfile = ~/two\n"},
		paths: ps("a.one", "a.two")},
	{name: "repository config relative excludesFile",
		files: map[string]string{".git/config": "[core]\n\texcludesfile = local-ignore\n", "local-ignore": "*.rel\n"},
		paths: ps("a.rel", "b/c.rel", "d")},
	{name: "GIT_CONFIG_GLOBAL replaces ~/.gitconfig", global: "other.conf",
		home:  map[string]string{".gitconfig": "[core]\nexcludesfile = ~/one\n", "other.conf": "[core]\nexcludesfile = ~/two\n", "one": "*.one\n", "two": "*.two\n"},
		paths: ps("a.one", "a.two")},
	{name: "empty GIT_CONFIG_GLOBAL reads no global config", global: "-",
		home:  map[string]string{".gitconfig": "[core]\nexcludesfile = ~/one\n", "one": "*.one\n", ".config/git/ignore": "*.def\n"},
		paths: ps("a.one", "a.def")},
	{name: "XDG config, then ~/.gitconfig", xdg: "xdg",
		home:  map[string]string{"xdg/git/config": "[core]\nexcludesfile = ~/one\n", ".gitconfig": "[core]\nexcludesfile = ~/two\n", "one": "*.one\n", "two": "*.two\n"},
		paths: ps("a.one", "a.two")},
	{name: "XDG config alone", xdg: "xdg",
		home:  map[string]string{"xdg/git/config": "[core]\nexcludesfile = ~/one\n", "one": "*.one\n"},
		paths: ps("a.one", "a.two")},
	{name: "include path relative to the including file",
		home:  map[string]string{".gitconfig": "[include]\n\tpath = conf/inc\n", "conf/inc": "[core]\nexcludesfile = ~/one\n", "one": "*.one\n"},
		paths: ps("a.one", "b")},
	{name: "include with tilde, later value wins",
		home:  map[string]string{".gitconfig": "[core]\nexcludesfile = ~/one\n[include]\npath = ~/inc\n", "inc": "[core]\nexcludesfile = ~/two\n", "one": "*.one\n", "two": "*.two\n"},
		paths: ps("a.one", "a.two")},
	{name: "missing include is ignored",
		home:  map[string]string{".gitconfig": "[include]\npath = ~/nope\n[core]\nexcludesfile = ~/one\n", "one": "*.one\n"},
		paths: ps("a.one")},
	{name: "empty excludesFile disables the default",
		home:  map[string]string{".gitconfig": "[core]\nexcludesfile =\n", ".config/git/ignore": "*.def\n"},
		paths: ps("a.def")},
	{name: "missing excludes file",
		home:  map[string]string{".gitconfig": "[core]\nexcludesfile = ~/nope\n"},
		paths: ps("a.def")},
	{name: "crlf config and excludes file",
		home:  map[string]string{".gitconfig": "[core]\r\n\texcludesfile = ~/one\r\n", "one": "*.one\r\n*.two\r\n"},
		paths: ps("a.one", "a.two", "a.three")},
}

// globalEnv is the environment of a case: a scratch HOME, no system
// configuration, and the case's XDG_CONFIG_HOME and GIT_CONFIG_GLOBAL.
func globalEnv(home string, tc globalCase) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
	if tc.xdg != "" {
		env = append(env, "XDG_CONFIG_HOME="+filepath.Join(home, tc.xdg))
	}
	switch tc.global {
	case "":
	case "-":
		env = append(env, "GIT_CONFIG_GLOBAL=")
	default:
		env = append(env, "GIT_CONFIG_GLOBAL="+filepath.Join(home, tc.global))
	}
	return env
}

// lookupIn is os.LookupEnv over an environment list.
func lookupIn(env []string) envLookup {
	return func(key string) (string, bool) {
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
				return v, true
			}
		}
		return "", false
	}
}

// TestGitDifferentialGlobal compares the Checker with git check-ignore when
// the user's git configuration names a global excludes file (or git's
// default one exists): which file is used, its precedence (lowest), the
// config syntax and includes.
func TestGitDifferentialGlobal(t *testing.T) {
	requireGit(t)
	defer func(f bool) { foldCase = f }(foldCase)
	foldCase = false
	compared := 0
	for _, tc := range globalCases {
		home := t.TempDir()
		env := globalEnv(home, tc)
		for name, content := range tc.home {
			p := filepath.Join(home, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		dir := gitInit(t, env)
		files := map[string]string{}
		for k, v := range tc.files {
			if k == ".git/config" {
				old, err := os.ReadFile(filepath.Join(dir, ".git", "config"))
				if err != nil {
					t.Fatal(err)
				}
				v = string(old) + v
			}
			files[k] = v
		}
		materialize(t, dir, tc.paths, files)
		qs := queries(tc.paths)
		want := gitCheckIgnore(t, env, dir, qs)
		// git names the global file by its path; ctxd by the setting.
		excludes, err := globalExcludesFile(lookupIn(env), dir, filepath.Join(dir, ".git"))
		if err != nil {
			t.Fatalf("%s: globalExcludesFile: %v", tc.name, err)
		}
		for q, d := range want {
			// A relative core.excludesFile is named as written.
			for _, name := range []string{excludes, strings.TrimPrefix(excludes, dir+string(filepath.Separator))} {
				if excludes != "" && strings.HasPrefix(d.Rule, name+":") {
					d.Rule = globalSource + strings.TrimPrefix(d.Rule, name)
					want[q] = d
					break
				}
			}
		}
		c := NewChecker(dir)
		c.env = lookupIn(env)
		for _, q := range qs {
			isDir := false
			if fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(q))); err == nil {
				isDir = fi.IsDir()
			}
			compared++
			if diff := cmp.Diff(want[q], c.gitDecision(c.snapshot(), q, isDir)); diff != "" {
				t.Errorf("%s: %q (-git +ctxd):\n%s", tc.name, q, diff)
			}
		}
	}
	t.Logf("compared %d paths of %d cases with a global excludes file", compared, len(globalCases))
}

// TestGlobalExcludesUnsure: a git configuration or global excludes file
// that exists but cannot be used excludes everything (git would fail or
// warn), and the decision names no path of the machine.
func TestGlobalExcludesUnsure(t *testing.T) {
	for _, tc := range []struct {
		name string
		home map[string]string
		dir  []string // directories below HOME
		want string   // in the rule
	}{
		{"syntax error", map[string]string{".gitconfig": "[core\nexcludesfile = x\n"}, nil, "unterminated section header"},
		{"key outside a section", map[string]string{".gitconfig": "excludesfile = x\n"}, nil, "outside of any section"},
		{"bad escape", map[string]string{".gitconfig": "[core]\nexcludesfile = a\\qb\n"}, nil, "invalid escape"},
		{"unterminated quote", map[string]string{".gitconfig": "[core]\nexcludesfile = \"a\n"}, nil, "unterminated quote"},
		{"no value", map[string]string{".gitconfig": "[core]\nexcludesfile\n"}, nil, "has no value"},
		{"tilde user", map[string]string{".gitconfig": "[core]\nexcludesfile = ~root/x\n"}, nil, "not supported"},
		{"include loop", map[string]string{".gitconfig": "[include]\npath = ~/.gitconfig\n"}, nil, "nested includes"},
		{"excludes file is a directory", map[string]string{".gitconfig": "[core]\nexcludesfile = ~/d\n"}, []string{"d"}, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			for name, content := range tc.home {
				if err := os.WriteFile(filepath.Join(home, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, d := range tc.dir {
				if err := os.Mkdir(filepath.Join(home, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			root := t.TempDir()
			c := NewChecker(root)
			c.env = lookupIn([]string{"HOME=" + home})
			d, kind := c.Check("src/main.go", false)
			if !d.Ignored || kind != KindGitignore || !strings.HasPrefix(d.Rule, globalSource+":0: unreadable") || !strings.Contains(d.Rule, tc.want) {
				t.Errorf("Check = %+v, %v; want everything excluded by %s mentioning %q", d, kind, globalSource, tc.want)
			}
			if strings.Contains(d.Rule, home) || strings.Contains(d.Rule, root) {
				t.Errorf("the rule names a path of the machine: %q", d.Rule)
			}
		})
	}
}

// TestGlobalExcludesInvalidate: Invalidate forgets the global file too.
func TestGlobalExcludesInvalidate(t *testing.T) {
	home := t.TempDir()
	ignore := filepath.Join(home, ".config", "git", "ignore")
	if err := os.MkdirAll(filepath.Dir(ignore), 0o755); err != nil {
		t.Fatal(err)
	}
	c := NewChecker(t.TempDir())
	c.env = lookupIn([]string{"HOME=" + home})
	if d, _ := c.Check("a.log", false); d.Ignored {
		t.Fatalf("a.log ignored without a global file: %+v", d)
	}
	if err := os.WriteFile(ignore, []byte("*.log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.Invalidate()
	d, kind := c.Check("a.log", false)
	if diff := cmp.Diff(Decision{Ignored: true, Rule: "core.excludesFile:1: *.log"}, d); diff != "" || kind != KindGitignore {
		t.Errorf("after Invalidate (-want +got):\n%s kind %v", diff, kind)
	}
}

// TestGlobalExcludesNoHome: without HOME and XDG_CONFIG_HOME there is no
// global file, and nothing fails.
func TestGlobalExcludesNoHome(t *testing.T) {
	p, err := globalExcludesFile(lookupIn(nil), t.TempDir(), "")
	if p != "" || err != nil {
		t.Errorf("globalExcludesFile without HOME = %q, %v; want none", p, err)
	}
	if !errors.Is(parseGitConfig([]byte("x = 1\n"), func(configEntry) error { return nil }), errConfig) {
		t.Error("a key outside a section is not errConfig")
	}
}
