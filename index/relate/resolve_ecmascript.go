package relate

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/index/words"
)

// jsExts are the extensions tried after a module base, in order.
var jsExts = []string{".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"}

// jsSubst lists, for an ESM specifier written with a JavaScript extension,
// the TypeScript files it names: TypeScript resolves "./x.js" to x.ts.
var jsSubst = []struct {
	js string
	ts []string
}{
	{".js", []string{".ts", ".tsx", ".d.ts"}},
	{".jsx", []string{".tsx"}},
	{".mjs", []string{".mts", ".d.mts"}},
	{".cjs", []string{".cts", ".d.cts"}},
}

// jsRequest: a relative specifier is a base relative to the importer's
// directory. Otherwise the nearest tsconfig.json / jsconfig.json decides:
// the paths pattern that matches (exactly, else the wildcard pattern with
// the longest prefix) gives its targets in order; with no matching pattern,
// baseUrl + specifier. Anything else (a package) stays unresolved. A query
// or fragment suffix ("./x.css?inline") is ignored.
func jsRequest(f *fileFacts, spec string, opts *tsOptions) request {
	if i := strings.IndexAny(spec, "?#"); i > 0 {
		spec = spec[:i]
	}
	if spec == "" || spec[0] == '/' {
		return request{}
	}
	if spec == "." || spec == ".." || strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") {
		if b, ok := resolveRel(f.dir, spec); ok {
			return request{kind: reqJS, alts: append([]string{b}, tsRootDirAlts(opts, b)...)}
		}
		return request{}
	}
	if opts == nil {
		return request{}
	}
	var alts []string
	if targets, ok := matchTSPaths(opts.paths, spec); ok {
		for _, t := range targets {
			if b, ok := resolveRel(opts.pathsBase, t); ok {
				alts = append(alts, b)
			}
		}
	} else if opts.hasBaseURL {
		if b, ok := resolveRel(opts.baseURL, spec); ok {
			alts = append(alts, b)
		}
	}
	if len(alts) == 0 {
		return request{}
	}
	return request{kind: reqJS, alts: alts}
}

// tsRootDirAlts returns, for a relative import's base b, the same path in
// each other directory of compilerOptions.rootDirs when b lies in one of
// them: TypeScript merges the rootDirs into one virtual directory, so that
// src/views/a.ts imports "./strings" of generated/views/ as if it sat
// next to it. The base itself is tried first.
func tsRootDirAlts(opts *tsOptions, b string) []string {
	if opts == nil || len(opts.rootDirs) < 2 {
		return nil
	}
	var out []string
	for _, r := range opts.rootDirs {
		rel, ok := strings.CutPrefix(b, r+"/")
		if r == "" {
			rel, ok = b, true
		}
		if !ok {
			continue
		}
		for _, o := range opts.rootDirs {
			if o != r {
				if a := join(o, rel); a != b && !slices.Contains(out, a) {
					out = append(out, a)
				}
			}
		}
	}
	return out
}

// tsExtendsPackage returns the configs a package specifier in a
// tsconfig's "extends" may name, in order: under the workspace package of
// that name, then under node_modules/name in dir and each ancestor.
// "pkg" names pkg/tsconfig.json; "pkg/sub" names pkg/sub, sub.json or
// sub/tsconfig.json. A shared config package of a monorepo
// ("@repo/tsconfig/base.json") is thus followed.
func (e *env) tsExtendsPackage(dir, spec string) []string {
	name, sub := spec, ""
	if n := strings.IndexByte(spec, '/'); n > 0 {
		if strings.HasPrefix(spec, "@") {
			if m := strings.IndexByte(spec[n+1:], '/'); m >= 0 {
				name, sub = spec[:n+1+m], spec[n+2+m:]
			}
		} else {
			name, sub = spec[:n], spec[n+1:]
		}
	}
	var dirs []string
	if pkg := e.jsPkgs[name]; pkg != nil {
		dirs = append(dirs, pkg.dir)
	}
	for a := dir; ; a = dirOf(a) {
		dirs = append(dirs, join(a, "node_modules/"+name))
		if a == "" {
			break
		}
	}
	var out []string
	for _, d := range dirs {
		if sub == "" {
			out = append(out, join(d, "tsconfig.json"))
			continue
		}
		b, ok := resolveRel(d, sub)
		if !ok {
			continue
		}
		out = append(out, b)
		if !strings.HasSuffix(b, ".json") {
			out = append(out, b+".json", join(b, "tsconfig.json"))
		}
	}
	return out
}

