package syntax

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sitter "github.com/smacker/go-tree-sitter"

	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/tools/corpus"
)

// goldenSamples returns the sources of testdata/<lang>.txtar.
func goldenSamples(t testing.TB, lang Language) [][]byte {
	t.Helper()
	var out [][]byte
	for _, f := range indextest.ReadGolden(t, filepath.Join("testdata", string(lang)+".txtar")).Archive.Files {
		if LanguageForPath(f.Name) == lang {
			out = append(out, f.Data)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s sources in testdata/%s.txtar", lang, lang)
	}
	return out
}

// TestQueries checks every language's query: it compiles, its capture
// names belong to the convention of doc.go, its #match? regexps compile, no
// capture is quantified (a match then has at most one node per capture
// name, which bounds what drainMatches reads), and every pattern matches
// at least once in the language's golden sources (no dead patterns).
func TestQueries(t *testing.T) {
	for _, lang := range Languages {
		t.Run(string(lang), func(t *testing.T) {
			s := specs[lang]
			cq, err := s.compiled()
			if err != nil {
				t.Fatal(err)
			}
			q := cq.q
			for i := range q.CaptureCount() {
				if _, ok := parseCapture(q.CaptureNameForId(i)); !ok {
					t.Errorf("capture @%s is not in the convention", q.CaptureNameForId(i))
				}
			}
			if q.CaptureCount() > maxCaptures {
				t.Errorf("%d capture names, more than maxCaptures (%d)", q.CaptureCount(), maxCaptures)
			}
			for p := range q.PatternCount() {
				for c := range q.CaptureCount() {
					switch q.CaptureQuantifierForId(p, c) {
					case sitter.QuantifierZeroOrMore, sitter.QuantifierOneOrMore:
						t.Errorf("pattern %d: capture @%s is quantified", p, q.CaptureNameForId(c))
					}
				}
				for _, steps := range q.PredicatesForPattern(p) {
					op := q.StringValueForId(steps[0].ValueId)
					if op == "match?" || op == "not-match?" {
						if _, err := regexp.Compile(q.StringValueForId(steps[2].ValueId)); err != nil {
							t.Errorf("pattern %d: #%s: %v", p, op, err)
						}
					}
				}
			}

			// A query that appends to another language's file is covered by
			// that language's sources too.
			samples := goldenSamples(t, lang)
			switch lang {
			case TSX:
				samples = append(samples, goldenSamples(t, TypeScript)...)
			case CPP:
				samples = append(samples, goldenSamples(t, C)...)
			}
			matched := make([]bool, q.PatternCount())
			for _, src := range samples {
				tree, err := s.parse(context.Background(), nil, src)
				if err != nil {
					t.Fatal(err)
				}
				// No start depth limit: a pattern only needed without it
				// (Go's @local) must match too.
				qc := sitter.NewQueryCursor()
				qc.Exec(q, tree.RootNode())
				drainMatches(qc, cq, src, func(pattern int, _ []rawCapture) { matched[pattern] = true })
				qc.Close()
				tree.Close()
			}
			src, _ := querySource(s)
			for p, ok := range matched {
				if !ok {
					t.Errorf("pattern %d matches nothing in testdata/%s.txtar:\n%s", p, lang, patternText(string(src), p))
				}
			}
		})
	}
}

// patternText returns the text of the p-th top-level pattern of a query,
// for error messages.
func patternText(query string, p int) string {
	depth, start, n := 0, -1, 0
	inString, inComment := false, false
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case inComment:
			inComment = c != '\n'
			continue
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
			continue
		case c == ';':
			inComment = true
			continue
		case c == '"':
			inString = true
			continue
		}
		switch c {
		case '(', '[':
			if depth == 0 {
				start = i
			}
			depth++
		case ')', ']':
			depth--
			if depth == 0 {
				if n == p {
					end := i + 1
					for end < len(query) && query[end] != '\n' {
						end++
					}
					return query[start:end]
				}
				n++
			}
		}
	}
	return fmt.Sprintf("(pattern %d not found)", p)
}

