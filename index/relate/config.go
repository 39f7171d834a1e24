package relate

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// resolverConfigs are the file names whose content or presence changes how
// other files' imports resolve. A change to one of them (or to a file a
// tsconfig extends) makes Update rebuild the graph.
var resolverConfigs = map[string]bool{
	"go.mod":                true,
	"tsconfig.json":         true,
	"jsconfig.json":         true,
	"package.json":          true,
	"Cargo.toml":            true,
	"compile_commands.json": true,
}

// env is what the resolver configs of a root say, read once per Build. It is
// immutable and shared by every graph derived by Update.
type env struct {
	// goMods maps the directory of each go.mod to its module path ("" when
	// the file is unreadable or has no module line).
	goMods map[string]string
	// modDirs maps a module path to the directory of its go.mod; when two
	// go.mod files declare the same path, the lexically smallest directory.
	modDirs map[string]string
	// stdRoot is the directory of the go.mod declaring module std (the Go
	// source tree), hasStd whether there is one.
	stdRoot string
	hasStd  bool
	// ts maps a directory to the options of its tsconfig.json (preferred) or
	// jsconfig.json.
	ts map[string]*tsOptions
	// pkgMain maps a directory holding a package.json to the bases named by
	// its "types", "typings" and "main" fields, in that order; mainDirs is
	// the reverse.
	pkgMain  map[string][]string
	mainDirs map[string][]string
	// jsPkgs maps the "name" of each package.json to its package (see
	// resolve_ecmascript.go): bare specifiers naming a workspace package.
	jsPkgs map[string]*jsPackage
	// jsImports maps a directory holding a package.json to its "imports"
	// subpaths ("#internal/*"), for the specifiers starting with "#" of
	// the files below it (see resolve_ecmascript.go).
	jsImports map[string][]jsSubpath
	// cargo holds the directories with a Cargo.toml; libs maps the name of
	// each library crate they declare (as Rust code names it: "-" → "_")
	// to its crate, lexically smallest directory first on a clash.
	cargo map[string]bool
	libs  map[string]rustCrate
	// deps are the other files read while loading (tsconfig extends
	// targets, found or not).
	deps map[string]bool
	// cDirs are the include directories of the compile_commands.json files
	// (-iquote, -I, -isystem), applied to every C/C++ file.
	cDirs cIncludeDirs
	// goPlat is the GOOS/GOARCH Go files are resolved for (GOOS and
	// GOARCH from the environment when set, else the host's).
	goPlat goPlatform
	// cs is the C# project structure (csproj.go); nil without project
	// files.
	cs *csProjects
}

