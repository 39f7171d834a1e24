package relate

import (
	"go/build/constraint"
	"os"
	"runtime"
	"strings"
)

// goPlatform is the GOOS/GOARCH pair Go files are resolved for.
type goPlatform struct{ goos, goarch string }

func (p goPlatform) String() string { return p.goos + "/" + p.goarch }

// hostGoPlatform returns the configured platform: the GOOS and GOARCH
// environment variables when set, else the host's.
func hostGoPlatform() goPlatform {
	p := goPlatform{runtime.GOOS, runtime.GOARCH}
	if s := os.Getenv("GOOS"); s != "" {
		p.goos = s
	}
	if s := os.Getenv("GOARCH"); s != "" {
		p.goarch = s
	}
	return p
}

// goPorts are the platforms tried, in order, for a file that does not build
// for the configured platform and whose name names no GOOS: the first one
// its constraint accepts is used.
var goPorts = []goPlatform{
	{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "arm64"}, {"darwin", "amd64"},
	{"windows", "amd64"}, {"windows", "arm64"}, {"linux", "386"}, {"linux", "arm"},
	{"freebsd", "amd64"}, {"openbsd", "amd64"}, {"netbsd", "amd64"}, {"dragonfly", "amd64"},
	{"solaris", "amd64"}, {"illumos", "amd64"}, {"aix", "ppc64"}, {"android", "arm64"},
	{"ios", "arm64"}, {"js", "wasm"}, {"wasip1", "wasm"}, {"plan9", "amd64"},
	{"linux", "ppc64le"}, {"linux", "ppc64"}, {"linux", "s390x"}, {"linux", "riscv64"},
	{"linux", "loong64"}, {"linux", "mips64le"}, {"linux", "mips64"}, {"linux", "mipsle"},
	{"linux", "mips"}, {"windows", "386"}, {"freebsd", "arm64"}, {"netbsd", "arm64"},
	{"openbsd", "arm64"}, {"freebsd", "386"}, {"netbsd", "386"}, {"openbsd", "386"},
	{"freebsd", "arm"}, {"netbsd", "arm"}, {"openbsd", "arm"}, {"plan9", "386"},
	{"plan9", "arm"}, {"freebsd", "riscv64"}, {"openbsd", "riscv64"}, {"openbsd", "ppc64"},
}

// knownOS and knownArch are the GOOS and GOARCH values a file name suffix
// may name (go/build's lists).
var (
	knownOS = map[string]bool{
		"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true,
		"hurd": true, "illumos": true, "ios": true, "js": true, "linux": true, "nacl": true,
		"netbsd": true, "openbsd": true, "plan9": true, "solaris": true, "wasip1": true,
		"windows": true, "zos": true,
	}
	knownArch = map[string]bool{
		"386": true, "amd64": true, "amd64p32": true, "arm": true, "armbe": true, "arm64": true,
		"arm64be": true, "loong64": true, "mips": true, "mipsle": true, "mips64": true,
		"mips64le": true, "mips64p32": true, "mips64p32le": true, "ppc": true, "ppc64": true,
		"ppc64le": true, "riscv": true, "riscv64": true, "s390": true, "s390x": true,
		"sparc": true, "sparc64": true, "wasm": true,
	}
	unixOS = map[string]bool{
		"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true,
		"hurd": true, "illumos": true, "ios": true, "linux": true, "netbsd": true,
		"openbsd": true, "solaris": true,
	}
)

// goNameTags returns the GOOS and GOARCH a Go file name's suffix
// requires ("" when none): x_linux.go, x_arm64.go, x_linux_arm64_test.go.
// As in go/build, the part before the first underscore never counts.
func goNameTags(p string) (goos, goarch string) {
	name := strings.TrimSuffix(baseOf(p), ".go")
	name = strings.TrimSuffix(name, "_test")
	i := strings.IndexByte(name, '_')
	if i < 0 {
		return "", ""
	}
	l := strings.Split(name[i:], "_")
	n := len(l)
	if n >= 2 && knownOS[l[n-2]] && knownArch[l[n-1]] {
		return l[n-2], l[n-1]
	}
	if knownOS[l[n-1]] {
		return l[n-1], ""
	}
	if knownArch[l[n-1]] {
		return "", l[n-1]
	}
	return "", ""
}

// osMatch reports whether a GOOS tag or name suffix holds on goos: android
// also builds linux files, illumos solaris files, ios darwin files.
func osMatch(tag, goos string) bool {
	return tag == goos || (tag == "linux" && goos == "android") ||
		(tag == "solaris" && goos == "illumos") || (tag == "darwin" && goos == "ios")
}

// tag reports whether a build tag holds on p: its GOOS and GOARCH, "unix"
// on unix systems, "cgo", "gc" and every goX.Y release tag; any other tag
// (a custom tag, "ignore", "gccgo", "purego", "boringcrypto") is false.
func (p goPlatform) tag(t string) bool {
	switch {
	case knownOS[t]:
		return osMatch(t, p.goos)
	case knownArch[t]:
		return t == p.goarch
	case t == "unix":
		return unixOS[p.goos]
	case t == "cgo", t == "gc":
		return true
	case strings.HasPrefix(t, "go1."):
		return true
	}
	return false
}

// goExpr parses a Go file's constraint (syntax.File.Constraint); nil when
// there is none or it does not parse.
func goExpr(c string) constraint.Expr {
	if c == "" {
		return nil
	}
	x, err := constraint.Parse("//go:build " + c)
	if err != nil {
		return nil
	}
	return x
}

// builds reports whether a Go file with path p and parsed constraint x
// builds for p.
func (p goPlatform) builds(path string, x constraint.Expr) bool {
	goos, goarch := goNameTags(path)
	if goos != "" && !osMatch(goos, p.goos) || goarch != "" && goarch != p.goarch {
		return false
	}
	return x == nil || x.Eval(p.tag)
}

// goFilePlatform returns the platform a file is resolved for: the
// configured one when the file builds for it; else one of its name's GOOS
// (and GOARCH), completed from goPorts, that its constraint accepts; else
// the first of goPorts it builds for; else the configured one.
func goFilePlatform(f *fileFacts, host goPlatform) goPlatform {
	if !f.goOff {
		return host
	}
	x := goExpr(f.goConstraint())
	goos, goarch := goNameTags(f.path)
	if goos != "" && goarch != "" {
		return goPlatform{goos, goarch}
	}
	for _, p := range goPorts {
		if goos != "" && p.goos != goos || goarch != "" && p.goarch != goarch {
			continue
		}
		if p.builds(f.path, x) {
			return p
		}
	}
	if goos != "" || goarch != "" {
		p := host
		if goos != "" {
			p.goos = goos
		}
		if goarch != "" {
			p.goarch = goarch
		}
		return p
	}
	return host
}

func (f *fileFacts) goConstraint() string {
	if f.syn == nil {
		return f.goCons
	}
	return f.syn.Constraint
}

// GoPlatform returns the GOOS/GOARCH Go files are resolved for ("linux/amd64"):
// the GOOS and GOARCH environment variables when set, else the host's. A
// file that does not build for it is resolved for a platform it builds
// for (see docs/relations.md).
func (g *Graph) GoPlatform() string {
	if g == nil {
		return hostGoPlatform().String()
	}
	return g.env.goPlat.String()
}
