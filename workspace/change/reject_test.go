package change

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder/secrets"
)

// rejection is what a test expects of a rejection: its code, the path its
// error_context names, and parts its message must hold.
type rejection struct {
	Code Code
	Path string
}

// checkRejection checks rej's code and path, that its message holds each
// of parts, and the shape every rejection has.
func checkRejection(t *testing.T, rej *Rejection, want rejection, parts ...string) {
	t.Helper()
	if rej == nil {
		t.Fatalf("accepted, want %s", want.Code)
	}
	if diff := cmp.Diff(want, rejection{rej.Code, rej.ErrorContext.Path}); diff != "" {
		t.Errorf("rejection (-want +got):\n%s\nmessage: %s", diff, rej.Message)
	}
	for _, p := range parts {
		if !strings.Contains(rej.Message, p) {
			t.Errorf("message does not hold %q:\n%s", p, rej.Message)
		}
	}
	if !strings.HasPrefix(rej.ErrorContext.Message, string(rej.Code)+": "+rej.Message) {
		t.Errorf("error_context %q does not start with the code and message", rej.ErrorContext.Message)
	}
	if rej.Advice == "" || strings.Contains(rej.Advice, "\n") {
		t.Errorf("advice %q: want one sentence", rej.Advice)
	}
	if rej.ErrorContext.Range != nil {
		t.Errorf("error_context has a range")
	}
}

func TestRejectMalformed(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		path   string
		parts  []string
	}{
		{"empty answer", "", "", []string{"holds no change"}},
		{"prose only", "I would change f to return 10.\n\n```go\nreturn 10\n```\n", "", []string{"holds no change"}},
		{"mixed formats", "--- a/p.go\n+++ b/p.go\n@@ @@\n" + hunkF + "\nq.go\n```go\npackage q\n```\n", "",
			[]string{"mixes formats", "a unified diff (from answer line 1)", "a whole file (from answer line 9)"}},
		{"mixed diff and blocks", "p.go\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n--- a/p.go\n+++ b/p.go\n@@ @@\n-a\n+b\n", "",
			[]string{"mixes formats"}},
		{"rename with headers", "diff --git a/old.go b/new.go\nsimilarity index 90%\nrename from old.go\nrename to new.go\n", "new.go",
			[]string{"answer line 3", "renames"}},
		{"rename by paths", "--- a/old.go\n+++ b/new.go\n@@ @@\n-a\n+b\n", "new.go", []string{"renames old.go to new.go"}},
		{"binary", "diff --git a/x.png b/x.png\nBinary files a/x.png and b/x.png differ\n", "x.png", []string{"binary"}},
		{"hunk without a file header", "Change this:\n@@ -1,2 +1,2 @@\n-a\n+b\n", "", []string{"answer line 2", "without a file header"}},
		{"header without hunks", "--- a/p.go\n+++ b/p.go\nNothing to change.\n", "p.go", []string{"no @@ hunk"}},
		{"hunk without lines", "--- a/p.go\n+++ b/p.go\n@@ -1,2 +1,2 @@\nprose\n", "", []string{"answer line 3", "hunk without lines"}},
		{"context in a creation", "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n a\n+b\n", "n.txt", []string{"can only add lines"}},
		{"block without a path", "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", "", []string{"without a file path"}},
		{"block without its divider", "p.go\n<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n", "p.go", []string{"answer line 4", "======="}},
		{"block without REPLACE", "p.go\n<<<<<<< SEARCH\na\n=======\nb\n", "p.go", []string{"answer line 2", "REPLACE"}},
		{"stray REPLACE", "p.go\nb\n>>>>>>> REPLACE\n", "", []string{"answer line 3"}},
		{"whole file twice", "a.txt\n```\nA\n```\na.txt\n```\nB\n```\n", "a.txt", []string{"twice"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, rej := Parse(tc.answer)
			if a != nil {
				t.Fatalf("parsed: %+v", a.Files)
			}
			checkRejection(t, rej, rejection{CodeMalformed, tc.path}, tc.parts...)
		})
	}
}

func TestRejectMalformedAdviceListsFormats(t *testing.T) {
	_, rej := Parse("nothing")
	for _, f := range []string{"unified diff", "SEARCH/REPLACE", "whole new file"} {
		if !strings.Contains(rej.Advice, f) {
			t.Errorf("advice %q does not name %q", rej.Advice, f)
		}
	}
}

