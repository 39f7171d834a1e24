package main

import (
	"hash/crc32"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// oldText → newText, and git's -U3 diff of the two (git diff --no-index
// -U3 --diff-algorithm=myers, header trimmed): two hunks, the second one
// at the end of a file without a final newline.
const (
	oldText = "package p\n\nimport \"fmt\"\n\nfunc A() {\n\tfmt.Println(\"a\")\n}\n\nfunc B() {\n\treturn\n}\n\nfunc C() {\n\tfmt.Println(\"c\")\n}\n\nfunc D() {\n\tfmt.Println(\"d\")\n}"
	newText = "package p\n\nimport \"fmt\"\n\nfunc A() {\n\tfmt.Println(\"A\")\n\tfmt.Println(\"again\")\n}\n\nfunc B() {\n\treturn\n}\n\nfunc C() {\n\tfmt.Println(\"c\")\n}\n\nfunc D() {\n\tfmt.Println(\"D\")\n}"
	gitOut  = "diff --git a/old b/new\nindex 1111111..2222222 100644\n--- a/old\n+++ b/new\n" +
		"@@ -3,7 +3,8 @@ package p\n import \"fmt\"\n \n func A() {\n-\tfmt.Println(\"a\")\n+\tfmt.Println(\"A\")\n+\tfmt.Println(\"again\")\n }\n \n func B() {\n" +
		"@@ -15,5 +16,5 @@ func C() {\n }\n \n func D() {\n-\tfmt.Println(\"d\")\n+\tfmt.Println(\"D\")\n }\n\\ No newline at end of file\n"
)

func mustHunks(t *testing.T) []hunk {
	t.Helper()
	h, err := parseHunks(gitOut)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// applyHunks is a reference applier by line numbers (the test's oracle).
func applyHunks(t *testing.T, old string, hunks []hunk) string {
	t.Helper()
	lines := strings.SplitAfter(old, "\n")
	var out []string
	next := 0 // index into lines
	for _, h := range hunks {
		start := h.oldStart - 1
		if h.oldCount == 0 {
			start = h.oldStart
		}
		out = append(out, lines[next:start]...)
		next = start
		for i, l := range h.lines {
			noNL := i+1 < len(h.lines) && h.lines[i+1][0] == '\\'
			text := l[1:]
			if !noNL {
				text += "\n"
			}
			switch l[0] {
			case ' ':
				if lines[next] != text {
					t.Fatalf("context %q does not match %q", text, lines[next])
				}
				out = append(out, text)
				next++
			case '-':
				if lines[next] != text {
					t.Fatalf("removed %q does not match %q", text, lines[next])
				}
				next++
			case '+':
				out = append(out, text)
			}
		}
	}
	out = append(out, lines[next:]...)
	return strings.Join(out, "")
}

func TestParseAndRenderUnified(t *testing.T) {
	hunks := mustHunks(t)
	if len(hunks) != 2 {
		t.Fatalf("%d hunks, want 2", len(hunks))
	}
	h := hunks[0]
	if h.oldStart != 3 || h.oldCount != 7 || h.newStart != 3 || h.newCount != 8 || h.section != " package p" {
		t.Errorf("hunk 1 = %+v", h)
	}
	if got := applyHunks(t, oldText, hunks); got != newText {
		t.Errorf("the parsed hunks do not turn old into new:\n%q", got)
	}
	want := "--- a/p/x.go\n+++ b/p/x.go\n" + gitOut[strings.Index(gitOut, "@@"):]
	if got := renderUnified("p/x.go", hunks, headersExact); got != want {
		t.Errorf("renderUnified =\n%s\nwant\n%s", got, want)
	}
	if _, err := parseHunks(strings.Replace(gitOut, "-3,7", "-3,6", 1)); err == nil {
		t.Error("a hunk whose header miscounts its lines parsed")
	}
	if _, err := parseHunks("--- a/x\n+++ b/x\n"); err == nil {
		t.Error("a diff without hunks parsed")
	}
}

func TestHeaderModes(t *testing.T) {
	hunks := mustHunks(t)
	bare := renderUnified("x.go", hunks, headersBare)
	if n := strings.Count(bare, "\n@@ @@\n"); n != 2 {
		t.Errorf("%d bare headers, want 2:\n%s", n, bare)
	}
	shifted := renderUnified("x.go", hunks, headersShifted)
	for _, want := range []string{"\n@@ -10,7 +10,8 @@ package p\n", "\n@@ -22,5 +23,5 @@ func C() {\n"} {
		if !strings.Contains(shifted, want) {
			t.Errorf("shifted diff lacks %q:\n%s", want, shifted)
		}
	}
	one := hunk{oldStart: 8, oldCount: 1, newStart: 8, newCount: 0}
	if got := headerLine(one, headersShifted); got != "@@ -15 +15,0 @@" {
		t.Errorf("one-line range shifted = %q", got)
	}
	// Only the headers differ.
	strip := func(s string) string { return regexp.MustCompile(`(?m)^@@.*$`).ReplaceAllString(s, "@@") }
	if strip(bare) != strip(shifted) || strip(shifted) != strip(renderUnified("x.go", hunks, headersExact)) {
		t.Error("the header modes change more than the headers")
	}
	if got := renderUnified("/etc/hosts", hunks, headersExact); !strings.HasPrefix(got, "--- /etc/hosts\n+++ /etc/hosts\n") {
		t.Errorf("an absolute path got a prefix: %q", got[:40])
	}
}

// applyBlocks is a reference SEARCH/REPLACE applier: each SEARCH must occur
// once, whole lines.
func applyBlocks(t *testing.T, old string, blocks []block) string {
	t.Helper()
	finalNL := strings.HasSuffix(old, "\n")
	lines := fileLines([]byte(old))
	for _, b := range blocks {
		if n := countSeq(lines, b.search); n != 1 {
			t.Fatalf("SEARCH %q occurs %d times", b.search, n)
		}
		for i := range lines {
			if i+len(b.search) <= len(lines) && slices.Equal(lines[i:i+len(b.search)], b.search) {
				lines = slices.Concat(lines[:i], b.replace, lines[i+len(b.search):])
				break
			}
		}
	}
	out := strings.Join(lines, "\n")
	if finalNL {
		out += "\n"
	}
	return out
}

func TestSearchReplace(t *testing.T) {
	hunks := mustHunks(t)
	blocks := blocksOf(hunks)
	if len(blocks) != 2 {
		t.Fatalf("%d blocks, want 2", len(blocks))
	}
	wantSearch := []string{"import \"fmt\"", "", "func A() {", "\tfmt.Println(\"a\")", "}", "", "func B() {"}
	wantReplace := []string{"import \"fmt\"", "", "func A() {", "\tfmt.Println(\"A\")", "\tfmt.Println(\"again\")", "}", "", "func B() {"}
	if !slices.Equal(blocks[0].search, wantSearch) || !slices.Equal(blocks[0].replace, wantReplace) {
		t.Errorf("block 1 = %q / %q", blocks[0].search, blocks[0].replace)
	}
	if ok, i := searchesUnique([]byte(oldText), blocks); !ok {
		t.Errorf("block %d not unique", i)
	}
	if got := applyBlocks(t, oldText, blocks); got != newText {
		t.Errorf("the blocks do not turn old into new:\n%q", got)
	}
	text := renderSearchReplace("p/x.go", blocks)
	if !strings.HasPrefix(text, "p/x.go\n```go\n<<<<<<< SEARCH\nimport \"fmt\"\n") || !strings.HasSuffix(text, ">>>>>>> REPLACE\n```\n") ||
		strings.Count(text, markDivider+"\n") != 2 {
		t.Errorf("renderSearchReplace =\n%s", text)
	}
	// A block whose SEARCH is a lone "}" is not unique.
	if ok, i := searchesUnique([]byte(oldText), []block{{search: []string{"}"}}}); ok || i != 0 {
		t.Error("a lone } counted as unique")
	}
}

func TestFence(t *testing.T) {
	if got := fence("a\nb\n"); got != "```" {
		t.Errorf("fence = %q", got)
	}
	if got := fence("x := `a`\n```\n"); got != "````" {
		t.Errorf("fence around ``` = %q", got)
	}
	whole := renderWholeFile("README.js", []byte("const s = `\n```\n`;"))
	if !strings.Contains(whole, "\nREADME.js\n````javascript\nconst s = `\n```\n`;\n````\n") {
		t.Errorf("renderWholeFile =\n%s", whole)
	}
}

func TestMutations(t *testing.T) {
	hunks := mustHunks(t)
	orig := renderUnified("x.go", hunks, headersExact)

	mis, what, ok := alterContext(hunks)
	if !ok || !strings.Contains(what, "removed line") {
		t.Fatalf("alterContext: %v %q", ok, what)
	}
	if got := mis[0].lines[3]; got != "-\tchangebenchMismatch.Println(\"a\")" {
		t.Errorf("altered line = %q", got)
	}
	if renderUnified("x.go", hunks, headersExact) != orig {
		t.Error("alterContext changed its input")
	}
	if _, ok := alterBlocks(blocksOf(hunks)); !ok {
		t.Error("alterBlocks found no word")
	}

	broken, _, ok := breakSyntax(hunks, "x.go", []byte(oldText), nil)
	if !ok || broken[0].lines[4] != "+\tfmt.Println(\"A\") (((" {
		t.Errorf("breakSyntax: %v %q", ok, broken[0].lines)
	}
	commentOnly := []hunk{{oldStart: 1, oldCount: 1, newStart: 1, newCount: 2, lines: []string{" x", "+// a comment", "+s := `raw"}}}
	if _, _, ok := breakSyntax(commentOnly, "x.go", []byte("x\n"), nil); ok {
		t.Error("breakSyntax broke a comment or a raw string")
	}
	// A change of comments only: a hunk appends "(((" at the end.
	file := "package p\n\n// A does.\nfunc A() {}\n\nfunc B() {}\n\nfunc C() {}\n"
	comments := []hunk{{oldStart: 3, oldCount: 2, newStart: 3, newCount: 2, lines: []string{"-// A does.", "+// A does it.", " func A() {}"}}}
	eof, what, ok := breakSyntax(comments, "x.go", []byte(file), nil)
	if !ok || len(eof) != 2 || !strings.Contains(what, "appends") {
		t.Fatalf("breakSyntax at the end: %v %q %+v", ok, what, eof)
	}
	if got := applyHunks(t, file, eof); got != "package p\n\n// A does it.\nfunc A() {}\n\nfunc B() {}\n\nfunc C() {}\n(((\n" {
		t.Errorf("the end hunk gives %q", got)
	}
	if _, err := parseHunks(renderUnified("x.go", eof, headersExact)); err != nil {
		t.Error(err)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	name, value := credential(rng, false)
	if name != "awsKey" || !regexp.MustCompile(`^AKIA[A-Z2-7]{16}$`).MatchString(value) {
		t.Errorf("aws credential %s = %q", name, value)
	}
	name, value = credential(rng, true)
	if name != "githubToken" || !regexp.MustCompile(`^ghp_[0-9A-Za-z]{36}$`).MatchString(value) {
		t.Errorf("github credential %s = %q", name, value)
	}
	var sum uint64
	for _, c := range value[34:] {
		sum = sum*62 + uint64(strings.IndexRune("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", c))
	}
	if sum != uint64(crc32.ChecksumIEEE([]byte(value[4:34]))) {
		t.Errorf("github token %q has a wrong checksum", value)
	}
	secret := addSecret(hunks, "x.go", "awsKey", "AKIA0000")
	if secret == nil || secret[0].lines[5] != "+\t// awsKey = \"AKIA0000\"" || secret[0].newCount != 9 || secret[1].newStart != 17 {
		t.Fatalf("addSecret = %+v", secret)
	}
	// The result is still a consistent diff.
	if _, err := parseHunks(renderUnified("x.go", secret, headersExact)); err != nil {
		t.Error(err)
	}
	py := addSecret(hunks, "x.py", "k", "v")
	if !strings.Contains(py[0].lines[5], "# k = \"v\"") {
		t.Errorf("python secret line = %q", py[0].lines[5])
	}

	line, n, ok := ambiguousLine([]byte(oldText))
	if !ok || line != "}" || n != 4 {
		t.Errorf("ambiguousLine = %q %d %v", line, n, ok)
	}
	if _, _, ok := ambiguousLine([]byte("a\nb\n\n\n")); ok {
		t.Error("blank lines made a line ambiguous")
	}
	amb := ambiguousAnswer("x.go", "}")
	if !strings.Contains(amb, "<<<<<<< SEARCH\n}\n=======\n} // changebench\n>>>>>>> REPLACE\n") {
		t.Errorf("ambiguousAnswer =\n%s", amb)
	}
}

func TestCRLFKeepsTheAnswer(t *testing.T) {
	if got := string(toCRLF([]byte("a\nb\n"))); got != "a\r\nb\r\n" {
		t.Errorf("toCRLF = %q", got)
	}
	if got := asBOM.form([]byte("x")); string(got) != "\uFEFFx" {
		t.Errorf("BOM form = %q", got)
	}
	if !hasFinalNewline([]byte("a\n")) || hasFinalNewline([]byte("a")) {
		t.Error("hasFinalNewline")
	}
}

func TestSelection(t *testing.T) {
	items := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	if got := evenly(items, 4); !slices.Equal(got, []int{0, 2, 5, 7}) {
		t.Errorf("evenly(10, 4) = %v", got)
	}
	if got := evenly(items, 40); len(got) != 10 {
		t.Errorf("evenly(10, 40) = %v", got)
	}
	long := []byte("x\n" + strings.Repeat("a", 1001) + "\n")
	if why := exclusion("a.js", long, []byte("y\n")); !strings.Contains(why, "minified") {
		t.Errorf("exclusion of a long line = %q", why)
	}
	if why := exclusion("gen.go", []byte("// Code generated by x. DO NOT EDIT.\npackage p\n"), []byte("package p\n")); !strings.Contains(why, "generated") {
		t.Errorf("exclusion of generated Go = %q", why)
	}
	if why := exclusion("bin/x.js", []byte("a\n"), []byte("b\n")); why == "" {
		t.Error("a never-send path was not left out")
	}
	if why := exclusion("src/x.ts", []byte("a\n"), []byte("b\n")); why != "" {
		t.Errorf("exclusion of a plain file = %q", why)
	}
	if got := describeDifference([]byte("a\nbXc\n"), []byte("a\nbc\n")); !strings.Contains(got, "first difference at byte 3, line 2") {
		t.Errorf("describeDifference = %q", got)
	}
	if byteDiff([]byte("abc"), []byte("abd")) != 1 || byteDiff([]byte("abc"), nil) != 3 || byteDiff([]byte("ab"), []byte("abcd")) != 2 {
		t.Error("byteDiff")
	}
}

func TestParsePkg(t *testing.T) {
	p, err := parsePkg("npm:@scope/pkg@1.0.0..1.1.0")
	if err != nil || p.kind != "npm" || p.name != "@scope/pkg" || p.old != "1.0.0" || p.new != "1.1.0" {
		t.Errorf("parsePkg = %+v, %v", p, err)
	}
	for _, bad := range []string{"golang.org/x/mod@v1..v2", "go:golang.org/x/mod", "go:x@v1", "pip:x@1..2"} {
		if _, err := parsePkg(bad); err == nil {
			t.Errorf("parsePkg(%q) did not fail", bad)
		}
	}
	for _, s := range defaultPackages {
		if _, err := parsePkg(s); err != nil {
			t.Error(err)
		}
	}
}

// TestSpanned: lines a multi-line string or comment crosses are marked,
// so that the syntax-breaking answer never appends to a docstring.
func TestSpanned(t *testing.T) {
	py := "def f():\n    \"\"\"Say it.\n\n    More words.\n    \"\"\"\n    return 'x'  # \"\"\" not a docstring\n"
	if got, want := spanned([]byte(py), "m.py"), []bool{false, true, true, true, true, false, false}; !slices.Equal(got, want) {
		t.Errorf("python: %v, want %v", got, want)
	}
	goSrc := "var s = `a\nb`\n/* c\nd */ x := 1\ny := \"/*\"\n"
	if got, want := spanned([]byte(goSrc), "m.go"), []bool{true, true, true, true, false, false}; !slices.Equal(got, want) {
		t.Errorf("go: %v, want %v", got, want)
	}
	// A hunk whose first added line is inside a docstring breaks the next
	// code line instead.
	nw := "def f():\n    \"\"\"Doc line\n    \"\"\"\n    return 1\n"
	hunks := []hunk{{oldStart: 1, oldCount: 1, newStart: 1, newCount: 4, lines: []string{" def f():", "+    \"\"\"Doc line", "+    \"\"\"", "+    return 1"}}}
	broken, _, ok := breakSyntax(hunks, "m.py", []byte("def f():\n"), []byte(nw))
	if !ok || broken[0].lines[3] != "+    return 1 (((" || broken[0].lines[1] != "+    \"\"\"Doc line" {
		t.Errorf("broken %q, ok %v", broken[0].lines, ok)
	}
}
