package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/ctxd/ctxd/index/classify"
	"github.com/ctxd/ctxd/index/syntax"
	"github.com/ctxd/ctxd/index/words"
)

// parseFunc is how the loader obtains a syntax.File for text; the index
// puts the persistent cache in front of syntax.Parse.
type parseFunc func(ctx context.Context, lang syntax.Language, sha string, text []byte) (*syntax.File, error)

// loader says how loaded files get their extraction.
type loader struct {
	// parse extracts a text, through the cache.
	parse parseFunc
	// cached returns the cache's extraction of (lang, sha) without
	// parsing; nil without a cache.
	cached func(lang syntax.Language, sha string) *syntax.File
	// reread, when set, makes loading lazy: a file the cache does not
	// hold is parsed on first need (see File.Syntax) from its bytes read
	// again, which reread returns, or nil when they no longer match sha.
	// A scan lists and fingerprints a whole tree this way before parsing
	// any of it.
	reread func(rel string, size int64, sha string) []byte
	// known returns the file as the cache recorded it when the walk's
	// stat of it matches the record (size, modification time, inode):
	// an unchanged file is neither read nor hashed again. nil without a
	// cache or a match.
	known func(rel string, info fs.FileInfo) *File
	// remember records a file read from disk for the next run's known.
	remember func(rel string, info fs.FileInfo, f *File)
	// hold, when set with reread, lets a scan keep the text its listing
	// read for the file's parse, within a budget of bytes (see
	// [heldText]); nil re-reads every file for its parse.
	hold *holdBudget
}

// maxHeldBytes is how many bytes of text a scan keeps from its listing
// for the parse, so that a file is read once and not twice: on GOROOT/src
// (90 MB of Go) most of the tree, on a larger tree the files listed
// first; the rest is read again. The texts held are freed as they are
// parsed, and what the index keeps of a parse is about as large as its
// text, so holding them moves the peak of the heap little.
const maxHeldBytes = 96 << 20

// holdBudget is the bytes a scan may still hold.
type holdBudget struct{ left atomic.Int64 }

func newHoldBudget(n int64) *holdBudget {
	b := &holdBudget{}
	b.left.Store(n)
	return b
}

// take reserves n bytes, reporting whether the budget had them.
func (b *holdBudget) take(n int64) bool {
	if b.left.Add(-n) >= 0 {
		return true
	}
	b.left.Add(n)
	return false
}

func (b *holdBudget) give(n int64) { b.left.Add(n) }

// heldText is a file's text as the listing read it, kept for the file's
// parse so that the parse does not read and hash the file again. It is
// used only while the file is still that version: the parse lstat's the
// path and compares the stamp with the one the listing's read ended with
// (see [fileStamp]); any difference or a failed stat sends the parse to
// the re-read, whose sha256 check leaves a changed file without an
// extraction, exactly as without holding. A file that had changed within
// settleWindow of the listing's read is not held at all.
//
// The lstat names the real path below the real root: were a directory on
// the way swapped for a link out of the root, it would describe a file
// outside, whose stamp equals the one held only if it is the very file
// (same device, inode and change time) whose bytes were read inside the
// root. No byte is read here.
type heldText struct {
	text   []byte
	abs    string // the real path, to stat
	stamp  fileStamp
	budget *holdBudget
}

// holdFor returns the text to keep for c's parse, or nil: without a
// budget or a stamp, for a file that was not settled when read, or once
// the budget is spent.
func (ld loader) holdFor(c candidate, info fs.FileInfo, text []byte) *heldText {
	if ld.hold == nil || ld.reread == nil || info == nil {
		return nil
	}
	st, ok := stampOf(info)
	if !ok || !st.settledAt(time.Now()) || !ld.hold.take(int64(len(text))) {
		return nil
	}
	return &heldText{text: text, abs: filepath.Join(c.rootReal, filepath.FromSlash(c.real)), stamp: st, budget: ld.hold}
}

