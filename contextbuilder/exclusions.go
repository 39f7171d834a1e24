package contextbuilder

import (
	"fmt"
	"strings"

	"github.com/ctxd/ctxd/index/ignore"
)

// screened is the output of the exclusions step: the candidates with the
// policy's verdict on each (seed 001's namespaces applied as seed 002
// Step 1 hard exclusions).
//
// The other hard exclusions happen where their evidence is: the index
// leaves out never-send, binary, oversized and ignored files (a target
// among them is recorded or refused by the candidates step), and a file
// that turns out unreadable, or holds a secret that cannot be redacted,
// is found when fit reads and renders it — fit reads an optional
// candidate only while it can still fit.
type screened struct {
	candidates
}

// exclusions runs the exclusions step. A target outside the allowed
// namespaces is refused: the user named it, so it is never dropped
// silently. A related candidate outside them is marked; fit records its
// exclusion when it reaches it, because a candidate it never reaches
// (past the soft limit) is reported as removed for the budget instead,
// and a refusal of a required block reports only what was recorded
// before it.
//
// A related candidate under one of the workspace's deny_rules is left out
// here, recorded as a deny_rule exclusion: the rules are never-send rules
// of the user's own, and ctxd chose the candidate, so it is an omission
// like a built-in never-send path (which the index never lists). A target
// under them was recorded when it was looked up (lookupTarget).
func (e *env) exclusions(c candidates) (screened, error) {
	if err := e.checkNamespaces(c.targets); err != nil {
		return screened{}, err
	}
	c.related = e.withoutDenied(c.related, &c.trail)
	c.thread = e.withoutDenied(c.thread, &c.trail)
	for _, it := range c.related {
		it.outside = !e.allowed(it.path)
	}
	for _, it := range c.thread {
		it.outside = !e.allowed(it.path)
	}
	return screened{c}, nil
}

// withoutDenied returns items without those whose file a deny rule of the
// workspace covers, recording each such file once.
func (e *env) withoutDenied(items []*item, t *trail) []*item {
	if e.deny == nil {
		return items
	}
	kept := items[:0:0]
	recorded := map[string]bool{}
	for _, it := range items {
		rule, denied := e.deniedBy(it.path)
		if !denied {
			kept = append(kept, it)
			continue
		}
		if !recorded[it.path] {
			recorded[it.path] = true
			t.exclude(it.path, ExcludeDenyRule, RedactPathExcluded, RedactReasonDenyRule, rule)
		}
	}
	return kept
}

// deniedBy reports whether one of the workspace's deny_rules covers the
// file at rel, and the rule, as "deny_rules:N: pattern". Blocks not from a
// file are never denied.
func (e *env) deniedBy(rel string) (string, bool) {
	if e.deny == nil || rel == "" {
		return "", false
	}
	d := (ignore.Stack{e.deny}).Match(rel, false)
	return d.Rule, d.Ignored
}

// allowed applies the policy's namespaces to a path; true without a policy
// and for blocks not from a file.
func (e *env) allowed(path string) bool {
	pol := e.opts.Policy
	return pol == nil || pol.Allow == nil || path == "" || pol.Allow(path)
}

// policyName names the effective policy in messages.
func (e *env) policyName() string {
	if s := e.opts.Policy.Skill; s != "" {
		return fmt.Sprintf("the policy of skill %q", s)
	}
	return "the workspace policy"
}

// checkNamespaces refuses explicit targets outside the allowed namespaces
// (seed 001: context_namespace_denied).
func (e *env) checkNamespaces(targets []*item) error {
	var denied []string
	for _, t := range targets {
		if !e.allowed(t.path) {
			denied = append(denied, t.path)
		}
	}
	if len(denied) == 0 {
		return nil
	}
	return &Refusal{
		Code:    RefuseNamespaceDenied,
		Message: fmt.Sprintf("%s is outside the namespaces %s allows", strings.Join(denied, ", "), e.policyName()),
		Advice:  "choose a target inside an allowed namespace, or ask the workspace owner to add its namespace to policy.allowed_context_namespaces in .ctxd/config.json (a restart applies it)",
	}
}

// excludeByNamespace leaves out a candidate outside the allowed
// namespaces: an omission (reason policy), not a refusal, since ctxd chose
// it, not the user.
func (e *env) excludeByNamespace(it *item, t *trail) {
	t.exclude(it.excludedPath(), ExcludePolicy, RedactPathExcluded, RedactReasonPolicy,
		fmt.Sprintf("%s %s %s: outside the namespaces %s allows", it.priority, it.reason, it.label(), e.policyName()))
}