// matchTSPaths applies compilerOptions.paths to a specifier: an exact
// pattern first, else the wildcard pattern with the longest prefix (the
// first of equal ones), whose targets get the matched text in place of
// their "*".
func matchTSPaths(paths []tsPath, spec string) ([]string, bool) {
	for _, p := range paths {
		if !strings.Contains(p.pattern, "*") && p.pattern == spec {
			return p.targets, true
		}
	}
	best, bestLen, star := -1, -1, ""
	for i, p := range paths {
		prefix, suffix, ok := strings.Cut(p.pattern, "*")
		if !ok || len(spec) < len(prefix)+len(suffix) || !strings.HasPrefix(spec, prefix) || !strings.HasSuffix(spec, suffix) {
			continue
		}
		if len(prefix) > bestLen {
			best, bestLen, star = i, len(prefix), spec[len(prefix):len(spec)-len(suffix)]
		}
	}
	if best < 0 {
		return nil, false
	}
	out := make([]string, len(paths[best].targets))
	for i, t := range paths[best].targets {
		out[i] = strings.Replace(t, "*", star, 1)
	}
	return out, true
}

// jsFind resolves one module base: as a file (jsFile), then through the
// "types"/"typings"/"main" of a package.json in the base directory, then as
// a directory with an index file.
func (v *view) jsFind(base string, tsFirst bool) (int32, bool) {
	if n, ok := v.jsFile(base, tsFirst); ok {
		return n, true
	}
	for _, m := range v.e.pkgMain[base] {
		if n, ok := v.jsFile(m, tsFirst); ok {
			return n, true
		}
		if n, ok := v.jsIndex(m); ok {
			return n, true
		}
	}
	return v.jsIndex(base)
}

// jsFile tries the base itself and the TypeScript files an ESM ".js"
// specifier stands for (TypeScript importers try those first, JavaScript
// importers the written file first), then base + each of jsExts.
func (v *view) jsFile(base string, tsFirst bool) (int32, bool) {
	if base == "" {
		return -1, false
	}
	var subs []string
	for _, s := range jsSubst {
		if stem, ok := strings.CutSuffix(base, s.js); ok && stem != "" && !strings.HasSuffix(stem, "/") {
			for _, t := range s.ts {
				subs = append(subs, stem+t)
			}
			break
		}
	}
	if !tsFirst {
		if n, ok := v.node(base); ok {
			return n, true
		}
	}
	for _, s := range subs {
		if n, ok := v.node(s); ok {
			return n, true
		}
	}
	if tsFirst {
		if n, ok := v.node(base); ok {
			return n, true
		}
	}
	for _, x := range jsExts {
		if n, ok := v.node(base + x); ok {
			return n, true
		}
	}
	return -1, false
}

func (v *view) jsIndex(dir string) (int32, bool) {
	for _, x := range jsExts {
		if n, ok := v.node(join(dir, "index"+x)); ok {
			return n, true
		}
	}
	return -1, false
}

// jsReverseBases returns every base whose resolution may end at p: p
// itself, p without a JS extension, the ".js" name standing for a
// TypeScript file, the directory of an index file, and the directories
// whose package.json names one of those.
func (v *view) jsReverseBases(p string) []string {
	out := []string{p}
	for _, x := range jsExts {
		if stem, ok := strings.CutSuffix(p, x); ok && stem != "" {
			out = append(out, stem)
		}
	}
	for _, s := range jsSubst {
		for _, t := range s.ts {
			if stem, ok := strings.CutSuffix(p, t); ok && stem != "" {
				out = append(out, stem+s.js)
			}
		}
	}
	name := baseOf(p)
	for _, x := range jsExts {
		if name == "index"+x {
			out = append(out, dirOf(p))
			break
		}
	}
	if len(v.e.mainDirs) > 0 {
		for _, b := range out {
			out = append(out, v.e.mainDirs[b]...)
		}
	}
	return out
}

