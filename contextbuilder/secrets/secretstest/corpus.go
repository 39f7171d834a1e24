// Package secretstest generates a corpus of fake secrets for the secret
// scanner's tests and benchmark (tools/secretsbench): every credential type
// the built-in rules cover, planted in every file kind ctxd sends (.env,
// YAML, JSON, TOML, INI, .properties, XML, Go, Python, JavaScript or
// TypeScript, shell), with the exact value and byte span of each, plus hard
// negatives: files without any secret that naive scanners flag (UUIDs, git
// SHAs, hashes, SRI integrity, go.sum, base64 images, public keys and
// certificates, placeholders, identifiers, minified JS, prose, documented
// example keys).
//
// The corpus is a pure function of its seed (math/rand/v2 PCG): the same
// seed gives the same bytes on every machine. Every value is generated
// here, by per-type generators with the right alphabet, length and prefix;
// GitHub and npm tokens carry a valid CRC32 checksum, JWTs a real JSON
// header, and some private keys parse. None of them is a real credential.
package secretstest

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"hash/crc32"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Class says how a credential type is recognized.
type Class string

// Classes: the benchmark's recall targets differ (100% for prefixed types,
// 95% for contextual ones).
const (
	// Prefixed types carry a vendor prefix or a fixed shape (ghp_, AKIA,
	// -----BEGIN … PRIVATE KEY-----).
	Prefixed Class = "prefixed"
	// Contextual types are recognized by their context: a URL's userinfo,
	// an Authorization header, a password assignment, a connection string.
	Contextual Class = "contextual"
)

// FileKind is the syntax of a corpus file.
type FileKind string

// File kinds. Every secret type is planted in each of [Kinds]; KindKey
// (a bare key file) holds private keys only, KindText holds hard negatives
// only (go.sum, Markdown, HTML, CSS, HCL).
const (
	KindEnv        FileKind = "env"
	KindYAML       FileKind = "yaml"
	KindJSON       FileKind = "json"
	KindTOML       FileKind = "toml"
	KindINI        FileKind = "ini"
	KindProperties FileKind = "properties"
	KindXML        FileKind = "xml"
	KindGo         FileKind = "go"
	KindPython     FileKind = "python"
	KindJS         FileKind = "js"
	KindShell      FileKind = "shell"
	KindKey        FileKind = "key"
	KindText       FileKind = "text"
)

// Kinds are the file kinds every secret type is placed in, in corpus
// order.
var Kinds = []FileKind{KindEnv, KindYAML, KindJSON, KindTOML, KindINI, KindProperties, KindXML, KindGo, KindPython, KindJS, KindShell}

// IsCode reports whether files of kind k are source code that defines a
// function ([File.Func]) holding a planted secret.
func (k FileKind) IsCode() bool {
	return k == KindGo || k == KindPython || k == KindJS
}

// Type is one credential type of the corpus.
type Type struct {
	// Name is the corpus's label; for most types it is also the id of the
	// rule expected to find it.
	Name  string
	Class Class
	// Rules are the rule ids expected to find it (any one of them); a
	// finding of another rule that covers the value also counts as found.
	Rules []string
}

// Secret is one planted secret.
type Secret struct {
	// Path is the file's slash-separated path relative to the corpus root.
	Path string
	Kind FileKind
	// Type is the [Type] name; Class and Rules are copied from it.
	Type  string
	Class Class
	Rules []string
	// Variant says how the secret is written ("assignment", "neutral",
	// "comment", "body", "curl", "mongodb+srv", "escaped-newlines", …);
	// an "+allow-comment" suffix marks a line carrying an inline allow
	// comment (gitleaks:allow, pragma: allowlist secret, …) that a scanner
	// must ignore.
	Variant string
	// Value is the secret exactly as written in the file: Data[Start:End].
	Value      string
	Start, End int
	// Line is the 1-based line of Start.
	Line int
	// CoreStart and CoreEnd delimit, inside Value, its random part: Value
	// without a fixed prefix or armor ("ghp_", "-----BEGIN … KEY-----"),
	// which no output may contain, even in part.
	CoreStart, CoreEnd int
}

// Core returns the random part of the value.
func (s *Secret) Core() string { return s.Value[s.CoreStart:s.CoreEnd] }

// File is one corpus file.
type File struct {
	// Path is slash-separated, relative to the corpus root.
	Path string
	Kind FileKind
	Data []byte
	// Negative names the hard negative the file holds (no secret at all);
	// empty for the files with planted secrets.
	Negative string
	// Func is a function the file defines whose body holds a planted
	// secret (Go, Python, JS/TS files), so that a test can write a caller;
	// Package is the Go package name of a Go file.
	Func    string
	Package string
}

// Corpus is a generated corpus.
type Corpus struct {
	Seed  uint64
	Types []Type
	// Files are sorted by path; Secrets by path, then Start.
	Files   []File
	Secrets []Secret
}

// Negatives returns the hard-negative files.
func (c *Corpus) Negatives() []File {
	var out []File
	for _, f := range c.Files {
		if f.Negative != "" {
			out = append(out, f)
		}
	}
	return out
}

// SecretsIn returns the secrets planted in the file at p.
func (c *Corpus) SecretsIn(p string) []Secret {
	var out []Secret
	for _, s := range c.Secrets {
		if s.Path == p {
			out = append(out, s)
		}
	}
	return out
}

// File returns the file at p.
func (c *Corpus) File(p string) (File, bool) {
	i, ok := slices.BinarySearchFunc(c.Files, p, func(f File, p string) int { return strings.Compare(f.Path, p) })
	if !ok {
		return File{}, false
	}
	return c.Files[i], true
}

// WriteTo writes every file under dir (created when missing).
func (c *Corpus) WriteTo(dir string) error {
	for _, f := range c.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Generate builds the corpus of seed.
func Generate(seed uint64) *Corpus {
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	c := &Corpus{Seed: seed}
	seen := map[string]bool{}
	for ti, td := range typeDefs() {
		c.Types = append(c.Types, Type{Name: td.name, Class: td.class, Rules: td.rules})
		dir := td.name
		kinds := Kinds
		if td.keyFile != nil {
			kinds = append(slices.Clone(Kinds), KindKey)
		}
		for _, k := range kinds {
			f := g.positive(td, ti, dir, k)
			c.add(seen, f.file, f.secrets)
		}
	}
	for _, n := range g.negatives() {
		c.add(seen, n, nil)
	}
	c.generateEncoded(seed, seen)
	slices.SortFunc(c.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(c.Secrets, func(a, b Secret) int {
		if a.Path != b.Path {
			return strings.Compare(a.Path, b.Path)
		}
		return a.Start - b.Start
	})
	return c
}

// add appends a file and its secrets, checking that every span holds its
// value (a generator bug otherwise).
func (c *Corpus) add(seen map[string]bool, f File, secrets []Secret) {
	if seen[f.Path] {
		panic("secretstest: duplicate path " + f.Path)
	}
	seen[f.Path] = true
	c.Files = append(c.Files, f)
	for _, s := range secrets {
		if string(f.Data[s.Start:s.End]) != s.Value {
			panic("secretstest: span mismatch in " + f.Path)
		}
		c.Secrets = append(c.Secrets, s)
	}
}

// ---------------------------------------------------------------------
// Randomness and alphabets.

const (
	lowerA   = "abcdefghijklmnopqrstuvwxyz"
	upperA   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	digits   = "0123456789"
	alnum    = digits + upperA + lowerA // also the base62 alphabet
	lowerNum = lowerA + digits
	upperNum = upperA + digits
	hexLower = "0123456789abcdef"
	hexUpper = "0123456789ABCDEF"
	b64Std   = upperA + lowerA + digits + "+/"
	b64URL   = upperA + lowerA + digits + "-_"
	base32A  = upperA + "234567"
	bech32A  = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
	// punctAll are the punctuation characters human-chosen passwords
	// draw from; each file kind removes the ones its syntax cannot hold
	// verbatim (see forbidden).
	punctAll = "!#$%&*()+,-./:;<=>?@[]^_{|}~"
)

type gen struct{ r *rand.Rand }

func (g *gen) intn(n int) int           { return g.r.IntN(n) }
func (g *gen) between(lo, hi int) int   { return lo + g.r.IntN(hi-lo+1) }
func (g *gen) chance(p float64) bool    { return g.r.Float64() < p }
func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *gen) pickN(xs ...int) int      { return xs[g.r.IntN(len(xs))] }

func (g *gen) str(alpha string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alpha[g.r.IntN(len(alpha))]
	}
	return string(b)
}

func (g *gen) bytes(n int) []byte {
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], g.r.Uint64())
		copy(b[i:], w[:])
	}
	return b
}

