package index

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/index/indextest"
)

var _ = indextest.UpdateFlag("the want.json sections of testdata/*.txtar")

// goldenFile is what a golden archive records for one indexed file: its
// symbols and every relation the ranker uses.
type goldenFile struct {
	Language    string   `json:"language,omitempty"`
	Symbols     []string `json:"symbols,omitempty"`
	Imports     []string `json:"imports,omitempty"`
	Unresolved  []string `json:"unresolved,omitempty"`
	BaseTypes   []string `json:"base_types,omitempty"`
	Callers     []string `json:"callers,omitempty"`
	Callees     []string `json:"callees,omitempty"`
	ConfigFiles []string `json:"config_files,omitempty"`
	Hops        []string `json:"hops,omitempty"`
}

// TestGoldenWorkspaces indexes each testdata/*.txtar workspace and compares
// the symbols and relations of every file with the archive's want.json.
// `go test ./index -run Golden -update` rewrites want.json; review the diff.
func TestGoldenWorkspaces(t *testing.T) {
	indextest.Goldens(t, "testdata/*.txtar", func(t *testing.T, g *indextest.Golden) {
		dir := g.WriteTree(t, "want.json")
		_, r := indexDir(t, dir, Options{})
		g.Check(t, "want.json", goldenJSON(t, r))
	})
}

func goldenJSON(t *testing.T, r *RootSnapshot) []byte {
	g := r.Graph()
	out := map[string]goldenFile{}
	for _, p := range r.Paths() {
		f, _ := r.File(p)
		gf := goldenFile{Language: string(f.Language)}
		if f.Syntax() != nil {
			for i, s := range f.Syntax().Symbols {
				desc := fmt.Sprintf("%s %s L%d", s.Kind, s.QualifiedName, s.Range.Start.Line+1)
				if s.Exported {
					desc += " exported"
				}
				if len(s.Bases) > 0 {
					desc += " bases=" + strings.Join(s.Bases, ",")
				}
				gf.Symbols = append(gf.Symbols, desc)
				for _, b := range g.BaseTypes(p, i) {
					gf.BaseTypes = append(gf.BaseTypes, s.Name+" -> "+b.QualifiedName+"@"+b.Path)
				}
			}
		}
		for _, e := range g.Imports(p) {
			gf.Imports = append(gf.Imports, e.Via+" -> "+e.To)
		}
		for _, u := range g.Unresolved(p) {
			gf.Unresolved = append(gf.Unresolved, u.Path)
		}
		gf.Callers = g.Callers(p)
		gf.Callees = g.Callees(p)
		gf.ConfigFiles = g.ConfigFiles(p)
		hops := g.Hops([]string{p}, 3)
		for _, q := range r.Paths() {
			if h, ok := hops[q]; ok && q != p {
				gf.Hops = append(gf.Hops, fmt.Sprintf("%s=%d", q, h))
			}
		}
		out[p] = gf
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
