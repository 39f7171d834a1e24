package syntax

import (
	"bytes"
	"fmt"
	"regexp"

	sitter "github.com/smacker/go-tree-sitter"
)

// predicate is one #eq?, #not-eq?, #match? or #not-match? of a pattern,
// compiled once with its query.
type predicate struct {
	op    string // "eq?", "not-eq?", "match?", "not-match?"
	left  uint32 // capture id
	right int64  // capture id compared with, or -1 to compare with value
	value string
	re    *regexp.Regexp // match?, not-match?
}

// compilePredicates reads the predicates of every pattern. Like
// go-tree-sitter's FilterPredicates it knows the four predicates above and
// ignores other directives.
func compilePredicates(q *sitter.Query) ([][]predicate, error) {
	out := make([][]predicate, q.PatternCount())
	for i := range q.PatternCount() {
		for _, steps := range q.PredicatesForPattern(i) {
			if len(steps) < 4 || steps[0].Type != sitter.QueryPredicateStepTypeString {
				continue
			}
			p := predicate{op: q.StringValueForId(steps[0].ValueId), left: steps[1].ValueId, right: -1}
			switch p.op {
			case "eq?", "not-eq?":
				if steps[2].Type == sitter.QueryPredicateStepTypeCapture {
					p.right = int64(steps[2].ValueId)
				} else {
					p.value = q.StringValueForId(steps[2].ValueId)
				}
			case "match?", "not-match?":
				p.value = q.StringValueForId(steps[2].ValueId)
				re, err := regexp.Compile(p.value)
				if err != nil {
					return nil, fmt.Errorf("pattern %d: #%s: %w", i, p.op, err)
				}
				p.re = re
			default:
				continue
			}
			out[i] = append(out[i], p)
		}
	}
	return out, nil
}

// keep applies the pattern's predicates to a match read by drainMatches,
// with the semantics of go-tree-sitter's FilterPredicates (which the
// fallback path calls; TestDrainPaths compares the two): an #eq? with a
// string must hold for every capture of its name, an #eq? between two
// captures compares the first pair found, a #match? must hold for every
// capture of its name.
func (cq *compiledQuery) keep(pattern int, caps []rawCapture, src []byte) bool {
	if !cq.hasPred[pattern] {
		return true
	}
	text := func(c rawCapture) []byte { return src[c.start:c.end] }
	for _, p := range cq.preds[pattern] {
		positive := p.op == "eq?" || p.op == "match?"
		switch {
		case p.right >= 0:
			var l, r *rawCapture
			for i := range caps {
				if caps[i].index == p.left {
					l = &caps[i]
				}
				if int64(caps[i].index) == p.right {
					r = &caps[i]
				}
				if l != nil && r != nil {
					if bytes.Equal(text(*l), text(*r)) != positive {
						return false
					}
					break
				}
			}
		case p.re != nil:
			for _, c := range caps {
				if c.index == p.left && p.re.Match(text(c)) != positive {
					return false
				}
			}
		default:
			for _, c := range caps {
				if c.index == p.left && (string(text(c)) == p.value) != positive {
					return false
				}
			}
		}
	}
	return true
}
