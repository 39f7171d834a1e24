package handlers

import (
	"encoding/json"

	"github.com/ctxd/ctxd/workspace"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// codeRefused is LSP 3.17's RequestFailed (-32803; go.lsp.dev/protocol
// v0.12.0 predates it): the request was valid but the builder refused it.
// The error's data is the [contextbuilder.Refusal].
const codeRefused jsonrpc2.Code = -32803

// caller is what the session tells the service about a command: how to
// start indexing for a request before initialized, and the session it
// reports in ctxd.indexStatus.
func (s *Session) caller() workspace.Caller {
	return workspace.Caller{
		Ready:     s.ensureIndexing,
		Positions: Positions(s.Config().Encoding),
		Client: workspace.ClientInfo{
			PositionEncoding: string(s.Config().Encoding),
			Folders:          s.Folders(),
		},
	}
}

// wireError puts a service error on the wire (the service logged it):
//   - a refusal → RequestFailed (-32803) whose message is the refusal's
//     Error() and whose data is the refusal itself, its advice in the
//     client's words (termsFor);
//   - an invalid request → InvalidParams (-32602) with the message, which
//     names the field;
//   - an out-of-sync document → ContentModified (-32801);
//   - cancellation → the error as is, which the server answers with
//     RequestCancelled;
//   - anything else → InternalError without the error's text: an error
//     may quote what it failed on.
func (s *Session) wireError(command string, err error) error {
	f := workspace.Classify(err)
	internal := jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: the server logged the details and keeps serving", command)
	switch f.Kind {
	case workspace.FailRefused:
		data, merr := json.Marshal(f.Refusal.In(termsFor(s.Config().ClientName)))
		if merr != nil {
			s.Logger.Error(command+": encoding the refusal failed", "code", f.Refusal.Code, "err", merr)
			return internal
		}
		raw := json.RawMessage(data)
		return &jsonrpc2.Error{Code: codeRefused, Message: f.Message, Data: &raw}
	case workspace.FailInvalid:
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, f.Message)
	case workspace.FailOutOfSync:
		return jsonrpc2.NewError(protocol.CodeContentModified, f.Message)
	case workspace.FailCancelled:
		return err
	}
	return internal
}
