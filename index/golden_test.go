package index

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/ctxd/ctxd/index/indextest"
)

var update = flag.Bool("update", false, "rewrite the golden sections of testdata/*.txtar")

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
	archives, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(archives) == 0 {
		t.Fatalf("no golden archives: %v", err)
	}
	for _, name := range archives {
		t.Run(strings.TrimSuffix(filepath.Base(name), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(name)
			if err != nil {
				t.Fatal(err)
			}
			var ws txtar.Archive
			for _, f := range ar.Files {
				if f.Name != "want.json" {
					ws.Files = append(ws.Files, f)
				}
			}
			dir := writeTree(t, string(txtar.Format(&ws)))
			_, r := indexDir(t, dir, Options{})
			got := goldenJSON(t, r)
			indextest.CheckGolden(t, name, ar, "want.json", got, *update)
		})
	}
}

func goldenJSON(t *testing.T, r *RootSnapshot) []byte {
	g := r.Graph()
	out := map[string]goldenFile{}
	for _, p := range r.Paths() {
		f, _ := r.File(p)
		gf := goldenFile{Language: string(f.Language)}
		if f.Syntax != nil {
			for i, s := range f.Syntax.Symbols {
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