// TestDrainPaths checks that reading matches directly from the C cursor
// (with the start depth limit and predicates applied in Go) gives the same
// Files as go-tree-sitter's NextMatch and FilterPredicates without any
// depth limit, on the golden sources and a sample of the Go corpus (every
// file of it agrees but one with syntax errors, which the limit may cost
// declarations and is left out).
func TestDrainPaths(t *testing.T) {
	if !queryCursorOK {
		t.Skip("the C query cursor is out of reach: only the go-tree-sitter path runs")
	}
	type sample struct {
		lang Language
		name string
		src  []byte
	}
	var samples []sample
	for _, lang := range Languages {
		for i, src := range goldenSamples(t, lang) {
			samples = append(samples, sample{lang, fmt.Sprintf("%s/%d", lang, i), src})
		}
	}
	if files, err := corpus.GoFiles(); err == nil {
		step := 97
		if testing.Short() {
			step = 997
		}
		for i := 0; i < len(files); i += step {
			samples = append(samples, sample{Go, files[i].Path, files[i].Data})
		}
	}
	for _, sm := range samples {
		fast, err := Parse(context.Background(), sm.lang, sm.src)
		if err != nil {
			t.Fatal(err)
		}
		fastCursor.Store(false)
		slow, err := Parse(context.Background(), sm.lang, sm.src)
		fastCursor.Store(true)
		if err != nil {
			t.Fatal(err)
		}
		if specs[sm.lang].startDepth > 0 && slow.HasErrors {
			// Error recovery can push a declaration below the depth where
			// patterns may start (a Go import inside an ERROR node).
			continue
		}
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Errorf("%s: direct cursor vs go-tree-sitter mismatch (-go-tree-sitter +direct):\n%s", sm.name, diff)
		}
	}
}

