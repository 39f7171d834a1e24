package handlers

import (
	"context"
	"sync"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
	"go.lsp.dev/protocol"
)

// indexState is the session's link to its index: whether indexing started
// (it starts at initialized, when the client may receive requests) and the
// progress shown per root.
type indexState struct {
	mu      sync.Mutex // guards started; never held while calling the client
	started bool

	// reports shows the scans' progress in the editor (see progress.go).
	reports scanReports
}

// UseService gives the session a service (and index) built from opts,
// wiring the index's progress to the client's $/progress. NewSession calls
// it; a test may call it again before serving to swap the service.
func (s *Session) UseService(opts workspace.ServiceOptions) {
	if opts.Logger == nil {
		opts.Logger = s.Logger
	}
	if opts.Version == "" {
		opts.Version = s.Version
	}
	opts.Index.OnProgress = s.indexProgress
	s.Service = workspace.NewService(opts)
	s.Index = s.Service.Index()
}

// startIndexing gives the index its roots. Until the client confirmed
// initialization, the scan's progress requests could not be answered, so
// roots are set only from then on (or from the first request that needs
// the index, see ensureIndexing).
func (s *Session) startIndexing() {
	s.idx.mu.Lock()
	s.idx.started = true
	s.idx.mu.Unlock()
	s.syncRoots()
}

// ensureIndexing starts indexing when a request needs the index before
// the client sent initialized: the folders are known from initialize, and
// a build between the two must resolve in-workspace paths against them
// rather than against an index without roots (which would refuse every
// file as outside the workspace). After initialized it does nothing.
func (s *Session) ensureIndexing() {
	s.idx.mu.Lock()
	started := s.idx.started
	s.idx.mu.Unlock()
	if !started {
		s.startIndexing()
	}
}

// syncRoots makes the index's roots the session's folders, once indexing
// started. Folders that are not local directories are logged and left out.
func (s *Session) syncRoots() {
	s.idx.mu.Lock()
	started := s.idx.started
	s.idx.mu.Unlock()
	if !started {
		return
	}
	var roots []index.Root
	for _, f := range s.Folders() {
		dir, err := index.URIToPath(f.URI)
		if err != nil {
			s.Logger.Warn("workspace folder not indexed", "uri", f.URI, "err", err)
			continue
		}
		roots = append(roots, index.Root{URI: f.URI, Name: f.Name, Dir: dir})
	}
	// A configuration that cannot be used is shown to the user now
	// rather than at the first build.
	for _, p := range s.Service.SetRoots(roots) {
		s.ShowMessage(context.Background(), protocol.MessageTypeError, "ctxd: "+p.Err.Error()+". Context commands for this folder are refused until it is fixed and ctxd restarts.")
	}
}
