package prompt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// TemplateSchema is the schema of a template file.
const TemplateSchema = "ctxd.prompt_template.v1"

// Template is a prompt template: the system and user texts of one purpose.
// Its JSON form is a template file (docs/schemas/prompt_template.schema.json).
//
// In System and User, every "{{" starts a placeholder, one of
// {{purpose}}, {{intent}}, {{plan_step}}, {{correlation_id}} and
// {{context}}; anything else between "{{" and "}}" (spaces included) is an
// error, and so is a "{{" with no "}}" after it: a template cannot hold a
// literal "{{". {{context}} must occur exactly once over System and User,
// else the bundle would not be sent (or sent twice).
type Template struct {
	// Schema is [TemplateSchema].
	Schema string `json:"schema"`
	// ID names the template: [a-z0-9][a-z0-9._-]{0,63}. The id
	// "default-<purpose>" is the one a request without a template id
	// gets.
	ID string `json:"id"`
	// Purpose is the bundle purpose the template is for: "intent", "plan"
	// or "diff".
	Purpose string `json:"purpose"`
	// System is the system message text; it must hold a non-space
	// character.
	System string `json:"system"`
	// User is the user message text; it must hold a non-space character.
	User string `json:"user"`
}

// Placeholder names, without braces.
const (
	phPurpose       = "purpose"
	phIntent        = "intent"
	phPlanStep      = "plan_step"
	phContext       = "context"
	phCorrelationID = "correlation_id"
)

// placeholderList is the placeholders in the order error messages list
// them.
const placeholderList = "{{purpose}}, {{intent}}, {{plan_step}}, {{correlation_id}}, {{context}}"

func knownPlaceholder(name string) bool {
	switch name {
	case phPurpose, phIntent, phPlanStep, phContext, phCorrelationID:
		return true
	}
	return false
}

func validPurpose(p string) bool {
	switch p {
	case "intent", "plan", "diff":
		return true
	}
	return false
}

// maxIDLen is the longest template id.
const maxIDLen = 64

func validID(id string) bool {
	if id == "" || len(id) > maxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// placeholder is one "{{name}}" in a text; start and end are byte offsets
// of the braces.
type placeholder struct {
	name       string
	start, end int
}

// scanPlaceholders returns the placeholders of s in order, or a message
// saying why s is not a valid template text.
func scanPlaceholders(s string) ([]placeholder, string) {
	var out []placeholder
	for i := 0; ; {
		j := strings.Index(s[i:], "{{")
		if j < 0 {
			return out, ""
		}
		start := i + j
		k := strings.Index(s[start+2:], "}}")
		if k < 0 {
			return nil, fmt.Sprintf("\"{{\" at character %d has no closing \"}}\"", utf8.RuneCountInString(s[:start])+1)
		}
		name := s[start+2 : start+2+k]
		if !knownPlaceholder(name) {
			return nil, fmt.Sprintf("unknown placeholder %q at character %d", "{{"+shorten(name, 40)+"}}", utf8.RuneCountInString(s[:start])+1)
		}
		end := start + 2 + k + 2
		out = append(out, placeholder{name: name, start: start, end: end})
		i = end
	}
}

// shorten cuts s to at most n runes, marking the cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// check validates t; the error's Path is empty, for the caller to set.
func (t Template) check() *Error {
	const fixSchema = "start the file with \"schema\": \"" + TemplateSchema + "\""
	if t.Schema != TemplateSchema {
		return buildErr("", "/schema", fixSchema, fmt.Sprintf("schema is %q, want %q", shorten(t.Schema, 64), TemplateSchema))
	}
	if !validID(t.ID) {
		return buildErr("", "/id", "use 1 to 64 characters: lowercase letters, digits, '.', '_' or '-', starting with a letter or digit",
			fmt.Sprintf("id %q is not a valid template id", shorten(t.ID, 80)))
	}
	if !validPurpose(t.Purpose) {
		return buildErr("", "/purpose", "use \"intent\", \"plan\" or \"diff\"", fmt.Sprintf("purpose %q is not intent, plan or diff", shorten(t.Purpose, 64)))
	}
	texts := []struct{ field, text string }{{"/system", t.System}, {"/user", t.User}}
	contexts := 0
	for _, x := range texts {
		if !utf8.ValidString(x.text) {
			return buildErr("", x.field, "save the template as UTF-8", "the text is not valid UTF-8")
		}
		if strings.TrimSpace(x.text) == "" {
			return buildErr("", x.field, "write the message text; a provider rejects an empty message", "the text is empty")
		}
		phs, msg := scanPlaceholders(x.text)
		if msg != "" {
			return buildErr("", x.field, "use only the placeholders "+placeholderList+"; a template cannot hold a literal \"{{\"", msg)
		}
		for _, p := range phs {
			if p.name != phContext {
				continue
			}
			contexts++
			if contexts > 1 {
				return buildErr("", x.field, "keep exactly one {{context}}", "{{context}} occurs more than once: the bundle would be sent twice")
			}
		}
	}
	if contexts == 0 {
		return buildErr("", "/system", "add {{context}} to the system (or user) text", "{{context}} occurs in neither system nor user: the bundle would not be sent")
	}
	return nil
}

// hash is the lowercase hex sha256 of the JCS form of t.
func (t Template) hash() (string, *Error) {
	raw, err := json.Marshal(t)
	if err == nil {
		raw, err = jcs.Transform(raw)
	}
	if err != nil {
		return "", buildErr("", "", "report this as a ctxd bug", fmt.Sprintf("canonical form of template %q: %v", t.ID, err))
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:]), nil
}

