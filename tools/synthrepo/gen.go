package main

import (
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
)

// gen writes the text of one file of the plan. The code is meant to look
// like code to a parser and to ctxd's relation extraction — real
// declarations, calls across packages and modules through real imports,
// nesting, comments — not to do anything useful. It is nevertheless
// meant to compile: a test parses every Go file and resolves every
// import, and for the seeds tried the Go packages pass go vet and the
// TypeScript modules (tests aside, which need vitest's types) pass
// tsc --strict.
type gen struct {
	p   *plan
	f   *fileSpec
	u   *unit
	rng *rand.Rand
	b   *strings.Builder

	// What the file refers to, collected while the body is written, since
	// the header (imports) comes first in the file but is known last.
	std     map[string]bool // Go: standard packages used
	goDeps  map[int]string  // Go: unit → the name the file uses for it
	goNames map[string]bool // Go: import names taken in this file
	tsFrom  map[string][]string
	tsNames map[string]bool // TS: names bound at module scope
	helpers []string        // helpers declared so far, which later code calls
	taken   map[string]bool // Go: file-level names declared so far
	vars    int             // numbers the locals, so that none is redeclared
}

// fileText returns the content of file i.
func (p *plan) fileText(i int) string {
	f := &p.files[i]
	if f.kind == fRoot {
		return f.body
	}
	g := &gen{p: p, f: f, u: &p.units[f.unit], rng: rand.New(rand.NewPCG(p.seed, uint64(i)+1<<40)), b: &strings.Builder{}}
	switch f.kind {
	case fGo, fGoTest:
		return g.goFile()
	case fTS:
		return g.tsFile()
	case fTSIndex:
		return g.tsIndex()
	case fMarkdown:
		return g.markdown()
	case fJSON:
		return g.json()
	default:
		return g.yaml()
	}
}

// line writes one indented line.
func (g *gen) line(depth int, format string, args ...any) {
	g.b.WriteString(strings.Repeat("\t", depth))
	fmt.Fprintf(g.b, format, args...)
	g.b.WriteByte('\n')
}

// tsLine is line with TypeScript's two-space indentation.
func (g *gen) tsLine(depth int, format string, args ...any) {
	g.b.WriteString(strings.Repeat("  ", depth))
	fmt.Fprintf(g.b, format, args...)
	g.b.WriteByte('\n')
}

// stmts is how many statements a body gets: lo plus up to spread more,
// fewer in a small file, so that small targets give small files (a
// declaration of the default length alone is a few hundred bytes).
func (g *gen) stmts(lo, spread int) int {
	if g.f.size < 3000 {
		lo, spread = max(1, lo/2), max(1, spread/4)
	}
	return lo + g.rng.IntN(spread)
}

func (g *gen) local(prefix string) string {
	g.vars++
	return fmt.Sprintf("%s%d", prefix, g.vars)
}

// own returns the exported symbols this file declares.
func (g *gen) own() []symbol {
	var out []symbol
	for _, s := range g.u.exports {
		if s.file == g.f.ord {
			out = append(out, s)
		}
	}
	return out
}

// depSymbol picks an exported symbol of one of the unit's dependencies
// (or, with sameUnit, of the unit itself, declared in another file).
func (g *gen) depSymbol(sameUnit bool) (int, symbol, bool) {
	cands := g.u.deps
	if sameUnit {
		cands = []int{g.f.unit}
	}
	if len(cands) == 0 {
		return 0, symbol{}, false
	}
	d := cands[g.rng.IntN(len(cands))]
	ex := g.p.units[d].exports
	if sameUnit {
		ex = slices.DeleteFunc(slices.Clone(ex), func(s symbol) bool { return s.file == g.f.ord })
	}
	if len(ex) == 0 {
		return 0, symbol{}, false
	}
	return d, ex[g.rng.IntN(len(ex))], true
}

// ---- Go ----

// goImport returns the name the file uses for unit d, importing it.
func (g *gen) goImport(d int) string {
	if name, ok := g.goDeps[d]; ok {
		return name
	}
	name := g.p.units[d].name
	for i := 2; g.goNames[name]; i++ {
		name = fmt.Sprintf("%s%d", g.p.units[d].name, i)
	}
	g.goNames[name] = true
	g.goDeps[d] = name
	return name
}

