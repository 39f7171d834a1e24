package contextbuilder

import "testing"

func TestIsManifest(t *testing.T) {
	for p, want := range map[string]bool{
		"go.mod": true, "sub/package.json": true, "App/App.csproj": true, "Makefile": true,
		"tsconfig.json": false, "web/jsconfig.json": false, "Cargo.toml": true,
	} {
		if got := isManifest(p); got != want {
			t.Errorf("isManifest(%q) = %v, want %v", p, got, want)
		}
	}
}