func (g *gen) uuid() string {
	b := g.bytes(16)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// mixed returns n characters of alpha with at least one of each class
// present in it (a digit, an upper- and a lowercase letter), as a real
// random token has.
func (g *gen) mixed(alpha string, n int) string {
	for {
		s := g.str(alpha, n)
		if (!strings.ContainsAny(alpha, digits) || strings.ContainsAny(s, digits)) &&
			(!strings.ContainsAny(alpha, upperA) || strings.ContainsAny(s, upperA)) &&
			(!strings.ContainsAny(alpha, lowerA) || strings.ContainsAny(s, lowerA)) {
			return s
		}
	}
}

// base62 encodes v in 6 base62 digits (0-9A-Za-z), left-padded with 0: the
// checksum of GitHub and npm tokens.
func base62(v uint32) string {
	b := []byte("000000")
	for i := 5; i >= 0; i-- {
		b[i] = alnum[v%62]
		v /= 62
	}
	return string(b)
}

// checksummed returns prefix + 30 random base62 characters + their CRC32
// in base62: the format of GitHub's ghp_/gho_/ghu_/ghs_/ghr_ and npm's npm_
// tokens.
func (g *gen) checksummed(prefix string) string {
	body := g.mixed(alnum, 30)
	return prefix + body + base62(crc32.ChecksumIEEE([]byte(body)))
}

// ---------------------------------------------------------------------
// Values.

// val is a generated secret value and the offsets of its random part.
type val struct {
	v      string
	cs, ce int
}

func plain(v string) val { return val{v: v, cs: 0, ce: len(v)} }
func prefixed(prefix, rest string) val {
	return val{v: prefix + rest, cs: len(prefix), ce: len(prefix) + len(rest)}
}

// words for key names and human-chosen passwords.
var (
	wordList = []string{"Autumn", "Falcon", "Harbor", "Copper", "Meadow", "Orbit", "Quartz", "Saffron", "Tundra", "Violet", "Walnut", "Zephyr", "Brisk", "Cobalt", "Dune", "Ember"}
	userList = []string{"admin", "app", "svc_deploy", "root", "postgres", "guest", "ci-bot", "reporting", "etl.user", "backend"}
	hostList = []string{"db.internal", "10.0.3.17", "prod-db-01.corp.example.com", "cache.svc.cluster.local", "rabbit.internal", "mq-2.example.net", "storage.example.org"}
)

// forbidden are the characters a value written verbatim in kind k may
// not hold (quotes, escapes, comment starters, interpolation).
func forbidden(k FileKind) string {
	switch k {
	case KindEnv:
		return "\"'\\$`#"
	case KindShell:
		return "'\\`\"$"
	case KindYAML, KindJSON, KindTOML, KindGo, KindPython, KindJS:
		return "\"\\'`"
	case KindINI:
		return ";#%\"'\\"
	case KindProperties:
		return "\\\"'"
	case KindXML:
		return "<&\"'"
	}
	return "\"'\\`"
}

// punct returns the password punctuation allowed in kind k.
func punct(k FileKind) string {
	var b strings.Builder
	for _, c := range punctAll {
		if !strings.ContainsRune(forbidden(k), c) {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// safeValue rejects values that look like a placeholder or a reference
// rather than a literal (${, {{, <…>, a leading $ or %), which the
// corpus must not plant as secrets.
func safeValue(v string) bool {
	for _, bad := range []string{"${", "$(", "{{", "%(", "#{", "//"} {
		if strings.Contains(v, bad) {
			return false
		}
	}
	if v == "" || strings.ContainsAny(v[:1], "<$%={[!&*|>@`-?:,#") || strings.ContainsAny(v[len(v)-1:], " :") {
		return false
	}
	return true
}

// password returns a human-chosen or random password holding punctuation
// that kind k can write verbatim.
func (g *gen) password(k FileKind) string {
	p := punct(k)
	for {
		var v string
		switch g.intn(3) {
		case 0: // Word + digits + punctuation + a few random characters
			v = g.pick(wordList...) + g.str(digits, g.between(2, 4)) + g.str(p, g.between(1, 2)) + g.str(alnum, g.between(3, 6)) + g.str(p, 1) + g.str(lowerNum, 2)
		case 1: // random characters, mostly alphanumeric
			n := g.between(14, 28)
			b := []byte(g.mixed(alnum, n))
			for range g.between(2, 5) {
				b[g.intn(n)] = p[g.intn(len(p))]
			}
			v = string(b)
		default: // word-joined passphrase
			v = strings.ToLower(g.pick(wordList...)) + g.str(p, 1) + g.pick(wordList...) + g.str(p, 1) + g.str(digits, 3) + g.str(p, 1) + g.str(alnum, 4)
		}
		if safeValue(v) && !strings.Contains(v, " ") {
			return v
		}
	}
}

// passwordFor returns a password for kind k without any of the characters
// in avoid (the quotes or separators of the construct that holds it).
func (g *gen) passwordFor(k FileKind, avoid string) string {
	for {
		if v := g.password(k); !strings.ContainsAny(v, avoid) {
			return v
		}
	}
}

// urlPassword returns a password as written in a URL's userinfo: only
// characters that need no percent-encoding, plus an occasional escape.
func (g *gen) urlPassword(k FileKind) string {
	extra := "-._~!*+="
	for {
		n := g.between(12, 24)
		b := []byte(g.mixed(alnum, n))
		for range g.between(1, 3) {
			b[g.intn(n)] = extra[g.intn(len(extra))]
		}
		v := string(b)
		if !strings.ContainsRune(forbidden(k), '%') && g.chance(0.3) {
			i := g.intn(len(v))
			v = v[:i] + g.pick("%40", "%23", "%2F", "%3A") + v[i:]
		}
		if safeValue(v) {
			return v
		}
	}
}

func (g *gen) jwt() val {
	alg := g.pick("HS256", "RS256", "ES256")
	hdr := map[string]string{"alg": alg, "typ": "JWT"}
	if alg != "HS256" {
		hdr["kid"] = g.str(lowerNum, 16)
	}
	h, _ := json.Marshal(hdr)
	iat := 1_700_000_000 + g.intn(50_000_000)
	p := fmt.Sprintf(`{"sub":"%s","iss":"https://auth.%s.example.com/","aud":"api","iat":%d,"exp":%d,"scope":"%s"}`,
		g.uuid(), g.pick("acme", "globex", "initech"), iat, iat+3600, g.pick("read write", "admin", "orders:read"))
	sigLen := map[string]int{"HS256": 43, "RS256": 342, "ES256": 86}[alg]
	enc := base64.RawURLEncoding
	head := enc.EncodeToString(h) + "."
	rest := enc.EncodeToString([]byte(p)) + "." + g.str(b64URL, sigLen)
	return val{v: head + rest, cs: len(head), ce: len(head) + len(rest)}
}

// pemVal wraps der as a PEM block of type typ; the value excludes the
// final newline, its core is the body.
func pemVal(typ string, headers map[string]string, der []byte) val {
	s := strings.TrimSuffix(string(pem.EncodeToMemory(&pem.Block{Type: typ, Headers: headers, Bytes: der})), "\n")
	begin := strings.Index(s, "\n") + 1
	end := strings.LastIndex(s, "\n")
	return val{v: s, cs: begin, ce: end}
}

func (g *gen) rsaPEM() val {
	n := g.between(1180, 1220)
	der := append([]byte{0x30, 0x82, byte(n >> 8), byte(n), 0x02, 0x01, 0x00, 0x02, 0x82, 0x01, 0x01, 0x00}, g.bytes(n-8)...)
	return pemVal("RSA PRIVATE KEY", nil, der)
}

func (g *gen) pkcs8PEM() val {
	var key any
	if g.chance(0.5) {
		key = ed25519.NewKeyFromSeed(g.bytes(32))
	} else {
		for {
			k, err := ecdh.P256().NewPrivateKey(g.bytes(32))
			if err == nil {
				key = k
				break
			}
		}
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		panic(err)
	}
	return pemVal("PRIVATE KEY", nil, der)
}

func (g *gen) ecPEM() val {
	for {
		k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), g.bytes(32))
		if err != nil {
			continue
		}
		der, err := x509.MarshalECPrivateKey(k)
		if err != nil {
			panic(err)
		}
		return pemVal("EC PRIVATE KEY", nil, der)
	}
}

func (g *gen) encryptedPEM() val {
	n := g.between(1290, 1310)
	der := append([]byte{0x30, 0x82, byte(n >> 8), byte(n), 0x30, 0x4e, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05, 0x0d}, g.bytes(n-13)...)
	return pemVal("ENCRYPTED PRIVATE KEY", nil, der)
}

func (g *gen) opensshPEM() val {
	body := append([]byte("openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x003\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 "), g.bytes(g.between(300, 330))...)
	b64 := base64.StdEncoding.EncodeToString(body)
	var lines []string
	for len(b64) > 70 {
		lines = append(lines, b64[:70])
		b64 = b64[70:]
	}
	lines = append(lines, b64)
	head := "-----BEGIN OPENSSH PRIVATE KEY-----\n"
	core := strings.Join(lines, "\n")
	return val{v: head + core + "\n-----END OPENSSH PRIVATE KEY-----", cs: len(head), ce: len(head) + len(core)}
}

// crc24 is OpenPGP's armor checksum.
func crc24(b []byte) uint32 {
	crc := uint32(0xB704CE)
	for _, c := range b {
		crc ^= uint32(c) << 16
		for range 8 {
			crc <<= 1
			if crc&0x1000000 != 0 {
				crc ^= 0x1864CFB
			}
		}
	}
	return crc & 0xFFFFFF
}

func (g *gen) pgpPEM() val {
	body := append([]byte{0x95, 0x03, 0xc6, 0x04}, g.bytes(g.between(900, 980))...)
	b64 := base64.StdEncoding.EncodeToString(body)
	var lines []string
	for len(b64) > 64 {
		lines = append(lines, b64[:64])
		b64 = b64[64:]
	}
	lines = append(lines, b64)
	c := crc24(body)
	sum := base64.StdEncoding.EncodeToString([]byte{byte(c >> 16), byte(c >> 8), byte(c)})
	head := "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n"
	core := strings.Join(lines, "\n")
	return val{v: head + core + "\n=" + sum + "\n-----END PGP PRIVATE KEY BLOCK-----", cs: len(head), ce: len(head) + len(core)}
}

// puttyKey returns a PuTTY private key file (PPK v3 or v2); its core is
// the private lines and the MAC.
func (g *gen) puttyKey() val {
	ver := g.pick("3", "2")
	pub := append([]byte("\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 "), g.bytes(32)...)
	priv := append([]byte("\x00\x00\x00 "), g.bytes(32)...)
	head := "PuTTY-User-Key-File-" + ver + ": ssh-ed25519\nEncryption: none\nComment: eddsa-key-2025" + fmt.Sprintf("%02d%02d", g.between(1, 12), g.between(1, 28)) + "\n"
	if ver == "3" {
		head += "Public-Lines: 2\n" + wrap64(base64.StdEncoding.EncodeToString(pub)+base64.StdEncoding.EncodeToString(g.bytes(12)))
	} else {
		head += "Public-Lines: 1\n" + wrap64(base64.StdEncoding.EncodeToString(pub))
	}
	head += "Private-Lines: 1\n"
	macLen := 64
	if ver == "2" {
		macLen = 40
	}
	core := base64.StdEncoding.EncodeToString(priv) + "\nPrivate-MAC: " + g.str(hexLower, macLen)
	return val{v: head + core, cs: len(head), ce: len(head) + len(core)}
}

// ---------------------------------------------------------------------
// Types.

// typeDef is a credential type: its generator and how it is written.
type typeDef struct {
	name  string
	class Class
	rules []string
	// key is the words of the type's natural key name ("github",
	// "token"), used for its keyed placement.
	key []string
	// value generates one value (single-line types).
	value func(g *gen, k FileKind) val
	// pemValue generates one multi-line value (private keys).
	pemValue func(g *gen) val
	// place, when set, writes the type's samples itself.
	place func(g *gen, td *typeDef, k FileKind, i int) snip
	// samples per file (default 2).
	samples int
	// keyFile names a bare key file holding one value (private keys).
	keyFile *string
}

func str(s string) *string { return &s }

func typeDefs() []*typeDef {
	pre := func(prefix, alpha string, n int) func(*gen, FileKind) val {
		return func(g *gen, _ FileKind) val { return prefixed(prefix, g.mixed(alpha, n)) }
	}
	ts := []*typeDef{
		{name: "aws-access-key-id", class: Prefixed, key: []string{"aws", "access", "key", "id"}, value: func(g *gen, _ FileKind) val {
			return prefixed(g.pick("AKIA", "AKIA", "ASIA"), g.mixed(base32A, 16))
		}},
		{name: "github-pat-classic", class: Prefixed, key: []string{"github", "token"}, value: func(g *gen, _ FileKind) val {
			v := g.checksummed("ghp_")
			return val{v: v, cs: 4, ce: len(v)}
		}},
		{name: "github-fine-grained-pat", class: Prefixed, key: []string{"gh", "pat"}, value: func(g *gen, _ FileKind) val {
			return prefixed("github_pat_11", g.mixed(upperNum, 20)+"_"+g.mixed(alnum, 59))
		}},
		{name: "github-oauth", class: Prefixed, key: []string{"github", "oauth"}, value: func(g *gen, _ FileKind) val {
			v := g.checksummed("gho_")
			return val{v: v, cs: 4, ce: len(v)}
		}},
		{name: "github-app-token", class: Prefixed, key: []string{"github", "app", "auth"}, value: func(g *gen, _ FileKind) val {
			v := g.checksummed(g.pick("ghs_", "ghu_"))
			return val{v: v, cs: 4, ce: len(v)}
		}},
		{name: "github-refresh-token", class: Prefixed, key: []string{"github", "refresh"}, value: func(g *gen, _ FileKind) val {
			v := g.checksummed("ghr_")
			return val{v: v, cs: 4, ce: len(v)}
		}},
		{name: "gitlab-pat", class: Prefixed, key: []string{"gitlab", "token"}, value: pre("glpat-", alnum+"_-", 20)},
		{name: "gitlab-runner-token", class: Prefixed, key: []string{"runner", "registration"}, value: pre("glrt-", alnum+"_-", 20)},
		{name: "bitbucket-app-password", class: Prefixed, key: []string{"bitbucket", "app"}, value: func(g *gen, _ FileKind) val {
			return prefixed("ATBB", g.mixed(alnum, 32)+g.str(hexUpper, 8))
		}},
		{name: "npm-token", class: Prefixed, key: []string{"npm", "token"}, value: func(g *gen, _ FileKind) val {
			v := g.checksummed("npm_")
			return val{v: v, cs: 4, ce: len(v)}
		}},
		{name: "pypi-token", class: Prefixed, key: []string{"pypi", "upload"}, value: func(g *gen, _ FileKind) val {
			return prefixed("pypi-AgEIcHlwaS5vcmc", g.mixed(b64URL, g.between(70, 150)))
		}},
		{name: "nuget-api-key", class: Prefixed, key: []string{"nuget", "key"}, value: pre("oy2", lowerNum, 43)},
		{name: "rubygems-api-key", class: Prefixed, key: []string{"gem", "host", "key"}, value: pre("rubygems_", hexLower, 48)},
		{name: "openai-api-key", class: Prefixed, key: []string{"openai", "key"}, value: func(g *gen, _ FileKind) val {
			return prefixed("sk-", g.mixed(alnum, 20)+"T3BlbkFJ"+g.mixed(alnum, 20))
		}},
		{name: "openai-project-key", class: Prefixed, rules: []string{"openai-api-key"}, key: []string{"openai", "project"}, value: func(g *gen, _ FileKind) val {
			p := g.pick("sk-proj-", "sk-proj-", "sk-svcacct-", "sk-admin-")
			return prefixed(p, g.mixed(alnum+"_-", 74)+"T3BlbkFJ"+g.mixed(alnum+"_-", 74))
		}},
		{name: "anthropic-api-key", class: Prefixed, key: []string{"anthropic", "key"}, value: func(g *gen, _ FileKind) val {
			p := g.pick("sk-ant-api03-", "sk-ant-api03-", "sk-ant-admin01-")
			return prefixed(p, g.mixed(alnum+"_-", 93)+"AA")
		}},
		{name: "huggingface-token", class: Prefixed, key: []string{"hf", "token"}, value: pre("hf_", upperA+lowerA, 34)},
		{name: "groq-api-key", class: Prefixed, key: []string{"groq", "key"}, value: pre("gsk_", alnum, 52)},
		{name: "stripe-secret-key", class: Prefixed, key: []string{"stripe", "key"}, value: func(g *gen, _ FileKind) val {
			return prefixed(g.pick("sk_live_", "sk_live_", "sk_test_"), g.mixed(alnum, g.pickN(24, 99)))
		}},
		{name: "stripe-restricted-key", class: Prefixed, key: []string{"stripe", "restricted"}, value: func(g *gen, _ FileKind) val {
			return prefixed(g.pick("rk_live_", "rk_test_"), g.mixed(alnum, g.pickN(24, 99)))
		}},
		{name: "slack-bot-token", class: Prefixed, key: []string{"slack", "bot"}, value: func(g *gen, _ FileKind) val {
			return prefixed("xoxb-", g.str(digits, g.between(10, 13))+"-"+g.str(digits, g.between(10, 13))+"-"+g.mixed(alnum, 24))
		}},
		{name: "slack-user-token", class: Prefixed, key: []string{"slack", "user"}, value: func(g *gen, _ FileKind) val {
			return prefixed("xoxp-", g.str(digits, g.between(10, 13))+"-"+g.str(digits, g.between(10, 13))+"-"+g.str(digits, g.between(10, 13))+"-"+g.str(hexLower, 32))
		}},
		{name: "slack-app-token", class: Prefixed, key: []string{"slack", "app", "level"}, value: func(g *gen, _ FileKind) val {
			return prefixed("xapp-1-", "A"+g.mixed(upperNum, 10)+"-"+g.str(digits, 13)+"-"+g.str(hexLower, 64))
		}},
		{name: "slack-webhook-url", class: Prefixed, key: []string{"slack", "webhook"}, value: func(g *gen, _ FileKind) val {
			return prefixed("https://hooks.slack.com/services/", "T"+g.mixed(upperNum, 10)+"/B"+g.mixed(upperNum, 10)+"/"+g.mixed(alnum, 24))
		}},
		{name: "discord-bot-token", class: Contextual, place: placeDiscordBot},
		{name: "discord-webhook-url", class: Prefixed, key: []string{"discord", "webhook"}, value: func(g *gen, _ FileKind) val {
			p := "https://discord.com/api/webhooks/" + fmt.Sprint(g.between(100_000_000, 999_999_999)) + g.str(digits, 9) + "/"
			return prefixed(p, g.mixed(alnum+"_-", 68))
		}},
		{name: "telegram-bot-token", class: Prefixed, key: []string{"telegram", "bot"}, value: func(g *gen, _ FileKind) val {
			return plain(fmt.Sprint(g.between(100_000_000, 7_999_999_999)) + ":AA" + g.mixed(alnum+"_-", 33))
		}},
		{name: "twilio-api-key", class: Prefixed, key: []string{"twilio", "key"}, value: pre("SK", hexLower, 32)},
		{name: "sendgrid-api-key", class: Prefixed, key: []string{"sendgrid", "key"}, value: func(g *gen, _ FileKind) val {
			return prefixed("SG.", g.mixed(alnum+"_-", 22)+"."+g.mixed(alnum+"_-", 43))
		}},
		{name: "mailgun-legacy-api-key", class: Prefixed, key: []string{"mailgun", "key"}, value: pre("key-", hexLower, 32)},
		{name: "digitalocean-token", class: Prefixed, key: []string{"do", "token"}, value: func(g *gen, _ FileKind) val {
			return prefixed(g.pick("dop_v1_", "dop_v1_", "doo_v1_", "dor_v1_"), g.str(hexLower, 64))
		}},
		{name: "heroku-api-key-v2", class: Prefixed, key: []string{"heroku", "key"}, value: pre("HRKU-AA", alnum+"_-", 58)},
		{name: "vault-token", class: Prefixed, key: []string{"vault", "token"}, value: func(g *gen, _ FileKind) val {
			if g.chance(0.7) {
				return prefixed("hvs.", "CAESI"+g.mixed(alnum+"_-", 86))
			}
			return prefixed("hvb.", "AAAAAQ"+g.mixed(alnum+"_-", 132))
		}},
		{name: "doppler-token", class: Prefixed, key: []string{"doppler", "token"}, value: func(g *gen, _ FileKind) val {
			return prefixed(g.pick("dp.pt.", "dp.st.", "dp.sa."), g.mixed(alnum, 43))
		}},
		{name: "databricks-token", class: Prefixed, key: []string{"databricks", "token"}, value: func(g *gen, _ FileKind) val {
			v := g.str(hexLower, 32)
			if g.chance(0.3) {
				v += "-2"
			}
			return prefixed("dapi", v)
		}},
		{name: "shopify-token", class: Prefixed, key: []string{"shopify", "token"}, value: func(g *gen, _ FileKind) val {
			return prefixed(g.pick("shpat_", "shpss_", "shpca_", "shppa_"), g.str(hexLower, 32))
		}},
		{name: "atlassian-api-token", class: Prefixed, key: []string{"jira", "token"}, value: func(g *gen, _ FileKind) val {
			return prefixed("ATATT3xFfGF0", g.mixed(alnum+"_-", 171)+"="+g.str(hexUpper, 8))
		}},
		{name: "linear-api-key", class: Prefixed, key: []string{"linear", "key"}, value: pre("lin_api_", alnum, 40)},
		{name: "postman-api-key", class: Prefixed, key: []string{"postman", "key"}, value: func(g *gen, _ FileKind) val {
			return prefixed("PMAK-", g.str(hexLower, 24)+"-"+g.str(hexLower, 34))
		}},
		{name: "grafana-service-account-token", class: Prefixed, key: []string{"grafana", "token"}, value: func(g *gen, _ FileKind) val {
			return prefixed("glsa_", g.mixed(alnum, 32)+"_"+g.str(hexLower, 8))
		}},
		{name: "grafana-cloud-token", class: Prefixed, key: []string{"grafana", "cloud"}, value: func(g *gen, _ FileKind) val {
			j := fmt.Sprintf(`{"o":"%d","n":"stack-%d-%s","k":"%s","m":{"r":"prod-eu-west-0"}}`, g.between(100000, 999999), g.between(100000, 999999), g.pick("publish", "read"), g.mixed(alnum, 24))
			return prefixed("glc_", base64.StdEncoding.EncodeToString([]byte(j)))
		}},
		{name: "newrelic-user-api-key", class: Prefixed, key: []string{"newrelic", "key"}, value: pre("NRAK-", upperNum, 27)},
		{name: "age-secret-key", class: Prefixed, key: []string{"age", "identity"}, value: pre("AGE-SECRET-KEY-1", bech32A, 58)},
		{name: "gcp-api-key", class: Prefixed, key: []string{"google", "maps", "key"}, value: pre("AIza", alnum+"_-", 35)},
		{name: "gitlab-deploy-token", class: Prefixed, key: []string{"ci", "deploy", "password"}, value: pre("gldt-", alnum+"_-", 20)},
		{name: "gitlab-trigger-token", class: Prefixed, key: []string{"trigger", "token"}, value: pre("glptt-", hexLower, 40)},
		{name: "gitlab-ci-job-token", class: Prefixed, key: []string{"ci", "job", "token"}, value: pre("glcbt-", alnum+"_-", 24)},
		{name: "gitlab-oauth-secret", class: Prefixed, key: []string{"gitlab", "oauth", "secret"}, value: pre("gloas-", hexLower, 64)},
		{name: "gitlab-other-token", class: Prefixed, key: []string{"gitlab", "feed"}, value: func(g *gen, _ FileKind) val {
			return prefixed(g.pick("glft-", "glimt-", "glsoat-", "glagent-", "glffct-", "glwt-"), g.mixed(alnum+"_-", 20))
		}},
		{name: "bitbucket-access-token", class: Prefixed, key: []string{"bitbucket", "access"}, value: func(g *gen, _ FileKind) val {
			return prefixed("ATCTT3xFfGN0", g.mixed(alnum+"_-", 170)+"="+g.str(hexUpper, 8))
		}},
		{name: "openrouter-api-key", class: Prefixed, key: []string{"openrouter", "key"}, value: pre("sk-or-v1-", hexLower, 64)},
		{name: "xai-api-key", class: Prefixed, key: []string{"xai", "key"}, value: pre("xai-", alnum, 80)},
		{name: "perplexity-api-key", class: Prefixed, key: []string{"pplx", "key"}, value: pre("pplx-", alnum, 48)},
		{name: "replicate-api-token", class: Prefixed, key: []string{"replicate", "api"}, value: pre("r8_", alnum, 37)},
		{name: "langsmith-api-key", class: Prefixed, key: []string{"langsmith", "key"}, value: func(g *gen, _ FileKind) val {
			return prefixed(g.pick("lsv2_pt_", "lsv2_sk_"), g.str(hexLower, 32)+"_"+g.str(hexLower, 10))
		}},
		{name: "stripe-webhook-secret", class: Prefixed, key: []string{"stripe", "webhook"}, value: pre("whsec_", alnum, 32)},
		{name: "square-token", class: Prefixed, key: []string{"square", "access"}, value: func(g *gen, _ FileKind) val {
			switch g.intn(3) {
			case 0:
				return prefixed("EAAA", g.mixed(alnum+"_-", 60))
			case 1:
				return prefixed("sq0csp-", g.mixed(alnum+"_-", 43))
			}
			return prefixed("sq0atp-", g.mixed(alnum+"_-", 22))
		}},
		{name: "slack-other-token", class: Prefixed, key: []string{"slack", "config"}, value: func(g *gen, _ FileKind) val {
			if g.chance(0.5) {
				return prefixed("xoxe.xoxp-1-", g.mixed(alnum, 140))
			}
			return prefixed(g.pick("xoxa-2-", "xoxr-", "xoxs-", "xoxo-", "xoxe-1-"), g.str(digits, 12)+"-"+g.mixed(alnum, 40))
		}},
		{name: "newrelic-browser-key", class: Prefixed, key: []string{"nr", "browser"}, value: pre("NRJS-", hexLower, 19)},
		{name: "newrelic-insights-key", class: Prefixed, key: []string{"newrelic", "insert"}, value: func(g *gen, _ FileKind) val {
			return prefixed(g.pick("NRII-", "NRIQ-"), g.mixed(alnum+"_-", 32))
		}},
		{name: "newrelic-license-key", class: Prefixed, key: []string{"newrelic", "license"}, value: func(g *gen, _ FileKind) val {
			return val{v: g.pick("eu01xx", "us01xx", g.str(lowerNum, 6)) + g.str(hexLower, 30) + "NRAL", cs: 0, ce: 36}
		}},
		{name: "grafana-api-key", class: Prefixed, key: []string{"grafana", "api"}, value: func(g *gen, _ FileKind) val {
			j := fmt.Sprintf(`{"k":"%s","n":"%s","id":%d}`, g.mixed(alnum, 32), g.pick("deploy", "ci-reader", "admin"), g.between(1, 99))
			return prefixed("eyJrIjoi", strings.TrimPrefix(base64.StdEncoding.EncodeToString([]byte(j)), "eyJrIjoi"))
		}},
		{name: "docker-hub-token", class: Prefixed, key: []string{"dockerhub", "pat"}, value: func(g *gen, _ FileKind) val {
			return prefixed(g.pick("dckr_pat_", "dckr_oat_"), g.mixed(alnum+"_-", 27))
		}},
		{name: "sentry-auth-token", class: Prefixed, key: []string{"sentry", "auth"}, value: func(g *gen, _ FileKind) val {
			if g.chance(0.5) {
				return prefixed("sntryu_", g.str(hexLower, 64))
			}
			j := fmt.Sprintf(`{"iat":%d.%d,"url":"https://sentry.io","region_url":"https://us.sentry.io","org":"%s"}`, 1_700_000_000+g.intn(50_000_000), g.intn(999999), g.pick("acme", "globex"))
			return prefixed("sntrys_", base64.RawStdEncoding.EncodeToString([]byte(j))+"_"+g.mixed(b64Std, 43))
		}},
		{name: "pulumi-access-token", class: Prefixed, key: []string{"pulumi", "access"}, value: pre("pul-", hexLower, 40)},
		{name: "terraform-cloud-token", class: Prefixed, key: []string{"tfc", "credentials"}, value: func(g *gen, _ FileKind) val {
			return plain(g.mixed(alnum, 14) + ".atlasv1." + g.mixed(alnum+"_-", 67))
		}},
		{name: "supabase-token", class: Prefixed, key: []string{"supabase", "access"}, value: func(g *gen, _ FileKind) val {
			if g.chance(0.5) {
				return prefixed("sbp_", g.str(hexLower, 40))
			}
			return prefixed("sb_secret_", g.mixed(alnum+"_-", 31))
		}},
		{name: "planetscale-token", class: Prefixed, key: []string{"pscale", "service"}, value: func(g *gen, _ FileKind) val {
			return prefixed(g.pick("pscale_tkn_", "pscale_pw_", "pscale_oauth_"), g.mixed(alnum+"_-", 43))
		}},
		{name: "onepassword-service-account-token", class: Prefixed, key: []string{"op", "service", "account"}, value: func(g *gen, _ FileKind) val {
			j := fmt.Sprintf(`{"signInAddress":"my.1password.com","userAuth":{"method":"SRPg-4096","alg":"PBES2g-HS256","iterations":650000,"salt":"%s"},"email":"%s@1passwordserviceaccounts.com","srpX":"%s","muk":{"alg":"A256GCM","ext":true,"k":"%s","key_ops":["encrypt","decrypt"],"kty":"oct","kid":"mp"},"secretKey":"A3-%s","throttleSecret":{"seed":"%s","deviceUuid":"%s"},"deviceUuid":"%s"}`,
				g.mixed(b64URL, 22), g.str(lowerNum, 13), g.str(hexLower, 64), g.mixed(b64URL, 43), g.str(upperNum, 30), g.str(hexLower, 64), g.str(lowerNum, 26), g.str(lowerNum, 26))
			return prefixed("ops_", base64.RawStdEncoding.EncodeToString([]byte(j)))
		}},
		{name: "google-oauth-client-secret", class: Prefixed, key: []string{"google", "client", "secret"}, value: pre("GOCSPX-", alnum+"_-", 28)},
		{name: "google-oauth-token", class: Prefixed, key: []string{"google", "access"}, value: func(g *gen, _ FileKind) val {
			if g.chance(0.6) {
				return prefixed("ya29.", g.mixed(alnum+"_-", g.between(120, 200)))
			}
			return prefixed("1//0", g.mixed(alnum+"_-", g.between(60, 100)))
		}},
		{name: "dynatrace-api-token", class: Prefixed, key: []string{"dt", "api"}, value: func(g *gen, _ FileKind) val {
			return prefixed("dt0c01.", g.mixed(upperNum, 24)+"."+g.mixed(upperNum, 64))
		}},
		{name: "private-key-base64", class: Prefixed, key: []string{"client", "key", "data"}, value: func(g *gen, _ FileKind) val {
			var k val
			if g.chance(0.5) {
				k = g.rsaPEM()
			} else {
				k = g.ecPEM()
			}
			return plain(base64.StdEncoding.EncodeToString([]byte(k.v + "\n")))
		}},
		{name: "jwt", class: Prefixed, key: []string{"id", "jwt"}, value: func(g *gen, _ FileKind) val { return g.jwt() }},
		{name: "private-key-rsa", class: Prefixed, rules: []string{"private-key"}, key: []string{"tls", "private", "pem"}, pemValue: (*gen).rsaPEM, keyFile: str("id_rsa")},
		{name: "private-key-pkcs8", class: Prefixed, rules: []string{"private-key"}, key: []string{"signing", "pem"}, pemValue: (*gen).pkcs8PEM, keyFile: str("server-key.txt")},
		{name: "private-key-ec", class: Prefixed, rules: []string{"private-key"}, key: []string{"ec", "pem"}, pemValue: (*gen).ecPEM, keyFile: str("ec-key.crt.txt")},
		{name: "private-key-encrypted", class: Prefixed, rules: []string{"private-key"}, key: []string{"encrypted", "pem"}, pemValue: (*gen).encryptedPEM, keyFile: str("backup-key.p8")},
		{name: "private-key-openssh", class: Prefixed, rules: []string{"private-key"}, key: []string{"deploy", "ssh"}, pemValue: (*gen).opensshPEM, keyFile: str("id_ed25519")},
		{name: "private-key-pgp", class: Prefixed, rules: []string{"private-key"}, key: []string{"gpg", "signing"}, pemValue: (*gen).pgpPEM, keyFile: str("release-signing.asc")},
		{name: "private-key-putty", class: Prefixed, rules: []string{"putty-private-key"}, key: []string{"putty", "ppk"}, pemValue: (*gen).puttyKey, keyFile: str("deploy.ppk")},
		{name: "azure-ad-client-secret", class: Prefixed, key: []string{"azure", "client", "secret"}, value: func(g *gen, _ FileKind) val {
			return plain(g.mixed(alnum+"_~.", 3) + g.str(digits, 1) + "Q~" + g.mixed(alnum+"_~.-", 34))
		}},
		{name: "gcp-service-account", class: Prefixed, rules: []string{"gcp-service-account", "private-key"}, place: placeServiceAccount, samples: 1},

		{name: "aws-secret-access-key", class: Contextual, place: placeAWSSecret},
		{name: "aws-session-token", class: Contextual, place: placeAWSSession},
		{name: "azure-storage-account-key", class: Contextual, rules: []string{"azure-storage-connection-string"}, place: placeAzureStorage},
		{name: "azure-sas-token", class: Contextual, place: placeAzureSAS},
		{name: "azure-shared-access-key", class: Contextual, rules: []string{"azure-storage-connection-string"}, place: placeServiceBus},
		{name: "cohere-api-key", class: Contextual, place: placeCohere},
		{name: "connection-string-password", class: Contextual, place: placeConnString},
		{name: "url-credentials", class: Contextual, place: placeURL},
		{name: "authorization-bearer", class: Contextual, rules: []string{"authorization-header", "bearer-token"}, place: placeBearer},
		{name: "authorization-basic", class: Contextual, rules: []string{"authorization-header", "basic-auth-token"}, place: placeBasic},
		{name: "twilio-auth-token", class: Contextual, place: vendorKeyed(func(g *gen) string { return g.str(hexLower, 32) }, []string{"twilio", "auth", "token"}, []string{"twilio", "secret"})},
		{name: "heroku-api-key", class: Contextual, place: vendorKeyed((*gen).uuid, []string{"heroku", "api", "key"}, []string{"heroku", "auth", "token"})},
		{name: "vault-legacy-token", class: Contextual, place: vendorKeyed(func(g *gen) string { return "s." + g.mixed(alnum, 24) }, []string{"vault", "token"}, []string{"vault", "root", "token"})},
		{name: "mailgun-api-key", class: Contextual, place: vendorKeyed(func(g *gen) string {
			return g.str(hexLower, 32) + "-" + g.str(hexLower, 8) + "-" + g.str(hexLower, 8)
		}, []string{"mailgun", "api", "key"}, []string{"mailgun", "secret"})},
		{name: "url-query-credential", class: Contextual, place: placeQueryCredential},
		{name: "cli-credential-flag", class: Contextual, place: placeCLIFlag},
		{name: "netrc-password", class: Contextual, place: placeNetrc},
		{name: "npmrc-auth", class: Contextual, place: placeNpmrc},
		{name: "docker-config-auth", class: Contextual, place: placeDockerConfig},
		{name: "mysql-cli-password", class: Contextual, place: placeMySQLCLI},
		{name: "registry-login-password", class: Contextual, place: placeRegistryLogin},
		{name: "cli-basic-auth", class: Contextual, place: placeCurlUser},
		{name: "basic-auth-call", class: Contextual, rules: []string{"basic-auth-call", "credential-assignment-code"}, place: placeBasicAuthCall},
		{name: "credential-assignment-json-escaped", class: Contextual, place: placeJSONEscaped},
		{name: "credential-name-value-json", class: Contextual, place: placeNameValueJSON},
		{name: "credential-assignment-k8s-env", class: Contextual, rules: []string{"credential-assignment-k8s-env", "credential-name-value-json"}, place: placeK8sEnv},
		{name: "credential-assignment", class: Contextual, rules: []string{"credential-assignment-env", "credential-assignment-yaml", "credential-assignment-json", "credential-assignment-xml", "credential-assignment-xml-attr", "credential-assignment-code", "cli-credential-flag"}, place: placeAssignment},

		// Syntaxes that delimit, split or repeat a value (issue 30).
		{name: "bearer-punctuated", class: Contextual, rules: []string{"authorization-header", "bearer-token"}, place: placeBearerPunctuated},
		{name: "makefile-assignment", class: Contextual, rules: []string{"credential-keyed"}, place: placeMakefile},
		{name: "env-in-json", class: Contextual, rules: []string{"credential-keyed"}, place: placeEnvInJSON},
		{name: "split-token", class: Prefixed, rules: []string{"github-pat-classic", "stripe-secret-key"}, place: placeSplit},
		{name: "repeated-secret", class: Contextual, rules: []string{"credential-keyed", "credential-assignment-env", "credential-assignment-yaml", "credential-assignment-json", "credential-assignment-xml", "credential-assignment-code"}, place: placeRepeated},
		{name: "kubernetes-secret-folded", class: Prefixed, rules: []string{"kubernetes-secret-data-before", "kubernetes-secret-data"}, place: placeK8sFolded, samples: 1},
	}
	for _, t := range ts {
		if t.rules == nil {
			t.rules = []string{t.name}
		}
		if t.samples == 0 {
			t.samples = 2
		}
	}
	return ts
}

// ---------------------------------------------------------------------
// Snippets: text with secrets inside.

// piece is a run of a snippet's text; a secret piece is one planted
// secret.
type piece struct {
	s       string
	secret  bool
	typ     string // secret's type when it is not the file's type
	variant string
	cs, ce  int
}

// snip is one sample's text. body puts it inside the file's function
// (code kinds).
type snip struct {
	pieces []piece
	body   bool
}

func tx(s string) piece { return piece{s: s} }

func sec(v val, variant string) piece {
	return piece{s: v.v, secret: true, variant: variant, cs: v.cs, ce: v.ce}
}

func words(k FileKind, w []string) string {
	switch k {
	case KindEnv, KindShell:
		return strings.ToUpper(strings.Join(w, "_"))
	case KindProperties:
		return strings.Join(w, ".")
	case KindXML, KindGo, KindJS:
		var b strings.Builder
		for i, x := range w {
			if i > 0 && x != "" {
				x = strings.ToUpper(x[:1]) + x[1:]
			}
			b.WriteString(x)
		}
		return b.String()
	}
	return strings.Join(w, "_")
}

// xmlText escapes element text; xmlAttr an attribute value.
func xmlText(s string) string { return strings.NewReplacer("&", "&amp;", "<", "&lt;").Replace(s) }
func xmlAttr(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", "\"", "&quot;").Replace(s)
}

// yamlPlain reports whether v can be a YAML plain scalar.
func yamlPlain(v string) bool {
	if v == "" || strings.ContainsAny(v[:1], "!&*|>%@`'\"#{}[],?:-") || strings.Contains(v, ": ") || strings.Contains(v, " #") || strings.HasSuffix(v, ":") {
		return false
	}
	for _, c := range v {
		if c < ' ' || c > '~' {
			return false
		}
	}
	return true
}

func envPlain(v string) bool {
	for _, c := range v {
		if !strings.ContainsRune(alnum+"_./:@+=-,%?&", c) {
			return false
		}
	}
	return v != ""
}

// assign writes key = pre+secret+post in kind k's syntax; g chooses among
// equivalent quotings. top says whether the line is at the top level of
// a code file (a const) or inside a function (a local).
func assign(g *gen, k FileKind, key []string, pre string, s piece, post string, top bool) []piece {
	full := pre + s.s + post
	check := func(bad string) {
		if strings.ContainsAny(s.s, bad) {
			panic(fmt.Sprintf("secretstest: %s value %q cannot be written verbatim", k, s.s))
		}
	}
	wrap := func(a, b string) []piece { return []piece{tx(a + pre), s, tx(post + b)} }
	name := words(k, key)
	switch k {
	case KindEnv:
		check("\"\\$`")
		if envPlain(full) && g.chance(0.5) {
			return wrap(name+"=", "")
		}
		return wrap(name+"=\"", "\"")
	case KindShell:
		check("'")
		if envPlain(full) && g.chance(0.3) {
			return wrap("export "+name+"=", "")
		}
		return wrap("export "+name+"='", "'")
	case KindYAML:
		switch {
		case yamlPlain(full) && g.chance(0.6):
			return wrap(name+": ", "")
		case !strings.ContainsAny(full, "\"\\"):
			return wrap(name+": \"", "\"")
		}
		check("'")
		return wrap(name+": '", "'")
	case KindJSON:
		check("\"\\")
		return wrap("\""+name+"\": \"", "\"")
	case KindTOML:
		if !strings.ContainsAny(full, "'") && g.chance(0.3) {
			return wrap(name+" = '", "'")
		}
		check("\"\\")
		return wrap(name+" = \"", "\"")
	case KindINI:
		check(";#")
		return wrap(name+" = ", "")
	case KindProperties:
		check("\\")
		return wrap(name+"=", "")
	case KindXML:
		check("<&")
		return []piece{tx("<" + name + ">" + xmlText(pre)), s, tx(xmlText(post) + "</" + name + ">")}
	case KindGo:
		q := "\""
		if strings.ContainsAny(full, "\"\\") {
			check("`")
			q = "`"
		}
		if top {
			return wrap("const "+name+" = "+q, q)
		}
		return wrap(name+" := "+q, q+"\n_ = "+name)
	case KindPython:
		q := g.pick("\"", "'")
		if strings.ContainsAny(full, q+"\\") {
			q = "\"\"\""
		}
		if top {
			name = strings.ToUpper(name)
		}
		return wrap(name+" = "+q, q)
	case KindJS:
		q := g.pick("\"", "'")
		if strings.ContainsAny(full, q+"\\") {
			check("`")
			q = "`"
		}
		kw := "const "
		if top && g.chance(0.5) {
			kw = "export const "
		}
		return wrap(kw+name+" = "+q, q+";")
	}
	panic("secretstest: no assignment syntax for " + string(k))
}

// comment returns kind k's line comment prefix ("" when it has none).
func comment(k FileKind) string {
	switch k {
	case KindEnv, KindYAML, KindTOML, KindShell, KindPython, KindProperties:
		return "# "
	case KindINI:
		return "; "
	case KindGo, KindJS:
		return "// "
	}
	return ""
}

// allowComments are the inline allow comments of common scanners; ctxd
// ignores them.
var allowComments = []string{"gitleaks:allow", "pragma: allowlist secret", "nosec", "trufflehog:ignore", "noqa: S105", "detect-secrets: ignore"}

// withAllow appends an inline allow comment to a one-line assignment
// where kind k has end-of-line comments.
func withAllow(g *gen, k FileKind, ps []piece) []piece {
	var c string
	switch k {
	case KindEnv, KindYAML, KindTOML, KindShell, KindPython:
		c = "  # " + g.pick(allowComments...)
	case KindGo, KindJS:
		c = " // " + g.pick(allowComments...)
	default:
		return ps
	}
	last := &ps[len(ps)-1]
	if i := strings.IndexByte(last.s, '\n'); i >= 0 {
		last.s = last.s[:i] + c + last.s[i:]
	} else {
		last.s += c
	}
	for i := range ps {
		if ps[i].secret {
			ps[i].variant += "+allow-comment"
		}
	}
	return ps
}

// neutral writes a prefixed value where no key names it: a list item, a
// call argument, a command-line flag, or a comment.
func neutral(g *gen, k FileKind, s piece) snip {
	if c := comment(k); c != "" && g.chance(0.15) {
		s.variant = "comment"
		return snip{pieces: []piece{tx(c + g.pick("previous value: ", "rotated 2024-03-01, old: ", "TODO remove ")), s}, body: k.IsCode() || k == KindShell}
	}
	s.variant = "neutral"
	ps := func(a, b string) []piece { return []piece{tx(a), s, tx(b)} }
	switch k {
	case KindEnv:
		return snip{pieces: ps(g.pick("UPSTREAM_ARGS=\"--remote ", "PRIMARY=\"")+"", "\"")}
	case KindYAML:
		return snip{pieces: ps("remotes:\n  - name: primary\n    value: ", "\n  - name: fallback\n    value: none")}
	case KindJSON:
		return snip{pieces: ps("\"remotes\": [\"", "\", \"https://mirror.example.com\"]")}
	case KindTOML:
		return snip{pieces: ps("args = [\"--remote\", \"", "\", \"--verbose\"]")}
	case KindINI:
		return snip{pieces: ps("[remote \"primary\"]\nvalue = ", "")}
	case KindProperties:
		return snip{pieces: ps("remote.primary.value=", "")}
	case KindXML:
		return snip{pieces: ps("<param name=\"primary\" value=\"", "\" />")}
	case KindGo:
		return snip{pieces: ps("client := dial(\"", "\")\n_ = client"), body: true}
	case KindPython:
		return snip{pieces: ps("client = connect(\"", "\", timeout=30)"), body: true}
	case KindJS:
		return snip{pieces: ps("const client = connect(\"", "\", { timeout: 30 });"), body: true}
	case KindShell:
		return snip{pieces: ps("deploy-cli login --with \"", "\" --region eu-west-1"), body: true}
	}
	panic("secretstest: no neutral syntax for " + string(k))
}

// multiline writes a value holding newlines (a private key block) in kind
// k: verbatim in a multi-line string where the kind has one, else with
// escaped newlines (\n) on one line, as JSON does.
func multiline(g *gen, k FileKind, key []string, v val, top bool) []piece {
	escaped := func() piece {
		e := strings.ReplaceAll(v.v, "\n", `\n`)
		cs := len(strings.ReplaceAll(v.v[:v.cs], "\n", `\n`))
		ce := len(strings.ReplaceAll(v.v[:v.ce], "\n", `\n`))
		return piece{s: e, secret: true, variant: "escaped-newlines", cs: cs, ce: ce}
	}
	raw := piece{s: v.v, secret: true, variant: "multiline", cs: v.cs, ce: v.ce}
	name := words(k, key)
	switch k {
	case KindEnv:
		if g.chance(0.5) {
			return []piece{tx(name + "=\""), escaped(), tx("\"")}
		}
		return []piece{tx(name + "=\""), raw, tx("\"")}
	case KindShell:
		return []piece{tx("cat > \"$HOME/.ssh/" + strings.ToLower(name) + "\" <<'EOF'\n"), raw, tx("\nEOF\nchmod 600 \"$HOME/.ssh/" + strings.ToLower(name) + "\"")}
	case KindYAML:
		if g.chance(0.3) {
			return []piece{tx(name + ": \""), escaped(), tx("\"")}
		}
		ind := strings.ReplaceAll(v.v, "\n", "\n  ")
		p := piece{s: ind, secret: true, variant: "block-scalar", cs: len(strings.ReplaceAll(v.v[:v.cs], "\n", "\n  ")), ce: len(strings.ReplaceAll(v.v[:v.ce], "\n", "\n  "))}
		return []piece{tx(name + ": |\n  "), p}
	case KindJSON:
		return []piece{tx("\"" + name + "\": \""), escaped(), tx("\\n\"")}
	case KindTOML:
		return []piece{tx(name + " = '''\n"), raw, tx("\n'''")}
	case KindINI:
		return []piece{tx(name + " = "), escaped()}
	case KindProperties:
		return []piece{tx(name + "="), escaped()}
	case KindXML:
		return []piece{tx("<" + name + ">\n"), raw, tx("\n</" + name + ">")}
	case KindGo:
		if !top {
			return []piece{tx(name + " := \""), escaped(), tx("\\n\"\n_ = " + name)}
		}
		return []piece{tx("const " + name + " = `"), raw, tx("\n`")}
	case KindPython:
		if !top {
			return []piece{tx(name + " = \""), escaped(), tx("\\n\"")}
		}
		return []piece{tx(strings.ToUpper(name) + " = \"\"\"\\\n"), raw, tx("\n\"\"\"")}
	case KindJS:
		if !top {
			return []piece{tx("const " + name + " = \""), escaped(), tx("\\n\";")}
		}
		return []piece{tx("export const " + name + " = `"), raw, tx("\n`;")}
	}
	panic("secretstest: no multi-line syntax for " + string(k))
}

// defaultPlace writes sample i of a prefixed type: keyed first, neutral
// (or inside the function, for code) second.
func defaultPlace(g *gen, td *typeDef, k FileKind, i int) snip {
	if td.pemValue != nil {
		v := td.pemValue(g)
		top := i == 0 || !(k.IsCode())
		ps := multiline(g, k, td.key, v, top)
		return snip{pieces: ps, body: !top}
	}
	v := td.value(g, k)
	if i == 0 {
		ps := assign(g, k, td.key, "", sec(v, "assignment"), "", true)
		if g.chance(0.25) {
			ps = withAllow(g, k, ps)
		}
		return snip{pieces: ps}
	}
	return neutral(g, k, sec(v, ""))
}

// ---------------------------------------------------------------------
// Contextual placements.

func placeServiceAccount(g *gen, td *typeDef, k FileKind, i int) snip {
	key := g.pkcs8PEM()
	esc := strings.ReplaceAll(key.v, "\n", `\n`)
	cs := len(strings.ReplaceAll(key.v[:key.cs], "\n", `\n`))
	ce := len(strings.ReplaceAll(key.v[:key.ce], "\n", `\n`))
	project := g.pick("acme-prod", "billing-3417", "data-lake-eu")
	email := g.pick("deployer", "ci", "etl") + "@" + project + ".iam.gserviceaccount.com"
	pre := fmt.Sprintf(`{"type": "service_account", "project_id": "%s", "private_key_id": "%s", "private_key": "`, project, g.str(hexLower, 40))
	post := fmt.Sprintf(`\n", "client_email": "%s", "client_id": "%s", "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": "https://oauth2.googleapis.com/token"}`, email, g.str(digits, 21))
	s := piece{s: esc, secret: true, variant: "service-account-json", cs: cs, ce: ce}
	multi := strings.ReplaceAll(pre, ", ", ",\n  ")
	multi = strings.Replace(multi, "{", "{\n  ", 1)
	multiPost := strings.ReplaceAll(post, ", ", ",\n  ")
	multiPost = strings.TrimSuffix(multiPost, "}") + "\n}"
	switch k {
	case KindJSON:
		return snip{pieces: []piece{tx(strings.TrimPrefix(multi, "{\n  ")), s, tx(strings.TrimSuffix(multiPost, "\n}"))}}
	case KindEnv:
		return snip{pieces: []piece{tx("GOOGLE_CREDENTIALS='" + pre), s, tx(post + "'")}}
	case KindShell:
		return snip{pieces: []piece{tx("cat > /tmp/gcp.json <<'EOF'\n" + multi), s, tx(multiPost + "\nEOF\nexport GOOGLE_APPLICATION_CREDENTIALS=/tmp/gcp.json")}}
	case KindYAML:
		ind := func(x string) string { return strings.ReplaceAll(x, "\n", "\n    ") }
		return snip{pieces: []piece{tx("stringData:\n  key.json: |\n    " + ind(multi)), s, tx(ind(multiPost))}}
	case KindTOML:
		return snip{pieces: []piece{tx("credentials_json = '''\n" + multi), s, tx(multiPost + "\n'''")}}
	case KindINI, KindProperties:
		sep := " = "
		if k == KindProperties {
			sep = "="
		}
		return snip{pieces: []piece{tx("gcp.credentials" + sep + pre), s, tx(post)}}
	case KindXML:
		return snip{pieces: []piece{tx("<credentials type=\"gcp\">\n" + multi), s, tx(multiPost + "\n</credentials>")}}
	case KindGo:
		return snip{pieces: []piece{tx("const serviceAccount = `" + multi), s, tx(multiPost + "`")}}
	case KindPython:
		return snip{pieces: []piece{tx("SERVICE_ACCOUNT = r'''" + multi), s, tx(multiPost + "'''")}}
	case KindJS:
		return snip{pieces: []piece{tx("export const serviceAccount = String.raw`" + multi), s, tx(multiPost + "`;")}}
	}
	panic("unreachable")
}

// ctxKeyed writes a contextual value under one of keys (word lists),
// top-level for sample 0 and inside the function for code kinds' sample 1.
func ctxKeyed(g *gen, k FileKind, i int, keys [][]string, pre string, s piece, post string) snip {
	key := keys[g.intn(len(keys))]
	if i == 1 && !k.IsCode() {
		// Two samples of a configuration file never share a key.
		key = append([]string{"fallback"}, key...)
	}
	top := i == 0 || !k.IsCode()
	ps := assign(g, k, key, pre, s, post, top)
	if i == 0 && g.chance(0.2) {
		ps = withAllow(g, k, ps)
	}
	return snip{pieces: ps, body: !top}
}

func placeAWSSecret(g *gen, td *typeDef, k FileKind, i int) snip {
	v := plain(g.mixed(b64Std, 40))
	if i == 0 {
		s := sec(v, "assignment")
		if k == KindINI && g.chance(0.5) {
			return snip{pieces: []piece{tx("[default]\nregion = eu-west-1\naws_secret_access_key = "), s}}
		}
		return ctxKeyed(g, k, i, [][]string{{"aws", "secret", "access", "key"}, {"aws", "secret", "key"}, {"secret", "access", "key"}}, "", s, "")
	}
	// The key id next to it, as SDK code and config files hold them.
	id := prefixed("AKIA", g.mixed(base32A, 16))
	idp := piece{s: id.v, secret: true, typ: "aws-access-key-id", variant: "with-secret", cs: id.cs, ce: id.ce}
	s := sec(v, "sdk")
	switch k {
	case KindGo:
		return snip{pieces: []piece{tx("creds := credentials.NewStaticCredentialsProvider(\""), idp, tx("\", \""), s, tx("\", \"\")\n_ = creds")}, body: true}
	case KindPython:
		return snip{pieces: []piece{tx("s3 = boto3.client(\n    \"s3\",\n    aws_access_key_id=\""), idp, tx("\",\n    aws_secret_access_key=\""), s, tx("\",\n)")}, body: true}
	case KindJS:
		return snip{pieces: []piece{tx("const s3 = new S3Client({\n  region: \"eu-west-1\",\n  credentials: { accessKeyId: \""), idp, tx("\", secretAccessKey: \""), s, tx("\" },\n});")}, body: true}
	case KindShell:
		return snip{pieces: []piece{tx("aws configure set aws_access_key_id "), idp, tx("\naws configure set aws_secret_access_key "), s}, body: true}
	case KindYAML:
		return snip{pieces: []piece{tx("aws:\n  accessKeyId: "), idp, tx("\n  secretAccessKey: "), s}}
	case KindJSON:
		return snip{pieces: []piece{tx("\"aws\": {\"accessKeyId\": \""), idp, tx("\", \"secretAccessKey\": \""), s, tx("\"}")}}
	case KindXML:
		return snip{pieces: []piece{tx("<add key=\"AWSAccessKey\" value=\""), idp, tx("\" />\n<add key=\"AWSSecretKey\" value=\""), s, tx("\" />")}}
	case KindProperties:
		return snip{pieces: []piece{tx("cloud.aws.credentials.access-key="), idp, tx("\ncloud.aws.credentials.secret-key="), s}}
	case KindTOML:
		return snip{pieces: []piece{tx("[s3]\naccess_key_id = \""), idp, tx("\"\nsecret_access_key = \""), s, tx("\"")}}
	case KindINI:
		return snip{pieces: []piece{tx("[profile deploy]\naws_access_key_id = "), idp, tx("\naws_secret_access_key = "), s}}
	case KindEnv:
		return snip{pieces: []piece{tx("AWS_ACCESS_KEY_ID="), idp, tx("\nAWS_SECRET_ACCESS_KEY="), s}}
	}
	panic("unreachable")
}

func placeAWSSession(g *gen, td *typeDef, k FileKind, i int) snip {
	v := prefixed(g.pick("IQoJb3JpZ2luX2Vj", "FwoGZXIvYXdzE"), g.mixed(b64Std, g.between(300, 420))+g.pick("", "=", "=="))
	return ctxKeyed(g, k, i, [][]string{{"aws", "session", "token"}, {"session", "token"}, {"aws", "security", "token"}}, "", sec(v, "assignment"), "")
}

func placeAzureStorage(g *gen, td *typeDef, k FileKind, i int) snip {
	key := plain(base64.StdEncoding.EncodeToString(g.bytes(64)))
	acct := g.pick("acmeprodstore", "billinglogs01", "mediaassets")
	pre := "DefaultEndpointsProtocol=https;AccountName=" + acct + ";AccountKey="
	post := ";EndpointSuffix=core.windows.net"
	if i == 1 && g.chance(0.5) {
		pre = "AccountName=" + acct + ";AccountKey="
		post = ""
	}
	return ctxKeyed(g, k, i, [][]string{{"storage", "connection"}, {"azure", "storage"}, {"blob", "connection", "string"}}, pre, sec(val{v: key.v, cs: 0, ce: len(key.v)}, "connection-string"), post)
}

func placeAzureSAS(g *gen, td *typeDef, k FileKind, i int) snip {
	raw := base64.StdEncoding.EncodeToString(g.bytes(32))
	sig := strings.NewReplacer("+", "%2B", "/", "%2F", "=", "%3D").Replace(raw)
	q := fmt.Sprintf("sv=2022-11-02&ss=%s&srt=sco&sp=%s&se=2026-%02d-%02dT%02d:00:00Z&st=2025-01-01T00:00:00Z&spr=https&sig=",
		g.pick("b", "bfqt"), g.pick("rl", "rwdlacupiytfx"), g.between(1, 12), g.between(1, 28), g.between(0, 23))
	pre := "https://" + g.pick("acmeprodstore", "mediaassets") + ".blob.core.windows.net/" + g.pick("exports", "uploads") + "?" + q
	if i == 1 {
		pre = "BlobEndpoint=https://mediaassets.blob.core.windows.net/;SharedAccessSignature=" + q
	}
	return ctxKeyed(g, k, i, [][]string{{"blob", "url"}, {"export", "sas", "url"}, {"storage", "endpoint"}}, pre, sec(plain(sig), "sas"), "")
}

func placeServiceBus(g *gen, td *typeDef, k FileKind, i int) snip {
	key := base64.StdEncoding.EncodeToString(g.bytes(32))
	pre := "Endpoint=sb://" + g.pick("orders-ns", "events-prod") + ".servicebus.windows.net/;SharedAccessKeyName=" + g.pick("RootManageSharedAccessKey", "send-only") + ";SharedAccessKey="
	post := ""
	if g.chance(0.5) {
		post = ";EntityPath=" + g.pick("orders", "telemetry")
	}
	return ctxKeyed(g, k, i, [][]string{{"servicebus", "connection"}, {"event", "hub", "connection"}, {"bus", "endpoint"}}, pre, sec(plain(key), "connection-string"), post)
}

func placeCohere(g *gen, td *typeDef, k FileKind, i int) snip {
	v := plain(g.mixed(alnum, 40))
	if i == 0 {
		return ctxKeyed(g, k, i, [][]string{{"cohere", "api", "key"}, {"co", "api", "key"}, {"cohere", "key"}}, "", sec(v, "assignment"), "")
	}
	s := sec(v, "client")
	switch k {
	case KindGo:
		return snip{pieces: []piece{tx("co := cohereclient.NewClient(option.WithToken(\""), s, tx("\"))\n_ = co")}, body: true}
	case KindPython:
		return snip{pieces: []piece{tx("co = cohere.ClientV2(\""), s, tx("\")")}, body: true}
	case KindJS:
		return snip{pieces: []piece{tx("const cohere = new CohereClient({ token: \""), s, tx("\" });")}, body: true}
	}
	return ctxKeyed(g, k, i, [][]string{{"cohere", "token"}, {"cohere", "secret"}}, "", s, "")
}

func placeConnString(g *gen, td *typeDef, k FileKind, i int) snip {
	pw := g.password(k)
	for strings.ContainsAny(pw, ";{}=") {
		pw = g.password(k)
	}
	var pre, post string
	switch g.intn(4) {
	case 0:
		pre = fmt.Sprintf("Server=tcp:%s.database.windows.net,1433;Initial Catalog=%s;User ID=%s;Password=", g.pick("sql-prod", "orders-db"), g.pick("app", "orders"), g.pick(userList...))
		post = ";Encrypt=True;TrustServerCertificate=False;Connection Timeout=30;"
	case 1:
		pre = fmt.Sprintf("Host=%s;Port=5432;Database=%s;Username=%s;Password=", g.pick(hostList...), g.pick("app", "orders"), g.pick(userList...))
	case 2:
		pre = fmt.Sprintf("Driver={ODBC Driver 18 for SQL Server};Server=%s;Database=%s;Uid=%s;Pwd=", g.pick(hostList...), g.pick("app", "crm"), g.pick(userList...))
		post = ";"
	default:
		pre = fmt.Sprintf("Data Source=%s;Initial Catalog=%s;User Id=%s;Password=", g.pick(hostList...), g.pick("app", "crm"), g.pick(userList...))
		post = ";MultipleActiveResultSets=true"
	}
	if k == KindXML && i == 1 {
		s := sec(plain(pw), "web.config")
		return snip{pieces: []piece{tx("<connectionStrings>\n  <add name=\"Default\" connectionString=\"" + xmlAttr(pre)), s, tx(xmlAttr(post) + "\" providerName=\"System.Data.SqlClient\" />\n</connectionStrings>")}}
	}
	return ctxKeyed(g, k, i, [][]string{{"connection", "string"}, {"db", "connection"}, {"sql", "dsn"}}, pre, sec(plain(pw), "connection-string"), post)
}

// urlSchemes are the schemes of url-credentials, with a host and path
// suffix each.
var urlSchemes = []struct{ scheme, rest string }{
	{"postgres", "@%s:5432/app?sslmode=require"},
	{"postgresql", "@%s/orders"},
	{"mysql", "@%s:3306/shop"},
	{"mongodb", "@%s:27017,mongo-2.internal:27017/app?replicaSet=rs0"},
	{"mongodb+srv", "@cluster0.ab1cd.mongodb.net/app?retryWrites=true&w=majority"},
	{"redis", "@%s:6379/0"},
	{"rediss", "@%s:6380"},
	{"amqp", "@%s:5672/vhost"},
	{"amqps", "@%s:5671"},
	{"https", "@registry.example.com/v2/"},
	{"http", "@proxy.corp.example.com:3128"},
	{"ftp", "@files.example.com/pub/"},
	{"sftp", "@%s:22/upload"},
	{"smtp", "@smtp.example.com:587"},
	{"ldaps", "@ldap.example.com:636"},
	{"git+https", "@git.example.com/team/repo.git"},
	{"jdbc:mysql", "@%s:3306/inventory"},
	{"socks5", "@proxy.example.net:1080"},
	{"nats", "@%s:4222"},
	{"sqlserver", "@%s:1433?database=crm"},
}

func placeURL(g *gen, td *typeDef, k FileKind, i int) snip {
	u := urlSchemes[g.intn(len(urlSchemes))]
	user := g.pick(userList...)
	if strings.HasPrefix(u.scheme, "redis") && g.chance(0.5) {
		user = ""
	}
	rest := u.rest
	if strings.Contains(rest, "%s") {
		rest = fmt.Sprintf(rest, g.pick(hostList...))
	}
	pw := g.urlPassword(k)
	pre := u.scheme + "://" + user + ":"
	s := sec(plain(pw), u.scheme)
	if i == 0 {
		return ctxKeyed(g, k, i, [][]string{{"database", "url"}, {"broker", "url"}, {"dsn"}, {"upstream"}, {"mirror"}}, pre, s, rest)
	}
	ps := func(a, b string) snip {
		return snip{pieces: []piece{tx(a + pre), s, tx(rest + b)}, body: k.IsCode() || k == KindShell}
	}
	switch k {
	case KindGo:
		return ps("db, err := sql.Open(\"pgx\", \"", "\")\n_, _ = db, err")
	case KindPython:
		return ps("engine = create_engine(\"", "\", pool_pre_ping=True)")
	case KindJS:
		return ps("const pool = new Pool({ connectionString: \"", "\" });")
	case KindShell:
		return ps("psql \"", "\" -c 'select 1'")
	case KindYAML:
		return ps("spring:\n  datasource:\n    url: \"", "\"")
	case KindJSON:
		return ps("\"cache\": {\"url\": \"", "\", \"ttl\": 300}")
	case KindXML:
		return snip{pieces: []piece{tx("<add key=\"BrokerUrl\" value=\"" + xmlAttr(pre)), s, tx(xmlAttr(rest) + "\" />")}}
	case KindTOML:
		return ps("[cache]\nurl = \"", "\"")
	case KindINI:
		return ps("[cache]\nurl = ", "")
	case KindProperties:
		return ps("spring.rabbitmq.addresses=", "")
	case KindEnv:
		return ps("CELERY_BROKER_URL=", "")
	}
	panic("unreachable")
}

// headerForms writes an Authorization header value (scheme + token) in
// kind k; form 0 or 1.
func headerForms(g *gen, k FileKind, i int, scheme string, s piece) snip {
	h := g.pick("Authorization", "Authorization", "authorization")
	ps := func(a, b string, body bool) snip {
		return snip{pieces: []piece{tx(a + scheme + " "), s, tx(b)}, body: body}
	}
	switch k {
	case KindEnv:
		if i == 0 {
			return ps("API_HEADERS=\""+h+": ", "\"", false)
		}
		return ps("CURL_ARGS='-H \""+h+": ", "\"'", false)
	case KindShell:
		if i == 0 {
			return ps("curl -sSf -H \""+h+": ", "\" https://api.example.com/v1/deploy", false)
		}
		return ps("wget -q --header=\""+h+": ", "\" -O - https://api.example.com/v1/status", true)
	case KindYAML:
		if i == 0 {
			return ps("headers:\n  "+h+": ", "", false)
		}
		return ps("httpHeaders:\n  - name: "+h+"\n    value: ", "", false)
	case KindJSON:
		if i == 0 {
			return ps("\"headers\": {\""+h+"\": \"", "\"}", false)
		}
		return ps("\"header\": [{\"key\": \""+h+"\", \"value\": \"", "\", \"type\": \"text\"}]", false)
	case KindTOML:
		if i == 0 {
			return ps("[http.headers]\n"+h+" = \"", "\"", false)
		}
		return ps("headers = { "+h+" = \"", "\" }", false)
	case KindINI:
		if i == 0 {
			return ps("[headers]\n"+h+" = ", "", false)
		}
		return ps("auth_header = "+h+": ", "", false)
	case KindProperties:
		if i == 0 {
			return ps("http.headers."+h+"=", "", false)
		}
		return ps("feign.client.config.default.default-request-headers."+h+"=", "", false)
	case KindXML:
		if i == 0 {
			return ps("<header name=\""+h+"\">", "</header>", false)
		}
		return ps("<add name=\""+h+"\" value=\"", "\" />", false)
	case KindGo:
		if i == 0 {
			return ps("var defaultHeaders = map[string]string{\""+h+"\": \"", "\"}", false)
		}
		return ps("req.Header.Set(\""+h+"\", \"", "\")", true)
	case KindPython:
		if i == 0 {
			return ps("HEADERS = {\""+h+"\": \"", "\"}", false)
		}
		return ps("session.headers.update({'"+h+"': '", "'})", true)
	case KindJS:
		if i == 0 {
			return ps("export const headers = { "+h+": \"", "\" };", false)
		}
		return ps("xhr.setRequestHeader(\""+h+"\", \"", "\");", true)
	}
	panic("unreachable")
}

func placeBearer(g *gen, td *typeDef, k FileKind, i int) snip {
	var v string
	switch g.intn(3) {
	case 0:
		v = g.mixed(alnum+"-._~", g.between(32, 64))
	case 1:
		v = g.str(hexLower, 40)
	default:
		v = g.mixed(b64Std, g.between(40, 60)) + g.pick("", "=")
	}
	scheme := "Bearer"
	if g.chance(0.15) {
		scheme = "token"
	}
	return headerForms(g, k, i, scheme, sec(plain(v), "header"))
}

func placeBasic(g *gen, td *typeDef, k FileKind, i int) snip {
	cred := g.pick(userList...) + ":" + g.password(KindJSON)
	v := base64.StdEncoding.EncodeToString([]byte(cred))
	return headerForms(g, k, i, "Basic", sec(plain(v), "header"))
}

// vendorKeyed places a value recognized by a vendor's key name: sample 0
// under key0, sample 1 under key1 (inside the function in code).
func vendorKeyed(value func(*gen) string, key0, key1 []string) func(*gen, *typeDef, FileKind, int) snip {
	return func(g *gen, td *typeDef, k FileKind, i int) snip {
		key := key0
		if i == 1 {
			key = key1
		}
		return ctxKeyed(g, k, i, [][]string{key}, "", sec(plain(value(g)), "assignment"), "")
	}
}

func placeDiscordBot(g *gen, td *typeDef, k FileKind, i int) snip {
	id := fmt.Sprint(g.between(100_000_000, 999_999_999)) + g.str(digits, 9)
	v := plain(base64.RawStdEncoding.EncodeToString([]byte(id)) + "." + g.mixed(alnum+"_-", 6) + "." + g.mixed(alnum+"_-", 38))
	if i == 0 {
		return ctxKeyed(g, k, i, [][]string{{"discord", "token"}, {"discord", "bot", "token"}, {"bot", "token"}}, "", sec(v, "assignment"), "")
	}
	s := sec(v, "client")
	switch k {
	case KindGo:
		return snip{pieces: []piece{tx("dg, err := discordgo.New(\"Bot "), s, tx("\")\n_, _ = dg, err")}, body: true}
	case KindPython:
		return snip{pieces: []piece{tx("client.run(\""), s, tx("\")")}, body: true}
	case KindJS:
		return snip{pieces: []piece{tx("client.login(\""), s, tx("\");")}, body: true}
	}
	return ctxKeyed(g, k, i, [][]string{{"discord", "bot"}, {"bot", "secret"}}, "", s, "")
}

func placeQueryCredential(g *gen, td *typeDef, k FileKind, i int) snip {
	param := g.pick("access_token", "token", "api_key", "apikey", "key_secret", "auth", "password", "client_secret", "sig_token")
	v := plain(g.mixed(alnum+"-._~", g.between(24, 48)))
	pre := "https://" + g.pick("api.example.com/v1/report", "hooks.example.net/ingest", "metrics.example.org/push") + "?" + g.pick("format=csv&", "", "region=eu&") + param + "="
	post := g.pick("", "&limit=100", "&ts=1718000000")
	s := sec(v, "query")
	if i == 1 && (k.IsCode() || k == KindShell) {
		switch k {
		case KindGo:
			return snip{pieces: []piece{tx("resp, err := http.Get(\"" + pre), s, tx(post + "\")\n_, _ = resp, err")}, body: true}
		case KindPython:
			return snip{pieces: []piece{tx("resp = requests.get(\"" + pre), s, tx(post + "\")")}, body: true}
		case KindJS:
			return snip{pieces: []piece{tx("const resp = await fetch(\"" + pre), s, tx(post + "\");")}, body: true}
		case KindShell:
			return snip{pieces: []piece{tx("curl -fsS \"" + pre), s, tx(post + "\"")}, body: true}
		}
	}
	return ctxKeyed(g, k, i, [][]string{{"report", "url"}, {"webhook", "endpoint"}, {"ingest", "url"}}, pre, s, post)
}

func placeCLIFlag(g *gen, td *typeDef, k FileKind, i int) snip {
	v := g.cliPassword(k)
	flag := g.pick("--password", "--token", "--api-key", "--secret", "--registry-password", "--auth-token")
	sep := g.pick(" ", "=")
	cmd := g.pick("helm repo add internal https://charts.example.com --username ci ", "acme-cli deploy --env prod ", "vault-sync push --address https://vault.example.com ", "gh-release publish --repo acme/api ")
	return commandIn(k, i, cmd+flag+sep, sec(plain(v), "flag"), "")
}

// embedded writes a small configuration file (pre+secret+post, holding
// newlines) inside kind k: a multi-line string where the kind has one,
// else one line with escaped newlines.
func embedded(k FileKind, key []string, pre string, s piece, post string, body bool) snip {
	name := words(k, key)
	esc := func(x string) string { return strings.ReplaceAll(strings.ReplaceAll(x, "\"", "\\\""), "\n", "\\n") }
	p := func(a, b string) snip { return snip{pieces: []piece{tx(a), s, tx(b)}, body: body} }
	switch k {
	case KindEnv:
		return p(name+"='"+pre, post+"'")
	case KindShell:
		return p("cat > \"$HOME/."+strings.ToLower(name)+"\" <<'EOF'\n"+pre, post+"\nEOF")
	case KindYAML:
		ind := func(x string) string { return strings.ReplaceAll(x, "\n", "\n  ") }
		return p(name+": |\n  "+ind(pre), ind(post))
	case KindJSON:
		return p("\""+name+"\": \""+esc(pre), esc(post)+"\"")
	case KindTOML:
		return p(name+" = '''\n"+pre, post+"\n'''")
	case KindINI:
		return p(name+" = "+strings.ReplaceAll(pre, "\n", "\n    "), strings.ReplaceAll(post, "\n", "\n    "))
	case KindProperties:
		return p(name+"="+strings.ReplaceAll(pre, "\n", "\\n"), strings.ReplaceAll(post, "\n", "\\n"))
	case KindXML:
		return p("<"+name+">"+xmlText(pre), xmlText(post)+"</"+name+">")
	case KindGo:
		if body {
			return p(name+" := `"+pre, post+"`\n_ = "+name)
		}
		return p("const "+name+" = `"+pre, post+"`")
	case KindPython:
		return p(name+" = \"\"\""+pre, post+"\"\"\"")
	case KindJS:
		return p("const "+name+" = `"+pre, post+"`;")
	}
	panic("unreachable")
}

func placeNetrc(g *gen, td *typeDef, k FileKind, i int) snip {
	v := g.passwordFor(k, "'\"\\`$ ")
	host := g.pick("api.heroku.com", "git.example.com", "ftp.example.org", "artifacts.example.net")
	pre := "machine " + host + "\n  login " + g.pick(userList...) + "\n  password "
	if g.chance(0.5) {
		pre = "machine " + host + " login " + g.pick(userList...) + " password "
	}
	key := []string{"netrc"}
	if i == 1 {
		key = []string{"deploy", "netrc"}
	}
	return embedded(k, key, pre, sec(plain(v), "netrc"), "\n", i == 1 && k.IsCode())
}

func placeNpmrc(g *gen, td *typeDef, k FileKind, i int) snip {
	var pre, v string
	switch g.intn(3) {
	case 0:
		pre = "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken="
		v = g.mixed(alnum, 36)
	case 1:
		pre = "@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken="
		v = g.mixed(alnum+"-", 40)
	default:
		pre = "registry=https://nexus.example.com/repository/npm/\n_auth="
		v = base64.StdEncoding.EncodeToString([]byte(g.pick(userList...) + ":" + g.password(KindJSON)))
	}
	key := []string{"npmrc"}
	if i == 1 {
		key = []string{"ci", "npmrc"}
	}
	return embedded(k, key, pre, sec(plain(v), "npmrc"), "\nalways-auth=true\n", i == 1 && k.IsCode())
}

func placeDockerConfig(g *gen, td *typeDef, k FileKind, i int) snip {
	v := base64.StdEncoding.EncodeToString([]byte(g.pick(userList...) + ":" + g.password(KindJSON)))
	pre := "{\n  \"auths\": {\n    \"" + g.pick("registry.example.com", "ghcr.io", "https://index.docker.io/v1/") + "\": {\n      \"auth\": \""
	post := "\"\n    }\n  }\n}\n"
	key := []string{"docker", "config"}
	if i == 1 {
		key = []string{"ci", "docker", "config"}
	}
	return embedded(k, key, pre, sec(plain(v), "docker-config"), post, i == 1 && k.IsCode())
}

// commandIn writes a command line (pre+secret+post, one line) in kind k:
// a shell line, a string literal run by code, or a command in a
// configuration file, escaped as the syntax requires (the secret never
// needs escaping).
func commandIn(k FileKind, i int, pre string, s piece, post string) snip {
	dq := func(x string) string { return strings.ReplaceAll(strings.ReplaceAll(x, `\`, `\\`), `"`, `\"`) }
	p := func(a, b string, body bool) snip { return snip{pieces: []piece{tx(a), s, tx(b)}, body: body} }
	// The two samples of a file get distinct names.
	task, name := "setup", words(k, []string{"setup", "cmd"})
	if i == 1 {
		task, name = "migrate", words(k, []string{"migrate", "cmd"})
	}
	switch k {
	case KindShell:
		return p(pre, post, i == 1)
	case KindGo:
		if i == 1 {
			return p("cmd := exec.Command(\"sh\", \"-c\", \""+dq(pre), dq(post)+"\")\n_ = cmd", true)
		}
		return p("const "+name+" = \""+dq(pre), dq(post)+"\"", false)
	case KindPython:
		return p("subprocess.run(\""+dq(pre), dq(post)+"\", shell=True, check=True)", i == 1)
	case KindJS:
		return p("execSync(\""+dq(pre), dq(post)+"\");", i == 1)
	case KindYAML:
		return p(task+":\n  steps:\n    - run: |\n        "+pre, post, false)
	case KindJSON:
		return p("\"scripts-"+task+"\": {\""+task+"\": \""+dq(pre), dq(post)+"\"}", false)
	case KindTOML:
		return p("[tasks."+task+"]\ncmd = '''"+pre, post+"'''", false)
	case KindINI:
		return p("[program:"+task+"]\ncommand = "+pre, post, false)
	case KindProperties:
		return p("deploy."+task+".command="+pre, post, false)
	case KindXML:
		return p("<command name=\""+task+"\">"+xmlText(pre), xmlText(post)+"</command>", false)
	case KindEnv:
		return p(name+"=\""+dq(pre), dq(post)+"\"", false)
	}
	panic("unreachable")
}

// cliPassword returns a password that a command line in kind k holds
// unquoted.
func (g *gen) cliPassword(k FileKind) string {
	return g.passwordFor(k, "'\"\\`$ ;&|<>()#{}*?[]!~%")
}

func placeMySQLCLI(g *gen, td *typeDef, k FileKind, i int) snip {
	v := g.cliPassword(k)
	tool := g.pick("mysql", "mysqldump", "mysqladmin", "mariadb")
	pre := tool + " -u " + g.pick(userList...) + " -p"
	post := " -h " + g.pick(hostList...) + " shop"
	if g.chance(0.5) {
		pre = tool + " -uroot -p'"
		post = "' shop"
	}
	return commandIn(k, i, pre, sec(plain(v), "mysql-cli"), post)
}

func placeRegistryLogin(g *gen, td *typeDef, k FileKind, i int) snip {
	v := g.cliPassword(k)
	tool := g.pick("docker login", "podman login", "helm registry login ghcr.io", "skopeo login quay.io")
	pre := tool + " -u " + g.pick(userList...) + " -p "
	post := " " + g.pick("registry.example.com", "")
	if g.chance(0.4) {
		pre = tool + " -u ci -p '"
		post = "'"
	}
	return commandIn(k, i, pre, sec(plain(v), "registry-login"), strings.TrimRight(post, " "))
}

func placeCurlUser(g *gen, td *typeDef, k FileKind, i int) snip {
	v := g.cliPassword(k)
	flag := g.pick("-u ", "--user ", "--proxy-user ")
	pre := "curl -fsS " + flag + g.pick(userList...) + ":"
	post := " https://registry.example.com/v2/_catalog"
	if g.chance(0.4) {
		pre = "curl " + flag + "\"" + g.pick(userList...) + ":"
		post = "\" -X POST https://ci.example.com/job/build"
	}
	return commandIn(k, i, pre, sec(plain(v), "curl-user"), post)
}

func placeBasicAuthCall(g *gen, td *typeDef, k FileKind, i int) snip {
	v := g.cliPassword(k)
	user := g.pick(userList...)
	s := sec(plain(v), "basic-auth-call")
	switch k {
	case KindGo:
		return snip{pieces: []piece{tx("req.SetBasicAuth(\"" + user + "\", \""), s, tx("\")")}, body: i == 1}
	case KindPython:
		if i == 0 {
			return snip{pieces: []piece{tx("AUTH = HTTPBasicAuth('" + user + "', '"), s, tx("')")}}
		}
		return snip{pieces: []piece{tx("resp = requests.get(url, auth=(\"" + user + "\", \""), s, tx("\"))")}, body: true}
	case KindJS:
		return snip{pieces: []piece{tx("const resp = await axios.get(url, { auth: { username: \"" + user + "\", password: \""), s, tx("\" } });")}, body: i == 1}
	}
	// Elsewhere: the call inside a script a configuration runs.
	return commandIn(k, i, "python -c 'import requests; requests.get(\"https://api.example.com\", auth=(\""+user+"\", \"", s, "\"))'")
}

func placeJSONEscaped(g *gen, td *typeDef, k FileKind, i int) snip {
	v := g.passwordFor(k, "'\"\\`$#;%")
	key := g.pick("password", "api_key", "client_secret", "db_password", "token")
	pre := `{\"user\": \"app\", \"` + key + `\": \"`
	post := `\"}`
	if g.chance(0.5) {
		pre = `{\"` + key + `\":\"`
		post = `\",\"retries\":3}`
	}
	return ctxKeyed(g, k, i, [][]string{{"request", "body"}, {"payload"}, {"init", "json"}}, pre, sec(plain(v), "json-escaped"), post)
}

func placeNameValueJSON(g *gen, td *typeDef, k FileKind, i int) snip {
	v := g.passwordFor(k, "'\"\\`$#;%")
	name := g.pick("DB_PASSWORD", "API_TOKEN", "apiKey", "CLIENT_SECRET", "SMTP_PASS")
	nk := g.pick("name", "key")
	pre := `[{"` + nk + `": "` + name + `", "value": "`
	post := `"}]`
	s := sec(plain(v), "name-value")
	switch k {
	case KindJSON:
		return snip{pieces: []piece{tx([]string{`"environment": `, `"variable": `}[i] + pre), s, tx(post)}}
	case KindYAML:
		return snip{pieces: []piece{tx([]string{"environment: ", "variables: "}[i] + pre), s, tx(post)}}
	}
	key := []string{"container", "env"}
	if i == 1 {
		key = []string{"task", "env"}
	}
	return embedded(k, key, pre, s, post, i == 1 && k.IsCode())
}

func placeK8sEnv(g *gen, td *typeDef, k FileKind, i int) snip {
	v := g.passwordFor(k, "'\"\\`$#;%")
	for !yamlPlain(v) {
		v = g.passwordFor(k, "'\"\\`$#;%")
	}
	name := g.pick("DB_PASSWORD", "API_TOKEN", "SECRET_KEY", "REDIS_PASS", "STRIPE_API_KEY")
	s := sec(plain(v), "k8s-env")
	if k == KindJSON {
		return snip{pieces: []piece{tx([]string{`"env"`, `"initEnv"`}[i] + `: [{"name": "LOG_LEVEL", "value": "info"}, {"name": "` + name + `", "value": "`), s, tx(`"}]`)}}
	}
	q := g.pick("", "\"")
	pre := "env:\n  - name: " + q + name + q + "\n    value: " + q
	post := q + "\n  - name: LOG_LEVEL\n    value: info\n"
	if k == KindYAML {
		if i == 1 {
			pre = "initContainers:\n  - name: migrate\n    " + strings.ReplaceAll(pre, "\n", "\n    ")
			post = strings.ReplaceAll(post, "\n", "\n    ")
		}
		return snip{pieces: []piece{tx(pre), s, tx(strings.TrimSuffix(strings.TrimRight(post, " "), "\n"))}}
	}
	key := []string{"pod", "env"}
	if i == 1 {
		key = []string{"job", "env"}
	}
	return embedded(k, key, pre, s, post, i == 1 && k.IsCode())
}

// assignKeys are the key names of credential-assignment.
var assignKeys = [][]string{
	{"password"}, {"db", "password"}, {"admin", "passwd"}, {"secret"}, {"jwt", "secret"}, {"secret", "key"},
	{"auth", "token"}, {"token"}, {"api", "key"}, {"apikey"}, {"access", "key"}, {"private", "key"},
	{"client", "secret"}, {"smtp", "password"}, {"mysql", "root", "password"}, {"webhook", "secret"}, {"session", "secret"},
}

func placeAssignment(g *gen, td *typeDef, k FileKind, i int) snip {
	var v string
	switch g.intn(4) {
	case 0, 1:
		v = g.password(k)
	case 2:
		v = g.str(hexLower, g.pickN(32, 64))
	default:
		v = g.mixed(alnum+"_-", g.between(24, 40))
	}
	s := sec(plain(v), "assignment")
	if i == 0 {
		return ctxKeyed(g, k, i, assignKeys, "", s, "")
	}
	key := assignKeys[g.intn(len(assignKeys))]
	s.variant = "structured"
	ps := func(a, b string, body bool) snip { return snip{pieces: []piece{tx(a), s, tx(b)}, body: body} }
	switch k {
	case KindGo:
		return ps("cfg := Config{\n\tUser:     \"app\",\n\t"+goField(key)+": \"", "\",\n}\n_ = cfg", true)
	case KindPython:
		return ps("conn = connect(host=\"db\", user=\"app\", "+strings.Join(key, "_")+"=\"", "\")", true)
	case KindJS:
		return ps("const options = { user: \"app\", "+words(KindJS, key)+": \"", "\" };", true)
	case KindShell:
		return ps("mysqldump --user=app --"+strings.Join(key, "-")+"='", "' shop > /tmp/shop.sql", true)
	case KindYAML:
		return ps("database:\n  host: db.internal\n  "+strings.Join(key, "_")+": \"", "\"", false)
	case KindJSON:
		return ps("\"database\": {\"host\": \"db.internal\", \""+words(KindJS, key)+"\": \"", "\"}", false)
	case KindTOML:
		return ps("[database]\nhost = \"db.internal\"\n"+strings.Join(key, "_")+" = \"", "\"", false)
	case KindINI:
		return ps("[database]\nhost = db.internal\n"+strings.Join(key, "_")+" = ", "", false)
	case KindProperties:
		return ps("spring.datasource."+strings.Join(key, "-")+"=", "", false)
	case KindXML:
		return ps("<add key=\""+goField(key)+"\" value=\"", "\" />", false)
	case KindEnv:
		return ps("export "+strings.ToUpper(strings.Join(key, "_"))+"=\"", "\"", false)
	}
	panic("unreachable")
}

func goField(w []string) string {
	var b strings.Builder
	for _, x := range w {
		b.WriteString(strings.ToUpper(x[:1]) + x[1:])
	}
	return b.String()
}

// ---------------------------------------------------------------------
// Values as their host syntax delimits, splits or repeats them.

// punctuated returns a password of 24 to 40 characters holding 3 to 6 of
// the punctuation characters a rule's character class may not expect
// (. = + ! % ?), never first, and none that kind k cannot write verbatim.
func (g *gen) punctuated(k FileKind) string {
	var p []byte
	for _, c := range []byte(".=+!%?") {
		if !strings.ContainsRune(forbidden(k), rune(c)) {
			p = append(p, c)
		}
	}
	n := g.between(24, 40)
	b := []byte(g.mixed(alnum, n))
	for range g.between(3, 6) {
		b[1+g.intn(n-2)] = p[g.intn(len(p))]
	}
	return string(b)
}

// placeBearerPunctuated writes an Authorization header holding
// punctuation on a curl command line.
func placeBearerPunctuated(g *gen, td *typeDef, k FileKind, i int) snip {
	s := sec(plain(g.punctuated(k)), "curl-header")
	if i == 0 {
		return commandIn(k, i, `curl -sS -H "Authorization: Bearer `, s, `" https://api.example.com/v1/items`)
	}
	return commandIn(k, i, `curl -H 'Authorization: token `, s, `' -X POST https://api.example.com/v1/jobs`)
}

// placeMakefile writes a Makefile assignment (?= or :=), whose value is
// the rest of the line, inside kind k.
func placeMakefile(g *gen, td *typeDef, k FileKind, i int) snip {
	s := sec(plain(g.punctuated(k)), "makefile")
	pre := g.pick("API_TOKEN", "DB_PASSWORD", "DEPLOY_SECRET") + " " + g.pick("?=", ":=") + " "
	key := []string{"makefile"}
	if i == 1 {
		key = []string{"ci", "makefile"}
	}
	return embedded(k, key, ".PHONY: deploy\n"+pre, s, "\ndeploy:\n\t./deploy.sh\n", i == 1 && k.IsCode())
}

// placeEnvInJSON writes a container's environment as a JSON list of
// NAME=value strings inside kind k.
func placeEnvInJSON(g *gen, td *typeDef, k FileKind, i int) snip {
	s := sec(plain(g.punctuated(k)), "env-list")
	name := g.pick("DB_PASSWORD", "API_KEY", "SECRET_TOKEN")
	key := []string{"container", "json"}
	if i == 1 {
		key = []string{"task", "json"}
	}
	pre := `{"environment": ["PORT=8080", "` + name + `=`
	post := `", "DEBUG=0"]}`
	if k == KindJSON {
		return snip{pieces: []piece{tx([]string{`"container": `, `"task": `}[i] + pre), s, tx(post)}}
	}
	return embedded(k, key, pre, s, post+"\n", i == 1 && k.IsCode())
}

// placeSplit writes a prefixed token in two pieces that the syntax joins:
// concatenated string literals in code, a line continuation elsewhere
// (shell, .env, .properties, a YAML double-quoted scalar, a TOML
// multi-line string). The planted value runs from the first piece to the
// end of the last, with what joins them.
func placeSplit(g *gen, td *typeDef, k FileKind, i int) snip {
	var v val
	if i == 0 {
		t := g.checksummed("ghp_")
		v = val{v: t, cs: 4, ce: len(t)}
	} else {
		v = prefixed("sk_live_", g.mixed(alnum, 32))
	}
	at := g.between(v.cs+2, len(v.v)-6)
	a, b := v.v[:at], v.v[at:]
	joined := func(mid string, variant string) piece {
		return piece{s: a + mid + b, secret: true, variant: variant, cs: v.cs, ce: len(a) + len(mid) + len(b)}
	}
	name := words(k, []string{"deploy", "token"})
	if i == 1 {
		name = words(k, []string{"billing", "key"})
	}
	p := func(pre string, s piece, post string, body bool) snip {
		return snip{pieces: []piece{tx(pre), s, tx(post)}, body: body}
	}
	switch k {
	case KindJS:
		if i == 0 {
			return p("export const "+name+" = '", joined("' + '", "concat"), "';", false)
		}
		return p("const "+name+" = \"", joined("\" +\n  \"", "concat-lines"), "\";", true)
	case KindPython:
		if i == 0 {
			return p(strings.ToUpper(name)+" = (\"", joined("\"\n    \"", "implicit-concat"), "\")", false)
		}
		return p(name+" = '", joined("' '", "implicit-concat"), "'", true)
	case KindGo:
		if i == 0 {
			return p("const "+name+" = \"", joined("\" +\n\t\"", "concat-lines"), "\"", false)
		}
		return p(name+" := \"", joined("\" + \"", "concat"), "\"\n_ = "+name, true)
	case KindShell:
		return p("export "+name+"=", joined("\\\n", "continuation"), "", false)
	case KindEnv:
		return p(name+"=", joined("\\\n", "continuation"), "", false)
	case KindProperties:
		return p(name+"=", joined("\\\n    ", "continuation-indented"), "", false)
	case KindYAML:
		return p(name+": \"", joined("\\\n  ", "continuation-indented"), "\"", false)
	case KindTOML:
		return p(name+" = \"\"\"\n", joined("\\\n    ", "continuation-indented"), "\"\"\"", false)
	}
	ps := assign(g, k, []string{"deploy", "token"}, "", sec(v, "assignment"), "", true)
	if i == 1 {
		ps = assign(g, k, []string{"billing", "key"}, "", sec(v, "assignment"), "", true)
	}
	return snip{pieces: ps}
}

// placeRepeated writes a credential assignment and the same value again
// where no rule would find it alone: a comment, or a note.
func placeRepeated(g *gen, td *typeDef, k FileKind, i int) snip {
	v := plain(g.mixed(alnum, g.between(24, 36)))
	keys := [][]string{{"api", "key"}, {"auth", "token"}, {"client", "secret"}}
	sn := ctxKeyed(g, k, i, keys, "", sec(v, "assignment"), "")
	rep := sec(v, "repeat")
	switch k {
	case KindJSON:
		sn.pieces = append(sn.pieces, tx(",\n\""+[]string{"note", "fallback_note"}[i]+"\": \"rotated, previous value "), rep, tx("\""))
	case KindXML:
		sn.pieces = append(sn.pieces, tx("\n<!-- previous value: "), rep, tx(" -->"))
	default:
		sn.pieces = append(sn.pieces, tx("\n"+comment(k)+"previous value: "), rep)
	}
	return sn
}

// placeK8sFolded writes a Kubernetes Secret whose data comes before its
// kind, with a folded (>) value on the next line. The planted value is
// the data entry (its key and value, as gitleaks reports it); its core
// is the base64 value.
func placeK8sFolded(g *gen, td *typeDef, k FileKind, i int) snip {
	v := base64.StdEncoding.EncodeToString(g.bytes(g.between(30, 60)))
	// The entry's line break as kind k writes the embedded manifest.
	br := "\n    "
	switch k {
	case KindJSON, KindProperties:
		br = `\n    `
	case KindINI:
		br = "\n        "
	}
	entry := g.pick(".dockercfg", "config.json", "credentials") + ": >" + br
	s := piece{s: entry + v, secret: true, variant: "folded-data-before-kind", cs: len(entry), ce: len(entry) + len(v)}
	pre := "apiVersion: v1\ndata:\n  "
	post := "\nmetadata:\n  name: " + g.pick("registry", "app-secrets") + "\ntype: Opaque\nkind: Secret"
	if k == KindYAML {
		return snip{pieces: []piece{tx(pre), s, tx(post)}}
	}
	return embedded(k, []string{"secret", "manifest"}, pre, s, post+"\n", false)
}

// ---------------------------------------------------------------------
// Files.

type positive struct {
	file    File
	secrets []Secret
}

// fileNames are the file names of each kind in a type's directory.
var fileNames = map[FileKind]string{
	KindEnv: ".env", KindYAML: "config.yaml", KindJSON: "settings.json", KindTOML: "config.toml",
	KindINI: "app.ini", KindProperties: "application.properties", KindXML: "config.xml",
	KindGo: "creds.go", KindPython: "settings.py", KindJS: "client.ts", KindShell: "deploy.sh",
}

// asm assembles a file from text and snippets, recording spans.
type asm struct {
	buf     bytes.Buffer
	typ     *typeDef
	path    string
	kind    FileKind
	secrets []Secret
}

func (a *asm) text(s string) { a.buf.WriteString(s) }

// snippet writes ps, indenting every line that starts in a text piece.
func (a *asm) snippet(ps []piece, indent string) {
	a.buf.WriteString(indent)
	for _, p := range ps {
		if !p.secret {
			a.buf.WriteString(strings.ReplaceAll(p.s, "\n", "\n"+indent))
			continue
		}
		start := a.buf.Len()
		a.buf.WriteString(p.s)
		t, rules, class := a.typ.name, a.typ.rules, a.typ.class
		if p.typ != "" {
			t, rules, class = p.typ, []string{p.typ}, Prefixed
		}
		a.secrets = append(a.secrets, Secret{
			Path: a.path, Kind: a.kind, Type: t, Class: class, Rules: rules, Variant: p.variant,
			Value: p.s, Start: start, End: a.buf.Len(), CoreStart: p.cs, CoreEnd: p.ce,
		})
	}
	a.buf.WriteString("\n")
}

func (g *gen) positive(td *typeDef, ti int, dir string, k FileKind) positive {
	name := fileNames[k]
	if k == KindJS && ti%2 == 1 {
		name = "client.js"
	}
	if k == KindKey {
		name = *td.keyFile
	}
	p := dir + "/" + name
	a := &asm{typ: td, path: p, kind: k}
	place := td.place
	if place == nil {
		place = defaultPlace
	}
	var top, body []snip
	if k == KindKey {
		v := td.pemValue(g)
		a.snippet([]piece{{s: v.v, secret: true, variant: "key-file", cs: v.cs, ce: v.ce}}, "")
		return a.finish(File{Path: p, Kind: k})
	}
	for i := range td.samples {
		s := place(g, td, k, i)
		if s.body && (k.IsCode() || k == KindShell) {
			body = append(body, s)
		} else {
			top = append(top, s)
		}
	}
	pkg := strings.ReplaceAll(dir, "-", "")
	fn := "Load" + goField(strings.Split(dir, "-"))
	f := File{Path: p, Kind: k}
	title := strings.ReplaceAll(dir, "-", " ")
	switch k {
	case KindEnv:
		a.text("# " + title + " settings for local development\nAPP_ENV=development\nLOG_LEVEL=debug\nPORT=" + fmt.Sprint(g.between(3000, 9000)) + "\n\n")
		for _, s := range top {
			a.snippet(s.pieces, "")
		}
		a.text("FEATURE_FLAGS=search,checkout\n")
	case KindYAML:
		a.text("# " + title + " configuration\nservice:\n  name: " + dir + "\n  replicas: " + fmt.Sprint(g.between(1, 5)) + "\n")
		for _, s := range top {
			a.snippet(s.pieces, "")
		}
		a.text("logging:\n  level: info\n  format: json\n")
	case KindJSON:
		a.text("{\n  \"name\": \"" + dir + "\",\n  \"version\": \"1." + fmt.Sprint(g.intn(20)) + ".0\",\n")
		for _, s := range top {
			a.snippet(s.pieces, "  ")
			a.buf.Truncate(a.buf.Len() - 1)
			a.text(",\n")
		}
		a.text("  \"debug\": false\n}\n")
	case KindTOML:
		a.text("# " + title + "\ntitle = \"" + dir + "\"\nworkers = " + fmt.Sprint(g.between(2, 16)) + "\n\n")
		for _, s := range top {
			a.snippet(s.pieces, "")
			a.text("\n")
		}
	case KindINI:
		a.text("; " + title + "\n[app]\nname = " + dir + "\ndebug = false\n\n")
		for _, s := range top {
			a.snippet(s.pieces, "")
			a.text("\n")
		}
	case KindProperties:
		a.text("# " + title + "\nspring.application.name=" + dir + "\nserver.port=" + fmt.Sprint(g.between(8000, 9000)) + "\n")
		for _, s := range top {
			a.snippet(s.pieces, "")
		}
		a.text("logging.level.root=INFO\n")
	case KindXML:
		a.text("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!-- " + title + " -->\n<configuration>\n  <appSettings>\n    <add key=\"Environment\" value=\"Production\" />\n")
		for _, s := range top {
			a.snippet(s.pieces, "    ")
		}
		a.text("  </appSettings>\n</configuration>\n")
	case KindGo:
		f.Func, f.Package = fn, pkg
		a.text("// Package " + pkg + " talks to the " + title + " service.\npackage " + pkg + "\n\n")
		for _, s := range top {
			a.snippet(s.pieces, "")
			a.text("\n")
		}
		a.text("// " + fn + " returns the client configuration.\nfunc " + fn + "() any {\n")
		for _, s := range body {
			a.snippet(s.pieces, "\t")
		}
		a.text("\treturn nil\n}\n\nfunc dial(addr string) any { return addr }\n")
	case KindPython:
		f.Func = "load_" + strings.ReplaceAll(dir, "-", "_")
		a.text("\"\"\"Settings of the " + title + " integration.\"\"\"\nimport os\n\nDEBUG = False\n\n")
		for _, s := range top {
			a.snippet(s.pieces, "")
			a.text("\n")
		}
		a.text("\ndef " + f.Func + "():\n    \"\"\"Return the client configuration.\"\"\"\n")
		for _, s := range body {
			a.snippet(s.pieces, "    ")
		}
		a.text("    return None\n")
	case KindJS:
		f.Func = "create" + goField(strings.Split(dir, "-")) + "Client"
		a.text("// Client of the " + title + " API.\nimport { connect } from \"./transport\";\n\n")
		for _, s := range top {
			a.snippet(s.pieces, "")
			a.text("\n")
		}
		a.text("export function " + f.Func + "() {\n")
		for _, s := range body {
			a.snippet(s.pieces, "  ")
		}
		a.text("  return null;\n}\n")
	case KindShell:
		a.text("#!/usr/bin/env bash\n# Deploys the " + title + " service.\nset -euo pipefail\n\n")
		for _, s := range top {
			a.snippet(s.pieces, "")
		}
		a.text("\ndeploy() {\n")
		for _, s := range body {
			a.snippet(s.pieces, "  ")
		}
		a.text("  echo \"deployed\"\n}\n\ndeploy \"$@\"\n")
	}
	return a.finish(f)
}

func (a *asm) finish(f File) positive {
	f.Data = slices.Clone(a.buf.Bytes())
	for i := range a.secrets {
		s := &a.secrets[i]
		s.Line = 1 + bytes.Count(f.Data[:s.Start], []byte("\n"))
	}
	return positive{file: f, secrets: a.secrets}
}

// ---------------------------------------------------------------------
// Hard negatives.

func (g *gen) sha(n int) string { return g.str(hexLower, n) }

// negatives returns the hard-negative files: no secret in any of them.
func (g *gen) negatives() []File {
	var out []File
	add := func(label, p string, k FileKind, text string) {
		out = append(out, File{Path: "negatives/" + label + "/" + p, Kind: k, Data: []byte(text), Negative: label})
	}
	lines := func(n int, f func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(f(i))
		}
		return b.String()
	}

	// UUIDs.
	add("uuid-yaml", "azure.yaml", KindYAML, fmt.Sprintf("azure:\n  tenant_id: %s\n  client_id: %s\n  subscription_id: %s\n  resource_group: rg-prod\nrequest_ids:\n%s", g.uuid(), g.uuid(), g.uuid(),
		lines(6, func(int) string { return "  - " + g.uuid() + "\n" })))
	add("uuid-json", "fixtures.json", KindJSON, "[\n"+lines(8, func(i int) string {
		sep := ","
		if i == 7 {
			sep = ""
		}
		return fmt.Sprintf("  {\"id\": \"%s\", \"order_id\": \"%s\", \"correlation_id\": \"%s\"}%s\n", g.uuid(), g.uuid(), g.uuid(), sep)
	})+"]\n")
	add("uuid-go", "ids_test.go", KindGo, "package ids\n\nvar testIDs = []string{\n"+lines(10, func(int) string { return "\t\"" + g.uuid() + "\",\n" })+"}\n")

	// Git SHAs.
	add("git-sha-actions-pin", "ci.yaml", KindYAML, fmt.Sprintf(`name: ci
on: [push, pull_request]
permissions:
  contents: read
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@%s # v4.1.1
      - uses: actions/setup-go@%s # v5.0.0
        with:
          go-version: '1.26'
      - uses: actions/cache@%s
      - run: go test ./...
        env:
          GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}
          NPM_TOKEN: ${{ secrets.NPM_TOKEN }}
`, g.sha(40), g.sha(40), g.sha(40)))
	add("git-sha-changelog", "CHANGELOG.md", KindText, "# Changelog\n\n"+lines(12, func(i int) string {
		return fmt.Sprintf("- %s fix token refresh race (#%d)\n", g.sha(g.pickN(7, 40)), 1200+i)
	}))
	add("git-sha-toml", "Cargo.toml", KindTOML, fmt.Sprintf("[package]\nname = \"agent\"\nversion = \"0.4.2\"\n\n[dependencies]\nserde = \"1\"\ntokio = { git = \"https://github.com/tokio-rs/tokio\", rev = \"%s\" }\nring = { git = \"https://github.com/briansmith/ring\", rev = \"%s\" }\n", g.sha(40), g.sha(40)))
	add("git-sha-go", "version.go", KindGo, fmt.Sprintf("package version\n\n// Commit is the source revision, set at build time.\nvar Commit = \"%s\"\n\n// Known releases and their commits.\nvar releases = map[string]string{\n\t\"v1.0.0\": \"%s\",\n\t\"v1.1.0\": \"%s\",\n}\n", g.sha(40), g.sha(40), g.sha(40)))

	// Hashes.
	add("sha256-shell", "verify.sh", KindShell, fmt.Sprintf("#!/bin/sh\nset -e\ncurl -fsSLO https://dl.example.com/tool-1.2.3-linux-amd64.tar.gz\necho \"%s  tool-1.2.3-linux-amd64.tar.gz\" | sha256sum -c -\nEXPECTED_SHA256=%s\n", g.sha(64), g.sha(64)))
	add("sha256-image-digest", "deployment.yaml", KindYAML, fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  template:\n    spec:\n      containers:\n        - name: api\n          image: ghcr.io/acme/api@sha256:%s\n        - name: proxy\n          image: envoyproxy/envoy@sha256:%s\n", g.sha(64), g.sha(64)))
	add("sha256-python", "test_hash.py", KindPython, fmt.Sprintf("import hashlib\n\n\ndef test_digest():\n    assert hashlib.sha256(b\"abc\").hexdigest() == \"%s\"\n    assert hashlib.sha256(b\"token\").hexdigest() == \"%s\"\n", g.sha(64), g.sha(64)))
	add("sha512-json", "checksums.json", KindJSON, "{\n"+lines(6, func(i int) string {
		sep := ","
		if i == 5 {
			sep = ""
		}
		return fmt.Sprintf("  \"dist/app-%d.js\": \"sha512:%s\"%s\n", i, g.sha(128), sep)
	})+"}\n")
	add("sha512-go", "vectors_test.go", KindGo, "package hashx\n\nvar sha512Vectors = []struct{ in, out string }{\n"+lines(5, func(int) string {
		return fmt.Sprintf("\t{%q, %q},\n", g.str(lowerA, 8), g.sha(128))
	})+"}\n")
	add("md5-etag", "cache.properties", KindProperties, lines(6, func(i int) string { return fmt.Sprintf("cache.entry.%d.etag=%s\n", i, g.sha(32)) }))

	// SRI and lock files.
	sri := func(n int) string { return base64.StdEncoding.EncodeToString(g.bytes(n)) }
	add("sri-integrity", "index.html", KindText, fmt.Sprintf(`<!doctype html>
<html>
<head>
  <link rel="stylesheet" href="https://cdn.example.com/bootstrap.min.css" integrity="sha384-%s" crossorigin="anonymous">
  <script src="https://cdn.example.com/jquery.min.js" integrity="sha384-%s" crossorigin="anonymous"></script>
  <script src="/app.js" integrity="sha256-%s"></script>
</head>
<body><form><input type="password" name="password" autocomplete="current-password"></form></body>
</html>
`, sri(48), sri(48), sri(32)))
	add("sri-package-lock", "package-lock.json", KindJSON, "{\n  \"name\": \"web\",\n  \"lockfileVersion\": 3,\n  \"packages\": {\n"+lines(6, func(i int) string {
		sep := ","
		if i == 5 {
			sep = ""
		}
		name := g.pick("react", "lodash", "axios", "jsonwebtoken", "token-types", "secure-password")
		return fmt.Sprintf("    \"node_modules/%s-%d\": {\n      \"version\": \"%d.%d.%d\",\n      \"resolved\": \"https://registry.npmjs.org/%s/-/%s-%d.0.0.tgz\",\n      \"integrity\": \"sha512-%s\"\n    }%s\n", name, i, g.intn(20), g.intn(20), g.intn(20), name, name, i, sri(64), sep)
	})+"  }\n}\n")
	add("sri-yarn-lock", "yarn.lock", KindText, lines(5, func(i int) string {
		return fmt.Sprintf("\"pkg-%d@^1.0.0\":\n  version \"1.%d.0\"\n  resolved \"https://registry.yarnpkg.com/pkg-%d/-/pkg-%d-1.%d.0.tgz#%s\"\n  integrity sha512-%s\n\n", i, i, i, i, i, g.sha(40), sri(64))
	}))
	add("go-sum", "go.sum", KindText, lines(10, func(i int) string {
		m := g.pick("github.com/google/go-cmp", "golang.org/x/crypto", "golang.org/x/oauth2", "github.com/golang-jwt/jwt/v5")
		v := fmt.Sprintf("v0.%d.%d", g.intn(30), g.intn(10))
		return fmt.Sprintf("%s %s h1:%s\n%s %s/go.mod h1:%s\n", m, v, sri(32), m, v, sri(32))
	}))
	add("pipfile-lock-hashes", "Pipfile.lock", KindJSON, fmt.Sprintf("{\n  \"default\": {\n    \"requests\": {\n      \"hashes\": [\n        \"sha256:%s\",\n        \"sha256:%s\"\n      ],\n      \"version\": \"==2.32.3\"\n    },\n    \"pyjwt\": {\n      \"hashes\": [\"sha256:%s\"],\n      \"version\": \"==2.9.0\"\n    }\n  }\n}\n", g.sha(64), g.sha(64), g.sha(64)))
	add("cargo-lock-checksums", "Cargo.lock", KindTOML, lines(6, func(i int) string {
		return fmt.Sprintf("[[package]]\nname = \"crate-%d\"\nversion = \"0.%d.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"%s\"\n\n", i, i, g.sha(64))
	}))

	// Base64 images and fonts.
	png := func(n int) string {
		return base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), g.bytes(n)...))
	}
	add("base64-png-css", "styles.css", KindText, fmt.Sprintf(".logo {\n  background-image: url(data:image/png;base64,%s);\n}\n.icon-key {\n  background: url(\"data:image/png;base64,%s\");\n}\n", png(600), png(200)))
	add("base64-png-js", "icons.js", KindJS, fmt.Sprintf("export const tokenIcon = \"data:image/png;base64,%s\";\nexport const font = \"data:font/woff2;base64,%s\";\n", png(400), base64.StdEncoding.EncodeToString(g.bytes(900))))

	// Public keys and certificates.
	seed := g.bytes(32)
	priv := ed25519.NewKeyFromSeed(seed)
	pub := priv.Public().(ed25519.PublicKey)
	sshPub := func(p ed25519.PublicKey) string {
		var b []byte
		b = binary.BigEndian.AppendUint32(b, 11)
		b = append(b, "ssh-ed25519"...)
		b = binary.BigEndian.AppendUint32(b, 32)
		b = append(b, p...)
		return "ssh-ed25519 " + base64.StdEncoding.EncodeToString(b)
	}
	sshRSA := func() string {
		b := append([]byte("\x00\x00\x00\x07ssh-rsa\x00\x00\x00\x03\x01\x00\x01\x00\x00\x01\x81\x00"), g.bytes(384)...)
		return "ssh-rsa " + base64.StdEncoding.EncodeToString(b)
	}
	add("ssh-public-keys", "authorized_keys", KindText, sshPub(pub)+" deploy@ci\n"+sshRSA()+" alice@laptop\n"+sshPub(ed25519.NewKeyFromSeed(g.bytes(32)).Public().(ed25519.PublicKey))+" bob@workstation\n")
	add("ssh-public-keys-cloud-init", "cloud-init.yaml", KindYAML, "#cloud-config\nusers:\n  - name: deploy\n    ssh_authorized_keys:\n      - "+sshPub(pub)+" deploy@ci\n      - "+sshRSA()+" ops@bastion\n")
	pkix8, _ := x509.MarshalPKIXPublicKey(pub)
	pubPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pkix8}))
	add("pem-public-key", "jwt-verify.pem.txt", KindText, pubPEM)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(int64(g.intn(1 << 30))),
		Subject:      pkix.Name{CommonName: "api.example.com", Organization: []string{"Acme"}},
		NotBefore:    time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:     time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC),
		DNSNames:     []string{"api.example.com"},
	}
	der, err := x509.CreateCertificate(&detReader{g: g}, tmpl, tmpl, pub, priv)
	if err != nil {
		panic(err)
	}
	cert := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	add("pem-certificate", "ca-bundle.crt.txt", KindText, "# Acme internal CA\n"+cert+cert)
	add("pem-certificate-go", "certs_test.go", KindGo, "package tlsx\n\n// testCert is a self-signed certificate for api.example.com.\nconst testCert = `"+cert+"`\n\nconst testPublicKey = `"+pubPEM+"`\n")
	add("pem-certificate-yaml", "tls.yaml", KindYAML, "tls:\n  certificate: |\n    "+strings.ReplaceAll(strings.TrimSuffix(cert, "\n"), "\n", "\n    ")+"\n  ca_file: /etc/ssl/ca.pem\n")
	pgpPub := g.pgpPEM()
	add("pgp-public-key", "KEYS.asc.txt", KindText, strings.ReplaceAll(pgpPub.v, "PRIVATE KEY BLOCK", "PUBLIC KEY BLOCK")+"\n")
	csrBody := base64.StdEncoding.EncodeToString(append([]byte{0x30, 0x82, 0x02, 0x9a}, g.bytes(660)...))
	add("pem-csr-rsa-public", "request.csr.txt", KindText, "-----BEGIN CERTIFICATE REQUEST-----\n"+wrap64(csrBody)+"-----END CERTIFICATE REQUEST-----\n-----BEGIN RSA PUBLIC KEY-----\n"+wrap64(base64.StdEncoding.EncodeToString(g.bytes(270)))+"-----END RSA PUBLIC KEY-----\n")

	// Placeholders and references.
	add("placeholder-env", ".env.example", KindEnv, "DB_PASSWORD=changeme\nAPI_KEY=<token>\nSECRET_KEY=${SECRET_KEY}\nGITHUB_TOKEN=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nSTRIPE_SECRET_KEY=\nJWT_SECRET=${JWT_SECRET:-}\nSMTP_PASSWORD=<your-smtp-password>\n")
	add("placeholder-helm", "secret.yaml", KindYAML, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-db\ntype: Opaque\nstringData:\n  password: {{ .Values.db.password }}\n  api_key: {{ .Values.apiKey | quote }}\n  token: \"{{ .Values.token }}\"\n  client_secret: {{ required \"clientSecret\" .Values.clientSecret }}\n")
	add("placeholder-actions", "release.yaml", KindYAML, "name: release\non:\n  push:\n    tags: ['v*']\njobs:\n  publish:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/setup-node@v4\n        with:\n          registry-url: https://registry.npmjs.org\n      - run: npm publish\n        env:\n          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}\n          password: ${{ secrets.REGISTRY_PASSWORD }}\n          api_key: ${{ secrets.API_KEY }}\n")
	add("placeholder-js", "config.ts", KindJS, "export const config = {\n  apiKey: process.env.API_KEY,\n  password: process.env.DB_PASSWORD ?? \"\",\n  token: process.env[\"GITHUB_TOKEN\"],\n  clientSecret: process.env.CLIENT_SECRET!,\n};\nconst secret = config.clientSecret;\nexport const headers = { Authorization: `Bearer ${config.token}` };\n")
	add("placeholder-python", "config.py", KindPython, "import os\n\nSECRET_KEY = os.environ[\"SECRET_KEY\"]\npassword = os.environ.get(\"DB_PASSWORD\")\napi_key = os.getenv(\"API_KEY\", \"\")\ntoken = settings.GITHUB_TOKEN\nheaders = {\"Authorization\": f\"Bearer {token}\"}\nclient_secret = None\n")
	add("placeholder-go", "config.go", KindGo, "package config\n\nimport \"os\"\n\nfunc load() Config {\n\tpassword := os.Getenv(\"DB_PASSWORD\")\n\ttoken, _ := os.LookupEnv(\"API_TOKEN\")\n\treturn Config{\n\t\tPassword: password,\n\t\tToken:    token,\n\t\tSecret:   cfg.Secret,\n\t\tAPIKey:   flags.APIKey,\n\t}\n}\n\nfunc auth(req *http.Request, token string) {\n\treq.Header.Set(\"Authorization\", \"Bearer \"+token)\n}\n")
	add("placeholder-properties", "application-prod.properties", KindProperties, "spring.datasource.url=jdbc:postgresql://db:5432/app\nspring.datasource.username=app\nspring.datasource.password=${DB_PASSWORD}\napp.jwt.secret=${JWT_SECRET}\napp.api-key=${API_KEY:}\n")
	add("placeholder-xml", "pom.xml", KindXML, "<?xml version=\"1.0\"?>\n<settings>\n  <servers>\n    <server>\n      <id>nexus</id>\n      <username>${env.NEXUS_USER}</username>\n      <password>${env.NEXUS_PASSWORD}</password>\n    </server>\n  </servers>\n  <appSettings>\n    <add key=\"ApiKey\" value=\"${API_KEY}\" />\n    <add key=\"ClientSecret\" value=\"changeme\" />\n  </appSettings>\n</settings>\n")
	add("placeholder-toml", "netlify.toml", KindTOML, "[build.environment]\nAPI_KEY = \"${API_KEY}\"\npassword = \"changeme\"\ntoken = \"<token>\"\nsecret = \"xxxxxxxxxxxx\"\n")
	add("placeholder-ini", "alembic.ini", KindINI, "[alembic]\nscript_location = migrations\nsqlalchemy.url = postgresql://app:${DB_PASSWORD}@db/app\n\n[smtp]\npassword = changeme\nsecret = xxxxxxxx\ntoken = <token>\n")
	add("placeholder-auth-headers", "api.sh", KindShell, "#!/bin/sh\ncurl -H \"Authorization: Bearer $TOKEN\" https://api.example.com/v1/me\ncurl -H \"Authorization: Bearer ${GITHUB_TOKEN}\" https://api.github.com/user\ncurl -H 'Authorization: Bearer <token>' https://api.example.com\ncurl -u \"$USER:$PASSWORD\" https://registry.example.com/v2/\n")
	add("placeholder-urls", "urls.yaml", KindYAML, "database_url: postgres://app:${DB_PASSWORD}@db:5432/app\ncache_url: redis://localhost:6379/0\nrepo: https://alice@github.com/acme/api.git\nmirror: git@github.com:acme/api.git\nbroker_url: amqp://guest@rabbit:5672//\nproxy: http://proxy.corp.example.com:3128\n")
	add("placeholder-npmrc", ".npmrc", KindText, "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=${NPM_TOKEN}\nalways-auth=true\n")

	// Identifiers that contain credential words.
	add("identifiers-go", "auth.go", KindGo, `package auth

import "time"

const passwordResetTokenExpiry = 24 * time.Hour

// MaxPasswordLength bounds the password a user may choose.
const MaxPasswordLength = 128

type TokenKind int

type Credentials struct {
	Password     string `+"`json:\"password\"`"+`
	APIKey       string `+"`json:\"api_key\"`"+`
	ClientSecret string `+"`json:\"client_secret,omitempty\"`"+`
}

func validateToken(token string) error {
	if token == "" {
		return errMissingToken
	}
	secretsManagerClient := newSecretsManager()
	_ = secretsManagerClient
	return nil
}

func checkPassword(password, passwordHash string) bool {
	return compareHashAndPassword(passwordHash, password)
}
`)
	add("identifiers-python", "auth.py", KindPython, `from datetime import timedelta

password_reset_token_expiry = timedelta(hours=1)
MIN_PASSWORD_LENGTH = 12


def check_password(password: str, password_hash: str) -> bool:
    return bcrypt.checkpw(password.encode(), password_hash)


def next_token(tokenizer):
    token = tokenizer.next_token()
    api_key_header = APIKeyHeader(name="X-API-Key")
    secret_name = "prod/db"
    return token, api_key_header, secret_name
`)
	add("identifiers-ts", "user.ts", KindJS, `export interface User {
  passwordResetTokenExpiry: Date;
  passwordHash: string;
  apiKeyId: string;
}

export function countTokens(tokens: string[]): number {
  const tokenCount = tokens.length;
  const secretName: string = "payments/stripe";
  const password = form.elements.namedItem("password");
  return tokenCount;
}
`)
	add("identifiers-k8s-refs", "statefulset.yaml", KindYAML, "spec:\n  template:\n    spec:\n      containers:\n        - name: db\n          env:\n            - name: POSTGRES_PASSWORD\n              valueFrom:\n                secretKeyRef:\n                  name: db-secret\n                  key: password\n            - name: API_TOKEN\n              valueFrom:\n                secretKeyRef: {name: api, key: token}\n      volumes:\n        - name: tls\n          secret:\n            secretName: tls-cert\n      imagePullSecrets:\n        - name: regcred\n")
	add("identifiers-compose", "docker-compose.yaml", KindYAML, "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD_FILE: /run/secrets/db_password\n    secrets:\n      - db_password\nsecrets:\n  db_password:\n    file: ./secrets/db_password.txt\n")
	add("identifiers-terraform", "main.tf", KindText, "variable \"db_password\" {\n  type      = string\n  sensitive = true\n}\n\nresource \"aws_db_instance\" \"main\" {\n  username = \"app\"\n  password = var.db_password\n  manage_master_user_password = true\n}\n\noutput \"api_token\" {\n  value     = aws_api_gateway_api_key.main.value\n  sensitive = true\n}\n")
	add("identifiers-i18n", "fr.json", KindJSON, "{\n  \"password\": \"Mot de passe\",\n  \"forgot_password\": \"Mot de passe oublié ?\",\n  \"token_expired\": \"Votre session a expiré\",\n  \"api_key\": \"Clé d'API\",\n  \"secret\": \"Secret\"\n}\n")

	// Minified JavaScript.
	add("minified-js", "vendor.min.js", KindJS, g.minified())

	// Prose.
	add("docs-prose", "authentication.md", KindText, "# Authentication\n\nEvery request needs an access token. Create a personal access token in\nyour account settings (classic tokens start with `ghp_`, fine-grained ones\nwith `github_pat_`) and pass it in the `Authorization: Bearer <token>`\nheader. Never commit a token or a password; the API key is shown once.\n\nSet `API_KEY` and `DB_PASSWORD` in your environment. The secret key must be\nat least 32 characters. Tokens expire after 90 days; rotate the client\nsecret with `acme auth rotate --client-secret`.\n\n```sh\nexport API_KEY=<your api key>\ncurl -H \"Authorization: Bearer $API_KEY\" https://api.example.com/v1/me\n```\n")
	add("docs-go-comments", "token.go", KindGo, "package token\n\n// Token is an OAuth2 access token. The password grant is not supported:\n// exchange the client secret for a token with [Exchange]. A token looks\n// like \"Bearer <opaque string>\" in the Authorization header.\n//\n// The api_key query parameter is deprecated; use the header.\ntype Token struct {\n\tAccessToken  string\n\tRefreshToken string\n\tExpiry       time.Time\n}\n")

	// Documented example keys.
	add("aws-example-keys", "credentials.ini", KindINI, "# From the AWS documentation\n[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nregion = us-west-2\n")
	add("aws-example-keys-md", "aws.md", KindText, "Configure the CLI:\n\n```\n$ aws configure\nAWS Access Key ID [None]: AKIAIOSFODNN7EXAMPLE\nAWS Secret Access Key [None]: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nDefault region name [None]: us-west-2\n```\n")

	// Public identifiers that look like keys.
	add("public-identifiers", "public.env.sample", KindEnv, fmt.Sprintf("STRIPE_PUBLISHABLE_KEY=pk_live_%s\nTWILIO_ACCOUNT_SID=AC%s\nGA_MEASUREMENT_ID=G-%s\nSENTRY_DSN_PUBLIC_ID=%s\nMONGO_OBJECT_ID=%s\n", g.mixed(alnum, 24), g.sha(32), g.str(upperNum, 10), g.sha(32), g.sha(24)))
	add("hex-test-vectors", "aes_test.go", KindGo, "package aesx\n\nvar vectors = []struct{ key, plaintext, ciphertext string }{\n"+lines(4, func(int) string {
		return fmt.Sprintf("\t{key: %q, plaintext: %q, ciphertext: %q},\n", g.sha(64), g.sha(32), g.sha(32))
	})+"}\n")
	add("css-hex-colors", "theme.css", KindText, lines(10, func(i int) string {
		return fmt.Sprintf(".c%d { color: #%s; background: #%s; }\n", i, g.sha(6), g.sha(6))
	}))
	return out
}