// jsPackage is a package.json of the workspace with a "name": what a bare
// specifier naming it ("name", "name/sub") resolves to.
type jsPackage struct {
	dir string
	// exports are the subpaths of the "exports" field ("." for the
	// package itself, "./sub", "./sub/*"), each with its targets in
	// condition order (every condition is kept: the first target that
	// exists wins); nil when the package has no "exports".
	exports []jsSubpath
}

type jsSubpath struct {
	key     string
	targets []string
}

// addJSPackage records a package.json that names its package. On a name
// declared twice, the lexically smallest directory wins.
func (e *env) addJSPackage(dir string, b []byte) {
	var doc struct {
		Name    string          `json:"name"`
		Exports json.RawMessage `json:"exports"`
		Imports json.RawMessage `json:"imports"`
	}
	if json.Unmarshal(jsonc(b), &doc) != nil {
		return
	}
	if imps := parseJSImports(doc.Imports); imps != nil {
		if e.jsImports == nil {
			e.jsImports = map[string][]jsSubpath{}
		}
		e.jsImports[dir] = imps
	}
	if doc.Name == "" {
		return
	}
	if old, ok := e.jsPkgs[doc.Name]; ok && old.dir <= dir {
		return
	}
	if e.jsPkgs == nil {
		e.jsPkgs = map[string]*jsPackage{}
	}
	e.jsPkgs[doc.Name] = &jsPackage{dir: dir, exports: parseJSExports(doc.Exports)}
}

// parseJSExports reads an "exports" field: a string or an array (the
// package itself), an object of subpaths (keys starting with "."), or an
// object of conditions (the package itself).
func parseJSExports(raw json.RawMessage) []jsSubpath {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] != '{' {
		return []jsSubpath{{key: ".", targets: jsTargets(raw, 0)}}
	}
	keys, vals := jsonObject(raw)
	if len(keys) > 0 && strings.HasPrefix(keys[0], ".") {
		out := make([]jsSubpath, 0, len(keys))
		for i, k := range keys {
			out = append(out, jsSubpath{key: k, targets: jsTargets(vals[i], 0)})
		}
		return out
	}
	return []jsSubpath{{key: ".", targets: jsTargets(raw, 0)}}
}

// parseJSImports reads an "imports" field: an object whose keys start
// with "#" ("#db", "#internal/*"), each a target as in "exports"; nil
// without one.
func parseJSImports(raw json.RawMessage) []jsSubpath {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	keys, vals := jsonObject(raw)
	var out []jsSubpath
	for i, k := range keys {
		if strings.HasPrefix(k, "#") && k != "#" {
			out = append(out, jsSubpath{key: k, targets: jsTargets(vals[i], 0)})
		}
	}
	return out
}

// jsTargets flattens a target: a string, an array of fallbacks, or an
// object of conditions (nested), in order.
func jsTargets(raw json.RawMessage, depth int) []string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || depth > 8 {
		return nil
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return []string{s}
		}
	case '[':
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) != nil {
			return nil
		}
		var out []string
		for _, a := range arr {
			out = append(out, jsTargets(a, depth+1)...)
		}
		return out
	case '{':
		_, vals := jsonObject(raw)
		var out []string
		for _, v := range vals {
			out = append(out, jsTargets(v, depth+1)...)
		}
		return out
	}
	return nil
}

// jsonObject returns the keys and values of a JSON object in file order.
func jsonObject(raw json.RawMessage) ([]string, []json.RawMessage) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil
	}
	var keys []string
	var vals []json.RawMessage
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		k, _ := t.(string)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			break
		}
		keys = append(keys, k)
		vals = append(vals, v)
	}
	return keys, vals
}

