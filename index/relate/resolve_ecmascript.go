package relate

import "strings"

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
			return request{kind: reqJS, alts: []string{b}}
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
