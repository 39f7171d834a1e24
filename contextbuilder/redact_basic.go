package contextbuilder

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
)

// BasicRedactor covers seed 002's example secret patterns: private key
// blocks, sk- prefixed API keys, Authorization headers and password=,
// api_key=, token= style assignments. It is what the builder uses until
// the secrets engine is configured; it never reads configuration from the
// workspace.
type BasicRedactor struct{}

// basicVersion names the rule set; it enters config_fingerprint.
const basicVersion = "ctxd.basic-secrets.v1"

// Version implements Redactor.
func (BasicRedactor) Version() string { return basicVersion }

var (
	pemBegin = regexp.MustCompile(`-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----`)
	pemEnd   = regexp.MustCompile(`-----END ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----`)
	skKey    = regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}`)
	authHdr  = regexp.MustCompile(`(?i)\bauthorization["']?\s*[:=]\s*["']?(?:bearer|basic|token)\s+([A-Za-z0-9._~+/=-]{8,})`)
	assign   = regexp.MustCompile(`(?i)(?:^|[^a-z0-9_])((?:[a-z0-9_.-]*[_.-])?(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret))["']?\s*(?::=|=|:)[ \t]*("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[^\s"'#;,]+)`)
	codeExpr = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*(\(|\[|$)`)
)

// placeholders are values that are provably not secrets.
var placeholders = []string{"changeme", "change_me", "password", "secret", "token", "none", "null", "true", "false", "redacted"}

// Scan implements Redactor. The regular expressions run only on the lines
// that hold one of their keywords (found in an ASCII-lowercased copy, so
// byte offsets are unchanged): text without keywords costs one pass.
func (BasicRedactor) Scan(path string, text []byte) ([]Finding, error) {
	var out []Finding
	add := func(rule string, start, end int, c Confidence) {
		out = append(out, Finding{RuleID: rule, Start: start, End: end, Line: 1 + bytes.Count(text[:start], []byte("\n")), Confidence: c})
	}
	lower := asciiLower(text)
	if bytes.Contains(lower, []byte("private key")) {
		for _, m := range pemBegin.FindAllIndex(text, -1) {
			end := pemEnd.FindIndex(text[m[1]:])
			if end == nil {
				add("private-key", m[0], len(text), Uncertain)
				continue
			}
			stop := m[1] + end[1]
			add("private-key", m[0], stop, High)
			if len(bytes.TrimSpace(text[:m[0]])) == 0 && len(bytes.TrimSpace(text[stop:])) == 0 {
				out[len(out)-1].WholeFile = true
			}
		}
	}
	code := isCode(path)
	for _, ln := range keywordLines(lower, []string{"sk-"}) {
		for _, m := range skKey.FindAllIndex(text[ln.start:ln.end], -1) {
			add("openai-api-key", ln.start+m[0], ln.start+m[1], High)
		}
	}
	for _, ln := range keywordLines(lower, []string{"authorization"}) {
		for _, m := range authHdr.FindAllSubmatchIndex(text[ln.start:ln.end], -1) {
			add("authorization-header", ln.start+m[2], ln.start+m[3], High)
		}
	}
	for _, ln := range keywordLines(lower, assignKeywords) {
		for _, m := range assign.FindAllSubmatchIndex(text[ln.start:ln.end], -1) {
			vs, ve := ln.start+m[4], ln.start+m[5]
			v := string(text[vs:ve])
			quoted := strings.HasPrefix(v, `"`) || strings.HasPrefix(v, `'`)
			if quoted {
				vs, ve = vs+1, ve-1
				v = v[1 : len(v)-1]
			}
			if !secretValue(v, quoted, code) {
				continue
			}
			add("credential-assignment", vs, ve, High)
		}
	}
	slices.SortStableFunc(out, func(a, b Finding) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return b.End - a.End
	})
	return out, nil
}

// assignKeywords are the lowercase words every credential-assignment match
// contains.
var assignKeywords = []string{"password", "passwd", "pwd", "secret", "token", "api_key", "api-key", "apikey", "access_key", "access-key", "private_key", "private-key"}

// asciiLower lowercases ASCII letters only, keeping every byte offset.
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// keywordLines returns the distinct lines (byte spans, sorted) holding any
// of the keywords.
func keywordLines(lower []byte, keywords []string) []span {
	var out []span
	for _, k := range keywords {
		kb := []byte(k)
		for i := 0; ; {
			j := bytes.Index(lower[i:], kb)
			if j < 0 {
				break
			}
			at := i + j
			start := bytes.LastIndexByte(lower[:at], '\n') + 1
			end := bytes.IndexByte(lower[at:], '\n')
			if end < 0 {
				end = len(lower)
			} else {
				end += at
			}
			out = append(out, span{start, end})
			i = end
			if i >= len(lower) {
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b span) int { return a.start - b.start })
	return slices.Compact(out)
}

// secretValue decides whether an assigned value is a credential rather
// than a placeholder, a reference or code.
func secretValue(v string, quoted, code bool) bool {
	t := strings.TrimSpace(v)
	if len(t) < 3 || strings.HasPrefix(t, "=") {
		return false
	}
	lower := strings.ToLower(t)
	if slices.Contains(placeholders, lower) || strings.Trim(lower, "x*.-_") == "" {
		return false
	}
	for _, p := range []string{"${", "$(", "{{", "<", "%(", "process.env", "os.environ", "os.getenv", "env("} {
		if strings.HasPrefix(lower, p) {
			return false
		}
	}
	if !quoted && code && codeExpr.MatchString(t) {
		// In source code an unquoted value is an identifier or a call:
		// code, not a literal.
		return false
	}
	return true
}

// isCode reports whether path is source code by its extension, where an
// unquoted right-hand side is an expression rather than a value.
func isCode(path string) bool {
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return false
	}
	switch strings.ToLower(path[i+1:]) {
	case "go", "ts", "tsx", "js", "jsx", "mjs", "cjs", "py", "java", "rs", "c", "h", "cc", "cpp", "hpp", "cs", "kt", "swift", "rb", "php", "scala", "lua", "sh":
		return true
	}
	return false
}