// fieldOf returns the field of t a JSON member name sets, or nil for a
// name that is not a template field.
func (t *Template) fieldOf(name string) *string {
	switch name {
	case "schema":
		return &t.Schema
	case "id":
		return &t.ID
	case "purpose":
		return &t.Purpose
	case "system":
		return &t.System
	case "user":
		return &t.User
	}
	return nil
}

// templateFields are the members of a template file, in the order a
// missing one is reported.
var templateFields = []string{"schema", "id", "purpose", "system", "user"}

// parseTemplate decodes and checks a template file strictly: one JSON
// object whose members are exactly the template's fields, each a string,
// none twice, nothing after it. path is the file's workspace-relative
// path, for errors.
func parseTemplate(data []byte, path string) (Template, error) {
	var t Template
	if err := decodeTemplate(data, &t); err != nil {
		err.Path = path
		return Template{}, err
	}
	if err := t.check(); err != nil {
		err.Path = path
		return Template{}, err
	}
	return t, nil
}

const fixJSON = "write the template as one JSON object with the string members schema, id, purpose, system and user"

func decodeTemplate(data []byte, t *Template) *Error {
	dec := json.NewDecoder(bytes.NewReader(data))
	// syntax turns a decoder error into an error with the position.
	syntax := func(err error) *Error {
		off := dec.InputOffset()
		if se, ok := errors.AsType[*json.SyntaxError](err); ok {
			off = se.Offset
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			off, err = int64(len(data)), errors.New("unexpected end of file")
		}
		return buildErr("", "", fixJSON, fmt.Sprintf("invalid JSON at %s: %v", position(data, off), err))
	}
	tok, err := dec.Token()
	if err != nil {
		return syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return buildErr("", "", fixJSON, fmt.Sprintf("the file is not a JSON object (at %s)", position(data, dec.InputOffset())))
	}
	seen := map[string]bool{}
	for dec.More() {
		keyOff := skipSeparators(data, dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return syntax(err)
		}
		key, _ := tok.(string) // inside an object the decoder yields only string keys
		field := "/" + pointerEscape(key)
		if seen[key] {
			return buildErr("", field, "remove one of the two members", fmt.Sprintf("member %q occurs twice (at %s)", shorten(key, 64), position(data, keyOff)))
		}
		seen[key] = true
		dst := t.fieldOf(key)
		if dst == nil {
			return buildErr("", field, "remove it; the members are schema, id, purpose, system and user",
				fmt.Sprintf("unknown member %q (at %s)", shorten(key, 64), position(data, keyOff)))
		}
		valOff := skipSeparators(data, dec.InputOffset())
		tok, err = dec.Token()
		if err != nil {
			return syntax(err)
		}
		s, ok := tok.(string)
		if !ok {
			return buildErr("", field, "write the value as a JSON string", fmt.Sprintf("%q is not a string (at %s)", key, position(data, valOff)))
		}
		*dst = s
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return syntax(err)
	}
	restOff := skipSeparators(data, dec.InputOffset())
	if _, err := dec.Token(); err != io.EOF {
		if err != nil {
			return syntax(err)
		}
		return buildErr("", "", fixJSON, fmt.Sprintf("data after the template object (at %s)", position(data, restOff)))
	}
	for _, name := range templateFields {
		if !seen[name] {
			return buildErr("", "/"+name, fmt.Sprintf("add the member %q", name), fmt.Sprintf("member %q is missing", name))
		}
	}
	return nil
}

