package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ctxd/ctxd/workspace"
)

// protocolFile is the protocol document whose command table gencontract
// writes, relative to the module root.
const protocolFile = "docs/protocol.md"

// The markers around the generated command table. gencontract rewrites
// only the lines between them; the rest of the document is prose.
const (
	beginCommands = "<!-- BEGIN GENERATED: commands (tools/gencontract) -->"
	endCommands   = "<!-- END GENERATED: commands -->"
)

// protocol returns doc with the command table between the markers
// replaced by one generated from workspace.Commands.
func protocol(doc []byte) ([]byte, error) {
	begin := bytes.Index(doc, []byte(beginCommands+"\n"))
	end := bytes.Index(doc, []byte(endCommands))
	if begin < 0 || end < 0 || end < begin {
		return nil, fmt.Errorf("gencontract: %s has no %q line followed by %q", protocolFile, beginCommands, endCommands)
	}
	if bytes.Count(doc, []byte(beginCommands)) != 1 || bytes.Count(doc, []byte(endCommands)) != 1 {
		return nil, fmt.Errorf("gencontract: %s has its command table markers more than once", protocolFile)
	}
	var out bytes.Buffer
	out.Write(doc[:begin+len(beginCommands)+1])
	out.WriteString(commandTable())
	out.Write(doc[end:])
	return out.Bytes(), nil
}

// commandTable is the Markdown table of the commands in declaration
// order.
func commandTable() string {
	var b strings.Builder
	b.WriteString("| command | argument (`arguments[0]`) | result | what it does |\n|---|---|---|---|\n")
	for _, c := range workspace.Commands {
		arg := schemaLink(c.ArgSchema)
		if c.ArgOptional {
			arg = "optional: " + arg
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.Name, arg, schemaLink(c.ResultSchema), markdownCell(c.Title))
	}
	return b.String()
}

// schemaLink links a schema file relative to docs/.
func schemaLink(file string) string {
	if file == "" {
		return "none"
	}
	return fmt.Sprintf("[`%s`](schemas/%s)", strings.TrimSuffix(file, ".schema.json"), file)
}

// markdownCell escapes what would end a table cell or read as HTML.
func markdownCell(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "\n", " ").Replace(s)
}