func (g *gen) goFile() string {
	g.std, g.goDeps, g.goNames, g.taken = map[string]bool{}, map[int]string{}, map[string]bool{}, map[string]bool{}
	for _, s := range []string{"context", "fmt", "strings", "sync", "testing"} {
		g.goNames[s] = true
	}
	test := g.f.kind == fGoTest
	switch {
	case test:
		g.std["testing"] = true
	case g.u.kind == goCmd && g.f.ord == 0:
		g.goMain()
	}
	for _, s := range g.own() {
		g.goExport(s)
	}
	for g.b.Len() < g.f.size {
		switch {
		case test:
			g.goTest()
		case g.rng.IntN(6) == 0 && g.u.kind == goPkg:
			g.goLocalType()
		default:
			g.goHelper()
		}
	}
	return g.goHeader() + g.b.String()
}

// goHeader is the copyright line, the package doc in the package's first
// file, the package clause and the imports (standard library first).
func (g *gen) goHeader() string {
	var h strings.Builder
	h.WriteString("// Copyright 2025 The Mono Authors. All rights reserved.\n// Use of this source code is governed by the LICENSE file.\n\n")
	if g.f.ord == 0 {
		fmt.Fprintf(&h, "// Package %s %s.\n", g.u.name, sentence(g.rng, 4+g.rng.IntN(8)))
	}
	fmt.Fprintf(&h, "package %s\n\n", g.u.name)
	var std, mod []string
	for s := range g.std {
		std = append(std, fmt.Sprintf("\t%q", s))
	}
	for d, name := range g.goDeps {
		imp := fmt.Sprintf("%q", module+"/"+g.p.units[d].dir)
		if name != g.p.units[d].name {
			imp = name + " " + imp
		}
		mod = append(mod, "\t"+imp)
	}
	slices.Sort(std)
	slices.Sort(mod)
	if len(std)+len(mod) > 0 {
		h.WriteString("import (\n")
		h.WriteString(strings.Join(std, "\n"))
		if len(std) > 0 && len(mod) > 0 {
			h.WriteString("\n\n")
		}
		h.WriteString(strings.Join(mod, "\n"))
		h.WriteString("\n)\n\n")
	}
	return h.String()
}

func (g *gen) goMain() {
	g.std["context"], g.std["fmt"] = true, true
	g.line(0, "func main() {")
	g.line(1, "total, err := run(context.Background(), %d)", 2+g.rng.IntN(9))
	g.line(1, "if err != nil {")
	g.line(2, "fmt.Println(err)")
	g.line(2, "return")
	g.line(1, "}")
	g.line(1, "fmt.Println(total)")
	g.line(0, "}\n")
	g.line(0, "// run %s.", sentence(g.rng, 5))
	g.line(0, "func run(ctx context.Context, n int) (int, error) {")
	g.goBody(1, "return total, fmt.Errorf(%q, err)", g.stmts(4, 10))
	g.line(1, "return total, nil")
	g.line(0, "}\n")
}

