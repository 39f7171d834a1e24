package change

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parsed is a readable summary of a FileChange.
type parsed struct {
	Path   string
	Action Action
	Line   int
	// Hunks are "@@ oldStart,oldCount,newCount" then the lines as
	// written, "\" marking the side without a final newline.
	Hunks  []string
	Blocks []string
	Whole  string
}

func summarize(a *Answer) []parsed {
	var out []parsed
	for _, fc := range a.Files {
		p := parsed{Path: fc.Path, Action: fc.Action, Line: fc.Line}
		for _, h := range fc.hunks {
			var b strings.Builder
			b.WriteString("@@ " + itoa(h.oldStart) + "," + itoa(h.oldCount) + "," + itoa(h.newCount))
			for _, l := range h.lines {
				b.WriteString("|" + string(l.op) + l.text)
			}
			if h.oldNoNL {
				b.WriteString(`|\old`)
			}
			if h.newNoNL {
				b.WriteString(`|\new`)
			}
			p.Hunks = append(p.Hunks, b.String())
		}
		for _, bl := range fc.blocks {
			p.Blocks = append(p.Blocks, strings.Join(bl.search, "|")+" => "+strings.Join(bl.replace, "|"))
		}
		if fc.whole != nil {
			p.Whole = *fc.whole
		}
		out = append(out, p)
	}
	return out
}

func itoa(n int) string {
	if n < 0 {
		return "-"
	}
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	return itoa(n/10) + digits[n%10:n%10+1]
}

