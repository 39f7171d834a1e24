package e2e

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/ctxd/ctxd/internal/testenv"
)

// hostServer is a stdio server entry of an MCP host's configuration
// (Claude Code's and Cursor's "mcpServers", VS Code's "servers").
type hostServer struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
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
	tested := 0
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllSubmatch(doc, -1) {
		var cfg struct {
			MCPServers map[string]hostServer `json:"mcpServers"`
			Servers    map[string]hostServer `json:"servers"`
		}
		if json.Unmarshal(m[1], &cfg) != nil || len(cfg.MCPServers)+len(cfg.Servers) == 0 {
			continue // a tool call or another example
		}
		servers := map[string]hostServer{}
		for name, s := range cfg.MCPServers {
			servers["mcpServers."+name] = s
		}
		for name, s := range cfg.Servers {
			servers["servers."+name] = s
		}
		for _, name := range slices.Sorted(maps.Keys(servers)) {
			s := servers[name]
			if s.Command != "ctxd" || (s.Type != "" && s.Type != "stdio") || len(s.Args) == 0 || s.Args[0] != "mcp" {
				t.Errorf("%s: %+v, want the stdio command ctxd mcp", name, s)
				continue
			}
			args := slices.Clone(s.Args)
			for i, a := range args {
				if a == "." || a == "${workspaceFolder}" {
					args[i] = dir
				}
			}
			p := startMCP(t, append([]string{binary(t)}, append(args, "--cache-dir", "off")...)...)
			res, err := p.cs.ListTools(p.ctx, nil)
			if err != nil || len(res.Tools) < 12 {
				t.Errorf("%s: tools/list: %v, %d tools", name, err, len(res.Tools))
			}
			if code := p.close(); code != 0 {
				t.Errorf("%s: exit code %d (stderr: %s)", name, code, p.stderr)
			}
			tested++
		}
	}
	if tested < 2 {
		t.Errorf("%d host configurations found in docs/mcp.md, want the mcpServers and VS Code forms", tested)
	}
}
