package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder"
)

// TestRefusalAdviceInFlags: the CLI says a refusal's actions with its
// flags, in the {"refusal": …} it prints and on stderr, never with the
// request's fields (issue 32, item 11).
func TestRefusalAdviceInFlags(t *testing.T) {
	r := &contextbuilder.Refusal{
		Code:    contextbuilder.RefuseContextTooLarge,
		Message: "needs 708 tokens",
		Advice:  "the request's words",
		Actions: []contextbuilder.Action{{Kind: contextbuilder.ActionSelectRegion}, {Kind: contextbuilder.ActionNameSymbol}, {Kind: contextbuilder.ActionRaiseBudget}},
	}
	var stdout, stderr bytes.Buffer
	if code := printRefusal("build", r, &stdout, &stderr); code != exitRefused {
		t.Fatalf("exit code %d, want %d", code, exitRefused)
	}
	var got struct{ Refusal contextbuilder.Refusal }
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := "narrow the scope: send only the region to change with --target PATH:L1-L2 (1-based lines) instead of the whole file; " +
		"name the symbol to change with --symbol NAME (Type.Method for a method); or raise --max-input-tokens for a model with a larger input window"
	if diff := cmp.Diff(want, got.Refusal.Advice); diff != "" {
		t.Errorf("advice (-want +got):\n%s", diff)
	}
	if !strings.Contains(stderr.String(), "advice: "+want) {
		t.Errorf("stderr does not give the advice in flags:\n%s", stderr.String())
	}
	if r.Advice != "the request's words" {
		t.Errorf("printRefusal changed the caller's refusal: %q", r.Advice)
	}
}
