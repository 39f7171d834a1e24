package workspace

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace/ledger"
	"github.com/ctxd/ctxd/workspace/policy"
	"github.com/ctxd/ctxd/workspace/prompt"
	"github.com/ctxd/ctxd/workspace/store"
)

// Options configure how a workspace is opened.
type Options struct {
	// Now is the wall clock of created_at and of the observational
	// timestamps of ledger and audit lines; nil means time.Now. It never
	// reaches a digest or fingerprint.
	Now func() time.Time
	// Gate bounds the builds running at once, shared by every workspace
	// of a [Service]; nil bounds nothing.
	Gate *Gate
}

// Workspace is one workspace folder's ctxd state. Open loads the
// configuration and templates once (seed 000: no hot reload) and pins the
// config digest; a Workspace is safe for concurrent use.
//
// A broken part does not make Open fail: it is kept and every operation
// that needs it fails closed with an actionable refusal, so that a server
// keeps serving and tells the user why.
type Workspace struct {
	root string
	now  func() time.Time

	config    *policy.Config
	configErr error // *policy.Error: every build is refused with it

	templates    *prompt.Set
	templatesErr error // every prompt is refused with it

	// The record (see Locate) is opened on first use (see state), so
	// that opening a folder in an editor writes nothing until a build
	// does.
	stateOnce sync.Once
	records   Records
	store     *store.Store
	ledger    *ledger.Ledger
	audit     *ledger.Audit
	stateErr  error // the record could not be opened: builds cannot be recorded

	policySHA string // the context_policies artifact of the loaded config

	gate    *Gate   // see Options.Gate
	flights flights // builder runs that identical requests share (sharedBuild)
}

// Open loads the workspace at root: .ctxd/config.json and .ctxd/templates
// are read now and pinned. The artifact store, the ledger and the audit
// trail are opened when a build first needs them, where [Locate] says
// (.ctxd/ with its .gitignore in a workspace that opted in, the user's
// state directory otherwise), recording a context_policy_loaded audit
// event.
func Open(root string, opts Options) *Workspace {
	w := &Workspace{root: root, now: opts.Now, gate: opts.Gate}
	if w.now == nil {
		w.now = time.Now
	}
	w.config, w.configErr = policy.Load(root)
	w.templates, w.templatesErr = prompt.LoadDir(root)
	return w
}

// state opens the record once and returns why it cannot be written, if
// so.
func (w *Workspace) state() error {
	w.stateOnce.Do(func() {
		w.stateErr = w.openState()
		w.recordPolicyLoaded()
	})
	return w.stateErr
}

func (w *Workspace) openState() error {
	rec, err := Locate(w.root)
	if err != nil {
		return err
	}
	w.records = rec
	st, err := openRecords(w.root, rec)
	if err != nil {
		return fmt.Errorf("opening the records in %s: %w", rec.Dir, err)
	}
	w.store = st
	if w.ledger, err = ledger.Open(filepath.Join(st.Dir(), "ledger"), w.now); err != nil {
		return fmt.Errorf("opening the ledger: %w", err)
	}
	w.ledger.KeepProjection(filepath.Join(st.Dir(), ProjectionFile))
	if w.audit, err = ledger.OpenAudit(filepath.Join(st.Dir(), "audit.jsonl"), w.now); err != nil {
		return fmt.Errorf("opening the audit trail: %w", err)
	}
	return nil
}

// recordPolicyLoaded stores the loaded config as a context_policies
// artifact and appends context_policy_loaded: the digest, whether the
// file exists, and on failure the reason and field, never the contents.
func (w *Workspace) recordPolicyLoaded() {
	if w.stateErr != nil {
		return
	}
	data := map[string]any{"config_path": policy.ConfigPath}
	var perr *policy.Error
	switch {
	case w.configErr == nil:
		sha, err := w.store.Put(store.KindPolicy, rawJSON(w.config.Canonical))
		if err != nil {
			w.stateErr = fmt.Errorf("writing the policy artifact: %w", err)
			return
		}
		w.policySHA = sha
		data["result"] = "loaded"
		data["present"] = w.config.Present
		data["context_config_digest"] = w.config.Digest
		data["policy_artifact_sha256"] = sha
	case errors.As(w.configErr, &perr):
		data["result"] = "failed"
		data["reason"] = perr.Reason
		data["field"] = perr.Field
	default:
		data["result"] = "failed"
		data["reason"] = policy.ReasonReadFailed
	}
	if w.templatesErr == nil {
		data["templates"] = w.templates.IDs()
	}
	if err := w.audit.Append(ledger.AuditPolicyLoaded, data); err != nil {
		w.stateErr = fmt.Errorf("appending to the audit trail: %w", err)
	}
}