func TestRejectContextMismatch(t *testing.T) {
	key := awsKeyID()
	src := "package p\n\nvar key = \"" + key + "\"\n\nfunc f() int {\n\treturn 1\n}\n"
	answer := "--- a/p.go\n+++ b/p.go\n@@ -3,5 +3,5 @@\n var key = \"[REDACTED:aws-access-key-id]\"\n \n func f() int {\n-\treturn 2\n+\treturn 3\n }\n"
	_, rej := parseApply(t, answer, file("p.go", src))
	checkRejection(t, rej, rejection{CodeContextMismatch, "p.go"},
		"p.go:3: the hunk at answer line 3 does not match the file.",
		"The closest lines the file has are lines 3-7:",
		"3: var key = \"[REDACTED:aws-access-key-id]\"",
		"6: \treturn 1",
		"The first line that differs is answer line 7:\n\treturn 2\nwhere the file has:\n6: \treturn 1")
	for _, s := range []string{rej.Message, rej.Advice, rej.ErrorContext.Message} {
		if strings.Contains(s, key) {
			t.Errorf("the secret leaks: %s", s)
		}
	}
}

func TestRejectContextMismatchCases(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		files  []Input
		path   string
		parts  []string
	}{
		{"modify a missing file", "--- a/n.txt\n+++ b/n.txt\n@@ @@\n-a\n+b\n", []Input{missing("n.txt")}, "n.txt",
			[]string{"does not exist"}},
		{"create an existing file", "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+a\n", []Input{file("n.txt", "")}, "n.txt",
			[]string{"already exists"}},
		{"delete with other content", "--- a/n.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n", []Input{file("n.txt", "a\nc\n")}, "n.txt",
			[]string{"n.txt:1: the deletion does not match the file", "answer line 5"}},
		{"delete too little", "--- a/n.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n", []Input{file("n.txt", "a\nc\n")}, "n.txt",
			[]string{"1 removed lines; the file has 2"}},
		{"search a missing file", "n.txt\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", []Input{missing("n.txt")}, "n.txt",
			[]string{"does not exist"}},
		{"no line in common", "--- a/n.txt\n+++ b/n.txt\n@@ @@\n-q\n+r\n", []Input{file("n.txt", "a\n")}, "n.txt",
			[]string{"no lines like its 1 unchanged or removed lines"}},
		{"no fuzz: a context line too many", "--- a/n.txt\n+++ b/n.txt\n@@ @@\n a\n-b\n+B\n c\n d\n", []Input{file("n.txt", "a\nb\nc\n")}, "n.txt",
			[]string{"answer line 8", "where the file has ended"}},
		{"hunks out of order", "--- a/n.txt\n+++ b/n.txt\n@@ @@\n-c\n+C\n@@ @@\n-a\n+A\n", []Input{file("n.txt", "a\nb\nc\n")}, "n.txt",
			[]string{"n.txt:1:", "before the end of the previous hunk (line 3)"}},
		{"second file", "--- a/a.txt\n+++ b/a.txt\n@@ @@\n-a\n+A\n--- a/b.txt\n+++ b/b.txt\n@@ @@\n-x\n+X\n",
			[]Input{file("a.txt", "a\n"), file("b.txt", "b\n")}, "b.txt", []string{"b.txt"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, rej := parseApply(t, tc.answer, tc.files...)
			checkRejection(t, rej, rejection{CodeContextMismatch, tc.path}, tc.parts...)
		})
	}
}

// TestRejectMismatchBeforeAmbiguity: a mismatch in a later file is
// reported before an ambiguity in an earlier one.
func TestRejectMismatchBeforeAmbiguity(t *testing.T) {
	answer := "--- a/a.txt\n+++ b/a.txt\n@@ @@\n-x\n+X\n--- a/b.txt\n+++ b/b.txt\n@@ @@\n-q\n+Q\n"
	_, rej := parseApply(t, answer, file("a.txt", "x\nx\n"), file("b.txt", "b\n"))
	checkRejection(t, rej, rejection{CodeContextMismatch, "b.txt"})
}

func TestRejectAmbiguous(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		files  []Input
		parts  []string
	}{
		{"unified", "--- a/n.txt\n+++ b/n.txt\n@@ @@\n x\n-y\n+Y\n", []Input{file("n.txt", "x\ny\n-\nx\ny\n-\nx\ny\n")},
			[]string{"n.txt:1: the hunk at answer line 3 matches the file at 3 places, starting at lines 1, 4, 7"}},
		{"unified, stated line elsewhere", "--- a/n.txt\n+++ b/n.txt\n@@ -2,2 +2,2 @@\n x\n-y\n+Y\n", []Input{file("n.txt", "x\ny\n-\nx\ny\n")},
			[]string{"2 places, starting at lines 1, 4"}},
		{"pure addition without a line number", "--- a/n.txt\n+++ b/n.txt\n@@ @@\n+new\n", []Input{file("n.txt", "a\n")},
			[]string{"only adds lines"}},
		{"search/replace", "n.txt\n<<<<<<< SEARCH\ny\n=======\nY\n>>>>>>> REPLACE\n", []Input{file("n.txt", "x\ny\nz\ny\n")},
			[]string{"n.txt:2: the SEARCH block at answer line 2 matches the file at 2 places, starting at lines 2, 4"}},
		{"empty search on an existing file", "n.txt\n<<<<<<< SEARCH\n=======\nY\n>>>>>>> REPLACE\n", []Input{file("n.txt", "x\n")},
			[]string{"is empty, which matches everywhere"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, rej := parseApply(t, tc.answer, tc.files...)
			checkRejection(t, rej, rejection{CodeAmbiguousMatch, "n.txt"}, tc.parts...)
		})
	}
}

