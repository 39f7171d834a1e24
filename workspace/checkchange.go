package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/secrets"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/index/ignore"
	"github.com/ctxd/ctxd/workspace/change"
	"github.com/ctxd/ctxd/workspace/ledger"
)

// ChangeStatus is the verdict on a checked answer.
type ChangeStatus string

// Verdicts of a checked change.
const (
	ChangeAccepted ChangeStatus = "accepted" // ledger.CheckAccepted
	ChangeRejected ChangeStatus = "rejected" // ledger.CheckRejected
)

// MaxChangeFile bounds a file a change touches (16 MiB): a larger file is
// not one a model rewrote from a bundle.
const MaxChangeFile = 16 << 20

// CheckChangeArgs is ctxd.checkChange's argument: a model's raw answer,
// and optionally the bundle it answered and the thread turn it belongs to.
type CheckChangeArgs struct {
	// Answer is the model's answer as it came back, prose included.
	Answer string `json:"answer"`
	// BundleID names the recorded bundle the answer was made from: its
	// manifest is then the reference (the files it carried and their
	// sha256). Without it the answer is checked against the files as they
	// are now.
	BundleID string `json:"bundle_id,omitempty"`
	// ThreadID and TurnID name the turn whose EXECUTION records the
	// answer and its verdict; both or neither. Without them, a bundle
	// built in a thread records it under the bundle's own turn.
	ThreadID string `json:"thread_id,omitempty"`
	TurnID   string `json:"turn_id,omitempty"`
	// WorkspaceFolder names the folder the answer changes; optional with
	// a single folder.
	WorkspaceFolder string `json:"workspace_folder,omitempty"`
}

// validate checks the argument's shape; the answer's content is the
// checker's business (an empty answer is a CHANGE_MALFORMED verdict).
func (a *CheckChangeArgs) validate() error {
	switch {
	case len(a.Answer) > MaxExecutionOutput:
		return invalidRequest("field \"answer\" has %d bytes, more than the %d ctxd checks", len(a.Answer), MaxExecutionOutput)
	case !utf8.ValidString(a.Answer):
		return invalidRequest("field \"answer\" is not valid UTF-8")
	case (a.ThreadID == "") != (a.TurnID == ""):
		return invalidRequest("fields \"thread_id\" and \"turn_id\" go together: give both or neither")
	}
	if a.ThreadID != "" {
		th := ledger.Thread{ThreadID: a.ThreadID, TurnID: a.TurnID, DeclaredRefs: []string{}}
		if err := th.Validate(); err != nil {
			return fmt.Errorf("%w: %w", contextbuilder.ErrInvalidRequest, err)
		}
	}
	return nil
}

// CheckChangeResult is the verdict on an answer. Files lists every file
// the answer names, in its order; an accepted verdict carries the edit to
// apply, a rejected one its Failure.
type CheckChangeResult struct {
	// Status is "accepted" or "rejected".
	Status ChangeStatus `json:"status"`
	// Format is "unified", "search_replace" or "whole_file"; absent when
	// no change was found in the answer.
	Format change.Format `json:"format,omitempty"`
	// BundleID is the bundle the answer was checked against, "" when it
	// was checked against the files as they are.
	BundleID string        `json:"bundle_id,omitempty"`
	Files    []CheckedFile `json:"files"`
	// Failure is the rejection; nil when accepted.
	Failure *change.Rejection `json:"failure,omitempty"`
	// Edit is the accepted change as an LSP WorkspaceEdit in the
	// client's position encoding (documentChanges with the open
	// documents' versions); nil when rejected and for a front end that
	// speaks no positions.
	Edit *WorkspaceEdit `json:"edit,omitempty"`
	// Written reports that the change was written to disk (ctxd
	// check-change --write).
	Written bool `json:"written,omitempty"`
	// Recorded is the EXECUTION event that records the answer and the
	// verdict; nil outside a thread (the audit trail records it then).
	Recorded *Recorded `json:"recorded,omitempty"`
}

