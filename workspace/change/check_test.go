package change

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index/syntax"
)

// TestNewSyntaxError covers the rules for a file that already had syntax
// errors, with error positions made up.
func TestNewSyntaxError(t *testing.T) {
	// after: line 0 kept (was 0), line 1 added, line 2 kept (was 1), line
	// 3 kept (was 3: line 2 was removed).
	after := []oline{
		{text: "a", eol: "\n", origin: 0},
		{text: "new", eol: "\n", origin: -1},
		{text: "b", eol: "\n", origin: 1},
		{text: "d", eol: "\n", origin: 3},
	}
	touched := []bool{false, true, true, true}
	at := func(line, col uint32) syntax.ErrorPos {
		off := []uint32{0, 2, 6, 8}[line] + col
		return syntax.ErrorPos{Line: line, Column: col, Offset: off, End: off, Kind: "ERROR"}
	}
	old := func(line, col uint32) syntax.ErrorPos { return syntax.ErrorPos{Line: line, Column: col, Kind: "ERROR"} }
	tests := []struct {
		name         string
		errs, before []syntax.ErrorPos
		want         syntax.ErrorPos
		ok           bool
	}{
		{"none before", []syntax.ErrorPos{at(0, 0)}, nil, at(0, 0), true},
		{"the same error on an unchanged line", []syntax.ErrorPos{at(0, 0)}, []syntax.ErrorPos{old(0, 0)}, syntax.ErrorPos{}, false},
		{"an error on a touched line", []syntax.ErrorPos{at(0, 0), at(2, 0)}, []syntax.ErrorPos{old(0, 0), old(1, 0)}, at(2, 0), true},
		{"more errors: the first not there before", []syntax.ErrorPos{at(0, 0), at(0, 1)}, []syntax.ErrorPos{old(0, 0)}, at(0, 1), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := newSyntaxError(tc.errs, tc.before, after, touched)
			if ok != tc.ok {
				t.Fatalf("ok = %v", ok)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