func TestRejectSyntaxError(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		files  []Input
		path   string
		parts  []string
	}{
		{"go", "--- a/p.go\n+++ b/p.go\n@@ -3,3 +3,3 @@\n func f() int {\n-\treturn 1\n+\treturn (1\n }\n", []Input{file("p.go", goSrc)}, "p.go",
			[]string{"p.go:4:11: the change leaves a syntax error: a missing \")\".", "4: \treturn (1"}},
		{"python", "m.py\n```python\n<<<<<<< SEARCH\ndef f():\n=======\ndef f(:\n>>>>>>> REPLACE\n```\n", []Input{file("m.py", "def f():\n    return 1\n")}, "m.py",
			[]string{"m.py:1:7: the change leaves a syntax error: a missing \")\".", "1: def f(:"}},
		{"created go file", "--- /dev/null\n+++ b/q.go\n@@ -0,0 +1,2 @@\n+package q\n+func {\n", []Input{missing("q.go")}, "q.go",
			[]string{"q.go:2:"}},
		{"new error in a file that had one", "--- a/p.go\n+++ b/p.go\n@@ @@\n func g() int {\n-\treturn 2\n+\treturn [2\n",
			[]Input{file("p.go", strings.Replace(goSrc, "return 1", "return (1", 1))}, "p.go", []string{"p.go:8:"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, rej := parseApply(t, tc.answer, tc.files...)
			checkRejection(t, rej, rejection{CodeSyntaxError, tc.path}, tc.parts...)
		})
	}
}

// TestSyntaxErrorsAlreadyThere: a change elsewhere in a file with a
// syntax error is accepted; files without a grammar are not checked.
func TestSyntaxErrorsAlreadyThere(t *testing.T) {
	broken := strings.Replace(goSrc, "return 1", "return (1", 1)
	if _, rej := parseApply(t, "--- a/p.go\n+++ b/p.go\n@@ @@\n func g() int {\n-\treturn 2\n+\treturn 20\n", file("p.go", broken)); rej != nil {
		t.Errorf("rejected: %s", rej.ErrorContext.Message)
	}
	if _, rej := parseApply(t, "n.txt\n```\nfunc {\n```\n", file("n.txt", "")); rej != nil {
		t.Errorf("rejected: %s", rej.ErrorContext.Message)
	}
	if _, rej := parseApply(t, "--- a/p.go\n+++ /dev/null\n@@ @@\n-package p\n-func {\n", file("p.go", "package p\nfunc {\n")); rej != nil {
		t.Errorf("deletion rejected: %s", rej.ErrorContext.Message)
	}
}

