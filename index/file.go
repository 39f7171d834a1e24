package index

import (
	"sync"
	"sync/atomic"

	"github.com/ctxd/ctxd/index/classify"
	"github.com/ctxd/ctxd/index/syntax"
	"github.com/ctxd/ctxd/index/words"
)

// File is one indexed text file of a workspace root. It is immutable; a
// change builds a new File.
type File struct {
	// Path is relative to the root, slash-separated and clean.
	Path string `json:"path"`
	// Language is the language of the path (syntax.LanguageForPath);
	// empty for text indexed without symbols.
	Language syntax.Language `json:"language,omitempty"`
	// Encoding is the detected encoding of the bytes on disk; an open
	// document is always utf-8 (LSP text is Unicode).
	Encoding classify.Encoding `json:"encoding"`
	// sha is the hex sha256 of the bytes on disk; fp, for an open
	// document, that of the editor's buffer, computed on first need (see
	// [File.SHA256]).
	sha string
	fp  *fingerprint
	// ByteSize is the size of those bytes.
	ByteSize int64 `json:"byte_size"`
	// LineCount counts lines as editors do (see classify.LineCount).
	LineCount int `json:"line_count"`
	// syn is the extraction of the text, which may be computed on first
	// need (see [File.Syntax]).
	syn *syntaxCell
	// words is the word filter of the text, for the prefilter of
	// demand-driven builds; nil (may contain anything) for an open
	// document, which every such build parses anyway.
	words *words.Filter
	// goHead is what a Go file's header says (syntax.GoHeader), the
	// package name and the build constraint joined by a NUL, read at the
	// listing so that a build before the parse knows a package's files
	// without parsing them; "" when not read (not Go, an open document,
	// a file the cache supplied).
	goHead string
	// goImps is the sorted word hashes (words.KeyOf) of the import paths
	// of a Go file's header (syntax.GoHeader), when goImpsOK: a build
	// before the parse asks which files import a package from them
	// exactly, not from the word filter, whose false positives on path
	// tokens cost parses.
	goImps   []uint64
	goImpsOK bool
	// Open reports that the entry comes from an editor buffer, Version
	// being the editor's version of it.
	Open    bool  `json:"open,omitempty"`
	Version int32 `json:"version,omitempty"`
	// stale, for an open document's file in a request's view, says that
	// its extraction is not the version's own (see [File.Stale]).
	stale *StaleSyntax
}

// StaleSyntax describes the extraction of an open document's file in a
// request's view when the version's own extraction was not ready and the
// document's parses are slow, so the request did not wait for it (see
// [Index.WithDocuments]).
type StaleSyntax struct {
	// Has reports an extraction: the one of version Of, its ranges mapped
	// through the edits made since onto this version's text. Without one
	// (no parse of the document had completed) the file has no
	// extraction: text-level answers only.
	Has bool
	// Of is the version whose parse the extraction comes from, when Has.
	Of int32
}

// Stale reports, for an open document's file in a request's view, that
// its extraction is another version's, or none, and which (see
// [StaleSyntax]); ok is false when the extraction is the file's own.
func (f *File) Stale() (s StaleSyntax, ok bool) {
	if f.stale == nil {
		return StaleSyntax{}, false
	}
	return *f.stale, true
}

// SHA256 returns the hex sha256 of the bytes on disk, or of the editor's
// buffer for an open document.
func (f *File) SHA256() string {
	if f.fp != nil {
		return f.fp.get()
	}
	return f.sha
}

// Syntax returns the extraction of the file's text: nil for a file
// without a parser for its language, whose parse failed, or whose bytes
// changed on disk before they were parsed. A file may be indexed before it
// is parsed (the index lists and fingerprints every file first, then
// parses in the background): the first call then parses it, and every
// caller gets the same result, so when a file is parsed never changes what
// a reader sees.
func (f *File) Syntax() *syntax.File {
	if f.syn == nil {
		return nil
	}
	return f.syn.get()
}

// Parsed reports whether the extraction is known without parsing: a file
// that has none, or whose parse has run.
func (f *File) Parsed() bool { return f.syn == nil || f.syn.done() }

// parsedSyntax is the extraction when it is known, nil otherwise; it
// never parses.
func (f *File) parsedSyntax() *syntax.File {
	if f.syn == nil || !f.syn.done() {
		return nil
	}
	return f.syn.f
}

