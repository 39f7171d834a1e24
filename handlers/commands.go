package handlers

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/ctxd/ctxd/workspace"
	"go.lsp.dev/jsonrpc2"
)

type executeCommandParams struct {
	Command   *string           `json:"command"`
	Arguments []json.RawMessage `json:"arguments"`
}

// Validate names the first missing or invalid field.
func (p *executeCommandParams) Validate() error {
	if p.Command == nil || *p.Command == "" {
		return missing("command")
	}
	return nil
}

// ExecuteCommand handles workspace/executeCommand: the named
// [workspace.Command] runs with arguments[0] on the session's service, and
// its error is put on the wire. An unknown command is InvalidParams
// listing the known ones, since the method itself exists.
func ExecuteCommand(ctx context.Context, s *Session, raw json.RawMessage) (any, error) {
	var p executeCommandParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	c, ok := workspace.LookupCommand(*p.Command)
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q; ctxd provides %s", *p.Command, strings.Join(workspace.CommandNames(), ", "))
	}
	var arg json.RawMessage
	if len(p.Arguments) > 0 {
		arg = p.Arguments[0]
	}
	res, err := c.Invoke(ctx, s.Service, s.caller(), arg)
	if err != nil {
		return nil, s.wireError(c.Name, err)
	}
	if r, ok := res.(canonicalResult); ok {
		return json.RawMessage(r.AppendCanonical(nil)), nil
	}
	return res, nil
}

// canonicalResult is a result that writes its own canonical (RFC 8785)
// JSON form: ctxd.buildContext's, whose blocks were written once while
// building — the bytes its fingerprint hashed and its artifact recorded.
// Replying with those bytes spares encoding the largest result of all a
// second time; a client sees the same JSON value, with members in key
// order.
type canonicalResult interface {
	AppendCanonical(dst []byte) []byte
}
