package secretstest

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf16"
)

// Encoded and obfuscated secrets: a prefixed token written so that no
// rule matches it as it is: some of its characters escaped in the file's
// own syntax (\u0067hp_… in JSON, \x67hp_… in Go, &#103;hp_… in XML,
// %67hp_… in a URL), invisible characters inside it (a soft hyphen, a
// zero-width space), or a layered encoding (PowerShell's -EncodedCommand,
// base64 of gzip or zlib data, base64 three or four times over). These
// types are generated after the hard negatives, from a generator of their
// own, so that adding them changed no byte of the rest of the corpus.

// innerTypes are the token types the encoded types hide.
var innerTypes = []string{"github-pat-classic", "gitlab-pat", "slack-bot-token", "stripe-secret-key", "openai-api-key", "npm-token", "anthropic-api-key"}

// encodedTypeDefs returns the encoded types; inner holds the generators
// of the token types they hide (by name).
func encodedTypeDefs(inner map[string]*typeDef) []*typeDef {
	token := func(g *gen) val {
		return inner[innerTypes[g.intn(len(innerTypes))]].value(g, KindJSON)
	}
	ts := []*typeDef{
		{name: "escaped-token", class: Prefixed, place: func(g *gen, td *typeDef, k FileKind, i int) snip {
			return placeEscaped(g, k, i, token(g))
		}},
		{name: "invisible-char-token", class: Prefixed, place: func(g *gen, td *typeDef, k FileKind, i int) snip {
			return placeInvisible(g, k, i, token(g))
		}},
		{name: "powershell-encoded-command", class: Prefixed, place: func(g *gen, td *typeDef, k FileKind, i int) snip {
			return placePowerShell(g, k, i, token(g))
		}},
		{name: "base64-compressed", class: Prefixed, place: func(g *gen, td *typeDef, k FileKind, i int) snip {
			return placeCompressed(g, k, i, token(g))
		}},
		{name: "base64-nested", class: Prefixed, place: func(g *gen, td *typeDef, k FileKind, i int) snip {
			return placeNested(g, k, i, token(g))
		}},
	}
	for _, t := range ts {
		t.rules = innerTypes
		t.samples = 2
	}
	return ts
}

// generateEncoded adds the encoded types' files to c, from a generator
// seeded apart from the rest of the corpus.
func (c *Corpus) generateEncoded(seed uint64, seen map[string]bool) {
	g := &gen{r: rand.New(rand.NewPCG(seed^0x0e5c4bed, seed^0x5eed0e5c))}
	inner := map[string]*typeDef{}
	for _, td := range typeDefs() {
		inner[td.name] = td
	}
	for ti, td := range encodedTypeDefs(inner) {
		c.Types = append(c.Types, Type{Name: td.name, Class: td.class, Rules: td.rules})
		for _, k := range Kinds {
			f := g.positive(td, ti, td.name, k)
			c.add(seen, f.file, f.secrets)
		}
	}
}

// escaper writes one byte as an escape of some syntax.
type escaper func(c byte) string

var (
	escU      escaper = func(c byte) string { return fmt.Sprintf(`\u%04x`, c) }
	escUBrace escaper = func(c byte) string { return fmt.Sprintf(`\u{%x}`, c) }
	escUUpper escaper = func(c byte) string { return fmt.Sprintf(`\U%08x`, c) }
	escX      escaper = func(c byte) string { return fmt.Sprintf(`\x%02x`, c) }
	escOctal  escaper = func(c byte) string { return fmt.Sprintf(`\%03o`, c) }
	escDec    escaper = func(c byte) string { return fmt.Sprintf("&#%d;", c) }
	escHex    escaper = func(c byte) string { return fmt.Sprintf("&#x%x;", c) }
	escPct    escaper = func(c byte) string { return fmt.Sprintf("%%%02X", c) }
)

// escapeSome escapes v's first character and a few random others, and
// returns the written value with its random part's offsets.
func escapeSome(g *gen, v val, esc escaper) val {
	pick := map[int]bool{0: true}
	for range g.intn(3) {
		pick[v.cs+g.intn(v.ce-v.cs)] = true
	}
	var b strings.Builder
	out := val{}
	for i := 0; i < len(v.v); i++ {
		if i == v.cs {
			out.cs = b.Len()
		}
		if i == v.ce {
			out.ce = b.Len()
		}
		if pick[i] {
			b.WriteString(esc(v.v[i]))
		} else {
			b.WriteByte(v.v[i])
		}
	}
	if v.ce == len(v.v) {
		out.ce = b.Len()
	}
	out.v = b.String()
	return out
}

