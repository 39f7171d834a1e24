package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
	"github.com/ctxd/ctxd/workspace/prompt"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure a [Server].
type Options struct {
	// Root is the workspace folder the server serves, an absolute path
	// of a directory; required. Every tool works on it, and no path
	// outside it is ever read.
	Root string
	// Logger receives the logs (never file contents or secrets); nil
	// means slog.Default(). It must not write to the protocol stream.
	Logger *slog.Logger
	// Version is ctxd's version, reported in the initialize result and by
	// index_status; empty means "devel".
	Version string
	// MaxResultTokens is the result budget of a call that sets none
	// (max_result_tokens); 0 means DefaultMaxResultTokens. Resources
	// (a bundle's parts) are paged within it.
	MaxResultTokens int
	// ProgressAfter is how long a call with a progressToken runs before
	// its first progress notification, and the interval of the next ones;
	// 0 means a second.
	ProgressAfter time.Duration
	// Service configures the workspace service the tools call: the index
	// (cache directory shared with the LSP server and the CLI, size cap),
	// the secret scanner and the clock. Its Logger and Version are the
	// ones above.
	Service workspace.ServiceOptions
}

// instructions tell an agent, once at initialize, what ctxd is for and
// how to use its tools; each tool's description says the rest.
const instructions = "ctxd decides what a model may see of this workspace. Before changing code, call build_context with the files " +
	"to change in plan_step.target_files (workspace-relative paths, \"path:L1-L2\" for a region) or symbols in plan_step.target_symbols: " +
	"an ordered, budgeted bundle with every secret redacted; blocks that do not fit the result are resource links to read with " +
	"resources/read. To look around, use search_symbols, find_references, list_files and read_file (redacted) instead of reading files " +
	"directly. A refusal is a tool error with a code and advice in these tools' arguments: follow it (for REFUSE_AMBIGUOUS_TARGET, retry " +
	"with a candidate in user_selected_targets) rather than reading the files another way."

// Server is ctxd's MCP server for one workspace folder: the eight tools
// (build_context, manifest, budget, render_prompt, record_execution, check_change,
// verify, index_status) over the same [workspace.Service] as the LSP
// server and the CLI, the last bundle and manifest of the session as
// resources, and the folder's prompt templates as prompts. Create it with
// [New], serve with [Server.Run] (or [Server.Connect]), and [Server.Close]
// it to save the index cache.
//
// A Server is safe for concurrent use; tool calls run concurrently.
type Server struct {
	log  *slog.Logger
	svc  *workspace.Service
	root string // absolute directory
	uri  string // its file URI
	name string
	mcp  *sdk.Server

	maxResult     int
	progressAfter time.Duration
	parts         partCache // the paged parts of the bundle read last
}

// New creates the server for opts.Root and starts indexing it: the index
// lists the folder in the background, and the first tool that needs it
// waits for the listing, so that initialize is answered at once.
func New(opts Options) (*Server, error) {
	if opts.Root == "" || !filepath.IsAbs(opts.Root) {
		return nil, fmt.Errorf("mcp server: the root %q is not an absolute path", opts.Root)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Version == "" {
		opts.Version = "devel"
	}
	if opts.MaxResultTokens == 0 {
		opts.MaxResultTokens = DefaultMaxResultTokens
	}
	if opts.MaxResultTokens < MinResultTokens || opts.MaxResultTokens > MaxResultTokens {
		return nil, fmt.Errorf("mcp server: the result budget %d is not from %d to %d tokens", opts.MaxResultTokens, MinResultTokens, MaxResultTokens)
	}
	if opts.ProgressAfter <= 0 {
		opts.ProgressAfter = time.Second
	}
	root := filepath.Clean(opts.Root)
	svcOpts := opts.Service
	svcOpts.Logger, svcOpts.Version = opts.Logger, opts.Version
	s := &Server{
		log:  opts.Logger,
		svc:  workspace.NewService(svcOpts),
		root: root,
		uri:  index.PathToURI(root),
		name: filepath.Base(root),

		maxResult:     opts.MaxResultTokens,
		progressAfter: opts.ProgressAfter,
	}
	s.mcp = sdk.NewServer(&sdk.Implementation{Name: "ctxd", Title: "ctxd context bundles", Version: opts.Version}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       opts.Logger.With("component", "go-sdk"),
		// ctxd's logs go to stderr, never to the client (no logging
		// capability), and its lists never change during a session.
		Capabilities: &sdk.ServerCapabilities{
			Tools:     &sdk.ToolCapabilities{},
			Resources: &sdk.ResourceCapabilities{},
			Prompts:   &sdk.PromptCapabilities{},
		},
	})
	for _, t := range tools {
		if err := s.addTool(t); err != nil {
			return nil, fmt.Errorf("mcp server: tool %s: %w", t.name, err)
		}
	}
	s.addBundleResources()
	// A configuration that cannot be used refuses every build with its
	// reason; the log says so now rather than at the first call.
	for _, p := range s.svc.SetRoots([]index.Root{{URI: s.uri, Name: s.name, Dir: root}}) {
		s.log.Warn("workspace configuration unusable; context tools will be refused until it is fixed and ctxd restarts", "folder", p.URI, "err", p.Err)
	}
	// The prompt templates are listed as the folder's workspace loads
	// them, once at startup; a template set that cannot be loaded lists
	// none (render_prompt says why).
	set, err := prompt.LoadDir(root)
	if err != nil {
		s.log.Warn("prompt templates not listed as MCP prompts", "err", err)
	} else {
		s.addPrompts(set)
	}
	return s, nil
}

// Connect serves one MCP session over t in the background and returns it;
// the session ends when the client disconnects or ctx is done.
func (s *Server) Connect(ctx context.Context, t sdk.Transport) (*sdk.ServerSession, error) {
	ss, err := s.mcp.Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("mcp server: connecting: %w", err)
	}
	return ss, nil
}

// Run serves one MCP session over t until the client disconnects (end of
// input on stdio) or ctx is done. An orderly end is not an error.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	err := s.mcp.Run(ctx, t)
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, sdk.ErrConnectionClosed) {
		return nil
	}
	return fmt.Errorf("mcp server: %w", err)
}

// Close stops indexing and saves the index cache, so that the next ctxd
// (an editor's server, ctxd build, another ctxd mcp) parses only what
// changed.
func (s *Server) Close() error {
	if err := s.svc.Close(); err != nil {
		return fmt.Errorf("saving the index cache: %w", err)
	}
	return nil
}

// caller is what the service is told about every call: the one folder
// served, and no client positions (an agent names targets by path), so
// that the candidates of an ambiguous target keep the builder's 0-based
// lines and byte columns: the "utf-8" position encoding.
func (s *Server) caller() workspace.Caller {
	return workspace.Caller{Client: workspace.ClientInfo{
		PositionEncoding: "utf-8",
		Folders:          []workspace.Folder{{URI: s.uri, Name: s.name}},
	}}
}
