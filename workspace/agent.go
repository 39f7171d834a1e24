package workspace

// This file is what the read tools of coding agents share (search_symbols,
// find_references, read_file, list_files; agent_symbols.go, agent_read.go
// and agent_list.go): their limits, the folder a call reads, and the rules
// on top of the index's that decide what a call may show. A tool's answer
// reaches a model as a bundle's blocks do, so it stays inside the same
// boundary: the sandbox, the never-send rules (the contract's and the
// workspace's deny_rules), the ignore files, the workspace policy's allowed
// namespaces, and the redaction of every byte of file text.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/ignore"
	"github.com/ctxd/ctxd/index/syntax"
	"github.com/ctxd/ctxd/workspace/policy"
)

// Limits of the read tools. A default applies when a call's limit is 0;
// a limit outside 0..max is an invalid argument rather than clamped, so
// that an agent learns the bound instead of silently getting less.
const (
	// DefaultSymbolLimit is how many symbols or references
	// search_symbols and find_references return by default.
	DefaultSymbolLimit = 50
	// MaxSymbolLimit bounds their limit.
	MaxSymbolLimit = 500
	// DefaultListLimit is how many files (and, separately, excluded
	// paths) list_files returns by default.
	DefaultListLimit = 1000
	// MaxListLimit bounds its limit.
	MaxListLimit = 10000
	// MaxReadContent bounds the content one read_file returns (256 KiB):
	// more is a REFUSE_CONTEXT_TOO_LARGE advising a narrower line range.
	MaxReadContent = 256 << 10
	// MaxReadFile bounds a file read_file reads past the index's size cap
	// (16 MiB), which it does only for a line range: the whole file is
	// read and scanned for secrets, whatever part of it is shown.
	MaxReadFile = 16 << 20
)

// SkipPolicy is the reason of a path the workspace policy keeps out of
// every bundle (outside the namespaces policy.allowed_context_namespaces
// allows, seed 001). The index does not know the policy, so it is the one
// reason the read tools add to the index's [index.SkipReason] values.
const SkipPolicy index.SkipReason = "policy"

// policyRule names the rule behind SkipPolicy in a tool's answer.
const policyRule = "policy.allowed_context_namespaces"

// SymbolHit is one declaration of the workspace, as the read tools name
// it. It carries no file text.
type SymbolHit struct {
	// Name is the declared identifier.
	Name string `json:"name"`
	// QualifiedName is the name with its container (Type.Method); absent
	// when it is Name.
	QualifiedName string `json:"qualified_name,omitempty"`
	// Kind is the index's kind name ("function", "method", "struct", …).
	Kind string `json:"kind"`
	// Path is relative to the workspace folder, '/'-separated.
	Path string `json:"path"`
	// Line and EndLine are the declaration's first and last lines,
	// 1-based, its doc comment excluded.
	Line    int `json:"line"`
	EndLine int `json:"end_line"`
	// Language is the index's language of the file ("go", "python", …).
	Language string `json:"language"`
}

// symbolHit describes symbol sym of the file at rel.
func symbolHit(rel string, lang syntax.Language, sym *syntax.Symbol) SymbolHit {
	h := SymbolHit{Name: sym.Name, Kind: sym.Kind.String(), Path: rel, Language: string(lang)}
	if sym.QualifiedName != sym.Name {
		h.QualifiedName = sym.QualifiedName
	}
	h.Line, h.EndLine = symbolLines(sym.Range)
	return h
}

// symbolLines returns the 1-based first and last lines of a range. A
// range ending at the start of a line (a declaration whose last token is
// followed by its line break) ends on the line before.
func symbolLines(r syntax.Range) (first, last int) {
	first, last = int(r.Start.Line)+1, int(r.End.Line)+1
	if r.End.Column == 0 && r.End.Line > r.Start.Line {
		last--
	}
	return first, last
}

// checkLimit validates an optional limit field; it returns the limit to
// apply.
func checkLimit(field string, v, def, max int) (int, error) {
	switch {
	case v == 0:
		return def, nil
	case v < 0 || v > max:
		return 0, fmt.Errorf("field %q: must be between 1 and %d (0 or absent means %d), got %d", field, max, def, v)
	}
	return v, nil
}

// invalidArgs is the error of arguments a Validate method refused, in the
// form the strict decoder gives it, so that a front end calling a method
// directly shows the same message.
func invalidArgs(err error) error { return invalid("invalid params: %s", err.Error()) }

// agentFolder is one folder as a read tool sees it: the snapshot it reads,
// the folder's root in it, the folder's workspace, and the gate on top of
// the index's own rules.
type agentFolder struct {
	snap *index.Snapshot
	root *index.RootSnapshot
	w    *Workspace
	gate agentGate
}

