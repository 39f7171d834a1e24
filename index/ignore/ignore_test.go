package ignore_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index/ignore"
)

func ignored(rule string) ignore.Decision    { return ignore.Decision{Ignored: true, Rule: rule} }
func reincluded(rule string) ignore.Decision { return ignore.Decision{Rule: rule} }
func rules(dir, src, s string) *ignore.Rules { return ignore.NewRules(dir, src, []byte(s)) }

func TestNewRulesAccessors(t *testing.T) {
	tests := []struct {
		name       string
		dir        string
		data       string
		wantDir    string
		wantLen    int
		wantSource string
	}{
		{"empty", "", "", "", 0, "src"},
		{"comments and blanks", "", "# c\n\n   \n#x\n", "", 0, "src"},
		{"unmatchable lines are left out", "", "!\n/\n[abc\nfoo\\\n[[:nope:]]\na\n", "", 1, "src"},
		{"dir cleaned", "./a/b/", "x\n", "a/b", 1, "src"},
		{"dot dir is root", ".", "x\ny\n", "", 2, "src"},
		{"leading slash dropped", "/a", "x\n", "a", 1, "src"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ignore.NewRules(tt.dir, "src", []byte(tt.data))
			got := []any{r.Dir(), r.Len(), r.Source()}
			want := []any{tt.wantDir, tt.wantLen, tt.wantSource}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Dir, Len, Source mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNilRules(t *testing.T) {
	var r *ignore.Rules
	got := []any{r.Dir(), r.Source(), r.Len(), ignore.Stack{r, nil}.Match("a", false)}
	want := []any{"", "", 0, ignore.Decision{}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("nil Rules mismatch (-want +got):\n%s", diff)
	}
}

func TestStackMatch(t *testing.T) {
	root := rules("", ".gitignore", "*.log\n!keep.log\nbuild/\n/top\ndoc/*.txt\n")
	sub := rules("sub", "sub/.gitignore", "!*.log\n/local\n")
	deep := rules("sub/deep", "sub/deep/.gitignore", "*.log\n")
	other := rules("other", "other/.gitignore", "*\n")
	stack := ignore.Stack{root, sub, deep, other}
	tests := []struct {
		rel   string
		isDir bool
		want  ignore.Decision
	}{
		{"a.log", false, ignored(".gitignore:1: *.log")},
		{"keep.log", false, reincluded(".gitignore:2: !keep.log")},
		{"x/y/a.log", false, ignored(".gitignore:1: *.log")},
		{"README", false, ignore.Decision{}},
		{"build", true, ignored(".gitignore:3: build/")},
		{"build", false, ignore.Decision{}},
		{"build/", false, ignored(".gitignore:3: build/")},
		{"build/keep.log", false, ignored(".gitignore:3: build/")},
		{"a/build/x.go", false, ignored(".gitignore:3: build/")},
		{"top", false, ignored(".gitignore:4: /top")},
		{"a/top", false, ignore.Decision{}},
		{"doc/a.txt", false, ignored(".gitignore:5: doc/*.txt")},
		{"doc/x/a.txt", false, ignore.Decision{}},
		{"a/doc/a.txt", false, ignore.Decision{}},
		// A deeper file wins; a file applies only below its directory.
		{"sub/a.log", false, reincluded("sub/.gitignore:1: !*.log")},
		{"sub/deep/a.log", false, ignored("sub/deep/.gitignore:1: *.log")},
		{"sub/local", false, ignored("sub/.gitignore:2: /local")},
		{"local", false, ignore.Decision{}},
		{"sub/x/local", false, ignore.Decision{}},
		{"other", true, ignore.Decision{}},
		{"other/x", false, ignored("other/.gitignore:1: *")},
		{"otherwise/x", false, ignore.Decision{}},
		// The root and paths that are not clean and workspace-relative.
		{"", true, ignore.Decision{}},
		{".", true, ignore.Decision{}},
		{"../a.go", false, ignored("ctxd:0: not a clean workspace-relative path")},
		{"..", true, ignored("ctxd:0: not a clean workspace-relative path")},
		{"/etc/passwd", false, ignored("ctxd:0: not a clean workspace-relative path")},
		{"a//b", false, ignored("ctxd:0: not a clean workspace-relative path")},
		{"a/./b", false, ignored("ctxd:0: not a clean workspace-relative path")},
		{"a/../b", false, ignored("ctxd:0: not a clean workspace-relative path")},
		{"./a", false, ignored("ctxd:0: not a clean workspace-relative path")},
		{"a\x00b", false, ignored("ctxd:0: not a clean workspace-relative path")},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			got := stack.Match(tt.rel, tt.isDir)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Match(%q, %v) mismatch (-want +got):\n%s", tt.rel, tt.isDir, diff)
			}
		})
	}
}

