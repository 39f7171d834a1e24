package relate

import (
	"context"
	"go/types"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ctxd/ctxd/index/syntax"
	"github.com/ctxd/ctxd/tools/corpus"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/go/packages"
)

func TestGoNameTags(t *testing.T) {
	tests := map[string][2]string{
		"a/x.go":                  {"", ""},
		"a/linux.go":              {"", ""},
		"a/x_linux.go":            {"linux", ""},
		"a/x_arm64.go":            {"", "arm64"},
		"a/defs_netbsd_arm.go":    {"netbsd", "arm"},
		"a/x_windows_test.go":     {"windows", ""},
		"a/x_linux_amd64_test.go": {"linux", "amd64"},
		"a/x_test.go":             {"", ""},
	}
	for p, want := range tests {
		goos, goarch := goNameTags(p)
		if diff := cmp.Diff(want, [2]string{goos, goarch}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", p, diff)
		}
	}
}

func TestGoPlatformBuilds(t *testing.T) {
	linux := goPlatform{"linux", "amd64"}
	tests := []struct {
		path, constraint string
		plat             goPlatform
		want             bool
	}{
		{"a/x.go", "", linux, true},
		{"a/x_windows.go", "", linux, false},
		{"a/x_linux.go", "", goPlatform{"android", "arm64"}, true},
		{"a/x.go", "unix && !386", linux, true},
		{"a/x.go", "ignore", linux, false},
		{"a/x.go", "go1.21 && cgo", linux, true},
		{"a/x.go", "purego || gccgo", linux, false},
		{"a/x.go", "darwin || freebsd", linux, false},
		{"a/x.go", "solaris", goPlatform{"illumos", "amd64"}, true},
	}
	for _, tt := range tests {
		if got := tt.plat.builds(tt.path, goExpr(tt.constraint)); got != tt.want {
			t.Errorf("%s %q on %v = %v, want %v", tt.path, tt.constraint, tt.plat, got, tt.want)
		}
	}
}

func TestGoFilePlatform(t *testing.T) {
	host := goPlatform{"linux", "amd64"}
	e := &env{goPlat: host}
	tests := map[string]struct {
		constraint string
		want       goPlatform
	}{
		"a/x.go":               {"", host},
		"a/defs_netbsd_arm.go": {"", goPlatform{"netbsd", "arm"}},
		"a/x_windows.go":       {"", goPlatform{"windows", "amd64"}},
		"a/x_arm64.go":         {"", goPlatform{"linux", "arm64"}},
		"a/y.go":               {"darwin && arm64", goPlatform{"darwin", "arm64"}},
		"a/z.go":               {"ignore", host},
	}
	for p, tt := range tests {
		f := newFacts(p, &syntax.File{Language: syntax.Go, Package: "a", Constraint: tt.constraint}, goHead{}, e)
		if got := goFilePlatform(f, host); got != tt.want {
			t.Errorf("%s: %v, want %v", p, got, tt.want)
		}
	}
}

// TestGoPlatformResolve resolves a workspace for two platforms.
func TestGoPlatformResolve(t *testing.T) {
	files := map[string]string{
		"go.mod":          "module m\n",
		"p/a.go":          "package p\n\nfunc use() { sys() }\n",
		"p/sys_linux.go":  "package p\n\nfunc sys() {}\n",
		"p/sys_darwin.go": "package p\n\nfunc sys() {}\n",
		"p/sys_other.go":  "//go:build !linux && !darwin\n\npackage p\n\nfunc sys() {}\n",
		"p/b_darwin.go":   "package p\n\nfunc f() { sys() }\n",
	}
	for _, tt := range []struct {
		goos string
		want []string
	}{{"linux", []string{"p/sys_linux.go"}}, {"darwin", []string{"p/sys_darwin.go"}}, {"plan9", []string{"p/sys_other.go"}}} {
		t.Run(tt.goos, func(t *testing.T) {
			t.Setenv("GOOS", tt.goos)
			t.Setenv("GOARCH", "amd64")
			g := Build(goMemSource(t, files))
			if g.GoPlatform() != tt.goos+"/amd64" {
				t.Errorf("GoPlatform %s", g.GoPlatform())
			}
			if diff := cmp.Diff(tt.want, refPaths(g.Resolve("p/a.go", nil), "p/a.go")); diff != "" {
				t.Errorf("resolve (-want +got):\n%s", diff)
			}
			// b_darwin.go resolves for darwin whatever the platform.
			if diff := cmp.Diff([]string{"p/sys_darwin.go"}, refPaths(g.Resolve("p/b_darwin.go", nil), "p/b_darwin.go")); diff != "" {
				t.Errorf("resolve b_darwin.go (-want +got):\n%s", diff)
			}
			users := g.Users("p/sys_darwin.go", nil)
			want := []string{"p/a.go", "p/b_darwin.go"}
			if diff := cmp.Diff(want, users); diff != "" {
				t.Errorf("users of sys_darwin.go (-want +got):\n%s", diff)
			}
		})
	}
}

