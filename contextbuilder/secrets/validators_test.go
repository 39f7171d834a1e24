package secrets

import (
	"encoding/base64"
	"strings"
	"testing"
)

// testCRC32 is a bitwise CRC-32 (IEEE, reflected, polynomial 0xEDB88320),
// written independently of hash/crc32 so that the validator is checked
// against a second implementation.
func testCRC32(data []byte) uint32 {
	crc := ^uint32(0)
	for _, b := range data {
		crc ^= uint32(b)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0xEDB88320
			} else {
				crc >>= 1
			}
		}
	}
	return ^crc
}

// testBase62 encodes n in 6 base62 digits (0-9, A-Z, a-z), zero-padded.
func testBase62(n uint32) string {
	const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	out := []byte("000000")
	for i := 5; i >= 0 && n > 0; i-- {
		out[i] = digits[n%62]
		n /= 62
	}
	return string(out)
}

// checksummed returns prefix + body + the base62 CRC-32 of body (body: 30
// base62 characters), the format of GitHub and npm tokens.
func checksummed(prefix, body string) string {
	return prefix + body + testBase62(testCRC32([]byte(body)))
}

func TestCRC32Reference(t *testing.T) {
	// The check value of CRC-32/ISO-HDLC.
	if got := testCRC32([]byte("123456789")); got != 0xCBF43926 {
		t.Fatalf("testCRC32 = %08x, want cbf43926", got)
	}
	if got := testBase62(0); got != "000000" {
		t.Fatalf("testBase62(0) = %q", got)
	}
	if got := testBase62(62*62 + 61); got != "00010z" {
		t.Fatalf("testBase62 = %q, want 00010z", got)
	}
}

