package workspace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/secrets"
	"github.com/ctxd/ctxd/contextbuilder/tokens"
	"github.com/ctxd/ctxd/index"
)

// ServiceOptions configure a [Service].
type ServiceOptions struct {
	// Logger receives the service's logs (never file contents); nil means
	// slog.Default().
	Logger *slog.Logger
	// Version is the ctxd version reported by ctxd.indexStatus.
	Version string
	// Index configures the workspace index (cache, size cap, progress).
	Index index.Options
	// Redactor scans every text a build would send; nil means
	// secrets.Default(), the built-in rules.
	Redactor contextbuilder.Redactor
	// RedactorErr, when set, refuses every build: the user's secret rules
	// could not be loaded, so ctxd cannot scan as asked.
	RedactorErr error
	// Now is the wall clock of created_at and of the records' timestamps;
	// nil means time.Now.
	Now func() time.Time
}

// Service is the layer every front end (LSP handlers, the CLI, the MCP
// server) stands on. It owns the workspace index, each folder's
// [Workspace] (config and policy pinned when it opens, templates, the
// record), the secret scanner and the memos shared across builds; it
// decodes and validates command arguments, calls the builder with the
// options it derives, and logs each outcome. Front ends decode their
// transport, call a method (or [Command.Invoke]) and encode the result or
// [Classify] the error; none of them builds builder options or maps
// builder errors itself.
//
// A Service is safe for concurrent use.
type Service struct {
	log         *slog.Logger
	version     string
	now         func() time.Time
	index       *index.Index
	folders     *Registry
	tokens      *tokens.Cache
	scans       *contextbuilder.ScanCache
	relations   *contextbuilder.RelationCache
	redactor    contextbuilder.Redactor
	redactorErr error
}

