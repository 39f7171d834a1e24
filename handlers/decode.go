package handlers

import (
	"encoding/json"
	"fmt"

	"github.com/ctxd/ctxd/workspace"
	"go.lsp.dev/jsonrpc2"
)

// decodeParams decodes LSP params leniently (unknown fields are allowed: LSP
// clients extend messages freely) with the workspace layer's one decoder
// and reports any problem as InvalidParams naming the field, so a client
// author can fix the request from the message. Params types with required
// fields implement [workspace.Validator].
func decodeParams(raw json.RawMessage, v any) error {
	if err := workspace.DecodeJSON(raw, v, false); err != nil {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	return nil
}

// missing builds the error for an absent required field.
func missing(field string) error {
	return fmt.Errorf("missing required field %q", field)
}
