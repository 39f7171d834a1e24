// Command ctxd is a Language Server Protocol sidecar that decides what an AI
// model may see: it keeps a live index of the workspace from the editor's
// notifications and answers ctxd commands with deterministic, auditable
// context bundles.
//
// Usage:
//
//	ctxd [serve] [--stdio] [--log-level L] [--log-file F]   serve LSP over stdio (default)
//	ctxd build --root DIR --purpose intent|plan|diff [...]  build a context bundle (as ctxd.buildContext)
//	ctxd index --root DIR [--json] [--skipped]              index a folder, print its status
//	ctxd record --root DIR --thread-id ID --turn-id ID      record a model's output for a thread's turn
//	ctxd verify --root DIR [--mode stream|ledger] [--json]  replay the records and check every digest
//	ctxd check-change --root DIR --answer FILE [...]        check a model's answer against its bundle
//	ctxd init [--root DIR] [--force]                        write .ctxd/config.json with every default
//	ctxd mcp [--root DIR]                                   serve the Model Context Protocol over stdio
//	ctxd explain CODE                                       the long help of a refusal code
//	ctxd version [--json]                                   print version, commit and Go version
//	ctxd help [command]                                     print help
//
// Logs go to stderr (or --log-file), never to stdout: stdout is the protocol
// channel. The subcommands live in internal/cli.
package main

import (
	"os"

	"github.com/ctxd/ctxd/internal/cli"
)

// version and commit are set by the Makefile with -ldflags "-X main.version=…
// -X main.commit=…".
var (
	version = ""
	commit  = ""
)

//go:generate go run ./tools/gencontract

func main() {
	cli.Version, cli.Commit = version, commit
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