// goExport declares one planned exported symbol.
func (g *gen) goExport(s symbol) {
	if s.kind != symConst {
		g.std["context"] = true // every signature takes a context
	}
	switch s.kind {
	case symFunc:
		g.line(0, "// %s %s.", s.name, sentence(g.rng, 3+g.rng.IntN(10)))
		g.line(0, "func %s(ctx context.Context, n int) (int, error) {", s.name)
		g.goBody(1, "return total, fmt.Errorf(%q, err)", g.stmts(3, 12))
		g.line(1, "return total, nil")
		g.line(0, "}\n")
	case symType:
		g.std["sync"] = true
		g.line(0, "// %s holds %s.", s.name, sentence(g.rng, 3+g.rng.IntN(8)))
		g.line(0, "type %s struct {", s.name)
		g.line(1, "ID    string")
		g.line(1, "Count int")
		g.line(1, "Tags  []string")
		if d, dep, ok := g.depSymbol(false); ok && dep.kind == symType {
			// Methods are never named …Ref: the field cannot clash with one.
			g.line(1, "%sRef *%s.%s", camel(g.rng, 1, true), g.goImport(d), dep.name)
		}
		g.line(1, "mu    sync.Mutex")
		g.line(0, "}\n")
		g.line(0, "// New%s returns an empty %s.", s.name, s.name)
		g.line(0, "func New%s() *%s {", s.name, s.name)
		g.line(1, "return &%s{ID: %q, Count: %d}", s.name, word(g.rng), g.rng.IntN(100))
		g.line(0, "}\n")
		methods := []string{s.method}
		for range g.rng.IntN(3) {
			if m := camel(g.rng, 2, true); !slices.Contains(methods, m) {
				methods = append(methods, m)
			}
		}
		for _, m := range methods {
			g.line(0, "// %s %s.", m, sentence(g.rng, 3+g.rng.IntN(8)))
			g.line(0, "func (r *%s) %s(ctx context.Context, n int) (int, error) {", s.name, m)
			g.line(1, "r.mu.Lock()")
			g.line(1, "defer r.mu.Unlock()")
			g.line(1, "total := r.Count")
			g.goStmts(1, "return total, fmt.Errorf(%q, err)", g.stmts(2, 8))
			g.line(1, "r.Count = total")
			g.line(1, "return total, nil")
			g.line(0, "}\n")
		}
	case symIface:
		g.line(0, "// %s is %s.", s.name, sentence(g.rng, 3+g.rng.IntN(8)))
		g.line(0, "type %s interface {", s.name)
		g.line(1, "%s(ctx context.Context, n int) (int, error)", s.method)
		for range g.rng.IntN(3) {
			g.line(1, "%s() string", camel(g.rng, 2, true))
		}
		g.line(0, "}\n")
	case symConst:
		g.line(0, "// %s is %s.", s.name, sentence(g.rng, 3+g.rng.IntN(6)))
		g.line(0, "const %s = %d\n", s.name, g.rng.IntN(1000))
	}
}

// goHelper declares an unexported function the file's later code calls.
func (g *gen) goHelper() {
	g.std["context"] = true
	name := g.helperName()
	g.line(0, "// %s %s.", name, sentence(g.rng, 3+g.rng.IntN(10)))
	g.line(0, "func %s(ctx context.Context, n int) int {", name)
	g.goBody(1, "return total", g.stmts(3, 14))
	g.line(1, "return total")
	g.line(0, "}\n")
	g.helpers = append(g.helpers, name)
}

// helperName is a new unexported name, unique in the package because it
// starts with the file's own name.
func (g *gen) helperName() string {
	stem := strings.TrimSuffix(path.Base(g.f.path), path.Ext(g.f.path))
	stem = strings.NewReplacer("_test", "", "_", "", "-", "", ".", "").Replace(stem)
	for {
		name := stem + camel(g.rng, 1+g.rng.IntN(2), true)
		if !g.taken[name] {
			g.taken[name] = true
			return name
		}
	}
}

// goLocalType is an unexported struct with a method.
func (g *gen) goLocalType() {
	g.std["context"] = true
	name := g.helperName()
	g.line(0, "type %s struct {", name)
	fields := map[string]bool{}
	for range 1 + g.rng.IntN(5) {
		// No word is "val": a field can never share a method's name.
		if f := camel(g.rng, 1, false) + "Val"; !fields[f] {
			fields[f] = true
			g.line(1, "%s %s", f, []string{"int", "string", "[]string", "map[string]int", "bool"}[g.rng.IntN(5)])
		}
	}
	g.line(0, "}\n")
	g.line(0, "func (x *%s) %s(ctx context.Context, n int) int {", name, camel(g.rng, 2, false))
	g.goBody(1, "return total", g.stmts(2, 8))
	g.line(1, "return total")
	g.line(0, "}\n")
}

func (g *gen) goTest() {
	name := g.helperName() // unique in the package, as a test name must be
	name = "Test" + strings.ToUpper(name[:1]) + name[1:]
	// The body comes first: a test declares ctx only when it uses it.
	file, body := g.b, &strings.Builder{}
	g.b = body
	g.goBody(1, "t.Fatal(err)", g.stmts(3, 8))
	g.b = file
	g.line(0, "func %s(t *testing.T) {", name)
	if strings.Contains(body.String(), "ctx") {
		g.std["context"] = true
		g.line(1, "ctx := context.Background()")
	}
	g.line(1, "const n = %d", 1+g.rng.IntN(20)) // a constant may go unused
	g.b.WriteString(body.String())
	g.line(1, "if total < 0 {")
	g.line(2, "t.Errorf(\"total = %%d, want >= 0\", total)")
	g.line(1, "}")
	g.line(0, "}\n")
}

