package syntax

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestESUses(t *testing.T) {
	for _, tc := range []struct {
		name     string
		lang     Language
		src      string
		uses     []Use
		bindings []Binding
	}{{
		name: "imports",
		lang: TypeScript,
		src: `import d, {a as b, type T} from "m"; import * as ns from "n"; import x = require("r"); import "side";
let v: ns.Foo<T> = ns.bar(d, b, x.y, x); // b d ns in a comment
const s = "b";
`,
		uses: []Use{{From: "r"}, {From: "side"}, {Name: "Foo", From: "n"}, {Name: "T", From: "m"},
			{Name: "a", From: "m"}, {Name: "bar", From: "n"}, {Name: "default", From: "m"}, {Name: "y", From: "r"}},
		bindings: []Binding{{Name: "d", From: "m", Orig: "default"}, {Name: "b", From: "m", Orig: "a"},
			{Name: "T", From: "m", Orig: "T"}, {Name: "ns", From: "n", Orig: "*"}, {Name: "x", From: "r", Orig: "*"}},
	}, {
		name: "exports",
		lang: TypeScript,
		src: `import {a} from "m";
export {a as c} from "m2"; export * from "m3"; export * as ns2 from "m4";
export default function f() {}
export {a as z, g as h};
function g() {}
`,
		uses: []Use{{From: "m3"}, {From: "m4"}, {Name: "a", From: "m"}, {Name: "a", From: "m2"}, {Name: "g"}},
		bindings: []Binding{{Name: "a", From: "m", Orig: "a"}, {Name: "c", From: "m2", Orig: "a", Export: true},
			{Name: "*", From: "m3", Orig: "*", Export: true}, {Name: "ns2", From: "m4", Orig: "*", Export: true},
			{Name: "default", Orig: "f", Export: true}, {Name: "z", From: "m", Orig: "a", Export: true},
			{Name: "h", Orig: "g", Export: true}},
	}, {
		name: "shadowing",
		lang: TypeScript,
		src: `import {a, b, c, d, e} from "m";
function f(a: number, {b}: X) { a; b; { let c = 1; c; } c; }
const g = (d) => d + e;
function h<e>(x: e) { try {} catch (b) { b } for (const c of []) { c } var d; d; }
class K { m(e) { return e; } }
`,
		uses: []Use{{Name: "c", From: "m"}, {Name: "e", From: "m"}},
		bindings: []Binding{{Name: "a", From: "m", Orig: "a"}, {Name: "b", From: "m", Orig: "b"},
			{Name: "c", From: "m", Orig: "c"}, {Name: "d", From: "m", Orig: "d"}, {Name: "e", From: "m", Orig: "e"}},
	}, {
		name: "commonjs",
		lang: JavaScript,
		src: `const q = require("q"), {e, g: h} = require("w");
const z = require("z").zz;
module.exports = require("k");
exports.y = require("j").y;
module.exports.w = e;
q(); h(); z; require("inline").m(); import("dyn");
`,
		uses: []Use{{From: "dyn"}, {From: "k"}, {From: "q"}, {Name: "e", From: "w"}, {Name: "g", From: "w"}, {Name: "m", From: "inline"},
			{Name: "y", From: "j"}, {Name: "zz", From: "z"}},
		bindings: []Binding{{Name: "q", From: "q", Orig: "*"}, {Name: "e", From: "w", Orig: "e"},
			{Name: "h", From: "w", Orig: "g"}, {Name: "z", From: "z", Orig: "zz"},
			{Name: "*", From: "k", Orig: "*", Export: true}, {Name: "y", From: "j", Orig: "y", Export: true},
			{Name: "w", From: "w", Orig: "e", Export: true}},
	}, {
		name: "jsx",
		lang: TSX,
		src: `import Button from "./button";
import * as ui from "./ui";
export const App = () => <div><Button/><ui.Card/></div>;
export default App;
`,
		uses: []Use{{Name: "Card", From: "./ui"}, {Name: "default", From: "./button"}, {Name: "App"}},
		bindings: []Binding{{Name: "Button", From: "./button", Orig: "default"}, {Name: "ui", From: "./ui", Orig: "*"},
			{Name: "default", Orig: "App", Export: true}},
	}, {
		name: "members",
		lang: TypeScript,
		src: `import {operate} from "./lift"; import {Sub} from "./sub"; import * as ns from "./ns";
operate((source, sub) => { source.subscribe(sub?.next); });
class C extends B {
  run() { this.a(); const f = () => this.b; function g() { this.c; } super.d(); }
}
function h(s: Sub<number>, ns: number) { const t = new Sub(); s.e; t.f; ns.g; Sub.h; ({i: 1}).j; }
const o = { k() { this.l; } };
ns.m;
`,
		uses: []Use{{Name: "Sub", From: "./sub"}, {Name: "m", From: "./ns"}, {Name: "operate", From: "./lift"},
			{Name: "a", Member: true, Recv: "C"}, {Name: "b", Member: true, Recv: "C"}, {Name: "c", Member: true},
			{Name: "d", Member: true}, {Name: "e", Member: true, Recv: "Sub"}, {Name: "f", Member: true, Recv: "Sub"},
			{Name: "g", Member: true}, {Name: "h", Member: true, Recv: "Sub"}, {Name: "j", Member: true},
			{Name: "l", Member: true}, {Name: "next", Member: true}, {Name: "subscribe", Member: true}},
		bindings: []Binding{{Name: "operate", From: "./lift", Orig: "operate"}, {Name: "Sub", From: "./sub", Orig: "Sub"},
			{Name: "ns", From: "./ns", Orig: "*"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse(context.Background(), tc.lang, []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			sorted := cmpopts.SortSlices(func(a, b Use) bool { return compareUse(a, b) < 0 })
			if diff := cmp.Diff(tc.uses, f.Uses, sorted, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("uses (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.bindings, f.Bindings, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("bindings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestESWalkPaths checks that the C walk and go-tree-sitter's cursor give
// the same uses.
func TestESWalkPaths(t *testing.T) {
	src := []byte(`import d, {a as b} from "m"; import * as ns from "n";
export * from "x"; function f(b) { return ns.q(d, b); } const y = require("y").z; b; <T/>;`)
	for _, lang := range []Language{TypeScript, TSX, JavaScript} {
		fast, err := Uses(context.Background(), lang, src)
		if err != nil {
			t.Fatal(err)
		}
		fastCursor.Store(false)
		slow, err := Uses(context.Background(), lang, src)
		fastCursor.Store(true)
		if err != nil {
			t.Fatal(err)
		}
		if len(fast) == 0 {
			t.Errorf("%s: no uses", lang)
		}
		if diff := cmp.Diff(fast, slow, cmp.AllowUnexported(), cmpopts.IgnoreUnexported()); diff != "" {
			t.Errorf("%s: fast walk (-) vs cursor walk (+):\n%s", lang, diff)
		}
		for i := range fast {
			if fast[i].Start != slow[i].Start || fast[i].End != slow[i].End {
				t.Errorf("%s: span %d differs: %d-%d vs %d-%d", lang, i, fast[i].Start, fast[i].End, slow[i].Start, slow[i].End)
			}
		}
	}
}

func FuzzESUses(f *testing.F) {
	f.Add(`import a, {b as c} from "m"; export * as n from "x"; const {d, e: g} = require("y"); a.b(c, g);`)
	f.Add(`export default class {}; export = foo; module.exports = {a, b: c}; exports.x = require("z").w;`)
	f.Fuzz(func(t *testing.T, src string) {
		for _, lang := range []Language{TypeScript, JavaScript} {
			us, err := Uses(context.Background(), lang, []byte(src))
			if err != nil {
				return
			}
			for _, u := range us {
				if u.Start > u.End || int(u.End) > len(src) {
					t.Fatalf("%s: bad span %+v", lang, u)
				}
			}
		}
	})
}
