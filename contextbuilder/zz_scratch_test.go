package contextbuilder_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder"
	"golang.org/x/tools/txtar"
)

func TestScratchPEM(t *testing.T) {
	var b strings.Builder
	b.WriteString("Notes\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\nMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n-----END PRIVATE KEY-----\n")
	for i := 0; b.Len() < 6000; i++ {
		fmt.Fprintf(&b, "note %d: nothing to see here, only words to make the file longer.\n", i)
	}
	root := tempRoot(t)
	writeArchive(t, root, &txtar.Archive{Files: []txtar.File{{Name: "notes.txt", Data: []byte(b.String())}}})
	x := indexDir(t, root)
	req := &contextbuilder.Request{Purpose: "diff", PlanStep: &contextbuilder.PlanStep{ID: "s1", Text: "x", TargetFiles: []string{"notes.txt:3-4"}},
		Model: &contextbuilder.ModelRequest{MaxInputTokens: intp(1000), ResponseTokenReserve: intp(0)}}
	res, err := contextbuilder.Build(context.Background(), x.Snapshot(), req, contextbuilder.Options{})
	t.Logf("%s", encodeOutcome(t, res, err))
}