// placeEscaped writes a token with escaped characters in the string
// syntax of kind k (a URL query with percent escapes where k has none).
func placeEscaped(g *gen, k FileKind, i int, v val) snip {
	name := words(k, []string{g.pick("api", "service", "deploy"), "token"})
	if i == 1 {
		name = words(k, []string{"fallback", "token"})
	}
	p := func(a string, e val, b string, body bool) snip {
		return snip{pieces: []piece{tx(a), sec(e, "escaped"), tx(b)}, body: body}
	}
	switch k {
	case KindJSON:
		return p(`"`+name+`": "`, escapeSome(g, v, escU), `"`, false)
	case KindYAML:
		esc := []escaper{escU, escX}[g.intn(2)]
		return p(name+`: "`, escapeSome(g, v, esc), `"`, false)
	case KindTOML:
		esc := []escaper{escU, escUUpper}[g.intn(2)]
		return p(name+` = "`, escapeSome(g, v, esc), `"`, false)
	case KindProperties:
		return p(name+"=", escapeSome(g, v, escU), "", false)
	case KindXML:
		esc := []escaper{escDec, escHex}[g.intn(2)]
		if i == 1 {
			return p(`<add key="Remote" value="`, escapeSome(g, v, esc), `" />`, false)
		}
		return p("<"+name+">", escapeSome(g, v, esc), "</"+name+">", false)
	case KindGo:
		esc := []escaper{escX, escU, escOctal}[g.intn(3)]
		if i == 1 {
			return p(`client := dial("`, escapeSome(g, v, esc), "\")\n_ = client", true)
		}
		return p("const "+name+` = "`, escapeSome(g, v, esc), `"`, false)
	case KindPython:
		esc := []escaper{escX, escU, escUUpper, escOctal}[g.intn(4)]
		if i == 1 {
			return p(`client = connect("`, escapeSome(g, v, esc), `", timeout=30)`, true)
		}
		return p(strings.ToUpper(name)+` = "`, escapeSome(g, v, esc), `"`, false)
	case KindJS:
		esc := []escaper{escX, escU, escUBrace}[g.intn(3)]
		if i == 1 {
			return p(`const client = connect("`, escapeSome(g, v, esc), `", { timeout: 30 });`, true)
		}
		return p("const "+name+` = "`, escapeSome(g, v, esc), `";`, false)
	case KindShell:
		esc := []escaper{escX, escOctal}[g.intn(2)]
		if i == 1 {
			return p(`deploy-cli login --with $'`, escapeSome(g, v, esc), `' --region eu-west-1`, true)
		}
		return p("export "+name+`=$'`, escapeSome(g, v, esc), `'`, false)
	case KindEnv, KindINI:
		sep := "="
		if k == KindINI {
			sep = " = "
		}
		return p(name+"_URL"+sep+"https://hooks.example.com/v2/notify?access_token=", escapeSome(g, v, escPct), "&channel=ops", false)
	}
	panic("secretstest: no escaped syntax for " + string(k))
}

// invisibles are characters that display as nothing, written raw or, in
// some kinds, escaped.
var invisibles = []rune{0xAD, 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x2062}