// current returns the held text when the file on disk is still the
// version it was read from, nil otherwise; it gives the bytes back to the
// budget either way.
func (h *heldText) current() []byte {
	h.budget.give(int64(len(h.text)))
	info, err := os.Lstat(h.abs)
	if err != nil {
		return nil
	}
	if st, ok := stampOf(info); !ok || st != h.stamp {
		return nil
	}
	return h.text
}

// loadText classifies, fingerprints and parses (or prepares to parse) the
// bytes of one file, and keeps the word filter of its text for the
// demand-driven builds' prefilter. It returns either the File or the
// reason it is skipped; never both.
//
// keep, when set, returns the text to hold for a lazy parse (see
// [loader.holdFor]).
func loadText(ctx context.Context, rel string, data []byte, ld loader, keep func(text []byte) *heldText) (*File, *Skipped) {
	cls := classify.Detect(data)
	switch {
	case cls.Binary:
		return nil, &Skipped{Path: rel, Reason: SkipBinary, Detail: cls.Reason}
	case cls.Encoding == classify.Unknown:
		return nil, &Skipped{Path: rel, Reason: SkipEncoding, Detail: cls.Reason}
	}
	text, err := classify.Decode(data, cls.Encoding)
	if err != nil {
		return nil, &Skipped{Path: rel, Reason: SkipEncoding, Detail: err.Error()}
	}
	sum := sha256.Sum256(data)
	f := &File{
		Path:      rel,
		Language:  syntax.LanguageForPath(rel),
		Encoding:  cls.Encoding,
		sha:       hex.EncodeToString(sum[:]),
		ByteSize:  int64(len(data)),
		LineCount: classify.LineCount(text),
		words:     words.NewFilter(text),
	}
	if f.Language == "" {
		return f, nil
	}
	if f.Language == syntax.Go {
		h := syntax.GoHeader(text)
		f.goHead = h.Package + "\x00" + h.Constraint
		if h.ImportsKnown {
			f.goImps, f.goImpsOK = slices.Sorted(slices.Values(words.KeyOf(h.Imports))), true
		}
	}
	if ld.reread != nil {
		var hold func() *heldText
		if keep != nil {
			hold = func() *heldText { return keep(text) }
		}
		f.syn = ld.lazy(rel, f, hold)
		if f.Language == syntax.Go && (f.Encoding == classify.UTF8 || f.Encoding == classify.ASCII) && ld.hold == nil && !f.syn.done() {
			// Not parsed before a build may need it: see mayDeclare.
			f.syn.declsLoad = ld.declsOf(rel, f)
		}
		return f, nil
	}
	// Through the cache. A parse that fails (cancelled, or a grammar error) leaves the file
	// indexed without symbols: its content is still valid context.
	sf, _ := ld.parse(ctx, f.Language, f.SHA256(), text)
	f.syn = parsedCell(sf)
	return f, nil
}

// declsOf returns the computation of the filter of f's declaration words
// (syntax.GoDeclWords) from its bytes read again: on first need, for the
// few files a demand-driven build looks into for a declaration, not for
// every file the listing reads. nil from it when the bytes changed or
// the text is not clean enough to say.
func (ld loader) declsOf(rel string, f *File) func() *words.Filter {
	size, sha := f.ByteSize, f.SHA256()
	return func() *words.Filter {
		data := ld.reread(rel, size, sha)
		if data == nil {
			return nil
		}
		clean := false
		d := words.NewFilterOf(func(add func([]byte)) { clean = syntax.GoDeclWords(data, add) })
		if !clean {
			return nil
		}
		return d
	}
}

