package contextbuilder

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctxd/ctxd/index"
)

// chooseRoot picks the workspace folder the bundle is built from: the
// active file's (the selection's when there is no active file), else the
// first explicit target's, else the first folder. A bundle covers one
// folder. The active file goes through the sandbox here, before anything
// else looks at it: a URI or path the sandbox refuses (see
// index.ClientPath and index.CleanRel) is REFUSE_OUTSIDE_SANDBOX.
func chooseRoot(snap *index.Snapshot, req *Request) (*index.RootSnapshot, error) {
	roots := snap.Roots()
	if len(roots) == 0 {
		return nil, (&Refusal{Code: RefuseOutsideSandbox, Message: "no workspace folder is open, so there is no project root to build from"}).advise(act(ActionOpenFolder))
	}
	if active := activeURI(req); active != "" {
		r, _, err := snap.LocateChecked(active)
		if err != nil {
			return nil, outside(active)
		}
		return r, nil
	}
	for _, t := range explicitPaths(req) {
		if _, ok := asURI(t); !ok {
			continue
		}
		if r, _, err := snap.LocateChecked(t); err == nil {
			return r, nil
		}
	}
	return roots[0], nil
}

// activeURI is the document the editor has open: active_file, else the
// selection's URI (which must equal active_file when both are given).
func activeURI(req *Request) string {
	if req.ActiveFile != "" {
		return req.ActiveFile
	}
	if req.Selection != nil {
		return req.Selection.URI
	}
	return ""
}

// explicitPaths lists the paths the request names, in request order.
func explicitPaths(req *Request) []string {
	var out []string
	if req.PlanStep != nil {
		for _, t := range req.PlanStep.TargetFiles {
			f, _, _ := splitLines(t)
			out = append(out, f)
		}
		out = append(out, req.PlanStep.NewFiles...)
	}
	for _, t := range req.UserSelectedTargets {
		out = append(out, t.Path)
	}
	return out
}

// outside refuses a path or URI of the request as outside the sandbox. The
// message quotes only what the client sent (never the root, never where a
// link leads), made printable and bounded.
func outside(s string) *Refusal {
	return (&Refusal{Code: RefuseOutsideSandbox, Message: fmt.Sprintf("%s is outside the workspace folders; ctxd never reads outside the project root", quoteRequestPath(s))}).advise(act(ActionInsideWorkspace))
}

// maxQuoted bounds how much of a request's path a message repeats.
const maxQuoted = 256

// quoteRequestPath renders a path of the request for a message: as sent
// when it is short printable UTF-8, else Go-quoted (a NUL or a control
// character becomes an escape) and cut to maxQuoted bytes.
func quoteRequestPath(s string) string {
	cut := false
	if len(s) > maxQuoted {
		s = strings.ToValidUTF8(s[:maxQuoted], "")
		cut = true
	}
	printable := utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) })
	if !printable {
		s = strconv.Quote(s)
	}
	if cut {
		s += "…"
	}
	return s
}

// asURI turns a file URI or an absolute path into a file URI (normalized
// when the sandbox would accept it); ok is false for a relative path. It
// only classifies: the sandbox checks are relPath's and chooseRoot's.
func asURI(s string) (string, bool) {
	if index.IsFileURI(s) {
		return index.NormalizeURI(s), true
	}
	if strings.HasPrefix(s, "/") || filepath.IsAbs(s) {
		return index.PathToURI(s), true
	}
	return "", false
}

// relPath normalizes a path of the request (a target, a user-selected
// target, last_error.path) to a path relative to the bundle's root, or
// refuses it as outside the sandbox. A file URI or an absolute path must
// lie in the bundle's own folder (the innermost one when folders nest);
// a relative path is relative to that folder. Every form goes through
// the sandbox (index.Snapshot.LocateChecked, index.RootSnapshot.Rel):
// "..", encoded dots and separators, backslashes, UNC and drive forms,
// remote hosts, NUL bytes and symbolic links out of the root are refused
// before anything is opened.
func relPath(snap *index.Snapshot, root *index.RootSnapshot, s string) (string, error) {
	if _, ok := asURI(s); ok {
		r, rel, err := snap.LocateChecked(s)
		// Compared by folder, not pointer: a build may run on a view
		// of the snapshot's root (index.Demand).
		if err != nil || r.Root.Dir != root.Root.Dir {
			return "", outside(s)
		}
		return rel, nil
	}
	rel, err := root.Rel(s)
	if err != nil {
		return "", outside(s)
	}
	return rel, nil
}

// relPath is relPath in the build's folder.
func (e *env) relPath(s string) (string, error) { return relPath(e.snap, e.root, s) }

// relPaths turns file URIs into workspace-relative paths for messages.
func relPaths(snap *index.Snapshot, uris []string) []string {
	out := make([]string, len(uris))
	for i, u := range uris {
		out[i] = u
		if _, rel, ok := snap.Locate(u); ok {
			out[i] = rel
		}
	}
	return out
}

// splitLines parses "path:L1-L2"; ok is false when there is no line
// suffix. Malformed suffixes are returned as an error.
func splitLines(s string) (file string, lines [2]int, err error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 || index.IsFileURI(s) && i == 4 {
		return s, lines, nil
	}
	suffix := s[i+1:]
	a, b, ok := strings.Cut(suffix, "-")
	if !ok {
		b = a
	}
	l1, e1 := strconv.Atoi(a)
	l2, e2 := strconv.Atoi(b)
	if e1 != nil || e2 != nil {
		// Not a line suffix ("C:" or a colon in a name): the whole string
		// is the path.
		if strings.Trim(suffix, "0123456789-") != "" || suffix == "" {
			return s, lines, nil
		}
		return "", lines, fmt.Errorf("%w: target %q: malformed line range %q (want L1-L2)", ErrInvalidRequest, s, suffix)
	}
	if l1 < 1 || l2 < l1 {
		return "", lines, fmt.Errorf("%w: target %q: line range %d-%d is empty or not 1-based", ErrInvalidRequest, s, l1, l2)
	}
	return s[:i], [2]int{l1, l2}, nil
}

// portableRequest is the request with every URI and absolute path made
// relative to the root, so that ids derived from it do not depend on where
// the workspace lives (INV-CONTEXT-2).
func portableRequest(snap *index.Snapshot, root *index.RootSnapshot, req *Request) *Request {
	r := *req
	rel := func(s string) string {
		if _, ok := asURI(s); !ok {
			return s
		}
		if q, err := relPath(snap, root, s); err == nil {
			return "root:" + q
		}
		return s
	}
	r.ActiveFile = rel(r.ActiveFile)
	if r.Selection != nil {
		sel := *r.Selection
		sel.URI = rel(sel.URI)
		r.Selection = &sel
	}
	if r.PlanStep != nil {
		ps := *r.PlanStep
		ps.TargetFiles = slices.Clone(ps.TargetFiles)
		for i, t := range ps.TargetFiles {
			ps.TargetFiles[i] = rel(t)
		}
		ps.NewFiles = slices.Clone(ps.NewFiles)
		for i, t := range ps.NewFiles {
			ps.NewFiles[i] = rel(t)
		}
		r.PlanStep = &ps
	}
	r.UserSelectedTargets = slices.Clone(r.UserSelectedTargets)
	for i := range r.UserSelectedTargets {
		r.UserSelectedTargets[i].Path = rel(r.UserSelectedTargets[i].Path)
	}
	if r.LastError != nil {
		le := *r.LastError
		le.Path = rel(le.Path)
		r.LastError = &le
	}
	return &r
}
