package relate

import (
	"testing"

	"github.com/ctxd/ctxd/index/syntax"
	"github.com/google/go-cmp/cmp"
)

func TestDefinitions(t *testing.T) {
	src := workspace(t, `
-- a/a.go --
package a
def struct Server
def method Serve in Server
def function New
-- b/b.go --
package b
def function New
def method Serve in Client
-- c.txt --
plain text
`)
	g := Build(src)
	tests := []struct {
		name string
		want []SymbolRef
	}{
		{"New", []SymbolRef{
			{Path: "a/a.go", Index: 2, Name: "New", QualifiedName: "New", Kind: syntax.Function},
			{Path: "b/b.go", Index: 0, Name: "New", QualifiedName: "New", Kind: syntax.Function},
		}},
		{"Serve", []SymbolRef{
			{Path: "a/a.go", Index: 1, Name: "Serve", QualifiedName: "Server.Serve", Kind: syntax.Method},
			{Path: "b/b.go", Index: 1, Name: "Serve", QualifiedName: "Client.Serve", Kind: syntax.Method},
		}},
		{"Server.Serve", []SymbolRef{
			{Path: "a/a.go", Index: 1, Name: "Serve", QualifiedName: "Server.Serve", Kind: syntax.Method},
		}},
		{"Missing", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, g.Definitions(tt.name)); diff != "" {
			t.Errorf("Definitions(%q) (-want +got):\n%s", tt.name, diff)
		}
	}
}

// symbolSet renders SymbolRefs as "path#index".
func symbolSet(refs []SymbolRef) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.Path+"#"+r.QualifiedName)
	}
	return out
}

func TestBaseTypes(t *testing.T) {
	src := workspace(t, `
-- go.mod --
module m
-- io/io.go --
package io
def interface Reader
-- bufio/bufio.go --
package bufio
import m/io
def struct Reader : io.Reader
def struct Other : Reader
-- strings/reader.go --
package strings
def struct Reader
-- app/app.go --
package app
import m/io
import m/bufio
def struct Both : io.Reader, bufio.Reader
def struct Plain : Reader
def struct Embeds : *Local
def struct Local
def struct Unknown : Nowhere
-- other/other.go --
package other
def struct Loose : Reader
-- java/a/Base.java --
package com.x
def class Base
def constructor Base in Base
-- java/b/Base.java --
package com.y
def class Base
-- java/a/Impl.java --
package com.x
def class Impl : Base
-- java/c/Qual.java --
package com.z
def class Qual : com.y.Base
-- rs/Cargo.toml --
[package]
-- rs/src/shapes.rs --
def interface Shape
-- rs/src/other.rs --
def interface Shape
-- rs/src/lib.rs --
mod shapes
def struct Circle : crate::shapes::Shape
-- py/animals.py --
def class Animal
-- py/zoo.py --
def class Animal
-- py/dog.py --
def class Dog : animals.Animal
`)
	g := Build(src)
	tests := []struct {
		path   string
		symbol int
		want   []string
	}{
		// Qualifier and imports both pick io.Reader and bufio.Reader.
		{"app/app.go", 0, []string{"bufio/bufio.go#Reader", "io/io.go#Reader"}},
		// Unqualified, several candidates, two in imported packages:
		// both are returned, the others are not.
		{"app/app.go", 1, []string{"bufio/bufio.go#Reader", "io/io.go#Reader"}},
		// A pointer embedding resolves within the file.
		{"app/app.go", 2, []string{"app/app.go#Local"}},
		{"app/app.go", 4, nil},
		// Same directory wins over the rest.
		{"bufio/bufio.go", 1, []string{"bufio/bufio.go#Reader"}},
		// The symbol is never its own base; its qualifier points at io.
		{"bufio/bufio.go", 0, []string{"io/io.go#Reader"}},
		// Nothing narrows: every candidate.
		{"other/other.go", 0, []string{"bufio/bufio.go#Reader", "io/io.go#Reader", "strings/reader.go#Reader"}},
		// Java: same package preferred, constructors are no base types;
		// a fully qualified base picks its package.
		{"java/a/Impl.java", 0, []string{"java/a/Base.java#Base"}},
		{"java/c/Qual.java", 0, []string{"java/b/Base.java#Base"}},
		// Rust: the module path after crate:: matches the file.
		{"rs/src/lib.rs", 0, []string{"rs/src/shapes.rs#Shape"}},
		// Python: the module name qualifies.
		{"py/dog.py", 0, []string{"py/animals.py#Animal"}},
		{"app/app.go", 99, nil},
		{"app/app.go", -1, nil},
		{"missing.go", 0, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, symbolSet(g.BaseTypes(tt.path, tt.symbol))); diff != "" {
			t.Errorf("BaseTypes(%s, %d) (-want +got):\n%s", tt.path, tt.symbol, diff)
		}
	}
}

func TestCallersCallees(t *testing.T) {
	src := workspace(t, `
-- a.go --
package p
def function A
def method String in T
ref B String
-- b.go --
package p
def function B
def struct T
ref A T
-- c.go --
package p
def method String in U
ref String Missing
-- d.txt --
no symbols
`)
	g := Build(src)
	tests := []struct {
		path             string
		callees, callers []string
	}{
		// a.go references String, which a.go itself also defines: only
		// the other definition counts.
		{"a.go", []string{"b.go", "c.go"}, []string{"b.go", "c.go"}},
		{"b.go", []string{"a.go"}, []string{"a.go"}},
		{"c.go", []string{"a.go"}, []string{"a.go"}},
		{"d.txt", nil, nil},
		{"nope.go", nil, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.callees, g.Callees(tt.path)); diff != "" {
			t.Errorf("Callees(%s) (-want +got):\n%s", tt.path, diff)
		}
		if diff := cmp.Diff(tt.callers, g.Callers(tt.path)); diff != "" {
			t.Errorf("Callers(%s) (-want +got):\n%s", tt.path, diff)
		}
	}
	checkReverse(t, g, src)

}