// agentFolder returns the folder a read tool works on: the one named by
// folder, else the only one, else (several folders, a path given as a file
// URI or an absolute path) the one holding path. It waits for the index as
// the tool needs it (parsed: every file's symbols; else the listing, what
// a build waits for) and refuses as a build does when the folder's
// configuration cannot be loaded: its deny_rules and policy would then be
// unknown, and a read tool fails closed like a build.
func (s *Service) agentFolder(ctx context.Context, c Caller, folder, path string, parsed bool) (*agentFolder, error) {
	// Waited for first, as a build does: a call right after the
	// editor's initialize must not find no folder.
	c.ready()
	wait := s.index.WaitListed
	if parsed {
		wait = s.index.Wait
	}
	snap, err := wait(ctx)
	if err != nil {
		return nil, err
	}
	dir, err := s.folderDir(c, folder)
	if err != nil {
		d, ok := s.folderHolding(folder, path)
		if !ok {
			return nil, err
		}
		dir = d
	}
	snap = s.AsReceived(ctx, snap)
	root := rootByDir(snap, dir)
	if root == nil {
		// Added since the wait: wait again for it.
		if snap, err = wait(ctx); err != nil {
			return nil, err
		}
		snap = s.AsReceived(ctx, snap)
		if root = rootByDir(snap, dir); root == nil {
			return nil, invalid("the workspace folder was closed while the call waited for the index")
		}
	}
	if root.State() == index.StateFailed || root.RealDir() == "" {
		return nil, &IndexError{Dir: root.Root.URI, Detail: s.rootError(root.Root.URI)}
	}
	w := s.Workspace(dir)
	if w.configErr != nil {
		return nil, asRefusal(w.configErr)
	}
	rules, err := w.config.Rules("")
	if err != nil {
		return nil, asRefusal(err)
	}
	return &agentFolder{snap: snap, root: root, w: w, gate: agentGate{deny: w.denyRules(), rules: rules}}, nil
}

// folderHolding is the folder of a call that names no folder while
// several are open: the one holding path, when path is a file URI or an
// absolute path. It only picks the folder; the sandbox checks the path
// afterwards.
func (s *Service) folderHolding(folder, path string) (string, bool) {
	if folder != "" || path == "" {
		return "", false
	}
	uri := path
	if !index.IsFileURI(path) {
		if !filepath.IsAbs(path) && !strings.HasPrefix(path, "/") {
			return "", false
		}
		uri = index.PathToURI(path)
	}
	r, _, ok := s.index.Snapshot().Locate(index.NormalizeURI(uri))
	if !ok {
		return "", false
	}
	return r.Root.Dir, true
}

// rootError says why the folder at uri could not be indexed.
func (s *Service) rootError(uri string) string {
	for _, r := range s.index.Status(false).Roots {
		if r.URI == uri && r.Error != "" {
			return r.Error
		}
	}
	return "the folder could not be scanned"
}

// rootByDir returns the root of snap whose directory is dir; nil when
// there is none.
func rootByDir(snap *index.Snapshot, dir string) *index.RootSnapshot {
	for _, r := range snap.Roots() {
		if r.Root.Dir == dir {
			return r
		}
	}
	return nil
}

// refresh re-reads paths of the folder from disk into the index (what a
// file watcher's event does, and what a build does for a file that changed
// since indexing) and returns the folder's root in the new snapshot; nil
// when the folder is gone.
func (s *Service) refresh(ctx context.Context, f *agentFolder, rels []string) *index.RootSnapshot {
	uris := make([]string, len(rels))
	for i, rel := range rels {
		uris[i] = f.root.URIOf(rel)
	}
	s.index.FilesChanged(ctx, uris)
	f.snap = s.AsReceived(ctx, s.index.Snapshot())
	f.root = rootByDir(f.snap, f.root.Root.Dir)
	return f.root
}

// agentGate holds the rules the read tools apply on top of the index's:
// the contract's never-send rules again (the index already skips what
// they match; checked again, since a tool answer must never depend on the
// index alone for them), the workspace's deny_rules and its policy's
// allowed namespaces, neither of which the index knows.
type agentGate struct {
	deny  *ignore.Rules // the workspace's deny_rules; nil without any
	rules *policy.Rules // the global policy; nil without one
}

