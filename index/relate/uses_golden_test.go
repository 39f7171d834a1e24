package relate

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/index/indextest"
	"github.com/ctxd/ctxd/index/syntax"
)

var _ = indextest.UpdateFlag("the want sections of testdata/uses/*.txtar")

// TestUsesGolden runs the relation queries of each testdata/uses archive
// over a workspace extracted by the real parser (every file of the archive
// but the sections "queries" and "want"), and compares their answers with
// the archive's "want" section. Each line of "queries" is one of
//
//	resolve PATH               Resolve(PATH, nil): what the whole file uses
//	resolve PATH:L1-L2         the uses of lines L1..L2 (1-based) only
//	users PATH                 Users(PATH, nil): the files using any of its declarations
//	users PATH#NAME            the files using its symbol(s) qualified NAME
//
// Lines starting with # are comments: say there which negative cases the
// archive holds (a comment mention, a same-named symbol elsewhere…).
func TestUsesGolden(t *testing.T) {
	indextest.Goldens(t, "testdata/uses/*.txtar", func(t *testing.T, g *indextest.Golden) {
		src, texts := parsedSource(t, g.Files("queries", "want"))
		graph := Build(src)
		queries, _ := g.Section("queries")
		var out strings.Builder
		for _, q := range strings.Split(string(queries), "\n") {
			q = strings.TrimSpace(q)
			if q == "" || strings.HasPrefix(q, "#") {
				continue
			}
			fmt.Fprintf(&out, "%s\n", q)
			for _, line := range runUsesQuery(t, graph, src, texts, q) {
				fmt.Fprintf(&out, "\t%s\n", line)
			}
		}
		g.Check(t, "want", []byte(out.String()))
	})
}

func runUsesQuery(t *testing.T, g *Graph, src *memSource, texts map[string][]byte, q string) []string {
	verb, arg, _ := strings.Cut(q, " ")
	switch verb {
	case "resolve":
		p, lines, hasLines := strings.Cut(arg, ":")
		var uses []syntax.Use
		if hasLines {
			l1, l2, _ := strings.Cut(lines, "-")
			from, _ := strconv.Atoi(l1)
			to, _ := strconv.Atoi(l2)
			all, err := syntax.Uses(context.Background(), syntax.LanguageForPath(p), texts[p])
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			uses = []syntax.Use{}
			for _, u := range all {
				if l := lineOfByte(texts[p], int(u.Start)); l >= from && l <= to {
					uses = append(uses, u)
				}
			}
		}
		var out []string
		for _, r := range g.Resolve(p, uses) {
			if r.Path != p {
				out = append(out, r.Path+" "+r.QualifiedName+" ("+r.Kind.String()+")")
			}
		}
		return out
	case "users":
		p, name, hasName := strings.Cut(arg, "#")
		var syms []int
		if hasName {
			syn := src.Syntax(p)
			if syn == nil {
				t.Fatalf("%s: no extraction", q)
			}
			for i, s := range syn.Symbols {
				if s.QualifiedName == name {
					syms = append(syms, i)
				}
			}
			if syms == nil {
				t.Fatalf("%s: no symbol %s", q, name)
			}
		}
		return g.Users(p, syms)
	}
	t.Fatalf("unknown query %q", q)
	return nil
}

// lineOfByte returns the 1-based line of byte offset off of text.
func lineOfByte(text []byte, off int) int {
	return 1 + strings.Count(string(text[:min(off, len(text))]), "\n")
}

func init() { indextest.PinGoPlatform() }
