package ignore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Kind says which layer of rules ignored a path.
type Kind uint8

const (
	// KindNone: the path is not ignored.
	KindNone Kind = iota
	// KindDeny: a built-in deny rule (or an invalid path) excluded it.
	KindDeny
	// KindGitignore: .git/info/exclude, a .gitignore or the root
	// .ctxdignore excluded it, or one of them could not be read.
	KindGitignore
)

// String returns "none", "deny" or "gitignore".
func (k Kind) String() string {
	switch k {
	case KindNone:
		return "none"
	case KindDeny:
		return "deny"
	case KindGitignore:
		return "gitignore"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Ignore-file names and the sources that name them in decisions.
const (
	gitignoreName  = ".gitignore"
	ctxdignoreName = ".ctxdignore"
	excludeSource  = ".git/info/exclude"
)

// maxFileSize bounds an ignore file. A larger one is not read and counts as
// unreadable (everything below its directory is excluded): ctxd does not
// guess what its patterns would have said.
const maxFileSize = 16 << 20

// Checker answers single-path questions (e.g. for a file the editor opened,
// or a file-watcher event) by checking every ancestor directory first — a
// path under an ignored directory is ignored, and git forbids re-including
// it — loading each directory's .gitignore lazily from disk (plus
// .git/info/exclude and .ctxdignore at the root) and caching them. It is
// safe for concurrent use.
//
// The layers are evaluated in this order, the first that ignores deciding:
//
//  1. [Deny], which nothing can override ([KindDeny]);
//  2. git's rules, in git's precedence: the global excludes file
//     (core.excludesFile, else ~/.config/git/ignore), .git/info/exclude,
//     then each directory's .gitignore from the root down, last match
//     winning ([KindGitignore]);
//  3. the root .ctxdignore, evaluated on its own ([KindGitignore]): its
//     lines can only add exclusions, and no .gitignore negation can undo
//     them.
//
// An ignore file that exists but cannot be read (permissions, a symbolic
// link, not a regular file, larger than 16 MiB) excludes everything below
// its directory: ctxd does not guess what it would have said. So does a
// directory that is a symbolic link: git does not look beyond one, and it
// may lead out of the workspace. Check does not otherwise look at the file
// system: the path itself need not exist.
type Checker struct {
	root string
	// env finds the user's git configuration and global excludes file;
	// os.LookupEnv unless a test sets it before the first Check.
	env envLookup

	mu    sync.Mutex
	files map[fileKey]*lazyRules // replaced by Invalidate
}

// fileKey names one ignore file of the workspace.
type fileKey struct {
	kind uint8  // keyExclude, keyCtxd or keyDir
	dir  string // for keyDir: the directory ("" for the root)
}

const (
	keyExclude uint8 = iota
	keyCtxd
	keyDir
	keyGlobal
)

// lazyRules is one ignore file, read on first use.
type lazyRules struct {
	once  sync.Once
	rules *Rules // nil when the file does not exist
}

// NewChecker returns a Checker for the workspace at root, a directory path
// in the operating system's form. It reads nothing until asked.
func NewChecker(root string) *Checker {
	return &Checker{root: root, env: os.LookupEnv, files: make(map[fileKey]*lazyRules)}
}

// Check decides rel, a slash-separated path relative to the workspace root
// (see [Stack.Match] for the accepted forms); isDir tells whether it is a
// directory (false for a symbolic link). A path that is not clean and
// workspace-relative is reported ignored with [KindDeny]. The Decision of a
// path that is not ignored may still name the negation that re-included it.
func (c *Checker) Check(rel string, isDir bool) (Decision, Kind) {
	rel, isDir, ok := normalize(rel, isDir)
	if !ok {
		return invalidPath, KindDeny
	}
	if rel == "" {
		return Decision{}, KindNone
	}
	if d := (Stack{Deny()}).match(rel, isDir, false); d.Ignored {
		return d, KindDeny
	}
	files := c.snapshot()
	d := c.gitDecision(files, rel, isDir)
	if d.Ignored {
		return d, KindGitignore
	}
	ctxd := c.load(files, fileKey{kind: keyCtxd}, func() *Rules {
		return readRules("", ctxdignoreName, filepath.Join(c.root, ctxdignoreName), false)
	})
	if cd := (Stack{ctxd}).match(rel, isDir, false); cd.Ignored {
		return cd, KindGitignore
	}
	return d, KindNone
}

// Invalidate forgets cached ignore files (call when a .gitignore,
// .ctxdignore or exclude file changes); they are read again when next
// needed. A Check running concurrently may still answer from the old files.
func (c *Checker) Invalidate() {
	c.mu.Lock()
	c.files = make(map[fileKey]*lazyRules)
	c.mu.Unlock()
}

// snapshot returns the current cache, so that one Check uses one
// generation of files even when Invalidate runs meanwhile.
func (c *Checker) snapshot() map[fileKey]*lazyRules {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.files
}

// load returns the cached rules of one file, reading them with read on
// first use. Reading happens outside the lock, once per file and
// generation.
func (c *Checker) load(files map[fileKey]*lazyRules, key fileKey, read func() *Rules) *Rules {
	c.mu.Lock()
	e := files[key]
	if e == nil {
		e = &lazyRules{}
		files[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.rules = read() })
	return e.rules
}

// gitDecision applies git's rules the way git does: each ancestor directory
// is checked with the ignore files above it, and a directory's .gitignore
// is read only when the directory is not ignored.
func (c *Checker) gitDecision(files map[fileKey]*lazyRules, rel string, isDir bool) Decision {
	// Room for the usual depth without allocating.
	var buf [16]*Rules
	stack := append(Stack(buf[:0]), c.load(files, fileKey{kind: keyGlobal}, c.readGlobal),
		c.load(files, fileKey{kind: keyExclude}, c.readExclude), c.dirRules(files, ""))
	for i := 0; ; {
		j := strings.IndexByte(rel[i:], '/')
		p, dir := rel, isDir
		if j >= 0 {
			p, dir = rel[:i+j], true
		}
		if pt := stack.decide(p, dir, true); pt != nil && !pt.negate {
			return Decision{Ignored: true, Rule: pt.rule}
		}
		pt := stack.decide(p, dir, false)
		if j < 0 {
			return decisionOf(pt)
		}
		if pt != nil && !pt.negate {
			return Decision{Ignored: true, Rule: pt.rule}
		}
		stack = append(stack, c.dirRules(files, p))
		i += j + 1
	}
}

// dirRules returns the .gitignore of dir ("" for the root).
func (c *Checker) dirRules(files map[fileKey]*lazyRules, dir string) *Rules {
	return c.load(files, fileKey{kind: keyDir, dir: dir}, func() *Rules {
		source := gitignoreName
		if dir != "" {
			source = dir + "/" + gitignoreName
			// git never looks beyond a symbolic link ("beyond a symbolic
			// link" is an error to it), and what lies there may be outside
			// the workspace: exclude it rather than read through it.
			fi, err := os.Lstat(filepath.Join(c.root, filepath.FromSlash(dir)))
			if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				return unreadable(dir, source, errors.New("directory is a symbolic link, not followed"))
			}
		}
		return readRules(dir, source, filepath.Join(c.root, filepath.FromSlash(source)), false)
	})
}

// readExclude reads info/exclude of the repository at the root, following a
// "gitdir:" file (worktrees, submodules) and its commondir as git does.
func (c *Checker) readExclude() *Rules {
	gitDir, err := commonGitDir(c.root)
	if err != nil {
		return unreadable("", excludeSource, err)
	}
	if gitDir == "" {
		return nil
	}
	// git follows a symbolic link here (the file is the user's, not the
	// repository's), so ctxd does too.
	return readRules("", excludeSource, filepath.Join(gitDir, "info", "exclude"), true)
}

// readGlobal reads the global excludes file (core.excludesFile, or git's
// default ~/.config/git/ignore), found as git finds it (see
// globalExcludesFile). Its patterns are relative to the workspace root and
// have git's lowest precedence. A configuration or file that exists but
// cannot be read or parsed excludes everything: ctxd does not guess what
// it would have said.
func (c *Checker) readGlobal() *Rules {
	gitDir, err := commonGitDir(c.root)
	if err != nil {
		gitDir = "" // readExclude reports the broken .git; the global file does not depend on it
	}
	path, err := globalExcludesFile(c.env, c.root, gitDir)
	if err != nil {
		return unreadable("", globalSource, err)
	}
	if path == "" {
		return nil
	}
	// The file is the user's, outside the workspace; git follows a
	// symbolic link to it, and so does ctxd.
	return readRules("", globalSource, path, true)
}

// commonGitDir returns the directory holding info/exclude for the
// repository at root, "" when root has no .git.
func commonGitDir(root string) (string, error) {
	dotGit := filepath.Join(root, ".git")
	fi, err := os.Stat(dotGit)
	if err != nil {
		if absent(err) {
			return "", nil
		}
		return "", err
	}
	if fi.IsDir() {
		return dotGit, nil
	}
	data, err := readSmallFile(dotGit, true)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return "", errors.New(`.git is a file without "gitdir:"`)
	}
	gitDir := strings.TrimSpace(rest)
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(root, gitDir)
	}
	// A linked worktree's gitdir names the shared repository in commondir.
	common, err := readSmallFile(filepath.Join(gitDir, "commondir"), true)
	if err != nil {
		if absent(err) {
			return gitDir, nil
		}
		return "", err
	}
	dir := strings.TrimSpace(string(common))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(gitDir, dir)
	}
	return dir, nil
}

