package contextbuilder_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
)

func TestTryExample(t *testing.T) {
	dir, _ := filepath.Abs("../testdata/example")
	x := index.New(index.Options{CacheDir: "off"})
	defer x.Close()
	x.SetRoots([]index.Root{{URI: index.PathToURI(dir), Name: "example", Dir: dir}})
	snap, err := x.Wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	req := &contextbuilder.Request{Purpose: "diff", PlanStep: &contextbuilder.PlanStep{ID: "s1", Text: "add a method", TargetFiles: []string{os.Getenv("TARGET"), ".env"}}}
	res, err := contextbuilder.Build(context.Background(), snap, req, contextbuilder.Options{})
	if err != nil {
		b, _ := json.MarshalIndent(err, "", "  ")
		t.Fatalf("%v\n%s", err, b)
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	os.WriteFile("/tmp/out.json", b, 0o644)
}
