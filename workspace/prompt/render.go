package prompt

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/tokens"
)

// PromptSchema is the schema of a prompt artifact.
const PromptSchema = "ctxd.prompt.v1"

// Message roles, in the order of [Prompt.Messages].
const (
	RoleSystem = "system"
	RoleUser   = "user"
)

// none replaces an empty {{intent}}, {{plan_step}} or {{correlation_id}},
// so that a line such as "Intent: {{intent}}" still reads as meant.
const none = "(none)"

// Input is what a template is rendered with.
type Input struct {
	// Bundle is the context bundle; required, with at least one block.
	// Its purpose must be the template's.
	Bundle *contextbuilder.Bundle
	// BundleFingerprint is the bundle's fingerprint from its manifest
	// (64 lowercase hex digits); required.
	BundleFingerprint string
	// IntentText is the intent's text; "" when there is none, rendered
	// as "(none)".
	IntentText string
	// PlanStepText is the plan step's text; "" when there is none,
	// rendered as "(none)".
	PlanStepText string
	// Estimator counts the tokens of each message; nil means the
	// estimator of the bundle's model ([tokens.ForModel]).
	Estimator *tokens.Estimator
	// HardLimit is the most tokens the prompt may have:
	// max_input_tokens - response_token_reserve. 0 means no check;
	// negative is an error.
	HardLimit int
}

// Message is one message sent to the provider.
type Message struct {
	// Role is [RoleSystem] or [RoleUser].
	Role string `json:"role"`
	// Content is the message text, never empty.
	Content string `json:"content"`
}

// TokenCounts are the estimated input tokens of a prompt.
type TokenCounts struct {
	// System is the token count of the system message's content.
	System int `json:"system"`
	// User is the token count of the user message's content.
	User int `json:"user"`
	// Total is System + User. It adds no per-message overhead (the few
	// tokens a provider's chat format spends on roles and separators):
	// that overhead differs between providers and is covered by the
	// response token reserve.
	Total int `json:"total"`
	// HardLimit is the limit Total was checked against; 0 when unchecked.
	HardLimit int `json:"hard_limit"`
	// Estimator is the tokenizer encoding that counted, such as
	// "o200k_base".
	Estimator string `json:"estimator"`
}

// Prompt is a provider-ready prompt: the artifact stored under
// .ctxd/artifacts/prompts (docs/schemas/prompt.schema.json).
type Prompt struct {
	// Schema is [PromptSchema].
	Schema string `json:"schema"`
	// TemplateID is the id of the template rendered.
	TemplateID string `json:"template_id"`
	// TemplateSHA256 is the template's hash (see [Set.Resolve]).
	TemplateSHA256 string `json:"template_sha256"`
	// BundleID is the bundle's bundle_id.
	BundleID string `json:"bundle_id"`
	// BundleFingerprint is the bundle's fingerprint.
	BundleFingerprint string `json:"bundle_fingerprint"`
	// CorrelationID is the bundle's correlation_id.
	CorrelationID string `json:"correlation_id"`
	// Purpose is the bundle's (and template's) purpose.
	Purpose string `json:"purpose"`
	// Model is the bundle's model and budget parameters.
	Model contextbuilder.Model `json:"model"`
	// Messages are exactly [system, user] (seed 000: the provider
	// receives [system_context, user_message]).
	Messages []Message `json:"messages"`
	// TokenCounts are the messages' estimated tokens.
	TokenCounts TokenCounts `json:"token_counts"`
}

