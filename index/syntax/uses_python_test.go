package syntax

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// pyUseStrings renders the uses of src as "From|Name|m|Recv" lines, in
// source order, with the text each span covers.
func pyUseStrings(t *testing.T, src string) []string {
	t.Helper()
	us, err := Uses(context.Background(), Python, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, u := range us {
		s := src[u.Start:u.End] + " " + u.From + "|" + u.Name
		if u.Member {
			s += "|m|" + u.Recv
		}
		out = append(out, s)
	}
	return out
}

func TestPythonUses(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "module chains",
			src: `import os
import os.path as osp
import a.b
# os.sep in a comment
x = "os.sep in a string"
os.path.join(x)
osp.join(x)
a.b.c.d()
f(os)
`,
			want: []string{
				"os os|", "path os|path", "join os.path|join", "x |x",
				"osp os.path|", "join os.path|join", "x |x",
				"a a|", "b a|b", "c a.b|c", "d a.b.c|d",
				"f |f", "os os|",
			},
		},
		{
			name: "from imports and relative",
			src: `from . import sib
from .m import C as D, g
from .. import *
sib.run()
D().go()
g
undefined_name
len(g)
`,
			want: []string{
				"sib .|sib", "C .m|C", "g .m|g", // module-level from-imports: re-exports
				"sib .|sib", "run .sib|run",
				"D .m|C", "go |go|m|",
				"g .m|g",
				"undefined_name |undefined_name",
				"g .m|g",
			},
		},
		{
			// The forms by which a package or submodule is used as an
			// object: each chain names the module path up to each
			// segment, so that the resolver can relate the package's
			// __init__.py and follow its re-exports.
			name: "packages as objects",
			src: `from .. import util
from pkg import sub
import pkg.sub2 as s
import pkg.sub3


def f():
    from ... import deep
    util.langhelpers.memo()
    sub.x
    s.y
    pkg.sub3.z
    deep.w
`,
			want: []string{
				"util ..|util", "sub pkg|sub", // module-level from-imports: re-exports
				"util ..|util", "langhelpers ..util|langhelpers", "memo ..util.langhelpers|memo",
				"sub pkg|sub", "x pkg.sub|x",
				"s pkg.sub2|", "y pkg.sub2|y",
				"pkg pkg|", "sub3 pkg|sub3", "z pkg.sub3|z",
				"deep ...|deep", "w ...deep|w",
			},
		},
		{
			name: "scopes",
			src: `import json
def f(json, y=json.dumps):
    z = 1
    json.loads(z)
    return [q for q in y]
def g():
    global json
    json = None
    lambda json: json.x
def h():
    import pickle as json
    json.load()
class K:
    json = 1
    def m(self):
        return json.dumps
`,
			want: []string{
				"json json|", "dumps json|dumps",
				"loads |loads|m|",
				"x |x|m|",
				"json pickle|", "load pickle|load",
				"json json|", "dumps json|dumps",
			},
		},
		{
			name: "receivers",
			src: `from m import Base
import mod
class A(Base):
    def m(self):
        self.n()
        v = Inner()
        v.k()
        w = mod.sub.T()
        w.t()
    @classmethod
    def c(cls):
        cls.n()
    @staticmethod
    def s(self):
        self.n()
    def n(self):
        def inner():
            self.m()
        super().n()
        A.m(self)
        u = A()
        u.n()
        u = B()
        u.n()
class Inner:
    pass
`,
			want: []string{
				"Base m|Base", // the module-level from-import
				"Base m|Base",
				"n |n|m|A",
				"Inner |Inner", "k |k|m|Inner",
				"mod mod|", "sub mod|sub", "T mod.sub|T", "t |t|m|mod.sub:T",
				"n |n|m|A",
				"n |n|m|",
				"m |m|m|A",
				"n |n|m|",
				"A |A", "m |m|m|A",
				"A |A",
				"n |n|m|",
				"B |B", "n |n|m|",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, pyUseStrings(t, tt.src)); diff != "" {
				t.Errorf("uses (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPythonBindings(t *testing.T) {
	src := `import os, a.b
import a.b.c as abc
from . import sib
from ..m import x as y, z
from .star import *
try:
    from _speedups import fast
except ImportError:
    fast = None
if sys.platform == "win32":
    import ntpath as path
else:
    import posixpath as path
join = path.join
alias = y
def f():
    import json  # local: not a binding
__all__ = ["f", 'g']
__all__ += ("h",)
__all__.append("i")
__all__.extend(["j"])
`
	f, err := Parse(context.Background(), Python, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Binding{
		{Name: "os", From: "os", Orig: "*", Export: true},
		{Name: "a", From: "a", Orig: "*", Export: true},
		{Name: "a.b", From: "a.b", Orig: "*", Export: true},
		{Name: "abc", From: "a.b.c", Orig: "*", Export: true},
		{Name: "sib", From: ".", Orig: "sib", Export: true},
		{Name: "y", From: "..m", Orig: "x", Export: true},
		{Name: "z", From: "..m", Orig: "z", Export: true},
		{Name: "*", From: ".star", Orig: "*", Export: true},
		{Name: "fast", From: "_speedups", Orig: "fast", Export: true},
		{Name: "path", From: "ntpath", Orig: "*", Export: true},
		{Name: "path", From: "posixpath", Orig: "*", Export: true},
		{Name: "join", From: "posixpath", Orig: "join", Export: true},
		{Name: "alias", From: "..m", Orig: "x", Export: true},
	}
	if diff := cmp.Diff(want, f.Bindings); diff != "" {
		t.Errorf("bindings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"f", "g", "h", "i", "j"}, f.Exports); diff != "" {
		t.Errorf("exports (-want +got):\n%s", diff)
	}
	// A computed __all__ leaves the exports unknown.
	f, err = Parse(context.Background(), Python, []byte("__all__ = ['a']\n__all__ += other.__all__\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Exports != nil {
		t.Errorf("computed __all__: exports %q, want nil", f.Exports)
	}
}

// TestPythonUsesCost compares, on the .py files of $CTXD_PY_CORPUS (the
// standard library, say), the time of the uses extractor with that of
// parsing and extracting symbols, which it adds to. Skipped without it.
func TestPythonUsesCost(t *testing.T) {
	dir := os.Getenv("CTXD_PY_CORPUS")
	if dir == "" {
		t.Skip("CTXD_PY_CORPUS not set")
	}
	s, err := lookup(Python)
	if err != nil {
		t.Fatal(err)
	}
	q, err := s.compiled()
	if err != nil {
		t.Fatal(err)
	}
	var parse, syms, uses time.Duration
	var size, nuses int
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".py") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		size += len(src)
		t0 := time.Now()
		tree, err := s.parse(context.Background(), nil, src)
		if err != nil {
			t.Fatal(err)
		}
		t1 := time.Now()
		f := extractSymbols(s, q, tree, src)
		t2 := time.Now()
		pythonUses(tree.RootNode(), src, f)
		t3 := time.Now()
		tree.Close()
		parse += t1.Sub(t0)
		syms += t2.Sub(t1)
		uses += t3.Sub(t2)
		nuses += len(f.Uses)
		return nil
	})
	t.Logf("%d bytes: parse %v, symbols %v, uses %v (%d uses): extraction x%.2f",
		size, parse, syms, uses, nuses, float64(parse+syms+uses)/float64(parse+syms))
}

// FuzzPythonUses checks that the extractor survives any text: no panic,
// spans inside the source, each at an identifier (an unqualified use at
// its own name).
func FuzzPythonUses(f *testing.F) {
	f.Add([]byte("import os\nos.path.join(x)\n"))
	f.Add([]byte("from . import a as b\nclass C(b.D):\n    def m(self): self.n()\n"))
	f.Add([]byte("x = C()\nx.m()\n__all__ = ['a'] + []\nlambda *a, **k: a\n"))
	f.Add([]byte("def f(a, b=1, *c, d: int = 2, **e):\n    global g\n    g = [i for i in a]\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		us, err := Uses(context.Background(), Python, src)
		if err != nil {
			return
		}
		for _, u := range us {
			if u.Start > u.End || int(u.End) > len(src) {
				t.Fatalf("use %+v outside the source (%d bytes)", u, len(src))
			}
			// Every use is at an identifier: the name, or the local name an
			// import binds.
			text := string(src[u.Start:u.End])
			if text == "" || strings.ContainsAny(text, " \t\n.()[]'\"#") {
				t.Fatalf("use %+v spans %q", u, text)
			}
			if !u.Member && u.From == "" && u.Name != text {
				t.Fatalf("unqualified use %+v spans %q", u, text)
			}
		}
		if _, err := Parse(context.Background(), Python, src); err != nil {
			t.Fatal(err)
		}
	})
}