// CheckedFile is one file of a checked answer. The digests are
// "sha256:<hex>" of the file's bytes; nil where there are none (before a
// creation, after a deletion, after anything rejected).
type CheckedFile struct {
	// Path is relative to the workspace folder, '/'-separated, as the
	// answer named it when it could not be resolved.
	Path         string        `json:"path"`
	Action       change.Action `json:"action"`
	SHA256Before *string       `json:"sha256_before"`
	SHA256After  *string       `json:"sha256_after"`
}

// WorkspaceEdit is LSP's WorkspaceEdit with documentChanges, the one form
// that carries document versions and file creation and deletion. Its
// member names are LSP's, so an editor applies it as it comes.
type WorkspaceEdit struct {
	DocumentChanges []DocumentChange `json:"documentChanges"`
}

// DocumentChange is one entry of documentChanges: a TextDocumentEdit
// (TextDocument and Edits), or a CreateFile or DeleteFile (Kind and URI).
type DocumentChange struct {
	Kind         string           `json:"kind,omitempty"`
	URI          string           `json:"uri,omitempty"`
	TextDocument *VersionedURI    `json:"textDocument,omitempty"`
	Edits        []TextEdit       `json:"edits,omitempty"`
	Options      *FileEditOptions `json:"options,omitempty"`
}

// VersionedURI is LSP's OptionalVersionedTextDocumentIdentifier: Version
// is the open document's version, null for a file the editor has not
// opened.
type VersionedURI struct {
	URI     string `json:"uri"`
	Version *int32 `json:"version"`
}

// TextEdit is LSP's TextEdit.
type TextEdit struct {
	Range   contextbuilder.Range `json:"range"`
	NewText string               `json:"newText"`
}

// FileEditOptions are a CreateFile's or DeleteFile's options.
type FileEditOptions struct {
	Overwrite      bool `json:"overwrite,omitempty"`
	IgnoreIfExists bool `json:"ignoreIfExists,omitempty"`
}

// CheckOptions are a front end's part of a check.
type CheckOptions struct {
	// Positions converts byte offsets to the client's positions for the
	// result's Edit; nil leaves Edit out.
	Positions Positions
	// Write applies an accepted change to the files on disk, atomically
	// per file (a temporary file renamed over it, its mode kept), after
	// checking again that none changed since it was read.
	Write bool
	// Redactor finds credentials in what the change adds; nil means the
	// built-in rules.
	Redactor contextbuilder.Redactor
	// Documents are the editor's open documents: their buffers, not the
	// disk, are what a change applies to. nil reads every file from disk.
	Documents *index.Overlays
}

// sourceFile is one file an answer touches, as read for the check.
type sourceFile struct {
	rel     string
	exists  bool
	text    []byte
	mode    fs.FileMode
	version *int32 // the open document's version; nil when not open
	sha     string // "sha256:<hex>" of text when it exists
}

// bundleRef is the recorded bundle an answer is checked against.
type bundleRef struct {
	id               string
	manifest         *contextbuilder.Manifest
	threadID, turnID string // the DECISION that produced it; "" outside a thread
}

// CheckChange checks a model's answer against the files it touches (the
// editor's buffers for open documents, else the disk) and, with a bundle
// id, against that bundle's manifest; it reads only those files and needs
// no index. The checks run in the order of change.Codes; a rejection is
// a verdict (Status "rejected"), not an error. Errors are for [Classify]:
// an invalid argument, an unknown bundle, a record that cannot be written
// when the argument names a thread.
func (w *Workspace) CheckChange(ctx context.Context, a *CheckChangeArgs, opts CheckOptions) (*CheckChangeResult, error) {
	if err := a.validate(); err != nil {
		return nil, err
	}
	rootReal, err := filepath.EvalSymlinks(w.root)
	if err != nil {
		return nil, fmt.Errorf("resolving the workspace folder: %w", err)
	}
	var ref *bundleRef
	if a.BundleID != "" {
		if ref, err = w.findBundle(a.BundleID); err != nil {
			return nil, err
		}
	}
	if opts.Redactor == nil {
		opts.Redactor = defaultRedactor()
	}
	res, files := w.check(ctx, rootReal, a.Answer, ref, opts)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if ref != nil {
		res.BundleID = ref.id
	}
	if res.Status == ChangeAccepted && opts.Write {
		if rej := writeChange(rootReal, files); rej != nil {
			res = rejected(res.Format, res.Files, rej)
		} else {
			res.Written = true
		}
	}
	rec, err := w.recordCheck(ctx, a, ref, res)
	if err != nil {
		return nil, err
	}
	res.Recorded = rec
	return res, nil
}

