package contextbuilder_test

import (
	"bytes"
	cmpStd "cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ctxd/ctxd/contextbuilder"
	"github.com/ctxd/ctxd/contextbuilder/cbtest"
	"github.com/ctxd/ctxd/contextbuilder/tokens"
	"github.com/ctxd/ctxd/index"
)

// The property test builds random workspaces and random requests and checks
// the seed 002 invariants on every outcome. Each workspace comes from a
// fixed seed and is indexed once; each request comes from (seed, k). A
// failure names both in the subtest name:
//
//	go test ./contextbuilder -run 'TestProperties/^ws=17$/^req=2$' -v
//
// PROP_DUMP=1 logs every outcome; -v logs what the cases exercised.
const (
	propWorkspaces  = 50
	propRequestsPer = 4
	propModule      = "example.com/ws"
)

// wsFile is one file of a generated workspace.
type wsFile struct {
	path string
	data []byte
}

// workspace is a generated workspace and what the generator knows about it.
type genWS struct {
	files []wsFile
	// secrets are the planted secret values: none may appear anywhere in
	// an output.
	secrets []string
	// texts are the indexable text files (candidate targets).
	texts []string
	// denied are the never-send files written.
	denied []string
	// binaries are files with NUL bytes.
	binaries []string
	// symbols are declared names, for target_symbols.
	symbols []string
	// pemBodies maps a path to the 1-based line ranges of the key bodies
	// (between BEGIN and END) of the private key blocks planted in it.
	pemBodies map[string][][2]int
}

func (w *genWS) add(p string, data []byte) {
	w.files = append(w.files, wsFile{path: p, data: data})
}