func TestRustUse(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"std::io", []string{"std::io"}},
		{"crate::a::b as c", []string{"crate::a::b"}},
		{"super::*", []string{"super::*"}},
		{"self::x", []string{"self::x"}},
		{"a::{b, c::{self, d as e}, f::*}", []string{"a::b", "a::c", "a::c::d", "a::f::*"}},
		{"std::collections::{HashMap, hash_map::{self, Entry}}", []string{"std::collections::HashMap", "std::collections::hash_map", "std::collections::hash_map::Entry"}},
		{"{a, b::c}", []string{"a", "b::c"}},
		{"::std::fmt", []string{"std::fmt"}},
		{"a::{\n  // comment\n  b, /* c */ d,\n}", []string{"a::b", "a::d"}},
		{"r#type::x", []string{"r#type::x"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, rustUse(tt.in)); diff != "" {
			t.Errorf("rustUse(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestImportPaths(t *testing.T) {
	tests := []struct {
		name string
		fn   func(string) []string
		in   string
		want string
	}{
		{"go", unquoteGo, `"net/http"`, "net/http"},
		{"go raw", unquoteGo, "`os`", "os"},
		{"js single", unquoteJS, `'./a'`, "./a"},
		{"js double", unquoteJS, `"b"`, "b"},
		{"include local", unquoteInclude, `"util.h"`, "util.h"},
		{"include system", unquoteInclude, `<sys/types.h>`, "sys/types.h"},
		{"java", javaImport, "import java.util.List;", "java.util.List"},
		{"java static wildcard", javaImport, "import static java.lang.Math.*;", "java.lang.Math.*"},
		{"java package named static", javaImport, "import static.x.Y;", "static.x.Y"},
		{"java comment", javaImport, "import /* c */ a.b;", "a.b"},
		{"csharp", csharpUsing, "using System.Text;", "System.Text"},
		{"csharp static", csharpUsing, "using static System.Math;", "System.Math"},
		{"csharp alias", csharpUsing, "using Col = System.Collections.Generic;", "System.Collections.Generic"},
		{"csharp global", csharpUsing, "global using Acme.Core;", "Acme.Core"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff([]string{tt.want}, tt.fn(tt.in)); diff != "" {
				t.Errorf("%q mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		name string
		fn   func(string) string
		in   string
		want string
	}{
		{"go pointer generic", goTypeName, "*Circle[K, V]", "Circle"},
		{"go parens", goTypeName, "(*T)", "T"},
		{"go qualified", goTypeName, "*io.Reader", "io.Reader"},
		{"go comment", goTypeName, "T /* x */", "T"},
		{"type args", stripTypeArgs, "Map<K, List<V>>", "Map"},
		{"rust impl", rustTypeName, "&'a mut Vec<T>", "Vec"},
		{"rust path", rustTypeName, "a::S<T>", "a.S"},
		{"rust bound lifetime", rustBase, "'static", ""},
		{"rust bound maybe", rustBase, "?Sized", ""},
		{"rust bound", rustBase, "Into<f64>", "Into"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.fn(tt.in)); diff != "" {
				t.Errorf("%q mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
	for _, tt := range []struct {
		name string
		want bool
	}{{"Foo", true}, {"foo", false}, {"Éclair", true}, {"_x", false}} {
		if got := upperInitial(tt.name); got != tt.want {
			t.Errorf("upperInitial(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
	for _, tt := range []struct {
		name string
		want bool
	}{{"run", true}, {"_run", false}, {"__init__", true}, {"__x", false}, {"____", false}} {
		if got := pythonPublic(tt.name); got != tt.want {
			t.Errorf("pythonPublic(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestDocComments(t *testing.T) {
	tests := []struct {
		name string
		fn   func([]byte) bool
		in   string
		want bool
	}{
		{"jsdoc", jsDoc, "/** x */", true},
		{"triple slash", jsDoc, "/// x", true},
		{"empty block", jsDoc, "/**/", false},
		{"plain block", jsDoc, "/* x */", false},
		{"line", jsDoc, "// x", false},
		{"rust outer", rustDoc, "/// x", true},
		{"rust four slashes", rustDoc, "//// x", false},
		{"rust inner", rustDoc, "//! x", false},
		{"rust block", rustDoc, "/** x */", true},
		{"rust three stars", rustDoc, "/*** x */", false},
	}
	for _, tt := range tests {
		if got := tt.fn([]byte(tt.in)); got != tt.want {
			t.Errorf("%s: %q = %v, want %v", tt.name, tt.in, got, tt.want)
		}
	}
}

// TestRefs checks the reference scanner on the literals and comments of
// each language: nothing inside strings or comments is a reference, code
// inside interpolations is.
func TestRefs(t *testing.T) {
	tests := []struct {
		lang Language
		src  string
		want string
	}{
		{Go, "package p\nvar _ = `raw a` + \"s \\\" b\" + 'c' + d // e\n/* f */", "d p"},
		{TypeScript, "let v = `t ${x + `n ${y}`} u` + 'a' + \"b\" + /re[/]g/.z + w / q / r; // c", "q r v w x y z"},
		{JavaScript, "#!/usr/bin/env node\nlet v = a\n/ b / c", "a b c v"},
		{Python, "v = f\"{a!r:>{w}} {{b}}\" + rb'c' + '''d\n''' + e # f", "a e v w"},
		{Python, "v = \"\"\"x \"\" y\"\"\" + z", "v z"},
		{Java, "class A { String s = \"\"\"\n a \"\"\" + b + 'c'; }", "A String b s"},
		{Rust, "fn f<'a>() { let s = r#\"a \"b\"#; let c = 'x'; let d = b'y'; /* /* e */ f */ g::<'a>(); r#type }", "c d f g s type"},
		{C, "#include <stdio.h>\n#define X(a) a + b\nint v = L\"s\" + 'c' + u8\"t\";\n#pragma once x", "X a b v"},
		{CPP, "auto s = R\"d(a )\" b)d\" + c + 1'000;", "c s"},
		{CSharp, "#region Some words\nvar s = $\"{a:N2} {{b}}\" + @\"c \"\" d\" + \"\"\"e\"\"\" + $@\"{f}\";\n#endregion", "a f s"},
	}
	for _, tt := range tests {
		t.Run(string(tt.lang), func(t *testing.T) {
			x := &extractor{s: specs[tt.lang], src: []byte(tt.src)}
			got := strings.Join(x.scan(nil), " ")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("refs of %q mismatch (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}
