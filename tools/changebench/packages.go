package main

// The real changes: two consecutive releases of a package, from the Go
// module proxy or the npm registry, and the files that changed between
// them.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// defaultPackages is the table of releases the benchmark diffs: Go modules
// (go:) and npm packages (npm:), each as NAME@OLD..NEW with NEW the release
// right after OLD. Picked for having enough changed source files.
var defaultPackages = []string{
	"go:golang.org/x/mod@v0.30.0..v0.31.0",
	"go:golang.org/x/text@v0.41.0..v0.42.0",
	"go:golang.org/x/sync@v0.24.0..v0.25.0",
	"go:github.com/google/go-cmp@v0.5.9..v0.6.0",
	"go:golang.org/x/net@v0.50.0..v0.51.0",
	"npm:zod@4.5.4..4.6.0",
	"npm:date-fns@4.1.0..4.2.0",
	"npm:commander@15.0.0..15.1.0",
	"npm:yargs@18.0.0..18.1.0",
}

// pkgSpec is one (package, old version, new version).
type pkgSpec struct {
	kind     string // "go", "npm" or "dir"
	name     string
	old, new string
}

func (p pkgSpec) String() string { return p.name + "@" + p.old + ".." + p.new }

// parsePkg reads "go:NAME@OLD..NEW" or "npm:NAME@OLD..NEW" (an npm scope's
// leading @ is part of the name), or "dir:NAME@OLDDIR..NEWDIR": two
// releases already on the machine, such as two Python standard libraries
// (pyenv's and Debian's), which need no download.
func parsePkg(s string) (pkgSpec, error) {
	kind, rest, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || (kind != "go" && kind != "npm" && kind != "dir") {
		return pkgSpec{}, fmt.Errorf("%q: want go:NAME@OLD..NEW, npm:NAME@OLD..NEW or dir:NAME@OLDDIR..NEWDIR", s)
	}
	at := strings.LastIndexByte(rest, '@')
	if at <= 0 {
		return pkgSpec{}, fmt.Errorf("%q: no @OLD..NEW", s)
	}
	old, nw, ok := strings.Cut(rest[at+1:], "..")
	if !ok || old == "" || nw == "" {
		return pkgSpec{}, fmt.Errorf("%q: want versions as OLD..NEW", s)
	}
	return pkgSpec{kind: kind, name: rest[:at], old: old, new: nw}, nil
}

// fetchRelease returns a writable directory holding the release's files,
// under cache (reused when already there).
func fetchRelease(cache string, p pkgSpec, version string) (string, error) {
	slug := strings.NewReplacer("/", "_", "@", "").Replace(p.name) + "@" + strings.ReplaceAll(version, "/", "_")
	dir := filepath.Join(cache, p.kind, slug)
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return filepath.Join(dir, "tree"), nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	tree := filepath.Join(dir, "tree")
	if err := os.MkdirAll(tree, 0o755); err != nil {
		return "", err
	}
	var err error
	switch p.kind {
	case "go":
		err = fetchGo(dir, tree, p.name, version)
	case "npm":
		err = fetchNPM(dir, tree, p.name, version)
	case "dir":
		err = copyTree(version, tree)
	}
	if err != nil {
		return "", fmt.Errorf("%s@%s: %w", p.name, version, err)
	}
	return tree, os.WriteFile(filepath.Join(dir, ".complete"), nil, 0o644)
}

// fetchGo downloads a module version through the module proxy (go mod
// download, outside any module) and copies its read-only module-cache
// directory to tree.
func fetchGo(dir, tree, module, version string) error {
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+version)
	cmd.Dir = dir // no go.mod here or above the cache
	cmd.Env = append(os.Environ(), "GO111MODULE=on", "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go mod download: %v: %s%s", err, stderr.Bytes(), out)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil {
		return fmt.Errorf("go mod download: %v", err)
	}
	if info.Error != "" || info.Dir == "" {
		return fmt.Errorf("go mod download: %s", info.Error)
	}
	return copyTree(info.Dir, tree)
}

// fetchNPM packs a package version with npm and extracts the tarball's
// single top directory (package/) to tree.
func fetchNPM(dir, tree, name, version string) error {
	cmd := exec.Command("npm", "pack", name+"@"+version, "--pack-destination", dir, "--json", "--silent")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("npm pack: %v: %s", err, stderr.Bytes())
	}
	var packed []struct{ Filename string }
	if err := json.Unmarshal(out, &packed); err != nil || len(packed) != 1 {
		return fmt.Errorf("npm pack: unexpected output %q", out)
	}
	tgz := filepath.Join(dir, filepath.Base(strings.ReplaceAll(packed[0].Filename, "/", "-")))
	if _, err := os.Stat(tgz); err != nil {
		// npm names a scoped package's tarball scope-name-version.tgz
		matches, _ := filepath.Glob(filepath.Join(dir, "*.tgz"))
		if len(matches) != 1 {
			return fmt.Errorf("npm pack: no tarball %s", tgz)
		}
		tgz = matches[0]
	}
	return untar(tgz, tree)
}

