package workspace

import (
	"context"
	"testing"

	"github.com/ctxd/ctxd/index"
)

// TestCheckInSyncReadsTheIndex: builds are refused with ContentModified
// while the index holds a document out of sync, and allowed again once a
// full change repaired it.
func TestCheckInSyncReadsTheIndex(t *testing.T) {
	ctx := context.Background()
	x := index.New(index.Options{CacheDir: "off"})
	defer x.Close()
	const uri = "file:///w/a.go"
	x.OpenDocument(ctx, uri, "go", 1, []byte("package a\n"))
	if err := checkInSync(x.Snapshot().Documents()); err != nil {
		t.Fatalf("in sync: %v", err)
	}
	if _, err := x.ChangeDocument(ctx, uri, 2, []index.Edit{{Start: 2, End: 1}}); err == nil {
		t.Fatal("an inverted edit was applied")
	}
	err := checkInSync(x.Snapshot().Documents())
	want := "file:///w/a.go is out of sync (a change could not be applied); reopen it or send its full content before building context"
	if err == nil || err.Error() != want {
		t.Fatalf("out of sync: error = %v, want %q", err, want)
	}
	if _, err := x.ChangeDocument(ctx, uri, 3, []index.Edit{{Full: true, Text: "package b\n"}}); err != nil {
		t.Fatal(err)
	}
	if err := checkInSync(x.Snapshot().Documents()); err != nil {
		t.Fatalf("repaired: %v", err)
	}
}
