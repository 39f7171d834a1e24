package ignore

import (
	"os"
	"path"
	"strings"
)

// Decision says whether a path is ignored and by which rule. The zero
// Decision means "not ignored, no line matched".
type Decision struct {
	Ignored bool
	// Rule is "source:line: pattern" of the deciding line ("" when no line
	// matched); set also when a negation decided (Ignored false). When an
	// ancestor directory is ignored, Rule is the line that ignored the
	// ancestor. Line 0 marks a decision that no pattern line made: an
	// ignore file that could not be read ("sub/.gitignore:0: ..."), or
	// "ctxd:0: ..." for a path that is not a clean workspace-relative one.
	Rule string
}

// invalidPath is the decision for paths that are not clean and relative to
// the workspace: ctxd cannot tell which file they name, so it excludes them.
var invalidPath = Decision{Ignored: true, Rule: "ctxd:0: not a clean workspace-relative path"}

// Stack is a root-to-leaf list of Rules; evaluation is last-match-wins
// across the whole stack in order, each Rules matching paths relative to
// its own dir and only paths below its dir. Nil entries are skipped.
//
// For a path a/b/c.go, git's own order (lowest precedence first) is
// [.git/info/exclude, .gitignore, a/.gitignore, a/b/.gitignore]. Rules from
// [Deny] (and any Rules that stands for an unreadable ignore file) are
// evaluated first and apart from the others wherever they sit in the stack:
// no negation can re-include what they match.
type Stack []*Rules

// Match decides rel, a slash-separated path relative to the workspace root
// (a trailing slash also marks a directory). isDir tells whether rel is a
// directory; pass false for a symbolic link, as git does.
//
// Like git, Match first checks every ancestor directory of rel against the
// rules that apply to it: a path under an ignored directory is ignored,
// whatever negation follows, and the decision names the line that ignored
// the directory. A path that is not clean and workspace-relative ("../x",
// "/x", "a//b", "a/./b") is reported ignored. "" and "." (the root itself)
// are never ignored.
func (s Stack) Match(rel string, isDir bool) Decision {
	rel, isDir, ok := normalize(rel, isDir)
	if !ok {
		return invalidPath
	}
	if rel == "" {
		return Decision{}
	}
	return s.match(rel, isDir, false)
}

// MatchLeaf is Match without the ancestor checks, for a walker that never
// descends into a directory Match or MatchLeaf reported ignored: the
// ancestors of every path it asks about are then known not to be ignored,
// and the answer is the same as Match's at a fraction of the cost. Asked
// about a path below an ignored directory, MatchLeaf can answer wrongly.
func (s Stack) MatchLeaf(rel string, isDir bool) Decision {
	rel, isDir, ok := normalize(rel, isDir)
	if !ok {
		return invalidPath
	}
	if rel == "" {
		return Decision{}
	}
	return s.match(rel, isDir, true)
}

// match evaluates a normalized, non-empty path: absolute rules first, then
// the ordinary ones.
func (s Stack) match(rel string, isDir, leafOnly bool) Decision {
	if d := s.walk(rel, isDir, true, leafOnly); d.Ignored {
		return d
	}
	return s.walk(rel, isDir, false, leafOnly)
}

// walk decides rel with the rules whose absolute flag equals abs, checking
// the ancestors top down unless leafOnly is set.
func (s Stack) walk(rel string, isDir, abs, leafOnly bool) Decision {
	i := 0
	if leafOnly {
		i = len(rel)
	}
	for {
		j := strings.IndexByte(rel[i:], '/')
		if j < 0 {
			return decisionOf(s.decide(rel, isDir, abs))
		}
		if p := s.decide(rel[:i+j], true, abs); p != nil && !p.negate {
			return Decision{Ignored: true, Rule: p.rule}
		}
		i += j + 1
	}
}

// decide returns the last pattern of the stack that matches p, or nil.
func (s Stack) decide(p string, isDir, abs bool) *pattern {
	base := p[strings.LastIndexByte(p, '/')+1:]
	for i := len(s) - 1; i >= 0; i-- {
		r := s[i]
		if r == nil || r.absolute != abs {
			continue
		}
		sub, ok := r.below(p)
		if !ok {
			continue
		}
		if pt := r.lastMatch(sub, base, isDir); pt != nil {
			return pt
		}
	}
	return nil
}

// below returns p relative to the rules' directory; ok is false when p is
// not strictly below it (a directory's own ignore file does not apply to
// the directory itself).
func (r *Rules) below(p string) (sub string, ok bool) {
	if r.dir == "" {
		return p, true
	}
	n := len(r.dir)
	if len(p) > n && p[n] == '/' && equalFold(p[:n], r.dir, r.fold) {
		return p[n+1:], true
	}
	return "", false
}

func decisionOf(p *pattern) Decision {
	if p == nil {
		return Decision{}
	}
	return Decision{Ignored: !p.negate, Rule: p.rule}
}

// normalize checks that rel is a clean slash-separated path relative to the
// workspace root and removes one trailing slash, which marks a directory.
// ok is false for anything else; "" and "." become "".
func normalize(rel string, isDir bool) (clean string, dir bool, ok bool) {
	if len(rel) > 1 && rel[len(rel)-1] == '/' {
		rel = rel[:len(rel)-1]
		isDir = true
	}
	if rel == "" || rel == "." {
		return "", isDir, true
	}
	if rel[0] == '/' || rel == ".." || strings.HasPrefix(rel, "../") ||
		path.Clean(rel) != rel || strings.IndexByte(rel, 0) >= 0 {
		return rel, isDir, false
	}
	// On Windows a backslash separates directories too: "node_modules\x"
	// must not slip past the deny rules as one odd file name.
	if os.PathSeparator == '\\' && strings.IndexByte(rel, '\\') >= 0 {
		return rel, isDir, false
	}
	return rel, isDir, true
}
