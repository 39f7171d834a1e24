package index

import (
	"net/url"
	"strings"
)

// NormalizeURI returns the canonical form of a document URI so that two
// spellings of one file ("file:///a%20b.go" and "file:///a b.go",
// "file:///C%3A/x" and "file:///c:/x") share one overlay. Non-file URIs
// (untitled:, git:) and unparsable strings are returned unchanged: they never
// name a workspace file, and keeping them verbatim loses nothing.
//
// A file URI that the sandbox refuses ([ClientPath]: "..", encoded
// separators, a NUL, a remote host, a query, a UNC path, …) is returned
// unchanged too: normalizing it would decode "%2f" into "/" or drop a
// query, and hand a later check an innocent-looking URI instead of the one
// the client sent. Every check downstream then refuses it.
func NormalizeURI(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || !strings.EqualFold(u.Scheme, "file") || u.Opaque != "" {
		return uri
	}
	if _, err := ClientPath(uri); err != nil {
		return uri
	}
	p := u.Path
	// Windows drive letters: VS Code sends "c%3A" and lower case, others "C:".
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' && isASCIILetter(p[1]) {
		p = "/" + strings.ToUpper(p[1:2]) + p[2:]
	}
	norm := url.URL{Scheme: "file", Host: u.Host, Path: p}
	return norm.String()
}

func isASCIILetter(b byte) bool {
	return ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z')
}