func TestRejectSyntaxCancelled(t *testing.T) {
	a, rej := Parse("--- a/p.go\n+++ b/p.go\n@@ -3,3 +3,3 @@\n" + hunkF)
	if rej != nil {
		t.Fatal(rej)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, rej = Apply(ctx, a, []Input{file("p.go", goSrc)}, Options{Scanner: secrets.Default()})
	checkRejection(t, rej, rejection{CodeSyntaxError, "p.go"}, "the syntax check was cancelled")
}

func TestRejectSecret(t *testing.T) {
	key, token := awsKeyID(), githubToken()
	tests := []struct {
		name   string
		answer string
		files  []Input
		secret string
		parts  []string
	}{
		{"aws key in a diff", "--- a/p.go\n+++ b/p.go\n@@ -1 +1,3 @@\n package p\n+\n+var key = \"" + key + "\"\n", []Input{file("p.go", goSrc)}, key,
			[]string{"p.go:3: the change adds a credential (rule aws-access-key-id)"}},
		{"github token in a whole file", "notes.txt\n```\nname\nsee " + token + "\n```\n", []Input{missing("notes.txt")}, token,
			[]string{"notes.txt:2: the change adds a credential (rule github-pat-classic)"}},
		{"token in a block", "n.txt\n<<<<<<< SEARCH\na\n=======\na " + token + "\n>>>>>>> REPLACE\n", []Input{file("n.txt", "a\n")}, token,
			[]string{"n.txt:1:"}},
		{"marker written over a secret", "--- a/p.go\n+++ b/p.go\n@@ @@\n-var key = \"[REDACTED:aws-access-key-id]\"\n+var key = \"[REDACTED:aws-access-key-id]\" // rotated\n",
			[]Input{file("p.go", "package p\n\nvar key = \""+key+"\"\n")}, key,
			[]string{"p.go:3: the change writes a line with ctxd's redaction marker [REDACTED:aws-access-key-id]"}},
		{"undecodable text", "n.txt\n```\na\x00b\n```\n", []Input{file("n.txt", "a\n")}, "a\x00b",
			[]string{"cannot be scanned for secrets"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, rej := parseApply(t, tc.answer, tc.files...)
			checkRejection(t, rej, rejection{CodeSecret, tc.files[0].Path}, tc.parts...)
			for _, s := range []string{rej.Message, rej.Advice, rej.ErrorContext.Message} {
				if strings.Contains(s, tc.secret) {
					t.Errorf("the secret leaks: %s", s)
				}
			}
		})
	}
}

// TestSecretAlreadyThere: a change next to a secret the file already
// holds, or moving it, is accepted.
func TestSecretAlreadyThere(t *testing.T) {
	key := awsKeyID()
	src := "package p\n\nvar key = \"" + key + "\"\n\nvar n = 1\n"
	answer := "--- a/p.go\n+++ b/p.go\n@@ @@\n var key = \"[REDACTED:aws-access-key-id]\"\n \n-var n = 1\n+var n = 2\n"
	if _, rej := parseApply(t, answer, file("p.go", src)); rej != nil {
		t.Errorf("rejected: %s", rej.ErrorContext.Message)
	}
	// Rewriting the line (indentation aside) with the real value is the
	// same value: not introduced by the change.
	answer = "--- a/p.go\n+++ b/p.go\n@@ @@\n-var key = \"[REDACTED:aws-access-key-id]\"\n+var key  = \"" + key + "\"\n"
	if _, rej := parseApply(t, answer, file("p.go", src)); rej != nil {
		t.Errorf("rejected: %s", rej.ErrorContext.Message)
	}
}

// TestRejectionOrder: syntax is checked before secrets, over all files.
func TestRejectionOrder(t *testing.T) {
	answer := "--- a/n.txt\n+++ b/n.txt\n@@ @@\n-a\n+a " + githubToken() + "\n--- a/p.go\n+++ b/p.go\n@@ -3,3 +3,3 @@\n func f() int {\n-\treturn 1\n+\treturn (1\n }\n"
	_, rej := parseApply(t, answer, file("n.txt", "a\n"), file("p.go", goSrc))
	checkRejection(t, rej, rejection{CodeSyntaxError, "p.go"})
}

func TestApplyBadInput(t *testing.T) {
	if _, rej := Apply(context.Background(), nil, nil, Options{}); rej == nil || rej.Code != CodeMalformed {
		t.Errorf("nil answer: %v", rej)
	}
	a, _ := Parse("--- a/n.txt\n+++ b/n.txt\n@@ @@\n-a\n+b\n")
	if _, rej := Apply(context.Background(), a, nil, Options{}); rej == nil || rej.Code != CodeMalformed {
		t.Errorf("no files: %v", rej)
	}
}

// TestApplyRepetitive: files made of one line repeated thousands of times
// are answered in bounded time: ambiguous, or a mismatch.
func TestApplyRepetitive(t *testing.T) {
	n := 100000
	if raceEnabled {
		n = 20000
	}
	same := strings.Repeat("a\n", n)
	runs := strings.Repeat(strings.Repeat("a\n", 99)+"b\n", n/100)
	tests := []struct {
		name   string
		answer string
		text   string
		code   Code
	}{
		{"everywhere", "--- a/n.txt\n+++ b/n.txt\n@@ @@\n" + strings.Repeat(" a\n", 500) + "-a\n+c\n", same, CodeAmbiguousMatch},
		{"nowhere, late", "--- a/n.txt\n+++ b/n.txt\n@@ @@\n" + strings.Repeat(" a\n", 150) + "-a\n+c\n", runs, CodeContextMismatch},
		{"markers only", "--- a/n.txt\n+++ b/n.txt\n@@ @@\n" + strings.Repeat(" [REDACTED:x]\n", 50) + "-[REDACTED:y]\n+c\n", runs, CodeAmbiguousMatch},
		{"markers and a line", "--- a/n.txt\n+++ b/n.txt\n@@ @@\n" + strings.Repeat(" [REDACTED:x]\n", 50) + "-b\n+c\n b\n", runs, CodeContextMismatch},
		{"block", "n.txt\n<<<<<<< SEARCH\n" + strings.Repeat("a\n", 300) + "=======\nc\n>>>>>>> REPLACE\n", same, CodeAmbiguousMatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, rej := parseApply(t, tc.answer, file("n.txt", tc.text))
			if rej == nil || rej.Code != tc.code {
				t.Fatalf("got %v, want %s", rej, tc.code)
			}
			checkShape(t, rej)
		})
	}
}
