package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
)

// The repository is planned first, sequentially from one seeded generator,
// and written afterwards file by file in parallel: every decision that
// relates files to each other (paths, package names, exported symbols,
// imports) is in the plan, and each file's own text comes from a generator
// seeded by the file's index, so the output does not depend on scheduling.

// Shares of the files, by kind. A real monorepo of this size is mostly
// code with a thin layer of docs, fixtures and config; Go and TypeScript
// are ctxd's two main languages, and the split keeps both large.
const (
	goUnitShare = 0.58 // of the units (packages, module directories)
	otherShare  = 0.07 // README, JSON fixtures, YAML config next to the code
	testShare   = 0.22 // of a Go package's files
)

// kind is what a unit of the plan is.
type kind int

const (
	goPkg kind = iota // a Go package: one directory, one package clause
	goCmd             // a Go main package: never imported
	tsDir             // a directory of TypeScript modules with an index.ts barrel
)

// symKind is what an exported symbol is; dependents use each kind its own way.
type symKind int

const (
	symFunc  symKind = iota // Go: func F(ctx, n) (int, error); TS: function f(n): number
	symType                 // Go: struct with NewT() and one method; TS: class with one method
	symIface                // interface
	symConst                // constant
)

// symbol is one exported declaration dependents may refer to.
type symbol struct {
	name   string
	kind   symKind
	method string // for symType: the method dependents call
	file   int    // index in the unit's files of the file declaring it
}

// unit is a Go package or a TypeScript directory.
type unit struct {
	kind    kind
	dir     string // slash-separated, relative to the repository root
	name    string // the Go package name, or the directory's base name
	app     int    // TypeScript: the app the directory belongs to (imports stay inside it)
	deps    []int  // earlier units of the same language this one imports
	files   []int  // indexes in plan.files
	exports []symbol
}

// fileKind is what a file's generator is.
type fileKind int

const (
	fGo fileKind = iota
	fGoTest
	fTS
	fTSIndex
	fMarkdown
	fJSON
	fYAML
	fRoot // fixed content of the repository root
)

// fileSpec is one file of the plan.
type fileSpec struct {
	path string // slash-separated, relative to the root
	kind fileKind
	unit int // -1 for root files
	ord  int // index among the unit's files
	size int // target size in bytes (code files end at a declaration boundary past it)
	body string
}

type plan struct {
	seed  uint64
	units []unit
	files []fileSpec
	dirs  []string
}

// module is the Go module path of the repository.
const module = "synth.example/mono"

// newPlan lays out a repository of exactly n files.
func newPlan(n int, seed uint64) *plan {
	p := &plan{seed: seed}
	rng := rand.New(rand.NewPCG(seed, 0x73796e7468))
	p.rootFiles()
	dirs := map[string]bool{}
	tsUnits := make([][]int, len(apps)) // per app, the directories so far
	// The Go packages so far that others may import: those outside any
	// service, and each service's own (under services/<name>/internal,
	// which Go lets only that service import).
	var goShared []int
	goService := map[string][]int{}
	for len(p.files) < n {
		u := unit{}
		switch r := rng.Float64(); {
		case r < goUnitShare*0.03:
			u.kind = goCmd
		case r < goUnitShare:
			u.kind = goPkg
		default:
			u.kind = tsDir
			u.app = rng.IntN(len(apps))
		}
		u.dir, u.name = p.unitDir(rng, u, dirs)
		dirs[u.dir] = true
		idx := len(p.units)
		switch u.kind {
		case goPkg, goCmd:
			from := goShared
			svc := serviceOf(u.dir)
			if svc != "" {
				from = append(slices.Clip(goShared), goService[svc]...)
			}
			u.deps = pickDeps(rng, from, 6)
			switch {
			case u.kind == goCmd:
			case svc != "":
				goService[svc] = append(goService[svc], idx)
			default:
				goShared = append(goShared, idx)
			}
		case tsDir:
			u.deps = pickDeps(rng, tsUnits[u.app], 7)
			tsUnits[u.app] = append(tsUnits[u.app], idx)
		}
		p.units = append(p.units, u)
		p.unitFiles(rng, idx)
	}
	p.files = p.files[:n]
	// A unit cut short by n keeps only the symbols of the files that exist,
	// so that no dependent imports a symbol from a file never written.
	last := &p.units[len(p.units)-1]
	var kept []int
	for _, f := range last.files {
		if f < n {
			kept = append(kept, f)
		}
	}
	last.files = kept
	var exports []symbol
	for _, s := range last.exports {
		if s.file < len(kept) && p.files[kept[s.file]].kind != fTSIndex {
			exports = append(exports, s)
		}
	}
	last.exports = exports
	seen := map[string]bool{}
	for _, f := range p.files {
		for d := path.Dir(f.path); d != "." && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			p.dirs = append(p.dirs, d)
		}
	}
	return p
}