func (w *genWS) data(p string) []byte {
	for _, f := range w.files {
		if f.path == p {
			return f.data
		}
	}
	return nil
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
const b64 = alnum + "+/"

func randString(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// secretKind is one way of planting a secret in a source file.
type secretKind int

const (
	secretPassword   secretKind = iota // password = "s3cr3t-value-…"
	secretSK                           // "sk-" + 30 alphanumerics
	secretPEMString                    // a private key block in a string literal
	secretPEMComment                   // a private key block in a comment
	numSecretKinds
)

// plantSecret returns the lines of a declaration (or comment) holding a
// secret in language lang ("go", "ts" or "txt"), and records the planted
// values. The key body lines are returned relative to the snippet (0-based
// start, exclusive end).
func (w *genWS) plantSecret(r *rand.Rand, lang string, kind secretKind, withEnd bool) (snippet string, body [2]int) {
	switch kind {
	case secretPassword:
		v := "s3cr3t-value-" + randString(r, alnum, 10)
		w.secrets = append(w.secrets, v)
		switch lang {
		case "go":
			return fmt.Sprintf("var password = %q\n", v), body
		case "ts":
			return fmt.Sprintf("export const password = %q;\n", v), body
		}
		return fmt.Sprintf("password = %q\n", v), body
	case secretSK:
		v := "sk-" + randString(r, alnum, 30)
		w.secrets = append(w.secrets, v)
		switch lang {
		case "go":
			return fmt.Sprintf("const openAIKey = %q\n", v), body
		case "ts":
			return fmt.Sprintf("export const openAIKey = %q;\n", v), body
		}
		return "the key is " + v + "\n", body
	}
	var b strings.Builder
	lines := 0
	open, closing := "", ""
	switch {
	case kind == secretPEMString && lang == "go":
		open, closing = "var deployKey = `", "`\n"
	case kind == secretPEMString && lang == "ts":
		open, closing = "export const deployKey = `", "`;\n"
	case lang == "go" || lang == "ts":
		open, closing = "/*\n", "*/\n"
		lines++
	}
	b.WriteString(open)
	b.WriteString("-----BEGIN PRIVATE KEY-----\n")
	lines++
	body[0] = lines
	for range 2 + r.IntN(4) {
		v := randString(r, b64, 64)
		w.secrets = append(w.secrets, v)
		b.WriteString(v + "\n")
		lines++
	}
	body[1] = lines
	if withEnd {
		b.WriteString("-----END PRIVATE KEY-----\n")
	}
	b.WriteString(closing)
	return b.String(), body
}

// goPkg is one Go package the generator may create.
type goPkg struct{ dir, name, prefix string }

var goPkgPool = []goPkg{
	{"pkg/alpha", "alpha", "Alpha"},
	{"pkg/beta", "beta", "Beta"},
	{"internal/gamma", "gamma", "Gamma"},
	{"util", "util", "Util"},
	{"svc/delta", "delta", "Delta"},
}

// sizeClass picks a file size target: mostly tiny, some medium, a few up to
// ~30 KB.
func sizeClass(r *rand.Rand) int {
	switch n := r.IntN(10); {
	case n < 5:
		return 0
	case n < 8:
		return 1000 + r.IntN(5000)
	default:
		return 10000 + r.IntN(20000)
	}
}

// padGo appends padding functions until the text reaches size bytes.
func padGo(b *strings.Builder, r *rand.Rand, prefix string, size int) {
	for k := 0; b.Len() < size; k++ {
		fmt.Fprintf(b, "\n// %sPad%d is padding: it makes the file larger.\nfunc %sPad%d(n int) int {\n\ts := n\n", strings.ToLower(prefix), k, strings.ToLower(prefix), k)
		for i := range 10 + r.IntN(20) {
			fmt.Fprintf(b, "\ts += %d * n // padding line %d keeps this function long\n", r.IntN(1000), i)
		}
		b.WriteString("\treturn s\n}\n")
	}
}

func padTS(b *strings.Builder, r *rand.Rand, prefix string, size int) {
	for k := 0; b.Len() < size; k++ {
		fmt.Fprintf(b, "\n// padding function %d\nexport function %sPad%d(n: number): number {\n  let s = n;\n", k, prefix, k)
		for i := range 10 + r.IntN(20) {
			fmt.Fprintf(b, "  s += %d * n; // padding line %d\n", r.IntN(1000), i)
		}
		b.WriteString("  return s;\n}\n")
	}
}

// insertAt inserts snippet among the top-level chunks of a file, returning
// the text and the 1-based first line of the snippet.
func insertAt(r *rand.Rand, chunks []string, snippet string) (string, int) {
	i := r.IntN(len(chunks) + 1)
	before := strings.Join(chunks[:i], "\n")
	if i > 0 {
		before += "\n"
	}
	text := before + snippet
	if i < len(chunks) {
		text += "\n" + strings.Join(chunks[i:], "\n")
	}
	return text, strings.Count(before, "\n") + 1
}

// plantIn maybe plants a secret in a generated file and returns the final
// text.
func (w *genWS) plantIn(r *rand.Rand, p, lang string, chance int, chunks []string, pad func(b *strings.Builder, atLeast int)) []byte {
	var snippet string
	var body [2]int
	planted := r.IntN(100) < chance
	if planted {
		kind := secretKind(r.IntN(int(numSecretKinds)))
		snippet, body = w.plantSecret(r, lang, kind, r.IntN(3) > 0)
	}
	var text string
	first := 0
	if planted {
		text, first = insertAt(r, chunks, snippet)
	} else {
		text = strings.Join(chunks, "\n")
	}
	var b strings.Builder
	b.WriteString(text)
	atLeast := 0
	if body[1] > body[0] {
		// Large enough that a small budget slices the file.
		atLeast = 4000
	}
	pad(&b, atLeast)
	if planted && body[1] > body[0] {
		if w.pemBodies == nil {
			w.pemBodies = map[string][][2]int{}
		}
		w.pemBodies[p] = append(w.pemBodies[p], [2]int{first + body[0], first + body[1] - 1})
	}
	return []byte(b.String())
}

// genWorkspace builds a random workspace: Go packages importing each
// other, TypeScript files, text files, never-send files, binary files and
// planted secrets.
func genWorkspace(r *rand.Rand) *genWS {
	w := &genWS{}
	w.add("go.mod", []byte("module "+propModule+"\n\ngo 1.22\n"))
	w.texts = append(w.texts, "go.mod")

	pkgs := slices.Clone(goPkgPool)
	r.Shuffle(len(pkgs), func(i, j int) { pkgs[i], pkgs[j] = pkgs[j], pkgs[i] })
	pkgs = pkgs[:1+r.IntN(4)]
	nfiles := make([]int, len(pkgs))
	for i := range pkgs {
		nfiles[i] = 1 + r.IntN(3)
	}
	helper := map[string]bool{}
	for i, pkg := range pkgs {
		var deps []goPkg
		for _, d := range pkgs[:i] {
			if r.IntN(2) == 0 {
				deps = append(deps, d)
			}
		}
		for j := range nfiles[i] {
			p := fmt.Sprintf("%s/%s%d.go", pkg.dir, pkg.name, j)
			widget := fmt.Sprintf("%sWidget%d", pkg.prefix, j)
			runner := fmt.Sprintf("%sRunner%d", pkg.prefix, j)
			fn0 := fmt.Sprintf("%sFunc%d_0", pkg.prefix, j)
			fn1 := fmt.Sprintf("%sFunc%d_1", pkg.prefix, j)
			w.symbols = append(w.symbols, widget, runner, fn0, fn1, widget+".Run")

			var chunks []string
			var hdr strings.Builder
			fmt.Fprintf(&hdr, "// Package %s is generated by the property test.\npackage %s\n\nimport (\n\t\"fmt\"\n", pkg.name, pkg.name)
			for _, d := range deps {
				fmt.Fprintf(&hdr, "\n\t%q\n", propModule+"/"+d.dir)
			}
			hdr.WriteString(")\n")
			chunks = append(chunks, hdr.String())

			var st strings.Builder
			fmt.Fprintf(&st, "// %s holds the state of file %d.\ntype %s struct {\n", widget, j, widget)
			if len(deps) > 0 && r.IntN(2) == 0 {
				d := deps[r.IntN(len(deps))]
				fmt.Fprintf(&st, "\t%s.%sWidget0\n", d.name, d.prefix)
			}
			st.WriteString("\tName  string\n\tCount int\n}\n")
			chunks = append(chunks, st.String())
			chunks = append(chunks, fmt.Sprintf("// %s runs things.\ntype %s interface {\n\tRun() int\n}\n", runner, runner))

			var run strings.Builder
			fmt.Fprintf(&run, "// Run implements %s.\nfunc (w *%s) Run() int {\n\tn := w.Count\n", runner, widget)
			for _, d := range deps {
				fmt.Fprintf(&run, "\tn += %s.%sFunc0_0(n)\n", d.name, d.prefix)
			}
			run.WriteString("\treturn n\n}\n")
			chunks = append(chunks, run.String())

			var f0 strings.Builder
			fmt.Fprintf(&f0, "// %s doubles x and asks its neighbours.\nfunc %s(x int) int {\n\ty := x * 2\n", fn0, fn0)
			if nfiles[i] > 1 {
				other := r.IntN(nfiles[i])
				if other != j {
					fmt.Fprintf(&f0, "\ty += %sFunc%d_1(y)\n", pkg.prefix, other)
				}
			}
			if len(deps) > 0 {
				d := deps[r.IntN(len(deps))]
				fmt.Fprintf(&f0, "\tw := &%s.%sWidget0{Count: y}\n\ty += w.Run()\n", d.name, d.prefix)
			}
			f0.WriteString("\tfmt.Println(y)\n\treturn y\n}\n")
			chunks = append(chunks, f0.String())
			chunks = append(chunks, fmt.Sprintf("func %s(x int) int { return x + %d }\n", fn1, r.IntN(100)))
			if r.IntN(3) == 0 && !helper[pkg.dir] {
				// Helper is declared in several packages: an ambiguous
				// target symbol.
				helper[pkg.dir] = true
				chunks = append(chunks, fmt.Sprintf("// Helper names the package.\nfunc Helper() string { return %q }\n", pkg.name))
			}
			size := sizeClass(r)
			w.add(p, w.plantIn(r, p, "go", 20, chunks, func(b *strings.Builder, atLeast int) { padGo(b, r, pkg.prefix+fmt.Sprint(j), max(size, atLeast)) }))
			w.texts = append(w.texts, p)
		}
	}
	if len(helper) > 0 {
		w.symbols = append(w.symbols, "Helper")
	}
	w.symbols = append(w.symbols, "Run")

	// TypeScript: web/main.ts imports web/util.ts and web/models/user.ts.
	ts := []string{"web/models/user.ts", "web/util.ts", "web/main.ts"}
	present := map[string]bool{}
	for _, p := range ts {
		if r.IntN(3) > 0 {
			present[p] = true
		}
	}
	for _, p := range ts {
		if !present[p] {
			continue
		}
		var chunks []string
		switch p {
		case "web/models/user.ts":
			chunks = append(chunks,
				"export interface User {\n  id: number;\n  name: string;\n}\n",
				"export function formatUser(u: User): string {\n  return u.id + \": \" + u.name;\n}\n")
			w.symbols = append(w.symbols, "User", "formatUser")
		case "web/util.ts":
			var h string
			if present["web/models/user.ts"] {
				h = "import { User } from \"./models/user\";\n"
			}
			chunks = append(chunks, h,
				"export function clamp(v: number, lo: number, hi: number): number {\n  return Math.min(hi, Math.max(lo, v));\n}\n",
				"export class Registry {\n  private items: string[] = [];\n\n  add(s: string): void {\n    this.items.push(s);\n  }\n\n  size(): number {\n    return this.items.length;\n  }\n}\n")
			w.symbols = append(w.symbols, "clamp", "Registry", "Registry.add")
		case "web/main.ts":
			var h strings.Builder
			if present["web/models/user.ts"] {
				h.WriteString("import { formatUser, User } from \"./models/user\";\n")
			}
			if present["web/util.ts"] {
				h.WriteString("import { clamp, Registry } from \"./util\";\n")
			}
			chunks = append(chunks, h.String(),
				"export interface Greeter {\n  greet(name: string): string;\n}\n",
				"export class MainGreeter implements Greeter {\n  greet(name: string): string {\n    return \"hello \" + name;\n  }\n}\n",
				"export function mainEntry(n: number): number {\n  return n * 2;\n}\n")
			w.symbols = append(w.symbols, "Greeter", "MainGreeter", "mainEntry")
		}
		size := sizeClass(r)
		w.add(p, w.plantIn(r, p, "ts", 20, chunks, func(b *strings.Builder, atLeast int) { padTS(b, r, "pad", max(size, atLeast)) }))
		w.texts = append(w.texts, p)
	}

	// Plain text files.
	if r.IntN(2) == 0 {
		w.add("README.md", []byte("# ws\n\nA generated workspace.\n"))
		w.texts = append(w.texts, "README.md")
	}
	if r.IntN(3) == 0 {
		chunks := []string{"Notes\n", "Deploy with care.\n"}
		size := 1000 + r.IntN(9000)
		w.add("docs/notes.txt", w.plantIn(r, "docs/notes.txt", "txt", 60, chunks, func(b *strings.Builder, atLeast int) {
			for i := 0; b.Len() < max(size, atLeast); i++ {
				fmt.Fprintf(b, "note %d: nothing to see here, only words to make the file longer.\n", i)
			}
		}))
		w.texts = append(w.texts, "docs/notes.txt")
	}

	// Never-send files, each holding a secret value.
	if r.IntN(2) == 0 {
		v := randString(r, alnum, 24)
		w.secrets = append(w.secrets, v)
		w.add(".env", []byte("API_KEY="+v+"\nDEBUG=true\n"))
		w.denied = append(w.denied, ".env")
	}
	if r.IntN(3) == 0 {
		s, _ := w.plantSecret(r, "txt", secretPEMComment, true)
		w.add("certs/server.pem", []byte(s))
		w.denied = append(w.denied, "certs/server.pem")
	}
	if r.IntN(4) == 0 {
		s, _ := w.plantSecret(r, "txt", secretPEMComment, r.IntN(2) == 0)
		w.add("keys/deploy.key", []byte(s))
		w.denied = append(w.denied, "keys/deploy.key")
	}
	if r.IntN(3) == 0 {
		v := "s3cr3t-value-" + randString(r, alnum, 10)
		w.secrets = append(w.secrets, v)
		w.add("bin/run.sh", []byte("#!/bin/sh\npassword=\""+v+"\"\nexec ./app\n"))
		w.denied = append(w.denied, "bin/run.sh")
	}
	if r.IntN(3) == 0 {
		w.add("node_modules/left-pad/index.js", []byte("module.exports = function leftPad(s) { return ' ' + s; };\n"))
		w.denied = append(w.denied, "node_modules/left-pad/index.js")
	}
	if r.IntN(2) == 0 || len(w.files) < 3 {
		b := []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13}
		for range 64 + r.IntN(256) {
			b = append(b, byte(r.IntN(256)))
		}
		w.add("assets/logo.png", b)
		w.binaries = append(w.binaries, "assets/logo.png")
	}
	return w
}

// write writes the workspace's files under dir in the given order.
func (w *genWS) write(t *testing.T, dir string, order []wsFile) {
	t.Helper()
	for _, f := range order {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// indexDir indexes dir as the only workspace folder and waits for the scan.
func indexDir(t *testing.T, dir string) *index.Index {
	t.Helper()
	x := index.New(index.Options{CacheDir: "off"})
	t.Cleanup(func() { x.Close() })
	x.SetRoots([]index.Root{{URI: index.PathToURI(dir), Name: filepath.Base(dir), Dir: dir}})
	if _, err := x.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	return x
}

func fileURI(root, rel string) string {
	return index.PathToURI(filepath.Join(root, filepath.FromSlash(rel)))
}

func intp(v int) *int       { return &v }
func strp(v string) *string { return &v }

// lineSpans returns each line of text without its line break.
func textLines(data []byte) []string {
	return strings.Split(string(data), "\n")
}

// genRequest builds a random request against a generated workspace.
func genRequest(r *rand.Rand, w *genWS, root string) *contextbuilder.Request {
	req := &contextbuilder.Request{}
	switch n := r.IntN(10); {
	case n < 5:
		req.Purpose = contextbuilder.PurposeDiff
	case n < 8:
		req.Purpose = contextbuilder.PurposePlan
	default:
		req.Purpose = contextbuilder.PurposeIntent
	}
	pickText := func() string { return w.texts[r.IntN(len(w.texts))] }
	pemRange := false
	withRange := func(p string, inKey bool) string {
		lines := textLines(w.data(p))
		if bodies := w.pemBodies[p]; len(bodies) > 0 && (inKey || r.IntN(10) < 7) {
			// A range inside a private key body: the slice must not carry
			// the key out without its BEGIN line.
			pemRange = true
			b := bodies[r.IntN(len(bodies))]
			l1 := b[0] + r.IntN(b[1]-b[0]+1)
			l2 := l1 + r.IntN(b[1]-l1+1)
			return fmt.Sprintf("%s:%d-%d", p, l1, l2)
		}
		l1 := 1 + r.IntN(len(lines))
		l2 := l1 + r.IntN(min(30, len(lines)-l1+1))
		if r.IntN(20) == 0 {
			l1 = len(lines) + 5 // past the end: invalid
			l2 = l1
		}
		return fmt.Sprintf("%s:%d-%d", p, l1, l2)
	}
	if keyed := slices.Sorted(maps.Keys(w.pemBodies)); len(keyed) > 0 && r.IntN(4) == 0 {
		// A diff whose target is a range inside a private key block, with
		// a budget too small for the whole file: the slice must not carry
		// the key's body out without its BEGIN line.
		req.Purpose = contextbuilder.PurposeDiff
		req.PlanStep = &contextbuilder.PlanStep{ID: "s-key", Text: "Rotate the key.", TargetFiles: []string{withRange(keyed[r.IntN(len(keyed))], true)}}
	}
	if req.Purpose != contextbuilder.PurposeIntent || r.IntN(3) == 0 {
		if r.IntN(10) < 8 && req.PlanStep == nil {
			ps := &contextbuilder.PlanStep{ID: fmt.Sprintf("s%d", r.IntN(100)), Text: "Change the code as planned."}
			var written []string
			for range r.IntN(4) {
				var t string
				switch n := r.IntN(100); {
				case n < 50:
					t = pickText()
				case n < 75:
					p := pickText()
					if keyed := slices.Sorted(maps.Keys(w.pemBodies)); len(keyed) > 0 && r.IntN(2) == 0 {
						// Prefer a file holding a private key block.
						p = keyed[r.IntN(len(keyed))]
					}
					t = withRange(p, false)
				case n < 83 && len(w.denied) > 0:
					t = w.denied[r.IntN(len(w.denied))]
				case n < 90 && len(written) > 0:
					f, _, _ := strings.Cut(written[r.IntN(len(written))], ":")
					t = "./" + f
				case n < 93 && len(w.binaries) > 0:
					t = w.binaries[r.IntN(len(w.binaries))]
				case n < 95:
					t = "missing/nope.go"
				default:
					t = fileURI(root, pickText())
				}
				written = append(written, t)
			}
			ps.TargetFiles = written
			if r.IntN(10) < 3 && !pemRange {
				for range 1 + r.IntN(2) {
					switch r.IntN(15) {
					case 0:
						ps.TargetSymbols = append(ps.TargetSymbols, "NoSuchSymbol")
					case 1, 2:
						ps.TargetSymbols = append(ps.TargetSymbols, "Run") // ambiguous
					default:
						ps.TargetSymbols = append(ps.TargetSymbols, w.symbols[r.IntN(len(w.symbols))])
					}
				}
			}
			req.PlanStep = ps
		}
		if r.IntN(10) < 3 || req.Purpose == contextbuilder.PurposeDiff && req.PlanStep == nil && r.IntN(10) > 0 {
			active := pickText()
			if r.IntN(15) == 0 && len(w.denied) > 0 {
				active = w.denied[r.IntN(len(w.denied))]
			}
			req.ActiveFile = fileURI(root, active)
			if data := w.data(active); r.IntN(10) < 7 && data != nil {
				lines := textLines(data)
				sl := r.IntN(len(lines))
				el := sl + r.IntN(min(40, len(lines)-sl))
				sc := r.IntN(len(lines[sl]) + 1)
				ec := r.IntN(len(lines[el]) + 1)
				if el == sl && ec < sc {
					sc, ec = ec, sc
				}
				req.Selection = &contextbuilder.SelectionRange{URI: req.ActiveFile, Range: contextbuilder.Range{
					Start: contextbuilder.Position{Line: sl, Character: sc},
					End:   contextbuilder.Position{Line: el, Character: ec},
				}}
			}
		}
	}
	if r.IntN(2) == 0 {
		req.Intent = &contextbuilder.Intent{ID: fmt.Sprintf("i%d", r.IntN(100)), Text: "Make the widgets faster."}
	}
	scopes := []contextbuilder.ConstraintScope{contextbuilder.ScopeSystem, contextbuilder.ScopeProject, contextbuilder.ScopeSession, contextbuilder.ScopeUser}
	texts := []string{"MUST NOT add dependencies", "Keep the public API stable.", "Write tests\nfor every change.", "Prefer small diffs."}
	for range r.IntN(4) {
		req.Constraints = append(req.Constraints, contextbuilder.Constraint{Scope: scopes[r.IntN(4)], ID: fmt.Sprintf("c%d", r.IntN(5)), Text: texts[r.IntN(len(texts))]})
	}
	if r.IntN(5) == 0 {
		le := &contextbuilder.LastError{Message: "syntax error: unexpected } at end of statement"}
		if r.IntN(2) == 0 {
			le.Path = pickText()
			if r.IntN(2) == 0 {
				le.Range = &contextbuilder.Range{Start: contextbuilder.Position{Line: r.IntN(10)}, End: contextbuilder.Position{Line: 10 + r.IntN(10)}}
			}
		}
		req.LastError = le
	}
	// Budgets from tiny to large, spread on a log scale.
	top := 200000.0
	if pemRange {
		// Small enough that the key's file is sliced to the range.
		top = 2500
	}
	maxIn := int(300 * math.Pow(top/300, r.Float64()))
	var reserve int
	if r.IntN(10) < 7 || pemRange {
		reserve = r.IntN(maxIn/4 + 1)
	} else {
		reserve = r.IntN(maxIn)
	}
	m := &contextbuilder.ModelRequest{MaxInputTokens: intp(maxIn), ResponseTokenReserve: intp(reserve), SoftLimitThresholdPct: intp(1 + r.IntN(100))}
	switch r.IntN(6) {
	case 0:
		m.Model = strp("gpt-4")
	case 1:
		m.Provider, m.Model = strp("anthropic"), strp("claude-sonnet-4")
	}
	req.Model = m
	if r.IntN(4) == 0 {
		req.CorrelationID = "0b6f3c2e-4d1a-4e8b-9c7d-2a5f6e8d9c01"
	}
	return req
}

var allowedRefusals = map[contextbuilder.RefusalCode]bool{
	contextbuilder.RefuseContextTooLarge:   true,
	contextbuilder.RefuseSecretRisk:        true,
	contextbuilder.RefuseAmbiguousTarget:   true,
	contextbuilder.RefuseUnsupportedTarget: true,
	contextbuilder.RefuseOutsideSandbox:    true,
	contextbuilder.RefuseTargetNotFound:    true,
}

var priorityRank = map[contextbuilder.Priority]int{"P0": 0, "P1": 1, "P2": 2, "P3": 3}

var typeRank = map[contextbuilder.BlockType]int{
	"system": 0, "constraints": 1, "project_meta": 2, "file": 3, "symbol": 4, "error_context": 5, "diff_hint": 6,
}

// neverSend reports whether a root-relative path is on seed 002's
// never-send list (plus ctxd's .env.* and .ctxd additions).
func neverSend(p string) bool {
	p = strings.ToLower(path.Clean(strings.TrimPrefix(p, "./")))
	segs := strings.Split(p, "/")
	for _, s := range segs[:len(segs)-1] {
		switch s {
		case ".git", ".vs", ".ctxd", "bin", "obj", "node_modules":
			return true
		}
	}
	if segs[0] == "packages" && len(segs) > 1 {
		return true
	}
	base := segs[len(segs)-1]
	if base == ".env" || strings.HasPrefix(base, ".env.") || base == ".git" {
		return true
	}
	for _, ext := range []string{".pfx", ".key", ".pem", ".env"} {
		if strings.HasSuffix(base, ext) {
			return true
		}
	}
	return false
}

var redactedMarker = regexp.MustCompile(`\[REDACTED:[A-Za-z0-9_.-]+\]`)

// explainedByRedaction reports whether content is text with zero or more
// spans replaced by [REDACTED:<rule>] markers.
func explainedByRedaction(content, text string) bool {
	pieces := redactedMarker.Split(content, -1)
	if len(pieces) == 1 {
		return content == text
	}
	if !strings.HasPrefix(text, pieces[0]) {
		return false
	}
	rest := text[len(pieces[0]):]
	for _, pc := range pieces[1 : len(pieces)-1] {
		// Each marker replaced a non-empty span.
		if rest == "" {
			return false
		}
		i := strings.Index(rest[1:], pc)
		if i < 0 {
			return false
		}
		rest = rest[1+i+len(pc):]
	}
	last := pieces[len(pieces)-1]
	return len(rest) > len(last) && strings.HasSuffix(rest, last)
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// propCase is one generated workspace on disk with its index.
type propCase struct {
	w     *genWS
	root  string
	x     *index.Index
	tok   *tokens.Cache
	stats map[string]int
}

func (c *propCase) opts() contextbuilder.Options {
	return contextbuilder.Options{CreatedAt: goldenTime, Tokens: c.tok}
}

// TestProperties checks the seed 002 invariants on random workspaces and
// requests: schemas, INV-CONTEXT-1 ordering, exclusions and never-send
// paths, planted secrets, the budget arithmetic and exact token count, no
// silent truncation, manifest consistency with the blocks and the disk,
// refusal shapes, agreement of Build, BuildManifest and Budget, and
// byte-identical rebuilds.
func TestProperties(t *testing.T) {
	n := propWorkspaces
	if testing.Short() {
		n = 10
	}
	stats := map[string]int{}
	t.Cleanup(func() {
		// What the generated cases exercised (go test -v shows it).
		keys := slices.Sorted(maps.Keys(stats))
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s=%d", k, stats[k]))
		}
		t.Logf("outcomes: %s", strings.Join(parts, " "))
	})
	for seed := range uint64(n) {
		t.Run(fmt.Sprintf("ws=%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 0x5eed))
			w := genWorkspace(r)
			root := tempRoot(t)
			w.write(t, root, w.files)
			c := &propCase{w: w, root: root, x: indexDir(t, root), tok: tokens.NewCache(0), stats: stats}
			for k := range uint64(propRequestsPer) {
				t.Run(fmt.Sprintf("req=%d", k), func(t *testing.T) {
					rr := rand.New(rand.NewPCG(seed, k+1))
					req := genRequest(rr, w, root)
					if len(w.pemBodies) > 0 {
						stats["ws_with_key_block"]++
					}
					if req.PlanStep != nil && slices.ContainsFunc(req.PlanStep.TargetFiles, func(f string) bool {
						p, rng, _ := strings.Cut(f, ":")
						return rng != "" && len(w.pemBodies[p]) > 0
					}) {
						stats["range_in_key_file"]++
					}
					c.check(t, req)
				})
			}
		})
	}
}

// check builds req and checks every property of the outcome.
func (c *propCase) check(t *testing.T, req *contextbuilder.Request) {
	t.Helper()
	ctx := context.Background()
	snap := c.x.Snapshot()
	resolveSelection(snap, req, "")
	reqJSON, _ := json.Marshal(req)
	t.Logf("request: %s", reqJSON)

	res, err := contextbuilder.Build(ctx, snap, req, c.opts())
	out := encodeOutcome(t, res, err) // validates against the schemas
	if os.Getenv("PROP_DUMP") != "" {
		t.Logf("outcome: %s", out)
	}
	for _, v := range c.w.secrets {
		if bytes.Contains(out, []byte(v)) {
			t.Errorf("INV-CONTEXT-4: planted secret %q appears in the output", v)
		}
	}

	// Building again gives byte-identical JSON.
	res2, err2 := contextbuilder.Build(ctx, c.x.Snapshot(), req, c.opts())
	if out2 := encodeOutcome(t, res2, err2); !bytes.Equal(out, out2) {
		t.Errorf("INV-CONTEXT-2: second build differs:\n%s", cmp.Diff(string(out), string(out2)))
	}

	mres, merr := contextbuilder.BuildManifest(ctx, snap, req, c.opts())
	bres, berr := contextbuilder.Budget(ctx, snap, req, c.opts())

	var ref *contextbuilder.Refusal
	switch {
	case errors.As(err, &ref):
		c.stats[string(ref.Code)]++
		c.checkRefusal(t, ref)
		var mref, bref *contextbuilder.Refusal
		if !errors.As(merr, &mref) || mref.Code != ref.Code {
			t.Errorf("BuildManifest: got %v, Build refused with %s", merr, ref.Code)
		} else if diff := cmp.Diff(ref, mref); diff != "" {
			t.Errorf("BuildManifest's refusal differs from Build's (-build +manifest):\n%s", diff)
		}
		if ref.Code == contextbuilder.RefuseContextTooLarge {
			if berr != nil {
				t.Fatalf("Budget: got error %v, want a refuse_hard_limit report", berr)
			}
			cbtest.ValidateValue(t, "budget_result.schema.json", bres)
			if bres.BudgetReport.Decision != contextbuilder.DecisionRefuse {
				t.Errorf("Budget: decision %s, want refuse_hard_limit", bres.BudgetReport.Decision)
			}
			if diff := cmp.Diff(ref.BudgetReport, bres.BudgetReport); diff != "" {
				t.Errorf("Budget's report differs from the refusal's (-refusal +budget):\n%s", diff)
			}
		} else if !errors.As(berr, &bref) || bref.Code != ref.Code {
			t.Errorf("Budget: got %v, Build refused with %s", berr, ref.Code)
		}
		return
	case err != nil:
		c.stats["invalid_request"]++
		if !errors.Is(err, contextbuilder.ErrInvalidRequest) {
			t.Fatalf("Build: an error that is neither a refusal nor an invalid request: %v", err)
		}
		if !errors.Is(merr, contextbuilder.ErrInvalidRequest) || !errors.Is(berr, contextbuilder.ErrInvalidRequest) {
			t.Errorf("Build says invalid request (%v); BuildManifest: %v, Budget: %v", err, merr, berr)
		}
		return
	}
	if merr != nil || berr != nil {
		t.Fatalf("Build succeeded; BuildManifest: %v, Budget: %v", merr, berr)
	}
	cbtest.ValidateValue(t, "manifest_result.schema.json", mres)
	cbtest.ValidateValue(t, "budget_result.schema.json", bres)
	if diff := cmp.Diff(res.Manifest, mres.Manifest); diff != "" {
		t.Errorf("BuildManifest's manifest differs (-build +manifest):\n%s", diff)
	}
	if diff := cmp.Diff(res.RedactionReport, mres.RedactionReport); diff != "" {
		t.Errorf("BuildManifest's redaction report differs (-build +manifest):\n%s", diff)
	}
	if diff := cmp.Diff(res.BudgetReport, mres.BudgetReport); diff != "" {
		t.Errorf("BuildManifest's budget report differs (-build +manifest):\n%s", diff)
	}
	// ctxd.budget builds no bundle, so its report may leave bundle_id
	// empty; everything else is Build's.
	if id := bres.BudgetReport.BundleID; id != "" && id != res.BudgetReport.BundleID {
		t.Errorf("Budget's bundle_id %q, Build's %q", id, res.BudgetReport.BundleID)
	}
	if diff := cmp.Diff(res.BudgetReport, bres.BudgetReport, cmpopts.IgnoreFields(contextbuilder.BudgetReport{}, "BundleID")); diff != "" {
		t.Errorf("Budget's report differs (-build +budget):\n%s", diff)
	}
	c.stats[string(res.BudgetReport.Decision)]++
	for _, rd := range res.RedactionReport.Redactions {
		c.stats[string(rd.Type)+"/"+string(rd.Reason)]++
	}
	for _, b := range res.Bundle.Blocks {
		c.stats["block_"+string(b.Priority)+"_"+string(b.BlockType)]++
		for _, lv := range []string{"TARGET_REGION_ONLY", "SIGNATURES_ONLY"} {
			if strings.Contains(b.Title, lv) {
				c.stats["sliced_"+string(b.BlockType)+"_"+lv]++
			}
		}
	}
	c.checkCounts(t, res, bres.Counts)
	c.checkResult(t, res)
}

func (c *propCase) checkRefusal(t *testing.T, ref *contextbuilder.Refusal) {
	t.Helper()
	if !allowedRefusals[ref.Code] {
		t.Errorf("refusal code %q is not a seed 002 code", ref.Code)
	}
	if strings.TrimSpace(ref.Message) == "" || strings.TrimSpace(ref.Advice) == "" {
		t.Errorf("refusal %s without message or advice: %+v", ref.Code, ref)
	}
	switch ref.Code {
	case contextbuilder.RefuseContextTooLarge:
		b := ref.BudgetReport
		if b == nil {
			t.Fatalf("REFUSE_CONTEXT_TOO_LARGE without a budget report")
		}
		if b.Decision != contextbuilder.DecisionRefuse || b.EstimatedInputTokens <= b.HardLimitTokens {
			t.Errorf("REFUSE_CONTEXT_TOO_LARGE: decision %s, estimated %d, hard %d", b.Decision, b.EstimatedInputTokens, b.HardLimitTokens)
		}
		if b.HardLimitTokens != b.MaxInputTokens-b.ReserveOutputTokens {
			t.Errorf("hard_limit_tokens %d != %d - %d", b.HardLimitTokens, b.MaxInputTokens, b.ReserveOutputTokens)
		}
	case contextbuilder.RefuseAmbiguousTarget:
		if len(ref.Candidates) < 2 {
			t.Errorf("REFUSE_AMBIGUOUS_TARGET with %d candidates", len(ref.Candidates))
		}
	}
	if ref.Manifest != nil {
		for _, p := range ref.Manifest.Selection.TargetFiles {
			if neverSend(p) {
				t.Errorf("refusal manifest names never-send target %s", p)
			}
		}
	}
}

func (c *propCase) checkCounts(t *testing.T, res *contextbuilder.Result, got contextbuilder.Counts) {
	t.Helper()
	want := map[contextbuilder.Priority]int{"P0": 0, "P1": 0, "P2": 0, "P3": 0}
	files := map[string]bool{}
	for _, b := range res.Bundle.Blocks {
		want[b.Priority]++
		if (b.BlockType == contextbuilder.BlockFile || b.BlockType == contextbuilder.BlockSymbol) && b.Meta.Path != nil {
			files[*b.Meta.Path] = true
		}
	}
	if diff := cmp.Diff(want, got.Blocks); diff != "" {
		t.Errorf("Budget counts.blocks differ from the bundle (-bundle +counts):\n%s", diff)
	}
	if got.Files != len(files) {
		t.Errorf("Budget counts.files = %d, the bundle has blocks from %d files", got.Files, len(files))
	}
	if got.Redactions != len(res.RedactionReport.Redactions) {
		t.Errorf("Budget counts.redactions = %d, the report has %d", got.Redactions, len(res.RedactionReport.Redactions))
	}
	if got.TargetFiles != len(res.Manifest.Selection.TargetFiles) {
		t.Errorf("Budget counts.target_files = %d, the manifest has %d", got.TargetFiles, len(res.Manifest.Selection.TargetFiles))
	}
}

// checkResult checks the invariants of a successful build.
func (c *propCase) checkResult(t *testing.T, res *contextbuilder.Result) {
	t.Helper()
	blocks := res.Bundle.Blocks
	sel := res.Manifest.Selection

	// INV-CONTEXT-1: priority, block type, then path / symbol / title.
	key := func(b *contextbuilder.Block) string {
		switch b.BlockType {
		case contextbuilder.BlockFile:
			return deref(b.Meta.Path)
		case contextbuilder.BlockSymbol:
			return deref(b.Meta.Symbol)
		}
		return b.Title
	}
	for i := 1; i < len(blocks); i++ {
		a, b := &blocks[i-1], &blocks[i]
		order := cmpStd.Or(
			cmpOrd(priorityRank[a.Priority], priorityRank[b.Priority]),
			cmpOrd(typeRank[a.BlockType], typeRank[b.BlockType]),
			strings.Compare(key(a), key(b)))
		if order > 0 {
			t.Errorf("INV-CONTEXT-1: block %d (%s %s %q) sorts after block %d (%s %s %q)", i-1, a.Priority, a.BlockType, key(a), i, b.Priority, b.BlockType, key(b))
		}
	}
	ids := map[string]bool{}
	for _, b := range blocks {
		if ids[b.BlockID] {
			t.Errorf("duplicate block_id %s", b.BlockID)
		}
		ids[b.BlockID] = true
	}

	// Exclusions, never-send paths and secrets.
	excluded := map[string][]contextbuilder.ExcludeReason{}
	for _, e := range sel.ExcludedCandidates {
		// A block removed for the budget is excluded token_budget even
		// when another block of its file is sent.
		if e.Reason != contextbuilder.ExcludeDuplicate && e.Reason != contextbuilder.ExcludeTokenBudget {
			excluded[e.Path] = append(excluded[e.Path], e.Reason)
		}
	}
	for _, p := range sel.TargetFiles {
		if neverSend(p) {
			t.Errorf("never-send path %s is a target", p)
		}
	}
	for i, b := range blocks {
		if p := deref(b.Meta.Path); p != "" {
			for _, why := range excluded[p] {
				if b.BlockType == contextbuilder.BlockErrorContext {
					// last_error's location, not the file's content.
					continue
				}
				t.Errorf("block %d (%s %q) has meta.path %s, which excluded_candidates lists as %s", i, b.BlockType, b.Title, p, why)
			}
			if neverSend(p) {
				t.Errorf("block %d has never-send meta.path %s", i, p)
			}
		}
		for _, v := range c.w.secrets {
			if strings.Contains(b.Content, v) || strings.Contains(b.Title, v) {
				t.Errorf("INV-CONTEXT-4: block %d (%s %q) contains planted secret %q", i, b.BlockType, b.Title, v)
			}
		}
	}

	// Budget arithmetic and the exact token count.
	m := res.Bundle.Model
	br := res.BudgetReport
	hard := m.MaxInputTokens - m.ResponseTokenReserve
	soft := hard * m.SoftLimitThresholdPct / 100
	if br.HardLimitTokens != hard || br.SoftLimitTokens != soft || br.MaxInputTokens != m.MaxInputTokens || br.ReserveOutputTokens != m.ResponseTokenReserve {
		t.Errorf("budget report limits %+v, want hard %d soft %d for model %+v", br, hard, soft, m)
	}
	switch br.Decision {
	case contextbuilder.DecisionOK, contextbuilder.DecisionWarn:
	default:
		t.Errorf("decision %q in a built bundle", br.Decision)
	}
	if br.EstimatedInputTokens > hard {
		t.Errorf("estimated %d > hard limit %d in a built bundle", br.EstimatedInputTokens, hard)
	}
	if (br.Decision == contextbuilder.DecisionOK) != (br.EstimatedInputTokens <= soft) {
		t.Errorf("decision %s with estimated %d and soft limit %d", br.Decision, br.EstimatedInputTokens, soft)
	}
	est := tokens.ForModel(m.Model)
	sum := 0
	for _, b := range blocks {
		sum += est.Count(b.Title + "\n" + b.Content)
	}
	if sum != br.EstimatedInputTokens {
		t.Errorf("estimated_input_tokens %d, but the rendered blocks count %d tokens", br.EstimatedInputTokens, sum)
	}
	if !slices.Contains(br.Notes, est.Note()) {
		t.Errorf("budget notes %q do not record the estimator %q", br.Notes, est.Note())
	}
	if br.Decision == contextbuilder.DecisionWarn && !slices.ContainsFunc(br.Notes, func(n string) bool { return strings.Contains(n, "soft limit") && strings.HasPrefix(n, "warning") }) {
		t.Errorf("warn_soft_limit without a warning note: %q", br.Notes)
	}

	// No silent truncation.
	redactions := map[string]map[contextbuilder.RedactionType]bool{}
	for _, rd := range res.RedactionReport.Redactions {
		if redactions[rd.Target] == nil {
			redactions[rd.Target] = map[contextbuilder.RedactionType]bool{}
		}
		redactions[rd.Target][rd.Type] = true
	}
	disk := map[string][]byte{}
	readDisk := func(p string) []byte {
		if b, ok := disk[p]; ok {
			return b
		}
		b, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(p)))
		if err != nil {
			t.Fatalf("reading %s: %v", p, err)
		}
		disk[p] = b
		return b
	}
	for i, b := range blocks {
		p := deref(b.Meta.Path)
		switch b.BlockType {
		case contextbuilder.BlockFile:
			sliced := strings.Contains(b.Title, "TARGET_REGION_ONLY") || strings.Contains(b.Title, "SIGNATURES_ONLY")
			if sliced {
				if !redactions[p][contextbuilder.RedactContentSliced] {
					t.Errorf("INV-CONTEXT-3: file block %d (%q) is sliced without a content_sliced entry for %s", i, b.Title, p)
				}
				continue
			}
			text := string(readDisk(p))
			if b.Content == text {
				continue
			}
			if !explainedByRedaction(b.Content, text) {
				t.Errorf("INV-CONTEXT-3: file block %d (%q) is not the whole file and not marked sliced (%d bytes of %d)", i, b.Title, len(b.Content), len(text))
			} else if !redactions[p][contextbuilder.RedactPatternRedacted] {
				t.Errorf("file block %d (%q) has redaction markers without a pattern_redacted entry", i, b.Title)
			}
		case contextbuilder.BlockSymbol:
			if !redactions[p][contextbuilder.RedactContentSliced] {
				t.Errorf("INV-CONTEXT-3: symbol block %d (%q) without a content_sliced entry for %s", i, b.Title, p)
			}
		}
	}
	// Every removal for the budget is an excluded candidate token_budget
	// (issue 32, item 15), also when another block of its file is sent.
	budgetExcluded := map[string]bool{}
	for _, e := range sel.ExcludedCandidates {
		if e.Reason == contextbuilder.ExcludeTokenBudget {
			budgetExcluded[e.Path] = true
		}
	}
	for _, red := range res.RedactionReport.Redactions {
		if red.Type == contextbuilder.RedactBlockRemoved && red.Reason == contextbuilder.RedactReasonBudget && red.Count() == 1 && !budgetExcluded[red.Target] && !grouped(sel.ExcludedCandidates) {
			t.Errorf("%s: a block removed for the budget (%s) is not an excluded candidate token_budget", red.Target, red.Details)
		}
	}
	for _, e := range sel.ExcludedCandidates {
		switch e.Reason {
		case contextbuilder.ExcludeTokenBudget:
			if !redactions[e.Path][contextbuilder.RedactBlockRemoved] {
				t.Errorf("INV-CONTEXT-3: %s excluded for token_budget without a block_removed entry", e.Path)
			}
		case contextbuilder.ExcludeDenyRule:
			if !redactions[e.Path][contextbuilder.RedactPathExcluded] {
				t.Errorf("%s excluded by deny_rule without a path_excluded entry", e.Path)
			}
		}
	}

	// The manifest's included files are exactly the files of the file and
	// symbol blocks, with the hash of the bytes on disk.
	included := map[string]contextbuilder.IncludedFile{}
	for _, f := range sel.IncludedFiles {
		included[f.Path] = f
	}
	withBlock := map[string]bool{}
	for i, b := range blocks {
		if b.BlockType != contextbuilder.BlockFile && b.BlockType != contextbuilder.BlockSymbol {
			continue
		}
		p := deref(b.Meta.Path)
		if p == "" {
			t.Errorf("%s block %d without meta.path", b.BlockType, i)
			continue
		}
		withBlock[p] = true
		f, ok := included[p]
		if !ok {
			t.Errorf("block %d path %s is not in included_files", i, p)
			continue
		}
		h := sha256Hex(readDisk(p))
		if deref(b.Meta.Hash) != f.Hash || f.Hash != h {
			t.Errorf("block %d path %s: meta.hash %s, included_files hash %s, sha256 on disk %s", i, p, deref(b.Meta.Hash), f.Hash, h)
		}
	}
	for p := range included {
		if !withBlock[p] {
			t.Errorf("included_files lists %s, which no file or symbol block comes from", p)
		}
	}
	// Every target is a P0 file block.
	for _, p := range sel.TargetFiles {
		if !slices.ContainsFunc(blocks, func(b contextbuilder.Block) bool {
			return b.BlockType == contextbuilder.BlockFile && b.Priority == contextbuilder.P0 && deref(b.Meta.Path) == p
		}) {
			t.Errorf("target %s has no P0 file block", p)
		}
	}
}

func cmpOrd(a, b int) int { return cmpStd.Compare(a, b) }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// buildText indexes files (path, text pairs) in a fresh root and builds req.
func buildText(t *testing.T, req *contextbuilder.Request, files ...string) (*contextbuilder.Result, error) {
	t.Helper()
	root := tempRoot(t)
	var order []wsFile
	for i := 0; i+1 < len(files); i += 2 {
		order = append(order, wsFile{path: files[i], data: []byte(files[i+1])})
	}
	(&genWS{}).write(t, root, order)
	x := indexDir(t, root)
	return contextbuilder.Build(context.Background(), x.Snapshot(), req, contextbuilder.Options{CreatedAt: goldenTime})
}

// TestRegionSliceRedactsPrivateKeyBody is a regression test: a
// TARGET_REGION_ONLY slice inside a private key's body (a line range that
// leaves out the BEGIN line) matched no rule when scanned alone, and the key
// body was sent. The whole file's findings are now carried into its slices.
func TestRegionSliceRedactsPrivateKeyBody(t *testing.T) {
	const body1 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
	const body2 = "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"
	var b strings.Builder
	b.WriteString("Notes\n-----BEGIN PRIVATE KEY-----\n" + body1 + "\n" + body2 + "\n-----END PRIVATE KEY-----\n")
	for i := 0; b.Len() < 6000; i++ {
		fmt.Fprintf(&b, "note %d: nothing to see here, only words to make the file longer.\n", i)
	}
	req := &contextbuilder.Request{
		Purpose:  contextbuilder.PurposeDiff,
		PlanStep: &contextbuilder.PlanStep{ID: "s1", Text: "Edit the notes.", TargetFiles: []string{"notes.txt:3-4"}},
		Model:    &contextbuilder.ModelRequest{MaxInputTokens: intp(1000), ResponseTokenReserve: intp(0)},
	}
	res, err := buildText(t, req, "notes.txt", b.String())
	out := encodeOutcome(t, res, err)
	for _, v := range []string{body1, body2} {
		if bytes.Contains(out, []byte(v)) {
			t.Errorf("the private key body line %q is sent:\n%s", v, out)
		}
	}
}

// grouped reports whether an excluded candidates list has group entries
// ("dir/* (n candidates)"), which stand for paths the list no longer names.
func grouped(ex []contextbuilder.Excluded) bool {
	return slices.ContainsFunc(ex, func(e contextbuilder.Excluded) bool { return e.Count() > 1 })
}

// TestPartlyIncludedPathIsExcludedForBudget: a file whose P2 block was
// removed for the budget while a P1 symbol block from it is kept is an
// excluded candidate token_budget and an included file. The manifest
// accounts for every removal (issue 32, item 15: blocks removed for the
// budget were in no excluded_candidates entry); only the budget's
// exclusions are listed for a path that is also sent.
func TestPartlyIncludedPathIsExcludedForBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\n// B is used by A.\nfunc B() int { return 2 }\n\n// UsesA calls A.\nfunc UsesA() int {\n\ts := A()\n")
	for i := range 300 {
		fmt.Fprintf(&b, "\ts += %d // padding that makes the caller file large\n", i)
	}
	b.WriteString("\treturn s\n}\n")
	req := &contextbuilder.Request{
		Purpose:  contextbuilder.PurposeDiff,
		PlanStep: &contextbuilder.PlanStep{ID: "s1", Text: "Change A.", TargetFiles: []string{"a.go"}},
		Model:    &contextbuilder.ModelRequest{MaxInputTokens: intp(2000), ResponseTokenReserve: intp(0), SoftLimitThresholdPct: intp(100)},
	}
	res, err := buildText(t, req, "go.mod", "module example.com/p\n", "a.go", "package p\n\nfunc A() int { return B() + 1 }\n", "b.go", b.String())
	if err != nil {
		t.Fatal(err)
	}
	var excluded, included, block bool
	for _, e := range res.Manifest.Selection.ExcludedCandidates {
		excluded = excluded || e.Path == "b.go" && e.Reason == contextbuilder.ExcludeTokenBudget
	}
	for _, f := range res.Manifest.Selection.IncludedFiles {
		included = included || f.Path == "b.go"
	}
	for _, bl := range res.Bundle.Blocks {
		block = block || deref(bl.Meta.Path) == "b.go"
	}
	if !excluded || !included || !block {
		t.Errorf("b.go: excluded token_budget %v (want true; excluded_candidates %v), included %v, has a block %v (want both true)", excluded, res.Manifest.Selection.ExcludedCandidates, included, block)
	}
}