// checkedFile pairs a resolved file with its accepted change.
type checkedFile struct {
	src *sourceFile
	out *change.FileResult
}

// check runs the checks and builds the verdict; on acceptance it also
// returns the files with their results, for the writer.
func (w *Workspace) check(ctx context.Context, rootReal, answer string, ref *bundleRef, opts CheckOptions) (*CheckChangeResult, []checkedFile) {
	ans, rej := change.Parse(answer)
	if rej != nil {
		return rejected("", []CheckedFile{}, rej), nil
	}
	listed := make([]CheckedFile, len(ans.Files))
	for i, f := range ans.Files {
		listed[i] = CheckedFile{Path: f.Path, Action: f.Action}
	}
	// Stage by stage over every file, so that the rejection names the
	// first check in the contract's order, whatever the files' order.
	rels := make([]string, len(ans.Files))
	seen := map[string]int{}
	for i, f := range ans.Files {
		rel, rej := resolveChangePath(rootReal, w.root, f)
		if rej != nil {
			return rejected(ans.Format, listed, rej), nil
		}
		if j, dup := seen[rel]; dup {
			return rejected(ans.Format, listed, rejection(change.CodeMalformed, rel, fmt.Sprintf("the answer changes %s twice (as %q and %q)", rel, ans.Files[j].Path, f.Path),
				"write every change of one file in one place, under one path",
				fmt.Sprintf("the answer names %s twice, as %q and %q; write each file's change once, under its path relative to the workspace root", rel, ans.Files[j].Path, f.Path))), nil
		}
		seen[rel] = i
		rels[i] = rel
		listed[i].Path = rel
	}
	deny := w.denyRules()
	for _, rel := range rels {
		if rej := neverSend(deny, rel); rej != nil {
			return rejected(ans.Format, listed, rej), nil
		}
	}
	// A file that exists but cannot be changed (not a regular file, not
	// UTF-8 text) is a CHANGE_CONTEXT_MISMATCH, which comes after the
	// bundle's checks; a link out of the root found while reading is
	// CHANGE_OUTSIDE_SANDBOX, which comes before them.
	srcs := make([]*sourceFile, len(rels))
	var unreadable *change.Rejection
	for i, rel := range rels {
		sf, rej := w.readChangeFile(rootReal, rel, opts.Documents)
		switch {
		case rej != nil && rej.Code == change.CodeOutsideSandbox:
			return rejected(ans.Format, listed, rej), nil
		case rej != nil:
			if unreadable == nil {
				unreadable = rej
			}
			sf = &sourceFile{rel: rel, exists: true}
		}
		srcs[i] = sf
		if sf.exists && sf.sha != "" {
			listed[i].SHA256Before = &sf.sha
		}
	}
	if ref != nil {
		for i, sf := range srcs {
			if rej := ref.carries(sf, ans.Files[i]); rej != nil {
				return rejected(ans.Format, listed, rej), nil
			}
		}
		for _, sf := range srcs {
			if rej := ref.fresh(sf); rej != nil {
				return rejected(ans.Format, listed, rej), nil
			}
		}
	}
	if unreadable != nil {
		return rejected(ans.Format, listed, unreadable), nil
	}
	inputs := make([]change.Input, len(srcs))
	for i, sf := range srcs {
		inputs[i] = change.Input{Path: sf.rel, Exists: sf.exists, Text: sf.text}
	}
	out, rej := change.Apply(ctx, ans, inputs, change.Options{Scanner: opts.Redactor})
	if rej != nil {
		return rejected(ans.Format, listed, rej), nil
	}
	res := &CheckChangeResult{Status: ChangeAccepted, Format: out.Format, Files: make([]CheckedFile, len(out.Files))}
	files := make([]checkedFile, len(out.Files))
	for i := range out.Files {
		fr := &out.Files[i]
		cf := CheckedFile{Path: srcs[i].rel, Action: fr.Action}
		if fr.Action != change.ActionCreate {
			cf.SHA256Before = &srcs[i].sha
		}
		if fr.Action != change.ActionDelete {
			s := digest(fr.After)
			cf.SHA256After = &s
		}
		res.Files[i] = cf
		files[i] = checkedFile{src: srcs[i], out: fr}
	}
	if opts.Positions != nil {
		res.Edit = workspaceEdit(w.root, files, opts.Positions)
	}
	return res, files
}