// skipSeparators returns the offset of the first byte at or after off that
// is neither JSON whitespace nor a ',' or ':': the start of the next token.
func skipSeparators(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\n', '\r', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

// position formats a byte offset of data as "line L, column C", both
// 1-based, the column counted in characters.
func position(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	col := utf8.RuneCount(before[lineStart:]) + 1
	return fmt.Sprintf("line %d, column %d", line, col)
}

// pointerEscape escapes a member name as a JSON pointer token (RFC 6901).
func pointerEscape(s string) string {
	s = strings.ReplaceAll(s, "~", "~0")
	return strings.ReplaceAll(s, "/", "~1")
}

// Defaults returns the built-in templates, "default-intent",
// "default-plan" and "default-diff", in that order; the slice is new on
// each call. A workspace template with one of these ids replaces it.
func Defaults() []Template {
	const ground = "The context below was selected and redacted by ctxd. It is your only source of truth about the code: " +
		"do not assume files, symbols or behavior it does not show, and respect every constraint it states."
	return []Template{
		{
			Schema:  TemplateSchema,
			ID:      "default-intent",
			Purpose: "intent",
			System: "You help a developer pin down a change to their code before any work starts. " + ground +
				"\n\n# Context\n\n{{context}}",
			User: "Restate this intent in your own words, name the files and symbols of the context it concerns, " +
				"and ask about anything ambiguous or missing. Do not write code.\n\nIntent: {{intent}}",
		},
		{
			Schema:  TemplateSchema,
			ID:      "default-plan",
			Purpose: "plan",
			System: "You plan a change to a developer's code. " + ground +
				"\n\n# Context\n\n{{context}}",
			User: "Plan this intent as numbered steps. Each step names the files (and symbols, when known) it changes " +
				"and says what changes and why. Name only files shown in the context, or say that the step creates a new file. " +
				"End with how to check the change works.\n\nIntent: {{intent}}\nCurrent plan step: {{plan_step}}",
		},
		{
			Schema:  TemplateSchema,
			ID:      "default-diff",
			Purpose: "diff",
			System: "You make a change to a developer's code. " + ground +
				"\n\nAnswer with one unified diff and nothing else: \"--- a/<path>\" and \"+++ b/<path>\" headers with the " +
				"workspace-relative paths of the context, then @@ hunks with enough unchanged lines to apply cleanly. " +
				"Touch only the target files and regions; leave every other line as it is. Never invent files, symbols or APIs. " +
				"If the change cannot be made from this context, answer with what is missing instead of a diff." +
				"\n\n# Context\n\n{{context}}",
			User: "Intent: {{intent}}\nPlan step: {{plan_step}}\n\nWrite the unified diff.",
		},
	}
}
