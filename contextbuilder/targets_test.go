package contextbuilder_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
)

// targetsWorkspace has a C# service inside a namespace, a Java class in a
// package, a Go method, and two Go functions of one name.
var targetsWorkspace = []string{
	"go.mod", "module example.com/t\n",
	"Services/BasketService.cs", `namespace Shop.Core.Services
{
    public class BasketService
    {
        public void AddItemToBasket(int id) { }
        public void RemoveItem(int id) { }
    }
}
`,
	"src/shop/Cart.java", `package shop;

public class Cart {
    public void add(String sku) { }
}
`,
	"cart/cart.go", `package cart

type Cart struct{ Items []string }

func (c *Cart) Add(sku string) { c.Items = append(c.Items, sku) }

func (c *Cart) Len() int { return len(c.Items) }
`,
	"a/a.go", "package a\n\nfunc Handle() {}\n",
	"b/b.go", "package b\n\nfunc Handle() error { return nil }\n",
}

// TestTargetNames: a target symbol or a selected symbol is found by its
// plain name, its qualified name or the qualified name's tail, in every
// language (C# qualifies with the namespace, Go with the type only); a
// selected symbol narrows the file to it and one the file does not define
// is refused with close matches; a selected file alone answers an
// ambiguity.
func TestTargetNames(t *testing.T) {
	sym := func(names ...string) *contextbuilder.PlanStep {
		return &contextbuilder.PlanStep{ID: "s", TargetSymbols: names}
	}
	sel := func(p, s string) []contextbuilder.UserTarget {
		return []contextbuilder.UserTarget{{Path: p, Symbol: s}}
	}
	tests := []struct {
		name     string
		step     *contextbuilder.PlanStep
		selected []contextbuilder.UserTarget
		want     []string // target symbols of the bundle
		files    []string // target files of the bundle
		refused  contextbuilder.RefusalCode
		message  []string // substrings of the refusal's message
	}{
		{name: "C# Type.Method", step: sym("BasketService.AddItemToBasket"),
			want: []string{"Shop.Core.Services.BasketService.AddItemToBasket"}, files: []string{"Services/BasketService.cs"}},
		{name: "C# namespace-qualified", step: sym("Shop.Core.Services.BasketService.AddItemToBasket"),
			want: []string{"Shop.Core.Services.BasketService.AddItemToBasket"}, files: []string{"Services/BasketService.cs"}},
		{name: "C# plain", step: sym("AddItemToBasket"),
			want: []string{"Shop.Core.Services.BasketService.AddItemToBasket"}, files: []string{"Services/BasketService.cs"}},
		{name: "Java Type.method", step: sym("Cart.add"),
			want: []string{"Cart.add"}, files: []string{"src/shop/Cart.java"}},
		{name: "Go Type.Method", step: sym("Cart.Add"), want: []string{"Cart.Add"}, files: []string{"cart/cart.go"}},
		{name: "a tail is cut at a dot only", step: sym("asketService.AddItemToBasket"), refused: contextbuilder.RefuseTargetNotFound},
		{name: "selected symbol without a target symbol", selected: sel("cart/cart.go", "Cart.Add"),
			want: []string{"Cart.Add"}, files: []string{"cart/cart.go"}},
		{name: "selected C# Type.Method", selected: sel("Services/BasketService.cs", "BasketService.RemoveItem"),
			want: []string{"Shop.Core.Services.BasketService.RemoveItem"}, files: []string{"Services/BasketService.cs"}},
		{name: "selected symbol the file does not define", selected: sel("cart/cart.go", "Cart.Ad"),
			refused: contextbuilder.RefuseTargetNotFound, message: []string{`"Cart.Ad"`, "cart/cart.go", "close matches: Cart.Add"}},
		{name: "selected symbol far from every name", selected: sel("cart/cart.go", "NoSuchThing"),
			refused: contextbuilder.RefuseTargetNotFound, message: []string{`"NoSuchThing"`, "cart/cart.go"}},
		{name: "ambiguous symbol", step: sym("Handle"), refused: contextbuilder.RefuseAmbiguousTarget},
		{name: "selected file answers an ambiguity", step: sym("Handle"), selected: sel("b/b.go", ""),
			want: []string{"Handle"}, files: []string{"b/b.go"}},
		{name: "selected file and symbol answer an ambiguity", step: sym("Handle"), selected: sel("a/a.go", "Handle"),
			want: []string{"Handle"}, files: []string{"a/a.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &contextbuilder.Request{Purpose: contextbuilder.PurposeDiff, PlanStep: tt.step, UserSelectedTargets: tt.selected}
			res, err := buildText(t, req, targetsWorkspace...)
			if tt.refused != "" {
				var ref *contextbuilder.Refusal
				if !errors.As(err, &ref) || ref.Code != tt.refused {
					t.Fatalf("Build = %v, want %s", err, tt.refused)
				}
				for _, m := range tt.message {
					if !strings.Contains(ref.Message, m) {
						t.Errorf("message %q does not contain %q", ref.Message, m)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := [2][]string{res.Manifest.Selection.TargetSymbols, res.Manifest.Selection.TargetFiles}
			if diff := cmp.Diff([2][]string{tt.want, tt.files}, got); diff != "" {
				t.Errorf("target symbols and files (-want +got):\n%s", diff)
			}
		})
	}
}