// check decides a clean workspace-relative path; isDir says that it names
// a directory (a rule such as "bin/" matches directories only). hidden
// reports a path the tools may not show, with the reason and the rule.
func (g agentGate) check(rel string, isDir bool) (reason index.SkipReason, rule string, hidden bool) {
	// The built-in rules, then the workspace's, each on its own: no
	// negation of one can re-include what the other excludes.
	if d := (ignore.Stack{ignore.Deny()}).Match(rel, isDir); d.Ignored {
		return index.SkipDenyRule, d.Rule, true
	}
	if g.deny != nil {
		if d := (ignore.Stack{g.deny}).Match(rel, isDir); d.Ignored {
			return index.SkipDenyRule, d.Rule, true
		}
	}
	if !isDir && !g.rules.Allowed(rel) {
		return SkipPolicy, policyRule, true
	}
	return "", "", false
}

// own reports whether the gate has rules of the workspace's own, which
// the index did not apply to the targets of the links it followed.
func (g agentGate) own() bool {
	return g.deny != nil || g.rules.AllowedNamespaces() != nil
}

// hidden reports whether the indexed file at rel may not be shown.
func (f *agentFolder) hidden(rel string) bool {
	_, _, _, h := f.checkFile(rel)
	return h
}

// checkFile decides an indexed file: the gate decides its path and, when
// the workspace has rules of its own, where it leads when it is a symbolic
// link (the index follows a link only to a path its own rules allow). real
// is the link's target when that decided; "" otherwise.
func (f *agentFolder) checkFile(rel string) (reason index.SkipReason, rule, real string, hidden bool) {
	if reason, rule, hidden = f.gate.check(rel, false); hidden || !f.gate.own() {
		return reason, rule, "", hidden
	}
	r, err := index.ResolveInRoot(f.root.RealDir(), rel)
	if err != nil || r == rel || r == "" {
		// An error is the read's to report; a listing shows what the
		// index decided.
		return "", "", "", false
	}
	if reason, rule, hidden = f.gate.check(r, false); hidden {
		return reason, rule, r, true
	}
	return "", "", "", false
}

// outsideRefusal refuses a path a client sent that the sandbox refused:
// it quotes only what the client wrote and the sandbox's rule, never the
// folder's location or where a link leads.
func outsideRefusal(field, written string, err error) *contextbuilder.Refusal {
	return &contextbuilder.Refusal{
		Code:    contextbuilder.RefuseOutsideSandbox,
		Message: fmt.Sprintf("field %q: %s is outside the workspace folder (%s); ctxd never reads outside the project root", field, contextbuilder.QuoteRequestPath(written), sandboxReason(err, "a path that leaves the root")),
		Advice:  fmt.Sprintf("give %q as a path relative to the workspace folder, without \"..\" segments, naming a file inside it (not a link that leads out of it)", field),
	}
}

// hiddenRefusal refuses a path the gate hides: a never-send path (the
// contract's rules or the workspace's deny_rules) or one outside the
// policy's namespaces. The message names the rule, in words when it is a
// never-send rule.
func hiddenRefusal(rel string, reason index.SkipReason, rule string) *contextbuilder.Refusal {
	if reason == SkipPolicy {
		return &contextbuilder.Refusal{
			Code:    contextbuilder.RefuseNamespaceDenied,
			Message: fmt.Sprintf("%s is outside the namespaces the workspace policy allows (%s), so ctxd does not send it", rel, policyRule),
			Advice:  "read a file inside an allowed namespace; only the workspace owner can widen policy.allowed_context_namespaces in .ctxd/config.json",
		}
	}
	return neverSendRefusal(rel, rule)
}

// neverSendRefusal refuses a never-send path, naming the rule.
func neverSendRefusal(rel, rule string) *contextbuilder.Refusal {
	what := fmt.Sprintf("a never-send rule (%s)", rule)
	if desc, ok := contextbuilder.NeverSendRule(rule); ok {
		what = desc
	}
	return &contextbuilder.Refusal{
		Code:    contextbuilder.RefuseUnsupportedTarget,
		Message: fmt.Sprintf("%s matches %s, so ctxd never sends it", rel, what),
		Advice:  "never-send files (keys, environment files, version-control metadata, dependencies, build output) cannot be read through ctxd; choose another path. A rule of the context contract cannot be switched off; a rule of this workspace is in deny_rules of .ctxd/config.json, which only its owner changes",
	}
}

// notFound refuses a path the workspace does not hold.
func notFound(rel, advice string) *contextbuilder.Refusal {
	return &contextbuilder.Refusal{
		Code:    contextbuilder.RefuseTargetNotFound,
		Message: fmt.Sprintf("%s does not exist in the workspace folder", rel),
		Advice:  advice,
	}
}

// isStaleRead reports a read that the index answers better after
// re-reading the path: the file changed, disappeared, or became a link
// since the index last read it.
func isStaleRead(err error) bool {
	return errors.Is(err, index.ErrStale) || errors.Is(err, index.ErrOutsideRoot) || errors.Is(err, index.ErrNotIndexed) || errors.Is(err, fs.ErrNotExist)
}
