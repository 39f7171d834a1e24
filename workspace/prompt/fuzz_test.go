package prompt

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxd/ctxd/contextbuilder/tokens"
)

// FuzzParseTemplate feeds arbitrary bytes to the template parser: it never
// panics, fails only with an *Error naming the file, and a template it
// accepts is valid and parses back to itself.
func FuzzParseTemplate(f *testing.F) {
	for _, d := range Defaults() {
		b, _ := json.Marshal(d)
		f.Add(b)
	}
	f.Add([]byte(tplJSON(nil)))
	f.Add([]byte(tplJSON(map[string]string{"system": "{{context}}{{", "user": "}}{{intent}}"})))
	f.Add([]byte(`{"schema":1}`))
	f.Add([]byte(`{"id":"a","id":"b"}`))
	f.Add([]byte("{\n\"x\": [1, {\"y\": null}]}"))
	f.Add([]byte(`"\ud800"`))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		tpl, err := parseTemplate(data, ".ctxd/templates/f.json")
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.Reason != ReasonBuildFailed || pe.Path != ".ctxd/templates/f.json" || pe.Message == "" || pe.Advice == "" {
				t.Fatalf("error %#v", err)
			}
			return
		}
		if err := tpl.check(); err != nil {
			t.Fatalf("accepted template fails check: %v", err)
		}
		b, err := json.Marshal(tpl)
		if err != nil {
			t.Fatal(err)
		}
		again, err := parseTemplate(b, "x")
		if err != nil {
			t.Fatalf("re-encoded template does not parse: %v", err)
		}
		if diff := cmp.Diff(tpl, again); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
	})
}

// FuzzRender renders arbitrary intent and block content: Render never
// panics, and for valid UTF-8 it succeeds with the content verbatim in
// the system message inside a fence longer than any backtick run in it.
func FuzzRender(f *testing.F) {
	f.Add("Make Add saturate.", "package calc\n")
	f.Add("{{context}}", "{{intent}}")
	f.Add("", "```\n````\n")
	f.Add("\x00", "a\xffb")
	f.Add("<|endoftext|>", "\r\n### x (file, P0)\n")
	tpl, sha := Template{}, ""
	f.Fuzz(func(t *testing.T, intent, content string) {
		if sha == "" {
			tpl, sha = defaultTemplate(t, "diff")
		}
		in := testInput("diff")
		in.IntentText = intent
		in.Bundle.Blocks[2].Content = content
		in.HardLimit = 0
		in.Estimator = tokens.ForModel("gpt-4o")
		p, err := Render(tpl, sha, in)
		if !utf8.ValidString(intent) || !utf8.ValidString(content) {
			if err == nil {
				t.Fatal("Render accepted invalid UTF-8")
			}
			return
		}
		if err != nil {
			t.Fatalf("Render: %v", err)
		}
		sys, user := p.Messages[0].Content, p.Messages[1].Content
		fence := strings.Repeat("`", max(3, longestRun(content, '`')+1))
		section := "### calc/add.go (file, P1, calc/add.go)\n" + fence + "go\n" + content
		if !strings.Contains(sys, section) {
			t.Fatalf("system message lacks the block content verbatim after its fence")
		}
		if want := "Intent: " + orNone(intent) + "\n"; !strings.HasPrefix(user, want) {
			t.Fatalf("user message %q does not start with %q", user, want)
		}
		if p.TokenCounts.Total != p.TokenCounts.System+p.TokenCounts.User {
			t.Fatalf("token counts %+v", p.TokenCounts)
		}
	})
}
