package handlers

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"
)

// Client is the editor side of the connection as handlers see it. The server
// implements it over the JSON-RPC connection.
type Client interface {
	// Notify sends a notification.
	Notify(ctx context.Context, method string, params any) error
	// Call sends a request and decodes its result into result (which may be
	// nil to discard it).
	Call(ctx context.Context, method string, params, result any) error
}

// LogMessage sends window/logMessage. Failures are logged, never returned:
// a message to the editor is a courtesy, not part of any result.
func (s *Session) LogMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	s.notify(ctx, protocol.MethodWindowLogMessage, &protocol.LogMessageParams{Type: typ, Message: msg})
}

// ShowMessage sends window/showMessage, which editors show as a notification
// to the user.
func (s *Session) ShowMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	s.notify(ctx, protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: typ, Message: msg})
}

func (s *Session) notify(ctx context.Context, method string, params any) {
	if s.Client == nil {
		return
	}
	if err := s.Client.Notify(ctx, method, params); err != nil {
		s.Logger.Warn("notifying client failed", "method", method, "err", err)
	}
}

// Progress is one work-done progress shown by the editor. The nil *Progress
// is valid and does nothing, so callers need not check whether the client
// supports progress.
type Progress struct {
	s     *Session
	token string
}

// progressParams is $/progress with a string token. ctxd always creates
// string tokens, and protocol.ProgressToken marshals only through a pointer.
type progressParams struct {
	Token string `json:"token"`
	Value any    `json:"value"`
}

// progressBegin and progressReport are the begin and report values. They
// are ctxd's own rather than go.lsp.dev/protocol's because those omit a
// zero percentage, and a begin without one tells the client the progress
// is indeterminate, after which it may ignore every later percentage.
type progressBegin struct {
	Kind       protocol.WorkDoneProgressKind `json:"kind"`
	Title      string                        `json:"title"`
	Message    string                        `json:"message,omitempty"`
	Percentage *uint32                       `json:"percentage,omitempty"`
}

type progressReport struct {
	Kind       protocol.WorkDoneProgressKind `json:"kind"`
	Message    string                        `json:"message,omitempty"`
	Percentage uint32                        `json:"percentage"`
}

// StartProgress asks the client to create a progress token and sends the
// "begin" report, without a percentage: the client shows an indeterminate
// progress. It returns nil when the client did not announce
// window.workDoneProgress or refused the token.
//
// It sends a request to the client and waits for the answer, so it must not
// be called from code that runs on the connection's read loop (notification
// handlers): the answer could never be read. Call it from a request handler
// or a goroutine of its own.
func (s *Session) StartProgress(ctx context.Context, title, message string) *Progress {
	return s.startProgress(ctx, title, message, nil)
}

// StartProgressPercent is [Session.StartProgress] for work that reports
// percentages: the begin says 0%.
func (s *Session) StartProgressPercent(ctx context.Context, title, message string) *Progress {
	var zero uint32
	return s.startProgress(ctx, title, message, &zero)
}

func (s *Session) startProgress(ctx context.Context, title, message string, percentage *uint32) *Progress {
	if s.Client == nil || !s.Config().WorkDoneProgress {
		return nil
	}
	token := fmt.Sprintf("ctxd/%d", s.progress.Add(1))
	create := struct {
		Token string `json:"token"`
	}{token}
	if err := s.Client.Call(ctx, protocol.MethodWorkDoneProgressCreate, create, nil); err != nil {
		s.Logger.Warn("client refused a progress token", "err", err)
		return nil
	}
	p := &Progress{s: s, token: token}
	p.send(ctx, &progressBegin{Kind: protocol.WorkDoneProgressKindBegin, Title: title, Message: message, Percentage: percentage})
	return p
}

// Report updates the progress message and percentage (0–100).
func (p *Progress) Report(ctx context.Context, message string, percentage uint32) {
	if p == nil {
		return
	}
	p.send(ctx, &progressReport{Kind: protocol.WorkDoneProgressKindReport, Message: message, Percentage: min(percentage, 100)})
}

// End closes the progress with a final message.
func (p *Progress) End(ctx context.Context, message string) {
	if p == nil {
		return
	}
	p.send(ctx, &protocol.WorkDoneProgressEnd{Kind: protocol.WorkDoneProgressKindEnd, Message: message})
}

func (p *Progress) send(ctx context.Context, value any) {
	p.s.notify(ctx, protocol.MethodProgress, &progressParams{Token: p.token, Value: value})
}
