package index

import (
	"path/filepath"
	"testing"
)

// TestOpenXAMLDocument: an open .xaml document (no tree-sitter grammar,
// syntax/xaml.go) is parsed afresh on each change, with its x:Class as
// its symbol.
func TestOpenXAMLDocument(t *testing.T) {
	dir := writeTree(t, "-- W.xaml --\n<Window x:Class=\"App.Disk\" xmlns:x=\"http://schemas.microsoft.com/winfx/2006/xaml\"/>\n")
	x, r := indexDir(t, dir, Options{})
	ctx := testCtx(t)
	if got := names(mustFile(t, r, "W.xaml")); got != "Disk" {
		t.Errorf("on disk: symbols %s, want Disk", got)
	}
	uri := PathToURI(filepath.Join(dir, "W.xaml"))
	x.OpenDocument(ctx, uri, "", 1, []byte(`<Window x:Class="App.Open" xmlns:x="http://schemas.microsoft.com/winfx/2006/xaml"/>`))
	if got := names(mustFile(t, x.Snapshot().Roots()[0], "W.xaml")); got != "Open" {
		t.Errorf("after open: symbols %s, want Open", got)
	}
	if _, err := x.ChangeDocument(ctx, uri, 2, []Edit{{Full: true, Text: `<UserControl x:Class="App.Changed" xmlns:x="http://schemas.microsoft.com/winfx/2006/xaml"/>`}}); err != nil {
		t.Fatal(err)
	}
	if got := names(mustFile(t, x.Snapshot().Roots()[0], "W.xaml")); got != "Changed" {
		t.Errorf("after change: symbols %s, want Changed", got)
	}
}