func wrap64(s string) string {
	var b strings.Builder
	for len(s) > 64 {
		b.WriteString(s[:64] + "\n")
		s = s[64:]
	}
	b.WriteString(s + "\n")
	return b.String()
}

// minified returns one long line of minified JavaScript using the words
// naive scanners key on.
func (g *gen) minified() string {
	var b strings.Builder
	b.WriteString("!function(e,t){\"use strict\";")
	ids := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for i := range 120 {
		x, y, z := string(ids[g.intn(len(ids))]), string(ids[g.intn(len(ids))]), string(ids[g.intn(len(ids))])
		switch i % 8 {
		case 0:
			fmt.Fprintf(&b, "var %s=%s.token||\"\",%s=%s.secret;", x, y, z, y)
		case 1:
			fmt.Fprintf(&b, "function %s(%s){return %s.password=%s.password||null,%s}", x+z, y, y, y, y)
		case 2:
			fmt.Fprintf(&b, "%s.headers.Authorization=\"Bearer \"+%s.accessToken;", x, y)
		case 3:
			fmt.Fprintf(&b, "%s.apiKey=%s(%s.apiKey);", x, y, z)
		case 4:
			fmt.Fprintf(&b, "if(!%s.clientSecret)throw new Error(\"missing client_secret\");", x)
		case 5:
			fmt.Fprintf(&b, "%s=%s.split(\".\").map(function(%s){return atob(%s)});", x, y, z, z)
		case 6:
			fmt.Fprintf(&b, "%s[%d]=\"%s\";", x, g.intn(999), g.str(lowerA, g.between(3, 9)))
		default:
			fmt.Fprintf(&b, "%s.prototype.refreshToken=function(){return this.%s.refresh()};", x, y)
		}
	}
	b.WriteString("}(window,document);\n//# sourceMappingURL=vendor.min.js.map\n")
	return b.String()
}

// detReader is a deterministic io.Reader for certificate creation.
type detReader struct{ g *gen }

func (r *detReader) Read(p []byte) (int, error) {
	copy(p, r.g.bytes(len(p)))
	return len(p), nil
}
