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
func (e *env) enforceCaps(required, opt []*item, t *trail) ([]*item, error) {
	pol := e.opts.Policy
	if pol == nil || pol.MaxItems <= 0 && pol.MaxBytes <= 0 {
		return opt, nil
	}
	req := e.measure(required)
	kept := e.measure(opt)
	removed := 0
	for i := len(opt) - 1; i >= 0 && pol.exceeded(req.plus(kept)); i-- {
		it := opt[i]
		if !it.countsForPolicy() {
			continue
		}
		kept = kept.minus(e.measure([]*item{it}))
		t.exclude(it.excludedPath(), ExcludePolicy, RedactBlockRemoved, RedactReasonPolicy,
			fmt.Sprintf("%s %s %s: removed to respect %s of %s (removed in reverse rank order)", it.priority, it.reason, it.label(), pol.caps(), e.policyName()))
		opt = append(opt[:i:i], opt[i+1:]...)
		removed++
	}
	if removed > 0 {
		t.note("policy: removed %d optional (P2/P3) blocks in reverse rank order to respect %s", removed, pol.caps())
	}
	switch {
	case pol.MaxItems > 0 && req.items > pol.MaxItems:
		return nil, capRefusal(RefuseExceedsMaxItems, fmt.Sprintf("the required context (targets and P1 blocks) has %d items but %s allows max_items %d", req.items, e.policyName(), pol.MaxItems), t)
	case pol.MaxBytes > 0 && req.bytes > pol.MaxBytes:
		return nil, capRefusal(RefuseExceedsMaxBytes, fmt.Sprintf("the required context (targets and P1 blocks) has %d bytes but %s allows max_bytes %d", req.bytes, e.policyName(), pol.MaxBytes), t)
	}
	return opt, nil
}

// usage is what blocks count against the policy's caps.
type usage struct{ items, bytes int }

func (u usage) plus(v usage) usage  { return usage{u.items + v.items, u.bytes + v.bytes} }
func (u usage) minus(v usage) usage { return usage{u.items - v.items, u.bytes - v.bytes} }

// measure counts the blocks that count against the caps and the bytes of
// their contents as sent.
func (e *env) measure(items []*item) usage {
	var u usage
	for _, it := range items {
		if it.countsForPolicy() {
			u.items++
			u.bytes += len(e.rendered(it).content)
		}
	}
	return u
}

// exceeded reports whether u is over a cap that is set.
func (pol *Policy) exceeded(u usage) bool {
	return pol.MaxItems > 0 && u.items > pol.MaxItems || pol.MaxBytes > 0 && u.bytes > pol.MaxBytes
}

// capRefusal refuses a selection whose required part breaks a policy cap.
func capRefusal(code RefusalCode, msg string, t *trail) error {
	r := &Refusal{
		Code:            code,
		Message:         msg,
		RedactionReport: &RedactionReport{Redactions: t.sortedRedactions()},
	}
	return r.advise(act(ActionSelectRegion), act(ActionNameSymbol), act(ActionFewerTargets), act(ActionRaisePolicyCap))
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
