// Package mcp is ctxd's Model Context Protocol front end: the server `ctxd
// mcp` runs over stdio for coding agents, built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk). It stands beside the LSP
// server (package server) on the same service layer: each tool decodes
// its arguments with the service's strict decoder, calls the
// [workspace.Service] method the matching LSP command calls, and encodes
// the result, so that an agent gets the same bundles, refusals and
// records as an editor, from the same persisted index.
//
// [Server] serves one workspace folder ([Options].Root). Its tools are
// build_context, manifest, budget, render_prompt, record_execution, check_change, verify
// and index_status (ctxd.buildContext, ctxd.manifest, … over LSP). Their
// input and output schemas are inferred from the LSP commands' Go types;
// an agent names targets by workspace-relative path and never by URI or
// editor position, which the schemas leave out and the tools reject. A
// result is structuredContent (build_context's is the canonical JSON the
// LSP command replies with) plus a text a model reads directly (the
// bundle as Markdown for build_context, indented JSON otherwise). A
// refusal or an invalid argument is a tool error (isError) whose texts
// say the code, message and advice, and carry the refusal as JSON.
//
// The session's last bundle and manifest are resources
// ([BundleResource], [ManifestResource]), and the workspace's prompt
// templates are MCP prompts. Logs go to the [Options].Logger (stderr in
// ctxd mcp), never to the protocol stream, and never hold file contents.
package mcp
