package contextbuilder

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
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
			docs = append(docs, used{rel, f.Version})
		}
	}
	if len(docs) == 0 {
		return nil
	}
	slices.SortFunc(docs, func(a, b used) int { return cmp.Compare(a.path, b.path) })
	names := make([]string, len(docs))
	for i, d := range docs {
		names[i] = fmt.Sprintf("%s@v%d", d.path, d.version)
	}
	return []string{"open documents: " + strings.Join(names, ", ")}
}
