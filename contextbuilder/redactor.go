package contextbuilder

import (
	"sync"

	"github.com/ctxd/ctxd/contextbuilder/secrets"
)

// Confidence says how sure a Redactor is that a finding is a secret
// (secrets.Confidence).
type Confidence = secrets.Confidence

// Confidences.
const (
	// High: a known secret shape; redacting the span removes it.
	High = secrets.High
	// Uncertain: something that may be a secret and that ctxd cannot
	// prove removed by redacting a span (seed 002: "If uncertainty
	// exists: refuse").
	Uncertain = secrets.Uncertain
)

// Finding is one secret found in a text (secrets.Finding): rule id, byte
// span of the value, line, confidence, and whether the whole text is the
// credential.
type Finding = secrets.Finding

// Redactor finds secrets in text that would be sent. Implementations are
// deterministic: the same (path, text) always gives the same findings in
// the same order. The default is the built-in rules of package secrets
// (secrets.Default); the server and the CLI add the user's rules.
type Redactor interface {
	// Version names the rule set; it enters config_fingerprint.
	Version() string
	// Scan returns the findings in text (the decoded UTF-8 content of
	// path), sorted by Start. An error means the text could not be
	// scanned, which the builder treats as a secret risk.
	Scan(path string, text []byte) ([]Finding, error)
}

// ScanCache memoizes a Redactor's findings for whole files across builds,
// keyed by rule-set version, path and content sha256, so that a status bar
// re-estimating on every edit rescans only the edited file. It also keeps
// the blocks builds rendered from whole files and symbols (content after
// redaction, tokens, redactions), keyed by what each rendering is a
// function of, so that a warm build that sends the same blocks again
// reads and verifies each file but renders none of them again. It never
// changes a finding or a block, only its cost. It is safe for concurrent
// use; the nil *ScanCache memoizes nothing.
type ScanCache struct {
	mu    sync.Mutex
	max   int
	items map[string][]Finding
	// blocks remembers optional whole-file blocks as rendered (without
	// their content) for ctxd.budget.
	blocks map[string]*rendering
	// renders are renderings with their content (see renderKey), at most
	// renderBudget bytes of titles and contents in all.
	renders     map[string]*rendering
	renderBytes int
}

// renderBudget bounds the text the renderings of a ScanCache hold: the
// blocks of some thirty builds at the default budget of 128k tokens
// (about 0.5 MB each), so that a session's warm builds find theirs while
// the memory a server keeps for them stays small.
const renderBudget = 16 << 20

// NewScanCache returns a cache of at most max files (max <= 0 means 4096);
// when full it is cleared.
func NewScanCache(max int) *ScanCache {
	if max <= 0 {
		max = 4096
	}
	return &ScanCache{max: max, items: map[string][]Finding{}, blocks: map[string]*rendering{}, renders: map[string]*rendering{}}
}

// rendering returns the rendering stored under key by keep.
func (c *ScanCache) rendering(key []byte) (*rendering, bool) {
	if c == nil || key == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.renders[string(key)] // no copy of key for a lookup
	return r, ok
}

// keep stores a rendering under key; r must never change afterwards,
// since later builds share it. The renderings are cleared when they would
// hold more than renderBudget bytes or max entries.
func (c *ScanCache) keep(key string, r *rendering) {
	if c == nil {
		return
	}
	size := len(key) + len(r.title) + len(r.content)
	if size > renderBudget/16 {
		return // one huge file would push out everything else
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.renders[key]; ok {
		return
	}
	if c.renderBytes+size > renderBudget || len(c.renders) >= c.max {
		clear(c.renders)
		c.renderBytes = 0
	}
	c.renders[key] = r
	c.renderBytes += size
}

// remember keeps a whole-file block's rendering, without its content.
func (c *ScanCache) remember(key string, r *rendering) {
	if c == nil {
		return
	}
	summary := *r
	summary.content = ""
	c.mu.Lock()
	if len(c.blocks) >= c.max {
		clear(c.blocks)
	}
	c.blocks[key] = &summary
	c.mu.Unlock()
}

// recall returns a remembered rendering.
func (c *ScanCache) recall(key string) (*rendering, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.blocks[key]
	return r, ok
}

// scan returns r.Scan(path, text), from the cache when the same version,
// path and sha256 were scanned before.
func (c *ScanCache) scan(r Redactor, path, sha string, text []byte) ([]Finding, error) {
	if c == nil || sha == "" {
		return r.Scan(path, text)
	}
	key := r.Version() + "\x00" + path + "\x00" + sha
	c.mu.Lock()
	f, ok := c.items[key]
	c.mu.Unlock()
	if ok {
		return f, nil
	}
	f, err := r.Scan(path, text)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.items) >= c.max {
		clear(c.items)
	}
	c.items[key] = f
	c.mu.Unlock()
	return f, nil
}
