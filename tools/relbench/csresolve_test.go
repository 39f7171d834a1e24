package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeTree writes files (path → content) under a temp dir.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestCSOracle checks the static resolver's rules on a small tree: each
// case is a file whose used files are listed.
func TestCSOracle(t *testing.T) {
	files := map[string]string{
		"Lib/Util/StrUtil.cs": `namespace Lib.Util {
	public static class StrUtil { public static string Trim(string s) { return s; } }
	public sealed class MemUtil { public class Buffer {} }
}`,
		"Lib/Keys/Key.cs": `using System;
namespace Lib.Keys
{
	// StrUtil in a comment is not a use, "MemUtil" in a string neither.
	public class Key : IDisposable { public void Dispose() { var s = "MemUtil"; } }
	public enum KeyKind { A, B }
}`,
		"Lib/Keys/KeyAttribute.cs": `namespace Lib.Keys { public class KeyAttribute : System.Attribute {} }`,
		"App/Form.cs": `using System;
using Lib.Keys;
using SU = Lib.Util.StrUtil;

namespace App
{
	[Key]
	public partial class MainForm
	{
		private Key m_key;
		// No using names Lib.Util: MemUtil does not resolve.
		private MemUtil.Buffer m_buf = new MemUtil.Buffer();
		// A property named like its type: the type in a type context.
		internal KeyKind KeyKind { get { return KeyKind.A; } }
		public MainForm() { SU.Trim(""); var b = new Lib.Util.MemUtil.Buffer(); }
		public KeyKind Kind { get { return KeyKind.A; } }
	}
}`,
		"App/Form.Designer.cs": "\ufeff" + `namespace App { partial class MainForm { void InitializeComponent() {} } }`,
		"App/Other.cs": `namespace App {
	class Other {
		// A member named like a type hides it inside the class.
		int Key() { return 0; }
		void F() { Key(); StrUtil.Trim(""); }
	}
}`,
		"App/Nested.cs": `namespace App.Sub {
	using Lib.Util;
	class Nested {
		// "new Other()" in an initializer is a use, not a member named Other.
		private Other m_o = new Other();
		void F() { StrUtil.Trim(""); MainForm f = null; }
	}
}`,
	}
	root := writeTree(t, files)
	o, _, err := csOracle(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file string
		want map[string]int
	}{
		{"Lib/Keys/Key.cs", map[string]int{}},
		{"App/Form.cs", map[string]int{
			"App/Form.Designer.cs":     1, // the other part
			"Lib/Keys/Key.cs":          5, // Key, KeyKind four times (not the property's name): each use counts
			"Lib/Keys/KeyAttribute.cs": 1,
			"Lib/Util/StrUtil.cs":      4, // the alias target, SU, Lib.Util.MemUtil, its Buffer
		}},
		{"App/Form.Designer.cs", map[string]int{"App/Form.cs": 1}},
		{"App/Other.cs", map[string]int{}},
		{"App/Nested.cs", map[string]int{"App/Form.cs": 1, "App/Form.Designer.cs": 1, "App/Other.cs": 2, "Lib/Util/StrUtil.cs": 1}},
	} {
		got := o.Truth(tc.file).Used
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s used files (-want +got):\n%s", tc.file, diff)
		}
	}
}

// FuzzCSResolve runs the lexer and both passes on arbitrary source: the
// corpus is downloaded, so no input may panic or loop.
func FuzzCSResolve(f *testing.F) {
	for _, s := range []string{
		"namespace A { using B; class C<T> : D { C() {} int x = @\"q\"\"\"; } }",
		"namespace A.B; record struct R(int X); delegate void F<T>(T t);",
		"[Attr(\"x\")] partial class P { /* c */ void M() { var s = $\"{1}\"; E.F.G(); } }",
		"\ufeffusing X = Y.Z; #if DEBUG\nclass Q { global::A.B b; }",
		"class { < < > ' \" @ $",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		d := newCSDecls()
		file := &csFile{path: "a.cs", tokens: csLex(src)}
		d.declare(file)
		for p := range d.uses(file) {
			if p == "a.cs" {
				t.Fatalf("a file uses itself")
			}
		}
	})
}
