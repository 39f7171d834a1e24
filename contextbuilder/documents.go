package contextbuilder

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/index"
)

// openDocumentsNote names, for the budget report, the editor buffers the
// build read instead of the disk: every open document whose root is the
// build's and that the root serves from the buffer (an open .env, which
// the rules skip, is not one), as "path@vN", sorted by path. The version
// is the editor's, so a client can tell which of its edits a bundle
// reflects: with ctxd's server that is exactly the changes sent before the
// request. nil when the build read no buffer, so that a build from disk
// notes nothing.
func (e *env) openDocumentsNote() []string {
	type used struct {
		path    string
		version int32
		stale   string
	}
	var docs []used
	for _, uri := range e.snap.Documents().URIs() {
		r, rel, ok := e.snap.Locate(uri)
		if !ok || r.Root.Dir != e.root.Root.Dir {
			// Outside every root, or in another (nested) one: this
			// build read the file, if at all, from disk. Compared by
			// folder: the build may run on a view of the root
			// (index.Demand).
			continue
		}
		if f, ok := r.File(rel); ok && f.Open {
			docs = append(docs, used{rel, f.Version, staleNote(f)})
		}
	}
	if len(docs) == 0 {
		return nil
	}
	slices.SortFunc(docs, func(a, b used) int { return cmp.Compare(a.path, b.path) })
	names := make([]string, len(docs))
	for i, d := range docs {
		names[i] = fmt.Sprintf("%s@v%d%s", d.path, d.version, d.stale)
	}
	return []string{"open documents: " + strings.Join(names, ", ")}
}

// staleNote is what the open-documents note adds to a buffer whose own
// parse was not ready and would be slow, so the build did not wait for it
// (see index.Index.WithDocuments): " (syntax of v40: parsing v42)" when
// it used version 40's syntax mapped onto version 42's text, " (no syntax:
// parsing v42)" when no parse of the buffer had completed; "" when the
// build read the version's own syntax.
func staleNote(f *index.File) string {
	s, ok := f.Stale()
	switch {
	case !ok:
		return ""
	case s.Has:
		return fmt.Sprintf(" (syntax of v%d: parsing v%d)", s.Of, f.Version)
	default:
		return fmt.Sprintf(" (no syntax: parsing v%d)", f.Version)
	}
}
