package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBrokenFile: the broken buffer is made of the first Go file of
// 40–48 KB by path when the corpus has no os/exec/exec.go, every indented
// line opens "({[" that nothing closes, no line ends a block with "}", and
// it is cut at a line break within 43 KB.
func TestBrokenFile(t *testing.T) {
	root := t.TempDir()
	var sb strings.Builder
	sb.WriteString("package p\n\n")
	for i := 0; sb.Len() < 46<<10; i++ {
		fmt.Fprintf(&sb, "func F%d() {\n\tx := %d\n\t_ = x\n}\n\n", i, i)
	}
	write := func(rel, text string) sourceFile {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return sourceFile{rel: rel, size: int64(len(text))}
	}
	files := []sourceFile{
		write("z/big.go", sb.String()),
		write("a/small.go", "package a\n"),
		write("b/big.go", sb.String()),
	}
	e, err := brokenFile(root, files)
	if err != nil {
		t.Fatal(err)
	}
	if e.rel != "b/big.go" {
		t.Errorf("rel = %q, want b/big.go (the first by path)", e.rel)
	}
	if len(e.text) > 43<<10 || !strings.HasSuffix(e.text, "\n") {
		t.Errorf("%d bytes, ends %q; want at most 43 KB, cut at a line break", len(e.text), e.text[len(e.text)-5:])
	}
	if strings.Contains(e.text, "}\n") || !strings.Contains(e.text, "\n\t({[x := 1\n") {
		t.Errorf("not broken as described:\n%.200s", e.text)
	}
	if e.lines != strings.Count(e.text, "\n") {
		t.Errorf("lines = %d, want %d", e.lines, strings.Count(e.text, "\n"))
	}
}
