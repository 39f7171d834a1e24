package change

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder/secrets"
)

// applyEdits applies edits to before, checking that they are sorted, do
// not overlap and lie inside it.
func applyEdits(before []byte, edits []Edit) ([]byte, error) {
	var out []byte
	last := 0
	for _, e := range edits {
		if e.Start < last || e.End < e.Start || e.End > len(before) {
			return nil, fmt.Errorf("edit %+v out of order or range (last end %d, len %d)", e, last, len(before))
		}
		if e.Start == e.End && e.NewText == "" {
			return nil, fmt.Errorf("empty edit %+v", e)
		}
		out = append(out, before[last:e.Start]...)
		out = append(out, e.NewText...)
		last = e.End
	}
	return append(out, before[last:]...), nil
}

// checkEdits fails unless each file's edits turn Before into After.
func checkEdits(t testing.TB, res *Result) {
	t.Helper()
	for _, f := range res.Files {
		got, err := applyEdits(f.Before, f.Edits)
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		if string(got) != string(f.After) {
			t.Fatalf("%s: edits give %q, After is %q", f.Path, got, f.After)
		}
		if f.Action == ActionCreate && f.Before != nil {
			t.Errorf("%s: Before of a creation is %q, want nil", f.Path, f.Before)
		}
		if f.Action == ActionDelete && f.After != nil {
			t.Errorf("%s: After of a deletion is %q, want nil", f.Path, f.After)
		}
	}
}

// file is an existing input file; missing one that does not exist.
func file(path, text string) Input { return Input{Path: path, Exists: true, Text: []byte(text)} }
func missing(path string) Input    { return Input{Path: path} }

// parseApply parses answer and applies it to files with the default
// scanner, checking the edits of an accepted answer.
func parseApply(t testing.TB, answer string, files ...Input) (*Result, *Rejection) {
	t.Helper()
	a, rej := Parse(answer)
	if rej != nil {
		return nil, rej
	}
	if len(a.Files) != len(files) {
		var paths []string
		for _, f := range a.Files {
			paths = append(paths, f.Path)
		}
		t.Fatalf("the answer names %q, the test gives %d files", paths, len(files))
	}
	res, rej := Apply(context.Background(), a, files, Options{Scanner: secrets.Default()})
	if rej != nil {
		return nil, rej
	}
	checkEdits(t, res)
	return res, nil
}

// awsKeyID formats an AWS access key id at run time, so that no source
// file holds a literal credential.
func awsKeyID() string {
	const base32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	var b strings.Builder
	b.WriteString("AK" + "IA")
	for i := range 16 {
		b.WriteByte(base32[(i*11+5)%len(base32)])
	}
	return b.String()
}

// githubToken formats a classic GitHub token at run time.
func githubToken() string {
	const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	var b strings.Builder
	b.WriteString("gh" + "p_")
	for i := range 36 {
		b.WriteByte(base62[(i*17+7)%len(base62)])
	}
	return b.String()
}