// goBody declares total and writes n statements; fail is the statement
// that handles a non-nil err (a fmt format string when it contains %q).
func (g *gen) goBody(depth int, fail string, n int) {
	g.line(depth, "total := %d", g.rng.IntN(10))
	g.goStmts(depth, fail, n)
}

func (g *gen) goStmts(depth int, fail string, n int) {
	for range n {
		g.goStmt(depth, fail)
	}
}

func (g *gen) goFail(depth int, fail string) {
	if strings.Contains(fail, "%q") {
		g.std["fmt"] = true
		g.line(depth, fail, sentence(g.rng, 2)+": %w")
		return
	}
	g.line(depth, "%s", fail)
}

// goStmt writes one statement (a compound one below depth 3).
func (g *gen) goStmt(depth int, fail string) {
	k := g.rng.IntN(14)
	if depth >= 3 && k >= 8 {
		k = g.rng.IntN(8)
	}
	switch k {
	case 0, 1, 2: // a dependency's symbol, the reason for the imports
		d, s, ok := g.depSymbol(g.rng.IntN(4) == 0)
		if !ok {
			g.line(depth, "total += n * %d", 1+g.rng.IntN(9))
			return
		}
		q := s.name
		if d != g.f.unit {
			q = g.goImport(d) + "." + s.name
		} else if s.kind == symType {
			q = s.name
		}
		newName := q
		if s.kind == symType {
			if i := strings.LastIndexByte(q, '.'); i >= 0 {
				newName = q[:i+1] + "New" + q[i+1:]
			} else {
				newName = "New" + q
			}
		}
		switch s.kind {
		case symFunc:
			v := g.local("v")
			g.line(depth, "%s, err := %s(ctx, n+%d)", v, q, g.rng.IntN(5))
			g.line(depth, "if err != nil {")
			g.goFail(depth+1, fail)
			g.line(depth, "}")
			g.line(depth, "total += %s", v)
		case symType:
			x, v := g.local("obj"), g.local("v")
			g.line(depth, "%s := %s()", x, newName)
			g.line(depth, "%s, err := %s.%s(ctx, n)", v, x, s.method)
			g.line(depth, "if err != nil {")
			g.goFail(depth+1, fail)
			g.line(depth, "}")
			g.line(depth, "total += %s + %s.Count", v, x)
		case symIface:
			x := g.local("impl")
			g.line(depth, "var %s %s", x, q)
			g.line(depth, "if %s != nil {", x)
			g.line(depth+1, "if v, err := %s.%s(ctx, n); err == nil {", x, s.method)
			g.line(depth+2, "total += v")
			g.line(depth+1, "}")
			g.line(depth, "}")
		case symConst:
			g.line(depth, "total += %s %% (n + 1)", q)
		}
	case 3: // a helper of this file
		if len(g.helpers) == 0 {
			g.line(depth, "total -= n / %d", 2+g.rng.IntN(7))
			return
		}
		g.line(depth, "total += %s(ctx, n+%d)", g.helpers[g.rng.IntN(len(g.helpers))], g.rng.IntN(4))
	case 4:
		g.line(depth, "// %s.", sentence(g.rng, 4+g.rng.IntN(10)))
		g.goStmt(depth, fail)
	case 5:
		g.std["strings"] = true
		g.line(depth, "total += len(strings.Fields(%q))", sentence(g.rng, 2+g.rng.IntN(5)))
	case 6:
		g.std["fmt"] = true
		g.line(depth, "total += len(fmt.Sprintf(\"%%s-%%d\", %q, n))", word(g.rng))
	case 7:
		m, k1, k2 := g.local("seen"), word(g.rng), word(g.rng)
		for k2 == k1 {
			k2 = word(g.rng)
		}
		g.line(depth, "%s := map[string]int{%q: n, %q: total}", m, k1, k2)
		g.line(depth, "for _, c := range %s {", m)
		g.line(depth+1, "total += c %% %d", 2+g.rng.IntN(9))
		g.line(depth, "}")
	case 8, 9:
		g.line(depth, "for i := 0; i < n%%%d; i++ {", 3+g.rng.IntN(6))
		g.goStmts(depth+1, fail, 1+g.rng.IntN(3))
		g.line(depth+1, "total += i")
		g.line(depth, "}")
	case 10, 11:
		g.line(depth, "if n%%%d == %d {", 2+g.rng.IntN(5), g.rng.IntN(2))
		g.goStmts(depth+1, fail, 1+g.rng.IntN(3))
		if g.rng.IntN(2) == 0 {
			g.line(depth, "} else {")
			g.goStmts(depth+1, fail, 1+g.rng.IntN(2))
		}
		g.line(depth, "}")
	default:
		g.line(depth, "switch n %% %d {", 3+g.rng.IntN(3))
		for c := range 1 + g.rng.IntN(3) {
			g.line(depth, "case %d:", c)
			g.goStmts(depth+1, fail, 1+g.rng.IntN(2))
		}
		g.line(depth, "default:")
		g.line(depth+1, "total++")
		g.line(depth, "}")
	}
}

