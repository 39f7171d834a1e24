package index

import "testing"

// TestNormalizeURIKeepsRefusedForms: a file URI the sandbox refuses is
// returned as sent, so that no later check sees a decoded, innocent form
// ("%2f" turned into "/", a query dropped).
func TestNormalizeURIKeepsRefusedForms(t *testing.T) {
	for _, in := range []string{
		"file:///w/a%2f..%2f..%2fetc%2fpasswd",
		"file:///w/a%2F..%2Fb",
		"file:///w/a%5c..%5cb",
		"file:///w/%2e%2e/etc/passwd",
		"file:///w/../etc/passwd",
		"file:///w/%252e%252e/x",
		"file:///w/a.go%00.txt",
		"file:///w/a.go?x=1",
		"file:///w/a.go#L3",
		"file://evil.example/w/a.go",
		"file:////host/share/a.go",
		"file://user@localhost/w/a.go",
	} {
		if got := NormalizeURI(in); got != in {
			t.Errorf("NormalizeURI(%q) = %q, want it unchanged", in, got)
		}
	}
	for in, want := range map[string]string{
		"file://localhost/w/a.go": "file://localhost/w/a.go",
		"file:///w/./a.go":        "file:///w/./a.go",
		"file:///w/%61.go":        "file:///w/a.go",
		"file:///c%3A/w/a.go":     "file:///C:/w/a.go",
	} {
		if got := NormalizeURI(in); got != want {
			t.Errorf("NormalizeURI(%q) = %q, want %q", in, got, want)
		}
	}
}
