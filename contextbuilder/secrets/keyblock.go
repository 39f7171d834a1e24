package secrets

import (
	"bytes"
	"regexp"
)

// Key blocks too short to hold a key. gitleaks' own false-positive
// samples include BEGIN and END lines around a placeholder ("anything")
// or nothing at all: documentation, not a key file. Such a block is
// neither a whole-file credential (which a target cannot be sent as) nor
// an uncertain, unbounded one: only its body, if any, is redacted.

// pemEndRE is the END line of a private key block.
var pemEndRE = regexp.MustCompile(`-{3,}\s*END[ A-Z0-9_-]*PRIVATE KEY(?: BLOCK)?\s*-{3,}`)

// minKeyBody is the fewest base64 characters a private key's body can
// have (the smallest key, Ed25519 in PKCS#8, is 64).
const minKeyBody = 40

// emptyBlock reports whether the key block opening at from (after its
// BEGIN line) is bounded by an END line with too little between them to
// hold a key ("-----BEGIN PRIVATE KEY-----\nanything\n-----END…"): a
// documentation placeholder, not an unbounded key. The body between them
// (blanks trimmed) is returned, to be redacted.
func (r *compiled) emptyBlock(text []byte, from int) (span, bool) {
	if !r.pem {
		return span{}, false
	}
	m := pemEndRE.FindIndex(text[from:])
	if m == nil {
		return span{}, false
	}
	return shortBody(text, from, from+m[0])
}

// pemOpenRE is the BEGIN line of a private key block.
var pemOpenRE = regexp.MustCompile(defaultPEMOpen)

// keyBlockBody narrows a match [start, end) of a key block rule to its
// body when the body is too short to hold a key: such a block (a BEGIN
// and an END line around a placeholder, or nothing) is no key file, and
// only its body, if any, is redacted. ok is false for a real block.
func keyBlockBody(text []byte, start, end int) (span, bool) {
	o := pemOpenRE.FindIndex(text[start:end])
	if o == nil || o[0] != 0 {
		return span{}, false
	}
	// The END line is looked for right after BEGIN: the BEGIN line's
	// trailing dashes may have taken END's leading ones.
	after := start + bytes.Index(text[start:end], []byte("BEGIN")) + len("BEGIN")
	m := pemEndRE.FindIndex(text[after:end])
	if m == nil {
		return span{}, false
	}
	from := min(start+o[1], after+m[0])
	return shortBody(text, from, after+m[0])
}

// shortBody reports whether text[from:to], the inside of a key block,
// holds fewer base64 characters than any key has, and returns it without
// surrounding blanks.
func shortBody(text []byte, from, to int) (span, bool) {
	body := text[from:to]
	n := 0
	for _, c := range body {
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' {
			n++
		}
	}
	if n >= minKeyBody || bytes.Contains(body, []byte("BEGIN")) {
		return span{}, false
	}
	s, e := from, to
	for s < e && (isBlank(text[s]) || text[s] == '\r' || text[s] == '\n') {
		s++
	}
	for e > s && (isBlank(text[e-1]) || text[e-1] == '\r' || text[e-1] == '\n') {
		e--
	}
	return span{s, e}, true
}
