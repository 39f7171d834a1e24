package secrets

import (
	"bytes"
	"math"
	"regexp"
	"unicode/utf8"
)

// The allowlists below recognize values that are provably not secrets.
// They apply to a match's secret value only, never to its line or file:
// nothing written next to a secret (gitleaks:allow, pragma: allowlist
// secret, nosec, noqa, …) can suppress it. Contextual rules use all of
// them; prefixed rules only [exampleKey]. No finding ever includes a
// redaction marker ([appendFinding]).

// exampleKey reports a documented example key: a single token (no
// whitespace, at most 64 bytes) containing "EXAMPLE" in upper case, as in
// AWS's AKIAIOSFODNN7EXAMPLE and wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.
// A longer token is not exempt: "EXAMPLE" padding a real-looking key
// (ABSK…EXAMPLEEXAMPLE…) is no documented example.
// Multi-line values (key blocks) never qualify: a comment inside a real key
// block must not exempt it.
func exampleKey(v []byte) bool {
	return len(v) <= 64 && bytes.Contains(v, []byte("EXAMPLE")) &&
		bytes.IndexFunc(v, isSpace) < 0 && !bytes.Contains(v, []byte(`\n`))
}

// markerRE matches one redaction marker, "[REDACTED:<rule-id>]", ctxd's
// own output (rule ids are at most 64 characters, see ruleIDRE).
var markerRE = regexp.MustCompile(`\[REDACTED:[a-z0-9][a-z0-9._-]{0,63}\]`)

// maxMarker is the length of the longest redaction marker.
const maxMarker = len("[REDACTED:]") + 64

// appendFinding appends f minus the bytes of every redaction marker it
// overlaps: scanning redacted text again never reports (and so never
// redacts) a marker, which makes redaction idempotent. The pieces left
// around markers are findings of their own, except pieces of only
// whitespace and quotes. A marker holds nothing but a rule id.
func appendFinding(out []Finding, text []byte, f Finding) []Finding {
	lo, hi := max(0, f.Start-maxMarker), min(len(text), f.End+maxMarker)
	if !bytes.Contains(text[lo:hi], []byte("[REDACTED:")) {
		return append(out, f)
	}
	piece := func(start, end int) {
		if len(bytes.Trim(text[start:end], " \t\r\n\"'`")) > 0 {
			g := f
			g.Start, g.End = start, end
			out = append(out, g)
		}
	}
	pos := f.Start
	for _, m := range markerRE.FindAllIndex(text[lo:hi], -1) {
		ms, me := lo+m[0], lo+m[1]
		if me <= pos || ms >= f.End {
			continue
		}
		if ms > pos {
			piece(pos, ms)
		}
		pos = me
	}
	if pos < f.End {
		piece(pos, f.End)
	}
	return out
}

// placeholderWords are exact (case-insensitive) values that are
// placeholders or a language's null and boolean literals.
var placeholderWords = map[string]bool{
	"changeme": true, "change_me": true, "change-me": true,
	"password": true, "secret": true,
	"null": true, "nil": true, "none": true, "undefined": true, "true": true, "false": true,
}

// referenceRE matches exact references to a value kept elsewhere, with no
// default literal (a default such as ${PW:-hunter2} may be the secret):
// <anything>, ${VAR}, ${env:VAR}, $VAR, $(VAR), %VAR%, %(name)s,
// {{ .Values.x }} and ${{ secrets.X }} (paths, indexes and filters with
// bare arguments only), and environment lookups in code.
var referenceRE = regexp.MustCompile(`^(?:` +
	`<[^<>]*>` +
	`|\$\{(?:env:)?[A-Za-z_][A-Za-z0-9_.]*\}` +
	`|\$[A-Za-z_][A-Za-z0-9_]*` +
	`|\$\([A-Za-z_][A-Za-z0-9_.]*\)` +
	`|%[A-Za-z_][A-Za-z0-9_]*%` +
	`|%\([A-Za-z_][A-Za-z0-9_]*\)[sdr]` +
	`|\$?\{\{-?\s*` + tmplExpr + `\s*-?\}\}` +
	`|(?:process\.env|import\.meta\.env|os\.environ|ENV|Deno\.env)(?:\.[A-Za-z_]\w*|\[\s*` + envName + `\s*\])` +
	`|(?i:os\.environ\.get|os\.getenv|getenv|env|ENV\.fetch|System\.getenv|Deno\.env\.get|(?:std::)?env::var|Environment\.GetEnvironmentVariable)\(\s*` + envName + `\s*\)` +
	`)$`)