// rejected is the verdict of a rejection: no file has an after.
func rejected(format change.Format, files []CheckedFile, rej *change.Rejection) *CheckChangeResult {
	out := make([]CheckedFile, len(files))
	for i, f := range files {
		f.SHA256After = nil
		out[i] = f
	}
	return &CheckChangeResult{Status: ChangeRejected, Format: format, Files: out, Failure: rej}
}

// digest is the "sha256:<hex>" of b.
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// pathRejection is a CHANGE_OUTSIDE_SANDBOX rejection of a path as the
// answer wrote it; the path itself is quoted, never resolved further.
func pathRejection(written, why string) *change.Rejection {
	return rejection(change.CodeOutsideSandbox, "", fmt.Sprintf("the answer changes %q, which is outside the workspace folder (%s)", written, why),
		"change only files inside the workspace folder, named by paths relative to it",
		fmt.Sprintf("%q is outside the workspace root (%s). Change only files of the workspace, named by paths relative to its root, as in the context you were given.", written, why))
}

// resolveChangePath turns a path of the answer into a clean path relative
// to the root, or refuses it: ".." segments, absolute paths outside the
// root, links that lead out. An absolute path inside the root is taken
// relative to it.
func resolveChangePath(rootReal, root string, f *change.FileChange) (string, *change.Rejection) {
	p := f.Path
	if filepath.IsAbs(filepath.FromSlash(p)) || strings.HasPrefix(p, "/") {
		abs := filepath.Clean(filepath.FromSlash(p))
		rel := ""
		for _, base := range []string{rootReal, root} {
			if r, err := filepath.Rel(base, abs); err == nil && r != "." && !strings.HasPrefix(r, "..") {
				rel = filepath.ToSlash(r)
				break
			}
		}
		if rel == "" {
			return "", pathRejection(f.Path, "an absolute path outside the root")
		}
		p = rel
	}
	rel, err := index.CleanRel(rootReal, strings.TrimPrefix(p, "./"))
	if err != nil {
		return "", pathRejection(f.Path, sandboxReason(err, "a path that leaves the root"))
	}
	return rel, nil
}

// denyRules are the workspace's own never-send rules (deny_rules of
// .ctxd/config.json); nil without any.
func (w *Workspace) denyRules() *ignore.Rules {
	if w.config == nil {
		return nil
	}
	return contextbuilder.Config{DenyRules: w.config.File.DenyRules}.DenyMatcher()
}

