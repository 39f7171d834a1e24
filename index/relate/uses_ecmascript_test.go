package relate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestJSPackageExports(t *testing.T) {
	exps := parseJSExports([]byte(`{
		".": {"types": "./dist/index.d.ts", "import": {"node": "./dist/esm/index.js", "default": "./dist/esm/browser.js"}, "require": "./dist/cjs/index.js"},
		"./feature": ["./dist/feature.js"],
		"./*": "./dist/esm/*.js",
		"./icons/*": {"default": "./dist/icons/*.js"},
		"./internal/*": null
	}`))
	for _, tc := range []struct {
		key  string
		want []string
	}{
		{".", []string{"./dist/index.d.ts", "./dist/esm/index.js", "./dist/esm/browser.js", "./dist/cjs/index.js"}},
		{"./feature", []string{"./dist/feature.js"}},
		{"./button", []string{"./dist/esm/button.js"}},
		{"./icons/a/b", []string{"./dist/icons/a/b.js"}},
		{"./internal/x", []string{}},
	} {
		if diff := cmp.Diff(tc.want, matchJSExports(exps, tc.key), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.key, diff)
		}
	}
	if diff := cmp.Diff([]jsSubpath{{key: ".", targets: []string{"./main.js"}}}, parseJSExports([]byte(`"./main.js"`)), cmp.AllowUnexported(jsSubpath{})); diff != "" {
		t.Errorf("string exports (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]jsSubpath{{key: ".", targets: []string{"./a.mjs", "./a.cjs"}}}, parseJSExports([]byte(`{"import": "./a.mjs", "require": "./a.cjs"}`)), cmp.AllowUnexported(jsSubpath{})); diff != "" {
		t.Errorf("conditions exports (-want +got):\n%s", diff)
	}
}

func TestJSSourceBases(t *testing.T) {
	for _, tc := range []struct {
		dir, target string
		want        []string
	}{
		{"packages/ui", "./dist/index.js", []string{"packages/ui/src/index"}},
		{"packages/ui", "./dist/esm/x/y.d.ts", []string{"packages/ui/src/esm/x/y", "packages/ui/src/x/y"}},
		{"", "lib/index.mjs", []string{"src/index"}},
		{"packages/ui", "./src/index.ts", nil},
		{"packages/ui", "./index.js", nil},
	} {
		if diff := cmp.Diff(tc.want, jsSourceBases(tc.dir, tc.target)); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tc.dir, tc.target, diff)
		}
	}
}

func TestJSPackageImports(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		want      []jsSubpath
	}{
		{"patterns and conditions", `{"#internal/*": {"types": "./src/internal/*.ts", "default": "./dist/internal/*.js"}, "#db": "./db.js", "./not-a-key": "./x.js", "#": "./y.js"}`,
			[]jsSubpath{{key: "#internal/*", targets: []string{"./src/internal/*.ts", "./dist/internal/*.js"}}, {key: "#db", targets: []string{"./db.js"}}}},
		{"absent", ``, nil},
		{"not an object", `"./x.js"`, nil},
	} {
		got := parseJSImports([]byte(tc.raw))
		if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(jsSubpath{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestTSRootDirAlts(t *testing.T) {
	opts := &tsOptions{rootDirs: []string{"app/src", "app/generated", "app/src"}}
	for _, tc := range []struct {
		base string
		want []string
	}{
		{"app/src/views/a", []string{"app/generated/views/a"}},
		{"app/generated/b", []string{"app/src/b"}},
		{"lib/c", nil},
	} {
		if diff := cmp.Diff(tc.want, tsRootDirAlts(opts, tc.base)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.base, diff)
		}
	}
	if got := tsRootDirAlts(&tsOptions{rootDirs: []string{"src"}}, "src/a"); got != nil {
		t.Errorf("one root dir: got %v, want nil", got)
	}
}