// untar extracts a package tarball's regular files, dropping the top
// directory every entry shares.
func untar(tgz, tree string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		_, rel, ok := strings.Cut(name, "/")
		if !ok || rel == "" || !fs.ValidPath(rel) {
			continue
		}
		dst := filepath.Join(tree, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
	}
}

// copyTree copies the regular files and directories of src to dst
// (writable: a module cache's files are read-only), skipping symlinks.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, info.Mode().Perm()|0o600)
		}
		return nil
	})
}

// listFiles returns the '/'-separated paths of a tree's regular files,
// sorted.
func listFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// Limits of a file the benchmark takes.
const (
	maxFileBytes = 200 << 10
	maxLineBytes = 1000
)

// sourceExts are the extensions of the files the benchmark changes.
var sourceExts = map[string]bool{".go": true, ".ts": true, ".tsx": true, ".js": true, ".mjs": true, ".py": true}

var generatedGo = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// exclusion says why a changed file is not a sample ("" when it is one).
func exclusion(rel string, old, nw []byte) string {
	switch {
	case len(old) > maxFileBytes || len(nw) > maxFileBytes:
		return "over 200 KB"
	case bytes.IndexByte(old, 0) >= 0 || bytes.IndexByte(nw, 0) >= 0:
		return "binary"
	case !utf8.Valid(old) || !utf8.Valid(nw):
		return "not UTF-8"
	case longLine(old) || longLine(nw) || strings.Contains(path.Base(rel), ".min."):
		return "minified (a line over 1000 bytes)"
	case ext(rel) == ".go" && (generatedGo.Match(old) || generatedGo.Match(nw)):
		return "generated (Code generated … DO NOT EDIT)"
	case neverSendPath(rel):
		return "a never-send path"
	case hasMarkerLine(old) || hasMarkerLine(nw):
		return "holds conflict-marker lines"
	case bytes.HasPrefix(old, bom) || bytes.HasPrefix(nw, bom):
		return "starts with a BOM"
	case len(old) == 0 || len(nw) == 0:
		return "empty"
	}
	return ""
}

// longLine reports whether a line of text is over maxLineBytes.
func longLine(text []byte) bool {
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			i = len(text)
		}
		if i > maxLineBytes {
			return true
		}
		text = text[min(i+1, len(text)):]
	}
	return false
}

// neverSendPath approximates the contract's never-send directories and
// names, so that a real change under them is left out rather than counted
// as a wrong rejection.
func neverSendPath(rel string) bool {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		switch p {
		case ".git", ".vs", ".ctxd", "bin", "obj", "node_modules":
			return true
		case "packages":
			if i == 0 {
				return true
			}
		}
	}
	base := parts[len(parts)-1]
	return base == ".env" || strings.HasPrefix(base, ".env.") || slices.Contains([]string{".pem", ".key", ".pfx", ".env"}, ext(base))
}

// changedFile is one real change: a file in both releases whose bytes
// differ.
type changedFile struct {
	path     string
	old, new []byte
}

// changedFiles lists the files of both trees with a source extension whose
// bytes differ, sorted by path, and counts the ones left out by reason.
func changedFiles(oldTree, newTree string, excluded map[string]int) ([]changedFile, error) {
	oldFiles, err := listFiles(oldTree)
	if err != nil {
		return nil, err
	}
	newFiles, err := listFiles(newTree)
	if err != nil {
		return nil, err
	}
	var out []changedFile
	for _, rel := range oldFiles {
		if !sourceExts[ext(rel)] {
			continue
		}
		if _, found := slices.BinarySearch(newFiles, rel); !found {
			continue
		}
		old, err := os.ReadFile(filepath.Join(oldTree, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		nw, err := os.ReadFile(filepath.Join(newTree, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		if bytes.Equal(old, nw) {
			continue
		}
		if why := exclusion(rel, old, nw); why != "" {
			excluded[why]++
			continue
		}
		out = append(out, changedFile{path: rel, old: old, new: nw})
	}
	return out, nil
}

// evenly picks n of items, evenly spaced (all of them when n <= 0 or n >=
// len(items)), keeping their order.
func evenly[T any](items []T, n int) []T {
	if n <= 0 || n >= len(items) {
		return items
	}
	out := make([]T, 0, n)
	for i := range n {
		out = append(out, items[i*len(items)/n])
	}
	return out
}
