package table

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTables(t *testing.T) {
	rows := [][]string{{"figure", "value"}, {"tools/list", "11 KB"}, {"a|b", "x\ny"}}
	if diff := cmp.Diff("figure      value\ntools/list  11 KB\na|b         x\ny\n", Plain(rows)); diff != "" {
		t.Errorf("Plain (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("| figure | value |\n| --- | --- |\n| tools/list | 11 KB |\n| a\\|b | x y |\n", Markdown(rows)); diff != "" {
		t.Errorf("Markdown (-want +got):\n%s", diff)
	}
}