func TestValidators(t *testing.T) {
	body := "R2a8bK4nQ7wX1vZ3cY6dT9eU0fS5gH"
	ghp := checksummed("ghp_", body)
	npm := checksummed("npm_", body)
	flip := func(s string) string { // change the last checksum digit
		last := s[len(s)-1]
		if last == 'a' {
			return s[:len(s)-1] + "b"
		}
		return s[:len(s)-1] + "a"
	}
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	jwt := b64(`{"alg":"HS256","typ":"JWT"}`) + "." + b64(`{"sub":"1234567890"}`) + ".c2lnbmF0dXJl"
	pemBody := base64.StdEncoding.EncodeToString(append([]byte{0x30, 0x82, 0x01, 0x0a}, []byte(strings.Repeat("k", 60))...))
	sshBody := base64.StdEncoding.EncodeToString([]byte("openssh-key-v1\x00none\x00none\x00"))
	wrap := func(s string) string { // 64-column lines
		var b strings.Builder
		for len(s) > 64 {
			b.WriteString(s[:64] + "\n")
			s = s[64:]
		}
		return b.String() + s + "\n"
	}
	tests := []struct {
		name, validator, value string
		want                   bool
	}{
		{"github valid", "github-crc32", ghp, true},
		{"github gho valid", "github-crc32", checksummed("gho_", body), true},
		{"github ghs valid", "github-crc32", checksummed("ghs_", body), true},
		{"github bad checksum", "github-crc32", flip(ghp), false},
		{"github unknown prefix", "github-crc32", checksummed("ghx_", body), false},
		{"github short", "github-crc32", ghp[:39], false},
		{"github non-base62", "github-crc32", "ghp_" + body[:29] + "!" + ghp[34:], false},
		{"npm valid", "npm-crc32", npm, true},
		{"npm bad checksum", "npm-crc32", flip(npm), false},
		{"npm given a github token", "npm-crc32", ghp, false},
		{"jwt valid", "jwt", jwt, true},
		{"jwt padded header", "jwt", base64.URLEncoding.EncodeToString([]byte(`{"alg":"none"}`)) + ".e30.", true},
		{"jwt no alg", "jwt", b64(`{"typ":"JWT"}`) + ".e30.sig", false},
		{"jwt header not json", "jwt", b64(`alg`) + ".e30.sig", false},
		{"jwt no dot", "jwt", b64(`{"alg":"HS256"}`), false},
		{"jwt bad base64", "jwt", "eyJ!!!.e30.sig", false},
		{"pem rsa", "pem", "-----BEGIN RSA PRIVATE KEY-----\n" + wrap(pemBody) + "-----END RSA PRIVATE KEY-----", true},
		{"pem crlf", "pem", "-----BEGIN PRIVATE KEY-----\r\n" + strings.ReplaceAll(wrap(pemBody), "\n", "\r\n") + "-----END PRIVATE KEY-----", true},
		{"pem escaped newlines", "pem", `-----BEGIN PRIVATE KEY-----\n` + strings.ReplaceAll(wrap(pemBody), "\n", `\n`) + `-----END PRIVATE KEY-----`, true},
		{"pem encrypted headers", "pem", "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,0123456789ABCDEF\n\n" + wrap(pemBody) + "-----END RSA PRIVATE KEY-----", true},
		{"pem openssh", "pem", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + wrap(sshBody) + "-----END OPENSSH PRIVATE KEY-----", true},
		{"pem openssh wrong magic", "pem", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + wrap(pemBody) + "-----END OPENSSH PRIVATE KEY-----", false},
		{"pem pgp", "pem", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBF0AAAABCAC=\n=ABCD\n-----END PGP PRIVATE KEY BLOCK-----", true},
		{"pem body not base64", "pem", "-----BEGIN PRIVATE KEY-----\nnot base64 at all!\n-----END PRIVATE KEY-----", false},
		{"pem empty body", "pem", "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----", false},
		{"pem no end", "pem", "-----BEGIN PRIVATE KEY-----\n" + wrap(pemBody), false},
		{"aws id", "aws-account-id", "AKIAZ3MSJV4WQZ5QNCKF", true},
		{"aws id bad base32", "aws-account-id", "AKIAZ3MSJV4WQZ5QNCK1", false},
		{"aws id short", "aws-account-id", "AKIAZ3MSJV4WQZ5QNCK", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ok := validators[tt.validator]
			if !ok {
				t.Fatalf("no validator %q", tt.validator)
			}
			if got := v([]byte(tt.value)); got != tt.want {
				t.Errorf("%s(%q) = %v, want %v", tt.validator, tt.value, got, tt.want)
			}
		})
	}
}

// TestValidatedNeverSuppresses: a prefixed match whose validator fails is
// still a finding; Validated tells the two apart.
func TestValidatedNeverSuppresses(t *testing.T) {
	s := testScanner(t)
	good := checksummed("ghp_", "R2a8bK4nQ7wX1vZ3cY6dT9eU0fS5gH")
	bad := good[:39] + "Z"
	if bad == good {
		bad = good[:39] + "Y"
	}
	for _, tc := range []struct {
		token string
		valid bool
	}{{good, true}, {bad, false}} {
		text := []byte("token: " + tc.token + "\n")
		fs, err := s.Scan("a.yaml", text)
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) != 1 || fs[0].RuleID != "t-github" || string(text[fs[0].Start:fs[0].End]) != tc.token || fs[0].Confidence != High {
			t.Fatalf("Scan(%q) = %+v, want one high t-github finding", text, fs)
		}
		if got := s.Validated(fs[0], text); got != tc.valid {
			t.Errorf("Validated(%q) = %v, want %v", tc.token, got, tc.valid)
		}
	}
	// A rule without validators is never "validated"; nor is a finding
	// out of bounds.
	text := []byte("password = hunter2")
	fs, _ := s.Scan("a.env", text)
	if len(fs) != 1 || s.Validated(fs[0], text) {
		t.Errorf("Validated on a rule without validators: %+v", fs)
	}
	if s.Validated(Finding{RuleID: "t-github", Start: 5, End: 99}, text) {
		t.Error("Validated accepted an out-of-bounds finding")
	}
}
