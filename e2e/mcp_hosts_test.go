package e2e

import (
	"encoding/json"

	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/ctxd/ctxd/internal/testenv"
)

// hostServer is a stdio server entry of an MCP host's configuration
// (Claude Code's and Cursor's "mcpServers", VS Code's "servers", Codex's
// TOML "mcp_servers").
type hostServer struct {
	Type    string   `json:"type" toml:"type"`
	Command string   `json:"command" toml:"command"`
	Args    []string `json:"args" toml:"args"`
}

// hostConfigs reads every host configuration of a document: its JSON
// blocks with "mcpServers" or "servers" and its TOML blocks with
// "mcp_servers", by "list.name".
func hostConfigs(t *testing.T, doc []byte) map[string]hostServer {
	t.Helper()
	servers := map[string]hostServer{}
	for _, m := range regexp.MustCompile("(?s)```(json|toml)\n(.*?)```").FindAllSubmatch(doc, -1) {
		var cfg struct {
			MCPServers map[string]hostServer `json:"mcpServers"`
			Servers    map[string]hostServer `json:"servers"`
			Codex      map[string]hostServer `toml:"mcp_servers"`
		}
		var err error
		if string(m[1]) == "toml" {
			_, err = toml.Decode(string(m[2]), &cfg)
		} else {
			err = json.Unmarshal(m[2], &cfg)
		}
		if err != nil {
			continue // a tool call or another example
		}
		for list, entries := range map[string]map[string]hostServer{"mcpServers": cfg.MCPServers, "servers": cfg.Servers, "mcp_servers": cfg.Codex} {
			for name, s := range entries {
				servers[list+"."+name] = s
			}
		}
	}
	return servers
}

// TestMCPHostConfigs runs every host configuration docs/mcp.md gives, as
// the host would start it: the command ctxd (the binary under test) with
// the documented arguments, the folder the host substitutes for "." or
// ${workspaceFolder}; each must serve the tools.
func TestMCPHostConfigs(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := testenv.ExampleCopy(t)
	servers := hostConfigs(t, doc)
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		s := servers[name]
		t.Run(name, func(t *testing.T) {
			if s.Command != "ctxd" || (s.Type != "" && s.Type != "stdio") || len(s.Args) == 0 || s.Args[0] != "mcp" {
				t.Fatalf("%+v, want the stdio command ctxd mcp", s)
			}
			args := slices.Clone(s.Args)
			for i, a := range args {
				// What the host or the user puts there.
				if a == "." || a == "${workspaceFolder}" || a == "/path/to/project" {
					args[i] = dir
				}
			}
			p := startMCP(t, append([]string{binary(t)}, append(args, "--cache-dir", "off")...)...)
			res, err := p.cs.ListTools(p.ctx, nil)
			if err != nil || len(res.Tools) < 12 {
				t.Errorf("tools/list: %v, %d tools", err, len(res.Tools))
			}
			if code := p.close(); code != 0 {
				t.Errorf("exit code %d (stderr: %s)", code, p.stderr)
			}
		})
	}
	for _, want := range []string{"mcpServers.ctxd", "servers.ctxd", "mcp_servers.ctxd"} {
		if _, ok := servers[want]; !ok {
			t.Errorf("docs/mcp.md has no %s configuration", want)
		}
	}
}