// loadEnv reads the resolver configs among paths.
func loadEnv(src Source, paths []string) *env {
	e := &env{
		goMods:   map[string]string{},
		modDirs:  map[string]string{},
		ts:       map[string]*tsOptions{},
		pkgMain:  map[string][]string{},
		mainDirs: map[string][]string{},
		cargo:    map[string]bool{},
		libs:     map[string]rustCrate{},
		deps:     map[string]bool{},
		goPlat:   hostGoPlatform(),
	}
	var tsconfigs []string
	for _, p := range paths {
		name := baseOf(p)
		if !resolverConfigs[name] {
			continue
		}
		dir := dirOf(p)
		switch name {
		case "go.mod":
			mod := ""
			if b, ok := src.Content(p); ok {
				mod = parseModulePath(b)
			}
			e.goMods[dir] = mod
			if mod == "" {
				continue
			}
			if mod == "std" {
				// The standard library's packages are imported
				// without the module path ("std/fmt" is no import):
				// the std root below resolves them.
				mod = ""
			}
			if old, ok := e.modDirs[mod]; mod != "" && (!ok || dir < old) {
				e.modDirs[mod] = dir
			}
			if e.goMods[dir] == "std" && (!e.hasStd || len(dir) < len(e.stdRoot) || (len(dir) == len(e.stdRoot) && dir < e.stdRoot)) {
				e.stdRoot, e.hasStd = dir, true
			}
		case "tsconfig.json", "jsconfig.json":
			tsconfigs = append(tsconfigs, p)
		case "package.json":
			var mains []string
			if b, ok := src.Content(p); ok {
				mains = parsePackageMain(dir, b)
			}
			if len(mains) > 0 {
				e.pkgMain[dir] = mains
			}
			if b, ok := src.Content(p); ok {
				e.addJSPackage(dir, b)
			}
		case "compile_commands.json":
			if b, ok := src.Content(p); ok {
				e.cDirs.add(parseCompileCommands(b, paths))
			}
		case "Cargo.toml":
			e.cargo[dir] = true
			if b, ok := src.Content(p); ok {
				if name, lib, ok := parseCargoLib(b); ok {
					if _, dup := e.libs[name]; !dup {
						root := join(dir, lib)
						e.libs[name] = rustCrate{dir: dirOf(root), roots: []string{root}}
					}
				}
			}
		}
	}
	// tsconfig.json wins over a jsconfig.json of the same directory
	// (TypeScript reads only one).
	for _, p := range tsconfigs {
		dir := dirOf(p)
		if baseOf(p) == "jsconfig.json" && slices.Contains(tsconfigs, join(dir, "tsconfig.json")) {
			continue
		}
		e.ts[dir] = e.loadTSConfig(src, p, 0, map[string]bool{})
	}
	for _, dir := range sortedKeys(e.pkgMain) {
		for _, m := range e.pkgMain[dir] {
			e.mainDirs[m] = append(e.mainDirs[m], dir)
		}
	}
	e.cs = loadCSProjects(src, paths)
	return e
}

// affects reports whether a change to p can change how other files resolve.
func (e *env) affects(p string) bool {
	return resolverConfigs[baseOf(p)] || e.deps[p] || csProjectFile(baseOf(p))
}

// nearestGoMod returns the directory and module path of the nearest go.mod
// at or above dir.
func (e *env) nearestGoMod(dir string) (modDir, mod string, ok bool) {
	ancestors(dir, func(d string) bool {
		if m, found := e.goMods[d]; found {
			modDir, mod, ok = d, m, true
			return false
		}
		return true
	})
	return modDir, mod, ok
}

// moduleFor returns the directory of the workspace module with the longest
// path that is importPath or a prefix of it, and the rest of the path.
func (e *env) moduleFor(importPath string) (dir, rest string, ok bool) {
	for p := importPath; p != ""; {
		if d, found := e.modDirs[p]; found {
			return d, strings.TrimPrefix(importPath[len(p):], "/"), true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return "", "", false
}

// parseModulePath returns the module path of a go.mod: the argument of its
// module directive, which may be quoted (interpreted or raw) and followed by
// a comment; "" when there is none. The block form "module ( path )" is
// accepted too.
func parseModulePath(b []byte) string {
	inBlock := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(stripGoModComment(line))
		if inBlock {
			if line == "" {
				continue
			}
			if line == ")" {
				return ""
			}
			return unquoteModPath(line)
		}
		rest, ok := strings.CutPrefix(line, "module")
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '(' && rest[0] != '"' && rest[0] != '`') {
			continue
		}
		rest = strings.TrimSpace(rest)
		if rest == "(" {
			inBlock = true
			continue
		}
		if strings.HasPrefix(rest, "(") && strings.HasSuffix(rest, ")") {
			rest = strings.TrimSpace(rest[1 : len(rest)-1])
		}
		return unquoteModPath(rest)
	}
	return ""
}

// stripGoModComment removes a // comment that is not inside a quoted string.
func stripGoModComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '`':
			quote = c
		case c == '/' && i+1 < len(line) && line[i+1] == '/':
			return line[:i]
		}
	}
	return line
}

func unquoteModPath(s string) string {
	if s == "" {
		return ""
	}
	if s[0] == '"' || s[0] == '`' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
		return ""
	}
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		s = s[:i]
	}
	return s
}

