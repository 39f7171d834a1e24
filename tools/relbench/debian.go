package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// debPkg is a Debian binary package pinned by exact version (bookworm).
type debPkg struct {
	name, version string
}

// fetchDeb downloads a Debian package with apt-get download (no install;
// the machine's apt lists must carry that version: apt-get update) and
// unpacks it with dpkg -x into a directory of the cache, which it returns.
// A directory unpacked before is reused.
func fetchDeb(cache string, p debPkg) (string, error) {
	dir := filepath.Join(cache, "deb", p.name+"_"+strings.ReplaceAll(p.version, ":", "%3a"))
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err == nil {
		return filepath.Join(dir, "root"), nil
	}
	dl := filepath.Join(dir, "download")
	if err := os.MkdirAll(dl, 0o755); err != nil {
		return "", err
	}
	get := exec.Command("apt-get", "download", "-q", p.name+"="+p.version)
	get.Dir = dl
	var stderr bytes.Buffer
	get.Stdout, get.Stderr = &stderr, &stderr
	if err := get.Run(); err != nil {
		return "", fmt.Errorf("apt-get download %s=%s (apt-get update first?): %v: %s", p.name, p.version, err, stderr.Bytes())
	}
	debs, _ := filepath.Glob(filepath.Join(dl, p.name+"_*.deb"))
	if len(debs) != 1 {
		return "", fmt.Errorf("apt-get download %s=%s: %d .deb files", p.name, p.version, len(debs))
	}
	root := filepath.Join(dir, "root")
	if err := os.RemoveAll(root); err != nil {
		return "", err
	}
	x := exec.Command("dpkg", "-x", debs[0], root)
	x.Stderr = os.Stderr
	if err := x.Run(); err != nil {
		return "", fmt.Errorf("dpkg -x %s: %w", debs[0], err)
	}
	return root, os.WriteFile(done, nil, 0o644)
}

// debSource is a Debian source package pinned by exact version
// (bookworm), read from its upstream tarball (orig, without Debian's
// patches) under dir.
type debSource struct {
	name, version string
	orig          string // the upstream tarball's file name
	dir           string // the source tree inside it
}

// debSrcList is the apt source list of the source packages: the machine's
// own lists carry only binary packages.
const debSrcList = "deb-src http://deb.debian.org/debian bookworm main\n"

// fetchDebSource downloads a source package with apt-get source
// --download-only against a deb-src list of the cache's own (apt-get
// update on it once), and unpacks its upstream tarball with tar into the
// cache; it returns the source tree's directory there.
func fetchDebSource(cache string, s debSource) (string, error) {
	base := filepath.Join(cache, "debsrc")
	dir := filepath.Join(base, s.name+"_"+s.version)
	tree := filepath.Join(dir, "tree")
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return filepath.Join(tree, s.dir), nil
	}
	lists := filepath.Join(base, "lists")
	if err := os.MkdirAll(filepath.Join(lists, "partial"), 0o755); err != nil {
		return "", err
	}
	list := filepath.Join(base, "sources.list")
	if err := os.WriteFile(list, []byte(debSrcList), 0o644); err != nil {
		return "", err
	}
	apt := func(dir string, args ...string) error {
		cmd := exec.Command("apt-get", append([]string{"-q", "-o", "Dir::Etc::sourcelist=" + list,
			"-o", "Dir::Etc::sourceparts=-", "-o", "Dir::State::Lists=" + lists}, args...)...)
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("apt-get %s: %v: %s", strings.Join(args, " "), err, out.Bytes())
		}
		return nil
	}
	dl := filepath.Join(dir, "download")
	if err := os.MkdirAll(dl, 0o755); err != nil {
		return "", err
	}
	if err := apt(dl, "source", "--download-only", s.name+"="+s.version); err != nil {
		if err := apt(base, "update"); err != nil {
			return "", err
		}
		if err := apt(dl, "source", "--download-only", s.name+"="+s.version); err != nil {
			return "", err
		}
	}
	if err := os.RemoveAll(tree); err != nil {
		return "", err
	}
	if err := os.MkdirAll(tree, 0o755); err != nil {
		return "", err
	}
	x := exec.Command("tar", "-xf", filepath.Join(dl, s.orig), "-C", tree)
	x.Stderr = os.Stderr
	if err := x.Run(); err != nil {
		return "", fmt.Errorf("tar -xf %s: %w", s.orig, err)
	}
	return filepath.Join(tree, s.dir), os.WriteFile(filepath.Join(dir, ".complete"), nil, 0o644)
}
