package handlers

import (
	"cmp"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ctxd/ctxd/handlers/position"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
)

// Folder is one workspace folder of the editor.
type Folder = workspace.Folder

// ClientConfig is what initialize negotiated with the client. It is set once
// and never modified, so handlers may keep the pointer.
type ClientConfig struct {
	// Encoding is the negotiated position encoding; utf-16 unless the client
	// preferred another.
	Encoding position.Encoding
	// WorkDoneProgress reports whether the client accepts
	// window/workDoneProgress/create.
	WorkDoneProgress bool
	// WatchFiles reports whether the client lets ctxd register file
	// watchers dynamically (workspace/didChangeWatchedFiles).
	WatchFiles bool
	// ClientName and ClientVersion come from clientInfo; empty when absent.
	ClientName, ClientVersion string
}

// Session is the state shared by the handlers of one connection: what
// initialize negotiated, the workspace folders and the index, which owns
// the open documents (see [index.Snapshot.Documents]).
//
// Readers take snapshots with the accessor methods and never block; the
// server applies notifications one at a time, and every update builds new
// immutable values rather than changing the ones a reader may hold.
type Session struct {
	// Logger receives the handlers' logs; it must write to stderr or a file,
	// never to the protocol stream.
	Logger *slog.Logger
	// Version is the ctxd version reported in serverInfo and status.
	Version string
	// Client sends notifications and requests to the editor; nil means the
	// session is not connected (tests), and messages to the client are dropped.
	Client Client

	// Service is the workspace layer the context commands run on: the
	// index, each folder's config, policy and record, the secret scanner,
	// built by NewSession from the server's options.
	Service *workspace.Service
	// Index is the service's index, fed by the document and workspace
	// notifications.
	Index *index.Index

	idx indexState

	mu       sync.Mutex // serializes writers; readers use the atomics
	config   atomic.Pointer[ClientConfig]
	folders  atomic.Pointer[[]Folder]
	progress atomic.Int64 // last progress token number
}

// NewSession returns a session with utf-16 positions, no folders and no open
// documents, whose service is built from opts (see [Session.UseService]).
func NewSession(logger *slog.Logger, version string, client Client, opts workspace.ServiceOptions) *Session {
	if logger == nil {
		logger = slog.Default()
	}
	s := &Session{Logger: logger, Version: version, Client: client}
	s.UseService(opts)
	s.config.Store(&ClientConfig{Encoding: position.UTF16})
	s.folders.Store(&[]Folder{})
	return s
}

// Config returns the negotiated client configuration.
func (s *Session) Config() *ClientConfig { return s.config.Load() }

// Folders returns the workspace folders sorted by URI; the slice must not be
// modified.
func (s *Session) Folders() []Folder { return *s.folders.Load() }

func (s *Session) setConfig(c *ClientConfig) { s.config.Store(c) }

// updateFolders replaces the folder list with a sorted, de-duplicated copy.
// The index follows once indexing started.
func (s *Session) updateFolders(f func([]Folder) []Folder) {
	s.mu.Lock()
	next := f(slices.Clone(*s.folders.Load()))
	slices.SortFunc(next, func(a, b Folder) int { return cmp.Compare(a.URI, b.URI) })
	next = slices.CompactFunc(next, func(a, b Folder) bool { return a.URI == b.URI })
	s.folders.Store(&next)
	s.mu.Unlock()
	s.syncRoots()
}