// TemplatesErr is why the prompt templates could not be loaded; nil when
// they were.
func (w *Workspace) TemplatesErr() error { return w.templatesErr }

// Root is the workspace folder's directory.
func (w *Workspace) Root() string { return w.root }

// ConfigDigest is the pinned context_config_digest; "" when the config
// could not be loaded.
func (w *Workspace) ConfigDigest() string {
	if w.config == nil {
		return ""
	}
	return w.config.Digest
}

// ConfigErr is why the configuration could not be loaded; nil when it
// was (an absent file is not an error: defaults apply).
func (w *Workspace) ConfigErr() error { return w.configErr }

// ConfigChanged reports whether .ctxd/config.json on disk no longer gives
// the digest pinned at Open (or now loads when it failed, or fails when
// it loaded), with a message telling the user that a restart applies it.
func (w *Workspace) ConfigChanged() (string, bool) {
	cur, err := policy.Load(w.root)
	switch {
	case err != nil && w.configErr != nil:
		return "", false
	case err == nil && w.config != nil && cur.Digest == w.config.Digest:
		return "", false
	case err != nil:
		return fmt.Sprintf("%s changed and is now invalid (%v); ctxd keeps the configuration it loaded at startup (%s) until it restarts", policy.ConfigPath, err, w.ConfigDigest()), true
	}
	return fmt.Sprintf("%s changed (now %s, loaded %s); restart ctxd to apply it: the configuration is loaded once and pinned in every decision", policy.ConfigPath, cur.Digest, w.pinnedLabel()), true
}

func (w *Workspace) pinnedLabel() string {
	if w.config == nil {
		return "none: it was invalid"
	}
	return w.config.Digest
}

// settings are seed 000's context settings of the loaded config.
func (w *Workspace) settings() ledger.Settings {
	c := w.config.File.Context
	return ledger.Settings{
		MaxRefs:                     c.MaxRefs,
		EmptyRefsPolicy:             c.EmptyRefsPolicy,
		ExpandLastN:                 c.ExpandLastN,
		AllowExecutionRefsForPrompt: c.AllowExecutionRefsForPrompt,
		CanonicalSort:               c.CanonicalSort,
		EnforceScopeBound:           c.EnforceScopeBound,
		NormalizationRules:          w.config.File.Normalization.Rules,
		ConfigDigest:                w.config.Digest,
	}
}

// builderConfig is the builder's config from the file's model defaults
// and deny rules.
func (w *Workspace) builderConfig() contextbuilder.Config {
	m := w.config.File.Model
	return contextbuilder.Config{
		Model: contextbuilder.Model{
			Provider: m.Provider, Model: m.Model,
			MaxInputTokens: m.MaxInputTokens, MaxOutputTokens: m.MaxOutputTokens,
			ResponseTokenReserve: m.ResponseTokenReserve, SoftLimitThresholdPct: m.SoftLimitThresholdPct,
		},
		DenyRules: w.config.File.DenyRules,
	}
}

// builderPolicy adapts the effective rules; nil rules mean no policy.
func builderPolicy(r *policy.Rules) *contextbuilder.Policy {
	if r == nil {
		return nil
	}
	return &contextbuilder.Policy{Skill: r.Skill, Digest: r.Digest, Allow: r.Allowed, MaxItems: r.MaxItems, MaxBytes: r.MaxBytes}
}

// Registry opens each workspace folder once per process and keeps it.
type Registry struct {
	opts Options
	mu   sync.Mutex
	m    map[string]*Workspace
}

// NewRegistry returns an empty registry opening workspaces with opts.
func NewRegistry(opts Options) *Registry {
	return &Registry{opts: opts, m: map[string]*Workspace{}}
}

// Get returns the workspace of a folder, opening it on first use.
func (r *Registry) Get(root string) *Workspace {
	w, _ := r.Load(root)
	return w
}

// Load is Get that also reports whether this call opened the workspace
// (and so loaded its configuration).
func (r *Registry) Load(root string) (w *Workspace, fresh bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w, ok := r.m[root]; ok {
		return w, false
	}
	w = Open(root, r.opts)
	r.m[root] = w
	return w, true
}

// Opened returns the workspaces opened so far, sorted by root; nil when
// none.
func (r *Registry) Opened() []*Workspace {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*Workspace
	for _, w := range r.m {
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b *Workspace) int { return strings.Compare(a.root, b.root) })
	return out
}

// NewIndex creates the workspace index with the workspace's sandbox rules
// wired in: a root's hard-link policy is its .ctxd/config.json's
// sandbox.allow_hard_links, read with the builds' strict loader. Every
// front end creates its index here, so that none reads files under rules
// of its own.
func NewIndex(opts index.Options) *index.Index {
	if opts.HardLinks == nil {
		opts.HardLinks = policy.AllowsHardLinks
	}
	return index.New(opts)
}
