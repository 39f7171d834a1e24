package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Module is a Go module linked into the binary.
type Module struct {
	Path, Version, Dir string
}

// licenseFile matches the file names a module's license goes by.
var licenseFile = regexp.MustCompile(`(?i)^(licen[cs]e|copying|notice)(\.(md|txt))?$`)

// LinkedModules lists the modules other than the main one that the package
// pkg depends on when built for goos/goarch, sorted by path, by running
// `go list -deps` in dir.
func LinkedModules(dir, pkg, goos, goarch string) ([]Module, error) {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}}\t{{.Version}}\t{{.Dir}}{{end}}{{end}}", pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps %s for %s/%s: %w: %s", pkg, goos, goarch, err, strings.TrimSpace(stderr.String()))
	}
	seen := map[string]bool{}
	var mods []Module
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || seen[f[0]] {
			continue
		}
		seen[f[0]] = true
		mods = append(mods, Module{Path: f[0], Version: f[1], Dir: f[2]})
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].Path < mods[j].Path })
	return mods, nil
}

// Notices renders the license texts of mods, each under a line with its
// path and version: the notices that must travel with a binary linking
// them. A module without a license file at its root is an error.
func Notices(mods []Module) (string, error) {
	var b strings.Builder
	b.WriteString("The ctxd binary links the following Go modules (and the C code some of them carry).\n")
	for _, m := range mods {
		des, err := os.ReadDir(m.Dir)
		if err != nil {
			return "", fmt.Errorf("list module %s: %w", m.Path, err)
		}
		var names []string
		for _, de := range des {
			if de.Type().IsRegular() && licenseFile.MatchString(de.Name()) {
				names = append(names, de.Name())
			}
		}
		if len(names) == 0 {
			return "", fmt.Errorf("module %s %s: no license file in %s", m.Path, m.Version, m.Dir)
		}
		sort.Strings(names)
		for _, name := range names {
			data, err := os.ReadFile(filepath.Join(m.Dir, name))
			if err != nil {
				return "", fmt.Errorf("read license of %s: %w", m.Path, err)
			}
			fmt.Fprintf(&b, "\n%s\n\n%s %s (%s)\n\n%s\n", strings.Repeat("-", 72), m.Path, m.Version, name, strings.TrimSpace(string(data)))
		}
	}
	return b.String(), nil
}