// ---- TypeScript ----

// tsImport binds name from module spec in this file, under an alias when
// the name is taken, and returns the local name.
func (g *gen) tsImport(spec, name string) string {
	for _, n := range g.tsFrom[spec] {
		local, _ := strings.CutPrefix(n, name+" as ")
		if n == name || local != n {
			return local
		}
	}
	local := name
	for i := 2; g.tsNames[local]; i++ {
		local = fmt.Sprintf("%s%d", name, i)
	}
	g.tsNames[local] = true
	entry := name
	if local != name {
		entry = name + " as " + local
	}
	g.tsFrom[spec] = append(g.tsFrom[spec], entry)
	return local
}

// tsSpec is the relative module specifier from this file to the module
// declaring s in unit d: the file itself, or the directory's barrel.
func (g *gen) tsSpec(d int, s symbol) string {
	target := g.p.units[d].dir
	if d == g.f.unit || g.rng.IntN(10) < 7 {
		f := g.p.files[g.p.units[d].files[s.file]].path
		target = strings.TrimSuffix(f, ".ts")
	}
	rel := relPath(path.Dir(g.f.path), target)
	if !strings.HasPrefix(rel, ".") {
		rel = "./" + rel
	}
	return rel
}

// relPath is the slash path from dir to target, as path/filepath.Rel
// would give it for clean relative paths.
func relPath(dir, target string) string {
	a, b := strings.Split(dir, "/"), strings.Split(target, "/")
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	parts := slices.Repeat([]string{".."}, len(a)-i)
	return strings.Join(append(parts, b[i:]...), "/")
}

func (g *gen) tsFile() string {
	g.tsFrom, g.tsNames = map[string][]string{}, map[string]bool{}
	own := g.own()
	for _, s := range own {
		g.tsNames[s.name] = true
	}
	test := strings.HasSuffix(g.f.path, ".test.ts")
	if test {
		g.tsNames["describe"], g.tsNames["expect"], g.tsNames["it"] = true, true, true
	}
	for _, s := range own {
		g.tsExport(s)
	}
	for g.b.Len() < g.f.size {
		if test {
			g.tsTest()
		} else {
			g.tsHelper()
		}
	}
	var h strings.Builder
	if test {
		h.WriteString("import { describe, expect, it } from 'vitest';\n")
	}
	specs := make([]string, 0, len(g.tsFrom))
	for s := range g.tsFrom {
		specs = append(specs, s)
	}
	slices.Sort(specs)
	for _, s := range specs {
		fmt.Fprintf(&h, "import { %s } from '%s';\n", strings.Join(g.tsFrom[s], ", "), s)
	}
	if h.Len() > 0 {
		h.WriteByte('\n')
	}
	return h.String() + g.b.String()
}

