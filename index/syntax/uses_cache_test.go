package syntax

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUsesCached checks that the cache of Uses answers by content: the same
// bytes give the same uses, other bytes their own, however often asked and
// whatever was asked in between.
func TestUsesCached(t *testing.T) {
	a := []byte("package p\n\nimport \"strings\"\n\nfunc F() string { return strings.ToUpper(x) }\n")
	b := []byte("package p\n\nimport \"bytes\"\n\nfunc G() { bytes.NewReader(nil) }\n")
	fresh := func(src []byte) []Use {
		us, err := parseUses(context.Background(), Go, src)
		if err != nil {
			t.Fatal(err)
		}
		return us
	}
	wantA, wantB := fresh(a), fresh(b)
	if cmp.Equal(wantA, wantB) {
		t.Fatal("the two sources must differ in uses")
	}
	for i := range usesCacheSize + 3 {
		src, want := a, wantA
		if i%2 == 1 {
			src, want = b, wantB
		}
		got, err := Uses(context.Background(), Go, src)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("round %d (-want +got):\n%s", i, diff)
		}
		// Fill the cache with other entries so that eviction is exercised.
		filler := append([]byte("package q\n\nvar V = "), byte('a'+i%26), '\n')
		if _, err := Uses(context.Background(), Go, filler); err != nil {
			t.Fatal(err)
		}
	}
}