// tsOptions are the effective compilerOptions of a tsconfig.json or
// jsconfig.json after its extends chain: baseUrl (a root-relative directory)
// and paths, whose targets are relative to pathsBase.
type tsOptions struct {
	baseURL    string
	hasBaseURL bool
	paths      []tsPath
	pathsBase  string
	hasPaths   bool
	// rootDirs are the root-relative directories of compilerOptions.rootDirs,
	// merged into one virtual directory (resolve_ecmascript.go).
	rootDirs    []string
	hasRootDirs bool
}

// tsPath is one entry of compilerOptions.paths, in file order.
type tsPath struct {
	pattern string
	targets []string
}

// loadTSConfig reads the config at p and the configs it extends. The depth
// limit and the seen set (the configs on the current extends chain) stop
// extends cycles.
func (e *env) loadTSConfig(src Source, p string, depth int, seen map[string]bool) *tsOptions {
	opts := &tsOptions{}
	if depth > 8 || seen[p] {
		return opts
	}
	seen[p] = true
	defer delete(seen, p)
	b, ok := src.Content(p)
	if !ok {
		return opts
	}
	var doc struct {
		Extends         json.RawMessage `json:"extends"`
		CompilerOptions struct {
			BaseURL  *string         `json:"baseUrl"`
			Paths    json.RawMessage `json:"paths"`
			RootDirs []string        `json:"rootDirs"`
		} `json:"compilerOptions"`
	}
	if json.Unmarshal(jsonc(b), &doc) != nil {
		return opts
	}
	dir := dirOf(p)
	// extends is a string or (TypeScript 5) an array; later entries
	// override earlier ones, and the file itself overrides them all.
	var extends []string
	var one string
	if json.Unmarshal(doc.Extends, &one) == nil {
		extends = []string{one}
	} else {
		_ = json.Unmarshal(doc.Extends, &extends)
	}
	for _, x := range extends {
		var candidates []string
		if !strings.HasPrefix(x, "./") && !strings.HasPrefix(x, "../") {
			// A package ("@tsconfig/node20", "@repo/tsconfig/base.json"):
			// a workspace package or a node_modules copy (tsExtendsPackage).
			candidates = e.tsExtendsPackage(dir, x)
		} else if base, ok := resolveRel(dir, x); ok {
			candidates = []string{base}
			if !strings.HasSuffix(base, ".json") {
				candidates = append(candidates, base+".json")
			}
		}
		for _, c := range candidates {
			e.deps[c] = true
			if _, ok := src.Content(c); ok {
				opts.merge(e.loadTSConfig(src, c, depth+1, seen))
				break
			}
		}
	}
	own := &tsOptions{}
	if doc.CompilerOptions.BaseURL != nil {
		if u, ok := resolveRel(dir, *doc.CompilerOptions.BaseURL); ok {
			own.baseURL, own.hasBaseURL = u, true
		}
	}
	if len(doc.CompilerOptions.Paths) > 0 {
		own.paths, own.hasPaths = parseTSPaths(doc.CompilerOptions.Paths), true
		own.pathsBase = dir
	}
	if doc.CompilerOptions.RootDirs != nil {
		own.hasRootDirs = true
		for _, r := range doc.CompilerOptions.RootDirs {
			if d, ok := resolveRel(dir, r); ok {
				own.rootDirs = append(own.rootDirs, d)
			}
		}
	}
	opts.merge(own)
	// Paths are relative to baseUrl when there is one, else to the config
	// that declared them (TypeScript 4.1 and later).
	if opts.hasBaseURL && opts.hasPaths {
		opts.pathsBase = opts.baseURL
	}
	return opts
}

func (o *tsOptions) merge(over *tsOptions) {
	if over.hasBaseURL {
		o.baseURL, o.hasBaseURL = over.baseURL, true
	}
	if over.hasPaths {
		o.paths, o.pathsBase, o.hasPaths = over.paths, over.pathsBase, true
	}
	if over.hasRootDirs {
		o.rootDirs, o.hasRootDirs = over.rootDirs, true
	}
}

// parseTSPaths decodes the paths object keeping its key order, which
// decides between patterns of equal prefix length.
func parseTSPaths(raw json.RawMessage) []tsPath {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []tsPath
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		key, _ := t.(string)
		var targets []string
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return out
		}
		if json.Unmarshal(v, &targets) != nil {
			continue
		}
		out = append(out, tsPath{pattern: key, targets: targets})
	}
	return out
}

