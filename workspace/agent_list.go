package workspace

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/ignore"
)

// ListFilesArgs is list_files' argument; every field is optional.
type ListFilesArgs struct {
	// Path is the directory listed, relative to the workspace folder;
	// absent (or ".") lists the whole folder. Files below it are listed
	// at every depth.
	Path string `json:"path,omitempty"`
	// Glob keeps the paths it matches, relative to Path: "*" and "?"
	// within one path segment, "[a-z]" classes, and "**" as a whole
	// segment for any number of directories ("**/*.go": every Go file at
	// any depth; "*.go": those directly in Path). Case matters.
	Glob string `json:"glob,omitempty"`
	// Limit is the number of files, and separately of excluded paths,
	// returned: 1 to MaxListLimit, DefaultListLimit when 0 or absent.
	Limit int `json:"limit,omitempty"`
	// WorkspaceFolder names the folder listed; optional with a single
	// folder.
	WorkspaceFolder string `json:"workspace_folder,omitempty"`
}

// Validate checks the glob and the limit.
func (a *ListFilesArgs) Validate() error {
	if _, err := compileListGlob(a.Glob); err != nil {
		return err
	}
	_, err := checkLimit("limit", a.Limit, DefaultListLimit, MaxListLimit)
	return err
}

// compileListGlob compiles list_files' glob; nil for none. The matcher is
// the ignore rules' wildmatch engine on characters, the one the policy's
// namespace globs use.
func compileListGlob(s string) (*ignore.Glob, error) {
	switch {
	case s == "":
		return nil, nil
	case !utf8.ValidString(s):
		return nil, errors.New("field \"glob\": not valid UTF-8")
	case strings.HasPrefix(s, "/"):
		return nil, fmt.Errorf("field \"glob\": %q starts with \"/\"; a glob is relative to the listed directory", s)
	case strings.ContainsFunc(s, unicode.IsControl):
		return nil, errors.New("field \"glob\": contains a control character")
	}
	g, ok := ignore.CompileGlob(s, ignore.GlobOptions{Runes: true})
	if !ok {
		return nil, fmt.Errorf("field \"glob\": %q can never match (an unterminated \"[\" class or a trailing backslash)", s)
	}
	return g, nil
}

// ListedFile is one file list_files shows: metadata, never content.
type ListedFile struct {
	// Path is relative to the workspace folder, '/'-separated.
	Path string `json:"path"`
	// Language is the index's language of the file ("go", "python", …),
	// "text" for a file indexed without symbols.
	Language string `json:"language"`
	// Bytes is the file's size on disk (the editor's buffer's for an open
	// document).
	Bytes int64 `json:"bytes"`
}

// ExcludedPath is a path under the listed directory that the read tools
// do not show, and why. Nothing of it was read.
type ExcludedPath struct {
	// Path is relative to the workspace folder; a directory excluded
	// whole ends in "/" and stands for everything below it.
	Path string `json:"path"`
	// Reason is the index's skip reason ("deny_rule" for a never-send
	// path, "gitignore", "binary", "encoding", "too_large",
	// "outside_sandbox", "unreadable", "duplicate"), or "policy" for a
	// path outside the workspace policy's namespaces.
	Reason index.SkipReason `json:"reason"`
	// Rule is the rule that matched, for deny_rule, gitignore and policy
	// ("deny:17: .env", "deny_rules:1: secrets/**", ".gitignore:1:
	// build/").
	Rule string `json:"rule,omitempty"`
	// Detail is the finding of the other reasons ("nul byte", "2000000
	// bytes, cap 1048576").
	Detail string `json:"detail,omitempty"`
}

// ListFilesResult is list_files' answer.
type ListFilesResult struct {
	// Files are the files a read tool may read, sorted by path.
	Files []ListedFile `json:"files"`
	// Excluded are the paths under the directory that are not shown,
	// sorted by path. With a glob, excluded files are those it matches,
	// and excluded directories are all listed (the glob may match
	// something below them).
	Excluded []ExcludedPath `json:"excluded"`
	// Total and TotalExcluded count before the limit.
	Total         int `json:"total"`
	TotalExcluded int `json:"total_excluded"`
}

// ListFiles is the list_files tool: the files of a directory of the folder
// and the paths excluded there with their reason and rule, from the
// index's listing (it waits for it, as a build does), so that the same
// ignore files, never-send rules and sandbox decide; the workspace's
// deny_rules and policy are added on top. Nothing is read, a never-send
// path least of all.
func (s *Service) ListFiles(ctx context.Context, c Caller, a *ListFilesArgs) (*ListFilesResult, error) {
	const command = "list_files"
	start := time.Now()
	if err := a.Validate(); err != nil {
		return nil, s.failed(command, invalidArgs(err), start)
	}
	limit, _ := checkLimit("limit", a.Limit, DefaultListLimit, MaxListLimit)
	glob, _ := compileListGlob(a.Glob)
	f, err := s.agentFolder(ctx, c, a.WorkspaceFolder, a.Path, false)
	if err != nil {
		return nil, s.failed(command, err, start)
	}
	dir, err := listDir(f.root, a.Path)
	if err != nil {
		return nil, s.failed(command, err, start)
	}
	files, excluded, err := listUnder(f, dir, glob)
	if err != nil {
		return nil, s.failed(command, err, start)
	}
	res := &ListFilesResult{Files: files[:min(limit, len(files))], Excluded: excluded[:min(limit, len(excluded))],
		Total: len(files), TotalExcluded: len(excluded)}
	s.log.Info(command, "path", dir, "files", res.Total, "excluded", res.TotalExcluded, "duration", time.Since(start))
	return res, nil
}