// serviceOf is the service a Go package belongs to, "" for none.
func serviceOf(dir string) string {
	rest, ok := strings.CutPrefix(dir, "services/")
	if !ok {
		return ""
	}
	svc, _, _ := strings.Cut(rest, "/")
	return svc
}

// pickDeps chooses up to max earlier units. Half of the picks favour the
// oldest units (the foundation packages everything imports), half the
// newest (neighbours in the same area), which gives the skewed fan-in of
// real code: a few packages imported everywhere, most imported a few times.
func pickDeps(rng *rand.Rand, from []int, max int) []int {
	if len(from) == 0 {
		return nil
	}
	want := int(math.Round(math.Abs(rng.NormFloat64())*float64(max)/2)) + rng.IntN(2)
	want = min(want, max, len(from))
	seen := map[int]bool{}
	var deps []int
	for tries := 0; len(deps) < want && tries < 4*want; tries++ {
		var i int
		if rng.IntN(2) == 0 {
			u := rng.Float64()
			i = int(u * u * u * float64(len(from)))
		} else {
			i = len(from) - 1 - rng.IntN(min(len(from), 40))
		}
		if d := from[i]; !seen[d] {
			seen[d] = true
			deps = append(deps, d)
		}
	}
	return deps
}

// apps are the TypeScript applications under web/.
var apps = []string{"console", "storefront", "admin", "insights", "mobile-shell", "partner-portal"}

// goTops are where Go packages live, with weights.
var goTops = []struct {
	prefix string
	weight int
}{{"internal", 5}, {"pkg", 3}, {"services/%s/internal", 4}, {"tools", 1}}

// unitDir chooses a new directory and name for u.
func (p *plan) unitDir(rng *rand.Rand, u unit, taken map[string]bool) (dir, name string) {
	for attempt := 0; ; attempt++ {
		switch u.kind {
		case goPkg, goCmd:
			if u.kind == goCmd {
				name = word(rng)
				if rng.IntN(3) == 0 {
					name += "-" + word(rng)
				}
				dir = "cmd/" + name
				name = "main"
			} else {
				total := 0
				for _, t := range goTops {
					total += t.weight
				}
				k := rng.IntN(total)
				prefix := goTops[0].prefix
				for _, t := range goTops {
					if k < t.weight {
						prefix = t.prefix
						break
					}
					k -= t.weight
				}
				if strings.Contains(prefix, "%s") {
					prefix = fmt.Sprintf(prefix, services[rng.IntN(len(services))])
				}
				name = word(rng)
				if rng.IntN(3) == 0 {
					name += word(rng)
				}
				dir = prefix + "/" + areas[rng.IntN(len(areas))] + "/" + name
			}
		case tsDir:
			name = word(rng)
			if rng.IntN(2) == 0 {
				name += "-" + word(rng)
			}
			dir = "web/" + apps[u.app] + "/src/" + areas[rng.IntN(len(areas))] + "/" + name
		}
		if attempt > 3 {
			// Rare past a few thousand units: a number keeps the path new
			// and the package name a valid identifier.
			suffix := fmt.Sprint(attempt)
			dir += suffix
			if u.kind == goPkg {
				name += suffix
			}
		}
		if !taken[dir] {
			return dir, name
		}
	}
}

// services are the Go services under services/.
var services = []string{"gateway", "billing", "search", "identity", "fulfilment", "notify", "reporting", "ingest"}

