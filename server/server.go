package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/handlers"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/server/framing"
	"github.com/ctxd/ctxd/workspace"
	"go.lsp.dev/jsonrpc2"
)

// Options configure a [Server]. The zero value is valid.
type Options struct {
	// Logger receives all logs; nil means slog.Default(). It must not write to
	// the protocol stream.
	Logger *slog.Logger
	// Version is reported in serverInfo; empty means "devel".
	Version string
	// MaxContentLength caps one message body; 0 means
	// framing.DefaultMaxContentLength.
	MaxContentLength int64
	// Index configures the workspace index (cache directory, size cap);
	// its zero value uses the user cache directory. The session sets
	// OnProgress, and Logger when it is nil.
	Index index.Options
	// Secrets scans every text a build would send; nil means the built-in
	// rules (secrets.Default).
	Secrets contextbuilder.Redactor
	// SecretsErr, when set, is why the user's secret rules could not be
	// loaded: every build is then refused with it.
	SecretsErr error
}

// Server serves one LSP connection. Create it with [New] and call [Server.Run]
// once.
type Server struct {
	opts    Options
	logger  *slog.Logger
	session *handlers.Session

	requests      map[string]handlers.RequestFunc
	notifications map[string]handlers.NotificationFunc

	mu       sync.Mutex
	state    state
	inflight map[string]*call // by request id key, see idKey
	calls    sync.WaitGroup   // request goroutines
	exitCode chan int         // receives the code of the exit notification
	conn     jsonrpc2.Conn

	// stopGrace bounds the end of Run after exit or the end of input
	// (requests and index closing together); tests shorten it.
	stopGrace time.Duration
}

// New returns a server that has not yet been initialized.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Version == "" {
		opts.Version = "devel"
	}
	s := &Server{
		opts:          opts,
		logger:        opts.Logger,
		requests:      handlers.Requests(),
		notifications: handlers.Notifications(),
		inflight:      make(map[string]*call),
		exitCode:      make(chan int, 1),
		stopGrace:     defaultStopGrace,
	}
	s.session = handlers.NewSession(opts.Logger, opts.Version, (*client)(s),
		workspace.ServiceOptions{Index: opts.Index, Redactor: opts.Secrets, RedactorErr: opts.SecretsErr})
	return s
}

// Session returns the handlers' shared state, for tests and embedding.
func (s *Server) Session() *handlers.Session { return s.session }

// Run serves rwc until the client sends exit or closes the stream, and
// returns the process exit code: 0 after shutdown then exit, 1 for exit
// without shutdown, 0 when the stream ends (the editor went away; there is
// nobody left to report a failure to).
func (s *Server) Run(ctx context.Context, rwc io.ReadWriteCloser) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	conn := jsonrpc2.NewConn(framing.NewStream(rwc, framing.Options{
		MaxContentLength: s.opts.MaxContentLength,
		Logger:           s.logger,
	}))
	s.mu.Lock()
	s.conn = conn
	s.mu.Unlock()
	conn.Go(ctx, s.handle)

	code := 0
	select {
	case code = <-s.exitCode:
	case <-conn.Done():
		// exit is handled on the read loop before it can see the end of
		// input, so a client that sends exit and closes the pipe at once
		// still gets exit's code.
		select {
		case code = <-s.exitCode:
		default:
			code = s.endOfInputCode(conn.Err())
		}
	case <-ctx.Done():
		code = 1
	}
	// The client is gone or said exit: nobody waits for answers or for
	// the index any more. Cancel the requests, then the scans (Close
	// cancels them and saves the index cache), within one grace period:
	// an editor that closed the pipe expects the process to end now, and
	// a scan stuck in a slow read (a network file system) must not keep
	// it alive.
	stop := time.Now().Add(s.stopGrace)
	s.cancelAll()
	s.waitCalls(time.Until(stop))
	// Closing does not wake a read blocked on a stdin in blocking mode, so
	// the read loop is not awaited: the process exits around it.
	_ = conn.Close()
	s.closeIndex(time.Until(stop))
	s.logger.Info("server stopped", "exit_code", code)
	return code
}

// defaultStopGrace bounds how long Run takes to return once the client
// sent exit or closed the stream.
const defaultStopGrace = time.Second

// closeIndex closes the index (cancelling its scans, saving its cache),
// waiting at most limit: past it the process exits with the index still
// closing, and the cache is not saved this time.
func (s *Server) closeIndex(limit time.Duration) {
	done := make(chan error, 1)
	go func() { done <- s.session.Index.Close() }()
	select {
	case err := <-done:
		if err != nil {
			s.logger.Warn("closing the index", "err", err)
		}
	case <-time.After(limit):
		s.logger.Warn("the index was still closing at exit; its cache was not saved", "waited", limit)
	}
}

// endOfInputCode is the exit code when the client's stream ends without an
// exit notification.
func (s *Server) endOfInputCode(err error) int {
	if err != nil && !isEOF(err) {
		s.logger.Error("connection failed", "err", err)
		return 1
	}
	if s.currentState() != stateShutdown {
		s.logger.Warn("client closed the connection without shutdown")
	}
	return 0
}

// waitCalls waits for request goroutines to return, at most limit: a
// handler that ignores its cancelled context must not keep the process
// alive.
func (s *Server) waitCalls(limit time.Duration) {
	done := make(chan struct{})
	go func() { s.calls.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
		s.logger.Warn("requests still running at exit")
	}
}

// client sends messages to the editor over the server's connection.
type client Server

func (c *client) Notify(ctx context.Context, method string, params any) error {
	conn := (*Server)(c).connection()
	if conn == nil {
		return fmt.Errorf("notifying %s: not connected", method)
	}
	return conn.Notify(ctx, method, params)
}

func (c *client) Call(ctx context.Context, method string, params, result any) error {
	conn := (*Server)(c).connection()
	if conn == nil {
		return fmt.Errorf("calling %s: not connected", method)
	}
	var raw json.RawMessage
	if _, err := conn.Call(ctx, method, params, &raw); err != nil {
		return fmt.Errorf("calling %s: %w", method, err)
	}
	if result == nil || len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("decoding the result of %s: %w", method, err)
	}
	return nil
}

func (s *Server) connection() jsonrpc2.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn
}
