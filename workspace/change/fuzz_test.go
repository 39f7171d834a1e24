package change

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder/secrets"
)

// fuzzFile is the text every existing file of a fuzzed answer has.
const fuzzFile = "package p\n\nfunc f() int {\n\treturn 1\n}\n\n// “quoted” — text\nvar s = \"x\"  \n"

// FuzzParseApply parses arbitrary answers and applies them to a small
// file: neither panics, a rejection is well formed, and an accepted
// answer's edits give exactly its text after.
func FuzzParseApply(f *testing.F) {
	for _, seed := range []string{
		"--- a/p.go\n+++ b/p.go\n@@ -3,3 +3,3 @@\n func f() int {\n-\treturn 1\n+\treturn 2\n }\n",
		"--- a/p.go\n+++ b/p.go\n@@ @@\n // \"quoted\" - text\n-var s = \"x\"\n+var s = \"y\"\n\\ No newline at end of file\n",
		"--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n\n",
		"--- a/p.go\n+++ /dev/null\n@@ -1,8 +0,0 @@\n-package p\n",
		"p.go\n```go\n<<<<<<< SEARCH\n\treturn 1\n=======\n\treturn 3\n>>>>>>> REPLACE\n```\n",
		"x.txt\n<<<<<<< SEARCH\n=======\nnew\n>>>>>>> REPLACE\n",
		"**p.go**\n\n````go\npackage p\n````\n",
		"```go:q/r.go\npackage r\n```\n",
		"diff --git a/p.go b/p.go\nindex 1..2\n--- \"a/p.go\"\t2024\n+++ \"b/p.go\"\n@@ -1 +1 @@\n-package p\n+package q\n",
		"p.go\n```diff\n@@ -8,0 +9 @@\n+var t = [REDACTED:x]\n```\n",
		"```\n--- a/p.go\n+++ b/p.go\n@@ -1,1 +1,1 @@\n-package p\n+package p // [REDACTED:aws-access-key-id]\n```",
	} {
		f.Add(seed)
	}
	sc := secrets.Default()
	f.Fuzz(func(t *testing.T, answer string) {
		a, rej := Parse(answer)
		if rej != nil {
			checkShape(t, rej)
			if rej.Code != CodeMalformed {
				t.Fatalf("Parse rejected with %s", rej.Code)
			}
			return
		}
		if len(a.Files) == 0 {
			t.Fatal("accepted an answer without files")
		}
		files := make([]Input, len(a.Files))
		for i, fc := range a.Files {
			files[i] = Input{Path: fc.Path}
			if fc.Action != ActionCreate && !strings.HasPrefix(fc.Path, "new") {
				files[i] = file(fc.Path, fuzzFile)
			}
		}
		res, rej := Apply(context.Background(), a, files, Options{Scanner: sc})
		if rej != nil {
			checkShape(t, rej)
			return
		}
		checkEdits(t, res)
		if len(res.Files) != len(files) {
			t.Fatalf("%d results for %d files", len(res.Files), len(files))
		}
	})
}

// checkShape checks what every rejection has: a known code, a message, an
// error_context that starts with both.
func checkShape(t *testing.T, rej *Rejection) {
	t.Helper()
	known := false
	for _, c := range Codes() {
		known = known || c == rej.Code
	}
	if !known || rej.Message == "" || rej.Advice == "" {
		t.Fatalf("rejection %+v", rej)
	}
	if !strings.HasPrefix(rej.ErrorContext.Message, string(rej.Code)+": "+rej.Message) {
		t.Fatalf("error_context %q", rej.ErrorContext.Message)
	}
}
