package index

// The sandbox: every path or URI a client sends (an active file, a
// selection, a target, a watched-file event, an opened document) goes
// through the functions of this file before anything is opened, and
// nothing they refuse is ever read, opened or stat'ed. See
// docs/security.md for the rules and the reasons behind them.

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
)

// ErrOutsideRoot is wrapped by every refusal of the sandbox: the path or
// URI cannot be proven to name a file inside the workspace root. Callers
// map it to REFUSE_OUTSIDE_SANDBOX (targets, the active file) or ignore
// the input (events).
var ErrOutsideRoot = errors.New("outside the workspace root")

// SandboxError is a refusal of the sandbox. Reason says which rule refused
// the input in words that never quote the machine's paths: no root
// directory, no symbolic link target.
type SandboxError struct {
	Reason string
}

func (e *SandboxError) Error() string { return "outside the workspace root: " + e.Reason }

// Unwrap makes errors.Is(err, ErrOutsideRoot) true.
func (e *SandboxError) Unwrap() error { return ErrOutsideRoot }

func refuse(format string, args ...any) error {
	return &SandboxError{Reason: fmt.Sprintf(format, args...)}
}

// Reasons shared by several checks.
const (
	reasonLinkOut = "a symbolic link leads out of the workspace root"
	reasonDotDot  = `a ".." segment`
)

// maxLinks bounds the symbolic links followed while resolving one path,
// as filepath.EvalSymlinks does. It is above the kernel's own limit (40 on
// Linux), so a path this package gives up on cannot be opened either.
const maxLinks = 255

// maxDecodes bounds the rounds of percent-decoding applied to one segment
// when looking for hidden dots and separators ("%252e" is "%2e" is ".").
const maxDecodes = 4

var errLinkLoop = errors.New("too many levels of symbolic links")

// sysFS is the file-system access of the sandbox: Lstat and Readlink, never
// anything that follows a link or opens a file. Tests substitute a
// recording implementation to prove that no path outside the root is ever
// touched.
type sysFS interface {
	Lstat(name string) (fs.FileInfo, error)
	Readlink(name string) (string, error)
}

type osFS struct{}

func (osFS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }
func (osFS) Readlink(name string) (string, error)   { return os.Readlink(name) }

// IsFileURI reports whether s is written as a file URI (scheme "file", any
// case).
func IsFileURI(s string) bool {
	return len(s) >= 5 && strings.EqualFold(s[:5], "file:")
}

// CleanRel is the sandbox for a workspace-relative path sent by a client
// (a plan step's target file, a user-selected target, last_error.path).
// rootReal is the root's real directory (symbolic links resolved). The
// result is the path in the index's form: slash-separated, without empty
// or "." segments.
//
// Refused, with an error wrapping ErrOutsideRoot:
//   - an empty path, or one naming the root itself;
//   - a NUL byte anywhere;
//   - a backslash anywhere (ctxd's paths use "/"; on Windows "\" is the
//     separator and is converted first);
//   - an absolute path, a UNC path, a drive form ("C:x", "C:\x", "C:/x")
//     or a URI of another scheme ("http://…"): only relative paths here;
//   - a ".." segment, also one hidden by percent-encoding ("%2e%2e",
//     "%2E.", "%252e%252e") and a segment whose decoding holds a
//     separator or NUL ("..%2f..", "%5c", "%00");
//   - a path that, resolved on disk one component at a time, follows a
//     symbolic link out of rootReal (a link to an absolute path outside
//     it, or a relative link with enough ".."), or whose links cannot be
//     resolved (a loop).
//
// The walk on disk uses Lstat and Readlink on paths inside rootReal only:
// a link's target is checked lexically before it is looked at, so nothing
// outside the root is opened or even stat'ed. A missing component ends the
// walk and the path is accepted: nothing exists there to read (the index
// refuses it as not found).
func CleanRel(rootReal, p string) (string, error) {
	return cleanRel(osFS{}, rootReal, p)
}

func cleanRel(fsys sysFS, rootReal, p string) (string, error) {
	rel, err := lexicalRel(p)
	if err != nil {
		return "", err
	}
	if err := confined(fsys, rootReal, rel); err != nil {
		return "", err
	}
	return rel, nil
}

