package relate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCompileCommands(t *testing.T) {
	paths := []string{"lib/inc/log.h", "src/a.c", "src/b.c"}
	tests := []struct {
		name, json string
		want       cIncludeDirs
	}{{
		name: "command, relative and absolute, joined and separate",
		json: `[{"directory": "/w/p/build", "file": "../src/a.c",
			"command": "cc -I../lib/inc -I /w/p/src -isystem /usr/include -iquote\"../src\" -c ../src/a.c"}]`,
		want: cIncludeDirs{quote: []string{"src"}, dirs: []string{"lib/inc", "src"}},
	}, {
		name: "arguments; -isystem after -I; duplicates dropped",
		json: `[{"directory": "/w/p", "file": "/w/p/src/b.c", "arguments": ["cc", "-isystem", "lib", "-Ilib/inc", "-c", "src/b.c"]},
			{"directory": "/w/p", "file": "/w/p/src/a.c", "arguments": ["cc", "-Ilib/inc"]}]`,
		want: cIncludeDirs{dirs: []string{"lib/inc", "lib"}},
	}, {
		name: "root not found: absolute dirs dropped",
		json: `[{"directory": "/elsewhere", "file": "/elsewhere/x.c", "command": "cc -I/elsewhere/inc"}]`,
	}, {
		name: "not a database",
		json: `{"x": 1}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseCompileCommands([]byte(tt.json), paths)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(cIncludeDirs{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRustResultType(t *testing.T) {
	for in, want := range map[string]string{
		"Store":                       "Store",
		"&'a mut crate::x::Store<T>":  "crate::x::Store",
		"io::Result<Box<dyn Reader>>": "Reader",
		"Option<(u8, u8)>":            "",
		"Result<Self, Error>":         "Self",
		"impl Iterator<Item = u8>":    "Iterator",
		"":                            "",
	} {
		if got := rustResultType(in); got != want {
			t.Errorf("rustResultType(%q) = %q, want %q", in, got, want)
		}
	}
}
