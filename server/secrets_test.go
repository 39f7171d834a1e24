package server

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/cbtest"
	"github.com/ctxd/ctxd/index"
	"github.com/ctxd/ctxd/workspace"
)

// TestBuildRefusedWithoutSecretRules: when the user's secret rules could
// not be loaded, the server still serves (index, symbols) but every build
// fails closed, naming the file.
func TestBuildRefusedWithoutSecretRules(t *testing.T) {
	rulesErr := errors.New("secret rules /home/u/.config/ctxd/secret-rules.toml: line 2: expected '='")
	h, _ := newBuildHarness(t, buildWorkspace, "", func(srv *Server) {
		srv.Session().UseService(workspace.ServiceOptions{Index: index.Options{CacheDir: "off"}, RedactorErr: rulesErr})
	})
	for _, cmd := range []string{"ctxd.buildContext", "ctxd.manifest", "ctxd.budget"} {
		m := h.command(cmd, map[string]any{"purpose": "diff", "plan_step": map[string]any{"id": "s", "target_files": []string{"store/store.go"}}})
		if m.Error == nil || m.Error.Code != -32803 {
			t.Fatalf("%s: got %+v, want a -32803 refusal", cmd, m)
		}
		cbtest.ValidateValue(t, "refusal.schema.json", m.Error.Data)
		var r contextbuilder.Refusal
		if err := json.Unmarshal(m.Error.Data, &r); err != nil {
			t.Fatal(err)
		}
		if r.Code != contextbuilder.RefuseSecretRisk || !strings.Contains(r.Message, "secret-rules.toml") || r.Advice == "" {
			t.Errorf("%s: refusal %+v, want REFUSE_SECRET_RISK naming the rules file", cmd, r)
		}
	}
}
