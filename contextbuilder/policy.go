package contextbuilder

import (
	"fmt"
	"strings"
)

// Policy is seed 001's effective context policy for one build, as loaded
// from the workspace's .ctxd/config.json (package workspace/policy
// parses it; this package only applies it). A nil *Policy means no policy:
// every path is allowed and nothing is capped.
type Policy struct {
	// Skill is the override the policy was narrowed by; "" means the
	// global policy. It appears in refusal messages.
	Skill string
	// Digest identifies the effective rules; it enters config_fingerprint,
	// so a bundle built under another policy has another fingerprint.
	Digest string
	// Allow reports whether a workspace-relative path is in an allowed
	// namespace; nil allows every path.
	Allow func(path string) bool
	// MaxItems caps the context items of a bundle (file, symbol and thread
	// blocks); 0 means no cap.
	MaxItems int
	// MaxBytes caps the bytes of those items' contents as sent (after
	// slicing and redaction); 0 means no cap.
	MaxBytes int
}

// Seed 001's selection reasons, raised by this package as refusal codes.
const (
	RefuseNamespaceDenied RefusalCode = "context_namespace_denied"
	RefuseExceedsMaxItems RefusalCode = "context_selection_exceeds_max_items"
	RefuseExceedsMaxBytes RefusalCode = "context_selection_exceeds_max_bytes"
)

// allowed applies the policy's namespaces to a path; true without a policy.
func (p *pipeline) allowed(path string) bool {
	pol := p.opts.Policy
	return pol == nil || pol.Allow == nil || path == "" || pol.Allow(path)
}

// policyName names the effective policy in messages.
func (p *pipeline) policyName() string {
	if s := p.opts.Policy.Skill; s != "" {
		return fmt.Sprintf("the policy of skill %q", s)
	}
	return "the workspace policy"
}

// checkNamespaces refuses explicit targets outside the allowed namespaces
// (seed 001: context_namespace_denied). Targets are never dropped
// silently: the user named them.
func (p *pipeline) checkNamespaces() error {
	var denied []string
	for _, t := range p.targets {
		if !p.allowed(t.path) {
			denied = append(denied, t.path)
		}
	}
	if len(denied) == 0 {
		return nil
	}
	return &Refusal{
		Code:    RefuseNamespaceDenied,
		Message: fmt.Sprintf("%s is outside the namespaces %s allows", strings.Join(denied, ", "), p.policyName()),
		Advice:  "choose a target inside an allowed namespace, or ask the workspace owner to add its namespace to policy.allowed_context_namespaces in .ctxd/config.json (a restart applies it)",
	}
}

// countsForPolicy reports whether an item counts against the policy's
// caps: workspace content and thread references, not the fixed blocks
// that frame the call.
func (it *item) countsForPolicy() bool {
	return it.typ == BlockFile || it.typ == BlockSymbol || it.thread != nil
}

// enforceCaps applies the policy's max_items and max_bytes to the blocks
// that fit the budget: P3 and then P2 blocks are removed in reverse rank
// order (reason policy) until both totals are within their caps, the
// totals recomputed after every removal; when P0 and P1 alone exceed a
// cap the build is refused with seed 001's reason. It returns the kept
// optional blocks.
func (p *pipeline) enforceCaps(required, opt []*item) ([]*item, error) {
	pol := p.opts.Policy
	if pol == nil || pol.MaxItems <= 0 && pol.MaxBytes <= 0 {
		return opt, nil
	}
	measure := func(items []*item) (n, bytes int) {
		for _, it := range items {
			if it.countsForPolicy() {
				n++
				bytes += len(p.render(it).content)
			}
		}
		return n, bytes
	}
	over := func(n, bytes int) bool {
		return pol.MaxItems > 0 && n > pol.MaxItems || pol.MaxBytes > 0 && bytes > pol.MaxBytes
	}
	rn, rb := measure(required)
	on, ob := measure(opt)
	removed := 0
	for i := len(opt) - 1; i >= 0 && over(rn+on, rb+ob); i-- {
		it := opt[i]
		if !it.countsForPolicy() {
			continue
		}
		n, b := measure([]*item{it})
		on, ob = on-n, ob-b
		p.exclude(it.excludedPath(), ExcludePolicy, RedactBlockRemoved, RedactReasonPolicy,
			fmt.Sprintf("%s %s %s: removed to respect %s of %s (removed in reverse rank order)", it.priority, it.reason, it.label(), pol.caps(), p.policyName()))
		opt = append(opt[:i:i], opt[i+1:]...)
		removed++
	}
	if removed > 0 {
		p.notes = append(p.notes, fmt.Sprintf("policy: removed %d optional (P2/P3) blocks in reverse rank order to respect %s", removed, pol.caps()))
	}
	switch {
	case pol.MaxItems > 0 && rn > pol.MaxItems:
		return nil, p.capRefusal(RefuseExceedsMaxItems, fmt.Sprintf("the required context (targets and P1 blocks) has %d items but %s allows max_items %d", rn, p.policyName(), pol.MaxItems))
	case pol.MaxBytes > 0 && rb > pol.MaxBytes:
		return nil, p.capRefusal(RefuseExceedsMaxBytes, fmt.Sprintf("the required context (targets and P1 blocks) has %d bytes but %s allows max_bytes %d", rb, p.policyName(), pol.MaxBytes))
	}
	return opt, nil
}

// capRefusal refuses a selection whose required part breaks a policy cap.
func (p *pipeline) capRefusal(code RefusalCode, msg string) error {
	return &Refusal{
		Code:            code,
		Message:         msg,
		Advice:          "narrow the request (select a region, name a symbol, fewer target files), or ask the workspace owner to raise the cap in .ctxd/config.json",
		RedactionReport: &RedactionReport{Redactions: p.sortedRedactions()},
	}
}

// caps describes the caps that are set, e.g. "max_items 2 and max_bytes
// 400".
func (pol *Policy) caps() string {
	var parts []string
	if pol.MaxItems > 0 {
		parts = append(parts, fmt.Sprintf("max_items %d", pol.MaxItems))
	}
	if pol.MaxBytes > 0 {
		parts = append(parts, fmt.Sprintf("max_bytes %d", pol.MaxBytes))
	}
	return strings.Join(parts, " and ")
}

// digest is the policy's digest for config_fingerprint; "" without one.
func (pol *Policy) digest() string {
	if pol == nil {
		return ""
	}
	return pol.Digest
}

// excludeByNamespace leaves out a candidate outside the allowed
// namespaces: an omission (reason policy), not a refusal, since ctxd chose
// it, not the user.
func (p *pipeline) excludeByNamespace(it *item) {
	p.exclude(it.excludedPath(), ExcludePolicy, RedactPathExcluded, RedactReasonPolicy,
		fmt.Sprintf("%s %s %s: outside the namespaces %s allows", it.priority, it.reason, it.label(), p.policyName()))
}