func TestParse(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		format Format
		want   []parsed
	}{
		{
			name:   "unified with counts",
			answer: "--- a/x.go\n+++ b/x.go\n@@ -1,3 +1,3 @@ func f\n a\n-b\n+c\n d\n",
			format: FormatUnified,
			want:   []parsed{{Path: "x.go", Action: ActionModify, Line: 1, Hunks: []string{"@@ 1,3,3| a|-b|+c| d"}}},
		},
		{
			name:   "trailing blank lines are not context when greedy",
			answer: "--- a/x.go\n+++ b/x.go\n@@ @@\n a\n-b\n\n d\n\n\nprose\n",
			format: FormatUnified,
			want:   []parsed{{Path: "x.go", Action: ActionModify, Line: 1, Hunks: []string{"@@ -,-,-| a|-b| | d"}}},
		},
		{
			name:   "counts keep a trailing empty line that ends cleanly",
			answer: "--- a/x.go\n+++ b/x.go\n@@ -1,2 +1,2 @@\n-a\n+b\n\n--- a/y.go\n+++ b/y.go\n@@ -1 +1 @@\n-a\n+b\n",
			format: FormatUnified,
			want: []parsed{
				{Path: "x.go", Action: ActionModify, Line: 1, Hunks: []string{"@@ 1,2,2|-a|+b| "}},
				{Path: "y.go", Action: ActionModify, Line: 7, Hunks: []string{"@@ 1,-,-|-a|+b"}},
			},
		},
		{
			name:   "counts that do not end cleanly are ignored",
			answer: "--- a/x.go\n+++ b/x.go\n@@ -1,1 +1,1 @@\n-a\n+b\n c\n",
			format: FormatUnified,
			want:   []parsed{{Path: "x.go", Action: ActionModify, Line: 1, Hunks: []string{"@@ 1,1,1|-a|+b| c"}}},
		},
		{
			name:   "removed line starting with two dashes",
			answer: "--- a/q.sql\n+++ b/q.sql\n@@ @@\n a\n--- comment\n b\n",
			format: FormatUnified,
			want:   []parsed{{Path: "q.sql", Action: ActionModify, Line: 1, Hunks: []string{"@@ -,-,-| a|--- comment| b"}}},
		},
		{
			name:   "no newline markers",
			answer: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n",
			format: FormatUnified,
			want:   []parsed{{Path: "x", Action: ActionModify, Line: 1, Hunks: []string{`@@ 1,-,-|-a|+b|\old|\new`}}},
		},
		{
			name:   "create and delete",
			answer: "diff --git a/n.txt b/n.txt\nnew file mode 100644\nindex 0000000..e69de29\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+x\ndiff --git a/o.txt b/o.txt\ndeleted file mode 100644\n--- a/o.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-y\n",
			format: FormatUnified,
			want: []parsed{
				{Path: "n.txt", Action: ActionCreate, Line: 1, Hunks: []string{"@@ 0,0,-|+x"}},
				{Path: "o.txt", Action: ActionDelete, Line: 8, Hunks: []string{"@@ 1,-,0|-y"}},
			},
		},
		{
			name:   "empty new file from git headers alone",
			answer: "diff --git a/empty.txt b/empty.txt\nnew file mode 100644\nindex 0000000..e69de29\n",
			format: FormatUnified,
			want:   []parsed{{Path: "empty.txt", Action: ActionCreate, Line: 1}},
		},
		{
			name:   "one side prefixed",
			answer: "--- a/x.go\n+++ x.go\n@@ @@\n-a\n+b\n",
			format: FormatUnified,
			want:   []parsed{{Path: "x.go", Action: ActionModify, Line: 1, Hunks: []string{"@@ -,-,-|-a|+b"}}},
		},
		{
			name:   "a real directory named a",
			answer: "--- a/x.go\n+++ a/x.go\n@@ @@\n-a\n+b\n",
			format: FormatUnified,
			want:   []parsed{{Path: "a/x.go", Action: ActionModify, Line: 1, Hunks: []string{"@@ -,-,-|-a|+b"}}},
		},
		{
			name:   "search/replace blocks of two files",
			answer: "a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\n=======\ny = 3\n>>>>>>> REPLACE\n```\n\nb/c.py\n<<<<<<< SEARCH\nz\n=======\n>>>>>>> REPLACE\n",
			format: FormatSearchReplace,
			want: []parsed{
				{Path: "a.py", Action: ActionModify, Line: 3, Blocks: []string{"x = 1 => x = 2", " => y = 3"}},
				{Path: "b/c.py", Action: ActionModify, Line: 16, Blocks: []string{"z => "}},
			},
		},
		{
			name:   "whole files",
			answer: "Here:\n\n**src/a.go**\n```go\npackage a\n```\n\n```python:b.py\nprint(1)\n```\n\n```go\nfmt.Println()\n```\n",
			format: FormatWholeFile,
			want: []parsed{
				{Path: "src/a.go", Action: ActionModify, Line: 3, Whole: "package a\n"},
				{Path: "b.py", Action: ActionModify, Line: 8, Whole: "print(1)\n"},
			},
		},
		{
			name:   "unclosed fence runs to the end",
			answer: "a.txt\n```\none\ntwo",
			format: FormatWholeFile,
			want:   []parsed{{Path: "a.txt", Action: ActionModify, Line: 1, Whole: "one\ntwo\n"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, rej := Parse(tc.answer)
			if rej != nil {
				t.Fatalf("rejected: %s", rej.ErrorContext.Message)
			}
			if a.Format != tc.format {
				t.Errorf("format %q, want %q", a.Format, tc.format)
			}
			if diff := cmp.Diff(tc.want, summarize(a)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPathLine(t *testing.T) {
	tests := []struct {
		line string
		want string
	}{
		{"main.go", "main.go"},
		{"  src/main.go  ", "src/main.go"},
		{"**src/main.go**", "src/main.go"},
		{"`src/main.go`", "src/main.go"},
		{"### src/main.go", "src/main.go"},
		{"# `main.go`", "main.go"},
		{"File: main.go", "main.go"},
		{"**File:** `main.go`", "main.go"},
		{"filename: main.go", "main.go"},
		{"main.go:", "main.go"},
		{"`main.go`:", "main.go"},
		{"./cmd/x/main.go", "cmd/x/main.go"},
		{`src\win.cs`, "src/win.cs"},
		{".gitignore", ".gitignore"},
		{"src/Makefile", "src/Makefile"},
		{"__init__.py", "__init__.py"},
		{"Makefile", ""},
		{"#include <stdio.h>", ""},
		{"#!/bin/sh", ""},
		{"https://example.com/a.go", ""},
		{"www.example.com", ""},
		{"Here is main.go", ""},
		{"v1.2", ""},
		{"etc.", ""},
		{"e.g.", ""},
		{"src/", ""},
		{"- item.go", ""},
		{"+added.go", ""},
		{"f(x.go)", ""},
		{"", ""},
	}
	for _, tc := range tests {
		got, ok := pathLine(tc.line)
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("pathLine(%q) = %q, %v; want %q", tc.line, got, ok, tc.want)
		}
	}
}

func TestInfoPath(t *testing.T) {
	tests := []struct{ info, want string }{
		{"go", ""},
		{"diff", ""},
		{"python3.11", ""},
		{"go:src/a.go", "src/a.go"},
		{"go src/a.go", "src/a.go"},
		{"a.go", "a.go"},
		{"go title=a.go", ""},
		{"go some words", ""},
	}
	for _, tc := range tests {
		if got := infoPath(tc.info); got != tc.want {
			t.Errorf("infoPath(%q) = %q, want %q", tc.info, got, tc.want)
		}
	}
}

func TestHeaderPaths(t *testing.T) {
	tests := []struct{ line, want string }{
		{"a/x.go", "a/x.go"},
		{"a/x.go\t2024-01-01 00:00:00", "a/x.go"},
		{`"a/sp ace.go"`, "a/sp ace.go"},
		{`"a/tab\there.go"`, "a/tab\there.go"},
		{`"a/caf\303\251.go"`, "a/café.go"},
		{`"a/bad`, `"a/bad`},
	}
	for _, tc := range tests {
		if got := headerPath(tc.line); got != tc.want {
			t.Errorf("headerPath(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
	git := []struct{ rest, want string }{
		{"a/x.go b/x.go", "x.go"},
		{"a/b c.go b/b c.go", "b c.go"},
		{"x.go x.go", "x.go"},
		{`"a/sp ace.go" "b/sp ace.go"`, "sp ace.go"},
	}
	for _, tc := range git {
		if got := gitLinePath(tc.rest); got != tc.want {
			t.Errorf("gitLinePath(%q) = %q, want %q", tc.rest, got, tc.want)
		}
	}
}

func TestHunkHeader(t *testing.T) {
	tests := []struct {
		line                         string
		oldStart, oldCount, newCount int
		header                       bool
	}{
		{"@@ -1,3 +1,4 @@", 1, 3, 4, true},
		{"@@ -1,3 +1,4 @@ func f() {", 1, 3, 4, true},
		{"@@ -10 +12 @@", 10, -1, -1, true},
		{"@@ @@", -1, -1, -1, true},
		{"@@", -1, -1, -1, true},
		{"@@ -0,0 +1 @@", 0, 0, -1, true},
		{"@@ -x,y +z @@", -1, -1, -1, false},
		{"@@annotation", -1, -1, -1, false},
	}
	for _, tc := range tests {
		h := parseHunkHeader(tc.line)
		if h.oldStart != tc.oldStart || h.oldCount != tc.oldCount || h.newCount != tc.newCount {
			t.Errorf("%q: %d,%d,%d; want %d,%d,%d", tc.line, h.oldStart, h.oldCount, h.newCount, tc.oldStart, tc.oldCount, tc.newCount)
		}
		if got := isHunkHeader(tc.line); got != tc.header {
			t.Errorf("isHunkHeader(%q) = %v", tc.line, got)
		}
	}
}

// TestParseLarge: Parse of answers of several MiB of adversarial shapes
// completes (each line is looked at a bounded number of times).
func TestParseLarge(t *testing.T) {
	size := 4 << 20
	if raceEnabled {
		size = 512 << 10
	}
	shapes := []struct{ name, answer string }{
		{"hunk lines", "--- a/x\n+++ b/x\n@@ -1,999999 +1,999999 @@\n" + strings.Repeat(" a\n-b\n+c\n\n", size/10)},
		{"empty lines", "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n" + strings.Repeat("\n", size)},
		{"fence openers", strings.Repeat("```\n", size/4)},
		{"path lines", strings.Repeat("a/b.go\n", size/7)},
		{"hunk headers", "--- a/x\n+++ b/x\n" + strings.Repeat("@@ -1 +1 @@\n-a\n", size/16)},
		{"long line", "x.go\n```\n" + strings.Repeat("y", size) + "\n```\n"},
		{"search markers", "x.go\n" + strings.Repeat("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", size/48)},
		{"file headers", strings.Repeat("--- a/x\n+++ b/x\n", size/16)},
		{"unclosed search", "x.go\n<<<<<<< SEARCH\n" + strings.Repeat("a\n", size/2)},
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			Parse(sh.answer)
		})
	}
}
