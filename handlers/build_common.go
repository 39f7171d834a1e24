package handlers

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// codeRefused is LSP 3.17's RequestFailed (-32803; go.lsp.dev/protocol
// v0.12.0 predates it): the request was valid but the builder refused it.
// The error's data is the [contextbuilder.Refusal].
const codeRefused jsonrpc2.Code = -32803

// caller is what the session tells the service about a command: how to
// start indexing for a request before initialized, how to check the open
// documents, and the session it reports in ctxd.indexStatus.
func (s *Session) caller() workspace.Caller {
	return workspace.Caller{
		Ready:  s.ensureIndexing,
		InSync: func() error { return checkInSync(s.Overlays()) },
		Adjust: func(o *contextbuilder.Options) { o.PositionEncoding = s.Config().Encoding },
		Client: workspace.ClientInfo{
			PositionEncoding: string(s.Config().Encoding),
			Folders:          s.Folders(),
			OpenDocuments:    s.openDocuments,
		},
	}
}

// checkInSync refuses to build while an open document is out of sync: its
// buffer in the editor differs from the last text ctxd could apply, and any
// file may end up in a bundle as a dependency. ContentModified (-32801)
// tells the client that reopening the document (or a full-content change)
// repairs it.
func checkInSync(o *index.Overlays) error {
	for _, uri := range o.URIs() {
		if d, _ := o.Get(uri); d.OutOfSync {
			return fmt.Errorf("%w: %s is out of sync (a change could not be applied); reopen it or send its full content before building context", workspace.ErrOutOfSync, uri)
		}
	}
	return nil
}

// wireError puts a service error on the wire (the service logged it):
//   - a refusal → RequestFailed (-32803) whose message is the refusal's
//     Error() and whose data is the refusal itself;
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
		data, merr := json.Marshal(f.Refusal)
		if merr != nil {
			s.Logger.Error(command+": encoding the refusal failed", "code", f.Refusal.Code, "err", merr)
			return internal
		}
		raw := json.RawMessage(data)
		return &jsonrpc2.Error{Code: codeRefused, Message: f.Message, Data: &raw}
	case workspace.FailInvalid:
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, f.Message)
	case workspace.FailOutOfSync:
		return jsonrpc2.NewError(protocol.CodeContentModified, strings.TrimPrefix(f.Message, workspace.ErrOutOfSync.Error()+": "))
	case workspace.FailCancelled:
		return err
	}
	return internal
}