func TestConfigFiles(t *testing.T) {
	src := workspace(t, `
-- Makefile --
all:
-- go.work --
go 1.22
-- go.mod --
module m
-- svc/go.mod --
module m/svc
-- svc/api/x.go --
package api
-- web/package.json --
{}
-- web/app/tsconfig.json --
{}
-- web/app/src/main.tsx --
-- web/app/src/package.json --
{}
-- py/pyproject.toml --
-- py/requirements.txt --
-- py/pkg/setup.py --
def function setup
-- py/pkg/mod.py --
-- java/pom.xml --
-- java/build.gradle.kts --
-- java/src/A.java --
-- rs/Cargo.toml --
-- rs/src/lib.rs --
-- cs/All.sln --
-- cs/App/App.csproj --
-- cs/App/App.Tests.csproj --
-- cs/App/Sub/Code.cs --
-- cs/Lib/Lib.csproj --
-- c/CMakeLists.txt --
-- c/src/Makefile --
all:
-- c/src/x.c --
-- notes/readme.md --
`)
	g := Build(src)
	tests := map[string][]string{
		"svc/api/x.go":         {"svc/go.mod", "go.work", "Makefile"},
		"web/app/src/main.tsx": {"web/app/src/package.json", "web/app/tsconfig.json", "Makefile"},
		"py/pkg/mod.py":        {"py/pkg/setup.py", "py/pyproject.toml", "py/requirements.txt", "Makefile"},
		// A config file is not its own config file.
		"py/pkg/setup.py": {"py/pyproject.toml", "py/requirements.txt", "Makefile"},
		"java/src/A.java": {"java/pom.xml", "java/build.gradle.kts", "Makefile"},
		"rs/src/lib.rs":   {"rs/Cargo.toml", "Makefile"},
		// The nearest directory's projects; a solution never.
		"cs/App/Sub/Code.cs": {"cs/App/App.Tests.csproj", "cs/App/App.csproj", "Makefile"},
		// The nearest Makefile, and the root one.
		"c/src/x.c":       {"c/src/Makefile", "c/CMakeLists.txt", "Makefile"},
		"notes/readme.md": nil,
		"absent.go":       nil,
	}
	for p, want := range tests {
		if diff := cmp.Diff(want, g.ConfigFiles(p)); diff != "" {
			t.Errorf("ConfigFiles(%s) (-want +got):\n%s", p, diff)
		}
	}
}

func TestHops(t *testing.T) {
	src := workspace(t, `
-- go.mod --
module m
-- a/a.go --
package a
import m/b
-- b/b.go --
package b
def function B
-- c/c.go --
package c
ref B
def struct C : x.Base
-- d/d.go --
package d
def interface Base
-- e/e.go --
package e
import m/a
-- f/f.go --
package f
-- g.txt --
`)
	g := Build(src)
	tests := []struct {
		seeds []string
		max   int
		want  map[string]int
	}{
		// a imports b (1); c references B of b (2); c's base Base is in d
		// and c does not reference it by name (3); e imports a (1).
		{[]string{"a/a.go"}, 3, map[string]int{"a/a.go": 0, "b/b.go": 1, "e/e.go": 1, "c/c.go": 2, "d/d.go": 3}},
		{[]string{"a/a.go"}, 1, map[string]int{"a/a.go": 0, "b/b.go": 1, "e/e.go": 1}},
		// Base-type edges count in both directions.
		{[]string{"d/d.go"}, 1, map[string]int{"d/d.go": 0, "c/c.go": 1}},
		{[]string{"f/f.go", "missing.go"}, 5, map[string]int{"f/f.go": 0}},
		{[]string{"a/a.go", "c/c.go"}, 1, map[string]int{"a/a.go": 0, "c/c.go": 0, "b/b.go": 1, "d/d.go": 1, "e/e.go": 1}},
		{[]string{"a/a.go"}, 0, map[string]int{"a/a.go": 0}},
		{[]string{"a/a.go"}, -1, map[string]int{}},
		{nil, 3, map[string]int{}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, g.Hops(tt.seeds, tt.max)); diff != "" {
			t.Errorf("Hops(%v, %d) (-want +got):\n%s", tt.seeds, tt.max, diff)
		}
	}
}

func TestNilGraph(t *testing.T) {
	var g *Graph
	if g.Imports("a") != nil || g.Unresolved("a") != nil || g.Importers("a") != nil ||
		g.Definitions("a") != nil || g.BaseTypes("a", 0) != nil || g.Callees("a") != nil ||
		g.Callers("a") != nil || g.ConfigFiles("a") != nil || len(g.Hops([]string{"a"}, 2)) != 0 {
		t.Error("a nil graph answered something")
	}
	src := workspace(t, "-- a.go --\npackage a\n")
	if diff := cmp.Diff([]string{"a.go"}, keys(g.Update(src, []string{"a.go"}).Hops([]string{"a.go"}, 1))); diff != "" {
		t.Errorf("Update of a nil graph (-want +got):\n%s", diff)
	}
}

func keys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