// lexicalRel applies the lexical rules of CleanRel.
func lexicalRel(p string) (string, error) {
	if p == "" {
		return "", refuse("an empty path")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", refuse("a NUL byte in the path")
	}
	if filepath.Separator == '\\' {
		p = strings.ReplaceAll(p, `\`, "/")
	} else if strings.Contains(p, `\`) {
		return "", refuse(`a backslash in the path (ctxd paths are separated by "/")`)
	}
	switch {
	case strings.HasPrefix(p, "/"):
		return "", refuse("an absolute path where a workspace-relative one was expected")
	case hasDrive(p):
		return "", refuse("a drive letter")
	case hasScheme(p):
		return "", refuse("a URI that is not a file URI")
	}
	segs, err := cleanSegments(p)
	if err != nil {
		return "", err
	}
	if len(segs) == 0 {
		return "", refuse("the workspace root itself, not a file in it")
	}
	return strings.Join(segs, "/"), nil
}

// hasDrive reports a leading drive form: "C:", "C:\x", "C:/x".
func hasDrive(p string) bool {
	return len(p) >= 2 && isASCIILetter(p[0]) && p[1] == ':'
}

// hasScheme reports a leading "scheme://".
func hasScheme(p string) bool {
	i := strings.Index(p, "://")
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := p[j]
		if !isASCIILetter(c) && (j == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// cleanSegments splits a slash-separated path, dropping empty and "."
// segments and refusing ".." and every encoded form of a dot segment or a
// separator.
func cleanSegments(p string) ([]string, error) {
	var out []string
	for seg := range strings.SplitSeq(p, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			return nil, refuse(reasonDotDot)
		}
		if err := checkSegment(seg); err != nil {
			return nil, err
		}
		out = append(out, seg)
	}
	return out, nil
}

// checkSegment refuses a segment that percent-decodes (once or several
// times) into a dot segment or into something holding a separator or NUL:
// whatever decodes it later must not see a different path than the one
// checked here. A segment that merely contains escapes ("%41.go") is kept
// as it is.
func checkSegment(seg string) error {
	if runtime.GOOS == "windows" && strings.Trim(seg, ". ") == "" {
		// Windows drops trailing dots and spaces: ".. " is "..".
		return refuse(reasonDotDot)
	}
	cur := seg
	for range maxDecodes {
		if !strings.Contains(cur, "%") {
			return nil
		}
		next := lenientUnescape(cur)
		if next == cur {
			return nil
		}
		cur = next
		if cur == "." || cur == ".." {
			return refuse("a percent-encoded dot segment")
		}
		if strings.ContainsAny(cur, "/\\\x00") {
			return refuse("a percent-encoded separator or NUL byte")
		}
	}
	return refuse("a segment encoded too many times")
}

// lenientUnescape decodes every valid %XX escape and leaves anything else,
// as lenient decoders do.
func lenientUnescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// confined walks rel below rootReal and refuses it when a symbolic link
// leads out of the root or cannot be resolved. A walk that stops at a
// missing component, at a file used as a directory or at a directory this
// process may not search is accepted: the kernel stops at the same place,
// so nothing beyond it can be opened.
func confined(fsys sysFS, rootReal, rel string) error {
	_, err := resolveIn(fsys, rootReal, rel)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrOutsideRoot):
		return err
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, fs.ErrPermission):
		return nil
	case errors.Is(err, errLinkLoop):
		return refuse("its symbolic links cannot be resolved (a loop)")
	default:
		return refuse("its symbolic links cannot be resolved (%s)", errDetail(err))
	}
}

// resolveIn resolves rel (slash-separated, relative) below rootReal one
// component at a time, as the kernel would, and returns the real path
// relative to rootReal ("" for the root itself). Every Lstat and Readlink
// is of a path inside rootReal: a link's target is joined to the real
// directory holding the link and checked lexically before it is looked
// at. A ".." (from a link's target) steps back one real component, which
// is exact because every component before it is already resolved.
//
// Errors: a *SandboxError when a link leads out of rootReal; errLinkLoop
// after maxLinks links; the Lstat or Readlink error of a component
// otherwise (fs.ErrNotExist for a missing one).
func resolveIn(fsys sysFS, rootReal, rel string) (string, error) {
	var cur []string // resolved real components below rootReal
	todo := splitSlash(rel)
	links := 0
	for len(todo) > 0 {
		seg := todo[0]
		todo = todo[1:]
		switch seg {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return "", refuse(reasonLinkOut)
			}
			cur = cur[:len(cur)-1]
			continue
		}
		next := append(cur[:len(cur):len(cur)], seg)
		abs := filepath.Join(rootReal, filepath.FromSlash(strings.Join(next, "/")))
		info, err := fsys.Lstat(abs)
		if err != nil {
			return "", err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		links++
		if links > maxLinks {
			return "", errLinkLoop
		}
		target, err := fsys.Readlink(abs)
		if err != nil {
			return "", err
		}
		target = filepath.ToSlash(target)
		if filepath.IsAbs(filepath.FromSlash(target)) || strings.HasPrefix(target, "/") {
			below, ok := lexicallyBelow(rootReal, target)
			if !ok {
				return "", refuse(reasonLinkOut)
			}
			cur = nil
			todo = append(below, todo...)
			continue
		}
		// A relative target is relative to the directory holding the link.
		todo = append(splitSlash(target), todo...)
	}
	return strings.Join(cur, "/"), nil
}

// splitSlash splits a slash-separated path into its non-empty components.
func splitSlash(p string) []string {
	var out []string
	for s := range strings.SplitSeq(p, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// lexicallyBelow reports whether the absolute link target lies below
// rootReal by its text alone: its first components, ignoring empty and "."
// ones, must be rootReal's. It returns the components after them, which
// may still hold ".." (resolved by the caller against real directories).
// A target that reaches the root through another spelling (an alias of a
// parent directory) is refused: fail closed.
func lexicallyBelow(rootReal, target string) ([]string, bool) {
	var t []string
	for _, s := range splitSlash(target) {
		if s != "." {
			t = append(t, s)
		}
	}
	root := splitSlash(filepath.ToSlash(rootReal))
	if runtime.GOOS == "windows" {
		return nil, false // absolute link targets are not followed on Windows
	}
	if len(t) < len(root) {
		return nil, false
	}
	for i, s := range root {
		if t[i] != s {
			return nil, false
		}
	}
	return t[len(root):], true
}

// ClientPath turns a file URI or an absolute path sent by a client into a
// clean absolute path, refusing (ErrOutsideRoot) every form that could name
// something other than what it seems:
//   - a NUL byte, raw or encoded (%00);
//   - a file URI with a host other than "" or "localhost" (another
//     machine), with user information, a query or a fragment, or without
//     an absolute path ("file:a/b");
//   - an encoded separator in a file URI (%2f, %5c) and any backslash;
//   - a UNC path ("//host/share", "\\host\share", "file:////host/share");
//   - the segment rules of CleanRel (".." also when percent-encoded).
//
// A drive form ("/C:/x") is a drive on Windows and an ordinary path
// elsewhere. ClientPath does not touch the disk; [Snapshot.LocateChecked]
// and [RootSnapshot.Rel] add the root and the symbolic-link check.
func ClientPath(s string) (string, error) {
	if s == "" {
		return "", refuse("an empty path")
	}
	if strings.IndexByte(s, 0) >= 0 {
		return "", refuse("a NUL byte in the path")
	}
	p := s
	if IsFileURI(s) {
		u, err := url.Parse(s)
		switch {
		case err != nil:
			return "", refuse("a malformed file URI")
		case u.Opaque != "":
			return "", refuse("a file URI without an absolute path")
		case u.User != nil:
			return "", refuse("a file URI with user information")
		case u.Host != "" && !strings.EqualFold(u.Host, "localhost"):
			return "", refuse("a file URI naming another host")
		case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || strings.Contains(s, "#"):
			return "", refuse("a file URI with a query or a fragment")
		}
		if raw := strings.ToLower(s); strings.Contains(raw, "%2f") || strings.Contains(raw, "%5c") {
			return "", refuse("a percent-encoded separator in a file URI")
		}
		p = u.Path
		if strings.IndexByte(p, 0) >= 0 {
			return "", refuse("a NUL byte in the path")
		}
		if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && hasDrive(p[1:]) {
			p = p[1:]
		}
	} else if filepath.Separator == '\\' {
		p = strings.ReplaceAll(p, `\`, "/")
	}
	if strings.Contains(p, `\`) {
		return "", refuse(`a backslash in the path (ctxd paths are separated by "/")`)
	}
	if strings.HasPrefix(p, "//") {
		return "", refuse("a UNC path (a network share)")
	}
	prefix := "/"
	if runtime.GOOS == "windows" && hasDrive(p) && len(p) >= 3 && p[2] == '/' {
		prefix, p = p[:3], p[3:]
	} else if !strings.HasPrefix(p, "/") {
		return "", refuse("not an absolute path or a file URI")
	}
	segs, err := cleanSegments(p)
	if err != nil {
		return "", err
	}
	return filepath.FromSlash(prefix + strings.Join(segs, "/")), nil
}

// LocateChecked is the sandboxed [Snapshot.Locate]: it finds the root
// holding a file URI or an absolute path (the innermost one when folders
// nest) and the path relative to it, applying every rule of [ClientPath]
// and [CleanRel], the symbolic-link walk included. The error wraps
// ErrOutsideRoot; it never names the root or a link's target.
func (s *Snapshot) LocateChecked(uriOrPath string) (*RootSnapshot, string, error) {
	return s.locateChecked(osFS{}, uriOrPath)
}

func (s *Snapshot) locateChecked(fsys sysFS, uriOrPath string) (*RootSnapshot, string, error) {
	r, rel, err := s.locateLexical(uriOrPath)
	if err != nil {
		return nil, "", err
	}
	if err := confined(fsys, r.realDir, rel); err != nil {
		return nil, "", err
	}
	return r, rel, nil
}

// locateLexical is LocateChecked without the walk on disk: the index's
// event handling walks the parents itself and lets the last component be
// a link (recorded as outside_sandbox, never followed out).
func (s *Snapshot) locateLexical(uriOrPath string) (*RootSnapshot, string, error) {
	abs, err := ClientPath(uriOrPath)
	if err != nil {
		return nil, "", err
	}
	var root *RootSnapshot
	var rel string
	for _, r := range s.roots {
		if rp, ok := r.lexicalRel(abs); ok && (root == nil || len(r.Root.Dir) > len(root.Root.Dir)) {
			root, rel = r, rp
		}
	}
	if root == nil {
		return nil, "", refuse("not inside a workspace folder")
	}
	return root, rel, nil
}

// Rel is the sandbox of one root: s is a workspace-relative path, an
// absolute path or a file URI; the result is the path relative to the root
// after every check of [ClientPath] and [CleanRel].
func (r *RootSnapshot) Rel(s string) (string, error) {
	if !IsFileURI(s) && !isAbsLike(s) {
		return cleanRel(osFS{}, r.realDir, s)
	}
	return r.relOfURI(s)
}

// relOfURI is Rel for a file URI or an absolute path only.
func (r *RootSnapshot) relOfURI(s string) (string, error) {
	abs, err := ClientPath(s)
	if err != nil {
		return "", err
	}
	rel, ok := r.lexicalRel(abs)
	if !ok {
		return "", refuse("not inside the workspace folder")
	}
	if err := confined(osFS{}, r.realDir, rel); err != nil {
		return "", err
	}
	return rel, nil
}

// isAbsLike reports a string that is meant as an absolute path.
func isAbsLike(s string) bool {
	return strings.HasPrefix(s, "/") || filepath.IsAbs(s)
}

// lexicalRel returns abs (clean, from ClientPath) relative to the root,
// named by the folder's path or its real path, after the lexical rules of
// CleanRel; ok is false outside the root and for the root itself.
func (r *RootSnapshot) lexicalRel(abs string) (string, bool) {
	for _, dir := range []string{r.Root.Dir, r.realDir} {
		if dir == "" {
			continue
		}
		rest, ok := underDir(dir, abs)
		if !ok {
			continue
		}
		rel, err := lexicalRel(rest)
		if err != nil {
			return "", false
		}
		return rel, true
	}
	return "", false
}

// underDir returns abs below dir (both clean absolute paths) as a
// slash-separated path; ok is false when abs is not strictly below dir.
func underDir(dir, abs string) (string, bool) {
	prefix := dir
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if !strings.HasPrefix(abs, prefix) || len(abs) == len(prefix) {
		return "", false
	}
	return filepath.ToSlash(abs[len(prefix):]), true
}

// parentsReal reports whether every directory above rel (not rel itself)
// is a real directory of the root: no symbolic link among them, nothing
// missing. The index re-reads a path named by an event only then; the
// last component may be a link, which resolveLink confines.
func parentsReal(rootReal, rel string) bool {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return true
	}
	parent := rel[:i]
	real, err := resolveIn(osFS{}, rootReal, parent)
	return err == nil && real == parent
}

// readRel reads the file rel of the root without ever leaving it: rel is
// resolved with resolveIn (refusing a link out), then read by readIn,
// through an os.Root that also refuses a link swapped in between, and
// checked for hard links on the opened descriptor.
func readRel(rootReal, rel string, spec readSpec) ([]byte, fs.FileInfo, error) {
	real, err := resolveIn(osFS{}, rootReal, rel)
	if err != nil {
		return nil, nil, err
	}
	return readIn(rootReal, real, spec)
}

// Hard links. A regular file with more than one link (st_nlink > 1) may be
// the same file as one outside the workspace root: `ln /etc/secret
// w/notes.txt` makes w/notes.txt a name of /etc/secret, indistinguishable
// from a file of the workspace by its path, and the sandbox's walk cannot
// see it. Such a file is not read unless the workspace's
// .ctxd/config.json allows it ("sandbox": {"allow_hard_links": true}). The
// count is taken from the opened descriptor (fstat), so a link made
// between a check by path and the read is still seen.
const (
	// HardLinkReason is the reason of the refusal and the start of the
	// outside_sandbox skip record of a file with more than one hard link.
	HardLinkReason = "a file with more than one hard link: another of its names may be outside the workspace root"
	// HardLinkAdvice says how to allow such files.
	HardLinkAdvice = `if every hard link in the workspace is trusted, set "sandbox": {"allow_hard_links": true} in .ctxd/config.json and restart ctxd; otherwise replace the link with a copy of the file`
)

// hardLinkDetail is the Detail of the outside_sandbox skip record of a
// file with more than one hard link.
const hardLinkDetail = HardLinkReason + "; " + HardLinkAdvice

// IsHardLinkSkip reports whether a skip record is that of a file refused
// for having more than one hard link.
func IsHardLinkSkip(s Skipped) bool {
	return s.Reason == SkipOutsideSandbox && strings.HasPrefix(s.Detail, HardLinkReason)
}

// linkPolicy answers, once, whether a root allows hard links: the
// configuration is read only when a file with several links is met.
type linkPolicy struct {
	allowed func() bool
}

// newLinkPolicy returns the policy of the root at rootReal: allowed (the
// index's Options.HardLinks) is asked on first use; nil allows nothing.
func newLinkPolicy(rootReal string, allowed func(string) bool) *linkPolicy {
	return &linkPolicy{allowed: sync.OnceValue(func() bool { return allowed != nil && allowed(rootReal) })}
}

// allows reports whether a file with the given information may be read.
// Only regular files are concerned: a directory always has several links.
func (p *linkPolicy) allows(info fs.FileInfo) bool {
	if !info.Mode().IsRegular() || linkCount(info) <= 1 {
		return true
	}
	return p != nil && p.allowed()
}

// checkHardLinks refuses (ErrOutsideRoot, HardLinkReason) an opened regular
// file with more than one link when the root does not allow it. It looks
// at the descriptor, never at a path.
func checkHardLinks(f *os.File, p *linkPolicy) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	return hardLinkRefusal(info, p)
}

// hardLinkRefusal is checkHardLinks for the fstat information of an opened
// file.
func hardLinkRefusal(info fs.FileInfo, p *linkPolicy) error {
	if !p.allows(info) {
		return &SandboxError{Reason: HardLinkReason}
	}
	return nil
}
