package contextbuilder

import (
	"fmt"
	"strings"
)

// RefusalCode is the stable code of a refusal.
type RefusalCode string

// Refusal codes (seed 002 failure modes; docs/contract.md lists them).
const (
	RefuseContextTooLarge   RefusalCode = "REFUSE_CONTEXT_TOO_LARGE"
	RefuseSecretRisk        RefusalCode = "REFUSE_SECRET_RISK"
	RefuseAmbiguousTarget   RefusalCode = "REFUSE_AMBIGUOUS_TARGET"
	RefuseUnsupportedTarget RefusalCode = "REFUSE_UNSUPPORTED_TARGET"
	RefuseOutsideSandbox    RefusalCode = "REFUSE_OUTSIDE_SANDBOX"
	// RefuseTargetNotFound is ctxd's addition: a named target file or
	// symbol does not exist in the index (see docs/contract.md).
	RefuseTargetNotFound RefusalCode = "REFUSE_TARGET_NOT_FOUND"
)

// Refusal is a fail-closed answer: the build did not produce a bundle.
// It is returned as an error; the LSP edge sends it as JSON-RPC error
// -32803 with the Refusal as data, the CLI prints {"refusal": …} and
// exits 3. The reports are those computed before refusing; nil when the
// refusal came first.
type Refusal struct {
	Code            RefusalCode      `json:"code"`
	Message         string           `json:"message"`
	Advice          string           `json:"advice"`
	BudgetReport    *BudgetReport    `json:"budget_report,omitempty"`
	RedactionReport *RedactionReport `json:"redaction_report,omitempty"`
	Manifest        *Manifest        `json:"manifest,omitempty"`
	// Candidates lists the choices of an ambiguous target, sorted by path
	// then range; the client retries with one of them in
	// user_selected_targets.
	Candidates []Candidate `json:"candidates,omitempty"`
	// Actions are what Advice advises, in no front end's words; each
	// front end says them in its own with [Refusal.In]. Not on the wire:
	// Advice is.
	Actions []Action `json:"-"`
}

// advise sets r's actions, and its advice to them in RequestTerms.
func (r *Refusal) advise(actions ...Action) *Refusal {
	r.Actions = actions
	r.Advice = AdviceIn(actions, RequestTerms)
	return r
}

// act is an action of kind k with no detail.
func act(k ActionKind) Action { return Action{Kind: k} }

// Error implements error with the code and message.
func (r *Refusal) Error() string { return string(r.Code) + ": " + r.Message }

// Candidate is one definition an ambiguous symbol name could mean.
type Candidate struct {
	Path   string `json:"path"`
	Symbol string `json:"symbol"`
	Kind   string `json:"kind"`
	// Range is the declaration's range: a 0-based line and a byte column.
	// The caller, which knows the client's position encoding, replaces it
	// with the client's units when it can read the file's text.
	Range Range `json:"range"`
	// Span is the declaration as byte offsets of the file's text, for the
	// caller to convert; it is not part of the wire form.
	Span Span `json:"-"`
}

// NeverSendRule describes the never-send rule a deny_rule exclusion names.
// The index records the deciding rule as "source:line: text" (for example
// "deny:12: obj/"), which means nothing to someone who has not read the
// rule file; this turns it into words: the rule's pattern, and whether it
// is one of the contract's built-in rules or the workspace's own. ok is
// false when detail is not in that form.
func NeverSendRule(detail string) (desc string, ok bool) {
	source, rest, found := strings.Cut(detail, ":")
	if !found {
		return "", false
	}
	_, text, found := strings.Cut(rest, ": ")
	if !found || strings.TrimSpace(text) == "" {
		return "", false
	}
	text = strings.TrimSpace(text)
	switch source {
	case "deny":
		pattern, what := builtinRule(text)
		return fmt.Sprintf("the never-send rule %q of the context contract (%s)", pattern, what), true
	case "deny_rules":
		return fmt.Sprintf("the never-send rule %q of this workspace (deny_rules in .ctxd/config.json)", text), true
	}
	return "", false
}

// builtinRule maps a line of the built-in deny list (index/ignore, in
// gitignore syntax) to the pattern seed 002 writes for it and what the
// rule is for, so that a refusal says why a path such as cmd/internal/obj
// is never sent.
func builtinRule(line string) (pattern, what string) {
	switch strings.ToLower(line) {
	case ".git":
		return ".git/**", "version-control metadata"
	case ".vs":
		return ".vs/**", "Visual Studio state"
	case ".ctxd":
		return ".ctxd/**", "ctxd's own records"
	case "bin/":
		return "**/bin/**", "build output: every directory named bin, at any depth"
	case "obj/":
		return "**/obj/**", "build output: every directory named obj, at any depth"
	case "node_modules":
		return "node_modules/**", "installed dependencies"
	case "/packages/":
		return "packages/**", "the NuGet packages folder at the root"
	case "*.pfx", "*.key", "*.pem":
		return "**/" + line, "key and certificate files"
	case "*.env", ".env", ".env.*":
		return "**/" + line, "environment files, which hold secrets"
	}
	return line, "a built-in rule"
}