func (g *gen) tsExport(s symbol) {
	g.tsLine(0, "/** %s %s. */", s.name, sentence(g.rng, 3+g.rng.IntN(9)))
	switch s.kind {
	case symFunc:
		g.tsLine(0, "export function %s(n: number): number {", s.name)
		g.tsBody(1, g.stmts(3, 12))
		g.tsLine(1, "return total;")
		g.tsLine(0, "}\n")
	case symType:
		g.tsLine(0, "export class %s {", s.name)
		g.tsLine(1, "private count = %d;", g.rng.IntN(50))
		g.tsLine(1, "readonly tags: string[] = [];\n")
		g.tsLine(1, "constructor(private readonly title: string = '%s') {}\n", word(g.rng))
		methods := []string{s.method}
		for range g.rng.IntN(3) {
			if m := camel(g.rng, 2, false); !slices.Contains(methods, m) {
				methods = append(methods, m)
			}
		}
		for _, m := range methods {
			g.tsLine(1, "%s(n: number): number {", m)
			g.tsBody(2, g.stmts(2, 8))
			g.tsLine(2, "this.count += total;")
			g.tsLine(2, "return total + this.title.length;")
			g.tsLine(1, "}\n")
		}
		g.tsLine(0, "}\n")
	case symIface:
		g.tsLine(0, "export interface %s {", s.name)
		g.tsLine(1, "id: string;")
		g.tsLine(1, "count: number;")
		g.tsLine(1, "%s(n: number): number;", s.method)
		for range g.rng.IntN(3) {
			g.tsLine(1, "%s?: %s;", camel(g.rng, 2, false), []string{"string", "number", "boolean", "string[]"}[g.rng.IntN(4)])
		}
		g.tsLine(0, "}\n")
	case symConst:
		g.tsLine(0, "export const %s = %d;\n", s.name, g.rng.IntN(1000))
	}
}

func (g *gen) tsHelper() {
	name := camel(g.rng, 2, false)
	for g.tsNames[name] {
		name += camel(g.rng, 1, true)
	}
	g.tsNames[name] = true
	if g.rng.IntN(3) == 0 {
		g.tsLine(0, "const %s = (n: number): number => {", name)
		g.tsBody(1, g.stmts(2, 10))
		g.tsLine(1, "return total;")
		g.tsLine(0, "};\n")
	} else {
		g.tsLine(0, "// %s %s.", name, sentence(g.rng, 3+g.rng.IntN(9)))
		g.tsLine(0, "function %s(n: number): number {", name)
		g.tsBody(1, g.stmts(3, 14))
		g.tsLine(1, "return total;")
		g.tsLine(0, "}\n")
	}
	g.helpers = append(g.helpers, name)
}

func (g *gen) tsTest() {
	g.tsLine(0, "describe('%s', () => {", sentence(g.rng, 2))
	for range 1 + g.rng.IntN(4) {
		g.tsLine(1, "it('%s', () => {", sentence(g.rng, 3+g.rng.IntN(4)))
		g.tsLine(2, "const n = %d;", 1+g.rng.IntN(20))
		g.tsBody(2, g.stmts(2, 6))
		g.tsLine(2, "expect(total).toBeGreaterThanOrEqual(0);")
		g.tsLine(1, "});")
	}
	g.tsLine(0, "});\n")
}

func (g *gen) tsBody(depth, n int) {
	g.tsLine(depth, "let total = %d;", g.rng.IntN(10))
	for range n {
		g.tsStmt(depth)
	}
}

