// Package mcp is ctxd's Model Context Protocol front end: the server `ctxd
// mcp` runs over stdio for coding agents, built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) with its own stdio transport
// ([StdioTransport]), which answers a malformed frame with a JSON-RPC
// error and keeps serving. It stands beside the LSP server (package
// server) on the same service layer: each tool decodes its arguments with
// the service's strict decoder, calls the [workspace.Service] method the
// matching LSP command calls, and fits the result to the call's result
// budget, so that an agent gets the same bundles, refusals and records as
// an editor, from the same persisted index.
//
// [Server] serves one workspace folder ([Options].Root). Its tools are
// build_context, manifest, budget, render_prompt, record_execution,
// check_change, verify and index_status (the LSP commands), and
// search_symbols, find_references, read_file and list_files (reads inside
// the same sandbox, never-send rules and redaction). Every result, texts,
// links and structuredContent, stays within max_result_tokens
// ([DefaultMaxResultTokens] unless the call or [Options].MaxResultTokens
// says otherwise): a bundle's blocks that do not fit are resource links to
// its recorded parts (ctxd://bundles/<id>/…, one resource template), long
// lists are paged, and detail "full" returns the LSP command's whole
// result when it fits. A refusal or an invalid argument is a tool error
// whose texts say the code, message and advice, the advice in the tools'
// arguments.
//
// The workspace's prompt templates are MCP prompts. Logs go to the
// [Options].Logger (stderr in ctxd mcp), never to the protocol stream, and
// never hold file contents.
package mcp
