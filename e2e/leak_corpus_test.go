package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder/secrets/secretstest"
)

// TestNoCorpusSecretLeaves drives the real binary at --log-level debug over
// the generated secrets corpus (every credential type the rules cover):
// one ctxd.buildContext per type, targeting a file that holds it. No
// fragment of any planted secret may appear in a response, an error or
// the server's stderr.
func TestNoCorpusSecretLeaves(t *testing.T) {
	c := secretstest.Generate(0x5ec2e75)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WriteTo(dir); err != nil {
		t.Fatal(err)
	}
	// One file per type and one per file kind, the first in path order
	// that is not a never-send path (.env files are refused before they
	// are read, which TestNoLeaks covers).
	targets := map[string]string{}
	for _, s := range c.Secrets {
		if strings.HasSuffix(s.Path, ".env") {
			continue
		}
		for _, key := range []string{"type " + s.Type, "kind " + string(s.Kind)} {
			if _, ok := targets[key]; !ok {
				targets[key] = s.Path
			}
		}
	}
	// Fragments: every 12-byte window of each secret's random part (or
	// the whole part when shorter).
	const window = 12
	fragments := map[string]string{}
	for _, s := range c.Secrets {
		core := s.Core()
		if len(core) < window {
			fragments[core] = s.Type
			continue
		}
		for i := 0; i+window <= len(core); i++ {
			fragments[core[i:i+window]] = s.Type
		}
	}
	leaked := func(where, text string) {
		t.Helper()
		for i := 0; i < len(text); i++ {
			for _, n := range []int{window, 6, 7, 8, 9, 10, 11} {
				if i+n <= len(text) {
					if typ, ok := fragments[text[i:i+n]]; ok {
						t.Errorf("a %s secret leaked into %s", typ, where)
						return
					}
				}
			}
		}
	}

	p := startServer(t, "--log-level", "debug")
	root := "file://" + filepath.ToSlash(dir)
	if m := p.call(1, "initialize", map[string]any{"processId": os.Getpid(), "rootUri": root, "capabilities": map[string]any{}}); m.Error != nil {
		t.Fatal(m.Error)
	}
	_ = p.c.Notify("initialized", map[string]any{})
	id := 10
	built, refused := 0, 0
	for typ, path := range targets {
		id++
		m := p.call(id, "workspace/executeCommand", map[string]any{"command": "ctxd.buildContext", "arguments": []any{
			map[string]any{"purpose": "diff", "plan_step": map[string]any{"id": "s", "target_files": []string{path}}},
		}})
		if m.Error != nil {
			refused++
			t.Logf("%s: %s", path, m.Error.Message)
			leaked(typ+" error", m.Error.Message+string(m.Error.Data))
			continue
		}
		built++
		leaked(typ+" bundle", string(m.Result))
	}
	p.call(id+1, "shutdown", nil)
	_ = p.c.Notify("exit", nil)
	p.wait()
	stderr := p.stderr.String()
	if !strings.Contains(stderr, "level=DEBUG") {
		t.Fatalf("the server logged nothing at debug level; the test checks nothing:\n%.500s", stderr)
	}
	leaked("stderr", stderr)
	t.Logf("%d types and kinds: %d bundles, %d refusals; %d bytes of debug log checked", len(targets), built, refused, len(stderr))
}