// Render expands template t with in into a prompt. templateSHA is t's hash
// as [Set.Resolve] returned it; "" computes it, and any other value that
// is not t's hash is an error, so that a prompt never records the wrong
// template. {{context}} becomes every block of the bundle, in bundle
// order, as a section: a header line "### <title> (<block_type>,
// <priority>[, <path>])" and the content, verbatim, in a fenced code block
// whose fence is longer than any backtick run in the content, tagged with
// the language of the path's extension when known. Line breaks in a
// title or path become spaces to keep the header one line.
//
// Render is pure: identical input gives a byte-identical prompt. It fails
// with an [*Error] of reason [ReasonBuildFailed] for an invalid template,
// a missing or empty bundle, a purpose mismatch, text that is not valid
// UTF-8, and a prompt over in.HardLimit tokens.
func Render(t Template, templateSHA string, in Input) (*Prompt, error) {
	if err := t.check(); err != nil {
		err.Message = fmt.Sprintf("template %q: %s", shorten(t.ID, 80), err.Message)
		return nil, err
	}
	sha, herr := t.hash()
	if herr != nil {
		return nil, herr
	}
	if templateSHA != "" && templateSHA != sha {
		return nil, buildErr("", "", "pass the hash Resolve returned with the template",
			fmt.Sprintf("template_sha256 %s is not the hash of template %q (%s)", shorten(templateSHA, 80), t.ID, sha))
	}
	b := in.Bundle
	if b == nil || len(b.Blocks) == 0 {
		return nil, buildErr("", "", "build the context first and render its bundle", "the bundle is missing or has no blocks")
	}
	if string(b.Purpose) != t.Purpose {
		return nil, buildErr("", "", "use a template of the bundle's purpose",
			fmt.Sprintf("template %q is for purpose %q but the bundle is for %q", t.ID, t.Purpose, b.Purpose))
	}
	if !isSHA256(in.BundleFingerprint) {
		return nil, buildErr("", "", "pass the bundle_fingerprint of the bundle's manifest", "the bundle fingerprint is not 64 lowercase hex digits")
	}
	if in.HardLimit < 0 {
		return nil, buildErr("", "", "pass max_input_tokens - response_token_reserve, or 0 for no check",
			fmt.Sprintf("hard limit %d is negative", in.HardLimit))
	}
	if !utf8.ValidString(in.IntentText) || !utf8.ValidString(in.PlanStepText) || !utf8.ValidString(b.CorrelationID) {
		return nil, buildErr("", "", "send the intent and plan step as UTF-8 text", "the intent, plan step or correlation id is not valid UTF-8")
	}
	ctx, err := renderContext(b.Blocks)
	if err != nil {
		return nil, err
	}
	values := map[string]string{
		phPurpose:       t.Purpose,
		phIntent:        orNone(in.IntentText),
		phPlanStep:      orNone(in.PlanStepText),
		phCorrelationID: orNone(b.CorrelationID),
		phContext:       ctx,
	}
	system, user := expand(t.System, values), expand(t.User, values)

	est := in.Estimator
	if est == nil {
		est = tokens.ForModel(b.Model.Model)
	}
	counts := TokenCounts{System: est.Count(system), User: est.Count(user), HardLimit: in.HardLimit, Estimator: est.Name()}
	counts.Total = counts.System + counts.User
	if in.HardLimit > 0 && counts.Total > in.HardLimit {
		ctxTokens := est.Count(ctx)
		added := max(counts.Total-ctxTokens, 0)
		return nil, buildErr("", "", "use a smaller template, raise max_input_tokens or lower response_token_reserve, or build a smaller context",
			fmt.Sprintf("template %q adds %d tokens to the context's %d, which puts the prompt at %d tokens: %d over the hard limit of %d",
				t.ID, added, ctxTokens, counts.Total, counts.Total-in.HardLimit, in.HardLimit))
	}
	return &Prompt{
		Schema:            PromptSchema,
		TemplateID:        t.ID,
		TemplateSHA256:    sha,
		BundleID:          b.BundleID,
		BundleFingerprint: in.BundleFingerprint,
		CorrelationID:     b.CorrelationID,
		Purpose:           t.Purpose,
		Model:             b.Model,
		Messages:          []Message{{Role: RoleSystem, Content: system}, {Role: RoleUser, Content: user}},
		TokenCounts:       counts,
	}, nil
}

func orNone(s string) string {
	if s == "" {
		return none
	}
	return s
}

