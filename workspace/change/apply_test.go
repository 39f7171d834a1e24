package change

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goSrc is a small Go file; its lines are
//
//	1 package p
//	2
//	3 func f() int {
//	4 	return 1
//	5 }
//	6
//	7 func g() int {
//	8 	return 2
//	9 }
const goSrc = "package p\n\nfunc f() int {\n\treturn 1\n}\n\nfunc g() int {\n\treturn 2\n}\n"

// goF10 is goSrc with f returning 10; goG20 with g returning 20.
var (
	goF10    = strings.Replace(goSrc, "return 1\n", "return 10\n", 1)
	goG20    = strings.Replace(goSrc, "return 2\n", "return 20\n", 1)
	goF10G20 = strings.Replace(goF10, "return 2\n", "return 20\n", 1)
)

// hunkF changes f's return value.
const hunkF = " func f() int {\n-\treturn 1\n+\treturn 10\n }\n"

// fileResult is what a test expects of one file.
type fileResult struct {
	Path   string
	Action Action
	After  string
}

func results(res *Result) []fileResult {
	var out []fileResult
	for _, f := range res.Files {
		out = append(out, fileResult{f.Path, f.Action, string(f.After)})
	}
	return out
}

func TestApplyUnified(t *testing.T) {
	key := awsKeyID()
	withKey := "package p\n\nvar key = \"" + key + "\"\n\nfunc f() int {\n\treturn 1\n}\n"
	tests := []struct {
		name   string
		answer string
		files  []Input
		want   []fileResult
	}{
		{
			name:   "correct numbers",
			answer: "--- a/p.go\n+++ b/p.go\n@@ -3,3 +3,3 @@\n" + hunkF,
			files:  []Input{file("p.go", goSrc)},
			want:   []fileResult{{"p.go", ActionModify, goF10}},
		},
		{
			name:   "wrong numbers",
			answer: "--- a/p.go\n+++ b/p.go\n@@ -30,3 +31,3 @@\n" + hunkF,
			files:  []Input{file("p.go", goSrc)},
			want:   []fileResult{{"p.go", ActionModify, goF10}},
		},
		{
			name:   "wrong counts",
			answer: "--- a/p.go\n+++ b/p.go\n@@ -3,7 +3,2 @@\n" + hunkF,
			files:  []Input{file("p.go", goSrc)},
			want:   []fileResult{{"p.go", ActionModify, goF10}},
		},
		{
			name:   "missing numbers",
			answer: "--- a/p.go\n+++ b/p.go\n@@ @@\n" + hunkF,
			files:  []Input{file("p.go", goSrc)},
			want:   []fileResult{{"p.go", ActionModify, goF10}},
		},
		{
			name:   "bare @@ and starts without counts",
			answer: "--- a/p.go\n+++ b/p.go\n@@\n" + hunkF + "@@ -7 +7 @@\n func g() int {\n-\treturn 2\n+\treturn 20\n",
			files:  []Input{file("p.go", goSrc)},
			want:   []fileResult{{"p.go", ActionModify, goF10G20}},
		},
		{
			name: "several hunks",
			answer: "--- a/p.go\n+++ b/p.go\n@@ -3,3 +3,3 @@\n" + hunkF +
				"@@ -7,3 +7,3 @@\n func g() int {\n-\treturn 2\n+\treturn 20\n }\n",
			files: []Input{file("p.go", goSrc)},
			want:  []fileResult{{"p.go", ActionModify, goF10G20}},
		},
		{
			name: "several files",
			answer: "--- a/p.go\n+++ b/p.go\n@@ -3,3 +3,3 @@\n" + hunkF +
				"--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n",
			files: []Input{file("p.go", goSrc), file("notes.txt", "one\ntwo\n")},
			want:  []fileResult{{"p.go", ActionModify, goF10}, {"notes.txt", ActionModify, "one\nTWO\n"}},
		},
		{
			name:   "CRLF file, LF answer",
			answer: "--- a/p.go\n+++ b/p.go\n@@ -3,3 +3,4 @@\n func f() int {\n-\treturn 1\n+\tx := 1\n+\treturn x\n }\n",
			files:  []Input{file("p.go", strings.ReplaceAll(goSrc, "\n", "\r\n"))},
			want: []fileResult{{"p.go", ActionModify, strings.ReplaceAll(
				strings.Replace(goSrc, "\treturn 1\n", "\tx := 1\n\treturn x\n", 1), "\n", "\r\n")}},
		},
		{
			name:   "CRLF answer is read as LF",
			answer: strings.ReplaceAll("--- a/p.go\n+++ b/p.go\n@@ -3,3 +3,3 @@\n"+hunkF, "\n", "\r\n"),
			files:  []Input{file("p.go", goSrc)},
			want:   []fileResult{{"p.go", ActionModify, goF10}},
		},
		{
			name:   "BOM kept",
			answer: "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n",
			files:  []Input{file("notes.txt", bom+"one\ntwo\n")},
			want:   []fileResult{{"notes.txt", ActionModify, bom + "ONE\ntwo\n"}},
		},
		{
			name:   "no final newline kept",
			answer: "--- a/notes.txt\n+++ b/notes.txt\n@@ -2,2 +2,3 @@\n b\n-c\n+C\n+d\n",
			files:  []Input{file("notes.txt", "a\nb\nc")},
			want:   []fileResult{{"notes.txt", ActionModify, "a\nb\nC\nd"}},
		},
		{
			name:   "final newline kept when adding at the end",
			answer: "--- a/notes.txt\n+++ b/notes.txt\n@@ -2,2 +2,3 @@\n b\n c\n+d\n",
			files:  []Input{file("notes.txt", "a\nb\nc\n")},
			want:   []fileResult{{"notes.txt", ActionModify, "a\nb\nc\nd\n"}},
		},
		{
			name:   "marker adds the final newline",
			answer: "--- a/notes.txt\n+++ b/notes.txt\n@@ -2,2 +2,2 @@\n b\n-c\n\\ No newline at end of file\n+c\n",
			files:  []Input{file("notes.txt", "a\nb\nc")},
			want:   []fileResult{{"notes.txt", ActionModify, "a\nb\nc\n"}},
		},
		{
			name:   "marker removes the final newline",
			answer: "--- a/notes.txt\n+++ b/notes.txt\n@@ -2,2 +2,2 @@\n b\n-c\n+c\n\\ No newline at end of file\n",
			files:  []Input{file("notes.txt", "a\nb\nc\n")},
			want:   []fileResult{{"notes.txt", ActionModify, "a\nb\nc"}},
		},
		{
			name:   "marker on a context line keeps no newline",
			answer: "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n\\ No newline at end of file\n",
			files:  []Input{file("notes.txt", "a\nb\nc")},
			want:   []fileResult{{"notes.txt", ActionModify, "A\nb\nc"}},
		},
		{
			name:   "layer 2: trailing whitespace, context keeps the file's bytes",
			answer: "--- a/p.go\n+++ b/p.go\n@@ -3,3 +3,3 @@\n" + hunkF,
			files:  []Input{file("p.go", strings.Replace(goSrc, "func f() int {\n", "func f() int {  \t\n", 1))},
			want:   []fileResult{{"p.go", ActionModify, strings.Replace(goF10, "func f() int {\n", "func f() int {  \t\n", 1)}},
		},
		{
			name:   "layer 3: curly quotes in the answer, ASCII in the file",
			answer: "--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n print(“don’t — stop…”)\n-x = 1\n+x = 2\n",
			files:  []Input{file("m.py", "print(\"don't - stop...\")\nx = 1\n")},
			want:   []fileResult{{"m.py", ActionModify, "print(\"don't - stop...\")\nx = 2\n"}},
		},
		{
			name:   "layer 3: ASCII in the answer, typographic file",
			answer: "--- a/m.md\n+++ b/m.md\n@@ -1,2 +1,2 @@\n It's \"fine\" -- really\n-old\n+new\n",
			files:  []Input{file("m.md", "It\u2019s \u201cfine\u201d -- really\u00a0\nold\n")},
			want:   []fileResult{{"m.md", ActionModify, "It\u2019s \u201cfine\u201d -- really\u00a0\nnew\n"}},
		},
		{
			name: "redaction marker in context keeps the secret",
			answer: "--- a/p.go\n+++ b/p.go\n@@ -3,5 +3,5 @@\n var key = \"[REDACTED:aws-access-key-id]\"\n \n func f() int {\n" +
				"-\treturn 1\n+\treturn 10\n",
			files: []Input{file("p.go", withKey)},
			want:  []fileResult{{"p.go", ActionModify, strings.Replace(withKey, "return 1\n", "return 10\n", 1)}},
		},
		{
			name:   "redaction marker removed and added unchanged keeps the secret",
			answer: "--- a/p.go\n+++ b/p.go\n@@ -3,1 +3,2 @@\n-var key = \"[REDACTED:aws-access-key-id]\"\n+var key = \"[REDACTED:aws-access-key-id]\"\n+var n = 1\n",
			files:  []Input{file("p.go", withKey)},
			want:   []fileResult{{"p.go", ActionModify, strings.Replace(withKey, key+"\"\n", key+"\"\nvar n = 1\n", 1)}},
		},
		{
			name:   "fenced diff with prose before and after",
			answer: "Here is the fix.\n\n```\n--- a/p.go\n+++ b/p.go\n@@ -3,3 +3,3 @@\n" + hunkF + "```\n\nThis returns 10.\n",
			files:  []Input{file("p.go", goSrc)},
			want:   []fileResult{{"p.go", ActionModify, goF10}},
		},
		{
			name:   "diff fence",
			answer: "```diff\n--- a/p.go\n+++ b/p.go\n@@ -3,3 +3,3 @@\n" + hunkF + "```",
			files:  []Input{file("p.go", goSrc)},
			want:   []fileResult{{"p.go", ActionModify, goF10}},
		},
		{
			name:   "unfenced diff, prose after it",
			answer: "I changed f:\n--- a/p.go\n+++ b/p.go\n@@ -3,3 +3,3 @@\n" + hunkF + "\nThat is all.\n",
			files:  []Input{file("p.go", goSrc)},
			want:   []fileResult{{"p.go", ActionModify, goF10}},
		},
		{
			name:   "indented fence",
			answer: "1. Apply:\n   ```diff\n   --- a/p.go\n   +++ b/p.go\n   @@ -3,3 +3,3 @@\n    func f() int {\n   -\treturn 1\n   +\treturn 10\n    }\n   ```\n",
			files:  []Input{file("p.go", goSrc)},
			want:   []fileResult{{"p.go", ActionModify, goF10}},
		},
		{
			name:   "git headers",
			answer: "diff --git a/p.go b/p.go\nindex 83db48f..bf269f4 100644\n--- a/p.go\n+++ b/p.go\n@@ -3,3 +3,3 @@ package p\n" + hunkF,
			files:  []Input{file("p.go", goSrc)},
			want:   []fileResult{{"p.go", ActionModify, goF10}},
		},
		{
			name:   "no prefixes, timestamps",
			answer: "--- p.go\t2024-01-01 10:00:00.000000000 +0100\n+++ p.go\t2024-01-01 10:05:00.000000000 +0100\n@@ -3,3 +3,3 @@\n" + hunkF,
			files:  []Input{file("p.go", goSrc)},
			want:   []fileResult{{"p.go", ActionModify, goF10}},
		},
		{
			name:   "quoted path",
			answer: "--- \"a/my dir/n\\303\\251.txt\"\n+++ \"b/my dir/n\\303\\251.txt\"\n@@ -1 +1 @@\n-one\n+ONE\n",
			files:  []Input{file("my dir/né.txt", "one\n")},
			want:   []fileResult{{"my dir/né.txt", ActionModify, "ONE\n"}},
		},
		{
			name:   "create",
			answer: "--- /dev/null\n+++ b/new/file.txt\n@@ -0,0 +1,3 @@\n+one\n+\n+three\n",
			files:  []Input{missing("new/file.txt")},
			want:   []fileResult{{"new/file.txt", ActionCreate, "one\n\nthree\n"}},
		},
		{
			name:   "create with bare empty lines and no final newline",
			answer: "diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,3 @@\n+one\n\n+three\n\\ No newline at end of file\n",
			files:  []Input{missing("n.txt")},
			want:   []fileResult{{"n.txt", ActionCreate, "one\n\nthree"}},
		},
		{
			name:   "delete",
			answer: "--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two\n",
			files:  []Input{file("old.txt", "one\r\ntwo  \r\n")},
			want:   []fileResult{{"old.txt", ActionDelete, ""}},
		},
		{
			name:   "empty line as context",
			answer: "--- a/p.go\n+++ b/p.go\n@@ -5,4 +5,4 @@\n }\n\n func g() int {\n-\treturn 2\n+\treturn 20\n",
			files:  []Input{file("p.go", goSrc)},
			want:   []fileResult{{"p.go", ActionModify, goG20}},
		},
		{
			name:   "removed line starting with two dashes",
			answer: "--- a/q.sql\n+++ b/q.sql\n@@ -1,3 +1,2 @@\n select 1;\n--- comment\n select 2;\n",
			files:  []Input{file("q.sql", "select 1;\n-- comment\nselect 2;\n")},
			want:   []fileResult{{"q.sql", ActionModify, "select 1;\nselect 2;\n"}},
		},
		{
			name:   "counts keep a trailing empty context line",
			answer: "--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n-a\n+A\n\n",
			files:  []Input{file("n.txt", "a\nx\na\n\nz\n")},
			want:   []fileResult{{"n.txt", ActionModify, "a\nx\nA\n\nz\n"}},
		},
		{
			name:   "counts that claim blank lines after the hunk",
			answer: "--- a/n.txt\n+++ b/n.txt\n@@ -1,3 +1,3 @@\n x\n-a\n+A\n\nDone.\n",
			files:  []Input{file("n.txt", "x\na\nb\n")},
			want:   []fileResult{{"n.txt", ActionModify, "x\nA\nb\n"}},
		},
		{
			name:   "pure addition placed by its line number",
			answer: "--- a/n.txt\n+++ b/n.txt\n@@ -2,0 +3,1 @@\n+inserted\n",
			files:  []Input{file("n.txt", "a\nb\nc\n")},
			want:   []fileResult{{"n.txt", ActionModify, "a\nb\ninserted\nc\n"}},
		},
		{
			name:   "pure addition at the start",
			answer: "--- a/n.txt\n+++ b/n.txt\n@@ -0,0 +1 @@\n+first\n",
			files:  []Input{file("n.txt", "a\n")},
			want:   []fileResult{{"n.txt", ActionModify, "first\na\n"}},
		},
		{
			name:   "addition to an empty file",
			answer: "--- a/n.txt\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n",
			files:  []Input{file("n.txt", "")},
			want:   []fileResult{{"n.txt", ActionModify, "a\nb\n"}},
		},
		{
			name:   "stated line picks among equal places",
			answer: "--- a/n.txt\n+++ b/n.txt\n@@ -5,2 +5,2 @@\n x\n-y\n+Y\n",
			files:  []Input{file("n.txt", "x\ny\nz\n-\nx\ny\nz\n")},
			want:   []fileResult{{"n.txt", ActionModify, "x\ny\nz\n-\nx\nY\nz\n"}},
		},
		{
			name:   "later hunks are looked for after earlier ones",
			answer: "--- a/n.txt\n+++ b/n.txt\n@@ @@\n a\n-x\n+X\n@@ @@\n-x\n+XX\n",
			files:  []Input{file("n.txt", "x\na\nx\nb\nx\n")},
			want:   []fileResult{{"n.txt", ActionModify, "x\na\nX\nb\nXX\n"}},
		},
		{
			name: "sections of one path are merged",
			answer: "--- a/p.go\n+++ b/p.go\n@@ -3,3 +3,3 @@\n" + hunkF + "\nand then\n\n" +
				"--- a/p.go\n+++ b/p.go\n@@ -7,3 +7,3 @@\n func g() int {\n-\treturn 2\n+\treturn 20\n }\n",
			files: []Input{file("p.go", goSrc)},
			want:  []fileResult{{"p.go", ActionModify, goF10G20}},
		},
		{
			name:   "a hunk after prose continues the file",
			answer: "--- a/p.go\n+++ b/p.go\n@@ -3,3 +3,3 @@\n" + hunkF + "\nAlso:\n\n@@ -7,3 +7,3 @@\n func g() int {\n-\treturn 2\n+\treturn 20\n }\n",
			files:  []Input{file("p.go", goSrc)},
			want:   []fileResult{{"p.go", ActionModify, goF10G20}},
		},
		{
			name:   "hunks without file headers under a path line",
			answer: "p.go\n```diff\n@@ -3,3 +3,3 @@\n" + hunkF + "```\n",
			files:  []Input{file("p.go", goSrc)},
			want:   []fileResult{{"p.go", ActionModify, goF10}},
		},
		{
			name:   "mixed line ends: added lines take the majority",
			answer: "--- a/n.txt\n+++ b/n.txt\n@@ @@\n a\n+new\n b\n",
			files:  []Input{file("n.txt", "a\r\nb\r\nc\n")},
			want:   []fileResult{{"n.txt", ActionModify, "a\r\nnew\r\nb\r\nc\n"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, rej := parseApply(t, tc.answer, tc.files...)
			if rej != nil {
				t.Fatalf("rejected: %s\n%s", rej.Code, rej.ErrorContext.Message)
			}
			if res.Format != FormatUnified {
				t.Errorf("format %q", res.Format)
			}
			if diff := cmp.Diff(tc.want, results(res)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplySearchReplace(t *testing.T) {
	block := "<<<<<<< SEARCH\nfunc f() int {\n\treturn 1\n}\n=======\nfunc f() int {\n\treturn 10\n}\n>>>>>>> REPLACE\n"
	tests := []struct {
		name   string
		answer string
		files  []Input
		want   []fileResult
	}{
		{
			name:   "fenced, aider style",
			answer: "Change f:\n\np.go\n```go\n" + block + "```\n",
			files:  []Input{file("p.go", goSrc)},
			want:   []fileResult{{"p.go", ActionModify, goF10}},
		},
		{
			name:   "the path in the fence's info string",
			answer: "Change f:\n```go p.go\n" + block + "```\n",
			files:  []Input{file("p.go", goSrc)},
			want:   []fileResult{{"p.go", ActionModify, goF10}},
		},
		{
			name:   "unfenced",
			answer: "p.go\n" + block,
			files:  []Input{file("p.go", goSrc)},
			want:   []fileResult{{"p.go", ActionModify, goF10}},
		},
		{
			name: "several blocks, the second without its path line",
			answer: "`p.go`\n```go\n" + block + "```\nAnd g:\n```go\n" +
				"<<<<<<<  SEARCH  \n\treturn 2\n=========\n\treturn 20\n>>>>>>>>> REPLACE\n```\n",
			files: []Input{file("p.go", goSrc)},
			want:  []fileResult{{"p.go", ActionModify, goF10G20}},
		},
		{
			name:   "blocks apply to the text earlier blocks left",
			answer: "n.txt\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nb\nb\n=======\nc\n>>>>>>> REPLACE\n",
			files:  []Input{file("n.txt", "a\nb\n")},
			want:   []fileResult{{"n.txt", ActionModify, "c\n"}},
		},
		{
			name:   "two files",
			answer: "p.go\n```\n" + block + "```\nnotes.txt\n```\n<<<<<<< SEARCH\ntwo\n=======\nTWO\n>>>>>>> REPLACE\n```\n",
			files:  []Input{file("p.go", goSrc), file("notes.txt", "one\ntwo\n")},
			want:   []fileResult{{"p.go", ActionModify, goF10}, {"notes.txt", ActionModify, "one\nTWO\n"}},
		},
		{
			name:   "empty SEARCH creates a missing file",
			answer: "new.py\n```python\n<<<<<<< SEARCH\n=======\ndef f():\n    return 1\n>>>>>>> REPLACE\n```\n",
			files:  []Input{missing("new.py")},
			want:   []fileResult{{"new.py", ActionCreate, "def f():\n    return 1\n"}},
		},
		{
			name:   "CRLF file keeps CRLF, layer 2 context keeps its bytes",
			answer: "n.txt\n<<<<<<< SEARCH\na\nb\n=======\na\nB\nb2\n>>>>>>> REPLACE\n",
			files:  []Input{file("n.txt", "a  \r\nb\r\nc\r\n")},
			want:   []fileResult{{"n.txt", ActionModify, "a  \r\nB\r\nb2\r\nc\r\n"}},
		},
		{
			name:   "fence lines inside a block are its text",
			answer: "README.md\n```\n<<<<<<< SEARCH\n```sh\nmake\n```\n=======\n```sh\nmake test\n```\n>>>>>>> REPLACE\n```\n",
			files:  []Input{file("README.md", "# X\n\n```sh\nmake\n```\n")},
			want:   []fileResult{{"README.md", ActionModify, "# X\n\n```sh\nmake test\n```\n"}},
		},
		{
			name:   "no final newline kept",
			answer: "n.txt\n<<<<<<< SEARCH\nc\n=======\nC\n>>>>>>> REPLACE\n",
			files:  []Input{file("n.txt", "a\nc")},
			want:   []fileResult{{"n.txt", ActionModify, "a\nC"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, rej := parseApply(t, tc.answer, tc.files...)
			if rej != nil {
				t.Fatalf("rejected: %s\n%s", rej.Code, rej.ErrorContext.Message)
			}
			if res.Format != FormatSearchReplace {
				t.Errorf("format %q", res.Format)
			}
			if diff := cmp.Diff(tc.want, results(res)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyWholeFile(t *testing.T) {
	key := awsKeyID()
	body := "```go\n" + goF10 + "```\n"
	tests := []struct {
		name   string
		answer string
		files  []Input
		want   []fileResult
	}{
		{"bare path", "p.go\n" + body, []Input{file("p.go", goSrc)}, []fileResult{{"p.go", ActionModify, goF10}}},
		{"bold path, blank line", "**p.go**\n\n" + body, []Input{file("p.go", goSrc)}, []fileResult{{"p.go", ActionModify, goF10}}},
		{"code path", "`p.go`\n" + body, []Input{file("p.go", goSrc)}, []fileResult{{"p.go", ActionModify, goF10}}},
		{"heading", "### `src/p.go`\n" + body, []Input{file("src/p.go", goSrc)}, []fileResult{{"src/p.go", ActionModify, goF10}}},
		{"File: prefix", "**File:** `p.go`\n" + body, []Input{file("p.go", goSrc)}, []fileResult{{"p.go", ActionModify, goF10}}},
		{"trailing colon", "p.go:\n" + body, []Input{file("p.go", goSrc)}, []fileResult{{"p.go", ActionModify, goF10}}},
		{"info lang:path", "The new file:\n```go:src/p.go\n" + goF10 + "```\n", []Input{file("src/p.go", goSrc)}, []fileResult{{"src/p.go", ActionModify, goF10}}},
		{"info lang path", "```go p.go\n" + goF10 + "```\n", []Input{file("p.go", goSrc)}, []fileResult{{"p.go", ActionModify, goF10}}},
		{"four backticks around fences", "README.md\n````markdown\n# X\n\n```sh\nmake test\n```\n````\n",
			[]Input{file("README.md", "# X\n")}, []fileResult{{"README.md", ActionModify, "# X\n\n```sh\nmake test\n```\n"}}},
		{"tildes", "notes.txt\n~~~\none\n~~~\n", []Input{file("notes.txt", "zero\n")}, []fileResult{{"notes.txt", ActionModify, "one\n"}}},
		{"prose code blocks are ignored", "Run this:\n```sh\ngo test ./...\n```\np.go\n" + body + "Then:\n```\nmake\n```\n",
			[]Input{file("p.go", goSrc)}, []fileResult{{"p.go", ActionModify, goF10}}},
		{"creates a missing file", "docs/new.md\n```\n# New\n```\n", []Input{missing("docs/new.md")}, []fileResult{{"docs/new.md", ActionCreate, "# New\n"}}},
		{"keeps CRLF, BOM and no final newline", "n.txt\n```\na\nB\nc\n```\n", []Input{file("n.txt", bom+"a\r\nb\r\nc")},
			[]fileResult{{"n.txt", ActionModify, bom + "a\r\nB\r\nc"}}},
		{"keeps a redacted line's secret", "p.go\n```go\npackage p\n\nvar key = \"[REDACTED:aws-access-key-id]\"\n\nvar n = 2\n```\n",
			[]Input{file("p.go", "package p\n\nvar key = \""+key+"\"\n\nvar n = 1\n")},
			[]fileResult{{"p.go", ActionModify, "package p\n\nvar key = \"" + key + "\"\n\nvar n = 2\n"}}},
		{"two files", "a.txt\n```\nA\n```\n\nb.txt\n```\nB\n```\n", []Input{file("a.txt", "a\n"), missing("b.txt")},
			[]fileResult{{"a.txt", ActionModify, "A\n"}, {"b.txt", ActionCreate, "B\n"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, rej := parseApply(t, tc.answer, tc.files...)
			if rej != nil {
				t.Fatalf("rejected: %s\n%s", rej.Code, rej.ErrorContext.Message)
			}
			if res.Format != FormatWholeFile {
				t.Errorf("format %q", res.Format)
			}
			if diff := cmp.Diff(tc.want, results(res)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestEditsMinimal: edits cover only what changed, one per hunk.
func TestEditsMinimal(t *testing.T) {
	res, rej := parseApply(t, "--- a/p.go\n+++ b/p.go\n@@ -3,3 +3,3 @@\n"+hunkF+"@@ -7,3 +7,3 @@\n func g() int {\n-\treturn 2\n+\treturn 20\n }\n",
		file("p.go", goSrc))
	if rej != nil {
		t.Fatal(rej)
	}
	want := []Edit{
		{Start: strings.Index(goSrc, "\treturn 1"), End: strings.Index(goSrc, "\treturn 1") + len("\treturn 1\n"), NewText: "\treturn 10\n"},
		{Start: strings.Index(goSrc, "\treturn 2"), End: strings.Index(goSrc, "\treturn 2") + len("\treturn 2\n"), NewText: "\treturn 20\n"},
	}
	if diff := cmp.Diff(want, res.Files[0].Edits); diff != "" {
		t.Errorf("edits (-want +got):\n%s", diff)
	}
	// A whole file that changes one line gives one small edit.
	res, rej = parseApply(t, "p.go\n```go\n"+goF10+"```\n", file("p.go", goSrc))
	if rej != nil {
		t.Fatal(rej)
	}
	if diff := cmp.Diff(want[:1], res.Files[0].Edits); diff != "" {
		t.Errorf("whole-file edits (-want +got):\n%s", diff)
	}
}