// listDir is the directory a call lists, relative to the root ("" for the
// root itself), through the sandbox.
func listDir(root *index.RootSnapshot, p string) (string, error) {
	q := p
	if len(q) > 1 {
		q = strings.TrimSuffix(q, "/")
	}
	switch {
	case q == "" || q == ".":
		return "", nil
	case q == root.Root.Dir || index.IsFileURI(q) && index.NormalizeURI(q) == root.Root.URI:
		return "", nil
	}
	rel, err := root.Rel(q)
	if err != nil {
		return "", outsideRefusal("path", p, err)
	}
	return rel, nil
}

// listUnder lists the files and excluded paths under dir ("" for the whole
// root) that glob matches (nil: every path), both sorted by path. A dir
// that is itself excluded is the one excluded path; one that holds nothing
// the index knows of is REFUSE_TARGET_NOT_FOUND.
func listUnder(f *agentFolder, dir string, glob *ignore.Glob) ([]ListedFile, []ExcludedPath, error) {
	files, excluded := []ListedFile{}, []ExcludedPath{}
	if dir != "" {
		// The directory's own never-send rule (a file's, when dir is a
		// file). Namespaces are checked per file: a policy may allow a
		// directory's subtree without the directory.
		asDir := isDir(f.root, dir)
		if sk, ok := f.root.Skip(dir + "/"); ok && sk.Path == dir+"/" {
			asDir = true
		}
		if reason, rule, hidden := f.gate.check(dir, asDir); hidden && reason != SkipPolicy {
			p := dir
			if asDir {
				p += "/"
			}
			return files, append(excluded, ExcludedPath{Path: p, Reason: reason, Rule: rule}), nil
		}
		for _, p := range []string{dir + "/", dir} {
			if sk, ok := f.root.Skip(p); ok {
				return files, append(excluded, excludedPath(sk)), nil
			}
		}
	}
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	matches := func(p string) bool {
		if glob == nil {
			return true
		}
		rel := strings.TrimPrefix(p, prefix)
		if p == dir {
			// dir is a file: the glob sees its name.
			rel = p[strings.LastIndexByte(p, '/')+1:]
		}
		m, unsure := glob.Match(rel)
		return m && !unsure
	}
	found := false
	paths := f.root.Paths()
	i, _ := slices.BinarySearch(paths, prefix)
	if dir != "" {
		// dir itself, when it is a file, sorts just before its prefix.
		i, _ = slices.BinarySearch(paths, dir)
	}
	for ; i < len(paths); i++ {
		p := paths[i]
		if p != dir && !strings.HasPrefix(p, prefix) {
			if p > prefix {
				break
			}
			continue
		}
		found = true
		if !matches(p) {
			continue
		}
		if reason, rule, real, hidden := f.checkFile(p); hidden {
			e := ExcludedPath{Path: p, Reason: reason, Rule: rule}
			if real != "" {
				e.Detail = "symbolic link to " + real
			}
			excluded = append(excluded, e)
			continue
		}
		file, ok := f.root.File(p)
		if !ok {
			continue
		}
		lang := string(file.Language)
		if lang == "" {
			lang = "text"
		}
		files = append(files, ListedFile{Path: p, Language: lang, Bytes: file.ByteSize})
	}
	for _, sk := range f.root.SkippedFiles() {
		if !strings.HasPrefix(sk.Path, prefix) {
			continue
		}
		found = true
		if strings.HasSuffix(sk.Path, "/") || matches(sk.Path) {
			excluded = append(excluded, excludedPath(sk))
		}
	}
	if dir != "" && !found {
		return nil, nil, notFound(dir, "check the argument \"path\" (a directory relative to the workspace folder; case matters), or leave it out to list the whole folder; a directory created since indexing is listed once the index has seen it")
	}
	slices.SortFunc(excluded, func(a, b ExcludedPath) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(string(a.Reason), string(b.Reason)))
	})
	return files, excluded, nil
}

// excludedPath describes a skip record of the index: the rule for a rule's
// decision, the finding otherwise.
func excludedPath(sk index.Skipped) ExcludedPath {
	e := ExcludedPath{Path: sk.Path, Reason: sk.Reason}
	switch sk.Reason {
	case index.SkipDenyRule, index.SkipGitignore:
		e.Rule = sk.Detail
		if target, rule, ok := linkDetail(sk.Detail); ok {
			e.Rule, e.Detail = rule, "symbolic link to "+target
		}
	default:
		e.Detail = sk.Detail
	}
	return e
}

// linkDetail splits the index's record of a symbolic link skipped for its
// target's rule ("symbolic link to .env: deny:21: .env") into the target
// and the rule; ok is false for any other detail.
func linkDetail(detail string) (target, rule string, ok bool) {
	rest, found := strings.CutPrefix(detail, "symbolic link to ")
	if !found {
		return "", "", false
	}
	return strings.Cut(rest, ": ")
}