// expand replaces the placeholders of a checked template text in one pass
// over the text: substituted values are copied, never scanned.
func expand(text string, values map[string]string) string {
	phs, _ := scanPlaceholders(text) // checked by the caller
	var b strings.Builder
	last := 0
	for _, p := range phs {
		b.WriteString(text[last:p.start])
		b.WriteString(values[p.name])
		last = p.end
	}
	b.WriteString(text[last:])
	return b.String()
}

// renderContext renders the blocks as the text of {{context}}: sections
// separated by a blank line.
func renderContext(blocks []contextbuilder.Block) (string, error) {
	var b strings.Builder
	for i, bl := range blocks {
		p := ""
		if bl.Meta.Path != nil {
			p = *bl.Meta.Path
		}
		if !utf8.ValidString(bl.Content) || !utf8.ValidString(bl.Title) || !utf8.ValidString(p) {
			return "", buildErr("", "", "decode the file as text before building the context",
				fmt.Sprintf("block %d (%s) is not valid UTF-8", i, bl.BlockID))
		}
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("### ")
		b.WriteString(oneLine(bl.Title))
		b.WriteString(" (")
		b.WriteString(string(bl.BlockType))
		b.WriteString(", ")
		b.WriteString(string(bl.Priority))
		if bl.Meta.Path != nil {
			b.WriteString(", ")
			b.WriteString(oneLine(p))
		}
		b.WriteString(")\n")
		fence := strings.Repeat("`", max(3, longestRun(bl.Content, '`')+1))
		b.WriteString(fence)
		if bl.Meta.Path != nil {
			b.WriteString(language(p))
		}
		b.WriteByte('\n')
		b.WriteString(bl.Content)
		if bl.Content != "" && !strings.HasSuffix(bl.Content, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(fence)
	}
	return b.String(), nil
}

// oneLine replaces line breaks with spaces.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// languages maps lowercase file extensions to the info strings Markdown
// renderers (and models) know.
var languages = map[string]string{
	".bash": "bash", ".c": "c", ".cc": "cpp", ".clj": "clojure", ".cpp": "cpp", ".cs": "csharp",
	".css": "css", ".cxx": "cpp", ".dart": "dart", ".ex": "elixir", ".exs": "elixir", ".fs": "fsharp",
	".go": "go", ".gradle": "groovy", ".graphql": "graphql", ".groovy": "groovy", ".h": "c", ".hpp": "cpp",
	".hs": "haskell", ".html": "html", ".ini": "ini", ".java": "java", ".js": "javascript", ".json": "json",
	".jsx": "jsx", ".kt": "kotlin", ".kts": "kotlin", ".lua": "lua", ".m": "objectivec", ".md": "markdown",
	".mjs": "javascript", ".cjs": "javascript", ".ml": "ocaml", ".php": "php", ".pl": "perl", ".proto": "protobuf",
	".ps1": "powershell", ".py": "python", ".r": "r", ".rb": "ruby", ".rs": "rust", ".scala": "scala",
	".scss": "scss", ".sh": "bash", ".sql": "sql", ".svelte": "svelte", ".swift": "swift", ".tf": "hcl",
	".toml": "toml", ".ts": "typescript", ".tsx": "tsx", ".vue": "vue", ".xml": "xml", ".yaml": "yaml",
	".yml": "yaml", ".zig": "zig", ".zsh": "bash",
}

// baseLanguages maps file names without a telling extension.
var baseLanguages = map[string]string{
	"dockerfile": "dockerfile", "makefile": "makefile", "gnumakefile": "makefile", "go.mod": "go-mod", "cmakelists.txt": "cmake",
}

// language returns the fence info string of a path, "" when unknown.
func language(p string) string {
	base := strings.ToLower(path.Base(p))
	if l, ok := baseLanguages[base]; ok {
		return l
	}
	return languages[path.Ext(base)]
}

// isSHA256 reports whether s is 64 lowercase hex digits.
func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
