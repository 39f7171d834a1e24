package server

// state is the LSP lifecycle state of the connection.
type state int

const (
	// stateNew: before a successful initialize. Requests get
	// ServerNotInitialized; notifications other than exit are dropped.
	stateNew state = iota
	// stateRunning: after initialize answered. The initialized notification
	// is welcome but not required before other requests: the spec lets a
	// client send requests as soon as it has the initialize result.
	stateRunning
	// stateShutdown: after shutdown, and after exit. Every request gets
	// InvalidRequest; only exit still matters.
	stateShutdown
)

func (st state) String() string {
	switch st {
	case stateNew:
		return "new"
	case stateRunning:
		return "running"
	case stateShutdown:
		return "shutdown"
	}
	return "unknown"
}

func (s *Server) currentState() state {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

func (s *Server) setState(st state) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state = st
}

// exitCodeFor is the process exit code of an exit notification received in
// state st: 0 after shutdown, 1 otherwise, as the spec says.
func exitCodeFor(st state) int {
	if st == stateShutdown {
		return 0
	}
	return 1
}