// parsePackageMain returns the root-relative bases named by a package.json's
// "types", "typings" and "main" fields.
func parsePackageMain(dir string, b []byte) []string {
	var doc struct {
		Types   string `json:"types"`
		Typings string `json:"typings"`
		Main    string `json:"main"`
	}
	if json.Unmarshal(jsonc(b), &doc) != nil {
		return nil
	}
	var out []string
	for _, v := range []string{doc.Types, doc.Typings, doc.Main} {
		if v == "" {
			continue
		}
		if p, ok := resolveRel(dir, v); ok && p != dir && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// jsonc turns JSON with comments and trailing commas (what tsconfig.json
// allows) into JSON: comments become spaces, a comma followed only by
// whitespace or comments before a closing bracket is dropped, and a leading
// byte order mark is removed. Strings are copied verbatim.
func jsonc(b []byte) []byte {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	out := make([]byte, 0, len(b))
	// skipSpace returns the index of the next byte that is neither
	// whitespace nor inside a comment.
	skipSpace := func(i int) int {
		for i < len(b) {
			switch {
			case b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r':
				i++
			case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
				for i < len(b) && b[i] != '\n' {
					i++
				}
			case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
				end := bytes.Index(b[i+2:], []byte("*/"))
				if end < 0 {
					return len(b)
				}
				i += end + 4
			default:
				return i
			}
		}
		return i
	}
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(b))
			out = append(out, b[i:j]...)
			i = j
		case c == '/' && i+1 < len(b) && (b[i+1] == '/' || b[i+1] == '*'):
			out = append(out, ' ')
			i = skipSpace(i)
		case c == ',':
			if next := skipSpace(i + 1); next < len(b) && (b[next] == '}' || b[next] == ']') {
				i = next
				continue
			}
			out = append(out, c)
			i++
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

// nearestTS returns the options of the nearest tsconfig.json or
// jsconfig.json at or above dir, nil when there is none.
func (e *env) nearestTS(dir string) *tsOptions {
	var opts *tsOptions
	ancestors(dir, func(d string) bool {
		opts = e.ts[d]
		return opts == nil
	})
	return opts
}

// nearestCargo returns the directory of the nearest Cargo.toml at or above
// dir.
func (e *env) nearestCargo(dir string) (string, bool) {
	var found string
	ok := false
	ancestors(dir, func(d string) bool {
		if e.cargo[d] {
			found, ok = d, true
			return false
		}
		return true
	})
	return found, ok
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// parseCargoLib reads the library crate of a Cargo.toml: its name ([lib]
// name, else [package] name with "-" as "_") and root file ([lib] path,
// else src/lib.rs). ok is false for a manifest without [package] (a
// workspace root).
func parseCargoLib(b []byte) (name, path string, ok bool) {
	var pkgName, libName, libPath, section string
	hasPackage := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section = strings.Trim(line, "[] \t")
			if i := strings.IndexByte(section, '#'); i >= 0 {
				section = strings.TrimSpace(section[:i])
			}
			hasPackage = hasPackage || section == "package"
			continue
		}
		key, val, found := strings.Cut(line, "=")
		if !found || (section != "package" && section != "lib") {
			continue
		}
		key = strings.TrimSpace(key)
		val = strings.TrimSpace(val)
		if len(val) < 2 || (val[0] != '"' && val[0] != '\'') {
			continue
		}
		end := strings.IndexByte(val[1:], val[0])
		if end < 0 {
			continue
		}
		val = val[1 : 1+end]
		switch {
		case section == "package" && key == "name":
			pkgName = val
		case section == "lib" && key == "name":
			libName = val
		case section == "lib" && key == "path":
			libPath = val
		}
	}
	if !hasPackage {
		return "", "", false
	}
	name = libName
	if name == "" {
		name = strings.ReplaceAll(pkgName, "-", "_")
	}
	path = strings.TrimPrefix(libPath, "./")
	if path == "" {
		path = "src/lib.rs"
	}
	return name, path, name != ""
}