// placeInvisible writes a token with one or two invisible characters
// inside its random part.
func placeInvisible(g *gen, k FileKind, i int, v val) snip {
	var b strings.Builder
	at := map[int]bool{v.cs + 1 + g.intn(v.ce-v.cs-1): true}
	if g.chance(0.5) {
		at[v.cs+1+g.intn(v.ce-v.cs-1)] = true
	}
	out := val{}
	for j := 0; j < len(v.v); j++ {
		if j == v.cs {
			out.cs = b.Len()
		}
		if j == v.ce {
			out.ce = b.Len()
		}
		if at[j] {
			r := invisibles[g.intn(len(invisibles))]
			// The neutral sample (no quoting checks) may escape it.
			switch {
			case i == 1 && k == KindXML && g.chance(0.5):
				fmt.Fprintf(&b, "&#%d;", r)
			case i == 1 && (k == KindJSON || k == KindJS) && g.chance(0.5):
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte(v.v[j])
	}
	if v.ce == len(v.v) {
		out.ce = b.Len()
	}
	out.v = b.String()
	s := sec(out, "invisible")
	if i == 0 {
		return snip{pieces: assign(g, k, []string{g.pick("api", "ci", "bot"), "token"}, "", s, "", true)}
	}
	return neutral(g, k, s)
}

// utf16LE encodes s as UTF-16LE, as PowerShell's -EncodedCommand takes it.
func utf16LE(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

// placePowerShell writes a PowerShell command line whose -EncodedCommand
// (base64 of UTF-16LE) sets a token.
func placePowerShell(g *gen, k FileKind, i int, v val) snip {
	script := g.pick("$env:API_TOKEN = '", "[Environment]::SetEnvironmentVariable('DEPLOY_TOKEN', '", "Invoke-RestMethod -Headers @{ Authorization = 'Bearer ") + v.v +
		g.pick("'; ./deploy.ps1 -Environment prod", "', 'User')", "' } -Uri https://api.example.com/v1/releases")
	enc := base64.StdEncoding.EncodeToString(utf16LE(script))
	pre := g.pick("powershell.exe -NoProfile -NonInteractive -EncodedCommand ", "pwsh -enc ", "powershell -ExecutionPolicy Bypass -e ")
	return commandIn(k, i, pre, sec(plain(enc), "powershell-encoded"), "")
}

// placeCompressed writes base64 of gzip or zlib data holding a small
// configuration file with a token.
func placeCompressed(g *gen, k FileKind, i int, v val) snip {
	conf := fmt.Sprintf("[auth]\nuser = %s\ntoken = %s\nendpoint = https://api.example.com\n", g.pick(userList...), v.v)
	var buf bytes.Buffer
	var variant string
	if g.chance(0.5) {
		w := gzip.NewWriter(&buf)
		w.Write([]byte(conf))
		w.Close()
		variant = "base64-gzip"
	} else {
		w := zlib.NewWriter(&buf)
		w.Write([]byte(conf))
		w.Close()
		variant = "base64-zlib"
	}
	enc := base64.StdEncoding.EncodeToString(buf.Bytes())
	s := sec(plain(enc), variant)
	if i == 0 {
		return snip{pieces: assign(g, k, []string{"bootstrap", "blob"}, "", s, "", true)}
	}
	if g.chance(0.5) {
		return wrappedBase64(g, k, enc, variant+"-wrapped")
	}
	return neutral(g, k, s)
}

// wrappedBase64 writes base64 wrapped at 64 or 76 columns, as MIME and
// PEM tools write it: on lines of their own where kind k has multi-line
// strings, else with escaped newlines (\n) in one string.
func wrappedBase64(g *gen, k FileKind, enc, variant string) snip {
	width := g.pickN(64, 76)
	var lines []string
	for len(enc) > width {
		lines = append(lines, enc[:width])
		enc = enc[width:]
	}
	lines = append(lines, enc)
	sep, pre, post := "\n", "", ""
	switch k {
	case KindYAML:
		sep, pre = "\n  ", "archive: |\n  "
	case KindTOML:
		pre, post = "archive = '''\n", "\n'''"
	case KindXML:
		pre, post = "<archive encoding=\"base64\">\n", "\n</archive>"
	case KindGo:
		pre, post = "const archive = `\n", "\n`"
	case KindPython:
		pre, post = "ARCHIVE = \"\"\"\n", "\n\"\"\""
	case KindJS:
		pre, post = "export const archive = `\n", "\n`;"
	case KindShell:
		pre, post = "base64 -d > /tmp/bootstrap.gz <<'EOF'\n", "\nEOF"
	case KindEnv:
		pre, post = "ARCHIVE=\"", "\""
	case KindJSON:
		sep, pre, post = `\n`, `"archive": "`, `"`
	case KindINI:
		sep, pre = `\n`, "archive = "
	case KindProperties:
		sep, pre = `\n`, "archive="
	}
	v := strings.Join(lines, sep)
	return snip{pieces: []piece{tx(pre), sec(plain(v), variant), tx(post)}}
}

// placeNested writes base64 of base64 of base64 (or four times) of a
// token assignment.
func placeNested(g *gen, k FileKind, i int, v val) snip {
	x := g.pick("token=", "", "Authorization: Bearer ") + v.v
	n := 3 + g.intn(2)
	for range n {
		x = base64.StdEncoding.EncodeToString([]byte(x))
	}
	s := sec(plain(x), fmt.Sprintf("base64x%d", n))
	if i == 0 {
		return snip{pieces: assign(g, k, []string{"seed", "data"}, "", s, "", true)}
	}
	return neutral(g, k, s)
}