// syntaxCell holds an extraction computed at most once, by whichever of
// the background parser and a reader asks first.
type syntaxCell struct {
	once sync.Once
	load func() *syntax.File // nil once run
	f    *syntax.File
	set  atomic.Bool // f is final
	// decls is the filter of a Go text's declaration words
	// (syntax.GoDeclWords) while the text is not parsed: a demand-driven
	// build looks for the file declaring a name through it. declsLoad
	// computes it from the text read again, once (declsOnce), when a
	// build first asks (see [File.declFilter]); nil when the file has
	// none. The parse drops it: the extraction answers then.
	decls     atomic.Pointer[words.Filter]
	declsOnce sync.Once
	declsLoad func() *words.Filter
}

// parsedCell is a cell whose extraction is already known.
func parsedCell(f *syntax.File) *syntaxCell {
	c := &syntaxCell{f: f}
	c.once.Do(func() {})
	c.set.Store(true)
	return c
}

// pendingCell is a cell that runs load on first need.
func pendingCell(load func() *syntax.File) *syntaxCell { return &syntaxCell{load: load} }

func (c *syntaxCell) get() *syntax.File {
	c.once.Do(func() {
		c.f, c.load = c.load(), nil
		c.set.Store(true)
		c.decls.Store(nil)
	})
	return c.f
}

// mayDeclare reports whether f's text may hold every word of k where a
// declaration's name, a receiver or an import path can be: through the
// filter of its declaration words while it is unparsed and has one, else
// through the filter of all its words.
func (f *File) mayDeclare(k words.Key) bool {
	// The declaration words are words of the text: a key the whole
	// text's filter rules out needs no declaration filter.
	if !f.words.MayContainKey(k) {
		return false
	}
	if d := f.declFilter(); d != nil {
		return d.MayContainKey(k)
	}
	return f.words.MayContainKey(k)
}

// declFilter returns the filter of f's declaration words while f is not
// parsed, computing it on first need; nil when there is none (f is
// parsed, not Go, not clean enough, or changed on disk since it was
// listed).
func (f *File) declFilter() *words.Filter {
	c := f.syn
	if c == nil || c.declsLoad == nil || c.done() {
		return nil
	}
	c.declsOnce.Do(func() {
		if d := c.declsLoad(); d != nil && !c.done() {
			c.decls.Store(d)
		}
	})
	return c.decls.Load()
}

func (c *syntaxCell) done() bool { return c.set.Load() }

// SkipReason says why a path of the workspace is not indexed. The values are
// stable strings reported by ctxd.indexStatus and used by the context
// builder to explain exclusions.
type SkipReason string

// Skip reasons.
const (
	// SkipDenyRule: a never-send rule (seed 002's default deny list or
	// ctxd's additions) matched the path.
	SkipDenyRule SkipReason = "deny_rule"
	// SkipGitignore: .gitignore, .git/info/exclude or .ctxdignore ignores it.
	SkipGitignore SkipReason = "gitignore"
	// SkipBinary: the bytes are binary, or ctxd could not tell (fail closed).
	SkipBinary SkipReason = "binary"
	// SkipEncoding: text in an encoding ctxd does not support.
	SkipEncoding SkipReason = "encoding"
	// SkipTooLarge: larger than the configured size cap.
	SkipTooLarge SkipReason = "too_large"
	// SkipOutsideSandbox: a symbolic link whose target is outside the root.
	SkipOutsideSandbox SkipReason = "outside_sandbox"
	// SkipUnreadable: stat or read failed, a dangling link or a link loop.
	SkipUnreadable SkipReason = "unreadable"
	// SkipDuplicate: a symbolic link to a directory inside the root; its
	// files are indexed once, under their real path.
	SkipDuplicate SkipReason = "duplicate"
)

// Skipped records one path that is not indexed and why. An ignored
// directory is recorded once, with a trailing "/", and never descended into.
type Skipped struct {
	Path   string     `json:"path"`
	Reason SkipReason `json:"reason"`
	// Detail names the deciding rule ("deny: **/*.env",
	// "sub/.gitignore:3: build/") or the classifier's finding ("nul byte").
	// It never contains file contents.
	Detail string `json:"detail,omitempty"`
}