// NewService creates the service and its (rootless) index.
func NewService(opts ServiceOptions) *Service {
	s := &Service{
		log: opts.Logger, version: opts.Version, now: opts.Now,
		tokens: tokens.NewCache(0), scans: contextbuilder.NewScanCache(0), relations: contextbuilder.NewRelationCache(),
		redactor: opts.Redactor, redactorErr: opts.RedactorErr,
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.redactor == nil {
		s.redactor = secrets.Default()
	}
	// One gate for every folder: the bound is the process's memory, not
	// a folder's.
	s.folders = NewRegistry(Options{Now: s.now, Gate: NewGate(DefaultGateSize())})
	if opts.Index.Logger == nil {
		opts.Index.Logger = s.log
	}
	s.index = NewIndex(opts.Index)
	return s
}

// Index returns the workspace index. Front ends feed it the editor's
// notifications (open documents, file events) and read snapshots from it.
func (s *Service) Index() *index.Index { return s.index }

// Close saves the index cache.
func (s *Service) Close() error { return s.index.Close() }

// Workspace returns the state of the folder at dir, opening it (loading
// and pinning its config and templates) on first use.
func (s *Service) Workspace(dir string) *Workspace { return s.folders.Get(dir) }

// FolderProblem is a configuration problem of a folder found when it was
// opened: every context command for the folder is refused with it until
// it is fixed and ctxd restarts.
type FolderProblem struct {
	URI string
	Err error
}

// SetRoots makes roots the index's folders and opens the workspace of
// each existing folder seen for the first time (seed 000: its config is
// pinned from then on). It returns the problems of the folders it opened,
// for the front end to show now rather than at the first build.
func (s *Service) SetRoots(roots []index.Root) []FolderProblem {
	s.index.SetRoots(roots)
	var problems []FolderProblem
	for _, r := range roots {
		if info, err := os.Stat(r.Dir); err != nil || !info.IsDir() {
			continue // the index reports the folder; it is opened when it exists and is used
		}
		w, fresh := s.folders.Load(r.Dir)
		if !fresh {
			continue
		}
		for _, err := range []error{w.ConfigErr(), w.TemplatesErr()} {
			if err != nil {
				s.log.Warn("workspace configuration unusable", "folder", r.URI, "err", err)
				problems = append(problems, FolderProblem{URI: r.URI, Err: err})
			}
		}
	}
	return problems
}

// IndexError is a folder [Service.OpenFolder] could not index; Detail
// says why, without the folder's path, so that a front end can name the
// folder as its user wrote it.
type IndexError struct{ Dir, Detail string }

func (e *IndexError) Error() string { return fmt.Sprintf("indexing %s failed: %s", e.Dir, e.Detail) }

// OpenFolder is how a one-shot front end (the CLI) works on one folder:
// it makes dir the only root, waits until its files are listed (a build
// parses what it needs; the rest is parsed in the background until the
// service closes) and fails when the folder could not be indexed.
func (s *Service) OpenFolder(ctx context.Context, dir, name string) (*index.Snapshot, error) {
	s.SetRoots([]index.Root{{URI: index.PathToURI(dir), Name: name, Dir: dir}})
	snap, err := s.index.WaitListed(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range s.index.Status(false).Roots {
		if r.State == index.StateFailed {
			return nil, &IndexError{Dir: dir, Detail: r.Error}
		}
	}
	s.log.Info("index ready", "root", dir, "snapshot", snap.Version(), "fingerprint", snap.Fingerprint())
	return snap, nil
}

// buildOptions are the builder's options for one request: the clock, the
// memos and scanner shared across builds, and a refresh that re-reads
// files changed on disk into the index (open documents keep their
// buffer).
func (s *Service) buildOptions() contextbuilder.Options {
	return contextbuilder.Options{
		CreatedAt: s.now().UTC(),
		Tokens:    s.tokens,
		Scans:     s.scans,
		Relations: s.relations,
		Redactor:  s.redactor,
		OnDemand: func(files, runs int) {
			s.log.Info("built before the folder was parsed: parsed what the build needed", "files", files, "runs", runs)
		},
		Refresh: func(ctx context.Context, uris []string) *index.Snapshot {
			s.log.Info("refreshing files changed on disk since indexing", "files", len(uris))
			s.index.FilesChanged(ctx, uris)
			return s.AsReceived(ctx, s.index.Snapshot())
		},
	}
}

// Caller is what a front end tells the service about one call.
type Caller struct {
	// Ready, when set, is called before a command waits for the index:
	// the LSP front end starts indexing there when a request arrives
	// before the client sent initialized.
	Ready func()
	// Client describes the editor session for ctxd.indexStatus.
	Client ClientInfo
	// Positions converts the client's line/character positions (a
	// selection, the candidates of an ambiguous target) to byte offsets
	// and back; nil means the client sends none, and candidates keep the
	// builder's byte columns.
	Positions Positions
}

func (c Caller) ready() {
	if c.Ready != nil {
		c.Ready()
	}
}

// receivedKey is the context key of [Service.Received].
type receivedKey struct{}

// Received returns ctx carrying the index as it was when a front end
// received a request ([index.Index.Pin]): a build under ctx reads exactly
// the open documents' versions received before the request, even when it
// starts after later changes or waits for indexing first. The LSP server
// calls it on its notification loop, in message order; a front end that
// does not (the CLI, which edits no buffer) builds from the index as it
// is when the build starts.
func (s *Service) Received(ctx context.Context) context.Context {
	return context.WithValue(ctx, receivedKey{}, s.index.Pin())
}

// AsReceived returns snap with the open documents as ctx received them
// (see [Service.Received]): its roots, with each open document as it was
// when the request arrived. Without a received state it returns snap.
func (s *Service) AsReceived(ctx context.Context, snap *index.Snapshot) *index.Snapshot {
	pinned, _ := ctx.Value(receivedKey{}).(*index.Snapshot)
	return s.index.WithDocuments(ctx, snap, pinned)
}

// outOfSync is the error of a build while a document is out of sync; its
// text is what the client sees, and it matches ErrOutOfSync.
type outOfSync struct{ uri string }

func (e *outOfSync) Error() string {
	return e.uri + " is out of sync (a change could not be applied); reopen it or send its full content before building context"
}

func (e *outOfSync) Is(target error) bool { return target == ErrOutOfSync }

// checkInSync refuses to build while an open document is out of sync: its
// buffer in the editor differs from the last text ctxd could apply, and
// any file may end up in a bundle as a dependency. Reopening the document
// (or a full-content change) repairs it.
func checkInSync(docs *index.Overlays) error {
	for _, uri := range docs.URIs() {
		if d, _ := docs.Get(uri); d.OutOfSync {
			return &outOfSync{uri: uri}
		}
	}
	return nil
}

// ErrOutOfSync is the failure of a build while an open document is out of
// sync: its buffer in the editor differs from the last text ctxd could
// apply, and any file may end up in a bundle as a dependency.
var ErrOutOfSync = errors.New("document out of sync")

// ErrInvalidArgs is the failure of a command whose arguments are malformed
// (a build request's own sentinel is contextbuilder.ErrInvalidRequest).
var ErrInvalidArgs = errors.New("invalid params")

// FailureKind classifies a failed call for the front ends, each of which
// has one wire form per kind (an LSP error code, a CLI exit code, an MCP
// error result).
type FailureKind int

// Failure kinds.
const (
	// FailInternal is a bug or an I/O failure: the message is withheld
	// from the wire (the log keeps it), since an error may quote what it
	// failed on.
	FailInternal FailureKind = iota
	// FailInvalid is a malformed request; the message names the field.
	FailInvalid
	// FailRefused is a refusal of the builder or the record
	// (*contextbuilder.Refusal), carried as data.
	FailRefused
	// FailOutOfSync is a build while a document is out of sync.
	FailOutOfSync
	// FailCancelled is a cancelled or timed-out call.
	FailCancelled
)

// Failure is a classified error.
type Failure struct {
	Kind FailureKind
	// Message is what the wire may show: the error's text for every kind
	// but FailInternal.
	Message string
	// Refusal is set for FailRefused.
	Refusal *contextbuilder.Refusal
}

// Classify sorts an error of the service into the kind its front end
// answers with.
func Classify(err error) Failure {
	var refusal *contextbuilder.Refusal
	switch {
	case errors.As(err, &refusal):
		return Failure{Kind: FailRefused, Message: refusal.Error(), Refusal: refusal}
	case errors.Is(err, contextbuilder.ErrInvalidRequest), errors.Is(err, ErrInvalidArgs):
		return Failure{Kind: FailInvalid, Message: err.Error()}
	case errors.Is(err, ErrOutOfSync):
		return Failure{Kind: FailOutOfSync, Message: err.Error()}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return Failure{Kind: FailCancelled, Message: err.Error()}
	}
	return Failure{Kind: FailInternal}
}

// failed logs a failed command by its kind and returns err unchanged, so
// that every front end logs the same decisions.
func (s *Service) failed(command string, err error, start time.Time) error {
	elapsed := time.Since(start)
	f := Classify(err)
	switch f.Kind {
	case FailRefused:
		s.log.Info(command+" refused", "code", f.Refusal.Code, "duration", elapsed)
	case FailInvalid:
		s.log.Info(command+" rejected: invalid request", "duration", elapsed)
	case FailOutOfSync:
		s.log.Info(command+" rejected: a document is out of sync", "duration", elapsed)
	case FailCancelled:
		s.log.Debug(command+" cancelled", "duration", elapsed)
		return fmt.Errorf("%s: %w", command, err)
	default:
		s.log.Error(command+" failed", "err", err, "duration", elapsed)
	}
	return err
}

// ConfigNotices returns what to tell the user about changed files that
// belong to an opened workspace's config or templates: both are loaded
// once and pinned (seed 000: no hot reload), so an edit applies only
// after a restart, and a silent difference between the file and what ctxd
// enforces would mislead.
func (s *Service) ConfigNotices(uris []string) []string {
	var out []string
	for _, w := range s.folders.Opened() {
		prefix := index.PathToURI(w.Root()) + "/.ctxd/"
		var config, templates bool
		for _, u := range uris {
			switch rest, ok := strings.CutPrefix(u, prefix); {
			case !ok:
			case rest == "config.json":
				config = true
			case strings.HasPrefix(rest, "templates/"):
				templates = true
			}
		}
		if config {
			if msg, changed := w.ConfigChanged(); changed {
				out = append(out, msg)
			}
		}
		if templates {
			out = append(out, "prompt templates under .ctxd/templates changed; restart ctxd to apply them: templates are loaded once at startup")
		}
	}
	return out
}