// jsRequestFor is jsRequest, and for a bare specifier that names a package
// of the workspace by its package.json "name", that package (see
// jsPackageRequest).
func (e *env) jsRequestFor(f *fileFacts, spec string, opts *tsOptions) request {
	r := jsRequest(f, spec, opts)
	e.jsPackageRequest(f, spec, &r)
	return r
}

// jsPackageRequest fills an empty request r for a bare specifier naming a
// workspace package: through its "exports" (the subpath, exactly or by a
// "*" pattern, longest prefix first) when it has them, else the package
// directory (whose "types"/"main" and index jsFind tries) or the subpath
// under it. Each target that sits in a build directory is followed by
// the same path under src/ (dist/x.js → src/x, dist/esm/x.js → src/esm/x
// and src/x), for a workspace that holds the sources and not the build.
func (e *env) jsPackageRequest(f *fileFacts, spec string, r *request) {
	if r.kind == 0 && strings.HasPrefix(spec, "#") {
		e.jsImportsRequest(f, spec, r)
		return
	}
	if r.kind != 0 || len(e.jsPkgs) == 0 || spec == "" || spec[0] == '.' || spec[0] == '/' {
		return
	}
	if i := strings.IndexAny(spec, "?#"); i > 0 {
		spec = spec[:i]
	}
	name, sub := spec, ""
	n := strings.IndexByte(spec, '/')
	if strings.HasPrefix(spec, "@") && n > 0 {
		if m := strings.IndexByte(spec[n+1:], '/'); m >= 0 {
			n += 1 + m
		} else {
			n = -1
		}
	}
	if n > 0 {
		name, sub = spec[:n], spec[n+1:]
	}
	pkg := e.jsPkgs[name]
	if pkg == nil {
		return
	}
	var targets []string
	if pkg.exports != nil {
		targets = matchJSExports(pkg.exports, "./"+sub)
		if sub == "" {
			targets = matchJSExports(pkg.exports, ".")
		}
	} else if sub == "" {
		targets = []string{"."}
		for _, m := range e.pkgMain[pkg.dir] {
			rel := m
			if pkg.dir != "" {
				var ok bool
				if rel, ok = strings.CutPrefix(m, pkg.dir+"/"); !ok {
					continue
				}
			}
			targets = append(targets, "./"+rel)
		}
	} else {
		targets = []string{"./" + sub}
	}
	var alts []string
	add := func(b string) {
		for _, a := range alts {
			if a == b {
				return
			}
		}
		alts = append(alts, b)
	}
	for _, t := range targets {
		b, ok := resolveRel(pkg.dir, t)
		if !ok {
			continue
		}
		add(b)
		for _, s := range jsSourceBases(pkg.dir, t) {
			add(s)
		}
	}
	if len(alts) > 0 {
		*r = request{kind: reqJS, alts: alts}
	}
}

// jsImportsRequest fills an empty request r for a specifier starting
// with "#" through the "imports" of the nearest package.json at or above
// the importer that has the field, as Node and TypeScript (node16,
// nodenext, bundler) read it: the key exactly, else the "*" pattern with
// the longest prefix; targets are relative to that package.json, and one
// in a build directory is followed by its source under src/ as for
// "exports". A target naming another package ("#db": "db-pkg") is not
// followed.
func (e *env) jsImportsRequest(f *fileFacts, spec string, r *request) {
	if len(e.jsImports) == 0 {
		return
	}
	for dir := f.dir; ; dir = dirOf(dir) {
		if imps, ok := e.jsImports[dir]; ok {
			var alts []string
			for _, t := range matchJSExports(imps, spec) {
				if !strings.HasPrefix(t, "./") {
					continue
				}
				bases := jsSourceBases(dir, t)
				if b, ok := resolveRel(dir, t); ok {
					bases = append([]string{b}, bases...)
				}
				for _, b := range bases {
					if !slices.Contains(alts, b) {
						alts = append(alts, b)
					}
				}
			}
			if len(alts) > 0 {
				*r = request{kind: reqJS, alts: alts}
			}
			return
		}
		if dir == "" {
			return
		}
	}
}

