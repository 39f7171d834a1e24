package secrets

import (
	"bytes"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"hash/crc32"
	"slices"
	"strings"
)

// A validator is a structural check of a secret value (the bytes of a
// finding's span). It can only raise confidence: the scanner never drops a
// match because a validator rejects it. [Scanner.Validated] reports the
// result; Scan does not use it.
type validator func(value []byte) bool

// validators are the names a rule's Validators may use. An unknown name is
// an error when the rules are loaded.
var validators = map[string]validator{
	// github-crc32: ghp_/gho_/ghu_/ghs_/ghr_ + 30 base62 characters + a
	// 6-character base62 CRC-32 (IEEE) of those 30 characters.
	"github-crc32": func(v []byte) bool {
		if len(v) != 40 || v[3] != '_' || !bytes.HasPrefix(v, []byte("gh")) || !strings.ContainsRune("pousr", rune(v[2])) {
			return false
		}
		return base62CRC32Valid(v[4:])
	},
	// npm-crc32: npm_ + 30 base62 characters + the same 6-character
	// checksum.
	"npm-crc32": func(v []byte) bool {
		if len(v) != 40 || !bytes.HasPrefix(v, []byte("npm_")) {
			return false
		}
		return base62CRC32Valid(v[4:])
	},
	"jwt":            validJWT,
	"pem":            validPEM,
	"aws-account-id": validAWSKeyID,
}

// validatorNames lists the known validator names, sorted (for errors).
func validatorNames() string {
	names := make([]string, 0, len(validators))
	for n := range validators {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// base62Alphabet is the digit order of GitHub's token checksums: digits,
// upper case, lower case.
const base62Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// base62CRC32Valid checks body = 30 base62 characters followed by the
// base62 encoding (6 digits, most significant first, zero-padded) of their
// CRC-32.
func base62CRC32Valid(body []byte) bool {
	if len(body) != 36 {
		return false
	}
	for _, c := range body {
		if strings.IndexByte(base62Alphabet, c) < 0 {
			return false
		}
	}
	var sum uint64
	for _, c := range body[30:] {
		sum = sum*62 + uint64(strings.IndexByte(base62Alphabet, c))
	}
	return sum == uint64(crc32.ChecksumIEEE(body[:30]))
}

// validJWT: at least header.payload, and the header base64url-decodes
// (padding optional) to a JSON object with an "alg" member.
func validJWT(v []byte) bool {
	head, _, ok := bytes.Cut(v, []byte("."))
	if !ok || len(head) == 0 {
		return false
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(string(head), "="))
	if err != nil {
		return false
	}
	var h map[string]json.RawMessage
	if json.Unmarshal(raw, &h) != nil {
		return false
	}
	_, ok = h["alg"]
	return ok
}

// validPEM: the body between the BEGIN and END lines base64-decodes (after
// removing whitespace, literal "\n"/"\r" escapes, RFC 1421 / OpenPGP
// armor headers and an OpenPGP checksum line) to a DER SEQUENCE, an
// OpenSSH key ("openssh-key-v1\0") or, for OpenPGP, any non-empty data.
func validPEM(v []byte) bool {
	s := strings.NewReplacer(`\r\n`, "\n", `\n`, "\n", `\r`, "\n", "\r", "").Replace(string(v))
	begin := strings.Index(s, "-----BEGIN ")
	if begin < 0 {
		return false
	}
	headEnd := strings.Index(s[begin+11:], "-----")
	if headEnd < 0 {
		return false
	}
	label := s[begin+11 : begin+11+headEnd]
	bodyStart := begin + 11 + headEnd + 5
	end := strings.Index(s[bodyStart:], "-----END ")
	if end < 0 {
		return false
	}
	var b64 strings.Builder
	for _, line := range strings.Split(s[bodyStart:bodyStart+end], "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "", strings.Contains(line, ":"):
			// Blank line or armor header (Proc-Type, DEK-Info, Version, Comment).
		case strings.HasPrefix(line, "=") && strings.HasPrefix(label, "PGP "):
			// OpenPGP armor checksum.
		default:
			b64.WriteString(strings.Join(strings.Fields(line), ""))
		}
	}
	body := b64.String()
	der, err := base64.StdEncoding.DecodeString(body)
	if err != nil {
		der, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(body, "="))
		if err != nil {
			return false
		}
	}
	switch {
	case len(der) == 0:
		return false
	case strings.HasPrefix(label, "PGP "):
		return true
	case strings.HasPrefix(label, "OPENSSH "):
		return bytes.HasPrefix(der, []byte("openssh-key-v1\x00"))
	default:
		return der[0] == 0x30
	}
}

// validAWSKeyID: a 20-character AWS access key id (4-letter prefix + 16
// base32 characters) whose base32 part decodes, which is how an account id
// is derived from it.
func validAWSKeyID(v []byte) bool {
	if len(v) != 20 {
		return false
	}
	for _, c := range v[:4] {
		if c < 'A' || c > 'Z' {
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	_, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(string(v[4:]))
	return err == nil
}