func (g *gen) tsStmt(depth int) {
	k := g.rng.IntN(14)
	if depth >= 4 && k >= 8 {
		k = g.rng.IntN(8)
	}
	switch k {
	case 0, 1, 2:
		d, s, ok := g.depSymbol(g.rng.IntN(3) == 0)
		if !ok {
			g.tsLine(depth, "total += n * %d;", 1+g.rng.IntN(9))
			return
		}
		local := g.tsImport(g.tsSpec(d, s), s.name)
		switch s.kind {
		case symFunc:
			g.tsLine(depth, "total += %s(n + %d);", local, g.rng.IntN(5))
		case symType:
			g.tsLine(depth, "total += new %s().%s(n);", local, s.method)
		case symIface:
			o := g.local("impl")
			g.tsLine(depth, "const %s: %s = { id: '%s', count: n, %s: (k: number) => k * %d };", o, local, word(g.rng), s.method, 2+g.rng.IntN(5))
			g.tsLine(depth, "total += %s.%s(n) + %s.count;", o, s.method, o)
		case symConst:
			g.tsLine(depth, "total += %s %% (n + 1);", local)
		}
	case 3:
		if len(g.helpers) == 0 {
			g.tsLine(depth, "total -= Math.floor(n / %d);", 2+g.rng.IntN(7))
			return
		}
		g.tsLine(depth, "total += %s(n + %d);", g.helpers[g.rng.IntN(len(g.helpers))], g.rng.IntN(4))
	case 4:
		g.tsLine(depth, "// %s.", sentence(g.rng, 4+g.rng.IntN(10)))
		g.tsStmt(depth)
	case 5:
		parts := g.local("parts")
		g.tsLine(depth, "const %s = ['%s', '%s'].map((p) => p.length);", parts, word(g.rng), word(g.rng))
		g.tsLine(depth, "total += %s.reduce((a, b) => a + b, 0);", parts)
	case 6:
		g.tsLine(depth, "total += `${n}-%s`.length;", word(g.rng))
	case 7:
		g.tsLine(depth, "try {")
		g.tsLine(depth+1, "total += (JSON.parse('{\"v\": %d}') as { v: number }).v;", g.rng.IntN(100))
		g.tsLine(depth, "} catch {")
		g.tsLine(depth+1, "total -= 1;")
		g.tsLine(depth, "}")
	case 8, 9:
		g.tsLine(depth, "for (let i = 0; i < n %% %d; i++) {", 3+g.rng.IntN(6))
		for range 1 + g.rng.IntN(3) {
			g.tsStmt(depth + 1)
		}
		g.tsLine(depth+1, "total += i;")
		g.tsLine(depth, "}")
	case 10, 11:
		g.tsLine(depth, "if (n %% %d === %d) {", 2+g.rng.IntN(5), g.rng.IntN(2))
		for range 1 + g.rng.IntN(3) {
			g.tsStmt(depth + 1)
		}
		if g.rng.IntN(2) == 0 {
			g.tsLine(depth, "} else {")
			g.tsStmt(depth + 1)
		}
		g.tsLine(depth, "}")
	default:
		g.tsLine(depth, "switch (n %% %d) {", 3+g.rng.IntN(3))
		for c := range 1 + g.rng.IntN(3) {
			g.tsLine(depth+1, "case %d: {", c)
			g.tsStmt(depth + 2)
			g.tsLine(depth+2, "break;")
			g.tsLine(depth+1, "}")
		}
		g.tsLine(depth+1, "default:")
		g.tsLine(depth+2, "total++;")
		g.tsLine(depth, "}")
	}
}

// tsIndex is the directory's barrel: every module but the tests.
func (g *gen) tsIndex() string {
	for _, fi := range g.u.files {
		f := g.p.files[fi]
		if f.kind == fTS && !strings.HasSuffix(f.path, ".test.ts") {
			fmt.Fprintf(g.b, "export * from './%s';\n", strings.TrimSuffix(path.Base(f.path), ".ts"))
		}
	}
	return g.b.String()
}

// ---- the rest ----

func (g *gen) markdown() string {
	fmt.Fprintf(g.b, "# %s\n\n", path.Base(g.u.dir))
	for g.b.Len() < g.f.size {
		switch g.rng.IntN(5) {
		case 0:
			fmt.Fprintf(g.b, "## %s\n\n", sentence(g.rng, 2+g.rng.IntN(3)))
		case 1:
			for range 2 + g.rng.IntN(4) {
				fmt.Fprintf(g.b, "- %s\n", sentence(g.rng, 3+g.rng.IntN(8)))
			}
			g.b.WriteByte('\n')
		default:
			fmt.Fprintf(g.b, "%s.\n\n", sentence(g.rng, 12+g.rng.IntN(40)))
		}
	}
	return g.b.String()
}

func (g *gen) json() string {
	g.b.WriteString("[\n")
	for i := 0; ; i++ {
		fmt.Fprintf(g.b, "  {\"id\": %d, \"name\": %q, \"kind\": %q, \"active\": %v, \"weight\": %d.%02d}",
			i+1, sentence(g.rng, 2), word(g.rng), g.rng.IntN(2) == 0, g.rng.IntN(100), g.rng.IntN(100))
		if g.b.Len() >= g.f.size {
			break
		}
		g.b.WriteString(",\n")
	}
	g.b.WriteString("\n]\n")
	return g.b.String()
}

func (g *gen) yaml() string {
	fmt.Fprintf(g.b, "# %s\nname: %s\n", sentence(g.rng, 5), path.Base(g.u.dir))
	for g.b.Len() < g.f.size {
		fmt.Fprintf(g.b, "%s:\n", word(g.rng))
		for range 1 + g.rng.IntN(5) {
			fmt.Fprintf(g.b, "  %s: %d\n", word(g.rng), g.rng.IntN(1000))
		}
	}
	return g.b.String()
}
