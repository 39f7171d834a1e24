package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctxd/ctxd/index/ignore"
)

// candidate is a file the walk found worth reading: not ignored, not a
// link out of the root.
type candidate struct {
	rel string // workspace-relative, slash-separated
	// rootReal is the root's real directory, and real the path to read
	// below it (a link's resolved target), which names no link.
	rootReal, real string
	// links says whether the root allows files with several hard links;
	// nil allows none.
	links *linkPolicy
	// info is what the walk saw of the file (the link's target for a
	// link), for the cache's check of unchanged files; nil when unknown.
	info fs.FileInfo
}

// read reads the candidate with readIn, inside the root and never
// blocking on what the path has become since the walk (a FIFO swapped in
// is refused), deciding binary on its first bytes. A regular file with
// more than one hard link is refused unless the root allows it: the count
// is that of the opened descriptor, so a link made since the walk looked
// is still seen. It also returns the descriptor's fstat after the read,
// which describes the version of the file the bytes are.
func (c candidate) read(max int64) ([]byte, fs.FileInfo, error) {
	return readIn(c.rootReal, c.real, readSpec{max: max, links: c.links, sniff: true})
}

// hardLinkSkip is the record of a file refused for its hard links.
func hardLinkSkip(rel string) Skipped {
	return Skipped{Path: rel, Reason: SkipOutsideSandbox, Detail: hardLinkDetail}
}

// walkResult is the outcome of walking one root.
type walkResult struct {
	files   []candidate // in walk order (sorted by path within directories)
	skipped []Skipped
}

// walkFrom lists the files of a root below the directory sub ("" for the
// whole root), deciding every entry with the root's ignore.Checker (deny
// rules, then git's ignore files, then .ctxdignore: one implementation for
// the walk and for single-path questions). An ignored directory is recorded
// and never entered. The walk reads directories only; file contents are
// read later, in parallel. The caller has checked that sub itself is not
// ignored.
func walkFrom(ctx context.Context, realDir, sub string, checker *ignore.Checker, maxSize int64, links *linkPolicy) (walkResult, error) {
	var res walkResult
	var visit func(dirRel string) error
	visit = func(dirRel string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		dirAbs := filepath.Join(realDir, filepath.FromSlash(dirRel))
		entries, err := os.ReadDir(dirAbs)
		if err != nil {
			if dirRel == "" {
				return fmt.Errorf("reading workspace root: %w", err)
			}
			res.skipped = append(res.skipped, Skipped{Path: dirRel + "/", Reason: SkipUnreadable, Detail: errDetail(err)})
			return nil
		}
		for _, e := range entries {
			rel := path.Join(dirRel, e.Name())
			mode := e.Type()
			isDir := mode.IsDir()
			if s, ok := ruleSkip(checker, rel, isDir); ok {
				res.skipped = append(res.skipped, s)
				continue
			}
			switch {
			case isDir:
				if err := visit(rel); err != nil {
					return err
				}
			case mode&fs.ModeSymlink != 0:
				c, s, ok := resolveLinkWith(realDir, rel, checker, maxSize, links)
				if !ok {
					res.skipped = append(res.skipped, s)
					continue
				}
				res.files = append(res.files, c)
			case mode.IsRegular():
				info, err := e.Info()
				if err != nil {
					res.skipped = append(res.skipped, Skipped{Path: rel, Reason: SkipUnreadable, Detail: errDetail(err)})
					continue
				}
				if !links.allows(info) {
					res.skipped = append(res.skipped, hardLinkSkip(rel))
					continue
				}
				if info.Size() > maxSize {
					res.skipped = append(res.skipped, tooLarge(rel, info.Size(), maxSize))
					continue
				}
				res.files = append(res.files, candidate{rel: rel, rootReal: realDir, real: rel, links: links, info: info})
			default:
				// Sockets, devices and pipes are never read: a read could block.
				res.skipped = append(res.skipped, Skipped{Path: rel, Reason: SkipUnreadable, Detail: "not a regular file"})
			}
		}
		return nil
	}
	err := visit(sub)
	return res, err
}

// ruleSkip decides one path with the root's checker; a directory's record
// ends in "/".
func ruleSkip(checker *ignore.Checker, rel string, isDir bool) (Skipped, bool) {
	d, kind := checker.Check(rel, isDir)
	if !d.Ignored {
		return Skipped{}, false
	}
	p := rel
	if isDir {
		p += "/"
	}
	reason := SkipGitignore
	if kind == ignore.KindDeny {
		reason = SkipDenyRule
	}
	return Skipped{Path: p, Reason: reason, Detail: d.Rule}, true
}

func tooLarge(rel string, size, max int64) Skipped {
	return Skipped{Path: rel, Reason: SkipTooLarge, Detail: fmt.Sprintf("%d bytes, cap %d", size, max)}
}

// resolveLinkWith follows a symbolic link found at rel. The link is kept only
// when its final target is a regular file inside the real root that the
// rules would not have skipped under its own name: "notes.txt -> .env" must
// not smuggle a denied file in. Links to directories are not followed; the
// directory is indexed where it really is (or skipped there with its own
// reason), which also makes link loops impossible to walk into. The link
// is resolved by the sandbox's walk (resolveIn), which checks each target
// before looking at it: a link out of the root is recorded without
// anything outside being stat'ed.
//
// links is the root's hard-link policy: a link to a regular file with
// several hard links is refused as that file would be.
func resolveLinkWith(realDir, rel string, checker *ignore.Checker, maxSize int64, links *linkPolicy) (candidate, Skipped, bool) {
	targetRel, err := resolveIn(osFS{}, realDir, rel)
	if errors.Is(err, ErrOutsideRoot) {
		return candidate{}, Skipped{Path: rel, Reason: SkipOutsideSandbox, Detail: "symbolic link to a path outside the workspace root"}, false
	}
	if err != nil {
		return candidate{}, Skipped{Path: rel, Reason: SkipUnreadable, Detail: "symbolic link: " + errDetail(err)}, false
	}
	target := filepath.Join(realDir, filepath.FromSlash(targetRel))
	info, err := os.Stat(target)
	if err != nil {
		return candidate{}, Skipped{Path: rel, Reason: SkipUnreadable, Detail: "symbolic link: " + errDetail(err)}, false
	}
	if info.IsDir() {
		return candidate{}, Skipped{Path: rel + "/", Reason: SkipDuplicate, Detail: "symbolic link to directory " + targetRel + "/, indexed there"}, false
	}
	if !info.Mode().IsRegular() {
		return candidate{}, Skipped{Path: rel, Reason: SkipUnreadable, Detail: "symbolic link to a non-regular file"}, false
	}
	if s, ignored := ruleSkip(checker, targetRel, false); ignored {
		s.Path, s.Detail = rel, "symbolic link to "+targetRel+": "+s.Detail
		return candidate{}, s, false
	}
	if !links.allows(info) {
		return candidate{}, hardLinkSkip(rel), false
	}
	if info.Size() > maxSize {
		return candidate{}, tooLarge(rel, info.Size(), maxSize), false
	}
	return candidate{rel: rel, rootReal: realDir, real: targetRel, links: links, info: info}, Skipped{}, true
}

// within reports whether abs lies inside dir (both real, absolute paths)
// and returns its slash-separated path relative to dir.
func within(dir, abs string) (string, bool) {
	rel, err := filepath.Rel(dir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	if rel == "." {
		return "", true
	}
	return filepath.ToSlash(rel), true
}

// errDetail describes an I/O error without the absolute path, which would
// leak the machine's layout into manifests.
func errDetail(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	return err.Error()
}