func TestStackOrderIsPrecedence(t *testing.T) {
	a := rules("", "a", "x\n")
	b := rules("", "b", "!x\n")
	tests := []struct {
		name  string
		stack ignore.Stack
		want  ignore.Decision
	}{
		{"negation last wins", ignore.Stack{a, b}, reincluded("b:1: !x")},
		{"ignore last wins", ignore.Stack{b, a}, ignored("a:1: x")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.stack.Match("x", false)); diff != "" {
				t.Errorf("Match mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMatchLeaf shows what MatchLeaf skips: the ancestors. A walker that
// prunes ignored directories never asks about such a path.
func TestMatchLeaf(t *testing.T) {
	stack := ignore.Stack{rules("", ".gitignore", "build/\n!keep.txt\n")}
	got := []ignore.Decision{
		stack.Match("build/keep.txt", false),
		stack.MatchLeaf("build/keep.txt", false),
		stack.MatchLeaf("build", true),
		stack.MatchLeaf("../x", false),
	}
	want := []ignore.Decision{
		ignored(".gitignore:1: build/"),
		reincluded(".gitignore:2: !keep.txt"),
		ignored(".gitignore:1: build/"),
		ignored("ctxd:0: not a clean workspace-relative path"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestRuleText(t *testing.T) {
	// Line numbers count every line, including comments, blank lines and
	// the byte order mark's line; the text is the line as git keeps it.
	data := "\xEF\xBB\xBF# comment\r\n\r\nfoo   \r\n!bar\\ \nbaz/\n"
	stack := ignore.Stack{rules("", "x/.gitignore", data)}
	got := []ignore.Decision{
		stack.Match("foo", false),
		stack.Match("bar ", false),
		stack.Match("baz", true),
	}
	want := []ignore.Decision{
		ignored("x/.gitignore:3: foo"),
		reincluded("x/.gitignore:4: !bar\\ "),
		ignored("x/.gitignore:5: baz/"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestDeny(t *testing.T) {
	tests := []struct {
		rel   string
		isDir bool
		want  string // the deciding deny pattern, "" when not denied
	}{
		{".git", true, ".git"},
		{".git", false, ".git"}, // a "gitdir:" file
		{".git/config", false, ".git"},
		{"vendor/lib/.git/HEAD", false, ".git"},
		{".gitignore", false, ""},
		{".github/workflows/ci.yml", false, ""},
		{".vs/settings.json", false, ".vs"},
		{"src/.vs/x", false, ".vs"},
		{".ctxd/state.json", false, ".ctxd"},
		{"a/.ctxd", true, ".ctxd"},
		{"bin/app", false, "bin/"},
		{"src/Project/bin/Debug/app.dll", false, "bin/"},
		{"bin", true, "bin/"},
		{"bin", false, ""}, // a file named bin
		{"cmd/binary/main.go", false, ""},
		{"obj/x.o", false, "obj/"},
		{"src/obj/y", false, "obj/"},
		{"object/y", false, ""},
		{"node_modules/react/index.js", false, "node_modules"},
		{"web/node_modules/x/y.js", false, "node_modules"},
		{"packages/Newtonsoft.Json/lib/x.dll", false, "/packages/"},
		{"web/packages/ui/src/index.ts", false, ""},
		{"packages", false, ""},
		{"cert.pfx", false, "*.pfx"},
		{"deploy/server.key", false, "*.key"},
		{"tls/ca.pem", false, "*.pem"},
		{"config/prod.env", false, "*.env"},
		{".env", false, ".env"},
		{"api/.env", false, ".env"},
		{".env.local", false, ".env.*"},
		{"api/.env.production", false, ".env.*"},
		{"environment.go", false, ""},
		{"env/x.go", false, ""},
		{"keys.go", false, ""},
		{"server.key.pub", false, ""},
		{"main.go", false, ""},
		// Case-insensitive on every system.
		{"CERT.PEM", false, "*.pem"},
		{"Node_Modules/x.js", false, "node_modules"},
		{"BIN/app", false, "bin/"},
		{".ENV", false, ".env"},
		{".Git/config", false, ".git"},
	}
	stack := ignore.Stack{ignore.Deny()}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			d := stack.Match(tt.rel, tt.isDir)
			got := ""
			if d.Ignored {
				if !strings.HasPrefix(d.Rule, "deny:") {
					t.Errorf("Rule %q does not start with deny:", d.Rule)
				}
				_, got, _ = strings.Cut(d.Rule, ": ")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Deny Match(%q, %v) mismatch (-want +got):\n%s", tt.rel, tt.isDir, diff)
			}
		})
	}
}

// TestDenyCannotBeReincluded puts negations of every deny rule after the
// deny rules and before them: deny still decides.
func TestDenyCannotBeReincluded(t *testing.T) {
	reinclude := rules("", ".gitignore", "!*\n!.git\n!.git/**\n!node_modules/\n!*.pem\n!bin/\n!.env\n")
	paths := []string{".git/config", "node_modules/x.js", "a.pem", "bin/app", ".env", "a/.env"}
	for _, stack := range []ignore.Stack{{ignore.Deny(), reinclude}, {reinclude, ignore.Deny()}} {
		for _, p := range paths {
			d := stack.Match(p, false)
			if !d.Ignored || !strings.HasPrefix(d.Rule, "deny:") {
				t.Errorf("Match(%q) = %+v, want denied", p, d)
			}
		}
	}
}

func TestDenyIsShared(t *testing.T) {
	first, second := ignore.Deny(), ignore.Deny()
	if first != second {
		t.Error("Deny returned two different Rules")
	}
	if diff := cmp.Diff([]any{"", "deny"}, []any{ignore.Deny().Dir(), ignore.Deny().Source()}); diff != "" {
		t.Errorf("Deny Dir, Source mismatch (-want +got):\n%s", diff)
	}
}

func TestKindString(t *testing.T) {
	got := []string{ignore.KindNone.String(), ignore.KindDeny.String(), ignore.KindGitignore.String(), ignore.Kind(9).String()}
	want := []string{"none", "deny", "gitignore", "Kind(9)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Kind.String mismatch (-want +got):\n%s", diff)
	}
}