// neverSend refuses a path a never-send rule covers (the contract's, or the
// workspace's deny_rules): the model may not have seen it, and a change to
// .env or a key is not a change ctxd vouches for.
func neverSend(deny *ignore.Rules, rel string) *change.Rejection {
	// The built-in rules, then the workspace's, each on its own: no
	// negation of one can re-include what the other excludes. Ignore
	// files are not read: a gitignored file is not a never-send one.
	d := (ignore.Stack{ignore.Deny()}).Match(rel, false)
	if !d.Ignored && deny != nil {
		d = (ignore.Stack{deny}).Match(rel, false)
	}
	if !d.Ignored {
		return nil
	}
	rule := d.Rule
	return rejection(change.CodeNeverSendPath, rel, fmt.Sprintf("the answer changes %s, which a never-send rule covers (%s)", rel, rule),
		"ctxd does not apply changes to never-send files (keys, environment files, build output, dependencies, version-control metadata); edit it yourself if it must change",
		fmt.Sprintf("%s may not be changed through ctxd (a never-send path). Leave it out of the change.", rel))
}

// readChangeFile reads one file an answer touches: the open document's
// buffer when the editor has it open, else the disk, through the sandbox.
func (w *Workspace) readChangeFile(rootReal, rel string, docs *index.Overlays) (*sourceFile, *change.Rejection) {
	sf := &sourceFile{rel: rel}
	if docs != nil {
		uri := index.PathToURI(filepath.Join(w.root, filepath.FromSlash(rel)))
		if d, ok := docs.Get(uri); ok && !d.OutOfSync {
			v := d.Version
			sf.exists, sf.text, sf.version, sf.sha = true, d.Content(), &v, digest(d.Content())
			return sf, nil
		}
	}
	data, mode, err := index.ReadInRoot(rootReal, rel, MaxChangeFile, w.allowHardLinks())
	var what string
	switch {
	case err == nil && utf8.Valid(data) && bytes.IndexByte(data, 0) < 0:
		sf.exists, sf.text, sf.mode, sf.sha = true, data, mode, digest(data)
		return sf, nil
	case err == nil:
		what = "it is not UTF-8 text (ctxd applies changes to UTF-8 text files only)"
	case errors.Is(err, fs.ErrNotExist):
		return sf, nil
	case errors.Is(err, index.ErrOutsideRoot):
		return nil, pathRejection(rel, sandboxReason(err, "a link that leaves the root"))
	case errors.Is(err, index.ErrNotRegular):
		what = "it is not a regular file"
	case errors.Is(err, index.ErrTooLarge):
		what = fmt.Sprintf("it is larger than %d MiB", MaxChangeFile>>20)
	default:
		what = "it could not be read"
	}
	return nil, rejection(change.CodeContextMismatch, rel, fmt.Sprintf("the answer changes %s, but %s", rel, what),
		"change that file yourself, or make it a regular UTF-8 text file of the workspace",
		fmt.Sprintf("%s cannot be changed through ctxd: %s. Leave it out of the change.", rel, what))
}

// sandboxReason is the rule of the sandbox that refused err, or fallback.
func sandboxReason(err error, fallback string) string {
	var se *index.SandboxError
	if errors.As(err, &se) {
		return se.Reason
	}
	return fallback
}

// allowHardLinks is the workspace's sandbox.allow_hard_links.
func (w *Workspace) allowHardLinks() bool {
	return w.config != nil && w.config.File.Sandbox.AllowHardLinks
}

// carries refuses a file the bundle did not carry. A file the change
// creates passes when the bundle named it as a target (a plan step's new
// file).
func (b *bundleRef) carries(sf *sourceFile, f *change.FileChange) *change.Rejection {
	sel := b.manifest.Selection
	for _, inc := range sel.IncludedFiles {
		if inc.Path == sf.rel {
			return nil
		}
	}
	if !sf.exists && slices.Contains(sel.TargetFiles, sf.rel) {
		return nil
	}
	return rejection(change.CodeNotInBundle, sf.rel, fmt.Sprintf("the answer changes %s, which bundle %s did not carry", sf.rel, b.id),
		"change only the files of the bundle; to change another file, build a bundle that targets it (name it in the plan step's target_files, or select it)",
		fmt.Sprintf("%s was not in the context you were given, so you cannot know its content. Change only the files shown in the context; new files only where the plan step names them.", sf.rel))
}