func goMemSource(t testing.TB, files map[string]string) *memSource {
	src := newMemSource()
	for p, text := range files {
		var syn *syntax.File
		if filepath.Ext(p) == ".go" {
			var err error
			if syn, err = syntax.Parse(context.Background(), syntax.Go, []byte(text)); err != nil {
				t.Fatal(err)
			}
		}
		src.set(p, []byte(text), syn)
	}
	return src
}

func refPaths(refs []SymbolRef, skip string) []string {
	var out []string
	for _, r := range refs {
		if r.Path != skip {
			out = append(out, r.Path)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestGoRootCompare compares Resolve on a few files of the Go source tree
// with what go/types says they use. It takes a minute: set
// CTXD_GOROOT_COMPARE=1 to run it.
func TestGoRootCompare(t *testing.T) {
	if os.Getenv("CTXD_GOROOT_COMPARE") == "" {
		t.Skip("set CTXD_GOROOT_COMPARE=1")
	}
	root, err := corpus.GoSrc()
	if err != nil {
		t.Skip(err)
	}
	files := corpus.Files(t)
	src := newMemSource()
	syns := make([]*syntax.File, len(files))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(files); i += workers {
				syns[i], _ = syntax.Parse(context.Background(), syntax.Go, files[i].Data)
			}
		})
	}
	wg.Wait()
	for i, f := range files {
		rel, _ := filepath.Rel(root, f.Path)
		src.set(filepath.ToSlash(rel), f.Data, syns[i])
	}
	for _, m := range []string{"go.mod", "cmd/go.mod"} {
		if b, err := os.ReadFile(filepath.Join(root, m)); err == nil {
			src.set(m, b, nil)
		}
	}
	g := Build(src)
	targets := []string{"net/http/server.go", "runtime/signal_unix.go", "math/big/nat.go", "os/file.go", "go/types/call.go", "net/http/transport.go"}
	var tr, tw, hit, hitW, got, gotHit float64
	for _, target := range targets {
		truth := goTypesUses(t, root, target)
		ours := refPaths(g.Resolve(target, nil), target)
		var r, w, h, hw float64
		for p, n := range truth {
			r++
			w += float64(n)
			if slices.Contains(ours, p) {
				h++
				hw += float64(n)
			} else {
				t.Logf("%s: missed %s (%d uses)", target, p, n)
			}
		}
		ph := 0.0
		for _, p := range ours {
			if truth[p] > 0 {
				ph++
			} else {
				t.Logf("%s: extra %s", target, p)
			}
		}
		t.Logf("%s: %d files used, %d resolved; recall %.3f (weighted %.3f), precision %.3f", target, len(truth), len(ours), h/r, hw/w, ph/float64(max(1, len(ours))))
		tr += r
		tw += w
		hit += h
		hitW += hw
		got += float64(len(ours))
		gotHit += ph
	}
	t.Logf("all: recall %.3f (weighted %.3f), precision %.3f", hit/tr, hitW/tw, gotHit/got)
}

// goTypesUses returns the files of root (relative) declaring what target
// uses, with the number of uses, as go/types says.
func goTypesUses(t *testing.T, root, target string) map[string]int {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:  root,
		Env:  append(os.Environ(), "CGO_ENABLED=1"),
	}
	pkgs, err := packages.Load(cfg, "./"+filepath.Dir(target))
	if err != nil || len(pkgs) == 0 {
		t.Fatalf("%s: %v", target, err)
	}
	out := map[string]int{}
	goroot := filepath.Dir(root)
	for _, p := range pkgs {
		for _, f := range p.Syntax {
			name := p.Fset.File(f.Pos()).Name()
			if !strings.HasSuffix(filepath.ToSlash(name), "/"+target) {
				continue
			}
			for id, obj := range p.TypesInfo.Uses {
				if p.Fset.File(id.Pos()) != p.Fset.File(f.Pos()) || obj.Pkg() == nil || !obj.Pos().IsValid() {
					continue
				}
				if _, isPkg := obj.(*types.PkgName); isPkg {
					continue
				}
				decl := strings.Replace(p.Fset.Position(obj.Pos()).Filename, "$GOROOT", goroot, 1)
				if i := strings.Index(filepath.ToSlash(decl), "/src/"); i >= 0 && !strings.HasPrefix(decl, root) {
					decl = filepath.Join(root, decl[i+len("/src/"):])
				}
				rel, err := filepath.Rel(root, decl)
				if err != nil || rel == target || filepath.IsAbs(rel) || rel[0] == '.' {
					continue
				}
				if v, ok := obj.(*types.Var); ok && !v.IsField() && v.Parent() != v.Pkg().Scope() {
					continue // a local
				}
				out[filepath.ToSlash(rel)]++
			}
		}
	}
	return out
}
