package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/workspace"
)

// lua renders the Lua module.
func (m *model) lua() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "-- %s\n-- The wire contract of ctxd (docs/protocol.md, docs/schemas/) as the plugin sees it.\nreturn {\n", header)
	b.WriteString("  commands = {\n")
	for _, c := range workspace.Commands {
		fmt.Fprintf(&b, "    %s = %s,\n", commandKey(c), luaString(c.Name))
	}
	b.WriteString("  },\n")
	b.WriteString("  -- Each command as the server declares it (workspace.Commands), in the\n" +
		"  -- order it advertises them: key in commands, wire name, title, the types\n" +
		"  -- (in types) of arguments[0] and of the result, whether arguments[0] may\n" +
		"  -- be absent, and the JSON Schemas of both under docs/schemas.\n")
	b.WriteString("  command_specs = {\n")
	for _, c := range workspace.Commands {
		fmt.Fprintf(&b, "    {\n      key = %s,\n      name = %s,\n      title = %s,\n      arg = %s,\n      result = %s,\n      arg_optional = %t,\n      arg_schema = %s,\n      result_schema = %s,\n    },\n",
			luaString(commandKey(c)), luaString(c.Name), luaString(c.Title), luaString(m.named[c.Arg]), luaString(m.named[c.Result]),
			c.ArgOptional, luaString(c.ArgSchema), luaString(c.ResultSchema))
	}
	b.WriteString("  },\n")
	for _, e := range enums() {
		fmt.Fprintf(&b, "  %s = %s,\n", snake(e.consts), luaList(e.values))
	}
	b.WriteString("  code_refused = -32803,\n")
	fmt.Fprintf(&b, "  -- The command protocol this plugin speaks: `ctxd version --json` reports the server's.\n  protocol_version = %d,\n", workspace.ProtocolVersion)
	b.WriteString("  -- The JSON fields of each type, sorted; optional ones are listed in optional.\n  types = {\n")
	names := slices.Clone(m.order)
	slices.Sort(names)
	for _, name := range names {
		it := m.ifaces[name]
		all := sortedNames(it.all, func(field) bool { return true })
		opt := sortedNames(it.all, func(f field) bool { return f.optional })
		fmt.Fprintf(&b, "    %s = { fields = %s, optional = %s },\n", name, luaList(all), luaList(opt))
	}
	b.WriteString("  },\n}\n")
	return b.Bytes()
}

// commandKey is the key of a command in the Lua commands table:
// ctxd.buildContext is build_context.
func commandKey(c workspace.Command) string {
	return snake(strings.TrimPrefix(c.Name, "ctxd."))
}

// luaString is s as a Lua string literal that Lua 5.1 (LuaJIT) reads:
// quotes and backslashes escaped, control bytes as decimal escapes, other
// bytes (UTF-8 included) as they are.
func luaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\%03d", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// luaList is a Lua sequence of strings.
func luaList(vs []string) string {
	if len(vs) == 0 {
		return "{}"
	}
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = luaString(v)
	}
	return "{ " + strings.Join(q, ", ") + " }"
}

// snake turns buildContext or RefusalCodes into build_context or
// refusal_codes.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