// fresh refuses a file that changed since the bundle was built: the answer
// was made from other bytes than the file now holds.
func (b *bundleRef) fresh(sf *sourceFile) *change.Rejection {
	for _, inc := range b.manifest.Selection.IncludedFiles {
		if inc.Path != sf.rel {
			continue
		}
		want := inc.Hash
		if !strings.HasPrefix(want, "sha256:") {
			want = "sha256:" + want
		}
		switch {
		case !sf.exists:
			return staleRejection(sf.rel, b.id, "it has been deleted since")
		case sf.sha == "":
			return staleRejection(sf.rel, b.id, "it is no longer a regular UTF-8 text file")
		case sf.sha != want:
			return staleRejection(sf.rel, b.id, "its sha256 is "+sf.sha+", the bundle's manifest recorded "+want)
		}
		return nil
	}
	if sf.exists {
		return staleRejection(sf.rel, b.id, "the bundle named it as a file to create, and it exists now")
	}
	return nil
}

func staleRejection(rel, id, why string) *change.Rejection {
	return rejection(change.CodeStale, rel, fmt.Sprintf("%s changed since bundle %s was built: %s", rel, id, why),
		"build the context again and ask the model again: the answer was made from a version of the file that no longer exists",
		fmt.Sprintf("%s changed after the context you were given was built; the context has been rebuilt from its current content. Make the change again against it.", rel))
}

// workspaceEdit is the accepted change as an LSP WorkspaceEdit: per file a
// create or delete and the text edits, in the client's positions of the
// text before the change.
func workspaceEdit(root string, files []checkedFile, pos Positions) *WorkspaceEdit {
	we := &WorkspaceEdit{DocumentChanges: []DocumentChange{}}
	for _, f := range files {
		uri := index.PathToURI(filepath.Join(root, filepath.FromSlash(f.src.rel)))
		switch f.out.Action {
		case change.ActionDelete:
			we.DocumentChanges = append(we.DocumentChanges, DocumentChange{Kind: "delete", URI: uri})
			continue
		case change.ActionCreate:
			we.DocumentChanges = append(we.DocumentChanges, DocumentChange{Kind: "create", URI: uri, Options: &FileEditOptions{}})
			we.DocumentChanges = append(we.DocumentChanges, DocumentChange{TextDocument: &VersionedURI{URI: uri},
				Edits: []TextEdit{{Range: contextbuilder.Range{}, NewText: string(f.out.After)}}})
			continue
		}
		edits := make([]TextEdit, len(f.out.Edits))
		for i, e := range f.out.Edits {
			edits[i] = TextEdit{Range: pos.Range(f.src.text, e.Start, e.End), NewText: e.NewText}
		}
		we.DocumentChanges = append(we.DocumentChanges, DocumentChange{TextDocument: &VersionedURI{URI: uri, Version: f.src.version}, Edits: edits})
	}
	return we
}

// invalidRequest is an invalid argument of a check, as the CLI's exit code
// 2 and the LSP's InvalidParams expect it.
func invalidRequest(format string, args ...any) error {
	return fmt.Errorf("%w: %s", contextbuilder.ErrInvalidRequest, fmt.Sprintf(format, args...))
}

// defaultRedactor is the built-in secret rules.
func defaultRedactor() contextbuilder.Redactor { return secrets.Default() }

// rejection is a rejection of the workspace layer's own checks (sandbox,
// never-send, bundle, staleness, writing): msg and advice for the person
// reading the verdict, forModel the error_context a retry sends back
// (the code is put before it), path the file it names ("" for none).
func rejection(code change.Code, path, msg, advice, forModel string) *change.Rejection {
	return &change.Rejection{Code: code, Message: msg, Advice: advice,
		ErrorContext: contextbuilder.LastError{Message: string(code) + ": " + forModel, Path: path}}
}