// readRules reads one ignore file: nil when it does not exist, rules that
// exclude everything below dir when it exists but cannot be read.
func readRules(dir, source, name string, follow bool) *Rules {
	data, err := readSmallFile(name, follow)
	if err != nil {
		if absent(err) {
			return nil
		}
		return unreadable(dir, source, err)
	}
	return NewRules(dir, source, data)
}

// unreadable returns absolute rules that exclude everything below dir,
// naming the file and the reason (without the absolute path, which is no
// business of whoever reads decisions).
func unreadable(dir, source string, err error) *Rules {
	reason := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		reason = pe.Err.Error()
	}
	return &Rules{dir: dir, source: source, absolute: true, patterns: []pattern{{
		kind: kindAll,
		rule: source + ":0: unreadable (" + reason + "), everything below is excluded",
	}}}
}

// absent reports errors that mean "no such file": the file or one of its
// parent directories does not exist, or a parent is not a directory.
func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// readSmallFile reads a regular file of at most maxFileSize bytes. Unless
// follow is set, a symbolic link is refused, as git refuses to read an
// in-tree .gitignore through one (a link could name any file on the
// machine). The file is opened without blocking and checked again after
// opening, so that a FIFO or device swapped in cannot hang the caller.
func readSmallFile(name string, follow bool) ([]byte, error) {
	stat := os.Lstat
	if follow {
		stat = os.Stat
	}
	fi, err := stat(name)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(fi); err != nil {
		return nil, err
	}
	f, err := openFile(name, follow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err = f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkRegular(fi); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("larger than %d bytes", maxFileSize)
	}
	return data, nil
}

func checkRegular(fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		return errors.New("symbolic link not followed")
	case !m.IsRegular():
		return fmt.Errorf("not a regular file (%v)", m.Type())
	case fi.Size() > maxFileSize:
		return fmt.Errorf("larger than %d bytes", maxFileSize)
	}
	return nil
}
