package relate

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseModulePath(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "module example.com/m\n\ngo 1.22\n", "example.com/m"},
		{"comment", "// header\nmodule example.com/m // trailing\n", "example.com/m"},
		{"quoted", "module \"example.com/q\"\n", "example.com/q"},
		{"raw", "module `example.com/r`\n", "example.com/r"},
		{"quoted with slashes", "module \"example.com/a//b\" // c\n", "example.com/a//b"},
		{"block", "module (\n\t// why\n\texample.com/b\n)\n", "example.com/b"},
		{"one-line block", "module (example.com/c)\n", "example.com/c"},
		{"crlf", "module example.com/w\r\ngo 1.21\r\n", "example.com/w"},
		{"std", "module std\n", "std"},
		{"commented out", "// module example.com/old\nmodule example.com/new\n", "example.com/new"},
		{"not a directive", "modulex foo\n", ""},
		{"none", "go 1.22\n", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		if got := parseModulePath([]byte(tt.in)); got != tt.want {
			t.Errorf("%s: parseModulePath(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestJSONC(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"line comment", "{\"a\": 1 // one\n}", `{"a":1}`},
		{"block comment", `{/* x */"a": /* y */ 1}`, `{"a":1}`},
		{"trailing commas", `{"a": [1, 2,], "b": {"c": 3,},}`, `{"a":[1,2],"b":{"c":3}}`},
		{"comma before comment", "{\"a\": 1, // last\n}", `{"a":1}`},
		{"slashes in strings", `{"a": "http://x/*y*/", "b": "q\"//"}`, `{"a":"http://x/*y*/","b":"q\"//"}`},
		{"bom", "\xef\xbb\xbf{\"a\": 1}", `{"a":1}`},
	}
	for _, tt := range tests {
		var v any
		if err := json.Unmarshal(jsonc([]byte(tt.in)), &v); err != nil {
			t.Errorf("%s: %v (sanitized %q)", tt.name, err, jsonc([]byte(tt.in)))
			continue
		}
		got, _ := json.Marshal(v)
		if string(got) != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestTSConfig(t *testing.T) {
	src := workspace(t, `
-- base.json --
{
  "compilerOptions": {
    "baseUrl": "./lib",
    "paths": {"a/*": ["x/*", "y/*"], "a/b/*": ["z/*"]},
  },
}
-- cycle/tsconfig.json --
{"extends": "./other.json"}
-- cycle/other.json --
{"extends": "./tsconfig.json", "compilerOptions": {"baseUrl": "."}}
-- app/tsconfig.json --
{
  "extends": ["../base.json", "@tsconfig/node20/tsconfig.json"],
  "compilerOptions": {
    // override one option only
    "paths": {"@/*": ["src/*"]},
  }
}
-- broken/tsconfig.json --
{ "compilerOptions": { "baseUrl": ".",
`)
	e := loadEnv(src, src.Paths())
	got := map[string]tsOptions{}
	for dir, o := range e.ts {
		got[dir] = *o
	}
	want := map[string]tsOptions{
		"cycle": {baseURL: "cycle", hasBaseURL: true},
		// Paths of the extending file are relative to the inherited
		// baseUrl.
		"app":    {baseURL: "lib", hasBaseURL: true, paths: []tsPath{{"@/*", []string{"src/*"}}}, pathsBase: "lib", hasPaths: true},
		"broken": {},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(tsOptions{}, tsPath{})); diff != "" {
		t.Errorf("tsconfig options (-want +got):\n%s", diff)
	}
	for _, dep := range []string{"base.json", "cycle/other.json", "cycle/tsconfig.json"} {
		if !e.affects(dep) {
			t.Errorf("a change to %s does not rebuild", dep)
		}
	}

	paths := []tsPath{{"a/*", []string{"x/*", "y/*"}}, {"a/b/*", []string{"z/*"}}, {"exact", []string{"e"}}, {"*", []string{"any/*"}}}
	matches := []struct {
		spec string
		want []string
		ok   bool
	}{
		{"a/q", []string{"x/q", "y/q"}, true},
		{"a/b/q", []string{"z/q"}, true},
		{"exact", []string{"e"}, true},
		{"other", []string{"any/other"}, true},
	}
	for _, m := range matches {
		got, ok := matchTSPaths(paths, m.spec)
		if diff := cmp.Diff(m.want, got); diff != "" || ok != m.ok {
			t.Errorf("matchTSPaths(%q) = %v, %v (-want +got):\n%s", m.spec, got, ok, diff)
		}
	}
	if _, ok := matchTSPaths(paths[:2], "b"); ok {
		t.Error("matchTSPaths matched an unrelated specifier")
	}
}

func TestRustUsePaths(t *testing.T) {
	tests := map[string][]string{
		"crate::a::B":                         {"crate::a::B"},
		"crate::a::{b, c::{d, self}, e as f}": {"crate::a::b", "crate::a::c::d", "crate::a::c", "crate::a::e"},
		"super::*":                            {"super"},
		"self::x as y;":                       {"self::x"},
		"{a, b}":                              {"a", "b"},
		"":                                    nil,
	}
	for in, want := range tests {
		if diff := cmp.Diff(want, rustUsePaths(in)); diff != "" {
			t.Errorf("rustUsePaths(%q) (-want +got):\n%s", in, diff)
		}
	}
}

func TestSplitBase(t *testing.T) {
	tests := []struct {
		in   string
		qual []string
		name string
	}{
		{"io.Reader", []string{"io"}, "Reader"},
		{"*sync.Mutex", []string{"sync"}, "Mutex"},
		{"a::b::Trait<T>", []string{"a", "b"}, "Trait"},
		{"List[int]", []string{}, "List"},
		{"virtual public Base", []string{}, "Base"},
		{"Map<K, V>", []string{}, "Map"},
		{"::Global", []string{}, "Global"},
		{"", nil, ""},
	}
	for _, tt := range tests {
		qual, name := splitBase(tt.in)
		if diff := cmp.Diff(tt.qual, qual); diff != "" || name != tt.name {
			t.Errorf("splitBase(%q) = %v, %q; want %v, %q", tt.in, qual, name, tt.qual, tt.name)
		}
	}
}

func TestParseCargoLib(t *testing.T) {
	tests := []struct {
		in         string
		name, path string
		ok         bool
	}{
		{"[package]\nname = \"my-crate\" # comment\n", "my_crate", "src/lib.rs", true},
		{"[package]\nname = 'x'\n[lib]\nname = \"y\"\npath = \"./lib/y.rs\"\n", "y", "lib/y.rs", true},
		{"[workspace]\nmembers = [\"a\"]\n", "", "", false},
		{"[dependencies]\nname = \"not-me\"\n[package]\nname = \"me\"\n", "me", "src/lib.rs", true},
	}
	for _, tt := range tests {
		name, path, ok := parseCargoLib([]byte(tt.in))
		if name != tt.name || path != tt.path || ok != tt.ok {
			t.Errorf("parseCargoLib(%q) = %q, %q, %v; want %q, %q, %v", tt.in, name, path, ok, tt.name, tt.path, tt.ok)
		}
	}
}
