package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctxd/ctxd/workspace"
)

// typescript renders the TypeScript module.
func (m *model) typescript() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n// The wire contract of ctxd (docs/protocol.md, docs/schemas/) as the extension sees it.\n\n", header)
	b.WriteString("/** The ctxd commands (workspace/executeCommand), by handler. */\nexport const Commands = {\n")
	for _, c := range workspace.Commands {
		fmt.Fprintf(&b, "  %s: %s,\n", lowerFirst(strings.TrimPrefix(c.Name, "ctxd.")), jsString(c.Name))
	}
	b.WriteString("} as const;\n\n")
	b.WriteString("/** Every command name, in the order the server advertises them. */\nexport const CommandNames = [")
	for i, c := range workspace.Commands {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(jsString(c.Name))
	}
	b.WriteString("] as const;\n\n")
	b.WriteString("/**\n * Each command as the server declares it (workspace.Commands): its title, the\n" +
		" * interfaces of arguments[0] and of the result, whether arguments[0] may be\n" +
		" * absent or null, and the JSON Schemas of both under docs/schemas.\n */\nexport const CommandSpecs = [\n")
	for _, c := range workspace.Commands {
		fmt.Fprintf(&b, "  {\n    name: %s,\n    title: %s,\n    arg: %s,\n    result: %s,\n    argOptional: %t,\n    argSchema: %s,\n    resultSchema: %s,\n  },\n",
			jsString(c.Name), jsString(c.Title), jsString(m.named[c.Arg]), jsString(m.named[c.Result]), c.ArgOptional, jsString(c.ArgSchema), jsString(c.ResultSchema))
	}
	b.WriteString("] as const;\n\n")
	b.WriteString("/** The argument (arguments[0]) and result types of each command, by name. */\nexport interface CommandTypes {\n")
	for _, c := range workspace.Commands {
		opt := ""
		if c.ArgOptional {
			opt = "?"
		}
		fmt.Fprintf(&b, "  %s: { arg%s: %s; result: %s };\n", jsString(c.Name), opt, m.named[c.Arg], m.named[c.Result])
	}
	b.WriteString("}\n\n")
	for _, e := range enums() {
		fmt.Fprintf(&b, "export const %s = [%s] as const;\nexport type %s = (typeof %s)[number];\n\n", e.consts, jsList(e.values), e.typ, e.consts)
	}
	b.WriteString("/** JSON-RPC error code of a refusal (RequestFailed); its data is a Refusal. */\nexport const CodeRefused = -32803;\n")
	fmt.Fprintf(&b, "/** The command protocol this client speaks: `ctxd version --json` reports the server's. */\nexport const ProtocolVersion = %d;\n", workspace.ProtocolVersion)
	for _, name := range m.order {
		it := m.ifaces[name]
		ext := ""
		if len(it.bases) > 0 {
			ext = " extends " + strings.Join(it.bases, ", ")
		}
		fmt.Fprintf(&b, "\nexport interface %s%s {\n", name, ext)
		for _, f := range it.own {
			opt := ""
			if f.optional {
				opt = "?"
			}
			fmt.Fprintf(&b, "  %s%s: %s;\n", f.name, opt, f.typ)
		}
		b.WriteString("}\n")
	}
	return b.Bytes()
}

// jsString is s as a JavaScript string literal (JSON's, which JavaScript
// reads the same; <, > and & stay as they are).
func jsString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err) // a string always encodes
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// jsList is vs as comma-separated string literals.
func jsList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = jsString(v)
	}
	return strings.Join(q, ", ")
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
