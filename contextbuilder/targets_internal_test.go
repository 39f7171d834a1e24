package contextbuilder

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/index/syntax"
)

// TestCloseNames: a selected symbol the file does not define is answered
// with the closest names, typos first; a long name from a request is not
// compared edit by edit, and finds nothing rather than costing the product
// of the lengths.
func TestCloseNames(t *testing.T) {
	syn := &syntax.File{Symbols: []syntax.Symbol{
		{Name: "Cart", QualifiedName: "Cart"},
		{Name: "Add", QualifiedName: "Cart.Add"},
		{Name: "AddAll", QualifiedName: "Cart.AddAll"},
		{Name: "Len", QualifiedName: "Cart.Len"},
		{Name: "Remove", QualifiedName: "Cart.Remove"},
	}}
	tests := []struct {
		name string
		want []string
	}{
		{"Cart.Ad", []string{"Cart.Add", "Cart.AddAll"}},
		{"cart.add", []string{"Cart.Add", "Cart.AddAll"}},
		{"Cart.Remov", []string{"Cart.Remove"}},
		{"Lne", []string{"Cart.Len"}},
		{"NoSuchThing", nil},
		{"a", nil},
		{strings.Repeat("x", 1<<20), nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, closeNames(syn, tt.name)); diff != "" {
			t.Errorf("closeNames(%.20q) (-want +got):\n%s", tt.name, diff)
		}
	}
	if got := closeNames(nil, "Add"); got != nil {
		t.Errorf("closeNames without syntax = %v", got)
	}
}