// lazy returns the pending extraction of f: its bytes read again, checked
// against its sha256, decoded and parsed through the cache, on first need.
// It is the cached extraction at once when the cache holds it. Otherwise
// hold (may be nil) gives the listing's text to keep, which is parsed
// instead of the re-read bytes while the file is unchanged (see
// [heldText]). Callers have set reread.
func (ld loader) lazy(rel string, f *File, hold func() *heldText) *syntaxCell {
	lang, sha, size, enc := f.Language, f.SHA256(), f.ByteSize, f.Encoding
	if ld.cached != nil {
		if sf := ld.cached(lang, sha); sf != nil {
			return parsedCell(sf)
		}
	}
	var h *heldText
	if hold != nil {
		h = hold()
	}
	return pendingCell(func() *syntax.File {
		if h != nil {
			if text := h.current(); text != nil {
				// Not the scan's context, as below.
				sf, _ := ld.parse(context.Background(), lang, sha, text)
				return sf
			}
		}
		data := ld.reread(rel, size, sha)
		if data == nil {
			return nil
		}
		text, err := classify.Decode(data, enc)
		if err != nil {
			return nil
		}
		// Not the scan's context: a reader may need the parse after
		// the scan that listed the file was cancelled.
		sf, _ := ld.parse(context.Background(), lang, sha, text)
		return sf
	})
}

// rereader returns a loader.reread for the files of a root: the bytes
// read again without leaving the root, when they still hash to sha.
func rereader(realDir string, links *linkPolicy) func(rel string, size int64, sha string) []byte {
	return func(rel string, size int64, sha string) []byte {
		data, _, err := readRel(realDir, rel, readSpec{max: size, links: links})
		if err != nil {
			return nil
		}
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) != sha {
			return nil
		}
		return data
	}
}

// loadDisk reads one candidate from disk and loads it. The size cap is
// checked again by the read because the file may have grown since the walk
// saw it. Every failure of the read is a skip record: nothing a file is or
// does (a FIFO swapped in, a writer racing the read) stops a scan.
func loadDisk(ctx context.Context, c candidate, maxSize int64, ld loader) (*File, *Skipped) {
	// Only a scan (lazy loading) trusts records: an eager load has the
	// bytes to parse at hand only when it reads them.
	if c.info != nil && ld.known != nil && ld.reread != nil {
		if f := ld.known(c.rel, c.info); f != nil {
			if f.syn == nil && f.Language != "" {
				f.syn = ld.lazy(c.rel, f, nil)
			}
			return f, nil
		}
	}
	data, info, err := c.read(maxSize)
	if err != nil {
		s := readSkip(c.rel, maxSize, err)
		return nil, &s
	}
	f, s := loadText(ctx, c.rel, data, ld, func(text []byte) *heldText { return ld.holdFor(c, info, text) })
	if f != nil && c.info != nil && ld.remember != nil && int64(len(data)) == c.info.Size() {
		ld.remember(c.rel, c.info, f)
	}
	return f, s
}

// readSkip is the skip record of a file the reader refused or failed to
// read: too_large over the cap, binary or encoding when its first bytes
// decided it, outside_sandbox for its hard links, unreadable otherwise,
// with a detail that never quotes the machine's paths.
func readSkip(rel string, maxSize int64, err error) Skipped {
	var ce *capError
	var pe *prefixError
	var nr *notRegularError
	switch {
	case errors.As(err, &ce):
		return tooLarge(rel, ce.size, maxSize)
	case errors.As(err, &pe):
		if pe.res.Binary {
			return Skipped{Path: rel, Reason: SkipBinary, Detail: pe.res.Reason}
		}
		return Skipped{Path: rel, Reason: SkipEncoding, Detail: pe.res.Reason}
	case errors.Is(err, ErrOutsideRoot):
		var se *SandboxError
		if !errors.As(err, &se) || se.Reason == HardLinkReason {
			return hardLinkSkip(rel)
		}
		return Skipped{Path: rel, Reason: SkipOutsideSandbox, Detail: se.Reason}
	case errors.As(err, &nr):
		return Skipped{Path: rel, Reason: SkipUnreadable, Detail: nr.Error()}
	case errors.Is(err, ErrChanged):
		return Skipped{Path: rel, Reason: SkipUnreadable, Detail: err.Error()}
	}
	return Skipped{Path: rel, Reason: SkipUnreadable, Detail: errDetail(err)}
}