const (
	// envName is a quoted or bare variable name.
	envName = `(?:"[A-Za-z_][\w.-]*"|'[A-Za-z_][\w.-]*'|[A-Za-z_]\w*)`
	// tmplExpr is a template reference: a dotted path with indexes,
	// optionally piped through filters whose arguments are bare names.
	tmplExpr = `[.$]?[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*|\[\s*(?:'[\w.-]+'|"[\w.-]+"|\d+)\s*\])*` +
		`(?:\s*\|\s*[A-Za-z_]\w*(?:\s+[.$]?[A-Za-z_][\w.]*)*)*`
)

// placeholder reports a contextual value that is provably not a secret:
// empty, an exact placeholder word, a reference (see referenceRE), or a
// mask (all characters the same, or only x, X, *, •, dots, dashes and
// underscores with at least one x or *).
func placeholder(v []byte) bool {
	t := trimValue(v)
	if len(t) == 0 {
		return true
	}
	if len(t) <= 16 && placeholderWords[asciiLowerString(string(t))] {
		return true
	}
	if referenceRE.Match(t) {
		return true
	}
	return mask(t)
}

// mask: all runes equal, or made of x/X/*/• with separators.
func mask(t []byte) bool {
	first, _ := utf8.DecodeRune(t)
	same, maskOnly, marks := true, true, false
	for _, r := range string(t) {
		if r != first {
			same = false
		}
		switch r {
		case 'x', 'X', '*', '•':
			marks = true
		case '.', '-', '_':
		default:
			maskOnly = false
		}
	}
	return same || (maskOnly && marks)
}

// trimValue removes surrounding whitespace and one pair of matching quotes.
func trimValue(v []byte) []byte {
	t := bytes.TrimFunc(v, isSpace)
	if len(t) >= 2 {
		if q := t[0]; (q == '"' || q == '\'' || q == '`') && t[len(t)-1] == q {
			t = bytes.TrimFunc(t[1:len(t)-1], isSpace)
		}
	}
	return t
}

func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	return false
}

// lowEntropy reports whether v falls under a rule's entropy floor. A value
// of 12 digits or more is held to four fifths of it: ten symbols carry at
// most 3.32 bits, and a random 16-digit client ID (Asana's) often scores
// under 2.5, the floor of the keyed rules, that letters and digits clear.
func lowEntropy(v []byte, floor float64) bool {
	if len(v) >= 12 && !bytes.ContainsFunc(v, func(r rune) bool { return r < '0' || r > '9' }) {
		floor *= 0.8
	}
	return entropy(v) < floor
}

// entropy is the Shannon entropy of v in bits per byte.
func entropy(v []byte) float64 {
	if len(v) == 0 {
		return 0
	}
	var counts [256]int
	for _, c := range v {
		counts[c]++
	}
	n := float64(len(v))
	var h float64
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// codeRefRE matches an unquoted value that is code, not a literal: a
// dotted, arrow or scope path of identifiers (cfg.Secret, $this->token,
// Config::KEY, env.X!), an expression with || or &&, a file path, or one
// identifier without digits that reads as words:
// lower case, camelCase or PascalCase (every capital followed by a
// lower-case letter), or an UPPER_CASE constant. A mixed-case run such
// as suRuNtGvfCWDmF is not one.
var codeRefRE = regexp.MustCompile(`^(?:[A-Za-z_$][\w$]*(?:(?:\.|->|::|\?\.)[A-Za-z_$][\w$]*)+!?` +
	`|(?:[a-z_$][a-z_$]*|[A-Z][a-z_$]+)(?:[A-Z][a-z_$]+)*|[A-Z_][A-Z_]*)$` +
	`|\|\||&&|^\.{0,2}/[\w./-]*$`)

// publicKeyRE matches keys that name a value meant to be public or an
// identifier (publishable keys, public ids, account SIDs, *Name and
// *Type keys such as SharedAccessKeyName): a keyed rule
// does not apply to them.
var publicKeyRE = regexp.MustCompile(`public|publishable|_sid$|account_?sid|measurement|name$|type$`)

// codeReference reports an unquoted keyed value that names something in
// code rather than holding a literal. A dotted path one of whose segments
// is token-shaped (t1.G.igWGs93Zzs3r26Bx2zBF0GEsy…, a Yandex token) is a
// literal: no identifier in code is 20 characters of letters and digits.
func codeReference(v []byte) bool {
	if !codeRefRE.Match(v) {
		return false
	}
	for _, seg := range bytes.FieldsFunc(v, func(r rune) bool { return r == '.' || r == '-' || r == '>' || r == ':' || r == '?' }) {
		if randomSegment(seg) {
			return false
		}
	}
	return true
}

// randomSegment reports a path segment of at least 20 bytes holding
// letters and digits.
func randomSegment(seg []byte) bool {
	if len(seg) < 20 {
		return false
	}
	letter, digit := false, false
	for _, c := range seg {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		}
	}
	return letter && digit
}