// unitFiles adds the files of unit idx and chooses its exported symbols,
// each declared by one file. newPlan cuts the last unit at n files.
func (p *plan) unitFiles(rng *rand.Rand, idx int) {
	u := &p.units[idx]
	count := int(math.Exp(rng.NormFloat64()*0.75 + 1.7)) // median 5, a long tail
	count = max(1, min(count, 48))
	used := map[string]bool{}
	add := func(name string, k fileKind, size int) {
		f := fileSpec{path: u.dir + "/" + name, kind: k, unit: idx, ord: len(u.files), size: size}
		u.files = append(u.files, len(p.files))
		p.files = append(p.files, f)
	}
	unique := func(base, ext string) string {
		name := base + ext
		for i := 2; used[name]; i++ {
			name = fmt.Sprintf("%s%d%s", base, i, ext)
		}
		used[name] = true
		return name
	}
	switch u.kind {
	case goPkg, goCmd:
		for i := range count {
			stem := strings.ReplaceAll(u.name, "-", "_")
			if i > 0 || u.kind == goCmd {
				stem = word(rng)
				if rng.IntN(2) == 0 {
					stem += "_" + word(rng)
				}
			}
			if u.kind == goCmd && i == 0 {
				stem = "main"
			}
			k := fGo
			if i > 0 && rng.Float64() < testShare {
				k = fGoTest
				stem += "_test"
			}
			add(unique(stem, ".go"), k, codeSize(rng))
		}
	case tsDir:
		for range count {
			stem := word(rng)
			if rng.IntN(2) == 0 {
				stem += "-" + word(rng)
			}
			if stem == "index" {
				stem = "core"
			}
			k := fTS
			if rng.IntN(9) == 0 {
				stem += ".test"
			}
			add(unique(stem, ".ts"), k, codeSize(rng))
		}
		add("index.ts", fTSIndex, 0)
	}
	for range 8 { // at most a few non-code files per unit
		if rng.Float64() >= otherShare/(1-otherShare)*float64(count)/8 {
			continue
		}
		switch rng.IntN(3) {
		case 0:
			doc := "README"
			for _, d := range []string{"DESIGN", "NOTES", "CHANGELOG"} {
				if !used[doc+".md"] {
					break
				}
				doc = d
			}
			add(unique(doc, ".md"), fMarkdown, 300+rng.IntN(3500))
		case 1:
			add(unique("testdata/"+word(rng), ".json"), fJSON, 200+rng.IntN(6000))
		case 2:
			add(unique(word(rng), ".yaml"), fYAML, 150+rng.IntN(1500))
		}
	}
	p.exportNames(rng, u)
}

// codeSize draws a code file's target size: log-normal with a median of
// 2.5 KB and a long tail, as in real repositories, where most files are
// small and a few are generated or grown to thousands of lines (GOROOT's
// .go files: median 2.7 KB, p90 23 KB, p99 120 KB). The tail reaches the
// 5,000-line files the didChange measurement opens.
func codeSize(rng *rand.Rand) int {
	s := 2500 * math.Exp(rng.NormFloat64()*1.25)
	return int(max(200, min(s, 320_000)))
}

// exportNames chooses u's exported symbols: a few per code file, unique in
// the unit (a Go package's scope, a TypeScript barrel's exports).
func (p *plan) exportNames(rng *rand.Rand, u *unit) {
	names := map[string]bool{}
	for ord, fi := range u.files {
		f := p.files[fi]
		if (f.kind != fGo && f.kind != fTS) || u.kind == goCmd || strings.HasSuffix(f.path, ".test.ts") {
			continue
		}
		n := 1 + rng.IntN(2) + f.size/5000
		for range min(n, 12) {
			s := symbol{kind: symKind(rng.IntN(4)), file: ord}
			for {
				s.name = camel(rng, 1+rng.IntN(2), f.kind == fGo || s.kind != symFunc)
				if s.kind == symConst && f.kind == fTS {
					s.name = strings.ToUpper(s.name[:1]) + s.name[1:]
				}
				if !names[s.name] {
					break
				}
			}
			names[s.name] = true
			if s.kind == symType || s.kind == symIface {
				s.method = camel(rng, 1, f.kind == fGo)
			}
			u.exports = append(u.exports, s)
		}
	}
}

// rootFiles are the files every repository of the kind has at its root.
func (p *plan) rootFiles() {
	add := func(name, body string) {
		p.files = append(p.files, fileSpec{path: name, kind: fRoot, unit: -1, body: body})
	}
	add("go.mod", "module "+module+"\n\ngo 1.26\n")
	add("package.json", `{
  "name": "mono",
  "private": true,
  "workspaces": ["web/*"],
  "scripts": {"build": "tsc -b", "test": "vitest"},
  "devDependencies": {"typescript": "^5.6.0", "vitest": "^2.1.0"}
}
`)
	add("tsconfig.json", `{
  "compilerOptions": {"target": "es2022", "module": "esnext", "moduleResolution": "bundler", "strict": true, "noEmit": true},
  "include": ["web/*/src"]
}
`)
	add("README.md", "# mono\n\nA synthetic monorepo written by ctxd's tools/synthrepo for benchmarks: Go services and packages under cmd/, internal/, pkg/, services/ and tools/, TypeScript apps under web/.\n")
	add(".gitignore", "node_modules/\ndist/\n*.log\n")
}

// areas group the packages of a top-level directory, as teams or features
// do in a monorepo.
var areas = []string{"accounts", "analytics", "auth", "billing", "catalog", "checkout", "common",
	"compliance", "content", "data", "delivery", "experiments", "feeds", "finance", "growth",
	"integrations", "inventory", "logistics", "marketing", "messaging", "monitoring", "orders",
	"partners", "payments", "platform", "pricing", "privacy", "recommendations", "risk",
	"scheduling", "search", "security", "storage", "support", "sync", "telemetry", "ui", "users"}
