package index

import (
	"cmp"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/index/syntax"
)

// Status summarizes a snapshot for ctxd.indexStatus and `ctxd index`. It
// never carries file contents. Maps encode with sorted keys, so the JSON is
// deterministic.
type Status struct {
	// State is "indexing" while any root is scanned, else "ready".
	State State `json:"state"`
	// SnapshotVersion is the snapshot's version.
	SnapshotVersion uint64 `json:"snapshot_version"`
	// Fingerprint is project_index_fingerprint of the whole snapshot: with
	// one root, the root's, which its builds' manifests carry (see
	// [Snapshot.Fingerprint]).
	Fingerprint string `json:"project_index_fingerprint"`
	// FormatVersion is the index format version.
	FormatVersion int `json:"index_format_version"`
	// Roots is sorted by directory; empty, not null, without roots.
	Roots []RootStatus `json:"roots"`
}

// RootStatus summarizes one root.
type RootStatus struct {
	URI   string `json:"uri"`
	Name  string `json:"name"`
	State State  `json:"state"`
	// Error says why a failed root could not be scanned; "" otherwise.
	Error string `json:"error,omitempty"`
	// Progress of a running scan; nil when none runs.
	Progress *ScanProgress `json:"progress,omitempty"`
	// Fingerprint is the root's own index fingerprint.
	Fingerprint string `json:"fingerprint"`
	Files       int    `json:"files"`
	Bytes       int64  `json:"bytes"`
	// FilesByLanguage counts indexed files per language, "text" for files
	// without symbols.
	FilesByLanguage map[string]int `json:"files_by_language"`
	Symbols         int            `json:"symbols"`
	// ParseErrors counts files whose parse tree has errors.
	ParseErrors int `json:"parse_errors"`
	OpenFiles   int `json:"open_files"`
	// Skipped counts skipped paths (an ignored directory counts once) by
	// reason.
	Skipped         int            `json:"skipped"`
	SkippedByReason map[string]int `json:"skipped_by_reason"`
	// SkippedFiles lists skipped paths when the caller asked for them; nil
	// otherwise.
	SkippedFiles []Skipped `json:"skipped_files,omitempty"`
}

// ScanProgress counts the files a running scan has loaded.
type ScanProgress struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// Status summarizes the snapshot; withSkipped adds the list of skipped
// paths.
func (s *Snapshot) Status(withSkipped bool) Status {
	st := Status{State: s.State(), SnapshotVersion: s.version, Fingerprint: s.Fingerprint(), FormatVersion: FormatVersion, Roots: []RootStatus{}}
	for _, r := range s.roots {
		rs := RootStatus{
			URI: r.Root.URI, Name: r.Root.Name, State: r.state, Error: r.err,
			Fingerprint:     r.Fingerprint(),
			FilesByLanguage: map[string]int{}, SkippedByReason: map[string]int{},
		}
		for _, p := range r.files.Keys() {
			f, _ := r.files.Get(p)
			rs.Files++
			rs.Bytes += f.ByteSize
			lang := string(f.Language)
			if lang == "" {
				lang = "text"
			}
			rs.FilesByLanguage[lang]++
			// Counting must not parse: a file not parsed yet counts
			// once the background parse reaches it.
			if syn := f.parsedSyntax(); syn != nil {
				rs.Symbols += len(syn.Symbols)
				if syn.HasErrors {
					rs.ParseErrors++
				}
			}
			if f.Open {
				rs.OpenFiles++
			}
		}
		skipped := r.SkippedFiles()
		rs.Skipped = len(skipped)
		for _, sk := range skipped {
			rs.SkippedByReason[string(sk.Reason)]++
		}
		if withSkipped {
			rs.SkippedFiles = skipped
		}
		st.Roots = append(st.Roots, rs)
	}
	return st
}

// SymbolMatch is one result of [Snapshot.FindSymbols].
type SymbolMatch struct {
	Root   *RootSnapshot
	Path   string
	Symbol syntax.Symbol
}

// FindSymbols returns the symbols whose name contains query, compared
// case-insensitively (a query with "." or ":" also matches qualified names
// such as "Store.Get"), best first: exact name, then prefix, then
// substring, then qualified-name substring;
// ties by name, root, path and position. An empty query matches every
// symbol. At most limit results are returned (limit <= 0: no limit).
func (s *Snapshot) FindSymbols(query string, limit int) []SymbolMatch {
	q := strings.ToLower(query)
	// "Store.Get" searches qualified names; a plain word only names, so
	// that members do not flood a search for their container.
	qualified := strings.ContainsAny(q, ".:")
	type scored struct {
		m    SymbolMatch
		rank int
		root int
	}
	var all []scored
	for ri, r := range s.roots {
		for _, p := range r.files.Keys() {
			f, _ := r.files.Get(p)
			syn := f.Syntax()
			if syn == nil {
				continue
			}
			for _, sym := range syn.Symbols {
				name := strings.ToLower(sym.Name)
				rank := -1
				switch {
				case name == q:
					rank = 0
				case strings.HasPrefix(name, q):
					rank = 1
				case strings.Contains(name, q):
					rank = 2
				case qualified && strings.Contains(strings.ToLower(sym.QualifiedName), q):
					rank = 3
				}
				if rank >= 0 {
					all = append(all, scored{SymbolMatch{r, p, sym}, rank, ri})
				}
			}
		}
	}
	slices.SortFunc(all, func(a, b scored) int {
		return cmp.Or(
			cmp.Compare(a.rank, b.rank),
			cmp.Compare(a.m.Symbol.Name, b.m.Symbol.Name),
			cmp.Compare(a.root, b.root),
			cmp.Compare(a.m.Path, b.m.Path),
			cmp.Compare(a.m.Symbol.Range.StartByte, b.m.Symbol.Range.StartByte),
		)
	})
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	out := make([]SymbolMatch, len(all))
	for i, a := range all {
		out[i] = a.m
	}
	return out
}