// matchJSExports returns the targets of subpath key: an exact key, else
// the "*" pattern with the longest prefix, its "*" replaced in the
// targets.
func matchJSExports(exps []jsSubpath, key string) []string {
	for _, s := range exps {
		if s.key == key {
			return s.targets
		}
	}
	best, star := -1, ""
	for i, s := range exps {
		prefix, suffix, ok := strings.Cut(s.key, "*")
		if !ok || len(key) < len(prefix)+len(suffix) || !strings.HasPrefix(key, prefix) || !strings.HasSuffix(key, suffix) {
			continue
		}
		if best < 0 || len(prefix) > len(strings.SplitN(exps[best].key, "*", 2)[0]) {
			best, star = i, key[len(prefix):len(key)-len(suffix)]
		}
	}
	if best < 0 {
		return nil
	}
	out := make([]string, len(exps[best].targets))
	for i, t := range exps[best].targets {
		out[i] = strings.ReplaceAll(t, "*", star)
	}
	return out
}

// jsBuildDirs are the first directories of a package path that hold a
// build rather than sources; jsFormatDirs the second-level directories of
// a build split by module format.
var (
	jsBuildDirs  = map[string]bool{"dist": true, "lib": true, "build": true, "out": true, "esm": true, "cjs": true, "types": true}
	jsFormatDirs = map[string]bool{"esm": true, "cjs": true, "types": true, "mjs": true, "es": true, "umd": true}
)

// jsSourceBases maps a package target in a build directory ("./dist/x.js",
// "./lib/esm/x.d.ts") to the bases of its source under src/ ("src/x",
// "src/esm/x" then "src/x"), without extension.
func jsSourceBases(dir, target string) []string {
	t := strings.TrimPrefix(target, "./")
	first, rest, ok := strings.Cut(t, "/")
	if !ok || !jsBuildDirs[first] || rest == "" {
		return nil
	}
	stem := rest
	for _, x := range []string{".d.ts", ".d.mts", ".d.cts", ".js", ".mjs", ".cjs", ".jsx"} {
		if s, ok := strings.CutSuffix(stem, x); ok {
			stem = s
			break
		}
	}
	var out []string
	if b, ok := resolveRel(dir, "src/"+stem); ok {
		out = append(out, b)
	}
	if f, r, ok := strings.Cut(stem, "/"); ok && jsFormatDirs[f] && r != "" {
		if b, ok := resolveRel(dir, "src/"+r); ok {
			out = append(out, b)
		}
	}
	return out
}

// jsMoreAliasWords extends jsAliasWords (trace.go) with the aliases of
// package.json "imports" and tsconfig rootDirs: for each "imports" of a
// package.json whose directory holds val (or whose targets leave it), the
// words of each key's literal text ("#internal/*" → internal); for a val
// in a rootDirs directory, val's name alone, which a file of another root
// directory writes without val's directory ("./view.strings.js"). ok is
// false when a key holds no word ("#*"): any file may name val.
func (g *Graph) jsMoreAliasWords(val string) ([][]string, bool) {
	var alts [][]string
	for _, dir := range sortedKeys(g.env.jsImports) {
		imps := g.env.jsImports[dir]
		if _, in := within(dir, val); !in && !(&jsPackage{exports: imps}).escapes() {
			continue
		}
		for _, sp := range imps {
			ws := literalWords(strings.TrimPrefix(sp.key, "#"))
			if len(ws) == 0 {
				return nil, false
			}
			alts = append(alts, ws)
		}
	}
	for _, dir := range sortedKeys(g.env.ts) {
		o := g.env.ts[dir]
		if o == nil || len(o.rootDirs) < 2 {
			continue
		}
		if slices.ContainsFunc(o.rootDirs, func(r string) bool { _, in := within(r, val); return in }) {
			alts = append(alts, words.Split(moduleName(val)))
			break
		}
	}
	return alts, true
}
